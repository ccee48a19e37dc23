//! Tables that list the same pairs in the same order, read side by side instead of joined.
//!
//! Every `import` writes pairs, alignments and arcs with one row per pair in one pair_id order,
//! so row i of each table is the same pair. A join would repartition, merge and copy every token
//! list three times; here each table is decoded on its own task and the rows are zipped into one
//! batch. [`LockstepTable`](super::lockstep_table::LockstepTable) makes the zip a table that
//! queries run over.

use std::ops::Range;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Int64Type, Schema, SchemaRef};
use datafusion::execution::SendableRecordBatchStream;
use futures::{Stream, TryStreamExt};

use super::ParquetInput;

/// The name a column of a joined table takes in the zipped batch (pairs' columns keep theirs).
pub fn renamed(alias: &str, column: &str) -> String {
    format!("__{alias}_{column}")
}

/// One table to read: the input, its schema as registered, and which columns to take.
#[derive(Debug, Clone)]
pub struct Source {
    pub input: ParquetInput,
    pub schema: SchemaRef,
    /// Prefix of its columns in the zipped batch (see [`renamed`]); None keeps their names.
    pub alias: Option<String>,
    pub columns: Vec<String>,
}

impl Source {
    fn output_name(&self, column: &str) -> String {
        match &self.alias {
            Some(alias) => renamed(alias, column),
            None => column.to_string(),
        }
    }

    /// The columns to read, in groups decoded each on its own thread: every list column alone
    /// (token lists are most of the decoding, and a file written as one row group would
    /// otherwise be decoded by one thread), the others together with pair_id, which checks
    /// that the tables' rows line up.
    fn column_groups(&self) -> Vec<Vec<&str>> {
        let is_list = |c: &&str| {
            self.schema
                .field_with_name(c)
                .is_ok_and(|f| f.data_type().is_nested())
        };
        let (lists, mut flat): (Vec<&str>, Vec<&str>) =
            self.columns.iter().map(String::as_str).partition(is_list);
        if !flat.contains(&"pair_id") {
            flat.push("pair_id");
        }
        std::iter::once(flat)
            .chain(lists.into_iter().map(|c| vec![c]))
            .collect()
    }
}

/// The schema of the zipped batches.
pub fn zipped_schema(sources: &[Source]) -> Result<SchemaRef> {
    let mut fields = Vec::new();
    for source in sources {
        for column in &source.columns {
            let field = source.schema.field_with_name(column)?;
            fields.push(Field::new(
                source.output_name(column),
                field.data_type().clone(),
                field.is_nullable(),
            ));
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// Where a group of a table's columns stands: its current batch and the rows of it already
/// zipped.
struct Cursor {
    /// Index of its source.
    source: usize,
    /// Whether it reads pair_id.
    ids: bool,
    stream: SendableRecordBatchStream,
    batch: Option<RecordBatch>,
    offset: usize,
}

impl Cursor {
    /// Rows left in the current batch, pulling batches until one has some; 0 at the end.
    async fn available(&mut self) -> Result<usize> {
        loop {
            if let Some(batch) = &self.batch
                && self.offset < batch.num_rows()
            {
                return Ok(batch.num_rows() - self.offset);
            }
            let next = self.stream.try_next().await?;
            match next {
                Some(batch) => (self.batch, self.offset) = (Some(batch), 0),
                None => return Ok(0),
            }
        }
    }

    fn take(&mut self, rows: usize) -> RecordBatch {
        let batch = self
            .batch
            .as_ref()
            .expect("available() found rows")
            .slice(self.offset, rows);
        self.offset += rows;
        batch
    }
}

/// Batches of all sources' columns, row i of every table side by side.
pub struct Zip {
    sources: Vec<Source>,
    cursors: Vec<Cursor>,
    schema: SchemaRef,
    rows: u64,
}

impl Zip {
    /// Open every source (each group of its columns decoded on its own thread, a few batches
    /// ahead).
    pub fn open(sources: Vec<Source>, schema: SchemaRef, batch_size: usize) -> Result<Zip> {
        Self::open_rows(sources, schema, batch_size, 0..u64::MAX)
    }

    /// Like [`open`](Self::open), for the rows `share` of every table only.
    pub fn open_rows(
        sources: Vec<Source>,
        schema: SchemaRef,
        batch_size: usize,
        share: Range<u64>,
    ) -> Result<Zip> {
        let mut cursors = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            for group in source.column_groups() {
                let stream =
                    source
                        .input
                        .scan_rows(&group, &source.schema, batch_size, share.clone())?;
                let ids = group.contains(&"pair_id");
                cursors.push(Cursor {
                    source: index,
                    ids,
                    stream,
                    batch: None,
                    offset: 0,
                });
            }
        }
        // Rows are counted from the share's start, so messages name rows of the tables.
        Ok(Zip {
            sources,
            cursors,
            schema,
            rows: share.start,
        })
    }

    fn name(&self, cursor: &Cursor) -> &str {
        self.sources[cursor.source].input.name()
    }

    pub async fn next(&mut self) -> Result<Option<RecordBatch>> {
        let mut available = Vec::with_capacity(self.cursors.len());
        for cursor in &mut self.cursors {
            let rows = cursor.available().await;
            let path = || self.sources[cursor.source].input.path().display();
            available.push(rows.with_context(|| format!("reading {}", path()))?);
        }
        let rows = available.iter().copied().min().unwrap_or(0);
        if rows == 0 {
            if let Some(longer) = available.iter().position(|&n| n > 0) {
                bail!(
                    "{} has more rows than the other tables ({} rows zipped); did a file change during the run?",
                    self.name(&self.cursors[longer]),
                    self.rows
                );
            }
            return Ok(None);
        }
        let parts: Vec<RecordBatch> = self.cursors.iter_mut().map(|c| c.take(rows)).collect();
        self.check_ids(&parts)?;
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for (index, source) in self.sources.iter().enumerate() {
            for column in &source.columns {
                let mut own = self
                    .cursors
                    .iter()
                    .zip(&parts)
                    .filter(|(c, _)| c.source == index);
                let found = own.find_map(|(_, part)| part.column_by_name(column));
                columns.push(found.expect("every column is read by a group").clone());
            }
        }
        self.rows += rows as u64;
        Ok(Some(RecordBatch::try_new(self.schema.clone(), columns)?))
    }

    /// The sources were chosen because their pair_id sequences match; a mismatch means a file
    /// changed since, and must not pair the wrong rows.
    fn check_ids(&self, parts: &[RecordBatch]) -> Result<()> {
        let ids = |part: &RecordBatch| {
            part.column_by_name("pair_id")
                .expect("read")
                .as_primitive::<Int64Type>()
                .values()
                .clone()
        };
        let mut with_ids = self.cursors.iter().zip(parts).filter(|(c, _)| c.ids);
        let (first_cursor, first_part) = with_ids.next().expect("every source reads pair_id");
        let first = ids(first_part);
        for (cursor, part) in with_ids {
            let other = ids(part);
            if let Some(row) = (0..first.len()).find(|&i| first[i] != other[i]) {
                bail!(
                    "row {} (0-based): pair_id {} in {} but {} in {}; did a file change during the run?",
                    self.rows + row as u64,
                    first[row],
                    self.name(first_cursor),
                    other[row],
                    self.name(cursor)
                );
            }
        }
        Ok(())
    }

    /// The zipped batches as a stream.
    pub fn into_stream(self) -> impl Stream<Item = Result<RecordBatch>> + Send {
        futures::stream::try_unfold(self, |mut zip| async move {
            Ok(zip.next().await?.map(|batch| (batch, zip)))
        })
    }
}
