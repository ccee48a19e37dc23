//! Metric kernels: plain Rust, no Arrow, no I/O.

pub mod derp;
pub mod lepod;
pub mod rank;
pub mod true_score;

use std::fmt;

/// A word-alignment link: (position in the first sentence, position in the second), 0-based.
pub type Link = (u32, u32);

/// Which sentence of a pair something is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Src,
    Tgt,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Src => "src",
            Side::Tgt => "tgt",
        })
    }
}
