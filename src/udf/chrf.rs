//! `chrf`, `chrf_stats` and the aggregate `corpus_chrf`: sacrebleu's chrF and chrF++
//! ([`crate::sacrebleu::chrf`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::expr;
use super::sacrebleu::{Kind, Metric, documentation};
use crate::sacrebleu::chrf::ChrfOptions;
use crate::sacrebleu::corpus::SacreMetric;

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Chrf;

impl Metric for Chrf {
    const NAMES: [&'static str; 3] = [expr::CHRF, expr::CHRF_STATS, expr::CORPUS_CHRF];
    const TEST_NAMES: [&'static str; 4] = [
        expr::CHRF_PAIRED_BOOTSTRAP,
        expr::CHRF_APPROX_RANDOMIZATION,
        expr::CHRF_PAIRED_BS,
        expr::CHRF_PAIRED_AR,
    ];

    const OPTIONS_DOC: &'static str = "sacrebleu's options in the words of its signature, '|'-separated: \
        nc:N (character order, 6), nw:N (word order, 0; 2 is chrF++), beta:N (2), case:mixed|lc, \
        eff:yes|no (no: eps smoothing), space:yes|no; e.g. 'nw:2'. A whole signature reads as its options.";

    const DESCRIPTIONS: [(&'static str, &'static str); 3] = [
        (
            "Sentence-level chrF (Popović 2015) on sacrebleu's 0-100 scale, equal to sacrebleu 2.6's \
             sentence_chrf: by default character n-grams of orders 1-6, no word n-grams, beta = 2, \
             whitespace removed, effective-order smoothing; 'nw:2' gives chrF++. Several references \
             as a list of strings: the statistics of the best-scoring one. Token lists are joined \
             with spaces. NULL when hyp, a token or every reference is NULL.",
            "SELECT chrf('the cat sat', 'the cat sat down'); -- 66.0176",
        ),
        (
            "chrF's sufficient statistics of a segment, as sacrebleu computes them: for each \
             character order, then each word order, [hypothesis n-grams, reference n-grams, \
             matched n-grams]. Summed over a corpus they give its chrF (corpus_chrf sums them).",
            "SELECT chrf_stats('ab', 'abc', 'nc:2'); -- [2, 3, 2, 1, 2, 1]",
        ),
        (
            "Corpus chrF (0-100), equal to sacrebleu 2.6's corpus_score: the chrF of the summed \
             statistics of the rows (not a mean of sentence scores). Rows whose hyp is NULL or that \
             have no reference are left out; NULL when none is left. One score per group.",
            "SELECT system, corpus_chrf(hyp, ref, 'nw:2') FROM outputs GROUP BY system;",
        ),
    ];

    fn sentence_options() -> SacreMetric {
        SacreMetric::Chrf(ChrfOptions::default())
    }

    fn corpus_options() -> SacreMetric {
        SacreMetric::Chrf(ChrfOptions::default())
    }

    fn documentation(kind: Kind) -> &'static Documentation {
        &DOCS[kind as usize]
    }
}

static DOCS: LazyLock<[Documentation; 3]> = LazyLock::new(documentation::<Chrf>);
