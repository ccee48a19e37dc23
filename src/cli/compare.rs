//! `pairmetrics compare`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::compare;

use super::Stdout;
use super::args::{SignificanceArgs, TuningArgs};

/// Is system B really better than A? Compare scored outputs over the same pairs.
///
/// The first file is the baseline; every other is compared with it, metric by metric: each
/// system's mean with a percentile bootstrap interval, the delta (system - baseline) with its
/// interval, and two p-values: sacrebleu's paired bootstrap and its paired approximate
/// randomization (equal means give p = 1). The files must hold the same pair_ids, each once;
/// a pair a system did not score (NULL) is left out of its figures. Every figure is also a
/// SQL aggregate (bootstrap_ci, paired_bootstrap, approx_randomization); the resampling is a
/// Poisson bootstrap seeded by --seed, so the same inputs give the same figures. See
/// docs/significance.md.
#[derive(clap::Args)]
pub struct Args {
    /// Scored Parquet files (`score` output, or any table with pair_id and numeric columns):
    /// the baseline first.
    #[arg(required = true, num_args = 2.., value_name = "SCORED")]
    files: Vec<PathBuf>,
    /// Columns to compare (default: every score column `score` writes that all files have).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    metrics: Option<Vec<String>>,
    #[command(flatten)]
    significance: SignificanceArgs,
    /// How to print the result.
    #[arg(long, value_enum, default_value = "table")]
    format: CompareFormat,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            files,
            metrics,
            significance,
            format,
            tuning,
        } = self;
        let options = significance.options(metrics);
        let comparison = compare::compare(&files, &options, &tuning.into()).await?;
        match format {
            CompareFormat::Table => write!(stdout, "{}", comparison.text())?,
            CompareFormat::Json => writeln!(stdout, "{:#}", comparison.json())?,
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CompareFormat {
    /// A text table, a row per metric and system.
    Table,
    /// One JSON document.
    Json,
}
