//! Tables read in lockstep ([`lockstep::Zip`]) as one DataFusion table: `score` plans its
//! metrics over it as over any table, and they run where the rows are read, with no join and no
//! shuffle before them. The rows reach the partitions of a scan in one of two ways
//! ([`RowSplit`]):
//!
//! - on a cluster, each partition reads one contiguous share of the rows of every table, so the
//!   partitions can run on different machines (the types encode to bytes for the cluster's
//!   codec). The shares are the scan's child, a memory source of one row per share, because
//!   Ballista's scheduler narrows a task's plan to the task's partitions only at sources it
//!   knows: a scan with no child would be run whole by every task;
//! - in one process, one reading of all the rows deals its batches to the partitions in turn,
//!   and [`in_dealt_order`] takes them back in turn: every core computes, and the rows come out
//!   in the tables' order, for a writer that copies the pairs file's columns as stored.

use std::any::Any;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, bail};
use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef, UInt64Type};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::TableType;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{
    EquivalenceProperties, LexOrdering, PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::common::spawn_buffered;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::expressions::Column;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::{Stream, StreamExt, TryStreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::ParquetInput;
use super::encoded::{decode, encode, external, schema_from_json, schema_to_json};
use super::lockstep::{self, Source, Zip};
use super::split::row_shares;

/// How a scan of a [`LockstepTable`] gives the rows to its partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSplit {
    /// Partition k reads the k-th contiguous share of the rows of every table, on its own.
    Shares,
    /// One reading of all the rows in this process; its batches are dealt to the partitions in
    /// turn (batch i to partition i mod n). Read them back with [`in_dealt_order`].
    Dealt,
}

/// Tables that list the same pair_ids in the same order, as one table of their zipped columns
/// (see [`lockstep::zipped_schema`]), in pair_id order.
#[derive(Debug)]
pub struct LockstepTable {
    sources: Vec<Source>,
    schema: SchemaRef,
    rows: u64,
    split: RowSplit,
    /// The shares' rows when the caller fixed them ([`with_shares`](Self::with_shares)); else
    /// they follow the session's partitions.
    shares: Option<Vec<Range<u64>>>,
}

impl LockstepTable {
    /// `sources` hold `rows` rows each, in the same pair_id order.
    pub fn new(sources: Vec<Source>, rows: u64, split: RowSplit) -> anyhow::Result<LockstepTable> {
        let schema = lockstep::zipped_schema(&sources)?;
        Ok(LockstepTable {
            sources,
            schema,
            rows,
            split,
            shares: None,
        })
    }

    /// Split in these shares of the rows (contiguous, in order, covering every row), whatever
    /// the session's partitions: one partition each.
    pub fn with_shares(mut self, shares: Vec<Range<u64>>) -> LockstepTable {
        self.shares = Some(shares);
        self
    }

    /// The sources, in the order their columns are zipped.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Only a table split in shares can be shipped: a dealt one reads in this process.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        if self.split == RowSplit::Dealt {
            bail!("internal error: a lockstep table dealt in one process cannot be shipped");
        }
        let shares = self
            .shares
            .as_ref()
            .map(|shares| shares.iter().map(|s| [s.start, s.end]).collect::<Vec<_>>());
        encode(
            "lockstep_table",
            json!({ "sources": sources_to_json(&self.sources)?, "rows": self.rows, "shares": shares }),
        )
    }

    /// What [`to_bytes`](Self::to_bytes) wrote (the tables are opened again); None for bytes
    /// of anything else.
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Option<LockstepTable>> {
        let Some(table) = decode(bytes, "lockstep_table") else {
            return Ok(None);
        };
        let sources = sources_from_json(&table["sources"])?;
        let rows = table["rows"]
            .as_u64()
            .context("lockstep table: no row count")?;
        let shares: Option<Vec<[u64; 2]>> =
            serde_json::from_value(table["shares"].clone()).context("lockstep table: shares")?;
        let table = LockstepTable::new(sources, rows, RowSplit::Shares)?;
        Ok(Some(match shares {
            Some(shares) => table.with_shares(shares.into_iter().map(|[a, b]| a..b).collect()),
            None => table,
        }))
    }
}

