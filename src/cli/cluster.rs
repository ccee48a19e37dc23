//! `pairmetrics cluster scheduler|executor`.

use std::path::PathBuf;

use anyhow::Result;

use super::args::ResourceArgs;

/// Run a Ballista cluster whose executors know every pairmetrics function (docs/cluster.md).
///
/// Start one scheduler and any number of executors (on one machine or several), then give
/// `sql` and `score` --cluster df://SCHEDULER:PORT. Needs the `cluster` feature
/// (cargo build --release --features cluster). Everything binds to 127.0.0.1 unless told:
/// whoever reaches these ports can run any plan and read any file the processes can, so
/// keep them on a private network.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    role: Role,
}

/// Ballista's usual ports, on loopback only.
const DEFAULT_SCHEDULER: &str = "127.0.0.1:50050";
const DEFAULT_EXECUTOR: &str = "127.0.0.1:50051";

#[derive(clap::Subcommand)]
enum Role {
    /// Start a scheduler: it plans the queries clients send and hands their tasks to executors.
    Scheduler {
        /// Where to listen for clients and executors.
        #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_SCHEDULER)]
        bind: std::net::SocketAddr,
        /// Seconds without a heartbeat after which an executor is taken as dead; its tasks, and
        /// the shuffle output it held, are computed again on the others.
        #[arg(long, value_name = "SECONDS", default_value_t = 60)]
        executor_timeout: u64,
    },
    /// Start an executor: it runs tasks with every pairmetrics function, bound to the resources
    /// given here (give every executor the same ones as the client).
    Executor {
        /// The scheduler to register with.
        #[arg(long, value_name = "HOST:PORT")]
        scheduler: String,
        /// Where to serve results and shuffle data (Arrow Flight).
        #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_EXECUTOR)]
        bind: std::net::SocketAddr,
        /// The port the scheduler sends tasks to (default: the --bind port + 1).
        #[arg(long, value_name = "PORT")]
        grpc_port: Option<u16>,
        /// Where shuffle files go (default: a new temporary directory).
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
        /// Tasks run at once (default: one per core).
        #[arg(long, value_name = "N", default_value_t = 0)]
        slots: usize,
        /// Seconds between heartbeats to the scheduler (keep it well under its
        /// --executor-timeout).
        #[arg(long, value_name = "SECONDS", default_value_t = 10)]
        heartbeat: u64,
        #[command(flatten)]
        resources: ResourceArgs,
    },
}

impl Args {
    #[cfg(feature = "cluster")]
    pub async fn run(self) -> Result<()> {
        use anyhow::Context;
        use pairmetrics::pipeline::cluster;
        use pairmetrics::resources;
        match self.role {
            Role::Scheduler {
                bind,
                executor_timeout,
            } => {
                cluster::run_scheduler(cluster::SchedulerOptions {
                    bind,
                    executor_timeout_seconds: executor_timeout,
                })
                .await
            }
            Role::Executor {
                scheduler,
                bind,
                grpc_port,
                work_dir,
                slots,
                heartbeat,
                resources: wanted,
            } => {
                let (resources, loaded) = resources::load(&wanted.options()?).await?;
                for line in loaded {
                    eprintln!("{line}");
                }
                let grpc_port = match grpc_port {
                    Some(port) => port,
                    None => bind
                        .port()
                        .checked_add(1)
                        .context("--bind: no port after it for --grpc-port")?,
                };
                let options = cluster::ExecutorOptions {
                    scheduler,
                    bind,
                    grpc_port,
                    work_dir,
                    slots,
                    heartbeat_seconds: heartbeat,
                };
                cluster::run_executor(options, &resources).await
            }
        }
    }

    #[cfg(not(feature = "cluster"))]
    pub async fn run(self) -> Result<()> {
        anyhow::bail!(
            "this pairmetrics was built without the `cluster` feature: cargo build --release --features cluster"
        )
    }
}
