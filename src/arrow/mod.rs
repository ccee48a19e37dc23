//! The Arrow layer, below the functions, the resources and the jobs: builders of the columns
//! pairmetrics writes (pair ids, token lists, link lists) here, and row views of the columns
//! it reads in [`read`].

pub mod read;

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayBuilder, ArrayRef, Int32Builder, Int64Array, ListBuilder, StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};

use crate::kernels::Link;
use crate::schema::{link_fields, module_link_fields};

/// The pair_id column of a chunk: ids count from 0 in input order.
pub fn pair_ids(chunk_first: u64, rows: usize) -> ArrayRef {
    let first = chunk_first as i64;
    Arc::new(Int64Array::from_iter_values(first..first + rows as i64))
}

/// A builder of token lists (`List<Utf8>`) for `rows` rows of sentence length.
pub fn token_list_builder(rows: usize) -> ListBuilder<StringBuilder> {
    ListBuilder::with_capacity(StringBuilder::with_capacity(rows * 24, rows * 160), rows)
}

/// Append one row of tokens, lowercased when asked.
pub fn append_tokens<'a>(
    b: &mut ListBuilder<StringBuilder>,
    toks: impl Iterator<Item = &'a str>,
    lowercase: bool,
) {
    for t in toks {
        if lowercase && t.chars().any(char::is_uppercase) {
            b.values().append_value(t.to_lowercase());
        } else {
            b.values().append_value(t);
        }
    }
    b.append(true);
}

/// A links column; `valid[i] == false` makes row i NULL.
pub fn links_array(rows: &[Vec<Link>], valid: Option<Vec<bool>>) -> ArrayRef {
    let rows = rows
        .iter()
        .map(|links| links.iter().map(|&link| (link, None)));
    build_links(link_fields(), rows, valid)
}

/// A links column whose links name the module that found them (`schema::module_link_fields`);
/// `valid[i] == false` makes row i NULL.
pub fn module_links_array<'a, M: Into<Option<&'a str>> + Copy + 'a>(
    rows: impl ExactSizeIterator<Item = &'a [(Link, M)]>,
    valid: Option<Vec<bool>>,
) -> ArrayRef {
    let rows = rows.map(|links| links.iter().map(|&(link, module)| (link, module.into())));
    build_links(module_link_fields(), rows, valid)
}

/// A list of links of `fields` (src, tgt, and module when there is a third field).
fn build_links<'a, L: Iterator<Item = (Link, Option<&'a str>)>>(
    fields: Fields,
    rows: impl ExactSizeIterator<Item = L>,
    valid: Option<Vec<bool>>,
) -> ArrayRef {
    let with_module = fields.len() == 3;
    let mut children: Vec<Box<dyn ArrayBuilder>> =
        vec![Box::new(Int32Builder::new()), Box::new(Int32Builder::new())];
    if with_module {
        children.push(Box::new(StringBuilder::new()));
    }
    let values = StructBuilder::new(fields.clone(), children);
    let mut b = ListBuilder::with_capacity(values, rows.len()).with_field(Arc::new(
        Field::new_list_field(DataType::Struct(fields), true),
    ));
    for (i, links) in rows.enumerate() {
        let v = b.values();
        for ((s, t), module) in links {
            v.field_builder::<Int32Builder>(0)
                .expect("src")
                .append_value(s as i32);
            v.field_builder::<Int32Builder>(1)
                .expect("tgt")
                .append_value(t as i32);
            if with_module {
                v.field_builder::<StringBuilder>(2)
                    .expect("module")
                    .append_option(module);
            }
            v.append(true);
        }
        b.append(valid.as_ref().is_none_or(|v| v[i]));
    }
    Arc::new(b.finish())
}
