//! `word_accuracy(out, refs)`: SemEval-2014 Task 5's word accuracy of a fragment.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, Float64Builder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args::{Shapes, checked_arguments};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{Strings, TokenListLists, TokenLists};
use crate::pair::word_accuracy::{Scratch, word_accuracy};
use crate::schema::{ColumnType, is_string};
use crate::text::whitespace;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct WordAccuracyUdf {
    signature: Signature,
}

impl Default for WordAccuracyUdf {
    fn default() -> Self {
        // Both shapes take lists, which DataFusion would cast into each other: coerce() alone
        // tells them apart, by the type of `out`.
        WordAccuracyUdf {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

const SHAPES: Shapes = &[
    &[
        ("out", ColumnType::Tokens),
        ("refs", ColumnType::TokenLists),
    ],
    &[("out", ColumnType::Text), ("refs", ColumnType::Tokens)],
];

static DOC: LazyLock<Documentation> =
    LazyLock::new(|| {
        Documentation::builder(
        DOC_SECTION,
        "SemEval-2014 Task 5 word accuracy of an output fragment, as the official scorer \
         (evaluation.py 2.1) computes it, case-sensitive: after removing tokens that are \
         substrings of ',;.?¿¡!', 1 when the output's and a reference's tokens joined without a \
         separator are equal, else the longest match between a run of each (runs whose joined \
         tokens are equal; the longer run's tokens count) divided by the longer fragment's \
         length; the best over the reference and its alternatives. The task's accuracy is \
         word_accuracy(...) = 1. NULL when there is no reference or an argument is NULL. \
         `pairmetrics semeval-eval` scores whole run files (-i, -a, Spanish contractions).",
        "word_accuracy(out, refs)",
    )
    .with_argument("out", "The output: a token list, or a string split on whitespace.")
    .with_argument(
        "refs",
        "The reference and its alternatives: a list of token lists (with a token-list out), or a \
         list of strings (with a string out).",
    )
    .with_sql_example("SELECT word_accuracy('auf der Grenze', ['an der Grenze']); -- 0.6667")
    .build()
    });

impl ScalarUDFImpl for WordAccuracyUdf {
    fn name(&self) -> &str {
        expr::WORD_ACCURACY
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out = if is_string(arrays[0].data_type()) {
            from_text(&arrays, rows)?
        } else {
            from_tokens(&arrays, rows)?
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

fn from_tokens(arrays: &[ArrayRef], rows: usize) -> Result<ArrayRef> {
    let outs = TokenLists::new("out", &arrays[0])?;
    let refs = TokenListLists::new("refs", &arrays[1])?;
    let (mut out, mut tokens, mut lists, mut scratch) =
        (Vec::new(), Vec::new(), Vec::new(), Scratch::default());
    let mut result = Float64Builder::with_capacity(rows);
    for row in 0..rows {
        let score = (|| {
            outs.row(row, &mut out).ok()?;
            refs.row(row, &mut tokens, &mut lists).ok()?;
            word_accuracy(&out, lists.iter().map(|r| &tokens[r.clone()]), &mut scratch)
        })();
        result.append_option(score);
    }
    Ok(Arc::new(result.finish()))
}

fn from_text(arrays: &[ArrayRef], rows: usize) -> Result<ArrayRef> {
    let outs = Strings::new(arrays[0].as_ref())?;
    let refs = TokenLists::new("refs", &arrays[1])?;
    let (mut texts, mut out, mut words, mut lists) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut scratch = Scratch::default();
    let mut result = Float64Builder::with_capacity(rows);
    for row in 0..rows {
        let score = (|| {
            out.clear();
            out.extend(whitespace::split(outs.get(row)?));
            refs.row(row, &mut texts).ok()?;
            words.clear();
            lists.clear();
            for text in &texts {
                let start = words.len();
                words.extend(whitespace::split(text));
                lists.push(start..words.len());
            }
            word_accuracy(&out, lists.iter().map(|r| &words[r.clone()]), &mut scratch)
        })();
        result.append_option(score);
    }
    Ok(Arc::new(result.finish()))
}
