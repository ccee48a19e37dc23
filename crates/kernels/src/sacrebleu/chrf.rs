//! chrF (Popović 2015) and chrF++ (Popović 2017) exactly as sacrebleu 2.6 computes them: character
//! n-grams of orders 1..=`nc` and word n-grams of orders 1..=`nw` (chrF++ is `nw:2`), β = 2, a
//! segment's sufficient statistics ([hyp, ref, matched] n-grams per order), the F-score of summed
//! statistics (a corpus score is not a mean of sentence scores), several references, effective-order
//! or eps smoothing, and the signature. Plain Rust: no Arrow here.
//!
//! The decisions that make it equal to sacrebleu to the last bit:
//! - a "character" is a Unicode code point (Python `str` indexing), not a grapheme or a byte;
//! - whitespace is what Python's `str.split()` splits on ([`whitespace::is_space`]); it is
//!   removed before character n-grams are taken unless `space:yes`;
//! - words are the whitespace-split words with one ASCII punctuation mark split off the end (or,
//!   failing that, the start) of each word longer than one character, as sacrebleu's
//!   `_remove_punctuation` does (so `(hi)` gives `(hi` and `)`);
//! - for an order the reference has no n-grams of, the hypothesis' n-grams count as 0;
//! - with several references a segment takes the statistics of the reference with the best
//!   F-score, the first of equals;
//! - lowercasing is Unicode's, as Python's `str.lower()`;
//! - the floating-point operations run in sacrebleu's order.

use std::fmt;

use crate::sacrebleu::bleu::SACREBLEU_VERSION;
use crate::text::intern::Interner;
use crate::text::whitespace;

/// sacrebleu's defaults: character order 6, word order 0 (chrF2), β = 2.
pub const CHAR_ORDER: usize = 6;
pub const BETA: i32 = 2;

/// The largest order of either kind accepted: sacrebleu has no limit, but nobody uses more.
pub const MAX_ORDER_LIMIT: usize = 16;

/// sacrebleu's `CHRF(...)` arguments; the default is its `chrF2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChrfOptions {
    /// Character n-gram orders 1..=char_order.
    pub char_order: usize,
    /// Word n-gram orders 1..=word_order: 2 is chrF++.
    pub word_order: usize,
    /// Recall weighs β times as much as precision.
    /// Recall weighs beta times precision; only its square counts, so -1 scores as 1 (and is
    /// named `chrF-1`, as sacrebleu names it).
    pub beta: i32,
    pub lowercase: bool,
    /// Keep whitespace in character n-grams.
    pub whitespace: bool,
    /// chrF++.py's eps smoothing (the mean of per-order F-scores) instead of sacrebleu's
    /// effective-order average of precision and recall.
    pub eps_smoothing: bool,
}

impl Default for ChrfOptions {
    fn default() -> Self {
        ChrfOptions {
            char_order: CHAR_ORDER,
            word_order: 0,
            beta: BETA,
            lowercase: false,
            whitespace: false,
            eps_smoothing: false,
        }
    }
}

impl ChrfOptions {
    /// chrF++: the defaults with word bigrams.
    pub fn plus_plus() -> Self {
        ChrfOptions {
            word_order: 2,
            ..ChrfOptions::default()
        }
    }

