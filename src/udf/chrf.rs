//! `chrf(hyp, ref)`: sentence-level chrF, over text or token lists.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, Float64Builder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::docs::DOC_SECTION;
use super::args::{Shapes, checked_arguments};
use crate::arrow::read::{Strings, TokenLists};
use crate::schema::{ColumnType, is_string};
use crate::metrics::chrf::{Scratch, chrf};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ChrfUdf {
    signature: Signature,
}

impl Default for ChrfUdf {
    fn default() -> Self {
        // DataFusion would cast a string to a list (or back) to fit one of two exact shapes:
        // coerce() alone checks that both arguments are of one kind.
        ChrfUdf { signature: Signature::user_defined(Volatility::Immutable) }
    }
}

const SHAPES: Shapes = &[
    &[("hyp", ColumnType::Text), ("ref", ColumnType::Text)],
    &[("hyp", ColumnType::Tokens), ("ref", ColumnType::Tokens)],
];

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Sentence-level chrF (Popović 2015) on sacrebleu's 0-100 scale, equal to sacrebleu's \
         sentence_chrf with its defaults: character n-grams of orders 1-6, no word n-grams, \
         beta = 2, whitespace removed, effective-order smoothing. Token lists are joined (the \
         whitespace between tokens never counts). 0 when either side is empty; NULL when an \
         argument or a token is NULL.",
        "chrf(hyp, ref)",
    )
    .with_argument("hyp", "The hypothesis: a string, or a token list.")
    .with_argument("ref", "The reference: of the same kind as hyp.")
    .with_sql_example("SELECT chrf('the cat sat', 'the cat sat down'); -- 66.0176")
    .build()
});

impl ScalarUDFImpl for ChrfUdf {
    fn name(&self) -> &str {
        "chrf"
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let mut scratch = Scratch::default();
        let mut result = Float64Builder::with_capacity(rows);
        if is_string(arrays[0].data_type()) {
            let (hyps, refs) = (Strings::new(arrays[0].as_ref())?, Strings::new(arrays[1].as_ref())?);
            for row in 0..rows {
                let score = hyps.get(row).zip(refs.get(row)).map(|(h, r)| chrf([h], [r], &mut scratch));
                result.append_option(score);
            }
        } else {
            let (hyps, refs) = (TokenLists::new("hyp", &arrays[0])?, TokenLists::new("ref", &arrays[1])?);
            let (mut hyp, mut reference) = (Vec::new(), Vec::new());
            for row in 0..rows {
                let readable = hyps.row(row, &mut hyp).is_ok() && refs.row(row, &mut reference).is_ok();
                let score = readable.then(|| chrf(hyp.iter().copied(), reference.iter().copied(), &mut scratch));
                result.append_option(score);
            }
        }
        Ok(ColumnarValue::Array(Arc::new(result.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
