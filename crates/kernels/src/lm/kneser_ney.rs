//! Interpolated modified Kneser-Ney estimation, as KenLM's `lmplz` computes it (Heafield,
//! Pouzyrevsky, Clark and Koehn 2013), step for step and in the same single-precision
//! arithmetic, so that the model written as ARPA is lmplz's byte for byte:
//!
//! 1. Each sentence is padded with N−1 `<s>` and closed by `</s>` (a last line without a line
//!    end is not closed, as lmplz reads it); every window of N words is counted.
//! 2. Adjusted counts: an n-gram of the highest order, or one that starts with `<s>`, keeps its
//!    count; any other n-gram counts the distinct words seen before it (its continuations). An
//!    n-gram holds `<s>` only at its start: a window with `<s>` past its first word stands for
//!    the shorter n-gram that starts at its last `<s>`.
//! 3. Discounts per order from the counts of adjusted counts 1 to 4 (Chen and Goodman's
//!    equation 26), or the fallback ones where those are missing or out of range.
//! 4. Per context, the discounted probabilities and the mass left (γ); unigrams interpolate
//!    with the uniform distribution over the vocabulary without `<s>` (or give the mass to
//!    `<unk>`, SRILM's way); `<s>` has probability 1.
//! 5. Each order interpolates with the one below: p(w|c) = p̂(w|c) + γ(c)·p(w|c′); a
//!    context's back-off is its γ.
//!
//! Words are ids in order of first appearance after `<unk>`, `<s>` and `</s>` (lmplz without
//! `--renumber`); an n-gram is packed in one `u128`, its last word in the highest bits, so that
//! sorting keys sorts n-grams as lmplz writes them (by last word, then the one before, ...).
//!
//! The functions here work on the n-grams that end in some words (all of them, or a share of
//! them: the windows that end in a range of last words hold every n-gram that ends in those
//! words, with all it needs but its context's statistics, which [`contexts`] computes where
//! the contexts are). `pipeline::lm_estimate` runs them over shares that fit its memory.

use crate::spill::Record;
use hashbrown::HashMap;

pub const UNK: u32 = 0;
pub const BOS: u32 = 1;
pub const EOS: u32 = 2;

/// The words, numbered as lmplz numbers them.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    words: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Default for Vocabulary {
    fn default() -> Self {
        let mut vocabulary = Vocabulary {
            words: Vec::new(),
            ids: HashMap::new(),
        };
        for special in ["<unk>", "<s>", "</s>"] {
            vocabulary.id(special);
        }
        vocabulary
    }
}

impl Vocabulary {
    pub fn id(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_owned());
        self.ids.insert(word.to_owned(), id);
        id
    }

    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// What lmplz does with `<s>`, `</s>` and `<unk>` in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialWords {
    /// Refuse them (lmplz's default).
    Refuse,
    /// Read them as whitespace (`--skip_symbols`).
    Skip,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// N, the highest order.
    pub order: usize,
    /// D1, D2 and D3+ for the orders whose discounts cannot be estimated
    /// (`--discount_fallback`); without them such an order is an error.
    pub discount_fallback: Option<[f32; 3]>,
    /// Interpolate unigrams with the uniform distribution (lmplz's default) rather than give
    /// the left mass to `<unk>`.
    pub interpolate_unigrams: bool,
    /// The uniform distribution's vocabulary is at least this large (`--vocab_pad`).
    pub vocab_pad: u64,
    pub special_words: SpecialWords,
}

