//! Corpus cleaning: OpusFilter's deterministic filters ([`opusfilter`]) and the Python library
//! code they rest on, ported with its quirks (difflib's `SequenceMatcher`, rapidfuzz's weighted
//! Levenshtein).

pub mod difflib;
pub mod hardrules;
pub mod html;
pub mod json;
pub mod levenshtein;
pub mod opusfilter;
pub mod regexp;
pub mod segment_hash;
