//! A result written as a dataset: a directory (or object-store prefix) of Parquet files,
//! Hive-partitioned by the values of some columns (`lang=fr-en/bucket=3/part-00000.parquet`,
//! the layout Spark, DuckDB, Polars, Trino and DataFusion read), at most so many rows a file.
//!
//! Bounded: at most [`MAX_OPEN_FILES`] files are open at once (the least recently written is
//! finished when another is needed; its partition continues in a new part file), and each
//! holds at most a row group in memory. All or nothing: on a local disk the dataset is written
//! into a hidden directory beside the target and renamed to it when complete; in an object
//! store each file is its own upload and the files already written are deleted if the run
//! fails. Either way a `_SUCCESS` file, written last, marks a complete dataset, as Spark's does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{cast, take_record_batch};
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef, UInt64Type};
use datafusion::config::TableParquetOptions;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::provider_as_source;
use datafusion::logical_expr::LogicalPlanBuilder;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::prelude::{DataFrame, ParquetReadOptions};
use futures::StreamExt;
use object_store::ObjectStoreExt;

use super::shares::{CopiedColumns, SharesSink};
use super::write::{AtomicParquetWriter, Encoding};
use super::{NULL_PARTITION, ParquetInput, keys};
use crate::storage::{self, Location, Mode, Remote};
use datafusion::prelude::SessionContext;

/// The longest file or directory name local file systems take (ext4, xfs, btrfs, APFS, NTFS).
const MAX_NAME_BYTES: usize = 255;
/// Files open at once; each is a row group's worth of buffers and a thread per column.
const MAX_OPEN_FILES: usize = 16;

/// How a result is laid out as files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Columns whose values name the directories (and are left out of the files).
    pub partition_by: Vec<String>,
    /// Start a new file after this many rows.
    pub max_rows_per_file: Option<u64>,
    /// For a `delta:` output, what happens when the table exists.
    pub mode: Mode,
}

impl Layout {
    /// A result goes to a dataset when partitioned or split, or when the target ends in `/`.
    pub fn is_dataset(&self, out: &Path) -> bool {
        !self.partition_by.is_empty()
            || self.max_rows_per_file.is_some()
            || out.to_string_lossy().ends_with('/')
    }
}

/// Where a result is written: one file, a dataset, or a Delta table (`delta:` outputs).
pub enum TableWriter {
    File(AtomicParquetWriter),
    Dataset(DatasetWriter),
    #[cfg(feature = "delta")]
    Delta(storage::delta::DeltaWriter),
}

impl TableWriter {
    /// Start writing `out` as `layout` says, each file written as `encoding` says, `metadata` in
    /// every footer (a Delta table's commit info).
    pub async fn create(
        ctx: &SessionContext,
        out: &Path,
        layout: &Layout,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
    ) -> Result<TableWriter> {
        if let Some(target) = out.to_str().and_then(|s| s.strip_prefix("delta:")) {
            if !layout.partition_by.is_empty() || layout.max_rows_per_file.is_some() {
                bail!(
                    "--partition-by and --max-rows-per-file are for Parquet datasets, not delta: outputs"
                );
            }
            #[cfg(feature = "delta")]
            return Ok(TableWriter::Delta(
                storage::delta::DeltaWriter::create(ctx, target, layout.mode, schema, metadata)
                    .await?,
            ));
            #[cfg(not(feature = "delta"))]
            bail!("delta:{target}: this pairmetrics was built without the `delta` feature");
        }
        let _ = ctx;
        if layout.mode != Mode::default() {
            bail!(
                "--mode is for delta: outputs; a Parquet output is always written whole, replacing the file"
            );
        }
        Ok(match layout.is_dataset(out) {
            false => TableWriter::File(AtomicParquetWriter::with_encoding(
                out, schema, metadata, encoding,
            )?),
            true => TableWriter::Dataset(DatasetWriter::create(
                out, layout, schema, metadata, encoding,
            )?),
        })
    }

    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            TableWriter::File(writer) => writer.write(batch),
            TableWriter::Dataset(writer) => writer.write(batch),
            #[cfg(feature = "delta")]
            TableWriter::Delta(writer) => writer.write(batch).await,
        }
    }

    pub async fn finish(self) -> Result<()> {
        match self {
            TableWriter::File(writer) => writer.finish(),
            TableWriter::Dataset(writer) => writer.finish(),
            #[cfg(feature = "delta")]
            TableWriter::Delta(writer) => writer.finish().await.map(drop),
        }
    }
}

