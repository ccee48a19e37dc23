//! Text helpers the kernels share: Python's whitespace ([`whitespace`]), string interning
//! ([`intern`]), C++'s way of printing numbers ([`cpp`]).

pub mod cpp;
pub mod intern;
pub mod whitespace;
