//! `pairmetrics fast-align`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use pairmetrics::align::fast_align::Options;
use pairmetrics::pipeline::fast_align;

use super::Stdout;
use super::args::{at_least_one, cores};

/// Drop-in replacement for fast_align: its word alignments, byte for byte, from its flags.
///
/// `pairmetrics fast-align -i CORPUS -d -o -v [-r]` reads fast_align's `source ||| target`
/// lines (a tab separates the sides too; plain, gzip or zstd) and prints, per line, the Viterbi
/// links `i-j` (source-target, 0-based) of the reparameterised IBM Model 2 (Dyer, Chahuneau and
/// Smith 2013) after -I iterations of EM, exactly as fast_align run on one thread prints them.
/// Its figures per iteration go to stderr. A line with an empty side is an error (fast_align
/// goes on with an undefined length ratio). -p writes the translation table too. Not here
/// yet: -f (force alignment), -s (scores).
///
/// Memory: the vocabulary and the translation table (about 20 bytes per distinct co-occurring
/// word pair), as fast_align holds only its table; the corpus and each line's table slots (4
/// bytes per source word or NULL and target word) go to --temp-dir and are read back each
/// iteration. See docs/guide/align-and-import.md.
#[derive(clap::Args)]
pub struct Args {
    /// The parallel corpus: `source ||| target` per line.
    #[arg(short = 'i', long = "input", value_name = "CORPUS")]
    input: PathBuf,
    /// Condition on the target and predict the source (links stay source-target).
    #[arg(short = 'r', long = "reverse")]
    reverse: bool,
    /// EM iterations; the last aligns.
    #[arg(short = 'I', long = "iterations", default_value_t = 5)]
    iterations: usize,
    /// Favour alignment points close to the monotonic diagonal.
    #[arg(short = 'd', long = "favor_diagonal")]
    favor_diagonal: bool,
    /// Optimise how close to the diagonal alignment points should be (with -d).
    #[arg(short = 'o', long = "optimize_tension")]
    optimize_tension: bool,
    /// A Dirichlet prior on the translation distributions (variational Bayes).
    #[arg(short = 'v', long = "variational_bayes")]
    variational_bayes: bool,
    /// The prior's alpha (with -v).
    #[arg(short = 'a', long = "alpha", default_value_t = 0.01)]
    alpha: f64,
    /// The starting diagonal tension (implies -d).
    #[arg(short = 'T', long = "diagonal_tension")]
    diagonal_tension: Option<f64>,
    /// The probability of aligning to NULL (p_null).
    #[arg(short = 'q', long = "p0", default_value_t = 0.08)]
    p0: f64,
    /// No NULL word.
    #[arg(short = 'N', long = "no_null_word")]
    no_null_word: bool,
    /// Lines per chunk (fast_align's thread buffer): the posterior feature is summed per chunk.
    #[arg(short = 'b', long = "thread_buffer_size", default_value_t = 10000)]
    thread_buffer_size: usize,
    /// Worker threads (default: the number of cores; the output is the same for any number).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
    /// Where the scratch directory is made (default: the system's temporary directory): the
    /// corpus and each line's table slots are written there and read back each iteration.
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
    /// Also write the translation table: `e<TAB>f<TAB>ln t(f|e)` lines, as fast_align writes them
    /// (written under a temporary name, renamed when complete).
    #[arg(short = 'p', long = "conditional_probabilities", value_name = "FILE")]
    conditional_probabilities: Option<PathBuf>,
    /// Which translations -p keeps: ln t(f|e) >= this times -(the row's best ln t).
    #[arg(short = 't', long = "beam_threshold", default_value_t = -4.0, allow_negative_numbers = true)]
    beam_threshold: f64,
    /// fast_align's force alignment: not supported yet.
    #[arg(short = 'f', long = "force_align", value_name = "FILE")]
    force_align: Option<PathBuf>,
    /// fast_align's alignment scores: not supported yet.
    #[arg(short = 's')]
    print_scores: bool,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        if self.force_align.is_some() || self.print_scores {
            bail!("fast-align: -f and -s are not supported yet (the alignments and -p are)");
        }
        if self.variational_bayes && self.alpha <= 0.0 {
            bail!("--alpha must be > 0");
        }
        let defaults = Options::default();
        let options = fast_align::FastAlignOptions {
            input: self.input,
            model: Options {
                reverse: self.reverse,
                iterations: self.iterations,
                favor_diagonal: self.favor_diagonal || self.diagonal_tension.is_some(),
                prob_align_null: self.p0,
                diagonal_tension: self.diagonal_tension.unwrap_or(defaults.diagonal_tension),
                optimize_tension: self.optimize_tension,
                variational_bayes: self.variational_bayes,
                alpha: self.alpha,
                no_null_word: self.no_null_word,
                chunk_lines: self.thread_buffer_size,
                threads: self.threads.unwrap_or_else(cores),
            },
            table: self.conditional_probabilities,
            beam_threshold: self.beam_threshold,
            temp_dir: self.temp_dir,
        };
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *stdout);
        fast_align::run(&options, &mut out, &mut std::io::stderr().lock())?;
        out.flush()?;
        Ok(())
    }
}
