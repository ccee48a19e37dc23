//! The alignments table, from Pharaoh or METEOR Matcher links.

use std::sync::Arc;

use anyhow::Result;
use datafusion::arrow::array::{ArrayRef, Int32Builder, ListBuilder, RecordBatch, StringBuilder, StructBuilder};
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};

use super::{Chunk, pair_ids};
use crate::formats::meteor::Block;
use crate::metrics::Link;
use crate::schema::{link_fields, module_link_fields};

pub(super) fn build(schema: &SchemaRef, chunk: Chunk<Vec<Link>>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    Ok(RecordBatch::try_new(schema.clone(), vec![pair_ids(chunk.first, n), links_array(&chunk.rows, None)])?)
}

/// METEOR blocks: links naming their module by `names[module column]` (NULL without one).
pub(super) fn build_named(schema: &SchemaRef, file: &std::path::Path, chunk: Chunk<Block>, names: &[&str]) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let mut rows = Vec::with_capacity(n);
    for block in &chunk.rows {
        let mut links = Vec::new();
        for m in &block.matches {
            let name = match m.module {
                None => None,
                Some(module) => Some(*names.get(module as usize).ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}:{}: block {} has module {module}, but --modules lists {} ({})",
                        file.display(), block.line, block.number, names.len(), names.join(" ")
                    )
                })?),
            };
            links.extend(m.links().map(|link| (link, name)));
        }
        rows.push(links);
    }
    let links = module_links_array(rows.iter().map(Vec::as_slice), None);
    Ok(RecordBatch::try_new(schema.clone(), vec![pair_ids(chunk.first, n), links])?)
}

/// A links column; `valid[i] == false` makes row i NULL.
pub fn links_array(rows: &[Vec<Link>], valid: Option<Vec<bool>>) -> ArrayRef {
    let n = rows.len();
    let fields = link_fields();
    let total: usize = rows.iter().map(Vec::len).sum();
    let values = StructBuilder::new(
        fields.clone(),
        vec![Box::new(Int32Builder::with_capacity(total)), Box::new(Int32Builder::with_capacity(total))],
    );
    let mut b = ListBuilder::with_capacity(values, n)
        .with_field(Arc::new(Field::new_list_field(DataType::Struct(fields), true)));
    for (i, links) in rows.iter().enumerate() {
        let v = b.values();
        for &(s, t) in links {
            v.field_builder::<Int32Builder>(0).expect("src").append_value(s as i32);
            v.field_builder::<Int32Builder>(1).expect("tgt").append_value(t as i32);
            v.append(true);
        }
        b.append(valid.as_ref().is_none_or(|v| v[i]));
    }
    Arc::new(b.finish())
}


/// A links column whose links name the module that found them (`schema::module_link_fields`);
/// `valid[i] == false` makes row i NULL.
pub fn module_links_array<'a, M: Into<Option<&'a str>> + Copy + 'a>(
    rows: impl ExactSizeIterator<Item = &'a [(Link, M)]>,
    valid: Option<Vec<bool>>,
) -> ArrayRef {
    let fields = module_link_fields();
    let values = StructBuilder::new(
        fields.clone(),
        vec![Box::new(Int32Builder::new()), Box::new(Int32Builder::new()), Box::new(StringBuilder::new())],
    );
    let mut b = ListBuilder::with_capacity(values, rows.len())
        .with_field(Arc::new(Field::new_list_field(DataType::Struct(fields), true)));
    for (i, links) in rows.enumerate() {
        let v = b.values();
        for &((s, t), module) in links {
            v.field_builder::<Int32Builder>(0).expect("src").append_value(s as i32);
            v.field_builder::<Int32Builder>(1).expect("tgt").append_value(t as i32);
            v.field_builder::<StringBuilder>(2).expect("module").append_option(module.into());
            v.append(true);
        }
        b.append(valid.as_ref().is_none_or(|v| v[i]));
    }
    Arc::new(b.finish())
}
