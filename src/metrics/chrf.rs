//! Sentence-level chrF (Popović 2015) exactly as sacrebleu 2.x's `sentence_chrf` computes it with
//! its defaults: character n-grams of orders 1 to 6, no word n-grams, β = 2, whitespace removed
//! before n-grams are taken, and sacrebleu's "effective order" smoothing (precision and recall
//! are averaged over the orders that both sides have n-grams of). Plain Rust: no Arrow here.
//!
//! The decisions that make it equal to sacrebleu to the last bit:
//! - a "character" is a Unicode code point (Python `str` indexing), not a grapheme or a byte;
//! - whitespace is what Python's `str.split()` splits on, which is Rust's `char::is_whitespace`
//!   plus U+001C..U+001F (Python counts the information separators as whitespace);
//! - for an order the reference has no n-grams of, the hypothesis' n-grams count as 0;
//! - the floating-point operations run in sacrebleu's order.

use super::is_python_whitespace;

/// sacrebleu's defaults: character order 6, β = 2.
pub const CHAR_ORDER: usize = 6;
pub const BETA: f64 = 2.0;

/// Reused buffers: both sentences' characters and their n-grams' start positions.
#[derive(Debug, Default)]
pub struct Scratch {
    hyp: Vec<char>,
    reference: Vec<char>,
    positions: Positions,
}

#[derive(Debug, Default)]
struct Positions {
    hyp: Vec<u32>,
    reference: Vec<u32>,
}

/// chrF of `hyp` against `reference` on sacrebleu's 0–100 scale. Each side is given as pieces
/// (a whole text, or the tokens of a list) that are concatenated: whitespace is removed before
/// n-grams are taken, so joining tokens with a space or with nothing gives the same score.
pub fn chrf<'a>(
    hyp: impl IntoIterator<Item = &'a str>,
    reference: impl IntoIterator<Item = &'a str>,
    scratch: &mut Scratch,
) -> f64 {
    let chars = |pieces: &mut dyn Iterator<Item = &'a str>, out: &mut Vec<char>| {
        out.clear();
        out.extend(pieces.flat_map(str::chars).filter(|&c| !is_python_whitespace(c)));
    };
    chars(&mut hyp.into_iter(), &mut scratch.hyp);
    chars(&mut reference.into_iter(), &mut scratch.reference);
    let mut stats = [Stats::default(); CHAR_ORDER];
    for (n, stats) in (1..=CHAR_ORDER).zip(&mut stats) {
        *stats = match_statistics(&scratch.hyp, &scratch.reference, n, &mut scratch.positions);
    }
    f_score(&stats)
}

/// For one order: the hypothesis' n-grams, the reference's, and how many of them match (the
/// multiset intersection).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Stats {
    hyp: u32,
    reference: u32,
    matched: u32,
}

fn match_statistics(hyp: &[char], reference: &[char], n: usize, scratch: &mut Positions) -> Stats {
    let grams = |chars: &[char]| (chars.len() + 1).saturating_sub(n);
    let (hyp_grams, ref_grams) = (grams(hyp), grams(reference));
    if ref_grams == 0 {
        // sacrebleu: "don't count hits if no reference exists for that n-gram".
        return Stats::default();
    }
    // Both sides' n-grams sorted (as start positions), then one merge walk counts the multiset
    // intersection: no hash table to fill per pair and order.
    let sorted = |chars: &[char], count: usize, starts: &mut Vec<u32>| {
        starts.clear();
        starts.extend(0..count as u32);
        starts.sort_unstable_by(|&a, &b| chars[a as usize..][..n].cmp(&chars[b as usize..][..n]));
    };
    sorted(hyp, hyp_grams, &mut scratch.hyp);
    sorted(reference, ref_grams, &mut scratch.reference);
    let (mut i, mut j, mut matched) = (0, 0, 0);
    while i < scratch.hyp.len() && j < scratch.reference.len() {
        let h = &hyp[scratch.hyp[i] as usize..][..n];
        let r = &reference[scratch.reference[j] as usize..][..n];
        match h.cmp(r) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (i, j, matched) = (i + 1, j + 1, matched + 1),
        }
    }
    Stats { hyp: hyp_grams as u32, reference: ref_grams as u32, matched }
}

/// sacrebleu's `_compute_f_score` without eps smoothing: the F-β of the precision and recall
/// averaged over the effective orders, times 100; 0 when no order is effective.
fn f_score(stats: &[Stats]) -> f64 {
    let factor = BETA * BETA;
    let (mut precision, mut recall, mut effective) = (0.0, 0.0, 0u32);
    for s in stats {
        if s.hyp > 0 && s.reference > 0 {
            precision += s.matched as f64 / s.hyp as f64;
            recall += s.matched as f64 / s.reference as f64;
            effective += 1;
        }
    }
    if effective == 0 {
        return 0.0;
    }
    precision /= effective as f64;
    recall /= effective as f64;
    if precision + recall == 0.0 {
        return 0.0;
    }
    let score = (1.0 + factor) * precision * recall;
    100.0 * (score / (factor * precision + recall))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(hyp: &str, reference: &str) -> f64 {
        chrf([hyp], [reference], &mut Scratch::default())
    }

    #[test]
    fn identical_sentences_score_100() {
        assert_eq!(score("the cat sat", "the cat sat"), 100.0);
    }

    #[test]
    fn whitespace_never_matters() {
        assert_eq!(score("thecat sat", "the cat\tsat"), 100.0);
        let mut scratch = Scratch::default();
        assert_eq!(chrf(["the", "cat"], ["thecat"], &mut scratch), 100.0);
    }

    #[test]
    fn empty_or_disjoint_sides_score_0() {
        assert_eq!(score("", "abc"), 0.0);
        assert_eq!(score("abc", ""), 0.0);
        assert_eq!(score("abc", "xyz"), 0.0);
    }

    #[test]
    fn a_hand_worked_case() {
        // hyp "ab", ref "abc": order 1: 2 hyp, 3 ref, 2 matched; order 2: 1, 2, 1; order 3: the
        // reference has 1 trigram, the hypothesis none, so it is not effective. P = 1,
        // R = (2/3 + 1/2) / 2 = 7/12; F2 = 5 P R / (4 P + R) = (35/12) / (55/12) = 7/11.
        assert!((score("ab", "abc") - 700.0 / 11.0).abs() < 1e-12);
    }
}
