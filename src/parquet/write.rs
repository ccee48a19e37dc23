//! Parquet output that is never seen half-written: batches go to an [`Output`] (a temporary
//! file renamed over the target once complete and synced, or a multipart upload completed only
//! at the end), encoded column by column in parallel.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Int64Type, SchemaRef};
use datafusion::parquet::arrow::ArrowSchemaConverter;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory,
    compute_leaves,
};
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::errors::Result as ParquetResult;
use datafusion::parquet::file::metadata::KeyValue;
use datafusion::parquet::file::properties::{EnabledStatistics, WriterProperties};
use datafusion::parquet::file::writer::SerializedFileWriter;

use super::ParquetInput;
use super::copy::Copier;
use crate::storage::Output;

/// A row group is flushed at this many encoded bytes or rows, whichever comes first: about
/// 130,000 pairs of Europarl-like text. DataFusion splits a file between cores by row group,
/// so a million pairs in a handful of row groups would leave a core idle for part of a scan.
const ROW_GROUP_BYTES: usize = 16 << 20;
pub(super) const ROW_GROUP_ROWS: usize = 128 << 10;

/// How output Parquet is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Codec {
    /// zstd level 1: the smallest files of the four (about 2/3 the size of snappy's).
    Zstd,
    /// What pyarrow, Spark and DuckDB write by default: about 1/3 less CPU than zstd.
    Snappy,
    /// LZ4_RAW: as fast as snappy here, a little larger; needs Spark 3.4+ to read.
    Lz4,
    /// No compression.
    None,
}

impl Codec {
    /// The name DataFusion's Parquet options use.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Zstd => "zstd(1)",
            Codec::Snappy => "snappy",
            Codec::Lz4 => "lz4_raw",
            Codec::None => "uncompressed",
        }
    }

    fn parquet(self) -> Result<Compression> {
        Ok(match self {
            Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(1)?),
            Codec::Snappy => Compression::SNAPPY,
            Codec::Lz4 => Compression::LZ4_RAW,
            Codec::None => Compression::UNCOMPRESSED,
        })
    }
}

/// How a file's pages are written: compressed with `codec`, with dictionary pages or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    pub codec: Codec,
    pub dictionary: bool,
}

impl Encoding {
    /// For a table read many times (an import, a corpus, a query's result): zstd and dictionary
    /// pages, the smallest files and the fastest to read.
    pub const COMPACT: Encoding = Encoding {
        codec: Codec::Zstd,
        dictionary: true,
    };

    /// As fast as it can be written: compressed with `codec`, without dictionary pages (hashing
    /// every token as it is written cost a third of `score`'s CPU; files are ~1.4x larger).
    pub fn fast(codec: Codec) -> Encoding {
        Encoding {
            codec,
            dictionary: false,
        }
    }
}

pub struct AtomicParquetWriter {
    /// The target, for messages.
    target: String,
    writer: Option<Open>,
}

/// The file being written and the row group being encoded.
struct Open {
    row_group_bytes: usize,
    /// How the file is written (kept to start it again, see `copy_columns`).
    props: WriterProperties,
    file: SerializedFileWriter<Output>,
    columns: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    row_group: Option<RowGroup>,
    /// Columns copied from an input file; its row groups then decide where the output's end.
    copier: Option<Copier>,
    /// Whether the rows written so far ascend by pair_id (when there is one).
    ids: AscendingIds,
}

use super::keys::SORTED_BY;

/// Watches `pair_id` as batches are written: the file records that it is sorted only if every
/// id was non-NULL and greater than the one before.
#[derive(Debug, Clone, Copy)]
struct AscendingIds {
    column: Option<usize>,
    last: Option<i64>,
    ascending: bool,
}

impl AscendingIds {
    fn new(schema: &SchemaRef) -> Self {
        let column = schema
            .index_of("pair_id")
            .ok()
            .filter(|&i| schema.field(i).data_type() == &DataType::Int64);
        AscendingIds {
            column,
            last: None,
            ascending: column.is_some(),
        }
    }