impl Options {
    pub fn new(order: usize) -> Options {
        Options {
            order,
            discount_fallback: None,
            interpolate_unigrams: true,
            vocab_pad: 0,
            special_words: SpecialWords::Refuse,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EstimateError {
    #[error(
        "the special word {0} is in the text: <s>, </s> and <unk> are the model's own (skip them as whitespace, or take them out)"
    )]
    SpecialWord(String),
    #[error("no text to estimate from")]
    Empty,
    #[error(
        "order {order} with {words} words needs {order} x {bits} bits per n-gram, over the 128 this estimator packs an n-gram into"
    )]
    TooWide {
        order: usize,
        words: usize,
        bits: u32,
    },
    #[error(
        "could not estimate Kneser-Ney discounts for {order}-grams: {reason}; the text is small or artificial, or repeats itself (deduplicate it), or give fallback discounts"
    )]
    Discount { order: usize, reason: String },
}

/// N-grams packed as keys: word i (0-based) of an n-gram in bits `i*bits..(i+1)*bits`, so that
/// the last word is in the highest bits of the highest order's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packing {
    bits: u32,
}

impl Packing {
    /// The packing of n-grams up to `order` over `words` word ids, or why they do not fit.
    pub fn new(order: usize, words: usize) -> Result<Packing, EstimateError> {
        let bits = (32 - (words as u32 - 1).leading_zeros()).max(1);
        if bits as usize * order > 128 {
            return Err(EstimateError::TooWide { order, words, bits });
        }
        Ok(Packing { bits })
    }

    fn mask(self, words: usize) -> u128 {
        match self.bits as usize * words {
            128 => u128::MAX,
            b => (1u128 << b) - 1,
        }
    }

    /// Word `i` (0-based) of an n-gram.
    pub fn word(self, key: u128, i: usize) -> u32 {
        ((key >> (self.bits as usize * i)) & self.mask(1)) as u32
    }

    /// The last `n` of `order` words.
    fn suffix(self, key: u128, order: usize, n: usize) -> u128 {
        key >> (self.bits as usize * (order - n))
    }

    /// The context of an `n`-gram: its first n − 1 words, packed as an (n − 1)-gram.
    pub fn context(self, key: u128, n: usize) -> u128 {
        key & self.mask(n - 1)
    }
}

/// Every word of a text with the N − 1 before it (`<s>` before a sentence's first word), as
/// the key of an N-gram: the windows lmplz counts.
#[derive(Debug, Clone)]
pub struct Windows {
    packing: Packing,
    /// Where a new word goes: the highest of the N words.
    top: usize,
    /// N − 1 `<s>` and room for a word, the state at the start of a sentence.
    padding: u128,
    key: u128,
}

impl Windows {
    pub fn new(order: usize, packing: Packing) -> Windows {
        let bits = packing.bits as usize;
        // <s> in words 1..order - 1: the first shift moves them to 0..order - 2, before the first word.
        let padding = (1..order).fold(0, |key, i| key | (BOS as u128) << (bits * i));
        Windows {
            packing,
            top: bits * (order - 1),
            padding,
            key: padding,
        }
    }

    /// The window that ends in `word`; `</s>` ends the sentence.
    pub fn next(&mut self, word: u32) -> u128 {
        // Shift the oldest word out of the low bits and the new one into the top (with order
        // 1, the top is the low bits, and the shift empties them).
        let key = (self.key >> self.packing.bits) | ((word as u128) << self.top);
        self.key = if word == EOS { self.padding } else { key };
        key
    }
}

/// Windows sorted, each with its count.
pub fn count(mut keys: Vec<u128>) -> Vec<(u128, u64)> {
    keys.sort_unstable();
    let mut counted: Vec<(u128, u64)> = Vec::new();
    for key in keys {
        match counted.last_mut() {
            Some((last, count)) if *last == key => *count += 1,
            _ => counted.push((key, 1)),
        }
    }
    counted
}

/// The discounts of one order: D0 = 0, D1, D2, D3+.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discount(pub [f32; 4]);

impl Discount {
    fn get(&self, count: u64) -> f32 {
        self.0[count.min(3) as usize]
    }

    fn apply(&self, count: u64) -> f32 {
        count as f32 - self.get(count)
    }
}

