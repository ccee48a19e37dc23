//! `sentence_ter`, `ter_stats` and the aggregate `corpus_ter`: sacrebleu's TER
//! ([`crate::sacrebleu::ter`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::expr;
use super::sacrebleu::{Kind, Metric, documentation};
use crate::sacrebleu::corpus::SacreMetric;
use crate::sacrebleu::ter::TerOptions;

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Ter;

impl Metric for Ter {
    const NAMES: [&'static str; 3] = [expr::SENTENCE_TER, expr::TER_STATS, expr::CORPUS_TER];
    const TEST_NAMES: [&'static str; 4] = [
        expr::TER_PAIRED_BOOTSTRAP,
        expr::TER_APPROX_RANDOMIZATION,
        expr::TER_PAIRED_BS,
        expr::TER_PAIRED_AR,
    ];

    const OPTIONS_DOC: &'static str = "sacrebleu's options in the words of its signature, '|'-separated: \
        case:lc|mixed (lc: lowercase, the default), norm:yes|no (Tercom's normalisation), \
        punct:yes|no (no: remove punctuation), asian:yes|no; e.g. 'norm:yes|case:mixed'. \
        A whole signature reads as its options.";

    const DESCRIPTIONS: [(&'static str, &'static str); 3] = [
        (
            "Sentence-level TER (Snover et al. 2006): edits (insertions, deletions, substitutions \
             and block shifts) per reference word, 0-100 and above, equal to sacrebleu 2.6's TER: its \
             Tercom tokeniser (lowercased unless 'case:mixed'), its shift search and beam. Several \
             references as a list of strings: the fewest edits over them per their mean length. \
             NULL when hyp, a token or every reference is NULL.",
            "SELECT sentence_ter('a b c', 'a c b'); -- 33.3333 (one shift)",
        ),
        (
            "TER's sufficient statistics of a segment: [edits, reference words, references] (the \
             fewest edits over the references, and the words of all of them). A corpus's TER is its \
             summed edits per summed mean reference length (corpus_ter).",
            "SELECT ter_stats('a b c', ['a c b', 'a b c']); -- [0, 6, 2]",
        ),
        (
            "Corpus TER, equal to sacrebleu 2.6's corpus_score: summed edits per summed mean \
             reference length (not a mean of sentence scores). Rows whose hyp is NULL or that have \
             no reference are left out; NULL when none is left. One score per group.",
            "SELECT system, corpus_ter(hyp, ref) FROM outputs GROUP BY system;",
        ),
    ];

    fn sentence_options() -> SacreMetric {
        SacreMetric::Ter(TerOptions::default())
    }

    fn corpus_options() -> SacreMetric {
        SacreMetric::Ter(TerOptions::default())
    }

    fn documentation(kind: Kind) -> &'static Documentation {
        &DOCS[kind as usize]
    }
}

static DOCS: LazyLock<[Documentation; 3]> = LazyLock::new(documentation::<Ter>);
