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
//! The whole corpus and its n-grams are held in memory.

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
    fn id(&mut self, word: &str) -> u32 {
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

/// A corpus being read: its words as ids, each sentence ended by `</s>` unless said otherwise.
#[derive(Debug, Clone)]
pub struct Corpus {
    vocabulary: Vocabulary,
    text: Vec<u32>,
    /// Where each sentence starts in `text`, and `text.len()` last.
    starts: Vec<usize>,
    tokens: u64,
    special_words: SpecialWords,
    /// The special words met and skipped.
    pub skipped: u64,
}

impl Corpus {
    pub fn new(special_words: SpecialWords) -> Corpus {
        Corpus {
            vocabulary: Vocabulary::default(),
            text: Vec::new(),
            starts: vec![0],
            tokens: 0,
            special_words,
            skipped: 0,
        }
    }

    /// Add a sentence; `closed` is false only for a last line without its line end, which
    /// lmplz counts without `</s>`.
    pub fn push<'a>(
        &mut self,
        words: impl IntoIterator<Item = &'a str>,
        closed: bool,
    ) -> Result<(), EstimateError> {
        for word in words {
            let id = self.vocabulary.id(word);
            if id <= EOS {
                match self.special_words {
                    SpecialWords::Refuse => return Err(EstimateError::SpecialWord(word.into())),
                    SpecialWords::Skip => {
                        self.skipped += 1;
                        continue;
                    }
                }
            }
            self.text.push(id);
            self.tokens += 1;
        }
        if closed {
            self.text.push(EOS);
        }
        self.starts.push(self.text.len());
        Ok(())
    }

    /// Words read (without `</s>`), as lmplz's "Unigram tokens".
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }

    fn sentences(&self) -> impl Iterator<Item = &[u32]> {
        self.starts.windows(2).map(|w| &self.text[w[0]..w[1]])
    }
}

/// N-grams of one order packed as keys: word i (0-based) in bits `i*bits..(i+1)*bits`.
#[derive(Debug, Clone, Copy)]
struct Packing {
    bits: u32,
}

impl Packing {
    fn mask(self, words: usize) -> u128 {
        match self.bits as usize * words {
            128 => u128::MAX,
            b => (1u128 << b) - 1,
        }
    }

    fn word(self, key: u128, i: usize) -> u32 {
        ((key >> (self.bits as usize * i)) & self.mask(1)) as u32
    }

    /// The last `n` of `order` words.
    fn suffix(self, key: u128, order: usize, n: usize) -> u128 {
        key >> (self.bits as usize * (order - n))
    }
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

/// The n-grams of one order, in lmplz's output order, with log10 probabilities and back-offs.
#[derive(Debug, Clone, Default)]
pub struct Order {
    keys: Vec<u128>,
    pub log10_prob: Vec<f32>,
    /// log10 of the back-off (0 where the n-gram is not a context; none at the highest order,
    /// whose n-grams are no contexts).
    pub log10_backoff: Vec<f32>,
}

impl Order {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// An estimated model.
#[derive(Debug, Clone)]
pub struct Model {
    pub vocabulary: Vocabulary,
    packing: Packing,
    pub orders: Vec<Order>,
    /// Per order, the discounts used and whether they are the fallback ones.
    pub discounts: Vec<(Discount, bool)>,
}

impl Model {
    pub fn order(&self) -> usize {
        self.orders.len()
    }

