//! `chrf`, `chrf_stats` and the aggregate `corpus_chrf`: sacrebleu's chrF and chrF++
//! ([`crate::metrics::chrf`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::docs::DOC_SECTION;
use super::expr;
use super::sacrebleu::{Kind, Metric};
use crate::metrics::chrf::{self, ChrfOptions, Scratch};
use crate::metrics::sacrebleu::SacreMetric;

const OPTIONS_DOC: &str = "sacrebleu's options in the words of its signature, '|'-separated: \
    nc:N (character order, 6), nw:N (word order, 0; 2 is chrF++), beta:N (2), case:mixed|lc, \
    eff:yes|no (no: eps smoothing), space:yes|no; e.g. 'nw:2'. A whole signature reads as its options.";

const HYP_DOC: &str = "The hypothesis: a string, or a token list (joined with spaces).";
const REF_DOC: &str =
    "The reference: a string, or a list of strings for several; a token list when hyp is one.";

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Chrf;

impl Metric for Chrf {
    type Options = ChrfOptions;
    type Scratch = Scratch;

    const NAMES: [&'static str; 3] = [expr::CHRF, expr::CHRF_STATS, expr::CORPUS_CHRF];
    const TEST_NAMES: [&'static str; 4] = [
        expr::CHRF_PAIRED_BOOTSTRAP,
        expr::CHRF_APPROX_RANDOMIZATION,
        expr::CHRF_PAIRED_BS,
        expr::CHRF_PAIRED_AR,
    ];

    fn sacre(options: &ChrfOptions) -> SacreMetric {
        SacreMetric::Chrf(options.clone())
    }

    fn sentence_options() -> ChrfOptions {
        ChrfOptions::default()
    }

    fn corpus_options() -> ChrfOptions {
        ChrfOptions::default()
    }

    fn parse(defaults: &ChrfOptions, text: &str) -> Result<ChrfOptions, String> {
        defaults.parse(text).map_err(|e| e.to_string())
    }

    fn stats_len(options: &ChrfOptions) -> usize {
        options.stats_len()
    }

    fn segment_stats(
        hyp: &str,
        refs: &[&str],
        options: &ChrfOptions,
        scratch: &mut Scratch,
        stats: &mut [u64],
    ) -> bool {
        chrf::segment_stats(hyp, refs, options, scratch, stats).is_ok()
    }

    fn sentence_score(stats: &[u64], options: &ChrfOptions) -> f64 {
        chrf::f_score(stats, options)
    }

    fn corpus_score(total: &[u64], options: &ChrfOptions) -> f64 {
        chrf::f_score(total, options)
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
        "Sentence-level chrF (Popović 2015) on sacrebleu's 0-100 scale, equal to sacrebleu 2.6's \
         sentence_chrf: by default character n-grams of orders 1-6, no word n-grams, beta = 2, \
         whitespace removed, effective-order smoothing; 'nw:2' gives chrF++. Several references \
         as a list of strings: the statistics of the best-scoring one. Token lists are joined \
         with spaces. NULL when hyp, a token or every reference is NULL.",
        "chrf(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT chrf('the cat sat', 'the cat sat down'); -- 66.0176")
    .build()
});

static STATS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "chrF's sufficient statistics of a segment, as sacrebleu computes them: for each \
         character order, then each word order, [hypothesis n-grams, reference n-grams, \
         matched n-grams]. Summed over a corpus they give its chrF (corpus_chrf sums them).",
        "chrf_stats(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT chrf_stats('ab', 'abc', 'nc:2'); -- [2, 3, 2, 1, 2, 1]")
    .build()
});

static CORPUS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Corpus chrF (0-100), equal to sacrebleu 2.6's corpus_score: the chrF of the summed \
         statistics of the rows (not a mean of sentence scores). Rows whose hyp is NULL or that \
         have no reference are left out; NULL when none is left. One score per group.",
        "corpus_chrf(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", "A constant: ".to_string() + OPTIONS_DOC)
    .with_sql_example("SELECT system, corpus_chrf(hyp, ref, 'nw:2') FROM outputs GROUP BY system;")
    .build()
});
