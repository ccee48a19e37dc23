//! `pairmetrics align`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::align::Aligner;
use pairmetrics::pipeline::align;

use super::Stdout;
use super::args::{AlignerArgs, at_least_one, cores};

/// METEOR 1.5's aligner (its `Matcher`), natively: align line i of TEST with line i of REF.
///
/// Prints what `java -cp meteor-1.5.jar Matcher TEST REF [options]` prints, byte for byte
/// (an `Alignment N` block per line pair), so `pairmetrics align t r > a && pairmetrics lepod
/// -a a -f t r` is LePoD's whole pipeline. With --out, writes an alignments table instead
/// (pair_id = 0-based line number; each link names its module). Like METEOR, it splits
/// tokens on whitespace and neither lowercases nor normalises: lowercase first if you want
/// case-insensitive matches (LePoD's pipeline does). Uses every core; inputs may be gzip or
/// zstd compressed; a pair count shows on a terminal's stderr. See docs/meteor-aligner.md.
#[derive(clap::Args)]
pub struct Args {
    /// The first sentences (METEOR's test), one tokenised sentence per line.
    test: PathBuf,
    /// The second sentences (METEOR's reference), as many lines.
    reference: PathBuf,
    #[command(flatten)]
    aligner: AlignerArgs,
    /// Write an alignments table (Parquet, atomically) instead of Matcher's text.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            test,
            reference,
            aligner,
            out,
            threads,
        } = self;
        let aligner = Aligner::new(
            aligner.options()?,
            &pairmetrics::formats::input::open_resource,
        )?;
        let progress = std::io::stderr().is_terminal();
        let threads = threads.unwrap_or_else(cores);
        match out {
            Some(path) => {
                let summary = align::run(
                    &test,
                    &reference,
                    &aligner,
                    threads,
                    align::Output::Parquet(&path),
                    progress,
                )?;
                let rate = summary.pairs as f64 / summary.seconds.max(1e-9);
                writeln!(
                    stdout,
                    "wrote {}: {} pairs, {} links in {:.2} s ({rate:.0} pairs/s)",
                    path.display(),
                    summary.pairs,
                    summary.links,
                    summary.seconds
                )?;
            }
            None => {
                let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *stdout);
                align::run(
                    &test,
                    &reference,
                    &aligner,
                    threads,
                    align::Output::Matcher(&mut out),
                    progress,
                )?;
            }
        }
        Ok(())
    }
}
