//! Readers of external formats: streaming, with errors that name the file and line. The parsers
//! that need only a reader are the kernels' (`pairmetrics_kernels::formats`), re-exported here;
//! this module adds what opens files (local, remote, compressed) and the formats of the jobs.

pub mod arpa;
pub mod decimal;
pub mod hardrules_config;
pub mod input;
pub mod opusfilter_config;
pub mod semeval2014t5;
pub mod svg;
pub mod tabulate;
pub mod terminal;
pub mod xml;

pub use pairmetrics_kernels::formats::{
    conllu, dictionary, meteor, moses, pharaoh, syntactic_ngrams,
};
