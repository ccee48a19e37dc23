//! Parquet in and out, below the jobs: inputs opened once ([`ParquetInput`]), the atomic
//! writer, copying input columns into an output as stored, and reading tables in lockstep.

pub mod copy;
pub mod dataset;
pub mod encoded;
pub mod input;
pub mod keys;
pub mod lockstep;
pub mod lockstep_table;
pub mod shares;
pub mod split;
pub mod write;

pub use input::{KeyOrder, ParquetInput};

/// The directory name of rows whose partition value is NULL, as Hive and Spark name it (and
/// read it back: as NULL).
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";
pub use dataset::{Layout, TableWriter};
pub use write::{AtomicParquetWriter, Codec, Encoding};
