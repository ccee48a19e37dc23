//! `loglinear(weights, feature1, feature2, ...)`: a log-linear model's score, Σ weight_i ·
//! feature_i (`metrics::mert`), the ranking `pairmetrics tune` trains weights for.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, AsArray, Float64Array, Float64Builder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{Result, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args::array_of;
use super::docs::DOC_SECTION;
use super::expr;
use crate::schema::ColumnType;
use crate::smt::mert::loglinear;

pub const NAME: &str = expr::LOGLINEAR;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LoglinearUdf {
    signature: Signature,
}

impl Default for LoglinearUdf {
    fn default() -> Self {
        LoglinearUdf {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "A log-linear model's score of a candidate: the sum of weight_i * feature_i, the \
         ranking `pairmetrics tune` (MERT) trains the weights of. NULL when a feature, the \
         weights or one of them is NULL (use coalesce(feature, 0) to let a missing feature \
         count nothing, as l2-assist does); an error when the weights list and the features \
         differ in number.",
        "loglinear(weights, feature1 [, feature2, ...])",
    )
    .with_argument("weights", "A list of numbers, one per feature: a literal such as [0.5, 0.2] or a column.")
    .with_argument("feature1", "A number; then as many more as there are weights.")
    .with_sql_example(
        "SELECT sentence_id, candidate, loglinear([0.6, 0.3, 0.1], lm, direct, inverse) AS score FROM candidates;",
    )
    .with_related_udf(expr::LM_LOGPROB)
    .build()
});

impl ScalarUDFImpl for LoglinearUdf {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() < 2 {
            return plan_err!(
                "{NAME} takes {} but was given {} arguments",
                DOC.syntax_example,
                arg_types.len()
            );
        }
        arg_types
            .iter()
            .enumerate()
            .map(|(i, dt)| {
                let (name, expect) = if i == 0 {
                    ("weights".to_string(), ColumnType::Floats)
                } else {
                    (format!("feature{i}"), ColumnType::Float)
                };
                if dt.is_null() || expect.accepts(dt) {
                    Ok(expect.canonical())
                } else {
                    plan_err!(
                        "{NAME}: argument `{name}` must be {}, got {dt}",
                        expect.describe()
                    )
                }
            })
            .collect()
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        // A literal weights list stays one row for all rather than a copy per row.
        let (weights, constant) = array_of(&args.args[0])?;
        let weights = cast(&weights, &ColumnType::Floats.canonical())?;
        let weights = weights.as_list::<i32>();
        let features: Vec<Float64Array> = args.args[1..]
            .iter()
            .map(|a| {
                Ok(cast(&a.to_array(rows)?, &DataType::Float64)?
                    .as_primitive::<Float64Type>()
                    .clone())
            })
            .collect::<Result<_>>()?;
        let (mut w, mut f) = (
            Vec::with_capacity(features.len()),
            Vec::with_capacity(features.len()),
        );
        let mut out = Float64Builder::with_capacity(rows);
        for row in 0..rows {
            let weights_row = if constant { 0 } else { row };
            if weights.is_null(weights_row) || features.iter().any(|c| c.is_null(row)) {
                out.append_null();
                continue;
            }
            let list = weights.value(weights_row);
            let list = list.as_primitive::<Float64Type>();
            if list.len() != features.len() {
                return exec_err!(
                    "{NAME}: {} weights for {} features (row {}, 1-based)",
                    list.len(),
                    features.len(),
                    row + 1
                );
            }
            if list.null_count() > 0 {
                out.append_null();
                continue;
            }
            w.clear();
            w.extend(list.values().iter().copied());
            f.clear();
            f.extend(features.iter().map(|c| c.value(row)));
            out.append_value(loglinear(&w, &f));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
