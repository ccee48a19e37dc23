//! `pairmetrics show`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::show;

use super::Stdout;

/// Print one pair of a table for a quick look: its sentences with numbered tokens, its
/// alignment as word pairs with the words left unaligned, and every other column's value
/// (the metrics, and why a metric is NULL).
#[derive(clap::Args)]
pub struct Args {
    /// A Parquet table with pair_id (`score` output, a pairs table, ...).
    table: PathBuf,
    /// The pair to show.
    #[arg(long)]
    pair_id: i64,
    /// An alignments table whose links to draw (a `links` column of the table is drawn too).
    #[arg(long)]
    alignments: Option<PathBuf>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            table,
            pair_id,
            alignments,
        } = self;
        write!(
            stdout,
            "{}",
            show::show(&table, pair_id, alignments.as_ref()).await?
        )?;
        Ok(())
    }
}
