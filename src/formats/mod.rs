//! Readers of external formats: streaming, with errors that name the file and line.

pub mod arpa;
pub mod conllu;
pub mod cpp;
pub mod decimal;
pub mod input;
pub mod meteor;
pub mod moses;
pub mod pharaoh;
pub mod python;
pub mod semeval2014t5;
pub mod svg;
pub mod syntactic_ngrams;
pub mod tabulate;
pub mod terminal;
pub mod xml;
