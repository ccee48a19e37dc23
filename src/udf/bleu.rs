//! `sentence_bleu`, `bleu_stats` and the aggregate `corpus_bleu`: sacrebleu's BLEU
//! ([`crate::metrics::bleu`]) through the shared sacrebleu functions ([`super::sacrebleu`]).

use std::sync::LazyLock;

use datafusion::logical_expr::Documentation;

use super::docs::DOC_SECTION;
use super::expr;
use super::sacrebleu::{Kind, Metric};
use crate::metrics::bleu::{self, BleuOptions, Scratch};
use crate::metrics::sacrebleu::SacreMetric;

const OPTIONS_DOC: &str = "sacrebleu's options in the words of its signature, '|'-separated: \
    tok:13a|intl|zh|char|none, case:mixed|lc, eff:yes|no, smooth:exp|none|floor[V]|add-k[V], order:N; \
    e.g. 'tok:char|smooth:floor[0.1]'. A whole signature reads as its options.";

const HYP_DOC: &str = "The hypothesis: a string (or a token list, joined with spaces).";
const REF_DOC: &str =
    "The reference: a string, or a list of strings for several (a token list when hyp is one).";

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Bleu;

impl Metric for Bleu {
    type Options = BleuOptions;
    type Scratch = Scratch;

    const NAMES: [&'static str; 3] = [expr::SENTENCE_BLEU, expr::BLEU_STATS, expr::CORPUS_BLEU];
    const TEST_NAMES: [&'static str; 4] = [
        expr::BLEU_PAIRED_BOOTSTRAP,
        expr::BLEU_APPROX_RANDOMIZATION,
        expr::BLEU_PAIRED_BS,
        expr::BLEU_PAIRED_AR,
    ];

    fn sacre(options: &BleuOptions) -> SacreMetric {
        SacreMetric::Bleu(options.clone())
    }

    fn sentence_options() -> BleuOptions {
        BleuOptions::sentence()
    }

    fn corpus_options() -> BleuOptions {
        BleuOptions::default()
    }

    fn parse(defaults: &BleuOptions, text: &str) -> Result<BleuOptions, String> {
        defaults.parse(text).map_err(|e| e.to_string())
    }

    fn stats_len(options: &BleuOptions) -> usize {
        options.stats_len()
    }

    fn segment_stats(
        hyp: &str,
        refs: &[&str],
        options: &BleuOptions,
        scratch: &mut Scratch,
        stats: &mut [u64],
    ) -> bool {
        bleu::segment_stats(hyp, refs, options, scratch, stats).is_ok()
    }

    fn sentence_score(stats: &[u64], options: &BleuOptions) -> f64 {
        bleu::bleu(stats, options).score
    }

    fn corpus_score(total: &[u64], options: &BleuOptions) -> f64 {
        bleu::bleu(total, options).score
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
        "Sentence-level BLEU (0-100), equal to sacrebleu 2.6's sentence_bleu: by default its \
         options (13a tokens, exp smoothing, effective order: 'eff:yes'). Several references \
         as a list of strings: n-gram counts clipped by the reference that has the n-gram most, \
         the reference length closest to the hypothesis'. NULL when hyp is NULL or there is no \
         reference (NULL references in a list are left out, as sacrebleu leaves out None).",
        "sentence_bleu(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example(
        "SELECT sentence_bleu('the cat sat on the mat', 'the cat sat on a mat'); -- 53.7285",
    )
    .build()
});

static STATS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "BLEU's sufficient statistics of a segment, as sacrebleu computes them: [hyp_len, \
         ref_len, matched n-grams of orders 1..N, hypothesis n-grams of orders 1..N] (N = 4 \
         unless 'order:N'). Summed over a corpus they give its BLEU (corpus_bleu sums them).",
        "bleu_stats(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example(
        "SELECT bleu_stats('the cat sat', 'the cat sat down'); -- [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]",
    )
    .build()
});

static CORPUS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Corpus BLEU (0-100), equal to sacrebleu 2.6's corpus_score: the BLEU of the summed \
         statistics of the rows (not a mean of sentence scores), by default with sacrebleu's \
         corpus options (13a, exp smoothing, 'eff:no'). Rows whose hyp is NULL or that have no \
         reference are left out; NULL when none is left. One score per group: GROUP BY system compares systems.",
        "corpus_bleu(hyp, ref [, options])",
    )
    .with_argument("hyp", HYP_DOC)
    .with_argument("ref", REF_DOC)
    .with_argument("options", "A constant: ".to_string() + OPTIONS_DOC)
    .with_sql_example("SELECT system, corpus_bleu(hyp, ref) FROM outputs GROUP BY system;")
    .build()
});
