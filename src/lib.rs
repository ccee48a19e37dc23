//! pairmetrics: sentence-pair metrics (LePoD, DERP, sacrebleu's, ...) as DataFusion functions over
//! Parquet tables, and the commands around them.
//!
//! - the kernels, plain Rust over tokens with no Arrow, are the crate `pairmetrics-kernels`
//!   ([`kernels`]), its families re-exported here: [`pair`], [`sacrebleu`], [`stats`], [`lm`],
//!   [`smt`], [`align`], [`text`];
//! - [`formats`]: readers of external formats (the kernels' parsers, re-exported, and what opens
//!   local, remote and compressed files);
//! - [`schema`]: our tables' Arrow types and schemas, and the checks on inputs;
//! - [`arrow`]: builders of the columns we write and row views of the columns we read;
//! - [`udf`]: DataFusion adapters, all registered by [`register_all`];
//! - [`resources`]: what functions need beyond their arguments (phrase table, triples, LM),
//!   loaded once;
//! - [`storage`]: local paths and object stores, atomic outputs, the inputs read, Delta;
//! - [`parquet`]: Parquet inputs opened once, the atomic writer, column copying, lockstep reading;
//! - [`session`]: the DataFusion session every command runs in, tables registered, results
//!   written;
//! - [`parallel`], [`sentences`]: what several jobs share (records mapped on every core in
//!   order; the sentences a job reads);
//! - [`pipeline`]: the jobs behind the command line, a module each;
//! - `cluster` (the `cluster` feature): Ballista's client side, the codecs of our plan nodes.

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

pub use pairmetrics_kernels::{
    self as kernels, align, clean, dedup, lid, lm, pair, sacrebleu, smt, stats, text,
};
pub use resources::Resources;
pub use udf::{register_all, register_all_with, register_table_functions};

/// The version written into every output's signature.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
