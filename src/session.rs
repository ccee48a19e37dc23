//! The DataFusion session every command runs in, our tables registered in it, and query
//! results written from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, SchemaRef};
use datafusion::common::{Column, JoinType};
use datafusion::datasource::MemTable;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::functions_aggregate::count::count_all;
use datafusion::logical_expr::{Expr, ident, lit};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use futures::TryStreamExt;

use crate::Resources;
use crate::parquet::input::KeyOrderReader;
use crate::parquet::{AtomicParquetWriter, KeyOrder, ParquetInput, keys};
use crate::schema::Table;

/// A session with every function of pairmetrics and DataFusion's defaults (see [`Session`]).
pub fn context() -> Result<SessionContext> {
    Session::default().build()
}

/// A session with `tables` (name, Parquet file or directory) registered.
pub async fn context_with_tables(tables: &[(String, PathBuf)]) -> Result<SessionContext> {
    context_with_tables_and(tables, &[], &Resources::default(), &Tuning::default()).await
}

/// The same, with functions bound to `resources`, run as `tuning` says. Tables named in
/// `sorted`, and files that record it (every file pairmetrics writes in pair_id order), are
/// declared sorted by `pair_id`; then joins are planned as merge joins, which stream: a join of
/// two sorted tables on pair_id holds a few batches, not a hash table of a whole side.
pub async fn context_with_tables_and(
    tables: &[(String, PathBuf)],
    sorted: &[String],
    resources: &Resources,
    tuning: &Tuning,
) -> Result<SessionContext> {
    context_on(tables, sorted, resources, tuning, None).await
}

/// The same, planning on the Ballista scheduler at `cluster` (`df://HOST:PORT`) when given.
/// There the tables are plain Parquet listings under absolute paths, which every executor must
/// be able to read at the same path.
pub async fn context_on(
    tables: &[(String, PathBuf)],
    sorted: &[String],
    resources: &Resources,
    tuning: &Tuning,
    cluster: Option<&str>,
) -> Result<SessionContext> {
    if let Some(unknown) = sorted
        .iter()
        .find(|s| !tables.iter().any(|(name, _)| name == *s))
    {
        bail!("--sorted {unknown}: no table of that name (give it with --table {unknown}=PATH)");
    }
    for (i, (name, path)) in tables.iter().enumerate() {
        if let Some((_, first)) = tables[..i]
            .iter()
            .find(|(other, _)| other.eq_ignore_ascii_case(name))
        {
            bail!(
                "table {name} is given twice ({} and {}); SQL names are not case-sensitive, so give each table its own name",
                first.display(),
                path.display()
            );
        }
    }
    // Each table's footer is read once: to check it, and for the order it records.
    let mut inputs = Vec::new();
    let mut delta_tables = Vec::new();
    for (name, path) in tables {
        if cluster.is_some() && path.to_str().is_some_and(|s| s.starts_with("delta:")) {
            bail!(
                "table {name}: Delta tables are read by this process; not supported with --cluster"
            );
        }
        if let Some(spec) = path.to_str().and_then(|s| s.strip_prefix("delta:")) {
            delta_tables.push((name, spec));
            continue;
        }
        let path = match cluster {
            Some(_) => crate::storage::absolute(path)?,
            None => path.clone(),
        };
        let input = ParquetInput::open(name, &path)?;
        let declared = input.records_sorted_by_pair_id() || sorted.contains(name);
        inputs.push((input, declared));
    }
    let mut config = SessionConfig::new();
    if inputs.iter().any(|&(_, declared)| declared) {
        // A hash join would build a table of a whole side however the inputs are ordered.
        config.options_mut().optimizer.prefer_hash_join = false;
    }
    let ctx = Session {
        config,
        resources: resources.clone(),
        tuning: *tuning,
        cluster: cluster.map(str::to_string),
    }
    .build()?;
    for (input, declared) in &inputs {
        input
            .register(&ctx, *declared && may_declare_sorted(&ctx))
            .await?;
        // Ballista ships only the plain listing; on a cluster, files are shared among tasks.
        if cluster.is_none() {
            input.share_rows_among_threads(&ctx).await?;
        }
    }
    for (name, spec) in delta_tables {
        #[cfg(feature = "delta")]
        crate::storage::delta::register(&ctx, name, spec).await?;
        #[cfg(not(feature = "delta"))]
        bail!("table {name}: delta:{spec}: this pairmetrics was built without the `delta` feature");
    }
    Ok(ctx)
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
    /// DERP's per-pair size limit in aligned nodes and in their depth
    /// (`pairmetrics.derp_max_nodes`); default
    /// [`crate::pair::derp::MAX_NODES`].
    pub derp_max_nodes: Option<usize>,
}

