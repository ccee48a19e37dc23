//! `pairmetrics sql`: run a query over Parquet tables with every UDF registered.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::arrow::{csv, json};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;

use crate::parquet::dataset::ExecutorDataset;
use crate::parquet::{Codec, Layout, ParquetInput, TableWriter};
use crate::session::{self, Session, Tuning};
use crate::Resources;

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
    if let Some(unknown) = sorted.iter().find(|s| !tables.iter().any(|(name, _)| name == *s)) {
        bail!("--sorted {unknown}: no table of that name (give it with --table {unknown}=PATH)");
    }
    // Each table's footer is read once: to check it, and for the order it records.
    let mut inputs = Vec::new();
    let mut delta_tables = Vec::new();
    for (name, path) in tables {
        if cluster.is_some() && path.to_str().is_some_and(|s| s.starts_with("delta:")) {
            bail!("table {name}: Delta tables are read by this process; not supported with --cluster");
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
    let ctx = Session { config, resources: resources.clone(), tuning: *tuning, cluster: cluster.map(str::to_string) }.build()?;
    for (input, declared) in &inputs {
        input.register(&ctx, *declared).await?;
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
            ("pairmetrics.version".to_string(), crate::VERSION.to_string()),
            ("pairmetrics.query".to_string(), query.to_string()),
        ];
        if session::on_cluster(ctx) {
            let dataset = ExecutorDataset::create(path, layout)?;
            dataset.write(frame, layout, metadata, Codec::Zstd, true).await?;
            return dataset.publish();
        }
        let mut writer = TableWriter::create(ctx, path, layout, schema, metadata, Codec::Zstd, true).await?;
        let mut stream = frame.execute_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            writer.write(&batch).await?;
        }
        return writer.finish().await;
    }
    match format {
        Format::Table => {
            let batches: Vec<RecordBatch> = frame.collect().await?;
            writeln!(sink, "{}", pretty_format_batches(&batches)?)?;
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
            let mut writer = json::LineDelimitedWriter::new(sink);
            while let Some(batch) = stream.try_next().await? {
                writer.write(&batch).context("writing JSON")?;
            }
            writer.finish()?;
        }
    }
    Ok(())
}
