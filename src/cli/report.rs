//! `pairmetrics report`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::report;

use super::Stdout;
use super::args::{SignificanceArgs, TuningArgs};

/// Write one self-contained HTML page about scored tables: histograms, densities, the
/// pairs drawn.
///
/// For each metric: its mean with a bootstrap interval and a histogram; LeD against PoD
/// (and PoD against DERP) as binned densities; why rows have no score; and the most
/// reordered and most changed pairs drawn as the LePoD paper draws them (the tokens LeD
/// does not keep, the aligned units, PoD's segments) with DERP's spanning tree. Give
/// several tables (the baseline first) for a comparison: compare's table, the histograms
/// overlaid, and the pairs where each system differs most, side by side. Pairs are drawn
/// with the alignments and arcs `score` read (recorded in the table) unless given here.
/// The page has no script and loads nothing; its size does not grow with the tables.
#[derive(clap::Args)]
pub struct Args {
    /// Scored Parquet files (`score` output): the baseline first.
    #[arg(required = true, value_name = "SCORED")]
    files: Vec<PathBuf>,
    /// Where to write the page.
    #[arg(long, default_value = "report.html")]
    out: PathBuf,
    /// Alignments to draw the pairs with, once per table in order (default: those the
    /// table was scored with).
    #[arg(long)]
    alignments: Vec<PathBuf>,
    /// Arcs (dependency parses) for DERP's trees, once per table in order (default: those
    /// the table was scored with).
    #[arg(long)]
    arcs: Vec<PathBuf>,
    /// Pairs drawn in each list.
    #[arg(long, default_value_t = 5)]
    pairs: usize,
    #[command(flatten)]
    significance: SignificanceArgs,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            files,
            out,
            alignments,
            arcs,
            pairs,
            significance,
            tuning,
        } = self;
        let options = report::ReportOptions {
            tables: files,
            alignments,
            arcs,
            pairs,
            compare: significance.options(None),
            out,
        };
        let written = report::report(&options, &tuning.into()).await?;
        for note in &written.notes {
            eprintln!("note: {note}");
        }
        writeln!(
            stdout,
            "wrote {} ({} bytes, {} pairs drawn)",
            options.out.display(),
            written.bytes,
            written.pairs_drawn
        )?;
        Ok(())
    }
}
