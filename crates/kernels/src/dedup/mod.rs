//! Duplicate and near-duplicate detection: MinHash signatures as datasketch 2.0 computes them
//! ([`minhash`]), the LSH bands that make its candidate pairs a join and the parameters
//! `MinHashLSH` chooses ([`lsh`]).

pub mod lsh;
pub mod minhash;
