//! `pairmetrics cluster scheduler|executor`: Apache DataFusion Ballista processes with
//! pairmetrics' functions: a scheduler whose sessions plan with them, executors whose function
//! registry runs them (bound to the resources each executor loads). The client side, and the
//! codecs both sides share, are in `crate::cluster` (docs/cluster.md).
//!
//! Ballista ships plans by function name: an executor runs `true_score` with its own phrase
//! table, so every executor must load the same resources as the client.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;

use crate::Resources;
use crate::cluster::Codecs;
use crate::session::Session;
use crate::storage::StoresFromEnvironment;

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
            let stores = RuntimeEnvBuilder::new()
                .with_object_store_registry(Arc::new(StoresFromEnvironment::default()));
            let state = default_session_builder(config)?;
            let mut state = SessionStateBuilder::new_from_existing(state)
                .with_runtime_env(stores.build_arc()?)
                .build();
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
    std::fs::create_dir_all(&work_dir)
        .with_context(|| format!("--work-dir {}", work_dir.display()))?;
    let shown_work_dir = work_dir.display().to_string();
    // Every function a local session has: Ballista's default registry lacks DataFusion's
    // nested functions (array_to_string, ...), which clients plan with.
    let local = Session {
        resources: resources.clone(),
        ..Default::default()
    }
    .build()?;
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
    start_executor_process(Arc::new(config))
        .await
        .with_context(|| format!("executor (scheduler {scheduler})"))?;
    Ok(())
}

/// Ballista's own messages, warnings and errors unless RUST_LOG says otherwise.
fn log_to_stderr() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .try_init();
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
