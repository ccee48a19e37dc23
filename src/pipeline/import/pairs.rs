//! The pairs table, from parallel text files (a line of each per pair).

use std::sync::Arc;

use anyhow::Result;
use datafusion::arrow::array::{ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{append_tokens, pair_ids, token_list_builder};
use crate::text::whitespace;

pub(super) fn build(
    schema: &SchemaRef,
    chunk: Chunk<(String, String)>,
    lowercase: bool,
) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let (mut src, mut tgt) = (token_list_builder(n), token_list_builder(n));
    for (a, b) in &chunk.rows {
        append_tokens(&mut src, whitespace::split(a), lowercase);
        append_tokens(&mut tgt, whitespace::split(b), lowercase);
    }
    let columns: Vec<ArrayRef> = vec![
        pair_ids(chunk.first, n),
        Arc::new(src.finish()),
        Arc::new(tgt.finish()),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
