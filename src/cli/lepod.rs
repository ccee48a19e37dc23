//! `pairmetrics lepod`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::lepod;

use super::Stdout;
use super::args::cores;

/// Drop-in replacement for lepod-score.py: LeD/PoD from METEOR Matcher output.
///
/// Same options and the same PREFIX.led, PREFIX.pod and stdout, byte for byte, as the
/// original on every input it accepts. Where the original crashes: a unit with punctuation
/// on one side only is dropped from PoD (SPEC's decision); an empty sentence, a malformed
/// block, a span past the sentence end or zero pairs stop with an error naming the file and
/// line. Inputs may be gzip or zstd compressed.
#[derive(clap::Args)]
pub struct Args {
    /// The alignment file produced by the METEOR aligner (Matcher output).
    #[arg(short = 'a', long = "alignment", value_name = "ALIGN")]
    alignment: PathBuf,
    /// The two files of sentences to compare, one tokenised sentence per line.
    #[arg(short = 'f', long = "file", num_args = 2, value_names = ["F1", "F2"], required = true)]
    files: Vec<PathBuf>,
    /// Number of digits to the right of the decimal point.
    #[arg(short = 'd', long = "digits", default_value_t = 3)]
    digits: usize,
    /// Exclude these punctuation characters from the alignment (PoD).
    #[arg(short = 'p', long = "punctuations", default_value = "")]
    punctuations: String,
    /// Compare lowercased sequences.
    #[arg(short = 'l', long)]
    lowercase: bool,
    /// Print scores for each pair.
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Prefix of the output files PREFIX.led and PREFIX.pod.
    #[arg(short = 'r', long)]
    prefix: Option<String>,
    /// Only print the LeD and PoD scores.
    #[arg(short = 's', long)]
    simple: bool,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            alignment,
            files,
            digits,
            punctuations,
            lowercase,
            verbose,
            prefix,
            simple,
        } = self;
        let [f1, f2]: [PathBuf; 2] = files.try_into().expect("clap takes two files");
        let options = lepod::LepodOptions {
            alignment,
            files: [f1, f2],
            digits,
            punctuations,
            lowercase,
            verbose,
            prefix,
            simple,
            threads: cores(),
        };
        let mut out = std::io::BufWriter::new(&mut *stdout);
        lepod::run(&options, &mut out, &mut std::io::stderr())?;
        out.flush()?;
        Ok(())
    }
}
