//! `true_score(src, tgt)` and `true_score_detail(src, tgt)` over the session's phrase table:
//! thin adapters around `metrics::true_score`. The index is built once and shared (an `Arc`)
//! by every partition and batch.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, Float64Builder, Int32Builder, StructArray, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::TokenLists;
use crate::pair::true_score::{PhraseIndex, Scratch, TrueScore};
use crate::resources::Shared;
use crate::resources::{MissingResource, Resource};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Score,
    Detail,
}

/// A true-score function bound to a phrase table (or to none, and then it says how to give one).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TrueScoreUdf {
    kind: Kind,
    index: Shared<PhraseIndex>,
    signature: Signature,
}

impl TrueScoreUdf {
    pub fn new(kind: Kind, index: Shared<PhraseIndex>) -> Self {
        TrueScoreUdf {
            kind,
            index,
            signature: signature(SHAPES),
        }
    }
}

const SHAPES: Shapes = &[&[("src", ColumnType::Tokens), ("tgt", ColumnType::Tokens)]];

static SCORE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The true score of tgt as a paraphrase (or translation) of src under the session's \
         phrase table (Chevelu et al. 2010): the best sum of ln p over monotone derivations, \
         each segment of src rewritten by a rule or kept unchanged (ln 1 = 0, unless the table \
         has a w -> w rule for the word). 0 = tgt is src; NULL when no derivation reaches tgt \
         or an argument is NULL. Needs --phrase-table.",
        "true_score(src, tgt)",
    )
    .with_argument("src", "The source sentence: a list of tokens.")
    .with_argument("tgt", "The paraphrase: a list of tokens.")
    .with_sql_example(
        "SELECT id, hyp, true_score(src, hyp_tokens) FROM nbest JOIN sources USING (id);",
    )
    .with_related_udf(expr::TRUE_SCORE_DETAIL)
    .build()
});

static DETAIL_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The true score with how it was reached: Struct{score (as true_score), rules (rules of \
         the table in the best derivation, the fewest among equally good ones), derivations \
         (distinct derivations of tgt from src)}. NULL when true_score is NULL.",
        "true_score_detail(src, tgt)",
    )
    .with_argument("src", "The source sentence: a list of tokens.")
    .with_argument("tgt", "The paraphrase: a list of tokens.")
    .with_related_udf(expr::TRUE_SCORE)
    .build()
});

pub fn detail_fields() -> Fields {
    Fields::from(vec![
        Field::new("score", DataType::Float64, true),
        Field::new("rules", DataType::Int32, true),
        Field::new("derivations", DataType::UInt64, true),
    ])
}

impl ScalarUDFImpl for TrueScoreUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Score => expr::TRUE_SCORE,
            Kind::Detail => expr::TRUE_SCORE_DETAIL,
        }
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        if self.index.is_missing() {
            return Err(MissingResource::error(self.name(), Resource::PhraseTable));
        }
        Ok(match self.kind {
            Kind::Score => DataType::Float64,
            Kind::Detail => DataType::Struct(detail_fields()),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let index = self
            .index
            .get()
            .expect("return_type refuses a session without a table");
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (src, tgt) = (
            TokenLists::new("src", &arrays[0])?,
            TokenLists::new("tgt", &arrays[1])?,
        );
        let (mut s, mut t, mut scratch) = (Vec::new(), Vec::new(), Scratch::default());
        let mut score_row = |row: usize| -> Option<TrueScore> {
            src.row(row, &mut s).ok()?;
            tgt.row(row, &mut t).ok()?;
            index.true_score(&s, &t, &mut scratch)
        };
        let output: ArrayRef = match self.kind {
            Kind::Score => {
                let mut out = Float64Builder::with_capacity(rows);
                for row in 0..rows {
                    out.append_option(score_row(row).map(|r| r.score));
                }
                Arc::new(out.finish())
            }
            Kind::Detail => {
                let mut score = Float64Builder::with_capacity(rows);
                let mut used = Int32Builder::with_capacity(rows);
                let mut derivations = UInt64Builder::with_capacity(rows);
                let mut valid = Vec::with_capacity(rows);
                for row in 0..rows {
                    let result = score_row(row);
                    valid.push(result.is_some());
                    score.append_option(result.map(|r| r.score));
                    used.append_option(result.map(|r| r.rules as i32));
                    derivations.append_option(result.map(|r| r.derivations));
                }
                let columns: Vec<ArrayRef> = vec![
                    Arc::new(score.finish()),
                    Arc::new(used.finish()),
                    Arc::new(derivations.finish()),
                ];
                Arc::new(StructArray::try_new(
                    detail_fields(),
                    columns,
                    Some(valid.into()),
                )?)
            }
        };
        Ok(ColumnarValue::Array(output))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Score => &SCORE_DOC,
            Kind::Detail => &DETAIL_DOC,
        })
    }
}
