//! n-gram language models: scoring with an ARPA model ([`ngram`]) and modified Kneser-Ney
//! estimation as KenLM's lmplz does it ([`kneser_ney`]).

pub mod kneser_ney;
pub mod ngram;