#[async_trait]
impl TableProvider for LockstepTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let config = state.config();
        let partitions = match self.split {
            RowSplit::Shares => Partitions::shares(match &self.shares {
                Some(shares) => shares.clone(),
                None => row_shares(self.rows, config.target_partitions()),
            })
            .map_err(external)?,
            // Twice as many partitions as threads, so a thread that finishes a batch finds the
            // next one dealt while the writer takes the batches in turn.
            RowSplit::Dealt => Partitions::dealt(2 * config.target_partitions()),
        };
        let exec = LockstepExec::new(
            self.sources.clone(),
            partitions,
            config.batch_size(),
            projection.cloned(),
        );
        Ok(Arc::new(exec.map_err(external)?))
    }
}

/// The partitions of a [`LockstepExec`].
#[derive(Debug)]
enum Partitions {
    /// Partition k reads the rows of `shares[k]` of every table. `source` holds the same
    /// shares as data, partition k's as partition k (see [`shares_source`]).
    Shares {
        shares: Vec<Share>,
        source: Arc<dyn ExecutionPlan>,
    },
    /// This many partitions, dealt the batches of one reading; its receiving ends once the
    /// first partition is executed.
    Dealt(usize, Mutex<Option<Dealer>>),
}

/// One share of the rows: its place among all the shares of the split, and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Share {
    index: usize,
    rows: Range<u64>,
}

impl Partitions {
    /// A partition for each of `shares`, in order.
    fn shares(shares: Vec<Range<u64>>) -> anyhow::Result<Partitions> {
        let shares: Vec<Share> = shares
            .into_iter()
            .enumerate()
            .map(|(index, rows)| Share { index, rows })
            .collect();
        let source = shares_source(&shares)?;
        Ok(Partitions::Shares { shares, source })
    }

    /// The shares `source` (a [`shares_source`], perhaps narrowed to some of its partitions)
    /// holds.
    fn of_source(source: Arc<dyn ExecutionPlan>) -> anyhow::Result<Partitions> {
        let not_shares =
            || anyhow::anyhow!("internal error: a lockstep scan's child is not its shares");
        let exec = source
            .downcast_ref::<DataSourceExec>()
            .ok_or_else(not_shares)?;
        let data: &dyn Any = exec.data_source().as_ref();
        let memory = data
            .downcast_ref::<MemorySourceConfig>()
            .ok_or_else(not_shares)?;
        let mut shares = Vec::new();
        for partition in memory.partitions() {
            let [batch] = partition.as_slice() else {
                return Err(not_shares());
            };
            let column = |i: usize| batch.column(i).as_primitive_opt::<UInt64Type>();
            let (Some(index), Some(first), Some(end)) = (column(0), column(1), column(2)) else {
                return Err(not_shares());
            };
            if batch.num_rows() != 1 {
                return Err(not_shares());
            }
            shares.push(Share {
                index: index.value(0) as usize,
                rows: first.value(0)..end.value(0),
            });
        }
        Ok(Partitions::Shares { shares, source })
    }

    fn dealt(partitions: usize) -> Partitions {
        Partitions::Dealt(partitions.max(1), Mutex::new(None))
    }

    fn count(&self) -> usize {
        match self {
            Partitions::Shares { shares, .. } => shares.len(),
            Partitions::Dealt(partitions, _) => *partitions,
        }
    }
}