    /// Options written in the words of sacrebleu's signature, over `self`: `|`-separated
    /// `nc:N`, `nw:N`, `case:mixed|lc`, `eff:yes|no` (no: eps smoothing), `space:yes|no`, and
    /// `beta:N` (which signatures give only in the name, `chrF2`). A whole signature reads back
    /// as its options: `nrefs` is ignored (the references are counted) and `version` must be
    /// this one.
    pub fn parse(&self, text: &str) -> Result<ChrfOptions, ChrfError> {
        let mut options = *self;
        let bad = |item: &str| ChrfError::Option(item.to_string());
        for item in text
            .split('|')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (key, value) = item.split_once(':').ok_or_else(|| bad(item))?;
            let number = || value.trim().parse::<usize>().map_err(|_| bad(item));
            match (key.trim(), value.trim()) {
                ("nc", _) => options.char_order = number()?,
                ("nw", _) => options.word_order = number()?,
                ("beta", _) => options.beta = value.trim().parse::<i32>().map_err(|_| bad(item))?,
                ("case", "mixed") => options.lowercase = false,
                ("case", "lc") => options.lowercase = true,
                ("eff", "yes") => options.eps_smoothing = false,
                ("eff", "no") => options.eps_smoothing = true,
                ("space", "yes") => options.whitespace = true,
                ("space", "no") => options.whitespace = false,
                ("nrefs", _) => {}
                ("version", SACREBLEU_VERSION) => {}
                ("version", other) => return Err(ChrfError::Version(other.to_string())),
                _ => return Err(bad(item)),
            }
        }
        options.check()?;
        Ok(options)
    }

    /// Check what sacrebleu would fail on or what no one means.
    pub fn check(&self) -> Result<(), ChrfError> {
        let orders = self.char_order + self.word_order;
        if self.char_order > MAX_ORDER_LIMIT || self.word_order > MAX_ORDER_LIMIT || orders == 0 {
            return Err(ChrfError::Orders(self.char_order, self.word_order));
        }
        if self.beta == 0 || self.beta.unsigned_abs() > 1000 {
            return Err(ChrfError::Beta(self.beta));
        }
        Ok(())
    }

    /// The orders of both kinds.
    pub fn orders(&self) -> usize {
        self.char_order + self.word_order
    }

    /// How many numbers a segment's statistics are: [hyp, ref, matched] n-grams for each
    /// character order, then for each word order.
    pub fn stats_len(&self) -> usize {
        3 * self.orders()
    }

    /// The score's name as sacrebleu gives it: `chrF2`, `chrF2++`.
    pub fn name(&self) -> String {
        format!("chrF{}{}", self.beta, "+".repeat(self.word_order))
    }

    /// sacrebleu's signature for these options and `refs` references per segment (`None`: the
    /// number varies), e.g. `nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0`.
    pub fn signature(&self, refs: Option<usize>) -> String {
        let refs = refs.map_or("var".to_string(), |n| n.to_string());
        let case = if self.lowercase { "lc" } else { "mixed" };
        let eff = if self.eps_smoothing { "no" } else { "yes" };
        let space = if self.whitespace { "yes" } else { "no" };
        let (nc, nw) = (self.char_order, self.word_order);
        format!(
            "nrefs:{refs}|case:{case}|eff:{eff}|nc:{nc}|nw:{nw}|space:{space}|version:{SACREBLEU_VERSION}"
        )
    }
}

/// Why chrF cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum ChrfError {
    Orders(usize, usize),
    Beta(i32),
    /// An item of an options string that is not one of [`ChrfOptions::parse`]'s.
    Option(String),
    /// A signature of another sacrebleu release.
    Version(String),
    /// A segment with no reference (every reference NULL).
    NoReference,
}

impl fmt::Display for ChrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChrfError::Orders(nc, nw) => write!(
                f,
                "chrF's orders nc:{nc} nw:{nw}: each must be at most {MAX_ORDER_LIMIT}, and one of them positive"
            ),
            ChrfError::Beta(beta) => write!(f, "chrF's beta {beta} is 0 or beyond 1000 either way"),
            ChrfError::Option(item) => write!(
                f,
                "chrF option '{item}' is not one of nc:N, nw:N, beta:N, case:mixed|lc, eff:yes|no, space:yes|no"
            ),
            ChrfError::Version(version) => {
                write!(
                    f,
                    "a signature of sacrebleu {version}: pairmetrics computes sacrebleu {SACREBLEU_VERSION}'s chrF"
                )
            }
            ChrfError::NoReference => f.write_str("no reference (every reference is NULL)"),
        }
    }
}

