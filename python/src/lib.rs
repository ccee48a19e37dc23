//! `pairmetrics._native`, the extension module of the Python package: pairmetrics' own
//! functions and `score`, with no second implementation. The Python layer
//! (`python/pairmetrics/__init__.py`) gives each function its signature and docstring.

mod arrow;
mod call;
mod ffi;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use clap::ValueEnum;
use datafusion::arrow::array::{Array, AsArray, RecordBatch, StructArray, new_empty_array};
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Documentation;
use datafusion::prelude::{SessionConfig, SessionContext};
use pairmetrics::parquet::Codec;
use pairmetrics::pipeline::score::{self as scoring, ScoreOptions, Source, StrictStop};
use pairmetrics::resources::options::{self, BadValue, Value};
use pairmetrics::resources::{self, Given, MissingResource, ResourceOptions, Resources};
use pairmetrics::session::{Session, Tuning};
use pairmetrics::udf;
use pairmetrics::udf::docs::Parameters;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};

use crate::arrow::ExportedArray;
use crate::call::Arg;
use crate::ffi::{AggregateFunction, ScalarFunction, TableFunction};

/// The runtime every call runs on (DataFusion's plans are async), started on first use.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("starting the tokio runtime")
    })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A Python exception for an error of pairmetrics: a missing resource says which keyword
/// gives it; anything else is a ValueError with DataFusion's or pairmetrics' message.
fn python_error(context: &str, err: &(dyn std::error::Error + 'static)) -> PyErr {
    let mut source = Some(err);
    while let Some(e) = source {
        if let Some(bad) = e.downcast_ref::<BadValue>() {
            return PyValueError::new_err(format!(
                "{}={:?}: {}",
                bad.option.key, bad.value, bad.expected
            ));
        }
        if let Some(stop) = e.downcast_ref::<StrictStop>() {
            return PyValueError::new_err(stop.explain("strict=True"));
        }
        if let Some(missing) = e.downcast_ref::<MissingResource>() {
            let option = missing.resource.option();
            return PyValueError::new_err(format!(
                "{} needs {}: pass {}=... {}",
                missing.function,
                missing.resource.what(),
                option.key,
                option.help
            ));
        }
        source = e.source();
    }
    let message = pairmetrics::session::without_engine_prefixes(&err.to_string());
    // A function's own errors already start with its name.
    match message.starts_with(&format!("{context}: ")) {
        true => PyValueError::new_err(message),
        false => PyValueError::new_err(format!("{context}: {message}")),
    }
}

fn anyhow_error(context: &str, err: anyhow::Error) -> PyErr {
    python_error(context, err.as_ref())
}

/// The keywords [`resource_options`] reads: the library's resource options.
fn resource_keywords() -> Vec<&'static str> {
    options::ALL.iter().map(|o| o.key).collect()
}

/// What pairmetrics' functions need beyond their arguments, from the keywords the Python
/// layer checked (phrase_table, lm, beam, ...): each read as its option's kind of value says,
/// then assembled by the library as the command line's flags are; absent keys (or None) take
/// defaults.
fn resource_options(keywords: Option<&Bound<'_, PyDict>>) -> PyResult<ResourceOptions> {
    let mut given = Vec::new();
    for (key, value) in keywords.iter().flat_map(|k| k.iter()) {
        let key: String = key.extract()?;
        let Some(&option) = options::ALL.iter().find(|o| o.key == key) else {
            return Err(PyTypeError::new_err(format!(
                "unknown resource keyword {key:?}; they are: {}",
                resource_keywords().join(", ")
            )));
        };
        if value.is_none() {
            continue;
        }
        let wrong = |e: PyErr| PyValueError::new_err(format!("{key}: {e}"));
        let value = match option.value {
            Value::Path | Value::Dir => Given::Location(value.extract().map_err(wrong)?),
            Value::Text => Given::Text(value.extract().map_err(wrong)?),
            Value::Count => Given::Count(value.extract().map_err(wrong)?),
            Value::Flag => Given::Flag(value.extract().map_err(wrong)?),
        };
        given.push((option, value));
    }
    ResourceOptions::from_given(given).map_err(|e| python_error("", &e))
}

