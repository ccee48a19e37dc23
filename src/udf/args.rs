//! Argument checking shared by every UDF: type checks and coercion at plan time, literal and
//! scalar arguments, and the problem columns. The row views that hand kernels plain slices are
//! in [`crate::arrow::read`].

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, StringBuilder,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{ColumnarValue, Expr, Signature, TypeSignature, Volatility};
use datafusion::physical_plan::PhysicalExpr;

use crate::arrow::read::{RowProblem, Strings};
use crate::schema::{ColumnType, list_item};

/// Accepted argument lists: a list of (name, expectation) per arity.
pub type Shapes = &'static [&'static [(&'static str, ColumnType)]];

/// The N shapes of a function whose arguments after the first `required` may be left off from
/// the end: `all`'s prefixes of `required`, `required + 1`, ... arguments.
pub const fn optional_tail<const N: usize>(
    all: &'static [(&'static str, ColumnType)],
    required: usize,
) -> [&'static [(&'static str, ColumnType)]; N] {
    assert!(
        required + N == all.len() + 1,
        "one shape per optional argument, and all of them"
    );
    let mut shapes = [all; N];
    let mut i = 0;
    while i < N {
        shapes[i] = all.split_at(required + i).0;
        i += 1;
    }
    shapes
}

/// A signature that lists the canonical types of each shape (so that `SHOW FUNCTIONS` and
/// `information_schema.parameters` show them) and coerces every other input with [`coerce`].
///
/// DataFusion coerces any list into an `Exact` list type, casting its items: a list of labels
/// passed as heads would become NULLs. Shapes with heads are therefore left to [`coerce`] alone,
/// which rejects them at plan time.
pub fn signature(shapes: Shapes) -> Signature {
    let mut variants: Vec<TypeSignature> = shapes
        .iter()
        .filter(|shape| {
            !shape
                .iter()
                .any(|(_, e)| matches!(e, ColumnType::Heads | ColumnType::Positions))
        })
        .map(|shape| TypeSignature::Exact(shape.iter().map(|(_, e)| e.canonical()).collect()))
        .collect();
    variants.push(TypeSignature::UserDefined);
    Signature::one_of(variants, Volatility::Immutable)
}

/// The argument half of a UDF's `ScalarUDFImpl` or `AggregateUDFImpl`: `signature()` returns
/// the stored `signature` field, and `coerce_types()` checks the arguments with [`coerce`]
/// against the shapes that `$shapes` (a closure of the UDF) gives.
macro_rules! checked_arguments {
    ($shapes:expr) => {
        fn signature(&self) -> &datafusion::logical_expr::Signature {
            &self.signature
        }

        fn coerce_types(
            &self,
            arg_types: &[datafusion::arrow::datatypes::DataType],
        ) -> datafusion::common::Result<Vec<datafusion::arrow::datatypes::DataType>> {
            let shapes: fn(&Self) -> $crate::udf::args::Shapes = $shapes;
            $crate::udf::args::coerce(self.name(), arg_types, shapes(self))
        }
    };
}
pub(crate) use checked_arguments;

/// Check `arg_types` against one of the accepted argument lists (`shapes`), each a list of
/// (name, expectation): the first of the right length whose types fit, or else the first of the
/// right length, to explain what does not fit. Literal NULLs are coerced to the expected type.
pub fn coerce(function: &str, arg_types: &[DataType], shapes: Shapes) -> Result<Vec<DataType>> {
    let fits = |shape: &&&[(&str, ColumnType)]| {
        shape
            .iter()
            .zip(arg_types)
            .all(|((_, expect), dt)| is_untyped(*expect, dt) || expect.accepts(dt))
    };
    let same_length = || shapes.iter().filter(|s| s.len() == arg_types.len());
    let Some(shape) = same_length().find(fits).or_else(|| same_length().next()) else {
        let usage: Vec<String> = shapes
            .iter()
            .map(|s| {
                let names: Vec<&str> = s.iter().map(|(n, _)| *n).collect();
                format!("{function}({})", names.join(", "))
            })
            .collect();
        return plan_err!(
            "{function} takes {} but was given {} arguments",
            usage.join(" or "),
            arg_types.len()
        );
    };
    shape
        .iter()
        .zip(arg_types)
        .map(|(&(name, expect), dt)| {
            if is_untyped(expect, dt) {
                Ok(expect.canonical())
            } else if expect.accepts(dt) {
                Ok(dt.clone())
            } else {
                plan_err!(
                    "{function}: argument `{name}` must be {}, got {dt}",
                    expect.describe()
                )
            }
        })
        .collect()
}

/// A NULL literal, or an empty list literal (`[]`, of type List<Null>) where a list is expected.
fn is_untyped(expect: ColumnType, dt: &DataType) -> bool {
    dt.is_null()
        || list_item(dt).is_some_and(DataType::is_null) && list_item(&expect.canonical()).is_some()
}

/// A `*_problem` column: per row, NULL when `check(row)` succeeds, else why it failed.
pub fn problem_column<T, E: fmt::Display>(
    rows: usize,
    mut check: impl FnMut(usize) -> std::result::Result<T, E>,
) -> ArrayRef {
    let mut out = StringBuilder::with_capacity(rows, 0);
    for row in 0..rows {
        out.append_option(check(row).err().map(|why| why.to_string()));
    }
    Arc::new(out.finish())
}

