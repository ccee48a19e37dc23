//! pairmetrics: sentence-pair metrics (LePoD, ...) as DataFusion UDFs over Parquet tables.
//!
//! - the kernels, plain Rust over tokens with no Arrow, are the crate `pairmetrics-kernels`
//!   ([`kernels`]), its families re-exported here: [`pair`], [`sacrebleu`], [`stats`], [`lm`],
//!   [`smt`], [`align`], [`text`];
//! - [`udf`]: DataFusion adapters, all registered by [`register_all`];
//! - [`schema`]: our tables' Arrow schemas and the checks on inputs;
//! - [`formats`]: parsers of external formats;
//! - [`parquet`]: Parquet inputs opened once, the atomic writer, column copying, lockstep reading;
//! - [`session`]: the DataFusion session every command runs in, tables registered, results
//!   written;
//! - [`parallel`], [`sentences`]: what several jobs share (records mapped on every core in
//!   order; the sentences a job reads);
//! - [`pipeline`]: the jobs behind the command line (`score`, `sql`, `demo`);
//! - `cluster` (the `cluster` feature): a Ballista scheduler and executors with our functions.

pub mod arrow;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod formats;
pub mod parallel;
pub mod parquet;
pub mod pipeline;
pub mod resources;
pub mod schema;
pub mod sentences;
pub mod session;
pub mod storage;
pub mod udf;

pub use pairmetrics_kernels::{self as kernels, align, lm, pair, sacrebleu, smt, stats, text};
pub use resources::Resources;
pub use udf::{register_all, register_all_with, register_table_functions};

/// The version written into every output's signature.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
