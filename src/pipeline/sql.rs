//! `pairmetrics sql`: run a query over Parquet tables with every UDF registered.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, FieldRef, Float32Type, Float64Type};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::json::writer::{
    Encoder, EncoderFactory, EncoderOptions, NullableEncoder, make_encoder,
};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::arrow::{csv, json};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;

use crate::Resources;
use crate::formats::terminal::terminal_safe;
use crate::parquet::dataset::ExecutorDataset;
use crate::parquet::keys;
use crate::parquet::{Codec, Layout, ParquetInput, TableWriter};
use crate::session::{self, Session, Tuning};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned text table.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    Json,
}

/// A session with `tables` (name, Parquet file or directory) registered.
pub async fn context_with_tables(tables: &[(String, PathBuf)]) -> Result<SessionContext> {
    context_with_tables_and(tables, &[], &Resources::default(), &Tuning::default()).await
}

/// The same, with functions bound to `resources`, run as `tuning` says. Tables named in
/// `sorted`, and files that record it (every file pairmetrics writes in pair_id order), are
/// declared sorted by `pair_id`; then joins are planned as merge joins, which stream: a join of
/// two sorted tables on pair_id holds a few batches, not a hash table of a whole side.
pub async fn context_with_tables_and(
    tables: &[(String, PathBuf)],
    sorted: &[String],
    resources: &Resources,
    tuning: &Tuning,
) -> Result<SessionContext> {
    context_on(tables, sorted, resources, tuning, None).await
}

/// The same, planning on the Ballista scheduler at `cluster` (`df://HOST:PORT`) when given.
/// There the tables are plain Parquet listings under absolute paths, which every executor must
/// be able to read at the same path.
pub async fn context_on(
    tables: &[(String, PathBuf)],
    sorted: &[String],
    resources: &Resources,
    tuning: &Tuning,
    cluster: Option<&str>,
) -> Result<SessionContext> {
    if let Some(unknown) = sorted
        .iter()
        .find(|s| !tables.iter().any(|(name, _)| name == *s))
    {
        bail!("--sorted {unknown}: no table of that name (give it with --table {unknown}=PATH)");
    }
    for (i, (name, path)) in tables.iter().enumerate() {
        if let Some((_, first)) = tables[..i]
            .iter()
            .find(|(other, _)| other.eq_ignore_ascii_case(name))
        {
            bail!(
                "table {name} is given twice ({} and {}); SQL names are not case-sensitive, so give each table its own name",
                first.display(),
                path.display()
            );
        }
    }
    // Each table's footer is read once: to check it, and for the order it records.
    let mut inputs = Vec::new();
    let mut delta_tables = Vec::new();
    for (name, path) in tables {
        if cluster.is_some() && path.to_str().is_some_and(|s| s.starts_with("delta:")) {
            bail!(
                "table {name}: Delta tables are read by this process; not supported with --cluster"
            );
        }
        if let Some(spec) = path.to_str().and_then(|s| s.strip_prefix("delta:")) {
            delta_tables.push((name, spec));
            continue;
        }
        let path = match cluster {
            Some(_) => crate::storage::absolute(path)?,
            None => path.clone(),
        };
        let input = ParquetInput::open(name, &path)?;
        let declared = input.records_sorted_by_pair_id() || sorted.contains(name);
        inputs.push((input, declared));
    }
    let mut config = SessionConfig::new();
    if inputs.iter().any(|&(_, declared)| declared) {
        // A hash join would build a table of a whole side however the inputs are ordered.
        config.options_mut().optimizer.prefer_hash_join = false;
    }
    let ctx = Session {
        config,
        resources: resources.clone(),
        tuning: *tuning,
        cluster: cluster.map(str::to_string),
    }
    .build()?;
    for (input, declared) in &inputs {
        input
            .register(&ctx, *declared && session::may_declare_sorted(&ctx))
            .await?;
        // Ballista ships only the plain listing; on a cluster, files are shared among tasks.
        if cluster.is_none() {
            input.share_rows_among_threads(&ctx).await?;
        }
    }
    for (name, spec) in delta_tables {
        #[cfg(feature = "delta")]
        crate::storage::delta::register(&ctx, name, spec).await?;
        #[cfg(not(feature = "delta"))]
        bail!("table {name}: delta:{spec}: this pairmetrics was built without the `delta` feature");
    }
    Ok(ctx)
}

