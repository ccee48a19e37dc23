//! Duplicate and near-duplicate detection: MinHash signatures as datasketch 2.0 computes them
//! ([`minhash`]), the LSH bands that make its candidate pairs a join and the parameters
//! `MinHashLSH` chooses ([`lsh`]), and the groups of rows that share keys, for inputs larger than
//! memory ([`groups`]); character shingles ([`shingles`]).

pub mod groups;
pub mod lsh;
pub mod minhash;
pub mod shingles;
