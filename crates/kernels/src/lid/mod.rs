//! Language identification: py3langid 0.4.0's identifier with its model built in
//! ([`langid`]), fastText's supervised models such as lid.176 ([`fasttext`]), and OpusFilter's
//! language-ID filter score over either ([`filter`]).

pub mod fasttext;
pub mod filter;
pub mod langid;
pub mod langid_legacy;
pub mod lingua;
mod npz;
