//! `pairmetrics decode`.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::decode::{DecodeOptions, decode};
use pairmetrics::resources;
use pairmetrics::smt::decode::{self, Weights};

use super::Stdout;
use super::args::{at_least_one, cores, weight};

/// Translate (or paraphrase) with a phrase table and a language model: a phrase-based
/// decoder in the Moses mould, as Chevelu et al. (Coling 2010) ran Moses.
///
/// The model is log-linear over four features, as Moses reports them: phrase (sum of ln p of
/// the rules applied), lm (ln P of the whole sentence), distortion (minus the sum of the jumps
/// between consecutive phrases) and word (minus the number of words), weighted by
/// --alpha-phi, --alpha-lm, --alpha-d and --alpha-w (the paper's 1, 1, 10, 0). With
/// --moses-weights it is Moses' untuned model instead: its translation model, tm (the sums of
/// ln p(tgt|src) and ln p(src|tgt) of the rules: the table's p_e_f and p_f_e) and pp (the
/// phrase penalty, 1 per phrase), weighted 0.2, 0.2 and 0.2, beside lm 0.5, distortion 0.3
/// and word -1 (a bonus per word), as train-model.perl writes moses.ini; the phrase feature
/// is still printed but weighted 0, and a table's lexical weights are not used. A source word
/// no rule covers alone is passed through unchanged (ln p = 0). The search is Moses' stack
/// decoding with recombination, future-cost estimates, histogram pruning (--stack-size) and
/// threshold pruning (--beam-threshold); with both off it is exact. Sentences are decoded in
/// parallel; the output does not depend on --threads.
///
/// Prints each sentence's best translation, a line each (an empty line when there is none),
/// or with --nbest N Moses n-best lines (`id ||| translation ||| phrase= P lm= L distortion= D
/// word= W ||| total`, with --moses-weights `tm= D I pp= N` after P; ids 0-based, best
/// first), which `import moses-nbest` and `rerank` read.
#[derive(clap::Args)]
pub struct Args {
    /// The sentences: a text file (one tokenised sentence per line; gzip or zstd too) or a
    /// Parquet file or directory (see --column; ids from its pair_id, else the row).
    input: PathBuf,
    /// The Parquet column holding the sentences: tokens (List<Utf8>) or text.
    #[arg(long, default_value = "src")]
    column: String,
    /// The phrase table (a phrase_table, e.g. from `extract`, `pivot` or `import
    /// moses-phrase-table`).
    #[arg(long, value_name = "PATH")]
    phrase_table: PathBuf,
    /// Which column is the rule probability: p_f_e (P(src|tgt)), p_e_f, lex_f_e or lex_e_f.
    #[arg(long, default_value = resources::DEFAULT_PROB_COLUMN)]
    prob_column: String,
    /// A language model (ARPA, plain, .gz or .zst); without it the lm feature is 0.
    #[arg(long, value_name = "PATH")]
    lm: Option<PathBuf>,
    /// Weight of the phrase feature.
    #[arg(long, default_value_t = 1.0, value_parser = weight, allow_negative_numbers = true)]
    alpha_phi: f64,
    /// Weight of the lm feature.
    #[arg(long, default_value_t = 1.0, requires = "lm", value_parser = weight, allow_negative_numbers = true)]
    alpha_lm: f64,
    /// Weight of the distortion feature.
    #[arg(long, default_value_t = 10.0, value_parser = weight, allow_negative_numbers = true)]
    alpha_d: f64,
    /// Weight of the word feature (the word penalty).
    #[arg(long, default_value_t = 0.0, value_parser = weight, allow_negative_numbers = true)]
    alpha_w: f64,
    /// Moses' untuned model in place of the paper's (see above): translation model 0.2 for
    /// each phrase probability, phrase penalty 0.2, lm 0.5, distortion 0.3, word -1.
    #[arg(long, conflicts_with_all = ["alpha_phi", "alpha_lm", "alpha_d", "alpha_w"])]
    moses_weights: bool,
    /// The longest jump between consecutive phrases; -1: no limit.
    #[arg(long, default_value_t = decode::DEFAULT_DISTORTION_LIMIT as i64, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(-1..), conflicts_with = "monotone")]
    distortion_limit: i64,
    /// Keep the source order (a distortion limit of 0).
    #[arg(long)]
    monotone: bool,
    /// Hypotheses kept per stack (0: all).
    #[arg(long, default_value_t = decode::DEFAULT_STACK_SIZE)]
    stack_size: usize,
    /// Prune hypotheses less probable than the best times this (0: none).
    #[arg(long, default_value_t = decode::DEFAULT_BEAM_THRESHOLD)]
    beam_threshold: f64,
    /// At most this many rules per source phrase, the most probable (0 keeps all).
    #[arg(long, default_value_t = decode::DEFAULT_RULES_PER_PHRASE)]
    rules_per_phrase: usize,
    /// Print the N best translations of each sentence as Moses n-best lines.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    nbest: Option<usize>,
    /// With --nbest: each sentence once, by its best derivation (among the first 20 × N).
    #[arg(long, requires = "nbest")]
    distinct: bool,
    /// Worker threads (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        if !(self.beam_threshold >= 0.0 && self.beam_threshold < 1.0) {
            anyhow::bail!(
                "--beam-threshold {}: expected a number in [0, 1)",
                self.beam_threshold
            );
        }
        let options = DecodeOptions {
            input: self.input,
            column: self.column,
            phrase_table: resources::PhraseTableOptions::new(
                self.phrase_table,
                self.prob_column,
                false,
            ),
            lm: self.lm,
            decode: decode::Options {
                weights: match self.moses_weights {
                    true => Weights::moses(),
                    false => Weights {
                        phrase: self.alpha_phi,
                        lm: self.alpha_lm,
                        distortion: self.alpha_d,
                        word: self.alpha_w,
                        ..Weights::default()
                    },
                },
                distortion_limit: match (self.monotone, self.distortion_limit) {
                    (true, _) => Some(0),
                    (false, -1) => None,
                    (false, limit) => Some(limit as u32),
                },
                stack_size: self.stack_size,
                beam_threshold: self.beam_threshold,
                rules_per_phrase: self.rules_per_phrase,
                nbest: self.nbest.unwrap_or(1),
                distinct: self.distinct,
            },
            nbest_lines: self.nbest.is_some(),
            threads: self.threads.unwrap_or_else(cores),
            progress: std::io::stderr().is_terminal(),
        };
        let (summary, loaded) = decode(&options, &mut *stdout).await?;
        for line in loaded {
            eprintln!("{line}");
        }
        eprintln!("{summary}");
        Ok(())
    }
}