impl Tuning {
    pub fn apply(&self, mut config: SessionConfig) -> SessionConfig {
        // Strings as Utf8, not Utf8View: every slice of a view array carries all of its data
        // buffers, which made small batches quadratic (3 min for 3,000 pairs at batch size 1).
        config
            .options_mut()
            .execution
            .parquet
            .schema_force_view_types = false;
        // No file statistics: Parquet's min/max leave NaN out, and DataFusion 55.2 reads a
        // column whose min equals its max (no nulls) as that constant, so a NaN among equal
        // values read back as the other value (apache/datafusion#19089 made such columns
        // constants; #24804, open, makes float bounds NaN-safe). Without file statistics there
        // are no constant columns. Row groups are still pruned by their statistics.
        config.options_mut().execution.collect_statistics = false;
        // Inputs declared sorted by pair_id stay sorted through repartitioning (an order-
        // preserving merge), so a merge join on pair_id streams instead of sorting whole tables.
        config.options_mut().optimizer.prefer_existing_sort = true;
        let mut ours = crate::udf::options::PairmetricsOptions::default();
        if let Some(n) = self.derp_max_nodes {
            ours.derp_max_nodes = n;
        }
        config = config.with_option_extension(ours);
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
        // Any store a query names (`COPY ... TO 's3://...'`, not only the tables given) is made
        // from the environment and --storage-option, as for our own reads and writes.
        let stores = Arc::new(crate::storage::StoresFromEnvironment::default());
        let mut runtime = RuntimeEnvBuilder::new().with_object_store_registry(stores);
        if let Some(bytes) = self.memory_limit {
            runtime = runtime.with_memory_pool(Arc::new(FairSpillPool::new(bytes)));
        }
        Ok(runtime.build_arc()?)
    }
}

/// How every command builds its session: the information schema on (so `SHOW FUNCTIONS`
/// works), every pairmetrics function bound to `resources`, run as `tuning` says, here or on a
/// cluster.
#[derive(Default)]
pub struct Session {
    pub config: SessionConfig,
    pub resources: Resources,
    pub tuning: Tuning,
    /// Run queries on the Ballista scheduler at this `df://HOST:PORT` (the `cluster` feature)
    /// instead of in this process.
    pub cluster: Option<String>,
}

impl Session {
    /// A session with no resources, in this process: what jobs that only read tables run on.
    pub fn tuned(tuning: Tuning) -> Session {
        Session {
            tuning,
            ..Default::default()
        }
    }

    pub fn build(self) -> Result<SessionContext> {
        let mut config = self.tuning.apply(self.config.with_information_schema(true));
        if self.cluster.is_some() {
            // Ballista's shuffles do not keep an order (see ParquetInput::register): sort anew.
            config.options_mut().optimizer.prefer_existing_sort = false;
        }
        let state = SessionStateBuilder::new()
            .with_config(config)
            .with_runtime_env(self.tuning.runtime()?)
            .with_default_features()
            .build();
        let state = match &self.cluster {
            None => state,
            #[cfg(feature = "cluster")]
            Some(url) => crate::cluster::client_state(state, url)?,
            #[cfg(not(feature = "cluster"))]
            Some(url) => {
                bail!("--cluster {url}: this pairmetrics was built without the `cluster` feature")
            }
        };
        let mut ctx = SessionContext::new_with_state(state);
        crate::udf::register_all_with(&mut ctx, &self.resources)?;
        match self.cluster {
            None => crate::udf::register_table_functions(&ctx, &self.resources),
            Some(_) => crate::udf::register_local_only_table_functions(&ctx),
        }
        Ok(ctx)
    }
}

/// Whether `ctx` plans on a Ballista cluster ([`Session::cluster`]).
pub fn on_cluster(ctx: &SessionContext) -> bool {
    #[cfg(feature = "cluster")]
    return ctx
        .copied_config()
        .options()
        .extensions
        .get::<ballista_core::config::BallistaConfig>()
        .is_some();
    #[cfg(not(feature = "cluster"))]
    return {
        let _ = ctx;
        false
    };
}

/// Whether a table may be declared sorted by pair_id in `ctx`: not on a cluster, as Ballista 55
/// loses rows when a scan declared sorted feeds a shuffle (a merge join of two such tables
/// returned 475,712 of 1M pairs).
pub fn may_declare_sorted(ctx: &SessionContext) -> bool {
    !on_cluster(ctx)
}

/// Open `path` as table `table`, check its schema and register it, failing before any work.
pub async fn register_checked(
    ctx: &SessionContext,
    table: Table,
    path: &Path,
) -> Result<ParquetInput> {
    let input = open_checked(table, path)?;
    input.register(ctx, false).await?;
    Ok(input)
}

fn open_checked(table: Table, path: &Path) -> Result<ParquetInput> {
    let input = ParquetInput::open(table.name(), path)?;
    table.check(&path.display().to_string(), input.schema()?.as_ref())?;
    Ok(input)
}

/// Register a table keyed by `pair_id` after checking its schema and its keys (present, and
/// unique), once: when they ascend in file order it is declared sorted, so joins on `pair_id`
/// merge two scans instead of sorting or hashing a whole table.
pub async fn register_keyed(
    ctx: &SessionContext,
    table: Table,
    path: &Path,
) -> Result<(ParquetInput, KeyOrder)> {
    let input = open_checked(table, path)?;
    let order = input.key_order().await?;
    input
        .register(ctx, order.ascending && may_declare_sorted(ctx))
        .await?;
    if !order.ascending {
        check_unique_keys(ctx, table, &path.display().to_string()).await?;
    }
    Ok((input, order))
}

