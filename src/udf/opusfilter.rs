//! `opusfilter(filters, src, tgt)`: an OpusFilter pipeline's filters over a pair, as one struct
//! with each filter's score (a field per filter, named as `NamedFilter::column` names it),
//! `keep` and `rejected_by` (the first filter that rejects the pair). `score --filters` writes
//! its fields as columns. The filters are read once per process and configuration.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use datafusion::arrow::array::{
    ArrayBuilder, ArrayRef, BooleanBuilder, Float64Builder, Int64Builder, ListBuilder,
    StringBuilder, StructArray,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, TextArg, checked_arguments, scalar_text, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::clean::json::Value;
use crate::clean::opusfilter::{Item, Shape};
use crate::formats::opusfilter_config::{self, NamedFilter};
use crate::schema::ColumnType;
use crate::text::whitespace;

/// The fields after the filters' own.
pub const KEEP: &str = "keep";
pub const REJECTED_BY: &str = "rejected_by";

#[derive(Debug)]
pub struct OpusfilterUdf {
    signature: Signature,
    /// Each configuration's filters, read once (models included).
    parsed: Mutex<HashMap<String, Arc<Vec<NamedFilter>>>>,
}

impl OpusfilterUdf {
    pub fn new() -> Self {
        OpusfilterUdf {
            signature: signature(SHAPES),
            parsed: Mutex::default(),
        }
    }

    fn filters(&self, yaml: &str) -> Result<Arc<Vec<NamedFilter>>> {
        let mut parsed = self.parsed.lock().expect("not poisoned");
        if let Some(filters) = parsed.get(yaml) {
            return Ok(filters.clone());
        }
        // OpusFilter's warnings (an ignored parameter) go to stderr, once per configuration.
        let filters = opusfilter_config::pair_filters(yaml, &mut std::io::stderr())
            .map_err(|e| bad(format!("filters: {e:#}")))?;
        let filters = Arc::new(filters);
        parsed.insert(yaml.to_string(), filters.clone());
        Ok(filters)
    }

    fn filters_of(&self, value: Option<&ScalarValue>) -> Result<Arc<Vec<NamedFilter>>> {
        match value.map(scalar_text).transpose()?.flatten() {
            Some(yaml) => self.filters(&yaml),
            None => Err(bad(
                "filters must be a literal (the YAML list of filters), the same for every row"
                    .into(),
            )),
        }
    }
}

impl Default for OpusfilterUdf {
    fn default() -> Self {
        Self::new()
    }
}

// One function whatever it has read: the cache is not part of what it is.
impl PartialEq for OpusfilterUdf {
    fn eq(&self, other: &Self) -> bool {
        self.signature == other.signature
    }
}
impl Eq for OpusfilterUdf {}
impl Hash for OpusfilterUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.signature.hash(state);
    }
}

const SHAPES: Shapes = &[&[
    ("filters", ColumnType::Text),
    ("src", ColumnType::Text),
    ("tgt", ColumnType::Text),
]];

fn bad(e: String) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {e}", expr::OPUSFILTER))
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "OpusFilter 3.3.1's filters over a pair, as its `filter` step runs them: a struct with \
         each filter's score as OpusFilter's `score` step writes it (a list of one value per \
         side where it writes one per input, else one value for the pair), `keep` (every \
         filter accepts the pair) and `rejected_by` (the first filter that rejects it, NULL when \
         kept). A field is named after its filter: the class in snake case, then its `name` and \
         instance number if any (`LengthRatioFilter` → `length_ratio_filter`). Both sides are \
         `rstrip()`ped first, as OpusFilter strips the lines it reads. `score --filters` writes \
         the fields as columns; `pairmetrics opusfilter` runs whole configurations.",
        "opusfilter(filters, src, tgt)",
    )
    .with_argument(
        "filters",
        "A literal: the YAML list of filters, as under a `filter` step's `filters:` \
         (`'[{LengthRatioFilter: {threshold: 2}}, TerminalPunctuationFilter: {}]'`), or a whole \
         OpusFilter configuration, whose `filter` steps' filters are taken in order.",
    )
    .with_argument("src", "The source segment. NULL gives NULL.")
    .with_argument("tgt", "The target segment. NULL gives NULL.")
    .with_sql_example(
        "SELECT f.rejected_by, count(*) FROM (SELECT opusfilter('[{LengthRatioFilter: \
         {threshold: 2}}, {TerminalPunctuationFilter: {}}]', src_text, tgt_text) AS f FROM \
         pairs) GROUP BY 1;",
    )
    .build()
});

/// The struct's fields: a filter's score as its shape says, then keep and rejected_by.
pub fn fields(filters: &[NamedFilter]) -> Fields {
    let mut fields: Vec<Field> = filters
        .iter()
        .map(|f| Field::new(f.column(), score_type(f.filter.shape()), true))
        .collect();
    fields.push(Field::new(KEEP, DataType::Boolean, true));
    fields.push(Field::new(REJECTED_BY, DataType::Utf8, true));
    Fields::from(fields)
}

