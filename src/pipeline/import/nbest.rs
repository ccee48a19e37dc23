//! The nbest table, from Moses n-best lists.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use datafusion::arrow::array::{
    ArrayRef, Float64Array, Float64Builder, Int32Array, Int64Array, ListBuilder, RecordBatch,
    StringBuilder,
};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{append_tokens, token_list_builder};
use crate::formats::input::InputError;
use crate::formats::moses;
use crate::text::whitespace;

/// The next rank of each n-best id (lists are usually contiguous; interleaved ones work too).
#[derive(Default)]
pub(super) struct Ranks(std::collections::HashMap<i64, i32>);

pub(super) fn build(
    schema: &SchemaRef,
    path: &Path,
    chunk: Chunk<(u64, String)>,
    ranks: &mut Ranks,
) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let (mut ids, mut rank, mut totals) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut hyp, mut features) = (
        StringBuilder::with_capacity(n, n * 64),
        StringBuilder::with_capacity(n, n * 64),
    );
    let mut tokens = token_list_builder(n);
    let mut scores = ListBuilder::with_capacity(Float64Builder::new(), n);
    for (line_number, line) in &chunk.rows {
        let entry = moses::parse_nbest_line(line)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        let next = ranks.0.entry(entry.id).or_insert(0);
        ids.push(entry.id);
        rank.push(*next);
        *next += 1;
        hyp.append_value(entry.hyp);
        append_tokens(&mut tokens, whitespace::split(entry.hyp), false);
        features.append_value(entry.features);
        scores.values().append_slice(&entry.scores);
        scores.append(true);
        totals.push(entry.total);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(Int32Array::from(rank)),
        Arc::new(hyp.finish()),
        Arc::new(tokens.finish()),
        Arc::new(features.finish()),
        Arc::new(scores.finish()),
        Arc::new(Float64Array::from(totals)),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
