//! ARPA back-off language models: the kernels' parser and writer
//! (`pairmetrics_kernels::formats::arpa`), and a model read from a file by path.

use std::path::Path;

pub use pairmetrics_kernels::formats::arpa::*;

use super::input::{self, InputError, Lines};
use crate::lm::ngram::NgramModel;

/// Read an ARPA file (plain, gzip or zstd; local or remote).
pub fn read(path: &Path) -> Result<NgramModel, InputError> {
    parse(&mut Lines::new(input::open(path)?, path))
}
