//! A Parquet input opened once: every file's footer is read and checked when it is opened, and
//! then shared by registration, the pair_id pass, lockstep reading and column copying.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{Int64Type, Schema, SchemaRef};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::{SortExpr, col};
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use datafusion::parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader, RowGroupMetaData};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use futures::TryStreamExt;

/// One Parquet file of an input, with its footer.
#[derive(Debug, Clone)]
struct InputFile {
    path: PathBuf,
    metadata: Arc<ParquetMetaData>,
}

/// A table's Parquet file, or directory of `*.parquet` files (read in path order, as
/// DataFusion reads them), checked and with every footer in memory.
#[derive(Debug, Clone)]
pub struct ParquetInput {
    /// The table's name, for messages.
    name: String,
    path: PathBuf,
    files: Vec<InputFile>,
}

impl ParquetInput {
    /// Open table `name` at `path`: it must exist and be Parquet (a file, or a directory of
    /// `*.parquet` files). A corrupt footer is an error here, before DataFusion reads it: its
    /// reader can panic on one.
    pub fn open(name: &str, path: &Path) -> Result<ParquetInput> {
        if !path.exists() {
            bail!("table {name}: {} does not exist", path.display());
        }
        let paths = match path.is_file() {
            true => vec![path.to_path_buf()],
            false => {
                let entries = std::fs::read_dir(path).with_context(|| format!("table {name}: cannot list {}", path.display()))?;
                let mut paths = Vec::new();
                for entry in entries {
                    let file = entry?.path();
                    if file.is_file() && file.extension().is_some_and(|e| e == "parquet") {
                        paths.push(file);
                    }
                }
                paths.sort();
                paths
            }
        };
        let mut files = Vec::with_capacity(paths.len());
        for path in paths {
            let metadata = Arc::new(read_footer(&path).with_context(|| format!("table {name}"))?);
            files.push(InputFile { path, metadata });
        }
        Ok(ParquetInput { name: name.to_string(), path: path.to_path_buf(), files })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The footer of a single-file input (None for a directory).
    pub fn single_file(&self) -> Option<(&Path, &Arc<ParquetMetaData>)> {
        match (self.path.is_file(), self.files.as_slice()) {
            (true, [file]) => Some((&file.path, &file.metadata)),
            _ => None,
        }
    }

    /// The value of key-value entry `key` in the (first) file's footer.
    pub fn key_value(&self, key: &str) -> Option<&str> {
        let entries = self.files.first()?.metadata.file_metadata().key_value_metadata()?;
        entries.iter().find(|e| e.key == key)?.value.as_deref()
    }

    /// Whether the input records that its rows ascend by `pair_id`: pairmetrics' key-value entry
    /// (see [`super::write::SORTED_BY`]), or Parquet `sorting_columns` naming pair_id first,
    /// ascending, in every row group (as Spark, DuckDB and pyarrow can write). A directory
    /// records nothing: the order across its files is not known.
    pub fn records_sorted_by_pair_id(&self) -> bool {
        self.single_file().is_some_and(|(_, metadata)| sorted_by_pair_id(metadata))
    }

    /// Register the input with `ctx` under its name, declared sorted by pair_id or not.
    pub async fn register(&self, ctx: &SessionContext, sorted_by_pair_id: bool) -> Result<()> {
        let mut url = self.path.to_string_lossy().into_owned();
        if self.path.is_dir() && !url.ends_with('/') {
            url.push('/');
        }
        let mut options = ParquetReadOptions::default();
        if sorted_by_pair_id {
            options.file_sort_order = vec![vec![SortExpr::new(col("pair_id"), true, true)]];
        }
        ctx.register_parquet(&self.name, &url, options)
            .await
            .with_context(|| format!("cannot read {} as Parquet", self.path.display()))?;
        Ok(())
    }

    /// Stream `columns` in file order, decoded on a thread of their own from the footers read
    /// at open, each column cast to its type in `schema` (the table as registered, so batches
    /// have the types a query over it sees).
    pub fn scan(&self, columns: &[&str], schema: &Schema, batch_size: usize) -> Result<SendableRecordBatchStream> {
        let fields = columns.iter().map(|c| schema.field_with_name(c).cloned()).collect::<Result<Vec<_>, _>>()?;
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let mut readers = Vec::with_capacity(self.files.len());
        for file in &self.files {
            let metadata = ArrowReaderMetadata::try_new(file.metadata.clone(), ArrowReaderOptions::new())?;
            let parquet_schema = metadata.parquet_schema();
            let roots: Vec<usize> = columns
                .iter()
                .map(|&name| {
                    let root = parquet_schema.root_schema().get_fields().iter().position(|f| f.name() == name);
                    root.ok_or_else(|| anyhow!("{} table {}: no column `{name}`", self.name, file.path.display()))
                })
                .collect::<Result<_>>()?;
            let mask = ProjectionMask::roots(parquet_schema, roots);
            let handle = File::open(&file.path).with_context(|| format!("cannot open {}", file.path.display()))?;
            let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(handle, metadata)
                .with_projection(mask)
                .with_batch_size(batch_size)
                .build()?;
            readers.push((file.path.clone(), reader));
        }
        let mut builder = RecordBatchReceiverStream::builder(schema.clone(), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            for (path, reader) in readers {
                for batch in reader {
                    let batch = batch.map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
                    let batch = conform(batch, &schema).map_err(|e| {
                        datafusion::error::DataFusionError::Execution(format!("reading {}: {e}", path.display()))
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
        let (mut rows, mut ascending, mut last, mut fingerprint) = (0u64, true, None::<i64>, 0u64);
        let (name, path) = (&self.name, self.path.display());
        while let Some(batch) = stream.try_next().await? {
            let ids = batch.column(0).as_primitive::<Int64Type>();
            if ids.null_count() > 0 {
                let row = rows + (0..ids.len()).find(|&i| ids.is_null(i)).unwrap_or(0) as u64;
                bail!("{name} table {path}: pair_id is NULL at row {row}");
            }
            for &id in ids.values() {
                if let Some(prev) = last {
                    if id == prev && ascending {
                        bail!("{name} table {path}: pair_id {id} appears twice (rows {} and {rows}); pair_id must be unique", rows - 1);
                    }
                    ascending &= id > prev;
                }
                last = Some(id);
                rows += 1;
                fingerprint = (fingerprint.rotate_left(5) ^ id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
        }
        Ok(KeyOrder { rows, ascending, fingerprint })
    }

    /// The Arrow schema of the first file (pair_id's type is checked against every table's).
    fn arrow_schema(&self) -> Result<SchemaRef> {
        let Some(first) = self.files.first() else {
            bail!("{} table {}: no *.parquet files", self.name, self.path.display());
        };
        Ok(ArrowReaderMetadata::try_new(first.metadata.clone(), ArrowReaderOptions::new())?.schema().clone())
    }
}

/// `batch`'s columns in `schema`'s order (a projection yields them in file order), each cast to
/// its type there where they differ (a directory's files may store a column as Utf8 in one and
/// LargeUtf8 in another).
fn conform(batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let column = batch.column_by_name(field.name()).expect("projected");
            match column.data_type() == field.data_type() {
                true => Ok(column.clone()),
                false => cast(column, field.data_type()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
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

impl KeyOrder {
    /// Both tables list the same pair_ids in the same order.
    pub fn same_sequence(&self, other: &KeyOrder) -> bool {
        (self.rows, self.fingerprint) == (other.rows, other.fingerprint)
    }
}

fn sorted_by_pair_id(metadata: &ParquetMetaData) -> bool {
    let file = metadata.file_metadata();
    let (key, value) = super::write::SORTED_BY;
    let recorded = file.key_value_metadata().is_some_and(|kv| kv.iter().any(|e| e.key == key && e.value.as_deref() == Some(value)));
    let schema = file.schema_descr();
    let leaf = (0..schema.num_columns()).find(|&i| schema.column(i).path().string() == "pair_id");
    let sorting = |group: &RowGroupMetaData| {
        group.sorting_columns().and_then(|c| c.first()).is_some_and(|c| Some(c.column_idx as usize) == leaf && !c.descending)
    };
    let groups = metadata.row_groups();
    recorded || (!groups.is_empty() && groups.iter().all(sorting))
}

/// The footer of the Parquet file at `path`, with its page index where it has one (column
/// copying needs the offset index). Checked first by hand, since a corrupt footer can make the
/// decoder panic.
fn read_footer(path: &Path) -> Result<ParquetMetaData> {
    const MAGIC: &[u8; 4] = b"PAR1";
    let fail = |why: String| anyhow!("{} is not a readable Parquet file: {why}", path.display());
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata()?.len();
    if size < 12 {
        return Err(fail(format!("{size} bytes, fewer than a Parquet file's header and footer")));
    }
    let (mut head, mut tail) = ([0u8; 4], [0u8; 8]);
    file.read_exact(&mut head)?;
    file.seek(SeekFrom::End(-8))?;
    file.read_exact(&mut tail)?;
    if &head != MAGIC || &tail[4..] != MAGIC {
        return Err(fail("no PAR1 magic at its start and end (truncated, or another format)".into()));
    }
    let footer = u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")) as u64;
    if footer + 12 > size {
        return Err(fail(format!("its footer claims {footer} bytes of metadata but the file has {size} (truncated?)")));
    }
    let decoded = std::panic::catch_unwind(|| {
        ParquetMetaDataReader::new().with_page_index_policy(PageIndexPolicy::Optional).parse_and_finish(&file)
    });
    match decoded {
        Ok(Ok(metadata)) => Ok(metadata),
        Ok(Err(e)) => Err(fail(e.to_string())),
        Err(_) => Err(fail("its metadata cannot be decoded".into())),
    }
}
