//! Parsers and writers of the text formats the kernels read and write, over any `BufRead` /
//! `Write`, with errors that name the file and the line: the line reader ([`lines`]), ARPA
//! language models ([`arpa`]), CoNLL-U ([`conllu`]), bilingual dictionaries ([`dictionary`]),
//! METEOR's Matcher output ([`meteor`]), Moses phrase tables ([`moses`]), Pharaoh links
//! ([`pharaoh`]) and syntactic n-grams ([`syntactic_ngrams`]). They are here, not in the main
//! crate, so that fuzzing them builds without the query engine.

pub mod arpa;
pub mod conllu;
pub mod dictionary;
pub mod lines;
pub mod meteor;
pub mod moses;
pub mod pharaoh;
pub mod syntactic_ngrams;