pub struct DatasetWriter {
    /// Where files are written: a hidden staging directory (local) or the target (remote).
    root: String,
    /// Local only: the staging directory, and the target it is renamed to.
    staging: Option<(PathBuf, PathBuf)>,
    partition_columns: Vec<usize>,
    /// The files' schema: the result's without the partition columns.
    file_schema: SchemaRef,
    metadata: Vec<(String, String)>,
    encoding: Encoding,
    max_rows_per_file: u64,
    /// Open files, the most recently written last: partition directory, writer, rows.
    open: Vec<(String, AtomicParquetWriter, u64)>,
    /// The next part number of each partition directory.
    parts: HashMap<String, usize>,
    /// Files completed (relative paths), to delete if the run fails in an object store.
    written: Vec<String>,
    finished: bool,
}

impl DatasetWriter {
    fn create(
        out: &Path,
        layout: &Layout,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
    ) -> Result<DatasetWriter> {
        let mut partition_columns = Vec::new();
        for name in &layout.partition_by {
            let index = schema.index_of(name).map_err(|_| {
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                anyhow::anyhow!(
                    "--partition-by {name}: the result has no such column (it has {})",
                    names.join(", ")
                )
            })?;
            if matches!(
                schema.field(index).data_type(),
                DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_)
            ) {
                bail!(
                    "--partition-by {name}: a {} column cannot name a directory",
                    schema.field(index).data_type()
                );
            }
            partition_columns.push(index);
        }
        if partition_columns.len() == schema.fields().len() {
            bail!(
                "--partition-by: every column of the result is a partition column; the files would have none"
            );
        }
        let kept = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(i, _)| !partition_columns.contains(i))
            .map(|(_, f)| f.clone());
        let file_schema = Arc::new(Schema::new_with_metadata(
            kept.collect::<Vec<_>>(),
            schema.metadata().clone(),
        ));
        let text = out.to_string_lossy().trim_end_matches('/').to_string();
        let (root, staging) = match Location::parse(Path::new(&text))? {
            Location::Local(target) => {
                let staging = staging_directory(&target)?;
                (
                    staging.to_string_lossy().into_owned(),
                    Some((staging, target)),
                )
            }
            Location::Remote(remote) => {
                ensure_empty_prefix(&remote)?;
                (text.clone(), None)
            }
        };
        Ok(DatasetWriter {
            root,
            staging,
            partition_columns,
            file_schema,
            metadata: with_marker_key(metadata),
            encoding,
            max_rows_per_file: layout.max_rows_per_file.unwrap_or(u64::MAX).max(1),
            open: Vec::new(),
            parts: HashMap::new(),
            written: Vec::new(),
            finished: false,
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        for (directory, rows) in self.split(batch)? {
            let file_columns: Vec<usize> = (0..batch.num_columns())
                .filter(|i| !self.partition_columns.contains(i))
                .collect();
            let rows = rows.project(&file_columns)?;
            let rows = RecordBatch::try_new(self.file_schema.clone(), rows.columns().to_vec())?;
            let mut offset = 0;
            while offset < rows.num_rows() {
                let room = self.room(&directory)?;
                let n = (rows.num_rows() - offset).min(room.min(usize::MAX as u64) as usize);
                let (_, writer, written) = self.open.last_mut().expect("room opened it");
                writer.write(&rows.slice(offset, n))?;
                *written += n as u64;
                offset += n;
            }
        }
        Ok(())
    }

    /// Rows of `batch` by partition directory (`k=v/k2=v2`), in order of first appearance.
    fn split(&self, batch: &RecordBatch) -> Result<Vec<(String, RecordBatch)>> {
        if self.partition_columns.is_empty() {
            return Ok(vec![(String::new(), batch.clone())]);
        }
        let values = self
            .partition_columns
            .iter()
            .map(|&i| {
                Ok(cast(batch.column(i), &DataType::Utf8)?
                    .as_string::<i32>()
                    .clone())
            })
            .collect::<Result<Vec<_>>>()?;
        let names: Vec<&String> = self
            .partition_columns
            .iter()
            .map(|&i| batch.schema_ref().field(i).name())
            .collect();
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for row in 0..batch.num_rows() {
            let mut parts = Vec::with_capacity(names.len());
            for (name, column) in names.iter().zip(&values) {
                let value = if column.is_null(row) {
                    NULL_PARTITION.to_string()
                } else {
                    escape(column.value(row))
                };
                let part = format!("{}={value}", escape(name));
                // Local file systems refuse longer names, with only "File name too long".
                if self.staging.is_some() && part.len() > MAX_NAME_BYTES {
                    let shown: String = column.value(row).chars().take(40).collect();
                    bail!(
                        "--partition-by {name}: the value {shown:?}... ({} bytes) makes a directory name of {} bytes; \
                         file systems allow {MAX_NAME_BYTES}",
                        column.value(row).len(),
                        part.len()
                    );
                }
                parts.push(part);
            }
            let directory = parts.join("/");
            let group = *index.entry(directory.clone()).or_insert_with(|| {
                groups.push((directory, Vec::new()));
                groups.len() - 1
            });
            groups[group].1.push(row as u32);
        }
        if groups.len() == 1 {
            return Ok(vec![(groups.pop().expect("one").0, batch.clone())]);
        }
        groups
            .into_iter()
            .map(|(d, rows)| Ok((d, take_record_batch(batch, &UInt32Array::from(rows))?)))
            .collect()
    }

    /// Make the file of `directory` the most recent open one, with room for at least one row,
    /// and say how many rows it has room for.
    fn room(&mut self, directory: &str) -> Result<u64> {
        if let Some(at) = self.open.iter().position(|(d, _, _)| d == directory) {
            let file = self.open.remove(at);
            self.open.push(file);
            let (_, _, written) = self.open.last().expect("pushed");
            if *written < self.max_rows_per_file {
                return Ok(self.max_rows_per_file - written);
            }
            self.close_last()?;
        } else if self.open.len() == MAX_OPEN_FILES {
            let oldest = self.open.remove(0);
            self.open.push(oldest);
            self.close_last()?;
        }
        let part = self.parts.entry(directory.to_string()).or_insert(0);
        let name = match directory {
            "" => format!("part-{part:05}.parquet"),
            _ => format!("{directory}/part-{part:05}.parquet"),
        };
        *part += 1;
        let path = PathBuf::from(format!("{}/{name}", self.root));
        if self.staging.is_some() {
            std::fs::create_dir_all(path.parent().expect("under the root"))?;
        }
        let writer = AtomicParquetWriter::with_encoding(
            &path,
            self.file_schema.clone(),
            self.metadata.clone(),
            self.encoding,
        )?;
        self.open.push((directory.to_string(), writer, 0));
        self.written.push(name);
        Ok(self.max_rows_per_file)
    }

    fn close_last(&mut self) -> Result<()> {
        let (_, writer, _) = self.open.pop().expect("a file is open");
        writer.finish()
    }

    /// Finish every file, mark the dataset complete, and (locally) move it into place.
    pub fn finish(mut self) -> Result<()> {
        while !self.open.is_empty() {
            self.close_last()?;
        }
        if self.written.is_empty() {
            // An empty result is still a dataset: one file with the schema and no rows.
            self.room("")?;
            self.close_last()?;
        }
        match &self.staging {
            Some((staging, target)) => publish(staging, target)?,
            None => storage::write_whole(Path::new(&format!("{}/_SUCCESS", self.root)), b"")?,
        }
        self.finished = true;
        Ok(())
    }
}

