//! Metric kernels: plain Rust, no Arrow, no I/O.

pub mod lepod;
