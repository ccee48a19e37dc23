//! `pairmetrics lmplz`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use pairmetrics::formats::input;
use pairmetrics::lm::kneser_ney::Options;
use pairmetrics::pipeline::lm_estimate::{self, Memory};

use super::Stdout;
use super::args::{estimator_options, parse_size};

/// Drop-in replacement for KenLM's lmplz: the same ARPA, byte for byte, from its flags.
///
/// `pairmetrics lmplz -o N < TEXT > ARPA` estimates an interpolated modified Kneser-Ney model
/// of order N exactly as lmplz (unpruned, without --renumber) does: the same n-grams in the
/// same order, the same single-precision values printed the same way. The text is one sentence
/// per line, words separated by spaces or tabs (plain, gzip or zstd with --text). As lmplz's,
/// the estimate stays within -S (80% of physical memory by default), spilling the rest to a
/// scratch directory where -T says; lmplz's block flags (--minimum_block, ...) are accepted and
/// have no effect (`lm estimate` is the Parquet form).
/// Not here yet: --prune, --limit_vocab_file, --collapse_values, --intermediate, --renumber,
/// --verbose_header. See docs/guide/language-models.md.
#[derive(clap::Args)]
pub struct Args {
    /// Order of the model.
    #[arg(short = 'o', long = "order")]
    order: usize,
    /// Interpolate the unigrams with the uniform distribution (1, the default), or give their
    /// left mass to <unk> as SRILM does (0).
    #[arg(long = "interpolate_unigrams", value_name = "BOOL", num_args = 0..=1,
          default_value = "1", default_missing_value = "1", value_parser = boolean)]
    interpolate_unigrams: bool,
    /// Read <s>, </s> and <unk> in the text as whitespace instead of refusing them.
    #[arg(long = "skip_symbols")]
    skip_symbols: bool,
    /// Discounts D1 [D2 [D3+]] for the orders whose discounts cannot be estimated (default
    /// 0.5 1 1.5); without this flag such an order is an error.
    #[arg(long = "discount_fallback", value_name = "D", num_args = 0..=3,
          default_missing_values = ["0.5", "1", "1.5"])]
    discount_fallback: Option<Vec<f32>>,
    /// Pad the uniform distribution's vocabulary to at least this many words.
    #[arg(long = "vocab_pad", default_value_t = 0)]
    vocab_pad: u64,
    /// Read the text from this file instead of stdin.
    #[arg(long = "text", value_name = "FILE")]
    text: Option<PathBuf>,
    /// Write the ARPA to this file (atomically) instead of stdout.
    #[arg(long = "arpa", value_name = "FILE")]
    arpa: Option<PathBuf>,
    /// Memory for the corpus and its n-grams, as lmplz reads it: a number with a suffix b, K,
    /// M, G or T (K without one), or a percentage of physical memory. The vocabulary is held
    /// besides.
    #[arg(short = 'S', long = "memory", value_name = "SIZE", default_value = "80%",
          value_parser = parse_size)]
    memory: usize,
    /// Where spilled data goes: the scratch directory is made in PREFIX if it is a directory
    /// or ends in /, else next to it (default: the system's temporary directory).
    #[arg(short = 'T', long = "temp_prefix", value_name = "PREFIX")]
    temp_prefix: Option<String>,
    /// Accepted for lmplz's scripts; no effect.
    #[arg(long = "minimum_block", value_name = "SIZE")]
    minimum_block: Option<String>,
    /// Accepted for lmplz's scripts; no effect.
    #[arg(long = "sort_block", value_name = "SIZE")]
    sort_block: Option<String>,
    /// Accepted for lmplz's scripts; no effect.
    #[arg(long = "block_count", value_name = "N")]
    block_count: Option<String>,
    /// Accepted for lmplz's scripts; no effect.
    #[arg(long = "vocab_estimate", value_name = "N")]
    vocab_estimate: Option<String>,
    /// lmplz's pruning: not supported yet.
    #[arg(long = "prune", num_args = 1.., value_name = "N")]
    prune: Vec<String>,
    /// lmplz's vocabulary limit: not supported yet.
    #[arg(long = "limit_vocab_file", value_name = "FILE")]
    limit_vocab_file: Option<String>,
    /// lmplz's collapsed values: not supported yet.
    #[arg(long = "collapse_values")]
    collapse_values: bool,
    /// lmplz's intermediate files: not supported yet.
    #[arg(long = "intermediate", value_name = "PREFIX")]
    intermediate: Option<String>,
    /// lmplz's renumbered vocabulary: not supported yet.
    #[arg(long = "renumber")]
    renumber: bool,
    /// lmplz's verbose header: not supported yet.
    #[arg(long = "verbose_header")]
    verbose_header: bool,
}

/// A boolean as boost::program_options reads one.
fn boolean(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("`{value}` is not a boolean (1 or 0)")),
    }
}

/// The scratch directory's parent from lmplz's -T, a prefix of its temporary files' names.
fn temp_dir(prefix: &str) -> PathBuf {
    let path = PathBuf::from(prefix);
    if prefix.ends_with('/') || path.is_dir() {
        return path;
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let unsupported = [
            (!self.prune.is_empty(), "--prune"),
            (self.limit_vocab_file.is_some(), "--limit_vocab_file"),
            (self.collapse_values, "--collapse_values"),
            (self.intermediate.is_some(), "--intermediate"),
            (self.renumber, "--renumber"),
            (self.verbose_header, "--verbose_header"),
        ];
        if let Some((_, flag)) = unsupported.iter().find(|(given, _)| *given) {
            bail!("lmplz: {flag} is not supported yet (unpruned models to ARPA are)");
        }
        if self.vocab_pad > 0 && !self.interpolate_unigrams {
            bail!("--vocab_pad requires --interpolate_unigrams be on");
        }
        let options = Options {
            vocab_pad: self.vocab_pad,
            ..estimator_options(
                self.order,
                self.discount_fallback.as_deref(),
                self.interpolate_unigrams,
                self.skip_symbols,
            )?
        };
        let memory = Memory {
            limit: Some(self.memory),
            temp_dir: self.temp_prefix.as_deref().map(temp_dir),
        };
        let special = options.special_words;
        let corpus = match &self.text {
            Some(path) => lm_estimate::read_text(
                input::open(path)?,
                &path.display().to_string(),
                special,
                &memory,
            )?,
            None => lm_estimate::read_text(std::io::stdin().lock(), "stdin", special, &memory)?,
        };
        // Refused before the estimate (an output that is the input, a missing directory), not
        // after it: the input is known once read.
        if let Some(arpa) = &self.arpa {
            pairmetrics::storage::Output::check(arpa)?;
        }
        let log = &mut std::io::stderr().lock();
        let model = lm_estimate::estimate(corpus, &options, log)?;
        lm_estimate::write(&model, self.arpa.as_deref(), stdout)
    }
}
