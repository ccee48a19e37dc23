//! Delta Lake tables, in and out, with the `deltalake` crate (the release built on DataFusion
//! 55): `--out delta:PATH_OR_URL` writes a result as a Delta table (a new one, or appended to or
//! replacing an existing one), and `--table NAME=delta:PATH_OR_URL[@VERSION]` reads one.
//!
//! The files go through the same object stores as every other output (see [`super`]): the
//! table gets our store for its URL, so the same credentials and `--storage-option`s apply. A
//! write is one Delta commit: until it lands, readers see the table as it was; a failed or
//! killed run leaves only unreferenced files, which `VACUUM` removes.

use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow, bail};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use datafusion::catalog::streaming::StreamingTable;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::prelude::SessionContext;
use deltalake::logstore::{
    LogStore, LogStoreFactory, ObjectStoreRef, StorageConfig, default_logstore, logstore_factories,
};
use deltalake::protocol::SaveMode;
use deltalake::{DeltaTable, DeltaTableBuilder};
use futures::StreamExt;
use tokio::sync::mpsc;
use url::Url;

use super::{Location, Mode};

/// The table a `delta:` path names, or None when the path is not one.
pub fn target(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix("delta:")
}

/// delta-rs finds how to commit to a table by its URL's scheme, and knows only `file://` and
/// `memory://` without its cloud crates (which would bring the AWS SDK). Every store we use
/// gets its default log store, which commits with a put-if-absent (`If-None-Match: *` on S3),
/// so concurrent writers cannot overwrite each other's commits.
fn register_stores() {
    struct DefaultCommits;
    impl LogStoreFactory for DefaultCommits {
        fn with_options(
            &self,
            prefixed_store: ObjectStoreRef,
            root_store: ObjectStoreRef,
            location: &Url,
            options: &StorageConfig,
        ) -> deltalake::DeltaResult<Arc<dyn LogStore>> {
            Ok(default_logstore(
                prefixed_store,
                root_store,
                location,
                options,
            ))
        }
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for scheme in ["s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl"] {
            let url = Url::parse(&format!("{scheme}://")).expect("a scheme");
            logstore_factories()
                .entry(url)
                .or_insert_with(|| Arc::new(DefaultCommits));
        }
    });
}

/// The table at `target`, with our store (so the same credentials apply); a local table's
/// directory is made first when `create`.
fn table_builder(target: &str, create: bool) -> Result<DeltaTableBuilder> {
    let target = target.trim_end_matches('/');
    let (url, store) = match Location::parse(Path::new(target))? {
        Location::Local(path) => {
            if create {
                std::fs::create_dir_all(&path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
            }
            let path = std::path::absolute(&path)?;
            (
                Url::from_directory_path(&path)
                    .map_err(|()| anyhow!("{} is not an absolute path", path.display()))?,
                None,
            )
        }
        Location::Remote(remote) => {
            register_stores();
            (remote.url.clone(), Some(remote.store.clone()))
        }
    };
    let mut builder = DeltaTableBuilder::from_url(url.clone())?;
    if let Some(store) = store {
        builder = builder.with_storage_backend(store, url);
    }
    Ok(builder)
}

/// Register the Delta table at `spec` (`PATH_OR_URL[@VERSION]`) as `name` in `ctx`.
pub async fn register(ctx: &SessionContext, name: &str, spec: &str) -> Result<()> {
    let (target, version) = match spec.rsplit_once('@') {
        Some((target, version))
            if version.chars().all(|c| c.is_ascii_digit()) && !version.is_empty() =>
        {
            (target, Some(version.parse::<u64>()?))
        }
        _ => (spec, None),
    };
    let mut builder = table_builder(target, false)?;
    if let Some(version) = version {
        builder = builder.with_version(version);
    }
    let table = builder.load().await.map_err(|e| {
        anyhow!(
            "table {name}: delta:{spec}: {}",
            super::without_xml(&e.to_string())
        )
    })?;
    table.update_datafusion_session(&ctx.state())?;
    let provider = table.table_provider().await.map_err(|e| {
        anyhow!(
            "table {name}: delta:{spec}: {}",
            super::without_xml(&e.to_string())
        )
    })?;
    ctx.register_table(name, provider)?;
    Ok(())
}

/// A write in progress: batches go through a bounded queue to the Delta writer, which runs the
/// whole write as one plan and commits once, at the end.
pub struct DeltaWriter {
    /// The table's schema: the result's with unsigned integers made signed ([`signed`]).
    schema: SchemaRef,
    batches: Option<mpsc::Sender<datafusion::error::Result<RecordBatch>>>,
    task: Option<tokio::task::JoinHandle<Result<u64>>>,
    target: String,
}

impl DeltaWriter {
    /// Start writing the result of `schema` to the table at `target` as `mode` says, with
    /// `metadata` in the commit's info.
    pub async fn create(
        ctx: &SessionContext,
        target: &str,
        mode: Mode,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
    ) -> Result<DeltaWriter> {
        let mut table: DeltaTable = table_builder(target, true)?.build()?;
        let exists = match table.load().await {
            Ok(()) => true,
            Err(deltalake::DeltaTableError::NotATable(_)) => false,
            Err(e) => bail!("delta:{target}: {}", super::without_xml(&e.to_string())),
        };
        if exists && mode == Mode::Error {
            bail!(
                "delta:{target} is already a Delta table (version {}); pass --mode append or --mode overwrite",
                table.version().unwrap_or(0)
            );
        }
        let schema = signed_schema(&schema);
        let (batches, queue) = mpsc::channel(2);
        let source = Arc::new(QueueStream {
            schema: schema.clone(),
            queue: Mutex::new(Some(queue)),
        });
        let plan = ctx
            .read_table(Arc::new(StreamingTable::try_new(
                schema.clone(),
                vec![source],
            )?))?
            .into_unoptimized_plan();
        let save_mode = match mode {
            Mode::Error => SaveMode::ErrorIfExists,
            Mode::Append => SaveMode::Append,
            Mode::Overwrite => SaveMode::Overwrite,
        };
        let commit = deltalake::kernel::transaction::CommitProperties::default().with_metadata(
            metadata
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v))),
        );
        // The plan only reads the queue (our functions ran before it), so the Delta writer
        // runs it in its own session, which has the planner its write nodes need.
        let write = table
            .write(Vec::new())
            .with_input_plan(plan)
            .with_save_mode(save_mode)
            .with_commit_properties(commit);
        // Overwriting replaces the schema too; appending must match it.
        let write = match mode {
            Mode::Overwrite => {
                write.with_schema_mode(deltalake::operations::write::SchemaMode::Overwrite)
            }
            _ => write,
        };
        let name = target.to_string();
        let task = tokio::spawn(async move {
            let table = write
                .await
                .map_err(|e| anyhow!("delta:{name}: {}", super::without_xml(&e.to_string())))?;
            Ok(table.version().unwrap_or(0))
        });
        Ok(DeltaWriter {
            schema,
            batches: Some(batches),
            task: Some(task),
            target: target.to_string(),
        })
    }

    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = if batch.schema() == self.schema {
            batch.clone()
        } else {
            let columns = batch
                .columns()
                .iter()
                .zip(self.schema.fields())
                .map(|(column, field)| cast(column, field.data_type()))
                .collect::<Result<Vec<_>, _>>()?;
            RecordBatch::try_new(self.schema.clone(), columns)?
        };
        let sent = self
            .batches
            .as_ref()
            .expect("open until finish")
            .send(Ok(batch))
            .await;
        if sent.is_err() {
            // The writer stopped on an error: finishing says which.
            self.batches = None;
            let task = self.task.take().expect("running");
            task.await??;
            bail!("delta:{}: the Delta writer stopped early", self.target);
        }
        Ok(())
    }

    /// End the input and wait for the commit; returns the table's new version.
    pub async fn finish(mut self) -> Result<u64> {
        self.batches = None;
        self.task.take().expect("finish is called once").await?
    }
}

