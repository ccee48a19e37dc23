//! A query's partitions written where they are computed, each to a Parquet file of its own.
//!
//! DataFusion's Parquet sink takes one input partition, so on a cluster every row of a result
//! would travel to one task that encodes them all. `score` on a cluster instead inserts its
//! result into a [`SharesSink`]: each partition, share k of a
//! [`LockstepTable`](super::lockstep_table::LockstepTable)'s rows, is written by the task that
//! computed it, to `part-0000k.parquet` in the dataset's directory, so the files in name order
//! hold the rows in pair_id order.

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use async_trait::async_trait;
use clap::ValueEnum;
use datafusion::arrow::array::{RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use futures::StreamExt;
use serde_json::{Value, json};

use super::encoded::{decode, encode, external, schema_from_json, schema_to_json};
use super::lockstep_table::LockstepExec;
use super::{AtomicParquetWriter, Codec, Encoding, ParquetInput};

/// Columns of an input file that each task copies as stored into its share's file, instead of
/// encoding them again: when the shares are whole row groups of that file and its rows come in
/// its order (`score`'s pairs table read in lockstep). See `AtomicParquetWriter::copy_columns`.
#[derive(Debug, Clone)]
pub struct CopiedColumns {
    /// The file's table name (for messages) and path as the executors see it.
    pub name: String,
    pub path: String,
    pub columns: Vec<String>,
    /// The row groups of each share, share k's at k.
    pub shares: Vec<Range<usize>>,
}

/// Where and how the shares are written.
#[derive(Debug, Clone)]
struct Target {
    /// The dataset's directory (a local path or a URL), ending in `/`.
    directory: String,
    /// The rows' schema.
    schema: SchemaRef,
    metadata: Vec<(String, String)>,
    encoding: Encoding,
    copy: Option<CopiedColumns>,
}

impl Target {
    fn to_json(&self) -> anyhow::Result<Value> {
        let codec = (self.encoding.codec)
            .to_possible_value()
            .expect("every codec has a name");
        Ok(json!({
            "directory": self.directory,
            "schema": schema_to_json(&self.schema)?,
            "metadata": self.metadata,
            "codec": codec.get_name(),
            "dictionary": self.encoding.dictionary,
            "copy": self.copy.as_ref().map(|copy| json!({
                "name": copy.name,
                "path": copy.path,
                "columns": copy.columns,
                "shares": copy.shares.iter().map(|s| [s.start, s.end]).collect::<Vec<_>>(),
            })),
        }))
    }

    fn from_json(target: &Value) -> anyhow::Result<Target> {
        let directory = target["directory"]
            .as_str()
            .context("shares: no directory")?
            .to_string();
        let schema = schema_from_json(&target["schema"])?;
        let metadata = serde_json::from_value(target["metadata"].clone())?;
        let codec = target["codec"].as_str().context("shares: no codec")?;
        let codec = Codec::from_str(codec, false).map_err(|e| anyhow::anyhow!("shares: {e}"))?;
        let dictionary = target["dictionary"]
            .as_bool()
            .context("shares: no dictionary flag")?;
        let copy = match &target["copy"] {
            Value::Null => None,
            copy => {
                let text = |key: &str| {
                    copy[key]
                        .as_str()
                        .map(str::to_string)
                        .with_context(|| format!("shares: no copy {key}"))
                };
                let shares: Vec<[usize; 2]> = serde_json::from_value(copy["shares"].clone())?;
                Some(CopiedColumns {
                    name: text("name")?,
                    path: text("path")?,
                    columns: serde_json::from_value(copy["columns"].clone())?,
                    shares: shares.into_iter().map(|[a, b]| a..b).collect(),
                })
            }
        };
        Ok(Target {
            directory,
            schema,
            metadata,
            encoding: Encoding { codec, dictionary },
            copy,
        })
    }
}

/// A table that can only be inserted into: each partition of what is inserted becomes one
/// file of `directory` (see the module).
#[derive(Debug)]
pub struct SharesSink {
    target: Target,
}

impl SharesSink {
    /// Files of rows of `schema` in `directory` (a local directory or a URL prefix, which must
    /// exist), encoded as [`AtomicParquetWriter::with_encoding`] encodes, `metadata` in every
    /// footer; the columns of `copy`, if given, copied as stored.
    pub fn new(
        directory: &str,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
        encoding: Encoding,
        copy: Option<CopiedColumns>,
    ) -> SharesSink {
        let directory = format!("{}/", directory.trim_end_matches('/'));
        SharesSink {
            target: Target {
                directory,
                schema,
                metadata,
                encoding,
                copy,
            },
        }
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        encode("shares_sink", self.target.to_json()?)
    }

    /// What [`to_bytes`](Self::to_bytes) wrote; None for bytes of anything else.
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Option<SharesSink>> {
        let Some(target) = decode(bytes, "shares_sink") else {
            return Ok(None);
        };
        Ok(Some(SharesSink {
            target: Target::from_json(&target)?,
        }))
    }
}

#[async_trait]
impl TableProvider for SharesSink {
    fn schema(&self) -> SchemaRef {
        self.target.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _: &dyn Session,
        _: Option<&Vec<usize>>,
        _: &[Expr],
        _: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(DataFusionError::Plan(format!(
            "{} is written, not read",
            self.target.directory
        )))
    }

    async fn insert_into(
        &self,
        _: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        _: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(WriteSharesExec::new(input, self.target.clone())))
    }
}

