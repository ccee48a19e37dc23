//! Parquet in and out, below the jobs: inputs opened once ([`ParquetInput`]), the atomic
//! writer, copying input columns into an output as stored, and reading tables in lockstep.

pub mod copy;
mod input;
pub mod lockstep;
pub mod write;

pub use input::{KeyOrder, ParquetInput};
pub use write::{AtomicParquetWriter, Codec};
