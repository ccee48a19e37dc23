//! `pairmetrics align-words`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use pairmetrics::align::fast_align::Options;
use pairmetrics::align::symmetrize::Command;
use pairmetrics::pipeline::align_words::{self, AlignWordsOptions, Links};

use super::Stdout;
use super::args::{at_least_one, cores};

/// Word-align a pairs table: fast_align's model trained on the table, both directions,
/// symmetrised as atools does; an alignments table out.
///
/// The links are what `fast-align -d -o -v` and `fast-align -d -o -v -r` print for the pairs
/// written as `src ||| tgt` lines, combined by `atools -c grow-diag-final-and`: the same code.
/// Every pair with words on both sides is trained on, in the table's order; a pair with an
/// empty or NULL side is written with no links and counted.
///
/// Memory: the vocabulary and the translation table (about 20 bytes per distinct co-occurring
/// word pair); the corpus, each line's table slots (4 bytes per source word or NULL and target
/// word) and the links go to --temp-dir and are read back. See docs/guide/align-and-import.md.
#[derive(clap::Args)]
pub struct Args {
    /// The pairs table (Parquet file, directory or URL).
    #[arg(long)]
    pairs: PathBuf,
    /// Where to write the alignments table (pair_id, links), atomically.
    #[arg(long)]
    out: PathBuf,
    /// The source column: tokens, or text split on whitespace.
    #[arg(long, default_value = "src")]
    src_column: String,
    /// The target column.
    #[arg(long, default_value = "tgt")]
    tgt_column: String,
    /// Which links: grow-diag-final-and, grow-diag-final, grow-diag, intersect or union of the
    /// two directions; or one direction's own, forward (fast_align) or reverse (fast_align -r).
    #[arg(long, default_value = "grow-diag-final-and", value_parser = links)]
    links: Links,
    /// Also write the links as Pharaoh lines (`i-j ...`), one per pair in the table's order.
    #[arg(long, value_name = "FILE")]
    pharaoh: Option<PathBuf>,
    /// EM iterations; the last aligns.
    #[arg(short = 'I', long, default_value_t = 5)]
    iterations: usize,
    /// Do not favour links close to the diagonal (fast_align without -d).
    #[arg(long)]
    no_favor_diagonal: bool,
    /// Keep the diagonal tension where it starts (fast_align without -o).
    #[arg(long)]
    no_optimize_tension: bool,
    /// Plain EM instead of variational Bayes (fast_align without -v).
    #[arg(long)]
    no_variational_bayes: bool,
    /// The Dirichlet prior's alpha (variational Bayes).
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// The starting diagonal tension.
    #[arg(long, default_value_t = 4.0)]
    tension: f64,
    /// The probability of aligning to NULL.
    #[arg(long, default_value_t = 0.08)]
    p0: f64,
    /// No NULL word.
    #[arg(long)]
    no_null_word: bool,
    /// Worker threads (default: the number of cores; the links are the same for any number).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
    /// Where the scratch directory is made (default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
}

fn links(name: &str) -> Result<Links, String> {
    Links::parse(name).ok_or_else(|| {
        let two: Vec<&str> = Command::NAMES
            .into_iter()
            .filter(|n| Command::parse(n).is_some_and(|c| c.operands() == 2))
            .collect();
        format!(
            "`{name}` is not forward, reverse or one of {}",
            two.join(", ")
        )
    })
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        if !self.no_variational_bayes && self.alpha <= 0.0 {
            bail!("--alpha must be > 0");
        }
        if !(0.0..1.0).contains(&self.p0) {
            bail!("--p0 must be in [0, 1)");
        }
        let options = AlignWordsOptions {
            pairs: self.pairs,
            src: self.src_column,
            tgt: self.tgt_column,
            out: self.out,
            pharaoh: self.pharaoh,
            model: Options {
                iterations: self.iterations,
                favor_diagonal: !self.no_favor_diagonal,
                prob_align_null: self.p0,
                diagonal_tension: self.tension,
                optimize_tension: !self.no_optimize_tension,
                variational_bayes: !self.no_variational_bayes,
                alpha: self.alpha,
                no_null_word: self.no_null_word,
                threads: self.threads.unwrap_or_else(cores),
                ..Options::default()
            },
            links: self.links,
            temp_dir: self.temp_dir,
        };
        let summary = align_words::run(&options, &mut std::io::stderr().lock()).await?;
        writeln!(
            stdout,
            "aligned {} pairs ({} links, {}) in {:.2} s -> {}",
            summary.pairs,
            summary.links,
            options.links.name(),
            summary.seconds,
            options.out.display()
        )?;
        if summary.empty > 0 {
            writeln!(
                stdout,
                "{} pairs have an empty or NULL side: not trained on, written with no links",
                summary.empty
            )?;
        }
        Ok(())
    }
}
