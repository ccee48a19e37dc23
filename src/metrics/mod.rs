//! Metric kernels: plain Rust, no Arrow, no I/O.

pub mod bleu;
pub mod chrf;
pub mod decode;
pub mod dep_fit;
pub mod derp;
pub mod intern;
pub mod keyed_totals;
pub mod kneser_ney;
pub mod l2_assist;
pub mod lepod;
pub mod mcpg;
pub mod mert;
pub mod mteval;
pub mod ngram;
pub mod numpy_random;
pub mod phrases;
pub mod random;
pub mod rank;
pub mod sacrebleu;
pub mod sacrebleu_significance;
pub mod significance;
pub mod synthetic;
pub mod ter;
pub mod true_score;
pub mod whitespace;
pub mod word_accuracy;

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
