//! The jobs behind the command line.

pub mod align;
pub mod align_words;
pub mod atools;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod compare;
pub mod decode;
pub mod demo;
pub mod export;
pub mod extract;
pub mod fast_align;
pub mod import;
pub mod l2_assist;
pub mod lepod;
pub mod lm_estimate;
pub mod parallel;
pub mod paraphrase;
pub mod pivot;
pub mod report;
pub mod rerank;
pub mod sacrebleu;
pub mod score;
pub mod semeval_eval;
pub mod sentences;
pub mod show;
pub mod sql;
pub mod triples;

use std::path::Path;

use anyhow::{Context, Result};
use datafusion::prelude::{DataFrame, SessionContext};
use futures::TryStreamExt;

use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;

/// Run `frame` and write its result to `out` atomically, with the job's signature and the query
/// (as SQL) in the file's metadata; the rows written.
pub async fn write_frame(frame: DataFrame, out: &Path, signature: &str) -> Result<u64> {
    let query = query_text(&frame);
    write_with(frame, &query, out, signature).await
}

/// [`write_frame`] for an SQL program, recorded as it is written.
pub async fn write_query(
    ctx: &SessionContext,
    query: &str,
    out: &Path,
    signature: &str,
) -> Result<u64> {
    write_with(ctx.sql(query).await?, query, out, signature).await
}

async fn write_with(frame: DataFrame, query: &str, out: &Path, signature: &str) -> Result<u64> {
    let metadata = vec![
        (keys::SIGNATURE.to_string(), signature.to_string()),
        (keys::QUERY.to_string(), query.to_string()),
    ];
    let mut writer = AtomicParquetWriter::create(out, frame.schema().inner().clone(), metadata)?;
    let mut stream = frame
        .execute_stream()
        .await
        .with_context(|| format!("planning {}", out.display()))?;
    let mut rows = 0;
    while let Some(batch) = stream.try_next().await? {
        rows += batch.num_rows() as u64;
        writer.write(&batch)?;
    }
    writer.finish()?;
    Ok(rows)
}

/// The query as SQL, for `--explain` and the output's metadata (the logical plan where a part
/// of it has no SQL form).
pub fn query_text(frame: &DataFrame) -> String {
    match datafusion::sql::unparser::plan_to_sql(frame.logical_plan()) {
        Ok(statement) => statement.to_string(),
        Err(_) => frame.logical_plan().display_indent().to_string(),
    }
}