/// pairmetrics' functions bound to resources (a phrase table, triples, a language model, the
/// aligner's options), in a session of their own that uses every core.
#[pyclass(frozen, module = "pairmetrics._native")]
struct Functions {
    ctx: SessionContext,
    resources: Resources,
}

#[pymethods]
impl Functions {
    #[new]
    #[pyo3(signature = (resources = None))]
    fn new(py: Python<'_>, resources: Option<Bound<'_, PyDict>>) -> PyResult<Self> {
        let options = resource_options(resources.as_ref())?;
        let (resources, _) = py
            .detach(|| runtime().block_on(resources::load(&options)))
            .map_err(|e| anyhow_error("loading resources", e))?;
        let mut config = SessionConfig::new();
        // Partitions are contiguous runs of rows; a round-robin shuffle would lose their order.
        config
            .options_mut()
            .optimizer
            .enable_round_robin_repartition = false;
        let tuning = Tuning {
            partitions: Some(cores()),
            ..Tuning::default()
        };
        let ctx = Session {
            config,
            resources: resources.clone(),
            tuning,
            cluster: None,
        }
        .build()
        .map_err(|e| anyhow_error("starting a session", e))?;
        Ok(Functions { ctx, resources })
    }

    /// `name(args)` row by row; `names` are the arguments' names, for errors. Returns the
    /// result's chunks in row order.
    fn call(
        &self,
        py: Python<'_>,
        name: &str,
        args: Vec<Bound<'_, PyAny>>,
        names: Vec<String>,
    ) -> PyResult<Vec<ExportedArray>> {
        self.run(py, name, args, names, false)
    }

    /// The aggregate `name(args)` over all rows: a one-element array.
    fn aggregate(
        &self,
        py: Python<'_>,
        name: &str,
        args: Vec<Bound<'_, PyAny>>,
        names: Vec<String>,
    ) -> PyResult<ExportedArray> {
        let mut chunks = self.run(py, name, args, names, true)?;
        Ok(chunks.remove(0))
    }

    /// Every scalar function, for `datafusion.udf`.
    fn scalar_functions(&self) -> Vec<ScalarFunction> {
        udf::all_scalar_udfs_with(&self.resources)
            .into_iter()
            .map(ScalarFunction)
            .collect()
    }

    /// Every aggregate function, for `datafusion.udaf`.
    fn aggregate_functions(&self) -> Vec<AggregateFunction> {
        udf::all_aggregate_udfs()
            .into_iter()
            .map(AggregateFunction)
            .collect()
    }

    /// Every table function, for `datafusion.udtf`.
    fn table_functions(&self) -> Vec<TableFunction> {
        let functions = udf::all_table_functions(&self.resources);
        functions
            .into_iter()
            .map(|(name, function)| TableFunction {
                name: name.to_string(),
                function,
            })
            .collect()
    }
}

impl Functions {
    fn run(
        &self,
        py: Python<'_>,
        name: &str,
        args: Vec<Bound<'_, PyAny>>,
        names: Vec<String>,
        aggregate: bool,
    ) -> PyResult<Vec<ExportedArray>> {
        let mut converted = Vec::with_capacity(args.len());
        for (value, arg) in args.iter().zip(&names) {
            converted.push(argument(value, &format!("{name}: argument `{arg}`"))?);
        }
        let ctx = &self.ctx;
        let chunks = py
            .detach(|| runtime().block_on(call::call(ctx, name, converted, aggregate, cores())))
            .map_err(|e| python_error(name, &e))?;
        Ok(chunks.into_iter().map(ExportedArray).collect())
    }
}

/// A Python argument as a column (anything Arrow) or a constant (str, bool, int, float).
fn argument(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Arg> {
    if value.is_instance_of::<PyString>() {
        return Ok(Arg::Literal(ScalarValue::Utf8(Some(value.extract()?))));
    }
    // bool before int: Python's bools are ints.
    if value.is_instance_of::<PyBool>() {
        return Ok(Arg::Literal(ScalarValue::Boolean(Some(value.extract()?))));
    }
    if value.is_instance_of::<PyInt>() {
        let n: i64 = value
            .extract()
            .map_err(|_| PyValueError::new_err(format!("{what}: integer out of range")))?;
        return Ok(Arg::Literal(ScalarValue::Int64(Some(n))));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Arg::Literal(ScalarValue::Float64(Some(value.extract()?))));
    }
    Ok(Arg::Column(arrow::import(value, what)?))
}

