//! Every function's name, declared once, and typed builders of calls to the functions code
//! calls: `expr::derp(registry, src_head, src_deprel, tgt_head, tgt_deprel, links)` instead of
//! `registry.udf("derp")?.call(vec![...])`, so a renamed function or a changed argument list is a
//! compile error where it is called, not a planning error at run time.
//!
//! Each UDF's `name()`, its `Documentation`'s related functions and every caller use these
//! constants. The builders take the session's registry: functions bound to resources (a phrase
//! table, an LM, triples) are the session's own.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{Expr, ident};

use crate::schema::{is_string, is_token_list};

/// `NAME = "sql_name"` for each function.
macro_rules! names {
    ($($konst:ident = $name:literal;)*) => {
        $(pub const $konst: &str = $name;)*
        /// Every function of pairmetrics, scalar, aggregate and table, by name.
        pub const ALL: &[&str] = &[$($konst),*];
    };
}

/// `fn builder(arguments) = NAME;`: a call of the function NAME with these arguments; `udf` for
/// scalar functions, `udaf` for aggregates.
macro_rules! builders {
    ($kind:ident: $($(#[$doc:meta])* fn $builder:ident($($arg:ident),*) = $konst:ident;)*) => {$(
        $(#[$doc])*
        pub fn $builder(registry: &dyn FunctionRegistry, $($arg: Expr),*) -> Result<Expr> {
            Ok(registry.$kind($konst)?.call(vec![$($arg),*]))
        }
    )*};
}

names! {
    LED = "led";
    POD = "pod";
    LEPOD = "lepod";
    LEPOD_PROBLEM = "lepod_problem";
    DERP = "derp";
    DERP_DETAIL = "derp_detail";
    DERP_PROBLEM = "derp_problem";
    DERP_POOLED = "derp_pooled";
    TOKENIZE = "tokenize";
    LOWERCASE_TOKENS = "lowercase_tokens";
    PHARAOH = "pharaoh";
    METEOR_ALIGN = "meteor_align";
    EXTRACT_PHRASES = "extract_phrases";
    TRUE_SCORE = "true_score";
    TRUE_SCORE_DETAIL = "true_score_detail";
    MODEL_SCORE = "model_score";
    LOGLINEAR = "loglinear";
    SYNTHETIC_PHRASES = "synthetic_phrases";
    KENDALL_TAU_A = "kendall_tau_a";
    MCPG = "mcpg";
    DEP_FIT = "dep_fit";
    DEP_FIT_POS = "dep_fit_pos";
    DEP_FIT_IUCL = "dep_fit_iucl";
    DEP_FIT_POS_IUCL = "dep_fit_pos_iucl";
    DEP_FIT_PROBLEM = "dep_fit_problem";
    DEP_TRIPLES = "dep_triples";
    LM_LOGPROB = "lm_logprob";
    LM_FULL_SCORES = "lm_full_scores";
    LM_PERPLEXITY = "lm_perplexity";
    LM_OOV_COUNT = "lm_oov_count";
    LANGID = "langid";
    SEGMENT_LENGTH = "segment_length";
    LENGTH_RATIO = "length_ratio";
    LONGEST_WORD = "longest_word";
    AVERAGE_WORD_LENGTH = "average_word_length";
    ALPHABET_RATIO = "alphabet_ratio";
    CHARACTER_SCORE = "character_score";
    TERMINAL_PUNCTUATION = "terminal_punctuation";
    NON_ZERO_NUMERALS = "non_zero_numerals";
    LONGEST_COMMON_SUBSTRING = "longest_common_substring";
    LEVENSHTEIN_SIMILARITY = "levenshtein_similarity";
    REPETITIONS = "repetitions";
    REGEX_SEARCH = "regex_search";
    HAS_HTML_TAG = "has_html_tag";
    HARDRULES = "hardrules";
    OPUSFILTER = "opusfilter";
    MINHASH = "minhash";
    CHAR_NGRAMS = "char_ngrams";
    LSH_PARAMS = "lsh_params";
    LSH_BANDS = "lsh_bands";
    JACCARD = "jaccard";
    MINHASH_JACCARD = "minhash_jaccard";
    PAIR_HASH = "pair_hash";
    SEGMENT_HASH = "segment_hash";
    LINGUA_LID = "lingua_lid";
    FASTTEXT_LID = "fasttext_lid";
    FASTTEXT_PREDICT = "fasttext_predict";
    LANGUAGE_ID_SCORE = "language_id_score";
    WORD_ACCURACY = "word_accuracy";
    SENTENCE_BLEU = "sentence_bleu";
    BLEU_STATS = "bleu_stats";
    CORPUS_BLEU = "corpus_bleu";
    CHRF = "chrf";
    CHRF_STATS = "chrf_stats";
    CORPUS_CHRF = "corpus_chrf";
    SENTENCE_TER = "sentence_ter";
    TER_STATS = "ter_stats";
    CORPUS_TER = "corpus_ter";
    BOOTSTRAP_CI = "bootstrap_ci";
    PAIRED_BOOTSTRAP = "paired_bootstrap";
    APPROX_RANDOMIZATION = "approx_randomization";
    POOLED_BOOTSTRAP_CI = "pooled_bootstrap_ci";
    POOLED_PAIRED_BOOTSTRAP = "pooled_paired_bootstrap";
    POOLED_APPROX_RANDOMIZATION = "pooled_approx_randomization";
    BLEU_PAIRED_BOOTSTRAP = "bleu_paired_bootstrap";
    BLEU_APPROX_RANDOMIZATION = "bleu_approx_randomization";
    BLEU_PAIRED_BS = "bleu_paired_bs";
    BLEU_PAIRED_AR = "bleu_paired_ar";
    CHRF_PAIRED_BOOTSTRAP = "chrf_paired_bootstrap";
    CHRF_APPROX_RANDOMIZATION = "chrf_approx_randomization";
    CHRF_PAIRED_BS = "chrf_paired_bs";
    CHRF_PAIRED_AR = "chrf_paired_ar";
    TER_PAIRED_BOOTSTRAP = "ter_paired_bootstrap";
    TER_APPROX_RANDOMIZATION = "ter_approx_randomization";
    TER_PAIRED_BS = "ter_paired_bs";
    TER_PAIRED_AR = "ter_paired_ar";
}

builders! {
    udf:
    /// The multiset LeD of two token lists (no alignment).
    fn led(src, tgt) = LED;
    /// LeD, PoD and the reason they are NULL, as one struct {led, pod, problem}.
    fn lepod(src, tgt, links, punct) = LEPOD;
    /// Why the multiset LeD of two token lists is NULL.
    fn lepod_problem(src, tgt) = LEPOD_PROBLEM;
    fn derp(src_head, src_deprel, tgt_head, tgt_deprel, links) = DERP;
    /// DERP's score with the side it was computed on and its spanning tree, as a struct.
    fn derp_detail(src_head, src_deprel, tgt_head, tgt_deprel, links) = DERP_DETAIL;
    fn derp_problem(src_head, src_deprel, tgt_head, tgt_deprel, links) = DERP_PROBLEM;
    fn lowercase_tokens(tokens) = LOWERCASE_TOKENS;
    /// Text split into tokens at whitespace.
    fn tokenize(text) = TOKENIZE;
    /// The (head, dep, deprel) arcs of a parsed sentence, as a list of structs.
    fn dep_triples(tokens, heads, deprels) = DEP_TRIPLES;
    /// METEOR 1.5's alignment of two token lists, with the session's aligner options.
    fn meteor_align(src, tgt) = METEOR_ALIGN;
    fn true_score(src, tgt) = TRUE_SCORE;
    fn model_score(src, tgt) = MODEL_SCORE;
    /// The fitness of tokens[start..end] in the sentence's parse (heads, deprels).
    fn dep_fit(tokens, heads, deprels, start, end) = DEP_FIT;
    fn dep_fit_problem(tokens, heads, deprels, start, end) = DEP_FIT_PROBLEM;
    fn lm_logprob(tokens) = LM_LOGPROB;
    /// py3langid's language of a text, as a struct {lang, prob}.
    fn langid(text) = LANGID;
    /// bicleaner-hardrules' failing rules of a pair, as its -A lists them.
    fn hardrules(src, tgt, src_lang, tgt_lang) = HARDRULES;
    /// OpusFilter's filters over a pair: each filter's score, keep and rejected_by, as a struct.
    fn opusfilter(filters, src, tgt) = OPUSFILTER;
    /// lingua's language of a text, as a struct {lang, prob}.
    fn lingua_lid(text) = LINGUA_LID;
    /// The session's fastText model's most likely label of a text, as a struct {lang, prob}.
    fn fasttext_lid(text) = FASTTEXT_LID;
    /// sacrebleu's sentence BLEU of a hypothesis against a reference, with its options' words.
    fn sentence_bleu(hypothesis, reference, options) = SENTENCE_BLEU;
    fn chrf(hypothesis, reference, options) = CHRF;
    fn sentence_ter(hypothesis, reference, options) = SENTENCE_TER;
}

builders! {
    udaf:
    /// The mean of x with its bootstrap interval, as a struct {mean, low, high, n}.
    fn bootstrap_ci(x, level, resamples, seed) = BOOTSTRAP_CI;
    /// b's mean minus a's with its interval and p-value, on the rows both scored.
    fn paired_bootstrap(a, b, resamples, seed, level) = PAIRED_BOOTSTRAP;
    fn approx_randomization(a, b, trials, seed) = APPROX_RANDOMIZATION;
}

/// Column `name` of type `data_type` as a token list: text split as `tokenize` splits it, a
/// token list as it is; None for any other type.
pub fn as_tokens(
    registry: &dyn FunctionRegistry,
    name: &str,
    data_type: &DataType,
) -> Result<Option<Expr>> {
    let column = ident(name);
    Ok(match data_type {
        t if is_string(t) => Some(tokenize(registry, column)?),
        t if is_token_list(t) => Some(column),
        _ => None,
    })
}

/// A builder of three arguments (sacrebleu's sentence scores: hypothesis, reference, options).
pub type SacrebleuBuilder = fn(&dyn FunctionRegistry, Expr, Expr, Expr) -> Result<Expr>;
/// A builder of five arguments (`derp` and `derp_problem`, `dep_fit` and `dep_fit_problem`).
pub type Builder5 = fn(&dyn FunctionRegistry, Expr, Expr, Expr, Expr, Expr) -> Result<Expr>;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::Resources;

    /// ALL names exactly the functions registered, so a function added without its name here
    /// (or a name left behind) fails.
    #[test]
    fn every_registered_function_is_named_here() {
        let resources = Resources::default();
        let registered: BTreeSet<String> = crate::udf::all_scalar_udfs()
            .iter()
            .map(|f| f.name().to_string())
            .chain(
                crate::udf::all_aggregate_udfs()
                    .iter()
                    .map(|f| f.name().to_string()),
            )
            .chain(
                crate::udf::all_table_functions(&resources)
                    .iter()
                    .map(|(name, _)| name.to_string()),
            )
            .collect();
        let declared: BTreeSet<String> = ALL.iter().map(|n| n.to_string()).collect();
        assert_eq!(registered, declared);
        assert_eq!(declared.len(), ALL.len(), "a name is declared twice");
    }
}
