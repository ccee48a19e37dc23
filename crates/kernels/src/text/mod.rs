//! Text helpers the kernels share: Python's whitespace ([`whitespace`]), string interning
//! ([`intern`]), C++'s and Python's ways of printing numbers ([`cpp`], [`python`]).

pub mod cpp;
pub mod intern;
pub mod python;
pub mod whitespace;
