//! `pairmetrics lm`.

use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::lm_estimate::{self, Memory};

use super::Stdout;
use super::args::{estimator_options, parse_size};

/// Language models.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Estimate an interpolated modified Kneser-Ney model from a column of sentences, as
    /// KenLM's lmplz does (`pairmetrics lmplz` is the same estimator behind lmplz's flags), and
    /// write it as ARPA for --lm and the lm_* functions.
    ///
    /// The sentences are a Parquet file or directory's column (tokens, or text split on
    /// whitespace), rows in file order, or a text file of one tokenised sentence per line. Each
    /// is padded with <s> and closed by </s>; a NULL sentence is an empty one. The n-grams are
    /// estimated within --memory-limit, spilling the rest to a scratch directory.
    Estimate {
        /// The sentences: a Parquet file or directory, or a text file.
        #[arg(long)]
        input: PathBuf,
        /// The column of a Parquet input.
        #[arg(long, default_value = "tgt")]
        column: String,
        /// Order of the model.
        #[arg(short = 'o', long, default_value_t = 5)]
        order: usize,
        /// Where to write the ARPA model (atomically); stdout if not given.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Discounts D1 [D2 [D3+]] for orders whose discounts cannot be estimated (small or
        /// repetitive text); given without values, 0.5 1 1.5.
        #[arg(long, value_name = "D", num_args = 0..=3, default_missing_values = ["0.5", "1", "1.5"])]
        discount_fallback: Option<Vec<f32>>,
        /// Give the unigrams' left mass to <unk> (SRILM) instead of interpolating them with
        /// the uniform distribution.
        #[arg(long)]
        no_interpolate_unigrams: bool,
        /// Read <s>, </s> and <unk> in the sentences as absent instead of refusing them.
        #[arg(long)]
        skip_symbols: bool,
        /// Memory for the corpus and its n-grams in MiB (default: 80% of physical memory, as
        /// lmplz's -S); beyond it they spill to --temp-dir. The vocabulary is held besides.
        #[arg(long, value_name = "MIB", value_parser = super::args::at_least_one)]
        memory_limit: Option<usize>,
        /// Where the scratch directory is made (default: the system's temporary directory).
        #[arg(long, value_name = "DIR")]
        temp_dir: Option<PathBuf>,
    },
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        match self.command {
            Command::Estimate {
                input,
                column,
                order,
                out,
                discount_fallback,
                no_interpolate_unigrams,
                skip_symbols,
                memory_limit,
                temp_dir,
            } => {
                let options = estimator_options(
                    order,
                    discount_fallback.as_deref(),
                    !no_interpolate_unigrams,
                    skip_symbols,
                )?;
                let memory = Memory {
                    limit: Some(match memory_limit {
                        Some(mib) => mib << 20,
                        None => parse_size("80%")?,
                    }),
                    temp_dir,
                };
                let corpus =
                    lm_estimate::read_sentences(&input, &column, options.special_words, &memory)
                        .await?;
                // Refused before the estimate (an output that is the input, a missing
                // directory), not after it: the input is known once read.
                if let Some(out) = &out {
                    pairmetrics::storage::Output::check(out)?;
                }
                let log = &mut std::io::stderr().lock();
                let model = lm_estimate::estimate(corpus, &options, log)?;
                lm_estimate::write(&model, out.as_deref(), stdout)
            }
        }
    }
}