/// Per order (1 first), n-grams with their adjusted counts, sorted by key.
pub type Grams = Vec<Vec<(u128, u64)>>;

/// The n-grams that end in the last words of sorted `windows` (all the windows that end in
/// those words), per order, with their adjusted counts. `first` adds `<unk>` and `<s>`, the
/// unigrams no window ends in, with no count.
pub fn adjust(windows: &[(u128, u64)], order: usize, packing: Packing, first: bool) -> Grams {
    let starts_with_bos = |key: u128| packing.word(key, 0) == BOS;
    let mut orders = Vec::with_capacity(order);
    for n in 1..order {
        let mut grams: Vec<(u128, u64)> = Vec::new();
        let mut previous_longer = None;
        for &(key, count) in windows {
            let gram = packing.suffix(key, order, n);
            let longer = packing.suffix(key, order, n + 1);
            if !valid(packing, gram, n) {
                continue;
            }
            let same = grams.last().is_some_and(|&(last, _)| last == gram);
            if !same {
                grams.push((gram, 0));
                previous_longer = None;
            }
            let adjusted = &mut grams.last_mut().expect("pushed").1;
            if starts_with_bos(gram) {
                *adjusted += count;
            } else if previous_longer != Some(longer) {
                *adjusted += 1;
            }
            previous_longer = Some(longer);
        }
        orders.push(grams);
    }
    orders.push(
        windows
            .iter()
            .copied()
            .filter(|&(key, _)| valid(packing, key, order))
            .collect(),
    );
    if first {
        // First in key order: no window ends in either.
        orders[0].splice(0..0, [(UNK as u128, 0), (BOS as u128, 0)]);
    }
    orders
}

/// An n-gram holds `<s>` only as its first word.
fn valid(packing: Packing, key: u128, n: usize) -> bool {
    n == 1 || packing.word(key, 1) != BOS
}

/// Per order, how many n-grams have adjusted count 1, 2, 3 and 4: what the discounts come from.
#[derive(Debug, Clone)]
pub struct CountsOfCounts(Vec<[u64; 5]>);

impl CountsOfCounts {
    pub fn new(order: usize) -> CountsOfCounts {
        CountsOfCounts(vec![[0; 5]; order])
    }

    pub fn add(&mut self, grams: &Grams) {
        for (counts, grams) in self.0.iter_mut().zip(grams) {
            for &(_, count) in grams {
                if count < 5 {
                    counts[count as usize] += 1;
                }
            }
        }
    }

    /// lmplz's AdjustCounts counts the n-grams still open when its stream ends (the shorter
    /// n-grams of the last window) by their plain counts instead of their adjusted ones; its
    /// discounts come from those counts, so these do too. `windows` and `grams` are the last
    /// ones [`adjust`] saw, with the last window of the text.
    pub fn end_of_stream(&mut self, windows: &[(u128, u64)], grams: &Grams, packing: Packing) {
        let order = grams.len();
        let last = windows.last().expect("the text's last window").0;
        for n in 1..order {
            let gram = packing.suffix(last, order, n);
            if !valid(packing, gram, n) {
                continue;
            }
            let plain: u64 = windows
                .iter()
                .rev()
                .take_while(|&&(key, _)| packing.suffix(key, order, n) == gram)
                .map(|&(_, count)| count)
                .sum();
            let counted = grams[n - 1].last().expect("the last window's").1;
            let counts = &mut self.0[n - 1];
            if counted < 5 {
                counts[counted as usize] -= 1;
            }
            if plain < 5 {
                counts[plain as usize] += 1;
            }
        }
    }

    /// The discounts per order (1 first) and whether they are the fallback ones.
    pub fn discounts(
        &self,
        fallback: Option<[f32; 3]>,
    ) -> Result<Vec<(Discount, bool)>, EstimateError> {
        (1..)
            .zip(&self.0)
            .map(|(n, counts)| discount(n, counts, fallback))
            .collect()
    }
}