    /// The word ids of the `i`-th n-gram of order `n`, first word first.
    pub fn words(&self, n: usize, i: usize) -> impl Iterator<Item = u32> + '_ {
        let key = self.orders[n - 1].keys[i];
        (0..n).map(move |k| self.packing.word(key, k))
    }
}

/// Estimate the model of `options.order` from `corpus`.
pub fn estimate(corpus: &Corpus, options: &Options) -> Result<Model, EstimateError> {
    let order = options.order;
    assert!(order >= 1, "the order is at least 1");
    if corpus.text.is_empty() {
        return Err(EstimateError::Empty);
    }
    let words = corpus.vocabulary.len();
    let bits = (32 - (words as u32 - 1).leading_zeros()).max(1);
    if bits as usize * order > 128 {
        return Err(EstimateError::TooWide { order, words, bits });
    }
    let packing = Packing { bits };
    let windows = count_windows(corpus, order, packing);
    let adjusted = adjust(&windows, order, packing);
    let discounts = adjusted
        .iter()
        .enumerate()
        .map(|(i, order)| discount(i + 1, &order.counts_of_counts, options.discount_fallback))
        .collect::<Result<Vec<_>, _>>()?;
    let orders = probabilities(&adjusted, &discounts, options, packing, words);
    Ok(Model {
        vocabulary: corpus.vocabulary.clone(),
        packing,
        orders,
        discounts,
    })
}

/// Every window of `order` words (sentences padded with `<s>`), with its count, sorted.
fn count_windows(corpus: &Corpus, order: usize, packing: Packing) -> Vec<(u128, u64)> {
    let bits = packing.bits as usize;
    let top = bits * (order - 1);
    let mut keys = Vec::with_capacity(corpus.text.len());
    // <s> in words 1..order - 1: the first shift moves them to 0..order - 2, before the first word.
    let padding: u128 = (1..order).fold(0, |key, i| key | (BOS as u128) << (bits * i));
    for sentence in corpus.sentences() {
        let mut key = padding;
        for &word in sentence {
            // Shift the oldest word out of the low bits and the new one into the top (with
            // order 1, the top is the low bits, and the shift empties them).
            key = (key >> bits) | ((word as u128) << top);
            keys.push(key);
        }
    }
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

/// The n-grams of one order with their adjusted counts, sorted by key, and the counts of
/// those counts (1 to 4) the discounts come from.
#[derive(Debug, Clone)]
struct Adjusted {
    grams: Vec<(u128, u64)>,
    counts_of_counts: [u64; 5],
}

/// Per order (1 first), the n-grams and their adjusted counts.
fn adjust(windows: &[(u128, u64)], order: usize, packing: Packing) -> Vec<Adjusted> {
    let starts_with_bos = |key: u128| packing.word(key, 0) == BOS;
    // An n-gram may hold <s> only as its first word.
    let valid = |key: u128, n: usize| n == 1 || packing.word(key, 1) != BOS;
    let mut orders = Vec::with_capacity(order);
    for n in 1..order {
        let mut grams: Vec<(u128, u64)> = Vec::new();
        let mut previous_longer = None;
        for &(key, count) in windows {
            let gram = packing.suffix(key, order, n);
            let longer = packing.suffix(key, order, n + 1);
            if !valid(gram, n) {
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
            .filter(|&(key, _)| valid(key, order))
            .collect(),
    );
    // <unk> and <s> are unigrams with no count, first in key order (no window ends in either).
    orders[0].splice(0..0, [(UNK as u128, 0), (BOS as u128, 0)]);
    let mut adjusted: Vec<Adjusted> = orders
        .into_iter()
        .map(|grams| {
            let mut counts_of_counts = [0u64; 5];
            for &(_, count) in &grams {
                if count < 5 {
                    counts_of_counts[count as usize] += 1;
                }
            }
            Adjusted {
                grams,
                counts_of_counts,
            }
        })
        .collect();
    // lmplz's AdjustCounts counts the n-grams still open when its stream ends (the shorter
    // n-grams of the last window) by their plain counts instead of their adjusted ones; its
    // discounts come from those counts, so these do too.
    let last = windows.last().expect("a corpus has a window").0;
    for n in 1..order {
        let gram = packing.suffix(last, order, n);
        if !valid(gram, n) {
            continue;
        }
        let plain: u64 = windows
            .iter()
            .rev()
            .take_while(|&&(key, _)| packing.suffix(key, order, n) == gram)
            .map(|&(_, count)| count)
            .sum();
        let counted = adjusted[n - 1].grams.last().expect("the last window's").1;
        let counts = &mut adjusted[n - 1].counts_of_counts;
        if counted < 5 {
            counts[counted as usize] -= 1;
        }
        if plain < 5 {
            counts[plain as usize] += 1;
        }
    }
    adjusted
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

/// What one context's n-grams share: the sum of their adjusted counts and γ.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    denominator: u64,
    counts: [u64; 4],
    gamma: f32,
}

impl Context {
    fn add(&mut self, count: u64) {
        self.denominator += count;
        if count > 0 {
            self.counts[count.min(3) as usize] += 1;
        }
    }

    /// γ as lmplz's `AddRight` computes it (the discounted mass over the denominator).
    fn finish(&mut self, discount: &Discount) {
        let mut gamma = 0f32;
        for i in 1..4 {
            gamma += discount.get(i as u64) * self.counts[i] as f32;
        }
        self.gamma = gamma / self.denominator as f32;
    }
}

/// Discounted, then interpolated, probabilities and back-offs of every order.
fn probabilities(
    adjusted: &[Adjusted],
    discounts: &[(Discount, bool)],
    options: &Options,
    packing: Packing,
    words: usize,
) -> Vec<Order> {
    let order = adjusted.len();
    // Contexts are found by binary search in the order below (no second copy of them).
    let find = |n: usize, key: u128| -> usize {
        adjusted[n - 1]
            .grams
            .binary_search_by_key(&key, |&(k, _)| k)
            .expect("every context and suffix is an n-gram of the order below")
    };
    // contexts[n - 1][i]: the n-gram i of order n as the context of order n + 1; unigrams share
    // the empty context.
    let mut contexts: Vec<Vec<Context>> = adjusted
        .iter()
        .map(|order| vec![Context::default(); order.grams.len()])
        .collect();
    let mut empty = Context::default();
    for &(_, count) in &adjusted[0].grams {
        empty.add(count);
    }
    empty.finish(&discounts[0].0);
    for n in 2..=order {
        let (lower, _) = contexts.split_at_mut(n - 1);
        let lower = &mut lower[n - 2];
        for &(key, count) in &adjusted[n - 1].grams {
            lower[find(n - 1, key & packing.mask(n - 1))].add(count);
        }
        for context in lower.iter_mut().filter(|c| c.denominator > 0) {
            context.finish(&discounts[n - 1].0);
        }
    }

    let uniform = (1.0 / options.vocab_pad.max(words as u64 - 1) as f32 as f64) as f32;
    let mut complete: Vec<Vec<f32>> = Vec::with_capacity(order);
    let mut orders = Vec::with_capacity(order);
    for n in 1..=order {
        let discount = &discounts[n - 1].0;
        let mut probs = Vec::with_capacity(adjusted[n - 1].grams.len());
        let mut suffix = 0;
        for &(key, count) in &adjusted[n - 1].grams {
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
                let below = &adjusted[n - 2].grams;
                while below[suffix].0 != key >> packing.bits {
                    suffix += 1;
                }
                let context = &contexts[n - 2][find(n - 1, key & packing.mask(n - 1))];
                discount.apply(count) / context.denominator as f32
                    + context.gamma * complete[n - 2][suffix]
            };
            probs.push(p);
        }
        let keys: Vec<u128> = adjusted[n - 1].grams.iter().map(|&(k, _)| k).collect();
        // lmplz hands the contexts' γ out in order to every n-gram that does not end in <unk>
        // or </s>. Every such n-gram is a context, save the last words of a last line without
        // its line end: there the back-offs that follow shift by one, as lmplz writes them.
        let log10_backoff = if n < order {
            let mut gammas = contexts[n - 1]
                .iter()
                .filter(|c| c.denominator > 0)
                .map(|c| c.gamma);
            keys.iter()
                .map(|&key| match packing.word(key, n - 1) {
                    UNK | EOS => 0.0,
                    _ => gammas.next().map_or(0.0, f32::log10),
                })
                .collect()
        } else {
            Vec::new()
        };
        orders.push(Order {
            keys,
            log10_prob: probs.iter().map(|p| p.log10().min(0.0)).collect(),
            log10_backoff,
        });
        complete.push(probs);
    }
    orders
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(lines: &[&str]) -> Corpus {
        let mut corpus = Corpus::new(SpecialWords::Refuse);
        for line in lines {
            corpus.push(line.split_whitespace(), true).unwrap();
        }
        corpus
    }

    /// Every word's log10 probability and back-off, by its words.
    fn table(model: &Model) -> HashMap<Vec<u32>, (f64, f64)> {
        let mut table = HashMap::new();
        for n in 1..=model.order() {
            let order = &model.orders[n - 1];
            for i in 0..order.len() {
                let backoff = order.log10_backoff.get(i).copied().unwrap_or(0.0);
                let words = model.words(n, i).collect();
                table.insert(words, (order.log10_prob[i] as f64, backoff as f64));
            }
        }
        table
    }

    /// log10 p(word | context) by back-off, as a reader of the ARPA computes it.
    fn log10_p(table: &HashMap<Vec<u32>, (f64, f64)>, context: &[u32], word: u32) -> f64 {
        let mut gram = context.to_vec();
        gram.push(word);
        match table.get(&gram) {
            Some(&(p, _)) => p,
            None => {
                let backoff = table.get(context).map_or(0.0, |&(_, b)| b);
                backoff + log10_p(table, &context[1..], word)
            }
        }
    }

    #[test]
    fn unigrams_by_hand() {
        // Adjusted counts: a 3 (after <s>, a, b), b 2, </s> 2; with the fallback discounts
        // (0.5, 1, 1.5), gamma = (1 x 2 + 1.5 x 1) / 7 = 0.5 and the uniform weight is 1/4.
        let mut options = Options::new(3);
        options.discount_fallback = Some([0.5, 1.0, 1.5]);
        let model = estimate(&corpus(&["a a b a", "b a a b"]), &options).unwrap();
        let unigrams = &model.orders[0].log10_prob;
        let by_hand = [
            0.5 * 0.25,
            1.0,
            1.0 / 7.0 + 0.125,
            1.5 / 7.0 + 0.125,
            1.0 / 7.0 + 0.125,
        ];
        for (id, p) in by_hand.iter().enumerate() {
            assert!(
                (unigrams[id] as f64 - f64::log10(*p)).abs() < 1e-6,
                "word {id}"
            );
        }
        assert_eq!(
            model
                .discounts
                .iter()
                .filter(|(_, fallback)| *fallback)
                .count(),
            3
        );
    }

    #[test]
    fn every_context_sums_to_one() {
        let mut random = crate::metrics::random::SplitMix64::new(7);
        let lines: Vec<String> = (0..400)
            .map(|_| {
                let length = 1 + random.below(12);
                (0..length)
                    .map(|_| format!("w{}", random.below(300).min(random.below(300))))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        for order in 1..=4 {
            let options = Options {
                // Where the text is too small to estimate an order's discounts.
                discount_fallback: Some([0.5, 1.0, 1.5]),
                ..Options::new(order)
            };
            let model = estimate(&corpus(&lines), &options).unwrap();
            let table = table(&model);
            let words: Vec<u32> = (0..model.vocabulary.len() as u32)
                .filter(|&w| w != BOS)
                .collect();
            // Each context of the model, and the empty one.
            let mut contexts: Vec<Vec<u32>> = vec![Vec::new()];
            for n in 1..order {
                for i in 0..model.orders[n - 1].len() {
                    let context: Vec<u32> = model.words(n, i).collect();
                    if !matches!(context.last(), Some(&EOS) | Some(&UNK)) {
                        contexts.push(context);
                    }
                }
            }
            for context in &contexts {
                let total: f64 = words
                    .iter()
                    .map(|&w| 10f64.powf(log10_p(&table, context, w)))
                    .sum();
                assert!(
                    (total - 1.0).abs() < 1e-4,
                    "order {order}, {context:?}: {total}"
                );
            }
        }
    }

    #[test]
    fn adjusted_counts_count_continuations() {
        let corpus = corpus(&["a a b a", "b a a b"]);
        let packing = Packing { bits: 3 };
        let windows = count_windows(&corpus, 3, packing);
        let adjusted = adjust(&windows, 3, packing);
        let a = 3;
        let b = 4;
        let unigram = |w: u32| {
            adjusted[0]
                .grams
                .iter()
                .find(|g| g.0 == w as u128)
                .unwrap()
                .1
        };
        // a follows <s>, a and b.
        assert_eq!(unigram(a), 3);
        assert_eq!(unigram(b), 2);
        assert_eq!(unigram(EOS), 2);
        assert_eq!(unigram(BOS), 0);
        assert_eq!(adjusted[1].grams.len(), 7);
        assert_eq!(adjusted[2].grams.len(), 7);
    }
}
