//! Apache DataFusion Ballista with pairmetrics' functions: a scheduler whose sessions plan with
//! them, executors whose function registry runs them (bound to the resources each executor
//! loads), and the client session that sends plans there (docs/cluster.md).
//!
//! Ballista ships plans by function name: an executor runs `true_score` with its own phrase
//! table, so every executor must load the same resources as the client.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;
use std::path::PathBuf;
use std::sync::Arc;
use std::any::Any;

use anyhow::{Context, Result, bail};
use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{Result as DFResult, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use crate::Resources;
use crate::parquet::encoded::external;
use crate::parquet::lockstep_table::{LockstepExec, LockstepTable};
use crate::parquet::shares::{SharesSink, WriteSharesExec};
use crate::session::Session;
use crate::storage::StoresFromEnvironment;

/// The client side: `state` (with its config) planning on the scheduler at `url`
/// (`df://HOST:PORT`). Functions registered before this are dropped by Ballista's upgrade, so
/// the caller registers ours on the result.
/// Fails at once, naming the scheduler, when nothing answers there.
pub fn client_state(state: SessionState, url: &str) -> Result<SessionState> {
    let parsed = url::Url::parse(url).with_context(|| format!("--cluster {url}: expected df://HOST:PORT"))?;
    let (host, port) = match (parsed.scheme(), parsed.host_str(), parsed.port()) {
        ("df", Some(host), Some(port)) => (host, port),
        _ => bail!("--cluster {url}: expected df://HOST:PORT, the scheduler's address"),
    };
    let reachable = (host, port).to_socket_addrs().ok().into_iter().flatten().any(|address| {
        TcpStream::connect_timeout(&address, Duration::from_secs(10)).is_ok()
    });
    if !reachable {
        bail!("--cluster {url}: no scheduler answers there (start one with `pairmetrics cluster scheduler`)");
    }
    let config = state.config().clone().with_ballista_logical_extension_codec(Codecs::logical());
    let state = SessionStateBuilder::new_from_existing(state).with_config(config).build();
    Ok(state.upgrade_for_ballista(format!("http://{host}:{port}"))?)
}

/// Ballista's codecs, which also carry our plan nodes: [`LockstepTable`] and [`SharesSink`]
/// from the client to the scheduler, [`LockstepExec`] and [`WriteSharesExec`] from the
/// scheduler to the executors. Everything else is Ballista's.
#[derive(Debug, Default)]
pub struct Codecs {
    logical: BallistaLogicalExtensionCodec,
    physical: BallistaPhysicalExtensionCodec,
}

impl Codecs {
    pub fn logical() -> Arc<dyn LogicalExtensionCodec> {
        Arc::new(Codecs::default())
    }

    pub fn physical() -> Arc<dyn PhysicalExtensionCodec> {
        Arc::new(Codecs::default())
    }
}

impl LogicalExtensionCodec for Codecs {
    fn try_decode(&self, buf: &[u8], inputs: &[LogicalPlan], ctx: &TaskContext) -> DFResult<Extension> {
        self.logical.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> DFResult<()> {
        self.logical.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> DFResult<Arc<dyn TableProvider>> {
        if let Some(table) = LockstepTable::from_bytes(buf).map_err(external)? {
            return Ok(Arc::new(table));
        }
        if let Some(sink) = SharesSink::from_bytes(buf).map_err(external)? {
            return Ok(Arc::new(sink));
        }
        self.logical.try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> DFResult<()> {
        let any = node.as_ref() as &dyn Any;
        let ours = match (any.downcast_ref::<LockstepTable>(), any.downcast_ref::<SharesSink>()) {
            (Some(table), _) => table.to_bytes(),
            (_, Some(sink)) => sink.to_bytes(),
            _ => return self.logical.try_encode_table_provider(table_ref, node, buf),
        };
        Ok(buf.extend(ours.map_err(external)?))
    }

    fn try_decode_file_format(&self, buf: &[u8], ctx: &TaskContext) -> DFResult<Arc<dyn FileFormatFactory>> {
        self.logical.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(&self, buf: &mut Vec<u8>, node: Arc<dyn FileFormatFactory>) -> DFResult<()> {
        self.logical.try_encode_file_format(buf, node)
    }
}

impl PhysicalExtensionCodec for Codecs {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        if let Some(exec) = LockstepExec::from_bytes(buf).map_err(external)? {
            return Ok(Arc::new(exec));
        }
        if let [input] = inputs
            && let Some(exec) = WriteSharesExec::from_bytes(buf, input.clone()).map_err(external)?
        {
            return Ok(Arc::new(exec));
        }
        self.physical.try_decode(buf, inputs, ctx, converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DFResult<()> {
        let ours = match (node.downcast_ref::<LockstepExec>(), node.downcast_ref::<WriteSharesExec>()) {
            (Some(exec), _) => exec.to_bytes(),
            (_, Some(exec)) => exec.to_bytes(),
            _ => return self.physical.try_encode(node, buf, converter),
        };
        Ok(buf.extend(ours.map_err(external)?))
    }
}

/// How a scheduler runs.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    pub bind: SocketAddr,
    /// An executor silent for this long is taken as dead: its tasks run again elsewhere.
    pub executor_timeout_seconds: u64,
}

/// Run a scheduler until the process is stopped.
pub async fn run_scheduler(options: SchedulerOptions) -> Result<()> {
    log_to_stderr();
    warn_if_exposed("scheduler", options.bind);
    let config = SchedulerConfig {
        bind_host: options.bind.ip().to_string(),
        bind_port: options.bind.port(),
        external_host: options.bind.ip().to_string(),
        executor_timeout_seconds: options.executor_timeout_seconds,
        // Checked four times per timeout, so a dead executor is noticed within 1.25 timeouts.
        expire_dead_executor_interval_seconds: (options.executor_timeout_seconds / 4).max(1),
        no_executors_grace_period_seconds: options.executor_timeout_seconds,
        // Plans name our functions; the executors hold the resources they need. Planning lists
        // the input files, so the scheduler reads object stores too.
        override_session_builder: Some(Arc::new(|config| {
            let stores = RuntimeEnvBuilder::new().with_object_store_registry(Arc::new(StoresFromEnvironment::default()));
            let state = default_session_builder(config)?;
            let mut state = SessionStateBuilder::new_from_existing(state).with_runtime_env(stores.build_arc()?).build();
            crate::udf::register_all_with(&mut state, &Resources::on_executors())?;
            Ok(state)
        })),
        override_logical_codec: Some(Codecs::logical()),
        override_physical_codec: Some(Codecs::physical()),
        ..SchedulerConfig::default()
    };
    let config = Arc::new(config);
    let cluster = BallistaCluster::new_from_config(&config).await?;
    eprintln!("pairmetrics scheduler listening on df://{}", options.bind);
    start_server(cluster, options.bind, config).await?;
    Ok(())
}

/// How an executor runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's HOST:PORT.
    pub scheduler: String,
    /// Where Arrow Flight (results and shuffles) listens.
    pub bind: SocketAddr,
    /// Where the scheduler pushes tasks.
    pub grpc_port: u16,
    /// Shuffle and spill files; a new directory under the system's temporary one when None.
    pub work_dir: Option<PathBuf>,
    /// Tasks run at once; 0 = one per core.
    pub slots: usize,
    pub heartbeat_seconds: u64,
}

/// Run an executor until the process is stopped, with every pairmetrics function bound to
/// `resources`.
pub async fn run_executor(options: ExecutorOptions, resources: &Resources) -> Result<()> {
    log_to_stderr();
    warn_if_exposed("executor", options.bind);
    let (host, port) = options
        .scheduler
        .rsplit_once(':')
        .and_then(|(host, port)| Some((host.to_string(), port.parse::<u16>().ok()?)))
        .with_context(|| format!("--scheduler {}: expected HOST:PORT", options.scheduler))?;
    let work_dir = match options.work_dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!("pairmetrics-executor-{}", std::process::id())),
    };
    std::fs::create_dir_all(&work_dir).with_context(|| format!("--work-dir {}", work_dir.display()))?;
    let shown_work_dir = work_dir.display().to_string();
    // Every function a local session has: Ballista's default registry lacks DataFusion's
    // nested functions (array_to_string, ...), which clients plan with.
    let local = Session { resources: resources.clone(), ..Default::default() }.build()?;
    let registry = BallistaFunctionRegistry::from(&local.state());
    let config = ExecutorProcessConfig {
        bind_host: options.bind.ip().to_string(),
        external_host: Some(options.bind.ip().to_string()),
        port: options.bind.port(),
        grpc_port: options.grpc_port,
        scheduler_host: host,
        scheduler_port: port,
        work_dir: Some(work_dir.display().to_string()),
        // Spills go to the work directory; object stores are made from the environment.
        override_runtime_producer: Some(Arc::new(move |_| {
            let runtime = RuntimeEnvBuilder::new()
                .with_temp_file_path(work_dir.clone())
                .with_object_store_registry(Arc::new(StoresFromEnvironment::default()));
            runtime.build_arc()
        })),
        vcores: options.slots,
        executor_heartbeat_interval_seconds: options.heartbeat_seconds,
        override_function_registry: Some(Arc::new(registry)),
        override_logical_codec: Some(Codecs::logical()),
        override_physical_codec: Some(Codecs::physical()),
        ..ExecutorProcessConfig::default()
    };
    eprintln!(
        "pairmetrics executor: Flight on {}, tasks on port {}, work directory {}, scheduler {}",
        options.bind, options.grpc_port, shown_work_dir, options.scheduler
    );
    let scheduler = options.scheduler;
    start_executor_process(Arc::new(config)).await.with_context(|| format!("executor (scheduler {scheduler})"))?;
    Ok(())
}

/// Ballista's own messages, warnings and errors unless RUST_LOG says otherwise.
fn log_to_stderr() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).try_init();
}

/// Anyone who reaches a Ballista port can run any plan, and so read any file the process can.
fn warn_if_exposed(what: &str, bind: SocketAddr) {
    if !bind.ip().is_loopback() {
        eprintln!(
            "warning: this {what} listens on {bind}, beyond this machine. Whoever reaches that \
             port can run any plan and read any file this process can: keep it on a private \
             network (docs/cluster.md)."
        );
    }
}
