//! The triples table, from Google Books Syntactic N-grams `arcs` files.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::formats::input::InputError;
use crate::formats::syntactic_ngrams;

/// Two rows per arc of each syntactic n-gram line, the line's total as their count: the `form`
/// arc, and the `upos` arc of its tags (mapped from the Penn Treebank's).
pub(super) fn build(
    schema: &SchemaRef,
    paths: &[PathBuf],
    chunk: Chunk<(usize, u64, String)>,
    lowercase: bool,
) -> Result<RecordBatch> {
    let n = chunk.rows.len() * 4;
    let text = || StringBuilder::with_capacity(n, n * 8);
    let (mut level, mut head, mut dep, mut deprel) = (text(), text(), text(), text());
    let mut counts = Vec::with_capacity(n);
    let mut arcs = Vec::new();
    let word = |b: &mut StringBuilder, w: &str| {
        if lowercase && w.chars().any(char::is_uppercase) {
            b.append_value(w.to_lowercase())
        } else {
            b.append_value(w)
        }
    };
    for (file, line_number, line) in &chunk.rows {
        let path = &paths[*file];
        let total = syntactic_ngrams::parse_line(line, &mut arcs)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        let total = i64::try_from(total)
            .map_err(|_| anyhow!(InputError::at(path, *line_number, "count past Int64")))?;
        for arc in &arcs {
            level.append_value("form");
            word(&mut head, arc.head);
            word(&mut dep, arc.dep);
            level.append_value("upos");
            head.append_value(syntactic_ngrams::upos(arc.head_tag));
            dep.append_value(syntactic_ngrams::upos(arc.dep_tag));
            deprel.append_value(arc.label);
            deprel.append_value(arc.label);
            counts.extend([total, total]);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(level.finish()),
        Arc::new(head.finish()),
        Arc::new(dep.finish()),
        Arc::new(deprel.finish()),
        Arc::new(Int64Array::from(counts)),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