/// Writes each partition of its input, a share of a lockstep scan, to a file of its own named
/// by the share, and gives one row per partition: the rows written (`count`, as DataFusion's inserts give).
#[derive(Debug)]
pub struct WriteSharesExec {
    input: Arc<dyn ExecutionPlan>,
    target: Target,
    properties: Arc<PlanProperties>,
}

impl WriteSharesExec {
    fn new(input: Arc<dyn ExecutionPlan>, target: Target) -> WriteSharesExec {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "count",
            DataType::UInt64,
            false,
        )]));
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema),
            input.output_partitioning().clone(),
            EmissionType::Final,
            Boundedness::Bounded,
        );
        WriteSharesExec {
            input,
            target,
            properties: Arc::new(properties),
        }
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        encode("write_shares", self.target.to_json()?)
    }

    /// What [`to_bytes`](Self::to_bytes) wrote, over `input`; None for bytes of anything else.
    pub fn from_bytes(
        bytes: &[u8],
        input: Arc<dyn ExecutionPlan>,
    ) -> anyhow::Result<Option<WriteSharesExec>> {
        let Some(target) = decode(bytes, "write_shares") else {
            return Ok(None);
        };
        Ok(Some(WriteSharesExec::new(
            input,
            Target::from_json(&target)?,
        )))
    }
}

impl DisplayAs for WriteSharesExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "WriteSharesExec: directory={}", self.target.directory)
    }
}

impl ExecutionPlan for WriteSharesExec {
    fn name(&self) -> &str {
        "WriteSharesExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [input] = <[_; 1]>::try_from(children)
            .map_err(|_| DataFusionError::Internal("WriteSharesExec takes one input".into()))?;
        Ok(Arc::new(WriteSharesExec::new(input, self.target.clone())))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let share = share_index(&self.input, partition).ok_or_else(|| {
            DataFusionError::Internal(format!(
                "WriteSharesExec: partition {partition} of its input is not a share of a lockstep scan"
            ))
        })?;
        let mut input = self.input.execute(partition, context)?;
        let target = self.target.clone();
        let schema = self.schema();
        let written = futures::stream::once(async move {
            let path = format!("{}part-{share:05}.parquet", target.directory);
            let mut writer = AtomicParquetWriter::with_encoding(
                Path::new(&path),
                target.schema.clone(),
                target.metadata.clone(),
                target.encoding,
            )
            .map_err(external)?;
            if let Some(copy) = &target.copy {
                let row_groups = copy.shares.get(share).cloned().ok_or_else(|| {
                    DataFusionError::Internal(format!(
                        "share {share} of {}, which has {} shares",
                        copy.name,
                        copy.shares.len()
                    ))
                })?;
                let input =
                    ParquetInput::open(&copy.name, Path::new(&copy.path)).map_err(external)?;
                writer
                    .copy_columns(&input, &copy.columns, Some(row_groups))
                    .map_err(external)?;
            }
            let mut rows = 0u64;
            while let Some(batch) = input.next().await {
                let batch = batch?;
                rows += batch.num_rows() as u64;
                writer.write(&batch).map_err(external)?;
            }
            writer.finish().map_err(external)?;
            Ok(RecordBatch::try_new(
                schema,
                vec![Arc::new(UInt64Array::from(vec![rows]))],
            )?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            written,
        )))
    }
}

/// Which share of the lockstep scan below `plan` its partition `partition` holds, through
/// operators that keep each partition's rows (projections): the share's number names its file.
/// It is not the partition's number on a cluster, where a task's plan holds only its shares.
fn share_index(plan: &Arc<dyn ExecutionPlan>, partition: usize) -> Option<usize> {
    if let Some(scan) = plan.downcast_ref::<LockstepExec>() {
        return scan.share_index(partition);
    }
    let children = plan.children();
    let [child] = children.as_slice() else {
        return None;
    };
    let count = |plan: &Arc<dyn ExecutionPlan>| plan.output_partitioning().partition_count();
    let one_to_one = !plan.is::<RepartitionExec>() && count(child) == count(plan);
    one_to_one.then(|| share_index(child, partition)).flatten()
}
