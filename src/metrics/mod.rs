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
pub mod word_accuracy;

use std::fmt;

/// Whitespace as Python's `str.split()` and `str.strip()` see it: Rust's `char::is_whitespace`
/// and U+001C..U+001F (Python counts the information separators as whitespace). sacrebleu's
/// metrics split on it.
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Words as Python's `str.split()` gives them.
pub fn python_words(text: &str) -> PythonWords<'_> {
    PythonWords {
        rest: text,
        ascii: text.is_ascii(),
    }
}

/// The iterator of [`python_words`]: over bytes when the text is ASCII (most text), over
/// characters otherwise.
pub struct PythonWords<'a> {
    rest: &'a str,
    ascii: bool,
}

impl<'a> Iterator for PythonWords<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (start, len) = if self.ascii {
            // Python's ASCII whitespace: \t \n \v \f \r, the separators 0x1c-0x1f and space.
            let space = |b: &u8| matches!(b, b'\t'..=b'\r' | 0x1c..=0x20);
            let bytes = self.rest.as_bytes();
            let start = bytes.iter().position(|b| !space(b))?;
            let len = bytes[start..].iter().position(space);
            (start, len.unwrap_or(bytes.len() - start))
        } else {
            let start = self.rest.find(|c| !is_python_whitespace(c))?;
            let len = self.rest[start..].find(is_python_whitespace);
            (start, len.unwrap_or(self.rest.len() - start))
        };
        let word = &self.rest[start..start + len];
        self.rest = &self.rest[start + len..];
        Some(word)
    }
}

/// Add a segment's statistics to a running total, element by element: BLEU's and chrF's corpus
/// statistics are the sums of their segments'.
pub fn add_stats(total: &mut [u64], stats: &[u64]) {
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
