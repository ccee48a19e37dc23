//! `model_score(src, tgt [, alpha_phi, alpha_lm])`: the paper's full model score, the true score
//! plus the language model's ln P(tgt), over the session's phrase table and model.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, AsArray, Float64Array, Float64Builder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::TokenLists;
use crate::lm::ngram::{self, NgramModel};
use crate::pair::true_score::{ModelWeights, PhraseIndex, Scratch, model_score};
use crate::resources::{MissingResource, Resource, Shared};
use crate::schema::ColumnType;

pub const NAME: &str = expr::MODEL_SCORE;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ModelScoreUdf {
    index: Shared<PhraseIndex>,
    model: Shared<NgramModel>,
    signature: Signature,
}

impl ModelScoreUdf {
    pub fn new(index: Shared<PhraseIndex>, model: Shared<NgramModel>) -> Self {
        ModelScoreUdf {
            index,
            model,
            signature: signature(SHAPES),
        }
    }
}

const SHAPES: Shapes = &[
    &[("src", ColumnType::Tokens), ("tgt", ColumnType::Tokens)],
    &[
        ("src", ColumnType::Tokens),
        ("tgt", ColumnType::Tokens),
        ("alpha_phi", ColumnType::Float),
        ("alpha_lm", ColumnType::Float),
    ],
];

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The full model score of tgt as a paraphrase of src (Chevelu et al. 2010, §3): \
         alpha_phi * true_score(src, tgt) + alpha_lm * ln P(tgt), where ln P(tgt) is \
         lm_logprob(tgt) (log10) times ln 10, so both terms are natural logs. The paper's \
         weights are 1 and 1, the defaults. NULL when true_score is NULL (no derivation reaches \
         tgt) or an argument is NULL. Needs --phrase-table and --lm.",
        "model_score(src, tgt [, alpha_phi, alpha_lm])",
    )
    .with_argument("src", "The source sentence: a list of tokens.")
    .with_argument("tgt", "The paraphrase: a list of tokens.")
    .with_argument("alpha_phi", "Weight of the true score (default 1).")
    .with_argument("alpha_lm", "Weight of ln P(tgt) (default 1).")
    .with_sql_example(
        "SELECT id, model_score(src, hyp_tokens) AS score FROM nbest JOIN sources USING (id);",
    )
    .with_related_udf(expr::TRUE_SCORE)
    .with_related_udf(expr::LM_LOGPROB)
    .build()
});

impl ScalarUDFImpl for ModelScoreUdf {
    fn name(&self) -> &str {
        NAME
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        if self.index.is_missing() {
            return Err(MissingResource::error(NAME, Resource::PhraseTable));
        }
        if self.model.is_missing() {
            return Err(MissingResource::error(NAME, Resource::Lm));
        }
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let index = self
            .index
            .get()
            .expect("return_type refuses a session without a table");
        let model = self
            .model
            .get()
            .expect("return_type refuses a session without a model");
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (src, tgt) = (
            TokenLists::new("src", &arrays[0])?,
            TokenLists::new("tgt", &arrays[1])?,
        );
        let weights = arrays[2..]
            .iter()
            .map(|a| {
                Ok(cast(a, &DataType::Float64)?
                    .as_primitive::<Float64Type>()
                    .clone())
            })
            .collect::<Result<Vec<_>>>()?;
        let (mut s, mut t, mut ids, mut scratch) = (
            Vec::new(),
            Vec::new(),
            ngram::Scratch::default(),
            Scratch::default(),
        );
        let mut out = Float64Builder::with_capacity(rows);
        for row in 0..rows {
            let score = (|| {
                let weights = match weights.as_slice() {
                    [phi, lm] => ModelWeights {
                        phrase: value(phi, row)?,
                        lm: value(lm, row)?,
                    },
                    _ => ModelWeights::default(),
                };
                src.row(row, &mut s).ok()?;
                tgt.row(row, &mut t).ok()?;
                let true_score = index.true_score(&s, &t, &mut scratch)?.score;
                Some(model_score(
                    true_score,
                    model.sentence_log10(&t, &mut ids),
                    weights,
                ))
            })();
            out.append_option(score);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

fn value(weights: &Float64Array, row: usize) -> Option<f64> {
    weights.is_valid(row).then(|| weights.value(row))
}
