//! Duplicate and near-duplicate detection: MinHash signatures as datasketch 2.0 computes them
//! ([`minhash`]).

pub mod minhash;
