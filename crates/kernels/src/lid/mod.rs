//! Language identification: py3langid 0.4.0's identifier with its model built in
//! ([`langid`]), py3langid 0.3.0's, which OpusFilter 3.3.1 runs ([`langid_legacy`]), fastText's
//! supervised models such as lid.176 ([`fasttext`]), lingua ([`lingua`]), and OpusFilter's
//! language-ID filter scores over them ([`filter`]).

pub mod fasttext;
pub mod filter;
pub mod langid;
pub mod langid_legacy;
pub mod lingua;
mod npz;
