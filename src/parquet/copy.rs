//! Output columns that are columns of an input Parquet file, unchanged and row for row: their
//! column chunks are copied byte for byte instead of being decoded and encoded again.
//!
//! `score` passes the pairs table's columns (src, tgt, ...) through to its output. Encoding and
//! compressing those token lists again was a third of its CPU; copying the input's chunks costs
//! a read and a write. The output's row groups then follow the input's.

use std::io::BufReader;
use std::ops::Range;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use bytes::Bytes;
use datafusion::arrow::datatypes::Schema;
use datafusion::parquet::column::writer::ColumnCloseResult;
use datafusion::parquet::errors::Result as ParquetResult;
use datafusion::parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use datafusion::parquet::file::reader::{ChunkReader, Length};
use datafusion::parquet::file::writer::SerializedRowGroupWriter;
use datafusion::parquet::schema::types::SchemaDescriptor;

use super::ParquetInput;
use super::input::FileReader;

/// An input row group larger than this is not copied: the output's row group must hold as many
/// rows, and the computed columns of all of them wait in memory until it is written.
const MAX_ROW_GROUP_ROWS: i64 = 1 << 20;

/// The input file and which of the output's leaf columns come from it.
pub struct Copier {
    /// The input file's name, for messages.
    path: String,
    file: FileReader,
    metadata: Arc<ParquetMetaData>,
    /// For each leaf column of the output, the input leaf it is a copy of.
    sources: Vec<Option<usize>>,
    /// For each top-level field of the output, whether all its leaves are copied.
    copied_fields: Vec<bool>,
    /// The input row group the output's current row group copies, the next one, and the rows
    /// of the current one not yet written.
    current: usize,
    next: usize,
    rows_left: usize,
    /// The row groups after the last one copied.
    end: usize,
}

impl Copier {
    /// Copy `columns` (top-level, named alike in both) of `input`'s `row_groups` (all when
    /// None) into an output of `schema`. None when nothing can be copied: the input is a
    /// directory, has an offset index for some columns only, a column's Parquet type differs
    /// between the files (as when another writer named the list items differently), or a row
    /// group is too large.
    pub fn open(
        input: &ParquetInput,
        columns: &[String],
        row_groups: Option<Range<usize>>,
        schema: &Schema,
        output: &SchemaDescriptor,
    ) -> Result<Option<Copier>> {
        let Some((source, metadata)) = input.single_file() else {
            return Ok(None);
        };
        let row_groups = row_groups.unwrap_or(0..metadata.num_row_groups());
        let Some(copied) = metadata.row_groups().get(row_groups.clone()) else {
            bail!(
                "internal error: {} has {} row groups, not {row_groups:?}",
                source.name(),
                metadata.num_row_groups()
            );
        };
        if copied.iter().any(|rg| rg.num_rows() > MAX_ROW_GROUP_ROWS) {
            return Ok(None);
        }
        // A file's offset index covers all of its columns or none, so must the input's: the
        // output then has one for all its columns, or (see `has_page_index`) none.
        let input = metadata.file_metadata().schema_descr();
        if let Some(offset_index) = metadata.offset_index()
            && (offset_index.len() != metadata.num_row_groups()
                || offset_index
                    .iter()
                    .any(|rg| rg.len() != input.num_columns()))
        {
            return Ok(None);
        }
        let mut sources = vec![None; output.num_columns()];
        let mut copied_fields = vec![false; schema.fields().len()];
        for name in columns {
            let (Ok(out_root), Some(in_root)) = (schema.index_of(name), root_index(input, name))
            else {
                continue;
            };
            let (out_leaves, in_leaves) = (leaves_of(output, out_root), leaves_of(input, in_root));
            let same = out_leaves.len() == in_leaves.len()
                && out_leaves
                    .iter()
                    .zip(&in_leaves)
                    .all(|(&o, &i)| output.column(o) == input.column(i));
            if same {
                out_leaves
                    .iter()
                    .zip(&in_leaves)
                    .for_each(|(&o, &i)| sources[o] = Some(i));
                copied_fields[out_root] = true;
            }
        }
        if !copied_fields.contains(&true) {
            return Ok(None);
        }
        let file = source.open()?;
        let (path, metadata) = (source.name(), metadata.clone());
        Ok(Some(Copier {
            path,
            file,
            metadata,
            sources,
            copied_fields,
            current: row_groups.start,
            next: row_groups.start,
            rows_left: 0,
            end: row_groups.end,
        }))
    }