fn score_type(shape: Shape) -> DataType {
    let item = match shape.item {
        Item::Integer => DataType::Int64,
        Item::Float => DataType::Float64,
        Item::Flag => DataType::Boolean,
    };
    match shape.per_side {
        true => DataType::List(Arc::new(Field::new_list_field(item, true))),
        false => item,
    }
}

impl ScalarUDFImpl for OpusfilterUdf {
    fn name(&self) -> &str {
        expr::OPUSFILTER
    }

    checked_arguments!(|_udf| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // `return_field_from_args` decides: the fields depend on the filters.
        Err(bad("its type depends on its filters, a literal".into()))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let filters = self.filters_of(args.scalar_arguments.first().copied().flatten())?;
        Ok(Arc::new(Field::new(
            self.name(),
            DataType::Struct(fields(&filters)),
            true,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let filters = match &args.args[0] {
            ColumnarValue::Scalar(value) => self.filters_of(Some(value))?,
            ColumnarValue::Array(_) => self.filters_of(None)?,
        };
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (src, tgt) = (
            TextArg::new(&args.args[1], &arrays[1])?,
            TextArg::new(&args.args[2], &arrays[2])?,
        );
        let mut scores: Vec<Box<dyn ArrayBuilder>> = filters
            .iter()
            .map(|f| builder(f.filter.shape(), rows))
            .collect();
        let columns: Vec<String> = filters.iter().map(NamedFilter::column).collect();
        let mut keep = BooleanBuilder::with_capacity(rows);
        let mut rejected_by = StringBuilder::new();
        let mut valid = Vec::with_capacity(rows);
        for i in 0..rows {
            let (Some(s), Some(t)) = (src.get(i), tgt.get(i)) else {
                for (f, out) in filters.iter().zip(&mut scores) {
                    append(out.as_mut(), f.filter.shape(), None);
                }
                keep.append_null();
                rejected_by.append_null();
                valid.push(false);
                continue;
            };
            let segments = [whitespace::rstrip(s), whitespace::rstrip(t)];
            let mut first_rejecting = None;
            for ((f, out), column) in filters.iter().zip(&mut scores).zip(&columns) {
                let score = f.filter.score(&segments).map_err(bad)?;
                if first_rejecting.is_none() && !f.filter.accept(&score) {
                    first_rejecting = Some(column.as_str());
                }
                append(out.as_mut(), f.filter.shape(), Some(&score));
            }
            keep.append_value(first_rejecting.is_none());
            rejected_by.append_option(first_rejecting);
            valid.push(true);
        }
        let mut columns: Vec<ArrayRef> = scores.iter_mut().map(|b| b.finish()).collect();
        columns.push(Arc::new(keep.finish()));
        columns.push(Arc::new(rejected_by.finish()));
        let out = StructArray::try_new(fields(&filters), columns, Some(NullBuffer::from(valid)))?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

fn builder(shape: Shape, rows: usize) -> Box<dyn ArrayBuilder> {
    match (shape.per_side, shape.item) {
        (false, Item::Integer) => Box::new(Int64Builder::with_capacity(rows)),
        (false, Item::Float) => Box::new(Float64Builder::with_capacity(rows)),
        (false, Item::Flag) => Box::new(BooleanBuilder::with_capacity(rows)),
        (true, Item::Integer) => Box::new(ListBuilder::new(Int64Builder::new())),
        (true, Item::Float) => Box::new(ListBuilder::new(Float64Builder::new())),
        (true, Item::Flag) => Box::new(ListBuilder::new(BooleanBuilder::new())),
    }
}

/// Append a score (None: a NULL row) to its filter's builder. A pair's value is the score
/// itself or, for filters that compare every two inputs, the one comparison of the two sides.
fn append(out: &mut dyn ArrayBuilder, shape: Shape, score: Option<&Value>) {
    let items: Option<&[Value]> = score.map(|score| match score {
        Value::List(items) => items.as_slice(),
        single => std::slice::from_ref(single),
    });
    let any = out.as_any_mut();
    macro_rules! fill {
        ($builder:ty, $value:expr) => {{
            let b = any.downcast_mut::<$builder>().expect("the shape's builder");
            match items {
                None => b.append_null(),
                Some(items) => b.append_option(items.first().and_then($value)),
            }
        }};
        (list $builder:ty, $value:expr) => {{
            let b = any
                .downcast_mut::<ListBuilder<$builder>>()
                .expect("the shape's builder");
            match items {
                None => b.append_null(),
                Some(items) => {
                    for item in items {
                        b.values().append_option($value(item));
                    }
                    b.append(true);
                }
            }
        }};
    }
    match (shape.per_side, shape.item) {
        (false, Item::Integer) => fill!(Int64Builder, integer),
        (false, Item::Float) => fill!(Float64Builder, float),
        (false, Item::Flag) => fill!(BooleanBuilder, flag),
        (true, Item::Integer) => fill!(list Int64Builder, integer),
        (true, Item::Float) => fill!(list Float64Builder, float),
        (true, Item::Flag) => fill!(list BooleanBuilder, flag),
    }
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

fn flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}
