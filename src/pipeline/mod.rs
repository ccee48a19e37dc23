//! The jobs behind the command line.

pub mod align;
pub mod compare;
pub mod demo;
pub mod export;
pub mod extract;
pub mod import;
pub mod lepod;
pub mod parallel;
pub mod pivot;
pub mod report;
pub mod score;
pub mod semeval_eval;
pub mod show;
pub mod sql;
pub mod triples;