/// `metadata` with the entry that marks a dataset's files ([`keys::DATASET`]; see
/// [`ParquetInput::open`]).
fn with_marker_key(mut metadata: Vec<(String, String)>) -> Vec<(String, String)> {
    metadata.push((keys::DATASET.0.to_string(), keys::DATASET.1.to_string()));
    metadata
}

/// A new hidden directory beside `target` (which must not exist, or be an empty directory),
/// where a dataset is written before [`publish`] makes it `target`.
fn staging_directory(target: &Path) -> Result<PathBuf> {
    storage::refuse_input(target)?;
    if target.exists()
        && std::fs::read_dir(target)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "{} exists and is not an empty directory; a dataset is written to a new one",
            target.display()
        );
    }
    let staging = storage::partial_path(target)?;
    std::fs::create_dir(&staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    Ok(staging)
}

/// Mark the complete dataset in `staging` with `_SUCCESS` and rename it to `target`: readers
/// see all of it or none.
fn publish(staging: &Path, target: &Path) -> Result<()> {
    storage::refuse_input(target)?;
    storage::write_whole(&staging.join("_SUCCESS"), b"")?;
    if target.exists() {
        std::fs::remove_dir(target)
            .with_context(|| format!("cannot replace {}", target.display()))?;
    }
    std::fs::rename(staging, target)
        .with_context(|| format!("moving {} to {}", staging.display(), target.display()))
}

