//! The jobs behind the command line.

pub mod copied;
pub mod demo;
pub mod import;
pub mod lepod;
pub mod lockstep;
pub mod pivot;
pub mod resources;
pub mod score;
pub mod session;
pub mod sql;
pub mod triples;
pub mod write;