    /// Whether the copied chunks come with their offset index (else the output can have none).
    pub fn has_page_index(&self) -> bool {
        self.metadata.offset_index().is_some()
    }

    pub fn is_copied_field(&self, field: usize) -> bool {
        self.copied_fields[field]
    }

    pub fn is_copied_leaf(&self, leaf: usize) -> bool {
        self.sources[leaf].is_some()
    }

    /// Rows the output's current row group still needs; after a complete one, the next's.
    pub fn rows_left(&mut self) -> Result<usize> {
        while self.rows_left == 0 {
            let row_group = self.metadata.row_groups()[..self.end]
                .get(self.next)
                .ok_or_else(|| {
                    anyhow!("internal error: more rows to write than {} has", self.path)
                })?;
            (self.current, self.rows_left) = (self.next, row_group.num_rows() as usize);
            self.next += 1;
        }
        Ok(self.rows_left)
    }

    /// `rows` more rows of the current row group were written; true when it is complete.
    pub fn wrote(&mut self, rows: usize) -> bool {
        self.rows_left -= rows;
        self.rows_left == 0
    }

    /// Append the current row group's chunk for output leaf `leaf`.
    pub fn append(
        &self,
        leaf: usize,
        writer: &mut SerializedRowGroupWriter<'_, crate::storage::Output>,
    ) -> Result<()> {
        let source = self.sources[leaf].expect("append is called for copied leaves only");
        let row_group: &RowGroupMetaData = self.metadata.row_group(self.current);
        let chunk = row_group.column(source).clone();
        let close = ColumnCloseResult {
            bytes_written: chunk.compressed_size() as u64,
            rows_written: row_group.num_rows() as u64,
            metadata: chunk,
            bloom_filter: None,
            column_index: self
                .metadata
                .column_index()
                .and_then(|index| index[self.current].get(source))
                .cloned(),
            offset_index: self
                .metadata
                .offset_index()
                .and_then(|index| index[self.current].get(source))
                .cloned(),
        };
        writer
            .append_column(&Bulk(&self.file), close)
            .with_context(|| format!("copying a column of {}", self.path))
    }

    /// Check, at the end, that every row of the input was written.
    pub fn finish(&self) -> Result<()> {
        let later: usize = self.metadata.row_groups()[self.next..self.end]
            .iter()
            .map(|rg| rg.num_rows() as usize)
            .sum();
        let unwritten = self.rows_left + later;
        if unwritten > 0 {
            bail!(
                "internal error: {unwritten} rows of {} were not written",
                self.path
            );
        }
        Ok(())
    }
}

/// The input read a megabyte at a time while a chunk is copied. `append_column` copies through
/// `std::io::copy`'s 8 KiB buffer, and the file's own reader makes a system call for each
/// (16,964 reads in a 1M-pair `score`).
struct Bulk<'a>(&'a FileReader);

/// Bytes read at a time by [`Bulk`].
const BULK_READ: usize = 1 << 20;

impl Length for Bulk<'_> {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl ChunkReader for Bulk<'_> {
    type T = BufReader<<FileReader as ChunkReader>::T>;

    fn get_read(&self, start: u64) -> ParquetResult<Self::T> {
        Ok(BufReader::with_capacity(BULK_READ, self.0.get_read(start)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> ParquetResult<Bytes> {
        self.0.get_bytes(start, length)
    }
}

fn root_index(schema: &SchemaDescriptor, name: &str) -> Option<usize> {
    schema
        .root_schema()
        .get_fields()
        .iter()
        .position(|field| field.name() == name)
}

fn leaves_of(schema: &SchemaDescriptor, root: usize) -> Vec<usize> {
    (0..schema.num_columns())
        .filter(|&leaf| schema.get_column_root_idx(leaf) == root)
        .collect()
}
