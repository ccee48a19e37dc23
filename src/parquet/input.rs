//! A Parquet input opened once: every file's footer is read and checked when it is opened, and
//! then shared by registration, the pair_id pass, lockstep reading and column copying.
//!
//! An input is a file, or a directory (an object-store prefix) of `*.parquet` files at any
//! depth, read in path order as DataFusion reads them. Directories named `key=value` on the
//! way to the files are Hive partitions: each key becomes a string column whose value is the
//! directory's, for every row of the files under it.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use bytes::Bytes;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, Schema, SchemaRef};
use datafusion::datasource::{ViewTable, provider_as_source};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::functions::expr_fn::nullif;
use datafusion::logical_expr::{LogicalPlanBuilder, SortExpr, col, ident, lit};
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use datafusion::parquet::errors::Result as ParquetResult;
use datafusion::parquet::file::metadata::{
    PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader, RowGroupMetaData,
};
use datafusion::parquet::file::reader::{ChunkReader, Length};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use futures::TryStreamExt;

use object_store::ObjectStoreExt;

use super::NULL_PARTITION;
use super::keys;
use crate::schema::{with_dictionary_items, with_dictionary_lists};
use crate::storage::{self, Location, RemoteFile};

/// The environment variable that lets a pairmetrics dataset without its `_SUCCESS` be read.
pub const READ_INCOMPLETE: &str = "PAIRMETRICS_READ_INCOMPLETE";

/// One Parquet file of an input, with its footer and its Hive partition values.
#[derive(Debug, Clone)]
struct InputFile {
    source: Source,
    metadata: Arc<ParquetMetaData>,
    /// None for a NULL value (a [`NULL_PARTITION`] directory).
    partition_values: Vec<Option<String>>,
}

/// Where a file's bytes are.
#[derive(Debug, Clone)]
pub enum Source {
    Local(PathBuf),
    Remote(RemoteFile),
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::Local(path) => path.display().to_string(),
            Source::Remote(file) => file.url().to_string(),
        }
    }

    /// The file opened for the synchronous Parquet reader.
    pub fn open(&self) -> Result<FileReader> {
        Ok(match self {
            Source::Local(path) => FileReader::Local(
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
            ),
            Source::Remote(file) => FileReader::Remote(file.clone()),
        })
    }
}

/// A local file or an object, read by ranges.
pub enum FileReader {
    Local(File),
    Remote(RemoteFile),
}

impl Length for FileReader {
    fn len(&self) -> u64 {
        match self {
            FileReader::Local(file) => file.len(),
            FileReader::Remote(file) => file.len(),
        }
    }
}

impl ChunkReader for FileReader {
    type T = Box<dyn Read + Send>;