/// Register Arrow `batches` (named `what` in errors) as table `table` after checking their
/// schema and keys, as [`register_keyed`] registers a file: declared sorted when the keys ascend.
pub async fn register_batches(
    ctx: &SessionContext,
    table: Table,
    what: &str,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<KeyOrder> {
    table.check(what, &schema)?;
    let named = format!("{} table {what}", table.name());
    let mut reader = KeyOrderReader::default();
    for batch in &batches {
        let ids = cast(batch.column(schema.index_of("pair_id")?), &DataType::Int64)?;
        reader.add(ids.as_primitive::<Int64Type>(), &named)?;
    }
    let order = reader.finish();
    let mut provider = MemTable::try_new(schema, vec![batches])?;
    if order.ascending {
        provider = provider.with_sort_order(vec![vec![ident("pair_id").sort(true, false)]]);
    }
    ctx.register_table(table.name(), Arc::new(provider))?;
    if !order.ascending {
        check_unique_keys(ctx, table, what).await?;
    }
    Ok(order)
}

/// Fail when a pair_id of registered `table` (from `what`) repeats.
async fn check_unique_keys(ctx: &SessionContext, table: Table, what: &str) -> Result<()> {
    let repeated = ctx
        .table(table.name())
        .await?
        .aggregate(vec![ident("pair_id")], vec![count_all().alias("rows")])?
        .filter(ident("rows").gt(lit(1)))?
        .limit(0, Some(1))?;
    if repeated.count().await? > 0 {
        bail!(
            "{} table {what}: pair_id values repeat; pair_id must be unique",
            table.name()
        );
    }
    Ok(())
}

/// Column `name` of `table` as it is spelled: no SQL parsing, so case, dots and spaces survive.
pub fn column_of(table: &str, name: &str) -> Expr {
    Expr::Column(Column::new(Some(table), name))
}

/// Registered tables `left` and `right` joined on their pair_id; each column keeps its table's
/// name as qualifier (`column_of(left, "pair_id")`).
pub async fn join_on_pair_id(
    ctx: &SessionContext,
    left: &str,
    right: &str,
    how: JoinType,
) -> Result<DataFrame> {
    let right = ctx.table(right).await?;
    Ok(ctx
        .table(left)
        .await?
        .join(right, how, &["pair_id"], &["pair_id"], None)?)
}

/// The integers of the one row `frame` gives, such as `count(*)` and `max(pair_id)`, so several
/// figures of a table take one scan.
pub async fn integers(frame: DataFrame) -> Result<Vec<i64>> {
    let batches = frame.collect().await?;
    batches[0]
        .columns()
        .iter()
        .map(|c| {
            Ok(cast(c, &DataType::Int64)?
                .as_primitive::<Int64Type>()
                .value(0))
        })
        .collect()
}

/// Run the SQL program `query` and write its result to `out` atomically, with the job's
/// signature and the program, as it is written, in the file's metadata; the rows written.
pub async fn write_query(
    ctx: &SessionContext,
    query: &str,
    out: &Path,
    signature: &str,
) -> Result<u64> {
    let frame = ctx.sql(query).await?;
    let metadata = vec![
        (keys::SIGNATURE.to_string(), signature.to_string()),
        (keys::QUERY.to_string(), query.to_string()),
    ];
    let mut writer = AtomicParquetWriter::create(out, frame.schema().inner().clone(), metadata)?;
    let mut stream = frame
        .execute_stream()
        .await
        .with_context(|| format!("planning {}", out.display()))?;
    let mut rows = 0;
    while let Some(batch) = stream.try_next().await? {
        rows += batch.num_rows() as u64;
        writer.write(&batch)?;
    }
    writer.finish()?;
    Ok(rows)
}

/// The query as SQL, for `--explain` and the output's metadata (the logical plan where a part
/// of it has no SQL form).
pub fn query_text(frame: &DataFrame) -> String {
    match datafusion::sql::unparser::plan_to_sql(frame.logical_plan()) {
        Ok(statement) => statement.to_string(),
        Err(_) => frame.logical_plan().display_indent().to_string(),
    }
}

/// DataFusion's and Arrow's names for their error kinds, which say where in the engine an error
/// arose, not what is wrong.
const ENGINE_PREFIXES: [&str; 4] = [
    "Error during planning: ",
    "Execution error: ",
    "External error: ",
    "Arrow error: ",
];

/// An error's text as front ends show it (the CLI, Python): without the engine's kind names,
/// wherever they nest (`External error: Execution error: ...`). "Internal error" stays: it
/// reports a bug.
pub fn without_engine_prefixes(message: &str) -> String {
    ENGINE_PREFIXES
        .iter()
        .fold(message.to_string(), |text, prefix| text.replace(prefix, ""))
}