impl std::error::Error for ChrfError {}

/// Reused buffers: one side's symbols (code points, or word ids) and n-gram keys.
#[derive(Debug, Default)]
pub struct Scratch {
    lowered: String,
    words: Vec<u32>,
    vocabulary: Interner,
    hyp: Side,
    reference: Side,
    merged: Merged,
    stats: Vec<u64>,
}

/// One side's characters and words, each as symbols with their n-grams sorted.
#[derive(Debug, Default)]
struct Side {
    chars: Symbols,
    words: Symbols,
}

/// A symbol sequence and its n-grams of every order up to the highest, sorted and packed into
/// integer keys when they fit (the common case): `keys` when they fit 64 bits, else
/// `wide_keys`.
#[derive(Debug, Default)]
struct Symbols {
    symbols: Vec<u32>,
    keys: Vec<u64>,
    wide_keys: Vec<u128>,
    /// Bits per symbol in a key; 0 when the n-grams did not fit.
    bits: u32,
}

/// A segment's sufficient statistics into `stats` ([`ChrfOptions::stats_len`] long): for each
/// character order, then each word order, the hypothesis' n-grams (0 when the reference has
/// none of that order), the reference's, and the matched ones (the multiset intersection).
pub fn segment_stats(
    hyp: &str,
    refs: &[&str],
    options: &ChrfOptions,
    scratch: &mut Scratch,
    stats: &mut [u64],
) -> Result<(), ChrfError> {
    if refs.is_empty() {
        return Err(ChrfError::NoReference);
    }
    if scratch.vocabulary.len() > 1 << 20 {
        scratch.vocabulary = Interner::default();
    }
    read_side(hyp, options, scratch, true);
    let mut best = -1.0;
    let mut current = std::mem::take(&mut scratch.stats);
    current.resize(options.stats_len(), 0);
    for reference in refs {
        read_side(reference, options, scratch, false);
        let (hyp, reference) = (&mut scratch.hyp, &mut scratch.reference);
        Symbols::align(&mut hyp.chars, &mut reference.chars, options.char_order);
        Symbols::align(&mut hyp.words, &mut reference.words, options.word_order);
        let (char_stats, word_stats) = current.split_at_mut(3 * options.char_order);
        let merged = &mut scratch.merged;
        order_stats(
            &hyp.chars,
            &reference.chars,
            options.char_order,
            merged,
            char_stats,
        );
        order_stats(
            &hyp.words,
            &reference.words,
            options.word_order,
            merged,
            word_stats,
        );
        let f = f_score(&current, options);
        if f > best {
            best = f;
            stats.copy_from_slice(&current);
        }
    }
    scratch.stats = current;
    Ok(())
}

/// One side's symbols, lowercased when asked, with their n-grams sorted.
fn read_side(text: &str, options: &ChrfOptions, scratch: &mut Scratch, hyp: bool) {
    let text = match options.lowercase {
        true => {
            scratch.lowered = text.to_lowercase();
            scratch.lowered.as_str()
        }
        false => text,
    };
    let side = if hyp {
        &mut scratch.hyp
    } else {
        &mut scratch.reference
    };
    side.chars.symbols.clear();
    let chars = text
        .chars()
        .filter(|&c| options.whitespace || !whitespace::is_space(c));
    side.chars.symbols.extend(chars.map(u32::from));
    side.chars.pack_keys(options.char_order);
    side.words.symbols.clear();
    if options.word_order > 0 {
        scratch.words.clear();
        for word in whitespace::split(text) {
            for piece in split_punctuation(word) {
                scratch.words.push(scratch.vocabulary.intern(piece));
            }
        }
        side.words.symbols.extend_from_slice(&scratch.words);
    }
    side.words.pack_keys(options.word_order);
}

