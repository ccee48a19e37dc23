//! Phrase-based translation models from word-aligned bitext, as Moses builds them (Koehn, Och &
//! Marcu 2003): the consistent phrase pairs of one aligned sentence pair (Moses' `extract`), the
//! word translation table (`train-model.perl`'s lexical step) and the lexical weighting of a
//! phrase pair (Moses' `score`).
//!
//! In Moses' terms the source side (`src`) is f and the target side (`tgt`) is e; extraction
//! walks target spans and projects them onto the source, as `extract` does, so the phrase pairs
//! come out in Moses' order.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use crate::Link;
use crate::text::intern::Interner;

/// Phrases longer than this are refused: phrase-internal positions are stored in one byte.
pub const MAX_PHRASE_LENGTH: usize = 255;

/// One extracted phrase pair: a source span and a target span of the sentence pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseSpan {
    pub src: Range<u32>,
    pub tgt: Range<u32>,
}

/// Why a sentence pair cannot be extracted from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractError {
    LinkOutOfRange {
        index: usize,
        link: Link,
        src_len: usize,
        tgt_len: usize,
    },
    /// An empty token, or one holding whitespace: phrases are tokens joined by spaces.
    BadToken { side: &'static str, index: usize },
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::LinkOutOfRange {
                index,
                link: (s, t),
                src_len,
                tgt_len,
            } => write!(
                f,
                "links[{index}] = {s}-{t} is outside the sentences ({src_len} src and {tgt_len} tgt tokens)"
            ),
            ExtractError::BadToken { side, index } => {
                write!(
                    f,
                    "{side}[{index}] is empty or holds whitespace (phrases are tokens joined by spaces)"
                )
            }
        }
    }
}

/// A sentence pair's alignment, indexed both ways. Duplicate links count once (an alignment
/// is a set).
#[derive(Debug, Default)]
pub struct Aligned {
    /// Links sorted by (tgt, src), deduplicated.
    by_tgt: Vec<Link>,
    /// Where each target word's links start in `by_tgt` (`tgt_len + 1` offsets).
    tgt_starts: Vec<usize>,
    /// How many links each source word has.
    src_counts: Vec<u32>,
}

impl Aligned {
    /// Index `links` (src, tgt) of a pair of `src_len` and `tgt_len` tokens.
    pub fn new(src_len: usize, tgt_len: usize, links: &[Link]) -> Result<Aligned, ExtractError> {
        let mut aligned = Aligned::default();
        aligned.reset(src_len, tgt_len, links)?;
        Ok(aligned)
    }

    /// [`Aligned::new`], reusing this one's memory.
    pub fn reset(
        &mut self,
        src_len: usize,
        tgt_len: usize,
        links: &[Link],
    ) -> Result<(), ExtractError> {
        if let Some((index, &link)) = links
            .iter()
            .enumerate()
            .find(|&(_, &(s, t))| s as usize >= src_len || t as usize >= tgt_len)
        {
            return Err(ExtractError::LinkOutOfRange {
                index,
                link,
                src_len,
                tgt_len,
            });
        }
        self.by_tgt.clear();
        self.by_tgt.extend_from_slice(links);
        self.by_tgt.sort_unstable_by_key(|&(s, t)| (t, s));
        self.by_tgt.dedup();
        self.tgt_starts.clear();
        self.tgt_starts.resize(tgt_len + 1, 0);
        self.src_counts.clear();
        self.src_counts.resize(src_len, 0);
        for &(s, t) in &self.by_tgt {
            self.tgt_starts[t as usize + 1] += 1;
            self.src_counts[s as usize] += 1;
        }
        for t in 0..tgt_len {
            self.tgt_starts[t + 1] += self.tgt_starts[t];
        }
        Ok(())
    }

    pub fn src_len(&self) -> usize {
        self.src_counts.len()
    }

    pub fn tgt_len(&self) -> usize {
        self.tgt_starts.len() - 1
    }

    /// The links of target words `tgt`, sorted by (tgt, src).
    pub fn links_of_tgt(&self, tgt: Range<u32>) -> &[Link] {
        &self.by_tgt[self.tgt_starts[tgt.start as usize]..self.tgt_starts[tgt.end as usize]]
    }

