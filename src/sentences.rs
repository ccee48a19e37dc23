//! The sentences a job reads (`paraphrase`, `decode`, `lm estimate`, `align-words`), and the
//! bar counting them: a text file of tokenised lines or a Parquet column of tokens or text,
//! each with its id.

use std::path::Path;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{cast, ident, lit};
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};

use crate::arrow::read::TokenLists;
use crate::formats::input::{self, Lines};
use crate::parquet::ParquetInput;
use crate::text::whitespace;
use crate::udf::expr;

/// A sentence: its id and tokens.
pub type Sentence = (i64, Vec<String>);

/// A bar counting `sentences` as they are done, on stderr; hidden unless `show`.
pub fn progress_bar(sentences: usize, show: bool) -> ProgressBar {
    match show {
        true => ProgressBar::new(sentences as u64).with_style(
            ProgressStyle::with_template(
                "{bar:30} {human_pos}/{human_len} sentences ({per_sec}, eta {eta})",
            )
            .expect("a valid template"),
        ),
        false => ProgressBar::hidden(),
    }
}

/// How long `sentences` took, as a job's summary ends: `12.34 s (56.78 sentences/s)`.
pub fn timing(sentences: u64, seconds: f64) -> String {
    let rate = sentences as f64 / seconds.max(1e-9);
    format!("{seconds:.2} s ({rate:.2} sentences/s)")
}

/// Every sentence of `input`: a text file (one tokenised sentence per line; plain, gzip or
/// zstd), id = its 0-based line; or a Parquet file or directory's `column` (tokens, or text
/// split on whitespace), id = `pair_id`, else its 0-based row. A NULL sentence is empty.
pub async fn read(input: &Path, column: &str) -> Result<Vec<Sentence>> {
    let mut sentences = Vec::new();
    visit(input, column, |id, tokens| {
        sentences.push((id, tokens.iter().map(|t| t.to_string()).collect()));
        Ok(())
    })
    .await?;
    Ok(sentences)
}

/// Hand each sentence of `input` (as [`read`] reads them, in file order) to `each`, batch by
/// batch, without holding them all.
pub async fn visit(
    input: &Path,
    column: &str,
    mut each: impl FnMut(i64, &[&str]) -> Result<()>,
) -> Result<()> {
    let parquet = input.is_dir() || input.extension().is_some_and(|e| e == "parquet");
    if !parquet {
        let mut lines = Lines::new(input::open(input)?, input);
        let mut line = String::new();
        let mut i = 0;
        while lines.next_into(&mut line)? {
            let tokens: Vec<&str> = whitespace::split(&line).collect();
            each(i, &tokens)?;
            i += 1;
        }
        return Ok(());
    }
    visit_columns(input, &[column], "--column", |id, row| each(id, &row[0])).await
}

/// Hand each row of a Parquet file or directory's `columns` (tokens, or text split on
/// whitespace) to `each` with its id (`pair_id`, else the 0-based row), in file order, batch
/// by batch. A NULL is empty. A missing column's error names `flags`, which choose them.
pub async fn visit_columns(
    input: &Path,
    columns: &[&str],
    flags: &str,
    mut each: impl FnMut(i64, &[Vec<&str>]) -> Result<()>,
) -> Result<()> {
    let ctx = crate::session::context()?;
    ParquetInput::open("sentences", input)?
        .register(&ctx, false)
        .await?;
    let schema = ctx.table("sentences").await?.schema().as_arrow().clone();
    let mut selected = Vec::new();
    for &column in columns {
        let Ok(field) = schema.field_with_name(column) else {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            bail!(
                "{}: no column {column:?} (it has {}); say which with {flags}",
                input.display(),
                names.join(", ")
            );
        };
        let Some(tokens) = expr::as_tokens(&ctx, column, field.data_type())? else {
            bail!(
                "{}: column {column:?} is {}; expected tokens (List<Utf8>) or text (Utf8)",
                input.display(),
                field.data_type()
            );
        };
        selected.push(tokens);
    }
    // Without pair_id, the 0-based row in file order.
    let id = match schema.field_with_name("pair_id") {
        Ok(_) => cast(ident("pair_id"), DataType::Int64),
        Err(_) => lit(ScalarValue::Int64(None)),
    };
    selected.insert(0, id);
    // Partition after partition, each a run of the files' rows in order: file order.
    let partitions = ctx
        .table("sentences")
        .await?
        .select(selected)?
        .execute_stream_partitioned()
        .await?;
    let mut batches = futures::stream::iter(partitions).flatten();
    let mut rows = 0i64;
    while let Some(batch) = batches.next().await {
        let batch = batch?;
        let ids = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .context("ids are Int64")?;
        let lists = (0..columns.len())
            .map(|c| TokenLists::new("tokens", batch.column(c + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut row = vec![Vec::new(); columns.len()];
        for i in 0..batch.num_rows() {
            for (c, (lists, tokens)) in lists.iter().zip(&mut row).enumerate() {
                match lists.row(i, tokens) {
                    Ok(()) => {}
                    // A NULL sentence is an empty one: it gets a row saying so.
                    Err(_) if batch.column(c + 1).is_null(i) => tokens.clear(),
                    Err(e) => bail!(
                        "{}: row {rows} (0-based): column {:?}: {e}",
                        input.display(),
                        columns[c]
                    ),
                }
            }
            let id = if ids.is_null(i) { rows } else { ids.value(i) };
            each(id, &row)?;
            rows += 1;
        }
    }
    Ok(())
}

/// Refuse the first sentence longer than `max` words, naming it: for jobs whose cost grows
/// faster than a sentence's length (`decode`, `paraphrase`), before any work.
pub fn check_lengths(sentences: &[Sentence], max: usize, job: &str) -> anyhow::Result<()> {
    match sentences.iter().find(|(_, tokens)| tokens.len() > max) {
        Some((id, tokens)) => anyhow::bail!(
            "sentence {id} (0-based) has {} words, more than the {max} {job} takes (its search \
             grows faster than the length): split it",
            tokens.len()
        ),
        None => Ok(()),
    }
}
