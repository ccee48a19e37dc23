//! The phrase_table table, from a Moses phrase table (parsed here, on the build thread).

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use datafusion::arrow::array::{
    ArrayRef, Float64Array, Float64Builder, ListBuilder, RecordBatch, StringBuilder,
};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{append_tokens, links_array, token_list_builder};
use crate::formats::input::InputError;
use crate::formats::moses;
use crate::text::whitespace;

/// Parse a chunk of phrase-table lines (with their line numbers) into `phrase_table` rows.
pub(super) fn build(
    schema: &SchemaRef,
    path: &Path,
    chunk: Chunk<(u64, String)>,
) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let text = || StringBuilder::with_capacity(n, n * 16);
    let (mut src, mut tgt) = (text(), text());
    let (mut src_tokens, mut tgt_tokens) = (token_list_builder(n), token_list_builder(n));
    let mut scores: [Vec<f64>; 4] = Default::default();
    let mut extra = ListBuilder::with_capacity(Float64Builder::new(), n);
    let mut counts = ListBuilder::with_capacity(Float64Builder::new(), n);
    let mut alignments = Vec::with_capacity(n);
    let mut has_alignment = Vec::with_capacity(n);
    let mut joined = String::new();
    for (line_number, line) in &chunk.rows {
        let entry = moses::parse_phrase_line(line)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        for (phrase, text, tokens) in [
            (entry.src, &mut src, &mut src_tokens),
            (entry.tgt, &mut tgt, &mut tgt_tokens),
        ] {
            super::append_words(text, phrase, &mut joined);
            append_tokens(tokens, whitespace::split(phrase), false);
        }
        for (column, value) in scores.iter_mut().zip(&entry.scores) {
            column.push(*value);
        }
        extra.values().append_slice(&entry.scores[4..]);
        extra.append(true);
        match &entry.counts {
            Some(c) => {
                counts.values().append_slice(c);
                counts.append(true);
            }
            None => counts.append(false),
        }
        has_alignment.push(entry.alignment.is_some());
        alignments.push(entry.alignment.unwrap_or_default());
    }
    let alignment = links_array(&alignments, Some(has_alignment));
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(src.finish()),
        Arc::new(tgt.finish()),
        Arc::new(src_tokens.finish()),
        Arc::new(tgt_tokens.finish()),
    ];
    columns.extend(
        scores
            .into_iter()
            .map(|v| Arc::new(Float64Array::from(v)) as ArrayRef),
    );
    columns.extend([
        Arc::new(extra.finish()) as ArrayRef,
        alignment,
        Arc::new(counts.finish()),
    ]);
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
