//! `pairmetrics opusfilter`.

use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::opusfilter::{self, Options};

/// Drop-in replacement for OpusFilter 3.3.1's `opusfilter CONFIG.yaml`: the same YAML, the same
/// steps, the same files.
///
/// Runs the steps filter (with filterfalse and limit), score, remove_duplicates (xxhash keys,
/// compare, lowercase, letters_only, letter_words_only, overlap), concatenate, head, tail and slice,
/// with OpusFilter's deterministic filters (LengthFilter, LengthRatioFilter, LongWordFilter,
/// AverageWordLengthFilter, AlphabetRatioFilter, CharacterScoreFilter,
/// TerminalPunctuationFilter, NonZeroNumeralsFilter, LongestCommonSubstringFilter,
/// SimilarityFilter, RepetitionFilter), each equal to OpusFilter's. Filtered files are
/// byte-identical to OpusFilter's (filterfalse's order included: chunk by chunk, each filter's
/// rejects in turn); score files are its JSON lines. Every step is checked before the first
/// runs: a step or filter not supported here (models, training, downloads, custom modules) is
/// an error naming it, and nothing is written. Steps whose outputs all exist are skipped unless
/// --overwrite. Inputs of different lengths stop at the shortest, as in OpusFilter, with a
/// warning. Files ending in .gz, .bz2 or .xz are read and written compressed.
#[derive(clap::Args)]
pub struct Args {
    /// The YAML configuration.
    #[arg(value_name = "CONFIG")]
    config: PathBuf,
    /// Overwrite existing output files.
    #[arg(short = 'o', long)]
    overwrite: bool,
    /// Run steps 1 to LAST only.
    #[arg(long, value_name = "LAST")]
    last: Option<usize>,
    /// Run only step N (1 is the first; -1 the last).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    single: Option<i64>,
    /// Accepted for OpusFilter's command line and not needed: every step uses every core.
    #[arg(long = "n-jobs", value_name = "N")]
    _n_jobs: Option<usize>,
}

impl Args {
    pub fn run(self) -> Result<()> {
        let options = Options {
            config: self.config,
            overwrite: self.overwrite,
            last: self.last,
            single: self.single,
        };
        opusfilter::run(&options, &mut std::io::stderr())
    }
}