    fn see(&mut self, batch: &RecordBatch) {
        let Some(column) = self.column.filter(|_| self.ascending) else {
            return;
        };
        let ids = batch.column(column).as_primitive::<Int64Type>();
        if ids.null_count() > 0 {
            self.ascending = false;
            return;
        }
        for &id in ids.values() {
            if self.last.is_some_and(|last| id <= last) {
                self.ascending = false;
                return;
            }
            self.last = Some(id);
        }
    }
}

/// A row group's leaf columns, each encoded and compressed on its own thread (the token lists
/// of src and tgt are most of the work): writing is not one core's serial job.
struct RowGroup {
    columns: Vec<ColumnThread>,
    rows: usize,
}

struct ColumnThread {
    leaves: crossbeam_channel::Sender<ArrowLeafColumn>,
    encoded_bytes: Arc<AtomicUsize>,
    thread: JoinHandle<ParquetResult<ArrowColumnChunk>>,
}

impl ColumnThread {
    fn spawn(mut writer: ArrowColumnWriter) -> Self {
        // A few batches of slack, so a column that is briefly slower does not stall the others.
        let (leaves, queue) = crossbeam_channel::bounded::<ArrowLeafColumn>(4);
        let encoded_bytes = Arc::new(AtomicUsize::new(0));
        let bytes = encoded_bytes.clone();
        let thread = std::thread::spawn(move || {
            for leaf in queue {
                writer.write(&leaf)?;
                bytes.store(writer.get_estimated_total_bytes(), Ordering::Relaxed);
            }
            writer.close()
        });
        ColumnThread {
            leaves,
            encoded_bytes,
            thread,
        }
    }