/// sacrebleu's `_remove_punctuation` for one word: a word longer than one character that ends
/// (or else starts) with ASCII punctuation gives two pieces.
fn split_punctuation(word: &str) -> impl Iterator<Item = &str> {
    let is_punct = |c: char| c.is_ascii_punctuation();
    let mut chars = word.chars();
    let (first, last) = (chars.next(), chars.next_back());
    let split = match (first, last) {
        (Some(_), Some(last)) if is_punct(last) => Some(word.len() - last.len_utf8()),
        (Some(first), Some(_)) if is_punct(first) => Some(first.len_utf8()),
        _ => None,
    };
    let (a, b) = match split {
        Some(at) => (&word[..at], Some(&word[at..])),
        None => (word, None),
    };
    std::iter::once(a).chain(b)
}

impl Symbols {
    /// Pack the n-grams of orders up to `order`. Each start position's key is its next `order`
    /// symbols, each stored as symbol + 1 (0 past the end), so sorting by key sorts the n-grams
    /// of every order at once: an n-gram is the key's top n digits. Digits are 8 bits when every
    /// symbol allows (most text's characters), else 21 (any code point; word ids, as a segment's
    /// vocabulary is far smaller); keys are u64 when they fit, else u128.
    fn pack_keys(&mut self, order: usize) {
        let largest = self.symbols.iter().copied().max().unwrap_or(0);
        let bits = match largest {
            0..0xff => 8,
            0xff..0x1f_ffff => 21,
            _ => 0,
        };
        self.pack(order, bits);
    }

    /// [`Symbols::pack_keys`] with `bits` a digit (0: too large to pack).
    fn pack(&mut self, order: usize, bits: u32) {
        self.keys.clear();
        self.wide_keys.clear();
        let width = bits as usize * order;
        self.bits = if width <= 128 { bits } else { 0 };
        if order == 0 || self.bits == 0 {
            // Nothing to count, or too many orders or symbols to pack: `matched` compares the
            // symbols themselves.
            return;
        }
        // Each key is the one before shifted by a digit, the next symbol coming in at the bottom.
        let mask = u128::MAX >> (128 - width);
        let mut digits = (self.symbols.iter().map(|&s| u128::from(s) + 1))
            .chain(std::iter::repeat_n(0, order - 1));
        let mut key = (digits.by_ref().take(order - 1)).fold(0, |key, d| key << bits | d);
        let keys = digits.map(|d| {
            key = (key << bits | d) & mask;
            key
        });
        match width <= 64 {
            true => self.keys.extend(keys.map(|k| k as u64)),
            false => self.wide_keys.extend(keys),
        }
    }

    /// Pack the side with the narrower digits as the other is, so their keys compare.
    fn align(a: &mut Symbols, b: &mut Symbols, order: usize) {
        if a.bits == b.bits || a.bits == 0 || b.bits == 0 {
            return;
        }
        let bits = a.bits.max(b.bits);
        let narrow = if a.bits < bits { a } else { b };
        narrow.pack(order, bits);
    }

    /// How many n-grams of order `n` there are.
    fn grams(&self, n: usize) -> u64 {
        (self.symbols.len() + 1).saturating_sub(n) as u64
    }
}

/// [hyp, ref, matched] for orders 1..=order, into `stats`.
fn order_stats(
    hyp: &Symbols,
    reference: &Symbols,
    order: usize,
    merged: &mut Merged,
    stats: &mut [u64],
) {
    let mut matched = [0; MAX_PACKED_ORDER];
    let packed = hyp.bits == reference.bits && hyp.bits > 0 && hyp.grams(1) > 0;
    if packed {
        match hyp.bits as usize * order <= 64 {
            true => merged
                .narrow
                .count(&hyp.keys, &reference.keys, hyp.bits, order, &mut matched),
            false => merged.wide.count(
                &hyp.wide_keys,
                &reference.wide_keys,
                hyp.bits,
                order,
                &mut matched,
            ),
        }
    }
    for (n, out) in (1..=order).zip(stats.chunks_exact_mut(3)) {
        let ref_grams = reference.grams(n);
        if ref_grams == 0 {
            // sacrebleu: "don't count hits if no reference exists for that n-gram".
            out.copy_from_slice(&[0, 0, 0]);
            continue;
        }
        let matched = match packed {
            true => matched[n - 1],
            false => matched_unpacked(hyp, reference, n),
        };
        out.copy_from_slice(&[hyp.grams(n), ref_grams, matched]);
    }
}