    /// Every consistent phrase pair with both sides at most `max_length` tokens, in the order
    /// Moses' `extract` finds them: target spans by start then end; for each, source spans from
    /// the tightest one, widened over unaligned source words (start leftwards, then end
    /// rightwards). A target span with no link gives none; unaligned target words are taken in
    /// at the edges because every target span is tried.
    pub fn extract(&self, max_length: usize, out: &mut Vec<PhraseSpan>) {
        out.clear();
        let (src_len, tgt_len) = (self.src_len(), self.tgt_len());
        let max_length = max_length.min(MAX_PHRASE_LENGTH);
        // Per source word: its links still outside the current target span.
        let mut outside: Vec<u32> = self.src_counts.clone();
        for start in 0..tgt_len {
            let (mut min_src, mut max_src) = (usize::MAX, 0usize);
            let mut any = false;
            let end_limit = tgt_len.min(start + max_length);
            for end in start..end_limit {
                for &(s, _) in self.links_of_tgt(end as u32..end as u32 + 1) {
                    let s = s as usize;
                    min_src = min_src.min(s);
                    max_src = max_src.max(s);
                    outside[s] -= 1;
                    any = true;
                }
                if !any || max_src - min_src >= max_length {
                    continue;
                }
                // Consistent: no source word in the projection links outside the target span.
                if outside[min_src..=max_src].iter().any(|&n| n > 0) {
                    continue;
                }
                let mut first = min_src;
                loop {
                    let mut last = max_src;
                    while last < src_len && last < first + max_length {
                        out.push(PhraseSpan {
                            src: first as u32..last as u32 + 1,
                            tgt: start as u32..end as u32 + 1,
                        });
                        last += 1;
                        if last >= src_len || self.src_counts[last] != 0 {
                            break;
                        }
                    }
                    if first == 0
                        || self.src_counts[first - 1] != 0
                        || first - 1 + max_length <= max_src
                    {
                        break;
                    }
                    first -= 1;
                }
            }
            outside.copy_from_slice(&self.src_counts);
        }
    }

    /// Calls `pair(src, tgt)` for every word pair the word translation table counts, as
    /// `train-model.perl` does: each link, then each unaligned target word with the empty source
    /// word (None), then each unaligned source word with the empty target word.
    pub fn word_pairs(&self, mut pair: impl FnMut(Option<u32>, Option<u32>)) {
        for &(s, t) in &self.by_tgt {
            pair(Some(s), Some(t));
        }
        for t in 0..self.tgt_len() {
            if self.tgt_starts[t] == self.tgt_starts[t + 1] {
                pair(None, Some(t as u32));
            }
        }
        for (s, &count) in self.src_counts.iter().enumerate() {
            if count == 0 {
                pair(Some(s as u32), None);
            }
        }
    }
}

/// A phrase pair's internal alignment: links relative to the phrases' starts, sorted by
/// (tgt, src), as Moses prints it.
pub fn phrase_alignment(aligned: &Aligned, span: &PhraseSpan, out: &mut Vec<Link>) {
    out.clear();
    out.extend(
        aligned
            .links_of_tgt(span.tgt.clone())
            .iter()
            .map(|&(s, t)| (s - span.src.start, t - span.tgt.start)),
    );
}

/// Which of a phrase pair's alignments Moses' `score` keeps when one phrase pair was extracted
/// with several: the most frequent, ties going to the greatest alignment as Moses compares them
/// (per explained word in order, the set of words explaining it). `alignment_key` encodes that
/// order as bytes, so that comparing keys compares alignments: for each explained word, its
/// explaining positions + 1, then a 0. `Direction::TgtGivenSrc` is the direct table's choice
/// (target words explained), `SrcGivenTgt` the inverse table's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// lex(e|f): every target word explained by the source words it links to.
    TgtGivenSrc,
    /// lex(f|e): every source word explained by the target words it links to.
    SrcGivenTgt,
}