    fn finish(self) -> ParquetResult<ArrowColumnChunk> {
        drop(self.leaves);
        self.thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl Open {
    /// Start writing `target`: ArrowWriter writes the header and keeps the Arrow schema for
    /// the footer; row groups are then written column by column in parallel.
    fn start(target: &Path, schema: SchemaRef, props: WriterProperties) -> Result<Open> {
        let file = Output::create(target)?;
        let (file, columns) = ArrowWriter::try_new(file, schema.clone(), Some(props.clone()))?
            .into_serialized_writer()?;
        let ids = AscendingIds::new(&schema);
        Ok(Open {
            row_group_bytes: ROW_GROUP_BYTES,
            props,
            file,
            columns,
            schema,
            row_group: None,
            copier: None,
            ids,
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.ids.see(batch);
        if self.copier.is_none() {
            self.encode(batch)?;
            let row_group = self.row_group.as_ref().expect("started by encode");
            let encoded: usize = row_group
                .columns
                .iter()
                .map(|c| c.encoded_bytes.load(Ordering::Relaxed))
                .sum();
            if encoded >= self.row_group_bytes || row_group.rows >= ROW_GROUP_ROWS {
                self.flush()?;
            }
            return Ok(());
        }
        let mut offset = 0;
        while offset < batch.num_rows() {
            let copier = self.copier.as_mut().expect("checked above");
            let rows = copier.rows_left()?.min(batch.num_rows() - offset);
            let complete = copier.wrote(rows);
            self.encode(&batch.slice(offset, rows))?;
            offset += rows;
            if complete {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Send the columns of `batch` that are not copied to their encoding threads.
    fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.row_group.is_none() {
            let index = self.file.flushed_row_groups().len();
            let writers = self
                .columns
                .create_column_writers(index)?
                .into_iter()
                .enumerate();
            let copied = |leaf: usize| self.copier.as_ref().is_some_and(|c| c.is_copied_leaf(leaf));
            let columns = writers
                .filter(|(leaf, _)| !copied(*leaf))
                .map(|(_, w)| ColumnThread::spawn(w))
                .collect();
            self.row_group = Some(RowGroup { columns, rows: 0 });
        }
        let row_group = self.row_group.as_mut().expect("started above");
        row_group.rows += batch.num_rows();
        let mut columns = row_group.columns.iter();
        for (index, (field, array)) in self.schema.fields().iter().zip(batch.columns()).enumerate()
        {
            if self
                .copier
                .as_ref()
                .is_some_and(|c| c.is_copied_field(index))
            {
                continue;
            }
            for leaf in compute_leaves(field, array)? {
                let column = columns.next().expect("a writer per leaf");
                if column.leaves.send(leaf).is_err() {
                    // The column's thread stopped on an error: flushing reports it.
                    self.flush()?;
                    anyhow::bail!(
                        "internal error: a Parquet column writer stopped without an error"
                    );
                }
            }
        }
        Ok(())
    }

    /// Close the row group in progress, if any, and append it to the file.
    fn flush(&mut self) -> Result<()> {
        let Some(row_group) = self.row_group.take() else {
            return Ok(());
        };
        let chunks: Vec<ArrowColumnChunk> = row_group
            .columns
            .into_iter()
            .map(ColumnThread::finish)
            .collect::<ParquetResult<_>>()?;
        let mut chunks = chunks.into_iter();
        let leaves = self.file.schema_descr().num_columns();
        let mut appender = self.file.next_row_group()?;
        for leaf in 0..leaves {
            match &self.copier {
                Some(copier) if copier.is_copied_leaf(leaf) => {
                    copier.append(leaf, &mut appender)?
                }
                _ => chunks
                    .next()
                    .expect("a chunk per encoded leaf")
                    .append_to_row_group(&mut appender)?,
            }
        }
        appender.close()?;
        Ok(())
    }
}

impl AtomicParquetWriter {
    /// Start writing a table that will be read many times to `target`, with `metadata` as
    /// key-value pairs, [`Encoding::COMPACT`].
    pub fn create(
        target: &Path,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
    ) -> Result<Self> {
        Self::with_encoding(target, schema, metadata, Encoding::COMPACT)
    }

    /// Before the first write: take `columns` of `input` as they are stored there (encoding and
    /// compression unchanged) where their Parquet types match, instead of encoding them again;
    /// the output's row groups then follow the input's. The caller must write the rows of the
    /// input's `row_groups` (all when None), in its order. Returns the columns that will be
    /// copied (none, if the input cannot be).
    pub fn copy_columns(
        &mut self,
        input: &ParquetInput,
        columns: &[String],
        row_groups: Option<Range<usize>>,
    ) -> Result<Vec<String>> {
        let writer = self.writer.as_mut().expect("writer is open until finish");
        assert!(
            writer.row_group.is_none() && writer.file.flushed_row_groups().is_empty(),
            "copy_columns before writing"
        );
        let Some(copier) = Copier::open(
            input,
            columns,
            row_groups,
            &writer.schema,
            writer.file.schema_descr(),
        )?
        else {
            return Ok(vec![]);
        };
        if !copier.has_page_index() && !writer.props.offset_index_disabled() {
            // An input without a page index (pyarrow's default) gives copied chunks without
            // one, and a file's offset index covers all of its columns or none: the output
            // then has none either, and chunk statistics. Nothing is written yet: start again.
            let props = writer.props.clone().into_builder();
            let props = props
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .set_offset_index_disabled(true)
                .build();
            let schema = writer.schema.clone();
            drop(self.writer.take());
            self.writer = Some(Open::start(Path::new(&self.target), schema, props)?);
        }
        let writer = self.writer.as_mut().expect("open");
        writer.copier = Some(copier);
        let copier = writer.copier.as_ref().expect("set");
        let fields = writer.schema.fields().iter().enumerate();
        Ok(fields
            .filter(|&(i, _)| copier.is_copied_field(i))
            .map(|(_, f)| f.name().clone())
            .collect())
    }

    /// Start writing `target` as `encoding` says.
    pub fn with_encoding(
        target: &Path,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
    ) -> Result<Self> {
        let mut props = WriterProperties::builder()
            .set_compression(encoding.codec.parquet()?)
            .set_dictionary_enabled(encoding.dictionary)
            .set_statistics_enabled(EnabledStatistics::Page);
        // Statistics of values inside lists (the smallest and largest token of a page) prune
        // nothing, and comparing every token cost a tenth of `score`'s writing.
        for column in ArrowSchemaConverter::new().convert(&schema)?.columns() {
            if column.max_rep_level() > 0 {
                props = props
                    .set_column_statistics_enabled(column.path().clone(), EnabledStatistics::None);
            }
        }
        let props = props
            .set_key_value_metadata(Some(
                metadata
                    .into_iter()
                    .map(|(k, v)| KeyValue::new(k, v))
                    .collect(),
            ))
            .build();
        let writer = Open::start(target, schema, props)?;
        Ok(AtomicParquetWriter {
            target: target.display().to_string(),
            writer: Some(writer),
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let writer = self.writer.as_mut().expect("writer is open until finish");
        writer
            .write(batch)
            .with_context(|| format!("writing {}", self.target))
    }

    /// Write the footer and commit the output under its target. On an error nothing appears
    /// there, as on drop.
    pub fn finish(mut self) -> Result<()> {
        let writer = self.writer.as_mut().expect("finish is called once");
        writer
            .flush()
            .with_context(|| format!("writing {}", self.target))?;
        if let Some(copier) = &writer.copier {
            copier.finish()?;
        }
        let mut writer = self.writer.take().expect("still open");
        if writer.ids.ascending {
            writer.file.append_key_value_metadata(KeyValue::new(
                SORTED_BY.0.to_string(),
                SORTED_BY.1.to_string(),
            ));
        }
        let output = writer
            .file
            .into_inner()
            .with_context(|| format!("writing {}", self.target))?;
        output.commit()
    }
}

impl Drop for AtomicParquetWriter {
    /// An unfinished output is discarded (see [`Output`]), so an error never leaves a file.
    fn drop(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            // Stop the column threads before the output goes.
            if let Some(row_group) = writer.row_group.take() {
                row_group.columns.into_iter().for_each(|c| drop(c.finish()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Int64Array, ListBuilder, StringBuilder};
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use std::fs::{self, File};

    fn batch(start: i64) -> RecordBatch {
        let mut tokens = ListBuilder::new(StringBuilder::new());
        for i in start..start + 100 {
            tokens.values().append_value(format!("token{i}"));
            tokens.values().append_null();
            tokens.append(i % 7 != 0);
        }
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(start..start + 100));
        RecordBatch::try_from_iter([
            ("pair_id", ids),
            ("tokens", Arc::new(tokens.finish()) as ArrayRef),
        ])
        .unwrap()
    }

    #[test]
    fn row_groups_written_column_by_column_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.parquet");
        let batches: Vec<RecordBatch> = (0..30).map(|i| batch(i * 100)).collect();
        let mut writer = AtomicParquetWriter::create(&target, batches[0].schema(), vec![]).unwrap();
        writer.writer.as_mut().unwrap().row_group_bytes = 2000;
        for b in &batches {
            writer.write(b).unwrap();
        }
        assert!(
            !target.exists(),
            "only the temporary file exists before finish"
        );
        writer.finish().unwrap();
        let reader =
            ParquetRecordBatchReaderBuilder::try_new(File::open(&target).unwrap()).unwrap();
        assert!(
            reader.metadata().num_row_groups() > 5,
            "{}",
            reader.metadata().num_row_groups()
        );
        let read: Vec<RecordBatch> = reader.build().unwrap().map(Result::unwrap).collect();
        let schema = batches[0].schema();
        let concat =
            |b: &[RecordBatch]| datafusion::arrow::compute::concat_batches(&schema, b).unwrap();
        assert_eq!(concat(&read).columns(), concat(&batches).columns());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file is left"
        );
    }

    #[test]
    fn a_writer_dropped_unfinished_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.parquet");
        let mut writer = AtomicParquetWriter::create(&target, batch(0).schema(), vec![]).unwrap();
        writer.write(&batch(0)).unwrap();
        drop(writer);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
