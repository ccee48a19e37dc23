//! The one integration-test binary: SQL end to end, the CLI, and the reference vectors.

mod bad_input;
mod bleu;
mod chrf;
mod cli;
#[cfg(feature = "cluster")]
mod cluster;
mod common;
mod corpus_tests;
mod decode;
mod derp;
mod docs;
mod edges;
mod extract;
mod fast_align;
mod fitness;
mod import;
mod l2_assist;
mod lepod_vectors;
mod lmplz;
mod mcpg;
mod meteor_align;
mod pivot;
mod properties;
mod rank;
mod raw_text;
mod reliability;
mod report;
mod rerank;
mod sacrebleu_cli;
mod schemas;
mod semeval;
mod significance;
mod storage;
mod ter;
mod true_score;
mod udf_types;