/// Every function's name, kind ("scalar", "aggregate", "table") and documentation: its
/// parameters (required, optional, variadic), syntax (`led(src, tgt [, links])`),
/// description, arguments and SQL example.
#[pyfunction]
fn catalogue(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let resources = Resources::default();
    let mut entries = Vec::new();
    let mut add = |name: &str, kind: &str, doc: Option<&Documentation>| -> PyResult<()> {
        let entry = PyDict::new(py);
        entry.set_item("name", name)?;
        entry.set_item("kind", kind)?;
        if let Some(doc) = doc {
            let parameters = Parameters::of_syntax(&doc.syntax_example)
                .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
            let given = PyDict::new(py);
            given.set_item("required", parameters.required)?;
            given.set_item("optional", parameters.optional)?;
            given.set_item("variadic", parameters.variadic)?;
            entry.set_item("parameters", given)?;
            entry.set_item("syntax", &doc.syntax_example)?;
            entry.set_item("description", &doc.description)?;
            entry.set_item("arguments", doc.arguments.clone().unwrap_or_default())?;
            entry.set_item("example", doc.sql_example.clone())?;
        }
        entries.push(entry);
        Ok(())
    };
    for f in udf::all_scalar_udfs_with(&resources) {
        add(f.name(), "scalar", f.documentation())?;
    }
    for f in udf::all_aggregate_udfs() {
        add(f.name(), "aggregate", f.documentation())?;
    }
    for (name, _) in udf::all_table_functions(&resources) {
        add(name, "table", None)?;
    }
    Ok(entries)
}

/// A table argument of `score`: a path (Parquet, read as stored) or Arrow data (a table, or
/// any stream of record batches), used in memory.
fn table_source(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Source> {
    if let Ok(path) = value.extract::<PathBuf>() {
        return Ok(Source::Parquet(path));
    }
    let what = format!("score: {name}");
    let chunks = arrow::import(value, &what)?;
    let DataType::Struct(fields) = chunks[0].data_type() else {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected a path or an Arrow table, got an array of {}",
            chunks[0].data_type()
        )));
    };
    let schema = Arc::new(Schema::new(fields.clone()));
    let mut batches = Vec::new();
    for chunk in &chunks {
        let rows = chunk.as_struct();
        if rows.null_count() > 0 {
            return Err(PyValueError::new_err(format!(
                "{what}: a row of the table is NULL as a whole"
            )));
        }
        if !rows.is_empty() {
            batches.push(RecordBatch::from(rows.clone()));
        }
    }
    Ok(Source::Arrow { schema, batches })
}

