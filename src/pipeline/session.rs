//! DataFusion sessions with every pairmetrics function registered, and Parquet tables in them.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::logical_expr::{SortExpr, col};
use datafusion::parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader, RowGroupMetaData};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use futures::TryStreamExt;

use crate::Resources;
use crate::schema::Table;

/// A session with the information schema on (so `SHOW FUNCTIONS` works) and every UDF.
pub fn context() -> Result<SessionContext> {
    context_with(SessionConfig::new())
}

pub fn context_with(config: SessionConfig) -> Result<SessionContext> {
    context_with_resources(config, &Resources::default(), &Tuning::default())
}

/// How a job runs: parallelism, batch size and memory. None = DataFusion's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Partitions (threads) DataFusion plans with; default: the number of cores.
    pub partitions: Option<usize>,
    /// Rows per record batch; default 8192.
    pub batch_size: Option<usize>,
    /// Memory for sorts, joins and aggregations, in bytes; beyond it they spill to the
    /// temporary directory. Hash joins cannot spill, so under a limit joins are sort-merge.
    pub memory_limit: Option<usize>,
}

impl Tuning {
    pub fn apply(&self, mut config: SessionConfig) -> SessionConfig {
        // Strings as Utf8, not Utf8View: every slice of a view array carries all of its data
        // buffers, which made small batches quadratic (3 min for 3,000 pairs at batch size 1).
        config.options_mut().execution.parquet.schema_force_view_types = false;
        // Inputs declared sorted by pair_id stay sorted through repartitioning (an order-
        // preserving merge), so a merge join on pair_id streams instead of sorting whole tables.
        config.options_mut().optimizer.prefer_existing_sort = true;
        if let Some(n) = self.partitions {
            config = config.with_target_partitions(n.max(1));
        }
        if let Some(n) = self.batch_size {
            config = config.with_batch_size(n.max(1));
        }
        if let Some(bytes) = self.memory_limit {
            config.options_mut().optimizer.prefer_hash_join = false;
            // Each sort reserves this much up front for its merge; DataFusion's 10 MB default
            // would exhaust a small limit before anything spills.
            let reservation = &mut config.options_mut().execution.sort_spill_reservation_bytes;
            *reservation = (*reservation).min(bytes / 16);
        }
        config
    }

    pub fn runtime(&self) -> Result<Arc<RuntimeEnv>> {
        let mut runtime = RuntimeEnvBuilder::new();
        if let Some(bytes) = self.memory_limit {
            runtime = runtime.with_memory_pool(Arc::new(FairSpillPool::new(bytes)));
        }
        Ok(runtime.build_arc()?)
    }
}

/// A session whose functions are bound to `resources` (a phrase table, ...), run as `tuning` says.
pub fn context_with_resources(
    config: SessionConfig,
    resources: &Resources,
    tuning: &Tuning,
) -> Result<SessionContext> {
    let config = tuning.apply(config.with_information_schema(true));
    let mut ctx = SessionContext::new_with_config_rt(config, tuning.runtime()?);
    crate::udf::register_all_with(&mut ctx, resources)?;
    crate::udf::register_table_functions(&ctx, resources);
    Ok(ctx)
}

/// Register a Parquet file, or a directory of them, as table `name`.
pub async fn register_parquet(
    ctx: &SessionContext,
    name: &str,
    path: &Path,
    sorted_by_pair_id: bool,
) -> Result<()> {
    check_parquet(name, path)?;
    register_listing(ctx, name, path, sorted_by_pair_id).await
}

/// Check that table `name`'s `path` exists and is Parquet (a file, or a directory's `*.parquet`
/// files, as DataFusion reads them) before DataFusion reads it: a corrupt footer can make the
/// reader panic. Returns whether it records that its rows ascend by `pair_id` (see
/// [`records_sorted_by_pair_id`]), from the footer it has just read.
pub fn check_parquet(name: &str, path: &Path) -> Result<bool> {
    if !path.exists() {
        bail!("table {name}: {} does not exist", path.display());
    }
    check_parquet_files(path).with_context(|| format!("table {name}"))
}

/// Register files that [`check_parquet`] has already checked.
pub async fn register_listing(ctx: &SessionContext, name: &str, path: &Path, sorted_by_pair_id: bool) -> Result<()> {
    let mut url = path.to_string_lossy().into_owned();
    if path.is_dir() && !url.ends_with('/') {
        url.push('/');
    }
    let mut options = ParquetReadOptions::default();
    if sorted_by_pair_id {
        options.file_sort_order = vec![vec![SortExpr::new(col("pair_id"), true, true)]];
    }
    ctx.register_parquet(name, &url, options)
        .await
        .with_context(|| format!("cannot read {} as Parquet", path.display()))?;
    Ok(())
}