/// The most orders packed keys hold (8-bit digits in 128 bits).
const MAX_PACKED_ORDER: usize = 16;

/// Both sides' keys sorted together, in the width they were packed in.
#[derive(Debug, Default)]
struct Merged {
    narrow: MergedKeys<u64>,
    wide: MergedKeys<u128>,
}

#[derive(Debug, Default)]
struct MergedKeys<K> {
    keys: Vec<K>,
}

impl<K: Key> MergedKeys<K> {
    /// The multiset intersection of both sides' n-grams, of every order at once, into
    /// `matched[n - 1]`: the keys, tagged with their side in a bit below them, are sorted
    /// together, so each n-gram's occurrences on both sides are one run, which ends where a
    /// key's first n digits differ from the one before it.
    fn count(&mut self, hyp: &[K], reference: &[K], bits: u32, order: usize, matched: &mut [u64]) {
        self.keys.clear();
        self.keys.extend(hyp.iter().map(|&k| k << 1 | K::ONE));
        self.keys.extend(reference.iter().map(|&k| k << 1));
        self.keys.sort_unstable();
        let unused = K::BITS - bits * order as u32;
        let (mut in_hyp, mut in_ref) = ([0u64; MAX_PACKED_ORDER], [0u64; MAX_PACKED_ORDER]);
        let mut previous: Option<K> = None;
        for &tagged in &self.keys {
            let key = tagged >> 1;
            let common = match previous {
                None => 0,
                Some(previous) if previous == key => order,
                Some(previous) => {
                    (Key::leading_zeros(previous ^ key) - unused) as usize / bits as usize
                }
            };
            for n in common..order {
                matched[n] += in_hyp[n].min(in_ref[n]);
                (in_hyp[n], in_ref[n]) = (0, 0);
            }
            // The key's n-grams: its digits up to the first 0 (past the sentence's end).
            let orders = order - Key::trailing_zeros(key) as usize / bits as usize;
            let side = if tagged & K::ONE == K::ONE {
                &mut in_hyp
            } else {
                &mut in_ref
            };
            for count in &mut side[..orders] {
                *count += 1;
            }
            previous = Some(key);
        }
        for n in 0..order {
            matched[n] += in_hyp[n].min(in_ref[n]);
        }
    }
}

/// The integer widths keys are packed in.
trait Key:
    Copy
    + Ord
    + std::fmt::Debug
    + Default
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitXor<Output = Self>
{
    const ONE: Self;
    const BITS: u32;
    fn leading_zeros(self) -> u32;
    fn trailing_zeros(self) -> u32;
}

macro_rules! key {
    ($type:ty) => {
        impl Key for $type {
            const ONE: Self = 1;
            const BITS: u32 = <$type>::BITS;
            fn leading_zeros(self) -> u32 {
                <$type>::leading_zeros(self)
            }
            fn trailing_zeros(self) -> u32 {
                <$type>::trailing_zeros(self)
            }
        }
    };
}
key!(u64);
key!(u128);

