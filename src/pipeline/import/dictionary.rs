//! The dictionary table, from a tab-separated bilingual dictionary (parsed here, on the build
//! thread).

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use datafusion::arrow::array::{ArrayRef, Float64Builder, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::formats::dictionary;
use crate::formats::input::InputError;

/// Parse a chunk of dictionary lines (with their line numbers) into `dictionary` rows, each
/// phrase's words joined by single spaces; blank lines give no row.
pub(super) fn build(
    schema: &SchemaRef,
    path: &Path,
    chunk: Chunk<(u64, String)>,
) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let text = || StringBuilder::with_capacity(n, n * 16);
    let (mut src, mut tgt) = (text(), text());
    let mut p = Float64Builder::with_capacity(n);
    let mut joined = String::new();
    for (line_number, line) in &chunk.rows {
        let entry = dictionary::parse_line(line)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        let Some(entry) = entry else { continue };
        for (phrase, column) in [(entry.src, &mut src), (entry.tgt, &mut tgt)] {
            super::append_words(column, phrase, &mut joined);
        }
        p.append_option(entry.p);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(src.finish()),
        Arc::new(tgt.finish()),
        Arc::new(p.finish()),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