/// `shares` as a memory source of one partition per share, each a row of (share, first_row,
/// end_row). Ballista's scheduler gives each task's plan only the task's partitions of such a
/// source (it cannot narrow a scan of ours), and the scan takes its shares from what is left.
fn shares_source(shares: &[Share]) -> anyhow::Result<Arc<dyn ExecutionPlan>> {
    let schema = Arc::new(Schema::new(
        ["share", "first_row", "end_row"]
            .map(|name| Field::new(name, DataType::UInt64, false))
            .to_vec(),
    ));
    let partitions = shares
        .iter()
        .map(|share| {
            let column = |value: u64| Arc::new(UInt64Array::from(vec![value])) as ArrayRef;
            let columns = vec![
                column(share.index as u64),
                column(share.rows.start),
                column(share.rows.end),
            ];
            Ok(vec![RecordBatch::try_new(schema.clone(), columns)?])
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let source = MemorySourceConfig::try_new(&partitions, schema, None)?;
    Ok(DataSourceExec::from_data_source(source))
}

/// One reading of every row, dealing batch i to partition i mod n through channels of one batch,
/// so it runs at most a batch ahead of the slowest partition.
#[derive(Debug)]
struct Dealer {
    receivers: Vec<Option<mpsc::Receiver<Result<RecordBatch>>>>,
    /// Stopped when the last partition's stream is dropped.
    task: Arc<SpawnedTask<()>>,
}

impl Dealer {
    fn start(mut zip: Zip, partitions: usize) -> Dealer {
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..partitions).map(|_| mpsc::channel(1)).unzip();
        let task = SpawnedTask::spawn(async move {
            for batch in 0.. {
                let next = zip.next().await.map_err(external).transpose();
                let Some(next) = next else { break };
                let failed = next.is_err();
                // An error goes to the partition whose turn it is, so it arrives in order.
                if senders[batch % partitions].send(next).await.is_err() || failed {
                    break;
                }
            }
        });
        Dealer {
            receivers: receivers.into_iter().map(Some).collect(),
            task: Arc::new(task),
        }
    }
}

/// A scan of a [`LockstepTable`] (see [`RowSplit`]).
#[derive(Debug)]
pub struct LockstepExec {
    sources: Vec<Source>,
    partitions: Partitions,
    batch_size: usize,
    /// The zipped columns given, in this order; None = all of them.
    projection: Option<Vec<usize>>,
    zipped: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl LockstepExec {
    fn new(
        sources: Vec<Source>,
        partitions: Partitions,
        batch_size: usize,
        projection: Option<Vec<usize>>,
    ) -> anyhow::Result<LockstepExec> {
        let zipped = lockstep::zipped_schema(&sources)?;
        let schema = match &projection {
            Some(columns) => Arc::new(zipped.project(columns)?),
            None => zipped.clone(),
        };
        // Each partition is in pair_id order (ASC NULLS FIRST, as `score` sorts): the tables
        // are, and a partition gets their rows in order.
        let mut equivalences = EquivalenceProperties::new(schema.clone());
        if let Ok(index) = schema.index_of("pair_id") {
            let key = PhysicalSortExpr::new_default(Arc::new(Column::new("pair_id", index)))
                .asc()
                .nulls_first();
            equivalences.add_orderings(LexOrdering::new([key]));
        }
        let properties = PlanProperties::new(
            equivalences,
            Partitioning::UnknownPartitioning(partitions.count()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(LockstepExec {
            sources,
            partitions,
            batch_size,
            projection,
            zipped,
            properties: Arc::new(properties),
        })
    }

    /// The bytes of everything but the shares, which are the child's (see [`shares_source`]).
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        if let Partitions::Dealt(..) = self.partitions {
            bail!("internal error: a lockstep scan dealt in one process cannot be shipped");
        }
        let sources = sources_to_json(&self.sources)?;
        let exec = json!({ "sources": sources, "batch_size": self.batch_size, "projection": self.projection });
        encode("lockstep_exec", exec)
    }

    /// What [`to_bytes`](Self::to_bytes) wrote (the tables are opened again), over `inputs`,
    /// its shares; None for bytes of anything else.
    pub fn from_bytes(
        bytes: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
    ) -> anyhow::Result<Option<LockstepExec>> {
        let Some(exec) = decode(bytes, "lockstep_exec") else {
            return Ok(None);
        };
        let [source] = inputs else {
            bail!(
                "internal error: a lockstep scan arrived with {} children, not its shares",
                inputs.len()
            );
        };
        let sources = sources_from_json(&exec["sources"])?;
        let batch_size = exec["batch_size"]
            .as_u64()
            .context("lockstep scan: batch size")? as usize;
        let projection: Option<Vec<usize>> = serde_json::from_value(exec["projection"].clone())
            .context("lockstep scan: projection")?;
        Ok(Some(LockstepExec::new(
            sources,
            Partitions::of_source(source.clone())?,
            batch_size,
            projection,
        )?))
    }

    /// The place among all the shares of the split of the share partition `partition` reads;
    /// None for a dealt scan, or no such partition.
    pub fn share_index(&self, partition: usize) -> Option<usize> {
        match &self.partitions {
            Partitions::Shares { shares, .. } => Some(shares.get(partition)?.index),
            Partitions::Dealt(..) => None,
        }
    }

    fn zip(&self, share: Range<u64>) -> Result<Zip> {
        Zip::open_rows(
            self.sources.clone(),
            self.zipped.clone(),
            self.batch_size,
            share,
        )
        .map_err(external)
    }

    /// The batches partition `partition` reads, before projection.
    fn zipped_batches(
        &self,
        partition: usize,
    ) -> Result<std::pin::Pin<Box<dyn Stream<Item = Result<RecordBatch>> + Send>>> {
        let missing = || {
            DataFusionError::Internal(format!(
                "LockstepExec: no partition {partition} of {}",
                self.partitions.count()
            ))
        };
        match &self.partitions {
            Partitions::Shares { shares, .. } => {
                let share = shares.get(partition).ok_or_else(missing)?;
                Ok(self
                    .zip(share.rows.clone())?
                    .into_stream()
                    .map_err(external)
                    .boxed())
            }
            Partitions::Dealt(partitions, dealer) => {
                let mut dealer = dealer.lock().expect("no panic while dealing");
                if dealer.is_none() {
                    *dealer = Some(Dealer::start(self.zip(0..u64::MAX)?, *partitions));
                }
                let dealer = dealer.as_mut().expect("started");
                let receiver = dealer.receivers.get_mut(partition).ok_or_else(missing)?;
                let receiver = receiver.take().ok_or_else(|| {
                    DataFusionError::Internal(format!(
                        "LockstepExec: partition {partition} of a dealt scan executed twice"
                    ))
                })?;
                let task = dealer.task.clone();
                let batches =
                    futures::stream::unfold((receiver, task), |(mut receiver, task)| async move {
                        Some((receiver.recv().await?, (receiver, task)))
                    });
                Ok(batches.boxed())
            }
        }
    }
}

impl DisplayAs for LockstepExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let tables: Vec<&str> = self.sources.iter().map(|s| s.input.name()).collect();
        let split = match &self.partitions {
            Partitions::Shares { shares, .. } => format!("shares={}", shares.len()),
            Partitions::Dealt(partitions, _) => format!("batches dealt to {partitions} partitions"),
        };
        write!(f, "LockstepExec: tables=[{}], {split}", tables.join(", "))
    }
}

impl ExecutionPlan for LockstepExec {
    fn name(&self) -> &str {
        "LockstepExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        match &self.partitions {
            Partitions::Shares { source, .. } => vec![source],
            Partitions::Dealt(..) => vec![],
        }
    }

    /// The shares are data, not work: spreading them over more partitions would break the
    /// one-to-one of share and partition.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false; self.children().len()]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    /// A new child of a scan in shares is its shares narrowed (by Ballista's scheduler, to a
    /// task's partitions): the scan reads those shares.
    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [source] = children.as_slice() else {
            return Ok(self);
        };
        let exec = LockstepExec::new(
            self.sources.clone(),
            Partitions::of_source(source.clone()).map_err(external)?,
            self.batch_size,
            self.projection.clone(),
        );
        Ok(Arc::new(exec.map_err(external)?))
    }

    fn execute(&self, partition: usize, _: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let projection = self.projection.clone();
        let batches = self.zipped_batches(partition)?.map(move |batch| {
            let batch = batch?;
            Ok(match &projection {
                Some(columns) => batch.project(columns)?,
                None => batch,
            })
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            batches,
        )))
    }
}