/// Delta has no unsigned integers. Given a UInt32 column, delta-rs declares it `integer` and
/// keeps the unsigned values in the files: Delta readers then read values past 2^31 as
/// negative numbers, and the next append fails to cast them. So each unsigned integer becomes
/// the narrowest signed type that holds all its values, as Spark reads an unsigned Parquet
/// column: UInt8 → Int16, UInt16 → Int32, UInt32 → Int64, UInt64 → DECIMAL(20,0); inside lists
/// and structs too. Every value is kept exactly.
fn signed_schema(schema: &Schema) -> SchemaRef {
    let fields: Fields = schema.fields().iter().map(|f| signed_field(f)).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

fn signed_field(field: &Field) -> Field {
    field.clone().with_data_type(signed(field.data_type()))
}

fn signed(data_type: &DataType) -> DataType {
    match data_type {
        DataType::UInt8 => DataType::Int16,
        DataType::UInt16 => DataType::Int32,
        DataType::UInt32 => DataType::Int64,
        DataType::UInt64 => DataType::Decimal128(20, 0),
        DataType::List(item) => DataType::List(Arc::new(signed_field(item))),
        DataType::LargeList(item) => DataType::LargeList(Arc::new(signed_field(item))),
        DataType::FixedSizeList(item, size) => {
            DataType::FixedSizeList(Arc::new(signed_field(item)), *size)
        }
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(|f| signed_field(f)).collect())
        }
        other => other.clone(),
    }
}

impl Drop for DeltaWriter {
    /// A write not finished is cancelled before it commits: the table stays as it was.
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The queue's batches as the one partition of a streaming table.
#[derive(Debug)]
struct QueueStream {
    schema: SchemaRef,
    queue: Mutex<Option<mpsc::Receiver<datafusion::error::Result<RecordBatch>>>>,
}

impl PartitionStream for QueueStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _: Arc<TaskContext>) -> SendableRecordBatchStream {
        let queue = self.queue.lock().expect("not poisoned").take();
        let stream = match queue {
            Some(queue) => {
                futures::stream::unfold(
                    queue,
                    |mut q| async move { q.recv().await.map(|b| (b, q)) },
                )
                .boxed()
            }
            None => futures::stream::once(async {
                Err(datafusion::error::DataFusionError::Internal(
                    "a result can be written once".into(),
                ))
            })
            .boxed(),
        };
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}