/// The multiset intersection of both sides' n-grams of order `n` when they were not packed:
/// each side's start positions sorted by their n-grams, then one merge walk.
fn matched_unpacked(hyp: &Symbols, reference: &Symbols, n: usize) -> u64 {
    if hyp.grams(n) == 0 {
        return 0;
    }
    let starts = |side: &Symbols| -> Vec<u32> {
        let mut starts: Vec<u32> = (0..side.grams(n) as u32).collect();
        starts.sort_unstable_by(|&a, &b| {
            side.symbols[a as usize..][..n].cmp(&side.symbols[b as usize..][..n])
        });
        starts
    };
    let (h, r) = (starts(hyp), starts(reference));
    let h = h.iter().map(|&start| &hyp.symbols[start as usize..][..n]);
    let r = r
        .iter()
        .map(|&start| &reference.symbols[start as usize..][..n]);
    merge_count(h, r)
}

/// How many items two sorted sequences have in common, as multisets.
fn merge_count<T: Ord>(mut a: impl Iterator<Item = T>, mut b: impl Iterator<Item = T>) -> u64 {
    let (mut x, mut y, mut count) = (a.next(), b.next(), 0);
    while let (Some(p), Some(q)) = (&x, &y) {
        match p.cmp(q) {
            std::cmp::Ordering::Less => x = a.next(),
            std::cmp::Ordering::Greater => y = b.next(),
            std::cmp::Ordering::Equal => {
                count += 1;
                (x, y) = (a.next(), b.next());
            }
        }
    }
    count
}

/// Add a segment's statistics to a running total (the sums are the corpus statistics).
pub use crate::add_stats;

/// sacrebleu's `_compute_f_score`: the chrF of (summed) statistics on the 0-100 scale.
pub fn f_score(stats: &[u64], options: &ChrfOptions) -> f64 {
    const EPS: f64 = 1e-16;
    let factor = f64::from(options.beta * options.beta);
    let (mut score, mut avg_precision, mut avg_recall, mut effective) = (0.0, 0.0, 0.0, 0u32);
    for order in stats.chunks_exact(3) {
        let (hyp, reference, matched) = (order[0], order[1], order[2] as f64);
        let precision = if hyp > 0 { matched / hyp as f64 } else { EPS };
        let recall = if reference > 0 {
            matched / reference as f64
        } else {
            EPS
        };
        if options.eps_smoothing {
            let denominator = factor * precision + recall;
            score += if denominator > 0.0 {
                (1.0 + factor) * precision * recall / denominator
            } else {
                EPS
            };
        }
        if hyp > 0 && reference > 0 {
            avg_precision += precision;
            avg_recall += recall;
            effective += 1;
        }
    }
    if options.eps_smoothing {
        return 100.0 * score / options.orders() as f64;
    }
    if effective == 0 {
        return 0.0;
    }
    avg_precision /= f64::from(effective);
    avg_recall /= f64::from(effective);
    if avg_precision + avg_recall == 0.0 {
        return 0.0;
    }
    let score = (1.0 + factor) * avg_precision * avg_recall;
    100.0 * (score / (factor * avg_precision + avg_recall))
}

