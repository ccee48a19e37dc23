//! The alignments table, from Pharaoh or METEOR Matcher links.

use anyhow::Result;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{links_array, module_links_array, pair_ids};
use crate::formats::meteor::Block;
use crate::kernels::Link;

pub(super) fn build(schema: &SchemaRef, chunk: Chunk<Vec<Link>>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    Ok(RecordBatch::try_new(
        schema.clone(),
        vec![pair_ids(chunk.first, n), links_array(&chunk.rows, None)],
    )?)
}

/// METEOR blocks: links naming their module by `names[module column]` (NULL without one).
pub(super) fn build_named(
    schema: &SchemaRef,
    file: &std::path::Path,
    chunk: Chunk<Block>,
    names: &[&str],
) -> Result<RecordBatch> {
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
                        file.display(),
                        block.line,
                        block.number,
                        names.len(),
                        names.join(" ")
                    )
                })?),
            };
            links.extend(m.links().map(|link| (link, name)));
        }
        rows.push(links);
    }
    let links = module_links_array(rows.iter().map(Vec::as_slice), None);
    Ok(RecordBatch::try_new(
        schema.clone(),
        vec![pair_ids(chunk.first, n), links],
    )?)
}