/// Check `path`'s Parquet files; a single file also says whether it records its pair_id order
/// (a directory records nothing: the order across its files is not known).
fn check_parquet_files(path: &Path) -> Result<bool> {
    if path.is_file() {
        return parquet_metadata(path).map(|metadata| sorted_by_pair_id(&metadata));
    }
    let entries = std::fs::read_dir(path).with_context(|| format!("cannot list {}", path.display()))?;
    for entry in entries {
        let file = entry?.path();
        if file.is_file() && file.extension().is_some_and(|e| e == "parquet") {
            parquet_metadata(&file)?;
        }
    }
    Ok(false)
}

/// Whether the Parquet file at `path` records that its rows ascend by `pair_id`: pairmetrics'
/// key-value entry (see [`super::write::SORTED_BY`]), or Parquet `sorting_columns` naming
/// pair_id first, ascending, in every row group (as Spark, DuckDB and pyarrow can write). A
/// directory records nothing.
pub fn records_sorted_by_pair_id(path: &Path) -> Result<bool> {
    Ok(path.is_file() && sorted_by_pair_id(&parquet_metadata(path)?))
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

fn parquet_metadata(path: &Path) -> Result<ParquetMetaData> {
    const MAGIC: &[u8; 4] = b"PAR1";
    let fail = |why: String| anyhow::anyhow!("{} is not a readable Parquet file: {why}", path.display());
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
    let decoded = std::panic::catch_unwind(|| ParquetMetaDataReader::new().parse_and_finish(&file));
    match decoded {
        Ok(Ok(metadata)) => Ok(metadata),
        Ok(Err(e)) => Err(fail(e.to_string())),
        Err(_) => Err(fail("its metadata cannot be decoded".into())),
    }
}

/// Register `path` as `table.name()` after checking its schema, failing before any work.
pub async fn register_checked(ctx: &SessionContext, table: Table, path: &Path) -> Result<()> {
    register_parquet(ctx, table.name(), path, false).await?;
    let schema = ctx.table_provider(table.name()).await?.schema();
    table.check(&path.display().to_string(), &schema)?;
    Ok(())
}

/// Register a table keyed by `pair_id` after checking its schema and its keys (present, and
/// unique): when they ascend in file order it is declared sorted, so joins on `pair_id` merge
/// two scans instead of sorting or hashing a whole table.
pub async fn register_keyed(ctx: &SessionContext, table: Table, path: &Path) -> Result<KeyOrder> {
    register_checked(ctx, table, path).await?;
    let order = pair_id_order(path, table).await?;
    if order.ascending {
        ctx.deregister_table(table.name())?;
        register_listing(ctx, table.name(), path, true).await?;
    } else {
        let repeated = format!("SELECT pair_id FROM {} GROUP BY pair_id HAVING count(*) > 1 LIMIT 1", table.name());
        if count(ctx, &format!("SELECT count(*) FROM ({repeated})")).await? > 0 {
            bail!("{} table {}: pair_id values repeat; pair_id must be unique", table.name(), path.display());
        }
    }
    Ok(order)
}

/// The single integer a query such as `SELECT count(*) ...` returns.
pub async fn count(ctx: &SessionContext, sql: &str) -> Result<u64> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(batches[0].column(0).as_primitive::<Int64Type>().value(0) as u64)
}

/// How a table's `pair_id` column is ordered, from one pass over that column alone.
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

/// Stream `columns` of the Parquet file or directory at `path` (files already checked) on one
/// partition, so batches arrive in file order. Strings are read as in every session (Utf8).
pub async fn scan_in_file_order(path: &Path, columns: &[&str], batch_size: usize) -> Result<SendableRecordBatchStream> {
    let config = Tuning::default().apply(SessionConfig::new().with_target_partitions(1).with_batch_size(batch_size));
    let ctx = SessionContext::new_with_config(config);
    register_listing(&ctx, "t", path, false).await?;
    let list = columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
    Ok(ctx.sql(&format!("SELECT {list} FROM t")).await?.execute_stream().await?)
}

/// Read `pair_id` of `path` (files already checked) in file order; a NULL or (in sorted data) a
/// repeated id is an error that names the row.
async fn pair_id_order(path: &Path, table: Table) -> Result<KeyOrder> {
    let mut stream = scan_in_file_order(path, &["pair_id"], 8192).await?;
    let (mut rows, mut ascending, mut last, mut fingerprint) = (0u64, true, None::<i64>, 0u64);
    let name = table.name();
    while let Some(batch) = stream.try_next().await? {
        let ids = batch.column(0).as_primitive::<Int64Type>();
        if ids.null_count() > 0 {
            let row = rows + (0..ids.len()).find(|&i| ids.is_null(i)).unwrap_or(0) as u64;
            bail!("{name} table {}: pair_id is NULL at row {row}", path.display());
        }
        for &id in ids.values() {
            if let Some(prev) = last {
                if id == prev && ascending {
                    bail!(
                        "{name} table {}: pair_id {id} appears twice (rows {} and {rows}); \
                         pair_id must be unique",
                        path.display(),
                        rows - 1
                    );
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

/// `identifier` quoted for SQL, so any column name is read as written.
pub fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}