/// The chrF of one segment against its references (several: the best).
pub fn sentence(
    hyp: &str,
    refs: &[&str],
    options: &ChrfOptions,
    scratch: &mut Scratch,
) -> Result<f64, ChrfError> {
    let mut stats = vec![0; options.stats_len()];
    segment_stats(hyp, refs, options, scratch, &mut stats)?;
    Ok(f_score(&stats, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(hyp: &str, reference: &str) -> f64 {
        sentence(
            hyp,
            &[reference],
            &ChrfOptions::default(),
            &mut Scratch::default(),
        )
        .unwrap()
    }

    #[test]
    fn identical_sentences_score_100() {
        assert_eq!(score("the cat sat", "the cat sat"), 100.0);
    }

    #[test]
    fn whitespace_never_matters_unless_asked() {
        assert_eq!(score("thecat sat", "the cat\tsat"), 100.0);
        let spaced = ChrfOptions {
            whitespace: true,
            ..ChrfOptions::default()
        };
        let got = sentence(
            "thecat sat",
            &["the cat\tsat"],
            &spaced,
            &mut Scratch::default(),
        )
        .unwrap();
        assert!(got < 100.0);
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

    #[test]
    fn packed_and_unpacked_n_grams_count_alike() {
        // 12 orders of code points past 2^10 need more than 128 bits: the position path.
        let long = ChrfOptions {
            char_order: 12,
            ..ChrfOptions::default()
        };
        let (hyp, reference) = ("ꙮꙮꙮ abc ꙮꙮ abcabc", "abcabc ꙮꙮꙮꙮ ab");
        let mut stats = vec![0; long.stats_len()];
        segment_stats(
            hyp,
            &[reference],
            &long,
            &mut Scratch::default(),
            &mut stats,
        )
        .unwrap();
        // the first six orders as the packed default computes them
        let mut packed = vec![0; ChrfOptions::default().stats_len()];
        segment_stats(
            hyp,
            &[reference],
            &ChrfOptions::default(),
            &mut Scratch::default(),
            &mut packed,
        )
        .unwrap();
        assert_eq!(&stats[..18], &packed[..]);
    }

    #[test]
    fn sides_packed_in_different_widths_are_aligned() {
        // ASCII packs in 8-bit digits (u64 keys), 'ŝ' needs 21 (u128 keys); each pair's matched
        // n-grams must be the multiset intersection whatever each side alone would pack in.
        let naive = |hyp: &str, reference: &str, n: usize| -> u64 {
            let grams = |text: &str| {
                let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
                let mut counts = std::collections::HashMap::new();
                for gram in chars.windows(n) {
                    *counts.entry(gram.to_vec()).or_insert(0u64) += 1;
                }
                counts
            };
            let (h, r) = (grams(hyp), grams(reference));
            h.iter()
                .map(|(g, &c)| c.min(r.get(g).copied().unwrap_or(0)))
                .sum()
        };
        let options = ChrfOptions::default();
        let mut scratch = Scratch::default();
        let texts = [
            "abcabc ab",
            "abŝabc ŝŝ",
            "ŝabcŝ",
            "a",
            "ŝ",
            "abc",
            "é ÿ abc",
        ];
        for hyp in texts {
            for reference in texts {
                let mut stats = vec![0; options.stats_len()];
                segment_stats(hyp, &[reference], &options, &mut scratch, &mut stats).unwrap();
                for n in 1..=6 {
                    let (ref_grams, matched) = (stats[3 * (n - 1) + 1], stats[3 * (n - 1) + 2]);
                    let want = if ref_grams == 0 {
                        0
                    } else {
                        naive(hyp, reference, n)
                    };
                    assert_eq!(matched, want, "{hyp:?} against {reference:?}, order {n}");
                }
            }
        }
    }

    #[test]
    fn punctuation_splits_once_per_word() {
        fn pieces(w: &str) -> Vec<&str> {
            split_punctuation(w).collect()
        }
        assert_eq!(pieces("(hi)"), ["(hi", ")"]);
        assert_eq!(pieces("(hi"), ["(", "hi"]);
        assert_eq!(pieces("."), ["."]);
        assert_eq!(pieces("é."), ["é", "."]);
        assert_eq!(pieces("word"), ["word"]);
    }

    #[test]
    fn options_read_their_signature_back() {
        let options = ChrfOptions {
            lowercase: true,
            eps_smoothing: true,
            whitespace: true,
            ..ChrfOptions::plus_plus()
        };
        let signature = options.signature(Some(2));
        assert_eq!(
            signature,
            "nrefs:2|case:lc|eff:no|nc:6|nw:2|space:yes|version:2.6.0"
        );
        assert_eq!(ChrfOptions::default().parse(&signature), Ok(options));
        assert_eq!(options.name(), "chrF2++");
        assert!(ChrfOptions::default().parse("nc:0|nw:0").is_err());
        assert!(ChrfOptions::default().parse("version:2.5.1").is_err());
        assert!(ChrfOptions::default().parse("tok:13a").is_err());
    }
}
