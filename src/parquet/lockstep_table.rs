//! Tables read in lockstep as one DataFusion table, for plans that run elsewhere.
//!
//! In one process `score` zips the tables itself ([`lockstep::Zip`]). On a cluster the plan is
//! shipped to executors, so the zip must be a plan node: [`LockstepExec`] gives each partition
//! one contiguous share of the rows of every table, read side by side. The metrics then run
//! where the rows are read, with no join and no shuffle before them. Both types encode to bytes
//! so that a cluster's codec can ship them.

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{
    EquivalenceProperties, LexOrdering, PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::expressions::Column;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;
use serde_json::{Value, json};

use super::ParquetInput;
use super::encoded::{decode, encode, external, schema_from_json, schema_to_json};
use super::lockstep::{self, Source, Zip};
use super::split::row_shares;

/// Tables that list the same pair_ids in the same order, as one table of their zipped columns
/// (see [`lockstep::zipped_schema`]), in pair_id order.
#[derive(Debug)]
pub struct LockstepTable {
    sources: Vec<Source>,
    schema: SchemaRef,
    rows: u64,
}

impl LockstepTable {
    /// `sources` hold `rows` rows each, in the same pair_id order.
    pub fn new(sources: Vec<Source>, rows: u64) -> anyhow::Result<LockstepTable> {
        let schema = lockstep::zipped_schema(&sources)?;
        Ok(LockstepTable {
            sources,
            schema,
            rows,
        })
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        encode(
            "lockstep_table",
            json!({ "sources": sources_to_json(&self.sources)?, "rows": self.rows }),
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
        Ok(Some(LockstepTable::new(sources, rows)?))
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
        let shares = row_shares(self.rows, config.target_partitions());
        let exec = LockstepExec::new(
            self.sources.clone(),
            shares,
            config.batch_size(),
            projection.cloned(),
        );
        Ok(Arc::new(exec.map_err(external)?))
    }
}

/// A scan of a [`LockstepTable`]: partition k reads share k of the rows of every table.
#[derive(Debug)]
pub struct LockstepExec {
    sources: Vec<Source>,
    shares: Vec<Range<u64>>,
    batch_size: usize,
    /// The zipped columns given, in this order; None = all of them.
    projection: Option<Vec<usize>>,
    zipped: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl LockstepExec {
    fn new(
        sources: Vec<Source>,
        shares: Vec<Range<u64>>,
        batch_size: usize,
        projection: Option<Vec<usize>>,
    ) -> anyhow::Result<LockstepExec> {
        let zipped = lockstep::zipped_schema(&sources)?;
        let schema = match &projection {
            Some(columns) => Arc::new(zipped.project(columns)?),
            None => zipped.clone(),
        };
        // Each share is in pair_id order (ASC NULLS FIRST, as `score` sorts): the tables are, and
        // a share is a run of their rows.
        let mut equivalences = EquivalenceProperties::new(schema.clone());
        if let Ok(index) = schema.index_of("pair_id") {
            let key = PhysicalSortExpr::new_default(Arc::new(Column::new("pair_id", index)))
                .asc()
                .nulls_first();
            equivalences.add_orderings(LexOrdering::new([key]));
        }
        let partitioning = Partitioning::UnknownPartitioning(shares.len());
        let properties = PlanProperties::new(
            equivalences,
            partitioning,
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(LockstepExec {
            sources,
            shares,
            batch_size,
            projection,
            zipped,
            properties: Arc::new(properties),
        })
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let sources = sources_to_json(&self.sources)?;
        let shares: Vec<[u64; 2]> = self.shares.iter().map(|s| [s.start, s.end]).collect();
        let exec = json!({ "sources": sources, "shares": shares, "batch_size": self.batch_size, "projection": self.projection });
        encode("lockstep_exec", exec)
    }

    /// What [`to_bytes`](Self::to_bytes) wrote (the tables are opened again); None for bytes
    /// of anything else.
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Option<LockstepExec>> {
        let Some(exec) = decode(bytes, "lockstep_exec") else {
            return Ok(None);
        };
        let sources = sources_from_json(&exec["sources"])?;
        let shares: Vec<[u64; 2]> =
            serde_json::from_value(exec["shares"].clone()).context("lockstep scan: shares")?;
        let batch_size = exec["batch_size"]
            .as_u64()
            .context("lockstep scan: batch size")? as usize;
        let projection: Option<Vec<usize>> = serde_json::from_value(exec["projection"].clone())
            .context("lockstep scan: projection")?;
        let shares = shares.into_iter().map(|[start, end]| start..end).collect();
        Ok(Some(LockstepExec::new(
            sources, shares, batch_size, projection,
        )?))
    }
}

impl DisplayAs for LockstepExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let tables: Vec<&str> = self.sources.iter().map(|s| s.input.name()).collect();
        write!(
            f,
            "LockstepExec: tables=[{}], shares={}",
            tables.join(", "),
            self.shares.len()
        )
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
        vec![]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(&self, partition: usize, _: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let share = self.shares.get(partition).cloned().ok_or_else(|| {
            DataFusionError::Internal(format!(
                "LockstepExec: no partition {partition} of {}",
                self.shares.len()
            ))
        })?;
        let zip = Zip::open_rows(
            self.sources.clone(),
            self.zipped.clone(),
            self.batch_size,
            share,
        )
        .map_err(external)?;
        let projection = self.projection.clone();
        let batches = zip.into_stream().map(move |batch| {
            let batch = batch.map_err(external)?;
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