/// See [`Direction`]: `alignment` is relative and sorted by (tgt, src); `lengths` are (src, tgt).
pub fn alignment_key(
    alignment: &[Link],
    lengths: (usize, usize),
    direction: Direction,
    out: &mut Vec<u8>,
) {
    out.clear();
    match direction {
        Direction::TgtGivenSrc => {
            let mut links = alignment.iter().peekable();
            for t in 0..lengths.1 as u32 {
                while let Some(&(s, _)) = links.next_if(|l| l.1 == t) {
                    out.push(s as u8 + 1);
                }
                out.push(0);
            }
        }
        Direction::SrcGivenTgt => {
            let mut by_src: Vec<Link> = alignment.to_vec();
            by_src.sort_unstable();
            let mut links = by_src.iter().peekable();
            for s in 0..lengths.0 as u32 {
                while let Some(&(_, t)) = links.next_if(|l| l.0 == s) {
                    out.push(t as u8 + 1);
                }
                out.push(0);
            }
        }
    }
}

/// The word translation table w(tgt|src) and w(src|tgt), by relative frequency of the word
/// pairs [`Aligned::word_pairs`] gives, over a corpus.
#[derive(Debug, Default)]
pub struct Lexicon {
    src_words: Interner,
    tgt_words: Interner,
    /// Count of each (src, tgt) word pair; id 0 on either side is the empty word.
    joint: HashMap<(u32, u32), f64>,
    src_totals: Vec<f64>,
    tgt_totals: Vec<f64>,
}

impl Lexicon {
    pub fn new() -> Lexicon {
        let mut lexicon = Lexicon::default();
        // Id 0 is the empty word on both sides; its string cannot be a token ("").
        lexicon.src_words.intern("");
        lexicon.tgt_words.intern("");
        lexicon
    }

    /// Count one word pair; None is the empty word.
    pub fn add(&mut self, src: Option<&str>, tgt: Option<&str>) {
        let s = src.map_or(0, |w| self.src_words.intern(w));
        let t = tgt.map_or(0, |w| self.tgt_words.intern(w));
        *self.joint.entry((s, t)).or_default() += 1.0;
        for (totals, id) in [(&mut self.src_totals, s), (&mut self.tgt_totals, t)] {
            if totals.len() <= id as usize {
                totals.resize(id as usize + 1, 0.0);
            }
            totals[id as usize] += 1.0;
        }
    }

    /// Distinct word pairs counted.
    pub fn len(&self) -> usize {
        self.joint.len()
    }

    pub fn is_empty(&self) -> bool {
        self.joint.is_empty()
    }

    /// w(tgt|src) for `TgtGivenSrc`, w(src|tgt) for `SrcGivenTgt`; None is the empty word. 0 for
    /// a pair never counted.
    pub fn probability(&self, direction: Direction, src: Option<&str>, tgt: Option<&str>) -> f64 {
        let id = |words: &Interner, w: Option<&str>| match w {
            None => Some(0),
            Some(w) => words.get(w),
        };
        let (Some(s), Some(t)) = (id(&self.src_words, src), id(&self.tgt_words, tgt)) else {
            return 0.0;
        };
        let Some(&joint) = self.joint.get(&(s, t)) else {
            return 0.0;
        };
        joint
            / match direction {
                Direction::TgtGivenSrc => self.src_totals[s as usize],
                Direction::SrcGivenTgt => self.tgt_totals[t as usize],
            }
    }