/// The batches of `plan`, a plan over a [`RowSplit::Dealt`] scan that keeps each partition's
/// batches one for one (projections), taken from its partitions in turn: the rows in the
/// tables' order. Each partition runs on a task of its own, a batch ahead. The pair_ids are
/// checked to go on ascending from batch to batch, so a plan that moved rows between partitions
/// is an error, never rows out of order.
pub fn in_dealt_order(
    plan: Arc<dyn ExecutionPlan>,
    task: Arc<TaskContext>,
) -> anyhow::Result<impl Stream<Item = anyhow::Result<RecordBatch>> + Send> {
    let partitions = (0..plan.output_partitioning().partition_count())
        .map(|k| Ok(spawn_buffered(plan.execute(k, task.clone())?, 1)))
        .collect::<Result<Vec<_>>>()?;
    let pair_id = plan.schema().index_of("pair_id").ok();
    let state = (partitions, 0usize, None::<i64>);
    Ok(futures::stream::try_unfold(
        state,
        move |(mut partitions, turn, last)| async move {
            let count = partitions.len();
            let Some(partition) = partitions.get_mut(turn % count.max(1)) else {
                return Ok(None);
            };
            let Some(batch) = partition.try_next().await.map_err(anyhow_error)? else {
                return Ok(None);
            };
            let ids = pair_id.and_then(|i| batch.column(i).as_primitive_opt::<Int64Type>());
            let mut next_last = last;
            if let Some(ids) = ids.filter(|ids| !ids.is_empty()) {
                if last.is_some_and(|last| ids.value(0) <= last) {
                    bail!("internal error: lockstep batches out of pair_id order at batch {turn}");
                }
                next_last = Some(ids.value(ids.len() - 1));
            }
            Ok(Some((batch, (partitions, turn + 1, next_last))))
        },
    ))
}

