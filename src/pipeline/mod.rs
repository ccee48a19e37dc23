//! The jobs behind the command line.

pub mod align;
pub mod align_words;
pub mod atools;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod compare;
pub mod decode;
pub mod demo;
pub mod export;
pub mod extract;
pub mod fast_align;
pub mod fasttext;
pub mod import;
pub mod l2_assist;
pub mod lepod;
pub mod lm_estimate;
pub mod paraphrase;
pub mod pivot;
pub mod report;
pub mod rerank;
pub mod sacrebleu;
pub mod score;
pub mod semeval_eval;
pub mod show;
pub mod sql;
pub mod triples;
