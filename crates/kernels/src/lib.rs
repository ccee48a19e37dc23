//! pairmetrics' kernels: plain Rust over tokens, links and numbers, with no Arrow, no DataFusion
//! and no I/O beyond the files a kernel is handed (its resources) and its own scratch directory.
//! The main crate (`pairmetrics`) wraps them as SQL functions and commands.
//!
//! The families, as the guides name them:
//! - [`pair`]: pair metrics (LePoD, DERP, the true score, dependency fitness, word accuracy,
//!   rank agreement);
//! - [`sacrebleu`]: sacrebleu's BLEU, chrF and TER, their corpus statistics and paired tests;
//! - [`stats`]: significance tests and the random generators they draw from;
//! - [`clean`]: corpus cleaning (OpusFilter's filters, difflib, rapidfuzz's Levenshtein,
//!   CPython's `html.parser`, the `regex` module's patterns);
//! - [`dedup`]: duplicate detection (datasketch's MinHash);
//! - [`lid`]: language identification (py3langid 0.4.0's and 0.3.0's, fastText's supervised
//!   models, lingua, OpusFilter's filter scores);
//! - [`lm`]: n-gram language models (scoring, modified Kneser-Ney estimation);
//! - [`smt`]: statistical MT (phrase extraction, synthetic phrases, the decoder, MCPG, MERT,
//!   l2-assist);
//! - [`align`]: word aligners (METEOR 1.5's, fast_align's with symmetrisation);
//! - [`text`]: text helpers (Python's whitespace, interning, C++ number printing);
//! - [`formats`]: parsers and writers of text formats over readers (ARPA, CoNLL-U, METEOR's
//!   Matcher output, Moses, Pharaoh, syntactic n-grams) and the line reader they share;
//! - [`spill`]: record lists that spill to a scratch directory, so memory stays bounded.

pub mod align;
pub mod clean;
pub mod dedup;
pub mod formats;
pub mod lid;
pub mod lm;
pub mod pair;
pub mod sacrebleu;
pub mod smt;
pub mod spill;
pub mod stats;
pub mod sys;
pub mod text;

use std::fmt;

/// Add a segment's statistics to a running total, element by element, the total growing to fit:
/// BLEU's and chrF's corpus statistics are the sums of their segments'.
pub fn add_stats(total: &mut Vec<u64>, stats: &[u64]) {
    if total.len() < stats.len() {
        total.resize(stats.len(), 0);
    }
    for (total, &x) in total.iter_mut().zip(stats) {
        *total += x;
    }
}

/// A word-alignment link: (position in the first sentence, position in the second), 0-based.
pub type Link = (u32, u32);

/// The links of a phrase match `s1[s1_start..+s1_len]` <-> `s2[s2_start..+s2_len]`: every word
/// of one span with every word of the other, so the match is one LePoD unit.
pub fn span_links(
    s1_start: u32,
    s1_len: u32,
    s2_start: u32,
    s2_len: u32,
) -> impl Iterator<Item = Link> {
    (s1_start..s1_start + s1_len)
        .flat_map(move |a| (s2_start..s2_start + s2_len).map(move |b| (a, b)))
}

/// Which sentence of a pair something is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Src,
    Tgt,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Src => "src",
            Side::Tgt => "tgt",
        })
    }
}