/// `pairmetrics score`. The tables are paths or Arrow data (see [`table_source`]). With `out`,
/// writes it atomically and returns the summary; without, returns the summary, the metadata
/// the file would hold, and the scored rows as struct arrays (at least one, maybe empty).
#[pyfunction]
#[pyo3(signature = (pairs, out = None, alignments = None, arcs = None, metrics = None, lowercase = false, punct = String::new(), align = false, strict = false, compression = "zstd", resources = None, filters = None))]
#[allow(clippy::too_many_arguments)]
fn score<'py>(
    py: Python<'py>,
    pairs: Bound<'py, PyAny>,
    out: Option<PathBuf>,
    alignments: Option<Bound<'py, PyAny>>,
    arcs: Option<Bound<'py, PyAny>>,
    metrics: Option<Vec<String>>,
    lowercase: bool,
    punct: String,
    align: bool,
    strict: bool,
    compression: &str,
    resources: Option<Bound<'py, PyDict>>,
    filters: Option<(String, String)>,
) -> PyResult<Bound<'py, PyAny>> {
    // The CLI's --compression values, from the same enum.
    let compression = Codec::from_str(compression, false).map_err(|_| {
        let names: Vec<String> = Codec::value_variants()
            .iter()
            .filter_map(|c| Some(c.to_possible_value()?.get_name().to_string()))
            .collect();
        PyValueError::new_err(format!(
            "compression: expected {}, got {compression:?}",
            names.join(", ")
        ))
    })?;
    let resources = resource_options(resources.as_ref())?;
    let alignments = alignments
        .map(|a| table_source(&a, "alignments"))
        .transpose()?;
    let arcs = arcs.map(|a| table_source(&a, "arcs")).transpose()?;
    let options = ScoreOptions {
        pairs: table_source(&pairs, "pairs")?,
        alignments,
        align: align.then(|| resources.aligner.clone()),
        arcs,
        out: out.clone().unwrap_or_default(),
        layout: Default::default(),
        lowercase,
        punct,
        metrics,
        hardrules: None,
        filters: filters.map(|(name, yaml)| pairmetrics::pipeline::score::Filters { name, yaml }),
        resources,
        tuning: Tuning::default(),
        compression,
        strict,
        progress: false,
        cluster: None,
    };
    let (summary, in_memory) = match out {
        Some(_) => {
            let summary = py
                .detach(|| runtime().block_on(scoring::score(&options)))
                .map_err(|e| anyhow_error("score", e))?;
            (summary, None)
        }
        None => {
            let scored = py
                .detach(|| runtime().block_on(scoring::score_in_memory(&options)))
                .map_err(|e| anyhow_error("score", e))?;
            (scored.summary, Some((scored.schema, scored.batches)))
        }
    };
    let result = PyDict::new(py);
    result.set_item("rows", summary.rows)?;
    let means = PyDict::new(py);
    for (name, metric) in &summary.metrics {
        means.set_item(name, metric.mean())?;
    }
    result.set_item("means", means)?;
    let scored = PyDict::new(py);
    for (name, metric) in &summary.metrics {
        scored.set_item(name, metric.scored)?;
    }
    result.set_item("scored", scored)?;
    let problems: Vec<(String, String, u64)> = summary
        .problems
        .iter()
        .map(|((c, r), n)| (c.clone(), r.clone(), *n))
        .collect();
    result.set_item("problems", problems)?;
    result.set_item(
        "orphans",
        summary
            .orphans
            .iter()
            .map(|(t, n)| (t.to_string(), *n))
            .collect::<Vec<_>>(),
    )?;
    if let Some(filtered) = &summary.filtered {
        let rejected = PyDict::new(py);
        for (filter, n) in &filtered.rejected {
            rejected.set_item(filter, n)?;
        }
        result.set_item("kept", filtered.kept)?;
        result.set_item("rejected", rejected)?;
    }
    result.set_item("signature", &summary.signature)?;
    result.set_item("notes", &summary.notes)?;
    let Some((schema, batches)) = in_memory else {
        return Ok(result.into_any());
    };
    let mut chunks: Vec<ExportedArray> = batches
        .into_iter()
        .map(|b| ExportedArray(Arc::new(StructArray::from(b))))
        .collect();
    if chunks.is_empty() {
        let empty = new_empty_array(&DataType::Struct(schema.fields().clone()));
        chunks.push(ExportedArray(empty));
    }
    let metadata = schema.metadata().clone();
    Ok(PyTuple::new(
        py,
        [
            result.into_any(),
            metadata.into_pyobject(py)?.into_any(),
            chunks.into_pyobject(py)?.into_any(),
        ],
    )?
    .into_any())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", pairmetrics::VERSION)?;
    // The DataFusion major these functions are built for: datafusion-python must match it.
    m.add("DATAFUSION_MAJOR", datafusion_ffi::version())?;
    m.add("RESOURCE_KEYWORDS", resource_keywords())?;
    let described: Vec<(&str, &str, bool)> = options::ALL
        .iter()
        .map(|o| (o.key, o.help, o.value.is_location()))
        .collect();
    m.add("RESOURCE_OPTIONS", described)?;
    m.add_class::<Functions>()?;
    m.add_class::<ExportedArray>()?;
    m.add_class::<ScalarFunction>()?;
    m.add_class::<AggregateFunction>()?;
    m.add_class::<TableFunction>()?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    Ok(())
}