/// A DataFusion error as the error it carries, when it carries ours.
fn anyhow_error(error: DataFusionError) -> anyhow::Error {
    match error {
        DataFusionError::External(inner) => anyhow::anyhow!(inner),
        other => other.into(),
    }
}

fn sources_to_json(sources: &[Source]) -> anyhow::Result<Value> {
    let source_to_json = |source: &Source| -> anyhow::Result<Value> {
        let path = source.input.path();
        let Some(path_text) = path.to_str() else {
            bail!("{}: a cluster needs paths in UTF-8", path.display())
        };
        Ok(json!({
            "name": source.input.name(),
            "path": path_text,
            "alias": source.alias,
            "columns": source.columns,
            "schema": schema_to_json(&source.schema)?,
        }))
    };
    Ok(Value::Array(
        sources
            .iter()
            .map(source_to_json)
            .collect::<anyhow::Result<_>>()?,
    ))
}

fn sources_from_json(sources: &Value) -> anyhow::Result<Vec<Source>> {
    let sources = sources.as_array().context("lockstep: no tables")?;
    sources
        .iter()
        .map(|source| {
            let text = |key: &str| {
                source[key]
                    .as_str()
                    .with_context(|| format!("lockstep table: no {key}"))
            };
            let input = ParquetInput::open(text("name")?, Path::new(text("path")?))?;
            let schema = schema_from_json(&source["schema"])?;
            let alias = source["alias"].as_str().map(str::to_string);
            let columns: Vec<String> = serde_json::from_value(source["columns"].clone())?;
            Ok(Source {
                input,
                schema,
                alias,
                columns,
            })
        })
        .collect()
}
