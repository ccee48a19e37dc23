//! The language-model functions, as KenLM's Python module offers them, over the session's
//! n-gram model: `lm_logprob` (`Model.score`), `lm_full_scores` (`Model.full_scores`),
//! `lm_perplexity` (`Model.perplexity`) and `lm_oov_count`. Thin adapters around
//! `metrics::ngram`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Float64Builder, Int32Array, Int64Builder, ListArray,
    StructArray,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{BoolArg, Shapes, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::TokenLists;
use crate::lm::ngram::{Bounds, NgramModel, Scratch, WordScore};
use crate::resources::Shared;
use crate::resources::{MissingResource, Resource};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    LogProb,
    FullScores,
    Perplexity,
    OovCount,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LmUdf {
    kind: Kind,
    model: Shared<NgramModel>,
    signature: Signature,
}

impl LmUdf {
    pub fn new(kind: Kind, model: Shared<NgramModel>) -> Self {
        LmUdf {
            kind,
            model,
            signature: signature(shapes(kind)),
        }
    }
}

const TOKENS: (&str, ColumnType) = ("tokens", ColumnType::Tokens);
const BOUNDED: Shapes = &[
    &[TOKENS],
    &[TOKENS, ("bos", ColumnType::Bool)],
    &[TOKENS, ("bos", ColumnType::Bool), ("eos", ColumnType::Bool)],
];
const SENTENCE: Shapes = &[&[TOKENS]];

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::LogProb | Kind::FullScores => BOUNDED,
        Kind::Perplexity | Kind::OovCount => SENTENCE,
    }
}

/// The fields of one word's entry in `lm_full_scores`.
pub fn word_score_fields() -> Fields {
    Fields::from(vec![
        Field::new("log10", DataType::Float64, false),
        Field::new("ngram_length", DataType::Int32, false),
        Field::new("oov", DataType::Boolean, false),
    ])
}

const TOKENS_DOC: &str =
    "The sentence: a list of tokens, cased and tokenised as the model's training text.";
const BOS_DOC: &str =
    "Whether <s> comes before the tokens (default true); without it the first word has no context.";
const EOS_DOC: &str = "Whether </s> is scored after the tokens (default true).";

static LOGPROB_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "log10 probability of a sentence under the session's ARPA back-off n-gram model, with <s> \
         before and </s> after unless told otherwise, backing off as SRILM and KenLM do (KenLM's \
         Model.score(sentence, bos, eos)). Words the model does not know score as <unk> (-100 \
         when the model has no <unk>). NULL for a NULL list, a NULL token or a NULL flag. Needs the \
         session's language model.",
        "lm_logprob(tokens [, bos [, eos]])",
    )
    .with_argument("tokens", TOKENS_DOC)
    .with_argument("bos", BOS_DOC)
    .with_argument("eos", EOS_DOC)
    .with_sql_example("SELECT avg(lm_logprob(tgt) / (cardinality(tgt) + 1)) AS per_word FROM pairs;")
    .with_related_udf(expr::LM_FULL_SCORES)
    .with_related_udf(expr::LM_PERPLEXITY)
    .build()
});

static FULL_SCORES_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Each word's score, then </s>'s (unless eos is false), as KenLM's Model.full_scores: \
         List<Struct{log10, ngram_length (words of the longest n-gram of the model used, 1 for a \
         unigram or an unknown word), oov (the word is not in the model; never for </s>)}>. The \
         log10s sum to lm_logprob with the same flags. NULL as lm_logprob. Needs the session's \
         language model.",
        "lm_full_scores(tokens [, bos [, eos]])",
    )
    .with_argument("tokens", TOKENS_DOC)
    .with_argument("bos", BOS_DOC)
    .with_argument("eos", EOS_DOC)
    .with_sql_example(
        "SELECT w.ngram_length, count(*) FROM (SELECT unnest(lm_full_scores(tgt)) AS w FROM pairs) GROUP BY 1 ORDER BY 1;",
    )
    .with_related_udf(expr::LM_LOGPROB)
    .build()
});

static PERPLEXITY_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The sentence's perplexity as KenLM's Model.perplexity: 10^(-lm_logprob(tokens) / (n + 1)) \
         for n tokens (the +1 is </s>). NULL as lm_logprob. Needs the session's \
         language model.",
        "lm_perplexity(tokens)",
    )
    .with_argument("tokens", TOKENS_DOC)
    .with_sql_example(
        "SELECT pair_id, lm_perplexity(tgt) AS ppl FROM pairs ORDER BY ppl DESC LIMIT 10;",
    )
    .with_related_udf(expr::LM_LOGPROB)
    .build()
});