/// Why a row has no value: its arguments, or the kernel's verdict `E` on them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem<E> {
    Row(RowProblem),
    Metric(E),
}

impl<E: fmt::Display> fmt::Display for Problem<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Row(p) => p.fmt(f),
            Problem::Metric(p) => p.fmt(f),
        }
    }
}

impl<E> From<RowProblem> for Problem<E> {
    fn from(p: RowProblem) -> Self {
        Problem::Row(p)
    }
}

/// An argument as an array, and whether it is a literal (one value for every row).
pub fn array_of(value: &ColumnarValue) -> Result<(ArrayRef, bool)> {
    Ok(match value {
        ColumnarValue::Scalar(scalar) => (scalar.to_array_of_size(1)?, true),
        ColumnarValue::Array(array) => (array.clone(), false),
    })
}

/// An integer argument, literal or column.
pub struct IntArg {
    values: Int64Array,
    constant: bool,
}

impl IntArg {
    pub fn new(value: &ColumnarValue) -> Result<Self> {
        let (array, constant) = array_of(value)?;
        let values = cast(&array, &DataType::Int64)?.as_primitive().clone();
        Ok(IntArg { values, constant })
    }

    pub fn get(&self, i: usize) -> Option<i64> {
        let i = if self.constant { 0 } else { i };
        self.values.is_valid(i).then(|| self.values.value(i))
    }
}

/// A number argument, literal or column, as Float64.
pub struct FloatArg {
    values: Float64Array,
    constant: bool,
}

impl FloatArg {
    pub fn new(value: &ColumnarValue) -> Result<Self> {
        let (array, constant) = array_of(value)?;
        let values = cast(&array, &DataType::Float64)?.as_primitive().clone();
        Ok(FloatArg { values, constant })
    }

    pub fn get(&self, i: usize) -> Option<f64> {
        let i = if self.constant { 0 } else { i };
        self.values.is_valid(i).then(|| self.values.value(i))
    }
}

/// A boolean argument, literal or column.
pub struct BoolArg {
    values: BooleanArray,
    constant: bool,
}

impl BoolArg {
    pub fn new(value: &ColumnarValue) -> Result<Self> {
        let (array, constant) = array_of(value)?;
        Ok(BoolArg {
            values: array.as_boolean().clone(),
            constant,
        })
    }

    pub fn get(&self, i: usize) -> Option<bool> {
        let i = if self.constant { 0 } else { i };
        self.values.is_valid(i).then(|| self.values.value(i))
    }
}

/// A string argument that is usually a literal: decoded once when it is a scalar.
pub enum TextArg<'a> {
    Constant(Option<String>),
    Column(Strings<'a>),
}

impl<'a> TextArg<'a> {
    pub fn new(value: &'a ColumnarValue, array: &'a ArrayRef) -> Result<Self> {
        Ok(match value {
            ColumnarValue::Scalar(scalar) => TextArg::Constant(scalar_text(scalar)?),
            ColumnarValue::Array(_) => TextArg::Column(Strings::new(array.as_ref())?),
        })
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        match self {
            TextArg::Constant(value) => value.as_deref(),
            TextArg::Column(strings) => strings.get(i),
        }
    }
}

/// A string scalar's value (NULL as None); an error for any other type.
pub fn scalar_text(scalar: &ScalarValue) -> Result<Option<String>> {
    match scalar {
        ScalarValue::Utf8(v) | ScalarValue::LargeUtf8(v) | ScalarValue::Utf8View(v) => {
            Ok(v.clone())
        }
        ScalarValue::Null => Ok(None),
        other => exec_err!("expected a string, got {}", other.data_type()),
    }
}

/// The value of an aggregate's argument that is a constant (a literal, or an expression of
/// literals); `None` for anything that depends on a row.
pub fn constant(expr: &dyn PhysicalExpr) -> Option<ScalarValue> {
    let batch = RecordBatch::new_empty(Arc::new(Schema::empty()));
    match expr.evaluate(&batch) {
        Ok(ColumnarValue::Scalar(value)) => Some(value),
        _ => None,
    }
}

/// A table function's string argument: it must be a literal, as table functions are planned
/// before any row exists. `usage` heads the error; `what` names the argument.
pub fn literal_string<'a>(expr: &'a Expr, usage: &str, what: &str) -> Result<&'a str> {
    match expr {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
            _,
        ) => Ok(s),
        _ => plan_err!("{usage}: {what} must be a string literal, got {expr}"),
    }
}

/// A table function's integer argument, a literal of at least `min`.
pub fn literal_integer(expr: &Expr, usage: &str, what: &str, min: i64) -> Result<i64> {
    let value = match expr {
        Expr::Literal(scalar, _) if scalar.data_type().is_integer() => {
            scalar.cast_to(&DataType::Int64)?
        }
        _ => return plan_err!("{usage}: {what} must be an integer literal, got {expr}"),
    };
    match value {
        ScalarValue::Int64(Some(n)) if n >= min => Ok(n),
        _ => plan_err!("{usage}: {what} must be at least {min}, got {expr}"),
    }
}