/// The discounts of `n`-grams from the counts of their adjusted counts (lmplz's
/// `StatCollector::CalculateDiscounts`, in its float and double arithmetic).
fn discount(
    n: usize,
    counts: &[u64; 5],
    fallback: Option<[f32; 3]>,
) -> Result<(Discount, bool), EstimateError> {
    let estimated = || -> Result<Discount, String> {
        for (j, &count) in counts.iter().enumerate().take(4).skip(1) {
            if count == 0 {
                return Err(format!(
                    "no {n}-gram has adjusted count {j}, which the discount for count {} needs",
                    if j == 3 {
                        "3+".to_string()
                    } else {
                        (j + 1).to_string()
                    }
                ));
            }
        }
        let y = counts[1] as f32 / (counts[1] as f64 + 2.0 * counts[2] as f64) as f32;
        let mut amount = [0f32; 4];
        for j in 1..4 {
            amount[j] = j as f32 - (j + 1) as f32 * y * counts[j + 1] as f32 / counts[j] as f32;
            if amount[j] < 0.0 || amount[j] > j as f32 {
                return Err(format!(
                    "the discount for adjusted count {j} is {}, outside [0, {j}]",
                    amount[j]
                ));
            }
        }
        Ok(Discount(amount))
    };
    match (estimated(), fallback) {
        (Ok(discount), _) => Ok((discount, false)),
        (Err(_), Some([d1, d2, d3])) => Ok((Discount([0.0, d1, d2, d3]), true)),
        (Err(reason), None) => Err(EstimateError::Discount { order: n, reason }),
    }
}

/// What one context's n-grams share: the sum of their adjusted counts and γ, the mass the
/// discounts leave.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    pub denominator: u64,
    counts: [u64; 4],
    pub gamma: f32,
}

impl Context {
    pub fn add(&mut self, count: u64) {
        self.denominator += count;
        if count > 0 {
            self.counts[count.min(3) as usize] += 1;
        }
    }

    /// γ as lmplz's `AddRight` computes it (the discounted mass over the denominator).
    pub fn finish(&mut self, discount: &Discount) {
        let mut gamma = 0f32;
        for i in 1..4 {
            gamma += discount.get(i as u64) * self.counts[i] as f32;
        }
        self.gamma = gamma / self.denominator as f32;
    }
}

/// An n-gram of order 2 or more with its adjusted count, as its context sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Continuation {
    pub key: u128,
    pub count: u64,
    pub order: u8,
}

/// The continuations of some contexts grouped by context (by order, then in key order), each
/// group with its context's statistics.
pub fn contexts<E>(
    continuations: &mut [Continuation],
    discounts: &[(Discount, bool)],
    packing: Packing,
    mut visit: impl FnMut(&[Continuation], &Context) -> Result<(), E>,
) -> Result<(), E> {
    let context = |c: &Continuation| (c.order, packing.context(c.key, c.order as usize));
    continuations.sort_unstable_by_key(context);
    for group in continuations.chunk_by(|a, b| context(a) == context(b)) {
        let mut statistics = Context::default();
        for continuation in group {
            statistics.add(continuation.count);
        }
        statistics.finish(&discounts[group[0].order as usize - 1].0);
        visit(group, &statistics)?;
    }
    Ok(())
}

/// Whether lmplz hands an n-gram of an order below the highest a back-off: every n-gram but
/// those that end in `<unk>` or `</s>`.
pub fn takes_backoff(key: u128, n: usize, packing: Packing) -> bool {
    !matches!(packing.word(key, n - 1), UNK | EOS)
}

/// What the probabilities of some n-grams depend on beyond their counts.
pub struct Interpolation<'a> {
    pub discounts: &'a [(Discount, bool)],
    /// The empty context: the unigrams' statistics.
    pub empty: &'a Context,
    pub options: &'a Options,
    pub packing: Packing,
    /// The vocabulary's size, `<unk>`, `<s>` and `</s>` included.
    pub words: usize,
}

