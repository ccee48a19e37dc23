//! Tables that list the same pairs in the same order, read side by side instead of joined.
//!
//! Every `import` writes pairs, alignments and arcs with one row per pair in one pair_id order,
//! so row i of each table is the same pair. A join would repartition, merge and copy every token
//! list three times; here each table is decoded on its own task, the rows are zipped into one
//! batch, the metric expressions run on every core, and batches come out in input order.

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Int64Type, Schema, SchemaRef};
use datafusion::common::runtime::SpawnedTask;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_expr::projection::Projector;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::coop::CooperativeExec;
use datafusion::physical_plan::projection::ProjectionExec;
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
    pub alias: Option<&'static str>,
    pub columns: Vec<String>,
}

impl Source {
    fn output_name(&self, column: &str) -> String {
        match self.alias {
            Some(alias) => renamed(alias, column),
            None => column.to_string(),
        }
    }

    /// The columns read: its own, and pair_id to check the rows line up.
    fn read_columns(&self) -> Vec<&str> {
        let mut columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        if !columns.contains(&"pair_id") {
            columns.push("pair_id");
        }
        columns
    }
}

/// The schema of the zipped batches.
pub fn zipped_schema(sources: &[Source]) -> Result<SchemaRef> {
    let mut fields = Vec::new();
    for source in sources {
        for column in &source.columns {
            let field = source.schema.field_with_name(column)?;
            fields.push(Field::new(source.output_name(column), field.data_type().clone(), field.is_nullable()));
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// Where a table stands: its current batch and the rows of it already zipped.
struct Cursor {
    source: Source,
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
            let next = self.stream.try_next().await.with_context(|| format!("reading {}", self.source.input.path().display()))?;
            match next {
                Some(batch) => (self.batch, self.offset) = (Some(batch), 0),
                None => return Ok(0),
            }
        }
    }

    fn take(&mut self, rows: usize) -> RecordBatch {
        let batch = self.batch.as_ref().expect("available() found rows").slice(self.offset, rows);
        self.offset += rows;
        batch
    }
}

/// Batches of all sources' columns, row i of every table side by side.
pub struct Zip {
    cursors: Vec<Cursor>,
    schema: SchemaRef,
    rows: u64,
}

impl Zip {
    /// Open every source (each decoded on its own thread, a few batches ahead).
    pub fn open(sources: Vec<Source>, schema: SchemaRef, batch_size: usize) -> Result<Zip> {
        let mut cursors = Vec::new();
        for source in sources {
            let stream = source.input.scan(&source.read_columns(), &source.schema, batch_size)?;
            cursors.push(Cursor { stream, source, batch: None, offset: 0 });
        }
        Ok(Zip { cursors, schema, rows: 0 })
    }

    pub async fn next(&mut self) -> Result<Option<RecordBatch>> {
        let mut available = Vec::with_capacity(self.cursors.len());
        for cursor in &mut self.cursors {
            available.push(cursor.available().await?);
        }
        let rows = available.iter().copied().min().unwrap_or(0);
        if rows == 0 {
            if let Some(longer) = available.iter().position(|&n| n > 0) {
                bail!(
                    "{} has more rows than the other tables ({} rows zipped); did a file change during the run?",
                    self.cursors[longer].source.input.name(),
                    self.rows
                );
            }
            return Ok(None);
        }
        let parts: Vec<RecordBatch> = self.cursors.iter_mut().map(|c| c.take(rows)).collect();
        self.check_ids(&parts)?;
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for (cursor, part) in self.cursors.iter().zip(&parts) {
            for column in &cursor.source.columns {
                columns.push(part.column_by_name(column).expect("read").clone());
            }
        }
        self.rows += rows as u64;
        Ok(Some(RecordBatch::try_new(self.schema.clone(), columns)?))
    }

    /// The sources were chosen because their pair_id sequences match; a mismatch means a file
    /// changed since, and must not pair the wrong rows.
    fn check_ids(&self, parts: &[RecordBatch]) -> Result<()> {
        let ids = |part: &RecordBatch| part.column_by_name("pair_id").expect("read").as_primitive::<Int64Type>().values().clone();
        let first = ids(&parts[0]);
        for (cursor, part) in self.cursors.iter().zip(parts).skip(1) {
            let other = ids(part);
            if let Some(row) = (0..first.len()).find(|&i| first[i] != other[i]) {
                bail!(
                    "row {}: pair_id {} in {} but {} in {}; did a file change during the run?",
                    self.rows + row as u64,
                    first[row],
                    self.cursors[0].source.input.name(),
                    other[row],
                    cursor.source.input.name()
                );
            }
        }
        Ok(())
    }

    /// The zipped batches as a stream.
    pub fn into_stream(self) -> impl Stream<Item = Result<RecordBatch>> + Send {
        futures::stream::try_unfold(self, |mut zip| async move { Ok(zip.next().await?.map(|batch| (batch, zip))) })
    }
}

/// The projections of a planned `SELECT ... FROM <zipped batches>`, applied to batches directly,
/// so each batch can be evaluated on any core and the batches kept in order.
#[derive(Debug)]
pub struct Projection {
    /// The zipped batch's columns the scan at the bottom of the plan reads, in its order.
    scan: Vec<usize>,
    /// Bottom first.
    steps: Vec<Projector>,
    schema: SchemaRef,
}

/// Whether a plan node passes batches through unchanged.
fn passes_through(node: &dyn ExecutionPlan) -> bool {
    node.downcast_ref::<CooperativeExec>().is_some()
}

impl Projection {
    /// Take the projections out of `plan`, which must be projections over a scan of `zipped`.
    pub fn from_plan(plan: &Arc<dyn ExecutionPlan>, zipped: &Schema) -> Result<Projection> {
        let mut steps = Vec::new();
        let mut node = plan;
        loop {
            let children = node.children();
            if let Some(projection) = node.downcast_ref::<ProjectionExec>() {
                let input = projection.input();
                steps.push(projection.projection_expr().make_projector(&input.schema())?);
                node = input;
            } else if children.is_empty() {
                let scan = node.schema().fields().iter().map(|f| zipped.index_of(f.name())).collect::<Result<_, _>>()?;
                steps.reverse();
                return Ok(Projection { scan, steps, schema: plan.schema() });
            } else if children.len() == 1 && passes_through(node.as_ref()) {
                node = children[0];
            } else {
                bail!("internal error: lockstep scoring cannot run plan node {}", node.name());
            }
        }
    }

    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    pub fn apply(&self, zipped: &RecordBatch) -> Result<RecordBatch> {
        let mut batch = zipped.project(&self.scan)?;
        for step in &self.steps {
            batch = step.project_batch(&batch)?;
        }
        Ok(batch.with_schema(self.schema.clone())?)
    }
}

/// The projected batches, in order, evaluated `parallel` at a time on the runtime's threads.
pub fn evaluate(
    zip: Zip,
    projection: Arc<Projection>,
    parallel: usize,
) -> impl Stream<Item = Result<RecordBatch>> + Send {
    zip.into_stream()
        .map_ok(move |batch| {
            let projection = projection.clone();
            let task = SpawnedTask::spawn(async move { projection.apply(&batch) });
            async move { task.join().await.context("a scoring task panicked")? }
        })
        .try_buffered(parallel.max(1))
}
