//! The arcs table, from two CoNLL-U files (a sentence of each per pair).

use std::sync::Arc;

use anyhow::Result;
use datafusion::arrow::array::{ArrayRef, Int32Builder, ListBuilder, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{append_tokens, pair_ids, token_list_builder};
use crate::formats::conllu::Sentence;

pub(super) fn build(schema: &SchemaRef, chunk: Chunk<(Sentence, Sentence)>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let heads = |pick: fn(&(Sentence, Sentence)) -> &Sentence| -> ArrayRef {
        let mut b = ListBuilder::with_capacity(Int32Builder::new(), n);
        for pair in &chunk.rows {
            b.values().append_slice(&pick(pair).heads);
            b.append(true);
        }
        Arc::new(b.finish())
    };
    let strings = |pick: fn(&(Sentence, Sentence)) -> &Vec<String>| -> ArrayRef {
        let mut b = token_list_builder(n);
        for pair in &chunk.rows {
            append_tokens(&mut b, pick(pair).iter().map(String::as_str), false);
        }
        Arc::new(b.finish())
    };
    let columns = vec![
        pair_ids(chunk.first, n),
        heads(|p| &p.0),
        heads(|p| &p.1),
        strings(|p| &p.0.deprels),
        strings(|p| &p.1.deprels),
        strings(|p| &p.0.upos),
        strings(|p| &p.1.upos),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