    fn get_read(&self, start: u64) -> ParquetResult<Self::T> {
        Ok(match self {
            FileReader::Local(file) => Box::new(file.get_read(start)?),
            FileReader::Remote(file) => Box::new(file.get_read(start)?),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> ParquetResult<Bytes> {
        match self {
            FileReader::Local(file) => file.get_bytes(start, length),
            FileReader::Remote(file) => file.get_bytes(start, length),
        }
    }
}

/// A table's Parquet file, or directory of `*.parquet` files, checked and with every footer in
/// memory.
#[derive(Debug, Clone)]
pub struct ParquetInput {
    /// The table's name, for messages.
    name: String,
    path: PathBuf,
    location: Location,
    /// Whether `path` is one file (not a directory or prefix).
    is_file: bool,
    /// Hive partition keys, outermost first (every file has a value for each).
    partitions: Vec<String>,
    files: Vec<InputFile>,
}

impl ParquetInput {
    /// Open table `name` at `path` (a local path or a URL): it must exist and be Parquet (a
    /// file, or a directory of `*.parquet` files). A corrupt footer is an error here, before
    /// DataFusion reads it: its reader can panic on one.
    ///
    /// A directory whose files say they belong to a pairmetrics dataset must have the
    /// dataset's `_SUCCESS` marker: without it the run that wrote it did not finish (in an
    /// object store its files are there, but not all of them). `PAIRMETRICS_READ_INCOMPLETE=1`
    /// reads such a dataset anyway, with a warning.
    pub fn open(name: &str, path: &Path) -> Result<ParquetInput> {
        let input = Self::open_unpublished(name, path)?;
        storage::note_input(path);
        if input.is_unfinished_dataset()? {
            let what = format!(
                "table {name}: {} is a pairmetrics dataset without its _SUCCESS marker: the run writing it did not finish, \
                 and rows may be missing",
                path.display()
            );
            match std::env::var_os(READ_INCOMPLETE).is_some_and(|v| v == "1") {
                true => eprintln!("warning: {what} (read anyway, as {READ_INCOMPLETE}=1 asks)"),
                false => bail!(
                    "{what}; write it again, or set {READ_INCOMPLETE}=1 to read what is there"
                ),
            }
        }
        Ok(input)
    }

    /// [`Self::open`] for a dataset being written: no completion marker is asked for, and it is
    /// not noted as an input (which its writer could then not complete).
    pub fn open_unpublished(name: &str, path: &Path) -> Result<ParquetInput> {
        let location = Location::parse(path)?;
        let (is_file, listed) = match &location {
            Location::Local(local) => list_local(name, local)?,
            Location::Remote(remote) => list_remote(name, remote)?,
        };
        let partitions = partition_keys(name, path, &listed)?;
        let mut files = Vec::with_capacity(listed.len());
        for (source, relative) in listed {
            let metadata = Arc::new(read_footer(&source).with_context(|| format!("table {name}"))?);
            let partition_values = hive_partitions(&relative)
                .into_iter()
                .map(|(_, v)| (v != NULL_PARTITION).then_some(v))
                .collect();
            files.push(InputFile {
                source,
                metadata,
                partition_values,
            });
        }
        Ok(ParquetInput {
            name: name.to_string(),
            path: path.to_path_buf(),
            location,
            is_file,
            partitions,
            files,
        })
    }

    /// A directory of files from a pairmetrics dataset ([`keys::DATASET`]) with no `_SUCCESS`.
    fn is_unfinished_dataset(&self) -> Result<bool> {
        let (key, _) = keys::DATASET;
        let marked = |f: &InputFile| {
            f.metadata
                .file_metadata()
                .key_value_metadata()
                .is_some_and(|kv| kv.iter().any(|e| e.key == key))
        };
        if self.is_file || !self.files.iter().any(marked) {
            return Ok(false);
        }
        let marker = format!(
            "{}/_SUCCESS",
            self.path.to_string_lossy().trim_end_matches('/')
        );
        Ok(!storage::exists(Path::new(&marker)).with_context(|| format!("table {}", self.name))?)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many rows its files hold, from their footers.
    pub fn num_rows(&self) -> u64 {
        let rows = self
            .files
            .iter()
            .map(|f| f.metadata.file_metadata().num_rows());
        rows.map(|n| n.max(0) as u64).sum()
    }

    /// The file of a single-file input, and its footer (None for a directory).
    pub fn single_file(&self) -> Option<(&Source, &Arc<ParquetMetaData>)> {
        match (self.is_file, self.files.as_slice()) {
            (true, [file]) => Some((&file.source, &file.metadata)),
            _ => None,
        }
    }

    /// The value of key-value entry `key` in the (first) file's footer.
    pub fn key_value(&self, key: &str) -> Option<&str> {
        let entries = self
            .files
            .first()?
            .metadata
            .file_metadata()
            .key_value_metadata()?;
        entries.iter().find(|e| e.key == key)?.value.as_deref()
    }

    /// Whether the input records that its rows ascend by `pair_id`: pairmetrics' key-value entry
    /// (see [`super::write::SORTED_BY`]), or Parquet `sorting_columns` naming pair_id first,
    /// ascending, in every row group (as Spark, DuckDB and pyarrow can write). A directory
    /// records nothing: the order across its files is not known.
    pub fn records_sorted_by_pair_id(&self) -> bool {
        self.single_file()
            .is_some_and(|(_, metadata)| sorted_by_pair_id(metadata))
    }

    /// Register the input with `ctx` under its name, declared sorted by pair_id or not.
    pub async fn register(&self, ctx: &SessionContext, sorted_by_pair_id: bool) -> Result<()> {
        let mut url = match &self.location {
            Location::Local(path) => path.to_string_lossy().into_owned(),
            Location::Remote(remote) => {
                storage::register(ctx, remote)?;
                remote.url.to_string()
            }
        };
        if !self.is_file && !url.ends_with('/') {
            url.push('/');
        }
        let mut options = ParquetReadOptions::default().table_partition_cols(
            self.partitions
                .iter()
                .map(|k| (k.clone(), DataType::Utf8))
                .collect(),
        );
        // Callers declare nothing on a cluster (see session::may_declare_sorted).
        if sorted_by_pair_id {
            options.file_sort_order = vec![vec![SortExpr::new(col("pair_id"), true, true)]];
        }
        ctx.register_parquet(&self.name, &url, options)
            .await
            .with_context(|| format!("cannot read {} as Parquet", self.path.display()))?;
        if self
            .files
            .iter()
            .any(|f| f.partition_values.contains(&None))
        {
            self.read_null_partitions_as_null(ctx).await?;
        }
        Ok(())
    }

    /// DataFusion reads a [`NULL_PARTITION`] directory as that string: put a view over the
    /// registered table that reads it as NULL, as Spark and Hive do.
    async fn read_null_partitions_as_null(&self, ctx: &SessionContext) -> Result<()> {
        let listing = ctx.table_provider(self.name.as_str()).await?;
        let schema = listing.schema();
        let columns = schema.fields().iter().map(|f| {
            let column = ident(f.name());
            match self.partitions.contains(f.name()) {
                true => nullif(column, lit(NULL_PARTITION)).alias(f.name()),
                false => column,
            }
        });
        let plan = LogicalPlanBuilder::scan(self.name.as_str(), provider_as_source(listing), None)?
            .project(columns)?
            .build()?;
        ctx.deregister_table(self.name.as_str())?;
        ctx.register_table(self.name.as_str(), Arc::new(ViewTable::new(plan, None)))?;
        Ok(())
    }

    /// After [`Self::register`]: let a one-file table of fewer row groups than the session has
    /// threads (pyarrow's usual file) be read by all of them, each a share of its rows
    /// (`parquet/split.rs`). Its rows then no longer come in file order, which `sql` never
    /// promised; jobs that read a table in file order (exports, the resources) do not call this.
    pub async fn share_rows_among_threads(&self, ctx: &SessionContext) -> Result<()> {
        let Some((_, metadata)) = self.single_file() else {
            return Ok(());
        };
        let rows = metadata
            .row_groups()
            .iter()
            .map(|g| g.num_rows().max(0) as u64)
            .collect();
        let partitions = ctx.state().config().target_partitions();
        let listing = ctx.table_provider(self.name.as_str()).await?;
        if let Some(split) = super::split::SplitRowGroups::wrap(listing, rows, partitions) {
            ctx.deregister_table(self.name.as_str())?;
            ctx.register_table(self.name.as_str(), Arc::new(split))?;
        }
        Ok(())
    }

    /// Stream `columns` in file order, decoded on a thread of their own from the footers read
    /// at open, each column cast to its type in `schema` (the table as registered, so batches
    /// have the types a query over it sees).
    pub fn scan(
        &self,
        columns: &[&str],
        schema: &Schema,
        batch_size: usize,
    ) -> Result<SendableRecordBatchStream> {
        self.scan_rows(columns, schema, batch_size, 0..u64::MAX)
    }

    /// Like [`scan`](Self::scan), for the input's rows `rows` only (counted across its files in
    /// path order): the row groups outside them are not read, and the rows of the edge groups
    /// outside them are skipped.
    pub fn scan_rows(
        &self,
        columns: &[&str],
        schema: &Schema,
        batch_size: usize,
        rows: Range<u64>,
    ) -> Result<SendableRecordBatchStream> {
        let fields = columns
            .iter()
            .map(|c| schema.field_with_name(c).cloned())
            .collect::<Result<Vec<_>, _>>()?;
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let in_files: Vec<&str> = columns
            .iter()
            .copied()
            .filter(|c| !self.partitions.iter().any(|k| k == c))
            .collect();
        let mut readers = Vec::with_capacity(self.files.len());
        let mut first_row = 0u64;
        for file in &self.files {
            let file_rows =
                first_row..first_row + file.metadata.file_metadata().num_rows().max(0) as u64;
            first_row = file_rows.end;
            let wanted = rows.start.max(file_rows.start)..rows.end.min(file_rows.end);
            if wanted.is_empty() {
                continue;
            }
            let mut metadata =
                ArrowReaderMetadata::try_new(file.metadata.clone(), ArrowReaderOptions::new())?;
            if let Some(hint) = dictionary_hint(metadata.schema(), &schema) {
                let options = ArrowReaderOptions::new().with_schema(hint);
                metadata = ArrowReaderMetadata::try_new(file.metadata.clone(), options)?;
            }
            let parquet_schema = metadata.parquet_schema();
            let roots: Vec<usize> = in_files
                .iter()
                .map(|&name| {
                    let root = parquet_schema
                        .root_schema()
                        .get_fields()
                        .iter()
                        .position(|f| f.name() == name);
                    root.ok_or_else(|| {
                        anyhow!(
                            "{} table {}: no column `{name}`",
                            self.name,
                            file.source.name()
                        )
                    })
                })
                .collect::<Result<_>>()?;
            let mask = ProjectionMask::roots(parquet_schema, roots);
            let mut reader =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file.source.open()?, metadata)
                    .with_projection(mask)
                    .with_batch_size(batch_size);
            if wanted != file_rows {
                let in_file = wanted.start - file_rows.start..wanted.end - file_rows.start;
                let groups = file.metadata.row_groups();
                let group_rows: Vec<u64> =
                    groups.iter().map(|g| g.num_rows().max(0) as u64).collect();
                let plan = super::split::access_plan(&group_rows, in_file.start, in_file.end);
                reader = reader.with_row_groups(plan.row_group_indexes());
                if let Some(selection) = plan.into_overall_row_selection(groups)? {
                    reader = reader.with_row_selection(selection);
                }
            }
            let reader = reader.build()?;
            let partitions: Vec<(String, Option<String>)> = self
                .partitions
                .iter()
                .cloned()
                .zip(file.partition_values.iter().cloned())
                .collect();
            readers.push((file.source.name(), partitions, reader));
        }
        let mut builder = RecordBatchReceiverStream::builder(schema.clone(), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            for (path, partitions, reader) in readers {
                for batch in reader {
                    let batch = batch
                        .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
                    let batch = conform(batch, &partitions, &schema).map_err(|e| {
                        datafusion::error::DataFusionError::Execution(format!(
                            "reading {path}: {e}"
                        ))
                    })?;
                    if tx.blocking_send(Ok(batch)).is_err() {
                        return Ok(()); // the reader of the stream is gone
                    }
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }

    /// How the input's `pair_id` column is ordered, from one pass over that column alone; a
    /// NULL or (in sorted data) a repeated id is an error that names the row.
    pub async fn key_order(&self) -> Result<KeyOrder> {
        let schema = self.arrow_schema()?;
        let mut stream = self.scan(&["pair_id"], &schema, 8192)?;
        let what = format!("{} table {}", self.name, self.path.display());
        let mut order = KeyOrderReader::default();
        while let Some(batch) = stream.try_next().await? {
            order.add(batch.column(0).as_primitive::<Int64Type>(), &what)?;
        }
        Ok(order.finish())
    }

    /// The table's schema as its readers see it: the first file's columns, then the Hive
    /// partition columns (strings).
    pub fn schema(&self) -> Result<SchemaRef> {
        let mut fields: Vec<_> = self.arrow_schema()?.fields().iter().cloned().collect();
        fields.extend(self.partitions.iter().map(|k| {
            Arc::new(datafusion::arrow::datatypes::Field::new(
                k,
                DataType::Utf8,
                true,
            ))
        }));
        Ok(Arc::new(Schema::new(fields)))
    }

    /// The Arrow schema of the first file (pair_id's type is checked against every table's).
    fn arrow_schema(&self) -> Result<SchemaRef> {
        let Some(first) = self.files.first() else {
            bail!(
                "{} table {}: no *.parquet files",
                self.name,
                self.path.display()
            );
        };
        Ok(
            ArrowReaderMetadata::try_new(first.metadata.clone(), ArrowReaderOptions::new())?
                .schema()
                .clone(),
        )
    }
}

/// `batch`'s columns in `schema`'s order (a projection yields them in file order), each cast to
/// its type there where they differ (a directory's files may store a column as Utf8 in one and
/// LargeUtf8 in another); a Hive partition column is its file's value on every row.
/// The file's schema with the string lists that `wanted` takes dictionary-encoded read so: the
/// Parquet reader then hands over each column chunk's dictionary and keys, copying no string.
/// None when `wanted` takes none so.
fn dictionary_hint(file: &Schema, wanted: &Schema) -> Option<SchemaRef> {
    let hint = with_dictionary_lists(file, |f| {
        (wanted.field_with_name(f.name()))
            .is_ok_and(|w| w.data_type() == &with_dictionary_items(f.data_type()))
    });
    (hint != *file).then(|| Arc::new(hint))
}

fn conform(
    batch: RecordBatch,
    partitions: &[(String, Option<String>)],
    schema: &SchemaRef,
) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            if let Some((_, value)) = partitions.iter().find(|(k, _)| k == field.name()) {
                let column: ArrayRef = Arc::new(StringArray::from_iter(std::iter::repeat_n(
                    value,
                    batch.num_rows(),
                )));
                return cast(&column, field.data_type());
            }
            let column = batch.column_by_name(field.name()).expect("projected");
            match column.data_type() == field.data_type() {
                true => Ok(column.clone()),
                false => cast(column, field.data_type()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options =
        datafusion::arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &options,
    )?)
}

/// How a table's `pair_id` column is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyOrder {
    pub rows: u64,
    /// Strictly increasing in file order: the table can be merge-joined without sorting.
    pub ascending: bool,
    /// A hash of the whole id sequence in file order: two tables with the same rows and
    /// fingerprint list the same pairs in the same order (and the lockstep reader checks that).
    pub fingerprint: u64,
}

/// A table's [`KeyOrder`], read from its pair_id column batch after batch.
#[derive(Debug, Default)]
pub struct KeyOrderReader {
    rows: u64,
    descends_somewhere: bool,
    last: Option<i64>,
    fingerprint: u64,
}

impl KeyOrderReader {
    /// The next ids; a NULL or (in sorted data) a repeated id is an error that names the row,
    /// `what` the table ("pairs table pairs.parquet").
    pub fn add(&mut self, ids: &Int64Array, what: &str) -> Result<()> {
        if let Some(row) = (0..ids.len()).find(|&i| ids.is_null(i)) {
            bail!(
                "{what}: pair_id is NULL at row {} (0-based)",
                self.rows + row as u64
            );
        }
        for &id in ids.values() {
            if let Some(prev) = self.last {
                if id == prev && !self.descends_somewhere {
                    bail!(
                        "{what}: pair_id {id} appears twice (rows {} and {}); pair_id must be unique",
                        self.rows - 1,
                        self.rows
                    );
                }
                self.descends_somewhere |= id <= prev;
            }
            self.last = Some(id);
            self.rows += 1;
            self.fingerprint =
                (self.fingerprint.rotate_left(5) ^ id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        Ok(())
    }

    pub fn finish(self) -> KeyOrder {
        KeyOrder {
            rows: self.rows,
            ascending: !self.descends_somewhere,
            fingerprint: self.fingerprint,
        }
    }
}

impl KeyOrder {
    /// Both tables list the same pair_ids in the same order.
    pub fn same_sequence(&self, other: &KeyOrder) -> bool {
        (self.rows, self.fingerprint) == (other.rows, other.fingerprint)
    }
}

fn sorted_by_pair_id(metadata: &ParquetMetaData) -> bool {
    let file = metadata.file_metadata();
    let (key, value) = keys::SORTED_BY;
    let recorded = file.key_value_metadata().is_some_and(|kv| {
        kv.iter()
            .any(|e| e.key == key && e.value.as_deref() == Some(value))
    });
    let schema = file.schema_descr();
    let leaf = (0..schema.num_columns()).find(|&i| schema.column(i).path().string() == "pair_id");
    let sorting = |group: &RowGroupMetaData| {
        group
            .sorting_columns()
            .and_then(|c| c.first())
            .is_some_and(|c| Some(c.column_idx as usize) == leaf && !c.descending)
    };
    let groups = metadata.row_groups();
    recorded || (!groups.is_empty() && groups.iter().all(sorting))
}

/// The footer of the Parquet file at `source`, with its page index where it has one (column
/// copying needs the offset index). Checked first by hand, since a corrupt footer can make the
/// decoder panic.
fn read_footer(source: &Source) -> Result<ParquetMetaData> {
    const MAGIC: &[u8; 4] = b"PAR1";
    let name = source.name();
    let fail = |why: String| anyhow!("{name} is not a readable Parquet file: {why}");
    let file = source.open()?;
    let size = file.len();
    if size < 12 {
        return Err(fail(format!(
            "{size} bytes, fewer than a Parquet file's header and footer"
        )));
    }
    let (head, tail) = (file.get_bytes(0, 4)?, file.get_bytes(size - 8, 8)?);
    if &head[..] != MAGIC || &tail[4..] != MAGIC {
        return Err(fail(
            "no PAR1 magic at its start and end (truncated, or another format)".into(),
        ));
    }
    let footer = u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")) as u64;
    if footer + 12 > size {
        return Err(fail(format!(
            "its footer claims {footer} bytes of metadata but the file has {size} (truncated?)"
        )));
    }
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetMetaDataReader::new()
            .with_page_index_policy(PageIndexPolicy::Optional)
            .parse_and_finish(&file)
    }));
    match decoded {
        Ok(Ok(metadata)) => Ok(metadata),
        Ok(Err(e)) => Err(fail(e.to_string())),
        Err(_) => Err(fail("its metadata cannot be decoded".into())),
    }
}

/// A local input's files, with their paths relative to it: the file itself, or every
/// `*.parquet` file under the directory (hidden and `_`-prefixed names skipped, as Spark and
/// DataFusion skip them), in path order.
fn list_local(name: &str, path: &Path) -> Result<(bool, Vec<(Source, String)>)> {
    if !path.exists() {
        bail!("table {name}: {} does not exist", path.display());
    }
    if path.is_file() {
        return Ok((
            true,
            vec![(Source::Local(path.to_path_buf()), String::new())],
        ));
    }
    let mut found = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .with_context(|| format!("table {name}: cannot list {}", dir.display()))?;
        for entry in entries {
            let file = entry?.path();
            let Some(base) = file.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if base.starts_with('.') || base.starts_with('_') {
                continue;
            }
            if file.is_dir() {
                dirs.push(file);
            } else if base.ends_with(".parquet") {
                let relative = file
                    .strip_prefix(path)
                    .expect("under the input")
                    .to_string_lossy()
                    .into_owned();
                found.push((Source::Local(file), relative));
            }
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    Ok((false, found))
}

/// A remote input's objects: the object at its key, or else every `*.parquet` object under the
/// key as a prefix, in key order.
fn list_remote(name: &str, remote: &storage::Remote) -> Result<(bool, Vec<(Source, String)>)> {
    // A URL ending in `/` (or a bucket's root) names a prefix, never an object.
    if !remote.url.path().ends_with('/') {
        let (store, key) = (remote.store.clone(), remote.key.clone());
        match storage::block_on(async move { store.head(&key).await }) {
            Ok(meta) => {
                return Ok((
                    true,
                    vec![(
                        Source::Remote(RemoteFile::new(remote, meta.location, meta.size)),
                        String::new(),
                    )],
                ));
            }
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => {
                return Err(
                    storage::explain(remote.url.as_str(), e).context(format!("table {name}"))
                );
            }
        }
    }
    let (store, prefix) = (remote.store.clone(), remote.key.clone());
    let listed = storage::block_on(async move {
        store.list(Some(&prefix)).try_collect::<Vec<_>>().await
    })
    .map_err(|e| storage::explain(remote.url.as_str(), e).context(format!("table {name}")))?;
    let mut found = Vec::new();
    for meta in listed {
        let relative = meta.location.prefix_match(&remote.key).map(|parts| {
            parts
                .map(|p| p.as_ref().to_string())
                .collect::<Vec<_>>()
                .join("/")
        });
        let relative = relative.unwrap_or_else(|| meta.location.to_string());
        let hidden = relative
            .split('/')
            .any(|part| part.starts_with('.') || part.starts_with('_'));
        if !hidden && relative.ends_with(".parquet") {
            found.push((
                Source::Remote(RemoteFile::new(remote, meta.location, meta.size)),
                relative,
            ));
        }
    }
    if found.is_empty() {
        bail!(
            "table {name}: {}: no such object, and no *.parquet objects under it",
            remote.url
        );
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    Ok((false, found))
}

/// The `key=value` directories of a path relative to its input, outermost first.
fn hive_partitions(relative: &str) -> Vec<(String, String)> {
    let mut parts: Vec<&str> = relative.split('/').collect();
    parts.pop(); // the file name
    parts
        .iter()
        .filter_map(|part| part.split_once('='))
        .map(|(k, v)| (k.to_string(), unescape(v)))
        .collect()
}

/// A Hive partition value as written: `%XX` escapes decoded (as Spark and DataFusion write them).
fn unescape(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The partition keys every file of an input has, in the same order; an input whose files
/// disagree is an error naming two of them.
fn partition_keys(name: &str, path: &Path, files: &[(Source, String)]) -> Result<Vec<String>> {
    let keys = |relative: &str| {
        hive_partitions(relative)
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    let Some((_, first)) = files.first() else {
        return Ok(vec![]);
    };
    let expected = keys(first);
    if let Some((_, other)) = files.iter().find(|(_, r)| keys(r) != expected) {
        bail!(
            "table {name}: {} mixes partition layouts: {first} is under {:?} but {other} under {:?}",
            path.display(),
            expected,
            keys(other)
        );
    }
    Ok(expected)
}