impl Drop for DatasetWriter {
    /// A dataset not finished is removed: the staging directory, or the objects written.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        self.open.clear(); // each unfinished file discards itself
        match &self.staging {
            Some((staging, _)) => drop(std::fs::remove_dir_all(staging)),
            None => {
                for name in &self.written {
                    if let Ok(Location::Remote(remote)) =
                        Location::parse(Path::new(&format!("{}/{name}", self.root)))
                    {
                        let (store, key) = (remote.store.clone(), remote.key.clone());
                        let _ = storage::block_on(async move { store.delete(&key).await });
                    }
                }
            }
        }
    }
}

/// A dataset is written under a prefix with nothing under it yet.
fn ensure_empty_prefix(remote: &Remote) -> Result<()> {
    let (store, prefix) = (remote.store.clone(), remote.key.clone());
    let first =
        storage::block_on(async move { store.list(Some(&prefix)).next().await.transpose() });
    if first
        .map_err(|e| storage::explain(remote.url.as_str(), e))?
        .is_some()
    {
        bail!(
            "{}: objects exist under this prefix; a dataset is written to an empty one",
            remote.url
        );
    }
    Ok(())
}

/// A query's result written as a dataset by the executors of a cluster (DataFusion's Parquet
/// sink, one task writing in the result's order), as the local writer lays it out: on a file
/// system, into a hidden directory beside the target that becomes the target only on
/// [`ExecutorDataset::publish`]; in an object store, under the prefix, each file its own
/// upload, `_SUCCESS` written on publish. Dropped unpublished, what was written is removed.
/// The executors write it, so a local target must be on a file system they share with us.
pub struct ExecutorDataset {
    place: Place,
    published: bool,
}

enum Place {
    Local { staging: PathBuf, target: PathBuf },
    Remote(Remote),
}

impl ExecutorDataset {
    pub fn create(out: &Path, layout: &Layout) -> Result<ExecutorDataset> {
        if out.to_str().is_some_and(|s| s.starts_with("delta:")) {
            bail!(
                "--out delta:...: Delta outputs are written by this process; not supported with --cluster"
            );
        }
        if layout.max_rows_per_file.is_some() || layout.mode != Mode::default() {
            bail!("--max-rows-per-file and --mode are not supported with --cluster");
        }
        let text = out.to_string_lossy().trim_end_matches('/').to_string();
        let place = match Location::parse(Path::new(&text))? {
            Location::Local(path) => {
                let target = storage::absolute(&path)?;
                Place::Local {
                    staging: staging_directory(&target)?,
                    target,
                }
            }
            Location::Remote(remote) => {
                ensure_empty_prefix(&remote)?;
                Place::Remote(remote)
            }
        };
        Ok(ExecutorDataset {
            place,
            published: false,
        })
    }

    /// Where the files go until published, as a directory URL.
    fn url(&self) -> String {
        match &self.place {
            Place::Local { staging, .. } => format!("{}/", staging.display()),
            Place::Remote(remote) => format!("{}/", remote.url.as_str().trim_end_matches('/')),
        }
    }