/// The interpolated probabilities of `grams` (all the n-grams that end in some words, per
/// order), given each n-gram's context's denominator and γ (`contexts[n - 1][i]` for the
/// `i`-th n-gram of order n ≥ 2; `contexts[0]` is not read).
pub fn probabilities(
    grams: &Grams,
    contexts: &[Vec<(u64, f32)>],
    how: &Interpolation,
) -> Vec<Vec<f32>> {
    let Interpolation {
        discounts,
        empty,
        options,
        packing,
        words,
    } = *how;
    let uniform = (1.0 / options.vocab_pad.max(words as u64 - 1) as f32 as f64) as f32;
    let mut complete: Vec<Vec<f32>> = Vec::with_capacity(grams.len());
    for (n, order) in (1..).zip(grams) {
        let discount = &discounts[n - 1].0;
        let mut probs = Vec::with_capacity(order.len());
        let mut suffix = 0;
        for (i, &(key, count)) in order.iter().enumerate() {
            let p = if n == 1 {
                let gamma = if options.interpolate_unigrams {
                    empty.gamma
                } else {
                    0.0
                };
                match key as u32 {
                    UNK if options.interpolate_unigrams => gamma * uniform,
                    UNK => empty.gamma,
                    BOS => 1.0,
                    _ => discount.apply(count) / empty.denominator as f32 + gamma * uniform,
                }
            } else {
                // The n-grams are sorted by their last words first, so their suffixes come in
                // the order of the n-grams below: one walk finds them all.
                let below = &grams[n - 2];
                while below[suffix].0 != key >> packing.bits {
                    suffix += 1;
                }
                let (denominator, gamma) = contexts[n - 1][i];
                discount.apply(count) / denominator as f32 + gamma * complete[n - 2][suffix]
            };
            probs.push(p);
        }
        complete.push(probs);
    }
    complete
}

/// A continuation as the estimator spills it (crate::spill).
impl Record for Continuation {
    const SIZE: usize = 25;
    fn put(self, to: &mut Vec<u8>) {
        (self.key, self.count).put(to);
        to.push(self.order);
    }
    fn get(from: &[u8]) -> Self {
        let (key, count) = <(u128, u64)>::get(&from[..24]);
        Continuation {
            key,
            count,
            order: from[24],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjusted_counts_count_continuations() {
        let mut vocabulary = Vocabulary::default();
        let packing = Packing::new(3, 8).unwrap();
        let mut windows = Windows::new(3, packing);
        let mut keys = Vec::new();
        for line in ["a a b a", "b a a b"] {
            for word in line.split(' ') {
                keys.push(windows.next(vocabulary.id(word)));
            }
            keys.push(windows.next(EOS));
        }
        let windows = count(keys);
        let adjusted = adjust(&windows, 3, packing, true);
        let (a, b) = (3, 4);
        let unigram = |w: u32| adjusted[0].iter().find(|g| g.0 == w as u128).unwrap().1;
        // a follows <s>, a and b.
        assert_eq!(unigram(a), 3);
        assert_eq!(unigram(b), 2);
        assert_eq!(unigram(EOS), 2);
        assert_eq!(unigram(BOS), 0);
        assert_eq!(adjusted[1].len(), 7);
        assert_eq!(adjusted[2].len(), 7);
    }

    #[test]
    fn windows_restart_after_the_end_of_a_sentence() {
        let packing = Packing::new(2, 5).unwrap();
        let mut windows = Windows::new(2, packing);
        let keys: Vec<u128> = [3, EOS, 4, EOS].iter().map(|&w| windows.next(w)).collect();
        let pair = |a: u32, b: u32| a as u128 | (b as u128) << 3;
        assert_eq!(
            keys,
            [pair(BOS, 3), pair(3, EOS), pair(BOS, 4), pair(4, EOS)]
        );
    }
}