/// Run `query`; print it in `format` to `sink`, or write it to `out` as Parquet, laid out as
/// `layout` says.
pub async fn run(
    ctx: &SessionContext,
    query: &str,
    format: Format,
    out: Option<&Path>,
    layout: &Layout,
    sink: &mut dyn Write,
) -> Result<()> {
    let frame = ctx.sql(query).await?;
    if let Some(path) = out {
        let schema = frame.schema().inner().clone();
        let metadata = vec![
            (keys::VERSION.to_string(), crate::VERSION.to_string()),
            (keys::QUERY.to_string(), query.to_string()),
        ];
        if session::on_cluster(ctx) {
            let dataset = ExecutorDataset::create(path, layout)?;
            dataset
                .write(frame, layout, metadata, Codec::Zstd, true)
                .await?;
            return dataset.publish();
        }
        let mut writer =
            TableWriter::create(ctx, path, layout, schema, metadata, Codec::Zstd, true).await?;
        let mut stream = frame.execute_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            writer.write(&batch).await?;
        }
        return writer.finish().await;
    }
    match format {
        Format::Table => {
            let batches: Vec<RecordBatch> = frame.collect().await?;
            writeln!(
                sink,
                "{}",
                terminal_safe(&pretty_format_batches(&batches)?.to_string())
            )?;
        }
        Format::Csv => {
            let mut stream = frame.execute_stream().await?;
            let mut writer = csv::WriterBuilder::new().with_header(true).build(sink);
            while let Some(batch) = stream.try_next().await? {
                writer.write(&batch).context("writing CSV")?;
            }
        }
        Format::Json => {
            let mut stream = frame.execute_stream().await?;
            let mut writer = json::WriterBuilder::new()
                .with_encoder_factory(Arc::new(NonFiniteAsStrings))
                .build::<_, json::writer::LineDelimited>(sink);
            while let Some(batch) = stream.try_next().await? {
                writer.write(&batch).context("writing JSON")?;
            }
            writer.finish()?;
        }
    }
    Ok(())
}

/// JSON has no NaN or infinity, and arrow writes them as `null`, which a reader cannot tell
/// from NULL: they are written as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` instead
/// (as JavaScript and Python name them); finite values as arrow writes them.
#[derive(Debug)]
struct NonFiniteAsStrings;

/// Options without our factory, for the encoders of finite values.
static PLAIN: LazyLock<EncoderOptions> = LazyLock::new(EncoderOptions::default);

impl EncoderFactory for NonFiniteAsStrings {
    fn make_default_encoder<'a>(
        &self,
        field: &'a FieldRef,
        array: &'a dyn Array,
        _options: &'a EncoderOptions,
    ) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        let value: Box<dyn Fn(usize) -> f64 + 'a> = match array.data_type() {
            DataType::Float64 => Box::new(|i| array.as_primitive::<Float64Type>().value(i)),
            DataType::Float32 => Box::new(|i| array.as_primitive::<Float32Type>().value(i) as f64),
            _ => return Ok(None),
        };
        let finite = make_encoder(field, array, &PLAIN)?;
        Ok(Some(NullableEncoder::new(
            Box::new(FloatEncoder { value, finite }),
            array.logical_nulls(),
        )))
    }
}

struct FloatEncoder<'a> {
    value: Box<dyn Fn(usize) -> f64 + 'a>,
    finite: NullableEncoder<'a>,
}

impl Encoder for FloatEncoder<'_> {
    fn encode(&mut self, i: usize, out: &mut Vec<u8>) {
        match (self.value)(i) {
            v if v.is_nan() => out.extend_from_slice(b"\"NaN\""),
            v if v == f64::INFINITY => out.extend_from_slice(b"\"Infinity\""),
            v if v == f64::NEG_INFINITY => out.extend_from_slice(b"\"-Infinity\""),
            _ => self.finite.encode(i, out),
        }
    }
}
