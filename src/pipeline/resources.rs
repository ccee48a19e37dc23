//! Loading session resources from our Parquet tables.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::Float64Type;
use futures::TryStreamExt;

use super::session;
use crate::Resources;
use crate::metrics::true_score::{Identity, PhraseIndex, PhraseIndexBuilder};
use crate::schema::Table;
use crate::udf::args::TokenLists;

/// Which phrase table the true score uses, and how.
#[derive(Debug, Clone)]
pub struct PhraseTableOptions {
    pub path: PathBuf,
    /// The probability column: p_f_e (P(src|tgt), the default), p_e_f, lex_f_e or lex_e_f.
    pub prob_column: String,
    pub identity: Identity,
}

impl PhraseTableOptions {
    /// The part of an output's signature that says how true_score was computed.
    pub fn signature(&self) -> String {
        let identity = match self.identity {
            Identity::UnlessInTable => "unless-in-table",
            Identity::Always => "always",
        };
        format!("true_score:p={}|identity:{identity}", self.prob_column)
    }
}

/// Load what `phrase_table` asks for (nothing when None); the second value describes what was
/// loaded, for the user.
pub async fn load(phrase_table: Option<&PhraseTableOptions>) -> Result<(Resources, Option<String>)> {
    let Some(options) = phrase_table else { return Ok((Resources::default(), None)) };
    let (index, seconds) = load_phrase_index(options).await?;
    let description = describe(&options.path, &index, seconds);
    Ok((Resources::default().with_phrase_table(index), Some(description)))
}

/// The columns a rule's probability may come from.
pub const PROB_COLUMNS: [&str; 4] = ["p_f_e", "p_e_f", "lex_f_e", "lex_e_f"];

/// Read a phrase_table (Parquet file or directory) into a [`PhraseIndex`], streaming its rows.
/// Returns the index and the seconds it took.
pub async fn load_phrase_index(options: &PhraseTableOptions) -> Result<(PhraseIndex, f64)> {
    let started = Instant::now();
    let column = options.prob_column.as_str();
    if !PROB_COLUMNS.contains(&column) {
        bail!("--prob-column {column}: expected one of {}", PROB_COLUMNS.join(", "));
    }
    let ctx = session::context()?;
    session::register_checked(&ctx, Table::PhraseTable, &options.path).await?;
    let query = format!("SELECT src_tokens, tgt_tokens, CAST({column} AS DOUBLE) FROM phrase_table");
    let mut stream = ctx.sql(&query).await?.execute_stream().await?;
    let mut builder = PhraseIndexBuilder::new(options.identity);
    while let Some(batch) = stream.try_next().await? {
        let (mut src, mut tgt) = (Vec::new(), Vec::new());
        let sources = TokenLists::new("src_tokens", batch.column(0))?;
        let targets = TokenLists::new("tgt_tokens", batch.column(1))?;
        let probabilities = batch.column(2).as_primitive::<Float64Type>();
        for row in 0..batch.num_rows() {
            // A rule with a NULL side or probability can be in no derivation: leave it out.
            if sources.row(row, &mut src).is_ok() && targets.row(row, &mut tgt).is_ok() && probabilities.is_valid(row) {
                builder.add(&src, &tgt, probabilities.value(row));
            }
        }
    }
    Ok((builder.build(), started.elapsed().as_secs_f64()))
}

pub fn describe(path: &Path, index: &PhraseIndex, seconds: f64) -> String {
    format!(
        "phrase table {}: {} rules indexed in {seconds:.2} s (~{} MiB)",
        path.display(),
        index.len(),
        index.memory() >> 20
    )
}