    /// Moses' lexical weighting of a phrase pair under `alignment` (relative, sorted by (tgt,
    /// src)): for lex(e|f), the product over target words of the mean of w(e|f) over the source
    /// words linked to it, w(e|NULL) for an unlinked one; lex(f|e) the other way round. Summed
    /// and multiplied in Moses' order, so the floating-point result is the same.
    pub fn weight(
        &self,
        direction: Direction,
        src: &[&str],
        tgt: &[&str],
        alignment: &[Link],
    ) -> f64 {
        let mut product = 1.0;
        let mut explain = |word: usize, linked: &mut dyn Iterator<Item = usize>| {
            let mut sum = 0.0;
            let mut n = 0usize;
            for other in linked {
                sum += match direction {
                    Direction::TgtGivenSrc => {
                        self.probability(direction, Some(src[other]), Some(tgt[word]))
                    }
                    Direction::SrcGivenTgt => {
                        self.probability(direction, Some(src[word]), Some(tgt[other]))
                    }
                };
                n += 1;
            }
            product *= if n == 0 {
                match direction {
                    Direction::TgtGivenSrc => self.probability(direction, None, Some(tgt[word])),
                    Direction::SrcGivenTgt => self.probability(direction, Some(src[word]), None),
                }
            } else {
                sum / n as f64
            };
        };
        match direction {
            Direction::TgtGivenSrc => {
                for t in 0..tgt.len() {
                    explain(
                        t,
                        &mut alignment
                            .iter()
                            .filter(|l| l.1 as usize == t)
                            .map(|l| l.0 as usize),
                    );
                }
            }
            Direction::SrcGivenTgt => {
                for s in 0..src.len() {
                    // Ascending target positions: `alignment` is sorted by (tgt, src).
                    explain(
                        s,
                        &mut alignment
                            .iter()
                            .filter(|l| l.0 as usize == s)
                            .map(|l| l.1 as usize),
                    );
                }
            }
        }
        product
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(
        src_len: usize,
        tgt_len: usize,
        links: &[Link],
        max: usize,
    ) -> Vec<((u32, u32), (u32, u32))> {
        let aligned = Aligned::new(src_len, tgt_len, links).unwrap();
        let mut out = Vec::new();
        aligned.extract(max, &mut out);
        out.into_iter()
            .map(|p| ((p.src.start, p.src.end), (p.tgt.start, p.tgt.end)))
            .collect()
    }

    /// Every consistent phrase pair by the definition, enumerated over all span pairs.
    fn brute_force(
        src_len: usize,
        tgt_len: usize,
        links: &[Link],
        max: usize,
    ) -> Vec<((u32, u32), (u32, u32))> {
        let mut out = Vec::new();
        for ts in 0..tgt_len {
            for te in ts + 1..=tgt_len.min(ts + max) {
                for ss in 0..src_len {
                    for se in ss + 1..=src_len.min(ss + max) {
                        let inside = |&&(s, t): &&Link| {
                            let (s, t) = (s as usize, t as usize);
                            (ss..se).contains(&s) && (ts..te).contains(&t)
                        };
                        let touches = |&&(s, t): &&Link| {
                            (ss..se).contains(&(s as usize)) || (ts..te).contains(&(t as usize))
                        };
                        let consistent = links.iter().filter(touches).all(|l| inside(&l));
                        if consistent && links.iter().any(|l| inside(&l)) {
                            out.push(((ss as u32, se as u32), (ts as u32, te as u32)));
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn unaligned_words_at_the_edges_widen_the_source_side_only() {
        // src: a b c, tgt: x y; b-x, c-y; a unaligned.
        let got = spans(3, 2, &[(1, 0), (2, 1)], 7);
        assert_eq!(
            got,
            vec![
                ((1, 2), (0, 1)),
                ((0, 2), (0, 1)),
                ((1, 3), (0, 2)),
                ((0, 3), (0, 2)),
                ((2, 3), (1, 2)),
            ]
        );
    }

    #[test]
    fn a_crossing_link_blocks_the_span() {
        // src: a b, tgt: x y; a-y, b-x, a-x: {b}->{x} is inconsistent (x links a too).
        let got = spans(2, 2, &[(0, 1), (1, 0), (0, 0)], 7);
        assert_eq!(got, vec![((0, 2), (0, 2))]);
    }

    #[test]
    fn the_length_limit_applies_to_both_sides() {
        let links: Vec<Link> = (0..4).map(|i| (i, i)).collect();
        let got = spans(4, 4, &links, 2);
        assert!(got.iter().all(|((a, b), (c, d))| b - a <= 2 && d - c <= 2));
        assert_eq!(got.len(), 4 + 3);
    }

    #[test]
    fn extraction_equals_the_definition_on_every_small_alignment() {
        // Every alignment of a 3x3 pair (2^9), with maximum lengths 2 and 7.
        for mask in 0u32..512 {
            let links: Vec<Link> = (0..9)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| (b / 3, b % 3))
                .collect();
            for max in [2, 7] {
                let mut got = spans(3, 3, &links, max);
                let mut want = brute_force(3, 3, &links, max);
                got.sort();
                want.sort();
                assert_eq!(got, want, "links {links:?}, max {max}");
            }
        }
    }

    #[test]
    fn out_of_range_links_are_named() {
        let e = Aligned::new(2, 2, &[(0, 0), (2, 1)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "links[1] = 2-1 is outside the sentences (2 src and 2 tgt tokens)"
        );
    }

    #[test]
    fn alignment_keys_order_as_moses_compares_alignments() {
        // Target-to-source sets [{}, {0}] < [{0}, {}]: the empty set is smallest.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        alignment_key(&[(0, 1)], (1, 2), Direction::TgtGivenSrc, &mut a);
        alignment_key(&[(0, 0)], (1, 2), Direction::TgtGivenSrc, &mut b);
        assert!(a < b);
        // [{0}] < [{0, 1}] (a prefix is smaller), [{0, 2}] < [{1}].
        alignment_key(&[(0, 0)], (3, 1), Direction::TgtGivenSrc, &mut a);
        alignment_key(&[(0, 0), (1, 0)], (3, 1), Direction::TgtGivenSrc, &mut b);
        assert!(a < b);
        alignment_key(&[(0, 0), (2, 0)], (3, 1), Direction::TgtGivenSrc, &mut a);
        alignment_key(&[(1, 0)], (3, 1), Direction::TgtGivenSrc, &mut b);
        assert!(a < b);
    }

    #[test]
    fn lexical_weights_by_hand() {
        // Corpus: "a b" / "x" with a-x (b unaligned), and "a" / "x y" with a-x (y unaligned).
        let mut lexicon = Lexicon::new();
        for (src, tgt, links) in [
            (vec!["a", "b"], vec!["x"], vec![(0, 0)]),
            (vec!["a"], vec!["x", "y"], vec![(0, 0)]),
        ] {
            let aligned = Aligned::new(src.len(), tgt.len(), &links).unwrap();
            aligned.word_pairs(|s, t| {
                lexicon.add(s.map(|i| src[i as usize]), t.map(|i| tgt[i as usize]))
            });
        }
        // Pairs: (a,x) 2, (b,NULL) 1, (NULL,y) 1. Totals: src a 2, b 1, NULL 1; tgt x 2, y 1, NULL 1.
        let p = |d, s, t| lexicon.probability(d, s, t);
        assert_eq!(p(Direction::TgtGivenSrc, Some("a"), Some("x")), 1.0);
        assert_eq!(p(Direction::TgtGivenSrc, None, Some("y")), 1.0);
        assert_eq!(p(Direction::SrcGivenTgt, Some("b"), None), 1.0);
        assert_eq!(p(Direction::SrcGivenTgt, Some("a"), Some("x")), 1.0);
        assert_eq!(p(Direction::SrcGivenTgt, Some("a"), Some("y")), 0.0);
        // lex(e|f) of "a" -> "x y" with a-x: w(x|a) * w(y|NULL) = 1 * 1.
        assert_eq!(
            lexicon.weight(Direction::TgtGivenSrc, &["a"], &["x", "y"], &[(0, 0)]),
            1.0
        );
        // lex(f|e) of "a b" -> "x" with a-x: w(a|x) * w(b|NULL) = 1 * 1.
        assert_eq!(
            lexicon.weight(Direction::SrcGivenTgt, &["a", "b"], &["x"], &[(0, 0)]),
            1.0
        );
    }

    #[test]
    fn a_word_linked_twice_takes_the_mean() {
        // "a b" / "x": a-x, b-x, and "a" / "x": a-x. Pairs (a,x) 2, (b,x) 1; src totals a 2, b 1.
        let mut lexicon = Lexicon::new();
        for (src, links) in [
            (vec!["a", "b"], vec![(0, 0), (1, 0)]),
            (vec!["a"], vec![(0, 0)]),
        ] {
            let aligned = Aligned::new(src.len(), 1, &links).unwrap();
            aligned.word_pairs(|s, t| lexicon.add(s.map(|i| src[i as usize]), t.map(|_| "x")));
        }
        // lex(e|f) = (w(x|a) + w(x|b)) / 2 = 1; lex(f|e) = w(a|x) * w(b|x) = 2/3 * 1/3.
        assert_eq!(
            lexicon.weight(
                Direction::TgtGivenSrc,
                &["a", "b"],
                &["x"],
                &[(0, 0), (1, 0)]
            ),
            1.0
        );
        assert_eq!(
            lexicon.weight(
                Direction::SrcGivenTgt,
                &["a", "b"],
                &["x"],
                &[(0, 0), (1, 0)]
            ),
            (2.0 / 3.0) * (1.0 / 3.0)
        );
    }
}
