//! `sentence_ter`, `ter_stats` and the aggregate `corpus_ter`: sacrebleu's TER
//! ([`crate::metrics::ter`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::docs::DOC_SECTION;
use super::expr;
use super::sacrebleu::{Kind, Metric};
use crate::metrics::sacrebleu::SacreMetric;
use crate::metrics::ter::{self, Scratch, TerOptions};

const OPTIONS_DOC: &str = "sacrebleu's options in the words of its signature, '|'-separated: \
    case:lc|mixed (lc: lowercase, the default), norm:yes|no (Tercom's normalisation), \
    punct:yes|no (no: remove punctuation), asian:yes|no; e.g. 'norm:yes|case:mixed'. \
    A whole signature reads as its options.";

const HYP_DOC: &str = "The hypothesis: a string, or a token list (joined with spaces).";
const REF_DOC: &str =
    "The reference: a string, or a list of strings for several; a token list when hyp is one.";

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Ter;

impl Metric for Ter {
    type Options = TerOptions;
    type Scratch = Scratch;

    const NAMES: [&'static str; 3] = [expr::SENTENCE_TER, expr::TER_STATS, expr::CORPUS_TER];
    const TEST_NAMES: [&'static str; 4] = [
        expr::TER_PAIRED_BOOTSTRAP,
        expr::TER_APPROX_RANDOMIZATION,
        expr::TER_PAIRED_BS,
        expr::TER_PAIRED_AR,
    ];

    fn sacre(options: &TerOptions) -> SacreMetric {
        SacreMetric::Ter(options.clone())
    }

    fn sentence_options() -> TerOptions {
        TerOptions::default()
    }

    fn corpus_options() -> TerOptions {
        TerOptions::default()
    }

    fn parse(defaults: &TerOptions, text: &str) -> Result<TerOptions, String> {
        defaults.parse(text).map_err(|e| e.to_string())
    }

    fn stats_len(_: &TerOptions) -> usize {
        3
    }

    fn segment_stats(
        hyp: &str,
        refs: &[&str],
        options: &TerOptions,
        scratch: &mut Scratch,
        stats: &mut [u64],
    ) -> bool {
        ter::segment_stats(hyp, refs, options, scratch, stats).is_ok()
    }

    fn sentence_score(stats: &[u64], _: &TerOptions) -> f64 {
        ter::sentence_score(stats)
    }

    fn add(total: &mut Vec<u64>, stats: &[u64]) {
        ter::add_stats(total, stats);
    }

    fn corpus_score(total: &[u64], _: &TerOptions) -> f64 {
        ter::corpus_score(total)
    }

    fn documentation(kind: Kind) -> &'static Documentation {
        match kind {
            Kind::Sentence => &SENTENCE_DOC,
            Kind::Stats => &STATS_DOC,
            Kind::Corpus => &CORPUS_DOC,
        }
    }
}

static SENTENCE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Sentence-level TER (Snover et al. 2006): edits (insertions, deletions, substitutions \
         and block shifts) per reference word, 0-100 and above, equal to sacrebleu 2.6's TER: its \
         Tercom tokeniser (lowercased unless 'case:mixed'), its shift search and beam. Several \
         references as a list of strings: the fewest edits over them per their mean length. \
         NULL when hyp, a token or every reference is NULL.",
        "sentence_ter(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT sentence_ter('a b c', 'a c b'); -- 33.3333 (one shift)")
    .build()
});

static STATS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "TER's sufficient statistics of a segment: [edits, reference words, references] (the \
         fewest edits over the references, and the words of all of them). A corpus's TER is its \
         summed edits per summed mean reference length (corpus_ter).",
        "ter_stats(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT ter_stats('a b c', ['a c b', 'a b c']); -- [0, 6, 2]")
    .build()
});

static CORPUS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Corpus TER, equal to sacrebleu 2.6's corpus_score: summed edits per summed mean \
         reference length (not a mean of sentence scores). Rows whose hyp is NULL or that have \
         no reference are left out; NULL when none is left. One score per group.",
        "corpus_ter(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", "A constant: ".to_string() + OPTIONS_DOC)
    .with_sql_example("SELECT system, corpus_ter(hyp, ref) FROM outputs GROUP BY system;")
    .build()
});