    /// Run `frame` on the cluster into the dataset, `metadata` in every footer, its files
    /// written as `encoding` says; returns the rows written.
    pub async fn write(
        &self,
        frame: DataFrame,
        layout: &Layout,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
    ) -> Result<u64> {
        let mut options = TableParquetOptions::default();
        options.global.compression = Some(encoding.codec.name().to_string());
        options.global.dictionary_enabled = Some(encoding.dictionary);
        options.global.max_row_group_size = super::write::ROW_GROUP_ROWS;
        options.key_value_metadata = with_marker_key(metadata)
            .into_iter()
            .map(|(k, v)| (k, Some(v)))
            .collect();
        let write = DataFrameWriteOptions::new()
            .with_single_file_output(false)
            .with_partition_by(layout.partition_by.clone());
        let batches = frame
            .write_parquet(&self.url(), write, Some(options))
            .await?;
        Ok(batches
            .iter()
            .map(|b| b.column(0).as_primitive::<UInt64Type>().value(0))
            .sum())
    }

    /// Run `frame` on the cluster with each of its partitions written by the task that
    /// computes it, to a file of its own (see [`SharesSink`]), encoded as
    /// [`TableWriter::create`] encodes, the columns of `copy` copied as stored; returns the
    /// rows written.
    pub async fn write_shares(
        &self,
        frame: DataFrame,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
        copy: Option<CopiedColumns>,
    ) -> Result<u64> {
        let schema = frame.schema().inner().clone();
        let metadata = with_marker_key(metadata);
        let sink = SharesSink::new(&self.url(), schema, metadata, encoding, copy);
        let (state, plan) = frame.into_parts();
        let insert = LogicalPlanBuilder::insert_into(
            plan,
            "output",
            provider_as_source(Arc::new(sink)),
            InsertOp::Append,
        )?;
        DataFrame::new(state, insert.build()?).collect().await?;
        // The rows the files hold, from their footers: what will be published, whatever the
        // tasks (a task run again after a lost executor) reported.
        Ok(self.input()?.num_rows())
    }

    /// What was written, opened to read back in file order.
    pub fn input(&self) -> Result<ParquetInput> {
        ParquetInput::open_unpublished("output", Path::new(&self.url()))
    }

    /// Register what was written as table `name` in `ctx` (a local session), to read it back.
    pub async fn register(&self, ctx: &SessionContext, name: &str) -> Result<()> {
        if let Place::Remote(remote) = &self.place {
            storage::register(ctx, remote)?;
        }
        ctx.register_parquet(name, &self.url(), ParquetReadOptions::default())
            .await?;
        Ok(())
    }

    pub fn publish(mut self) -> Result<()> {
        match &self.place {
            Place::Local { staging, target } => {
                // A task whose executor died mid-file left its partial file (hidden, ignored
                // by readers); Ballista ran the task again elsewhere.
                for entry in std::fs::read_dir(staging)? {
                    let entry = entry?;
                    if storage::is_partial(&entry.file_name().to_string_lossy()) {
                        std::fs::remove_file(entry.path())?;
                    }
                }
                publish(staging, target)?
            }
            Place::Remote(remote) => {
                storage::write_whole(Path::new(&format!("{}_SUCCESS", self.url())), b"")
                    .with_context(|| format!("marking {} complete", remote.url))?
            }
        }
        self.published = true;
        Ok(())
    }
}

impl Drop for ExecutorDataset {
    fn drop(&mut self) {
        if self.published {
            return;
        }
        match &self.place {
            Place::Local { staging, .. } => drop(std::fs::remove_dir_all(staging)),
            Place::Remote(remote) => {
                let (store, prefix) = (remote.store.clone(), remote.key.clone());
                let _ = storage::block_on(async move {
                    let written: Vec<_> = store.list(Some(&prefix)).collect().await;
                    for object in written.into_iter().flatten() {
                        let _ = store.delete(&object.location).await;
                    }
                });
            }
        }
    }
}

/// A partition directory's name or value as Hive and Spark escape it: `%XX` for the characters
/// that would break a path or a `key=value` pair.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_control() || "\"#%'*/:=?\\{[]^".contains(c) {
            for byte in c.to_string().bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}