static OOV_COUNT_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "How many of the tokens the model does not know (each scores as <unk>). NULL for a NULL \
         list or a NULL token. Needs the session's language model.",
        "lm_oov_count(tokens)",
    )
    .with_argument("tokens", TOKENS_DOC)
    .with_sql_example(
        "SELECT sum(lm_oov_count(tgt)) / sum(cardinality(tgt)) AS oov_rate FROM pairs;",
    )
    .with_related_udf(expr::LM_FULL_SCORES)
    .build()
});

impl ScalarUDFImpl for LmUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::LogProb => expr::LM_LOGPROB,
            Kind::FullScores => expr::LM_FULL_SCORES,
            Kind::Perplexity => expr::LM_PERPLEXITY,
            Kind::OovCount => expr::LM_OOV_COUNT,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        if self.model.is_missing() {
            return Err(MissingResource::error(self.name(), Resource::Lm));
        }
        Ok(match self.kind {
            Kind::LogProb | Kind::Perplexity => DataType::Float64,
            Kind::FullScores => DataType::List(Arc::new(Field::new_list_field(
                DataType::Struct(word_score_fields()),
                true,
            ))),
            Kind::OovCount => DataType::Int64,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let model = self
            .model
            .get()
            .expect("return_type refuses a session without a model");
        let arrays = ColumnarValue::values_to_arrays(&args.args[..1])?;
        let sentences = TokenLists::new("tokens", &arrays[0])?;
        let flags = args.args[1..]
            .iter()
            .map(BoolArg::new)
            .collect::<Result<Vec<_>>>()?;
        let (mut words, mut scratch, mut scores) = (Vec::new(), Scratch::default(), Vec::new());
        // One row's words (into `words`) and its bounds; None when an argument is NULL.
        let row = |i: usize, words: &mut Vec<_>| -> Option<Bounds> {
            sentences.row(i, words).ok()?;
            let flag = |k: usize| flags.get(k).map_or(Some(true), |f| f.get(i));
            Some(Bounds {
                bos: flag(0)?,
                eos: flag(1)?,
            })
        };
        let rows = args.number_rows;
        let out: ArrayRef = match self.kind {
            Kind::LogProb | Kind::Perplexity => {
                let mut out = Float64Builder::with_capacity(rows);
                for i in 0..rows {
                    out.append_option(row(i, &mut words).map(|bounds| {
                        let log10 = model.log10_within(
                            words.iter().map(|w| model.id(w)),
                            bounds,
                            &mut scratch,
                        );
                        match self.kind {
                            // KenLM's definition: the sentence's words and </s>.
                            Kind::Perplexity => 10f64.powf(-log10 / (words.len() + 1) as f64),
                            _ => log10,
                        }
                    }));
                }
                Arc::new(out.finish())
            }
            Kind::OovCount => {
                let mut out = Int64Builder::with_capacity(rows);
                for i in 0..rows {
                    out.append_option(
                        row(i, &mut words)
                            .map(|_| words.iter().filter(|w| !model.knows(w)).count() as i64),
                    );
                }
                Arc::new(out.finish())
            }
            Kind::FullScores => {
                let (mut all, mut offsets, mut valid) =
                    (Vec::new(), vec![0i32], Vec::with_capacity(rows));
                for i in 0..rows {
                    let bounds = row(i, &mut words);
                    if let Some(bounds) = bounds {
                        model.full_scores(
                            words.iter().map(|w| model.id(w)),
                            bounds,
                            &mut scratch,
                            &mut scores,
                        );
                        all.extend_from_slice(&scores);
                    }
                    valid.push(bounds.is_some());
                    offsets.push(i32::try_from(all.len()).map_err(|_| too_many_words())?);
                }
                Arc::new(word_score_lists(&all, offsets, valid))
            }
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::LogProb => &LOGPROB_DOC,
            Kind::FullScores => &FULL_SCORES_DOC,
            Kind::Perplexity => &PERPLEXITY_DOC,
            Kind::OovCount => &OOV_COUNT_DOC,
        })
    }
}

fn too_many_words() -> DataFusionError {
    DataFusionError::Execution(
        "lm_full_scores: more than 2^31 words in one batch; score it in smaller batches".into(),
    )
}

/// `lm_full_scores`' column: the lists `offsets` cut from `all`, NULL where not `valid`.
fn word_score_lists(all: &[WordScore], offsets: Vec<i32>, valid: Vec<bool>) -> ListArray {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Float64Array::from_iter_values(
            all.iter().map(|w| w.log10 as f64),
        )),
        Arc::new(Int32Array::from_iter_values(
            all.iter().map(|w| w.ngram_length as i32),
        )),
        Arc::new(BooleanArray::from_iter(all.iter().map(|w| Some(w.oov)))),
    ];
    let entries = StructArray::new(word_score_fields(), columns, None);
    let field = Arc::new(Field::new_list_field(
        DataType::Struct(word_score_fields()),
        true,
    ));
    ListArray::new(
        field,
        OffsetBuffer::new(offsets.into()),
        Arc::new(entries),
        Some(NullBuffer::from(valid)),
    )
}
