//! Parquet in and out, below the jobs: inputs opened once ([`ParquetInput`]), the atomic
//! writer, copying input columns into an output as stored, and reading tables in lockstep.

pub mod copy;
pub mod dataset;
pub mod encoded;
pub mod input;
pub mod lockstep;
pub mod lockstep_table;
pub mod shares;
pub mod split;
pub mod write;

pub use input::{KeyOrder, ParquetInput};
pub use dataset::{Layout, TableWriter};
pub use write::{AtomicParquetWriter, Codec};
