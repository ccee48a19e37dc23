//! `sentence_bleu`, `bleu_stats` and the aggregate `corpus_bleu`: sacrebleu's BLEU
//! ([`crate::sacrebleu::bleu`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::expr;
use super::sacrebleu::{Kind, Metric, documentation};
use crate::sacrebleu::bleu::BleuOptions;
use crate::sacrebleu::corpus::SacreMetric;

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Bleu;

impl Metric for Bleu {
    const NAMES: [&'static str; 3] = [expr::SENTENCE_BLEU, expr::BLEU_STATS, expr::CORPUS_BLEU];
    const TEST_NAMES: [&'static str; 4] = [
        expr::BLEU_PAIRED_BOOTSTRAP,
        expr::BLEU_APPROX_RANDOMIZATION,
        expr::BLEU_PAIRED_BS,
        expr::BLEU_PAIRED_AR,
    ];

    const OPTIONS_DOC: &'static str = "sacrebleu's options in the words of its signature, '|'-separated: \
        tok:13a|intl|zh|char|none, case:mixed|lc, eff:yes|no, smooth:exp|none|floor[V]|add-k[V], order:N; \
        e.g. 'tok:char|smooth:floor[0.1]'. A whole signature reads as its options.";

    const DESCRIPTIONS: [(&'static str, &'static str); 3] = [
        (
            "Sentence-level BLEU (0-100), equal to sacrebleu 2.6's sentence_bleu: by default its \
             options (13a tokens, exp smoothing, effective order: 'eff:yes'). Several references \
             as a list of strings: n-gram counts clipped by the reference that has the n-gram most, \
             the reference length closest to the hypothesis'. NULL when hyp is NULL or there is no \
             reference (NULL references in a list are left out, as sacrebleu leaves out None).",
            "SELECT sentence_bleu('the cat sat on the mat', 'the cat sat on a mat'); -- 53.7285",
        ),
        (
            "BLEU's sufficient statistics of a segment, as sacrebleu computes them: [hyp_len, \
             ref_len, matched n-grams of orders 1..N, hypothesis n-grams of orders 1..N] (N = 4 \
             unless 'order:N'). Summed over a corpus they give its BLEU (corpus_bleu sums them).",
            "SELECT bleu_stats('the cat sat', 'the cat sat down'); -- [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]",
        ),
        (
            "Corpus BLEU (0-100), equal to sacrebleu 2.6's corpus_score: the BLEU of the summed \
             statistics of the rows (not a mean of sentence scores), by default with sacrebleu's \
             corpus options (13a, exp smoothing, 'eff:no'). Rows whose hyp is NULL or that have no \
             reference are left out; NULL when none is left. One score per group: GROUP BY system compares systems.",
            "SELECT system, corpus_bleu(hyp, ref) FROM outputs GROUP BY system;",
        ),
    ];

    fn sentence_options() -> SacreMetric {
        SacreMetric::Bleu(BleuOptions::sentence())
    }

    fn corpus_options() -> SacreMetric {
        SacreMetric::Bleu(BleuOptions::default())
    }

    fn documentation(kind: Kind) -> &'static Documentation {
        &DOCS[kind as usize]
    }
}

static DOCS: LazyLock<[Documentation; 3]> = LazyLock::new(documentation::<Bleu>);
