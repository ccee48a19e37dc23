//! `lm estimate` and the `lmplz` drop-in: text (read as lmplz reads it) or a Parquet column
//! into a corpus, the model estimated by `metrics::kneser_ney` within a memory limit, written
//! as lmplz's ARPA, whole or not at all.
//!
//! The limit holds whatever the corpus's size: the word ids are split into ranges (shares),
//! each small enough that the n-grams ending in its words fit half the limit, and the
//! estimate runs share by share over lists that spill to a scratch directory
//! (`storage::spill`) beyond their part of the rest:
//!
//! 1. every window goes to the share of its last word;
//! 2. per share, the windows are counted and the adjusted counts of every order taken (all
//!    the n-grams that end in a word are there); each n-gram goes to its context's share;
//! 3. with the discounts (from every share's counts of counts), each share computes its
//!    contexts' statistics and sends them back to their n-grams' shares; a context's γ is its
//!    back-off;
//! 4. per share, the interpolated probabilities (an n-gram's lower orders end in the same word).
//!
//! Shares are word-id ranges in order and keys sort by last word first, so the ARPA is the
//! shares' n-grams one after the other. Without a limit there is one share and nothing
//! touches the disk. The vocabulary (and a share number per word) is held besides the limit.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result, anyhow};

use crate::formats::arpa;
use crate::lm::kneser_ney::{
    self, Context, Continuation, CountsOfCounts, Discount, EOS, EstimateError, Grams,
    Interpolation, Options, Packing, SpecialWords, Vocabulary, Windows,
};
use crate::storage::Output;
use crate::storage::spill::{Record, Scratch, Spill};

/// The memory an estimate may use, and where it spills the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    /// Bytes; none means everything is held in memory.
    pub limit: Option<usize>,
    /// Where the scratch directory is made (the system's temporary directory by default).
    pub temp_dir: Option<PathBuf>,
}

/// A corpus being read: its words as ids, each sentence ended by `</s>` unless said otherwise.
pub struct Corpus {
    vocabulary: Vocabulary,
    /// The sentences one after the other, each closed by `</s>` (but a last one without).
    text: Spill<u32>,
    /// Per word id, how many windows end in it (its tokens, `</s>` included).
    ends: Vec<u64>,
    tokens: u64,
    /// A sentence came without `</s>`: it must be the last.
    open: bool,
    special_words: SpecialWords,
    /// The special words met and skipped.
    pub skipped: u64,
    scratch: Arc<Scratch>,
    limit: Option<usize>,
}

impl Corpus {
    pub fn new(special_words: SpecialWords, memory: &Memory) -> Corpus {
        let scratch = Scratch::new(memory.temp_dir.clone());
        Corpus {
            vocabulary: Vocabulary::default(),
            text: Spill::new(&scratch, memory.limit.map_or(usize::MAX, |l| l / 16)),
            ends: Vec::new(),
            tokens: 0,
            open: false,
            special_words,
            skipped: 0,
            scratch,
            limit: memory.limit,
        }
    }

    /// Add a sentence; `closed` is false only for a last line without its line end, which
    /// lmplz counts without `</s>`.
    pub fn push<'a>(
        &mut self,
        words: impl IntoIterator<Item = &'a str>,
        closed: bool,
    ) -> Result<()> {
        assert!(!self.open, "only the last sentence may come without </s>");
        for word in words {
            let id = self.vocabulary.id(word);
            if id <= EOS {
                match self.special_words {
                    SpecialWords::Refuse => {
                        return Err(EstimateError::SpecialWord(word.into()).into());
                    }
                    SpecialWords::Skip => {
                        self.skipped += 1;
                        continue;
                    }
                }
            }
            self.add(id)?;
            self.tokens += 1;
        }
        if closed {
            self.add(EOS)?;
        }
        self.open = !closed;
        Ok(())
    }

    fn add(&mut self, id: u32) -> Result<()> {
        self.text.push(id).map_err(|e| self.scratch.error(e))?;
        if self.ends.len() <= id as usize {
            self.ends.resize(id as usize + 1, 0);
        }
        self.ends[id as usize] += 1;
        Ok(())
    }

    /// Words read (without `</s>`), as lmplz's "Unigram tokens".
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }
}

/// An error of the text (a special word) said with where it is; one of the disk as it is.
fn at_sentence(error: anyhow::Error, place: &str) -> anyhow::Error {
    match error.downcast::<EstimateError>() {
        Ok(error) => anyhow!("{place}: {error}"),
        Err(error) => error,
    }
}

/// lmplz's input: lines of words separated by spaces, tabs, carriage returns or NULs. A last
/// line without its line end is counted without `</s>`, as lmplz counts it.
pub fn read_text(
    mut reader: impl BufRead,
    name: &str,
    special: SpecialWords,
    memory: &Memory,
) -> Result<Corpus> {
    let mut corpus = Corpus::new(special, memory);
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        if reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("reading {name}"))?
            == 0
        {
            break;
        }
        let closed = line.last() == Some(&b'\n');
        let text = std::str::from_utf8(&line)
            .map_err(|e| anyhow!("{name}:{number}: not UTF-8 text ({e})"))?;
        let words = text
            .split(['\0', '\t', '\n', '\r', ' '])
            .filter(|w| !w.is_empty());
        corpus
            .push(words, closed)
            .map_err(|e| at_sentence(e, &format!("{name}:{number}")))?;
    }
    Ok(corpus)
}

/// The sentences of a text file or a Parquet column (see `sentences::read`), in file order.
pub async fn read_sentences(
    input: &Path,
    column: &str,
    special: SpecialWords,
    memory: &Memory,
) -> Result<Corpus> {
    let mut corpus = Corpus::new(special, memory);
    let mut row = 0u64;
    crate::sentences::visit(input, column, |_, tokens| {
        row += 1;
        corpus
            .push(tokens.iter().copied(), true)
            .map_err(|e| at_sentence(e, &format!("{}: sentence {}", input.display(), row - 1)))
    })
    .await?;
    Ok(corpus)
}

/// Estimate, saying on `log` what lmplz says of the corpus and the discounts.
pub fn estimate(corpus: Corpus, options: &Options, log: &mut dyn Write) -> Result<Model> {
    let _ = writeln!(
        log,
        "Unigram tokens {} types {}",
        corpus.tokens(),
        corpus.vocabulary().len()
    );
    if corpus.skipped > 0 {
        let _ = writeln!(
            log,
            "Skipped {} instances of <s>, </s> and <unk> in the text",
            corpus.skipped
        );
    }
    let model = estimate_in_shares(corpus, options)?;
    if let Some(limit) = model.limit {
        let _ = writeln!(
            log,
            "Estimated within {:.1} MiB in {} share{} of the vocabulary",
            limit as f64 / (1 << 20) as f64,
            model.parts.len(),
            if model.parts.len() == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(log, "Statistics:");
    for (n, (grams, (discount, fallback))) in model.counts.iter().zip(&model.discounts).enumerate()
    {
        let mut line = format!("{} {}", n + 1, grams);
        for (d, name) in [(1, "D1="), (2, "D2="), (3, "D3+=")] {
            line.push(' ');
            line.push_str(name);
            arpa::shortest(discount.0[d], &mut line);
        }
        if *fallback {
            line.push_str(" (fallback)");
        }
        let _ = writeln!(log, "{line}");
    }
    Ok(model)
}

/// Word-id ranges, each with few enough windows that its share of the estimate fits half the
/// memory limit.
struct Shares {
    /// The share of each word id.
    of: Vec<u32>,
    count: usize,
    /// Bytes each spilling list may hold in memory.
    capacity: usize,
}

impl Shares {
    fn plan(ends: &[u64], order: usize, limit: Option<usize>) -> Shares {
        let Some(limit) = limit else {
            return Shares {
                of: vec![0; ends.len()],
                count: 1,
                capacity: usize::MAX,
            };
        };
        // Per window, at most one n-gram of each order, held as a (key, count) pair with its
        // probability, context statistics and γ, plus the window and its count.
        let per_window = 32 + 96 * order as u64;
        let windows = ((limit / 2) as u64 / per_window).max(1);
        let mut of = Vec::with_capacity(ends.len());
        let (mut share, mut filled) = (0u32, 0u64);
        for &ending in ends {
            if filled > 0 && filled + ending > windows {
                share += 1;
                filled = 0;
            }
            filled += ending;
            of.push(share);
        }
        let count = share as usize + 1;
        let capacity = match count {
            1 => usize::MAX,
            // Six lists per share at most, with 3/8 of the limit between them.
            _ => (limit / (16 * count)).max(1 << 16),
        };
        Shares {
            of,
            count,
            capacity,
        }
    }

    fn of(&self, word: u32) -> usize {
        self.of[word as usize] as usize
    }

    fn lists<T: Record>(&self, scratch: &Arc<Scratch>) -> Vec<Spill<T>> {
        (0..self.count)
            .map(|_| Spill::new(scratch, self.capacity))
            .collect()
    }
}

/// A context's statistics, sent back to one of its n-grams.
#[derive(Debug, Clone, Copy)]
struct ContextOf {
    key: u128,
    order: u8,
    denominator: u64,
    gamma: f32,
}

fn estimate_in_shares(corpus: Corpus, options: &Options) -> Result<Model> {
    let order = options.order;
    assert!(order >= 1, "the order is at least 1");
    if corpus.text.is_empty() {
        return Err(EstimateError::Empty.into());
    }
    let words = corpus.vocabulary.len();
    let packing = Packing::new(order, words)?;
    let shares = Shares::plan(&corpus.ends, order, corpus.limit);
    let scratch = corpus.scratch.clone();
    let limit = corpus.limit;
    let spilled = |e: io::Error| scratch.error(e);

    // 1. Each window to the share of its last word.
    let mut windows: Vec<Spill<u128>> = shares.lists(&scratch);
    let mut window = Windows::new(order, packing);
    for word in corpus.text.iter(0..corpus.text.len()).map_err(spilled)? {
        let word = word.map_err(spilled)?;
        windows[shares.of(word)]
            .push(window.next(word))
            .map_err(spilled)?;
    }
    let Corpus { vocabulary, .. } = corpus;

    // 2. Per share, its n-grams with their adjusted counts; each to its context's share.
    let mut continuations: Vec<Spill<Continuation>> = shares.lists(&scratch);
    let mut parts = Vec::with_capacity(shares.count);
    let mut counts_of_counts = CountsOfCounts::new(order);
    let mut empty = Context::default();
    for (share, keys) in windows.into_iter().enumerate() {
        let counted = kneser_ney::count(keys.to_vec().map_err(spilled)?);
        drop(keys);
        let grams = kneser_ney::adjust(&counted, order, packing, share == 0);
        counts_of_counts.add(&grams);
        if share == shares.count - 1 {
            counts_of_counts.end_of_stream(&counted, &grams, packing);
        }
        drop(counted);
        for &(_, count) in &grams[0] {
            empty.add(count);
        }
        for (n, grams) in (1..).zip(&grams).skip(1) {
            for &(key, count) in grams {
                let context_end = packing.word(key, n - 2);
                continuations[shares.of(context_end)]
                    .push(Continuation {
                        key,
                        count,
                        order: n as u8,
                    })
                    .map_err(spilled)?;
            }
        }
        parts.push(Part::new(&scratch, shares.capacity, &grams).map_err(spilled)?);
    }
    let discounts = counts_of_counts.discounts(options.discount_fallback)?;
    empty.finish(&discounts[0].0);

    // 3. Per share, its contexts' statistics, to their n-grams' shares; its γs.
    let mut answers: Vec<Spill<ContextOf>> = shares.lists(&scratch);
    for (share, list) in continuations.into_iter().enumerate() {
        let mut received = list.to_vec().map_err(spilled)?;
        drop(list);
        let part = &mut parts[share];
        kneser_ney::contexts(&mut received, &discounts, packing, |group, context| {
            let n = group[0].order as usize;
            part.push_gamma(n - 1, context.gamma)?;
            for gram in group {
                answers[shares.of(packing.word(gram.key, n - 1))].push(ContextOf {
                    key: gram.key,
                    order: gram.order,
                    denominator: context.denominator,
                    gamma: context.gamma,
                })?;
            }
            Ok(())
        })
        .map_err(spilled)?;
        part.close_gammas(order);
    }

    // 4. Per share, the probabilities.
    for (share, list) in answers.into_iter().enumerate() {
        let mut received = list.to_vec().map_err(spilled)?;
        drop(list);
        received.sort_unstable_by_key(|a| (a.order, a.key));
        let part = &mut parts[share];
        let grams = part.grams().map_err(spilled)?;
        let mut contexts = vec![Vec::new(); order];
        for answer in &received {
            contexts[answer.order as usize - 1].push((answer.denominator, answer.gamma));
        }
        // Sorted by order then key, as the n-grams are.
        let keys = grams[1..].iter().flatten().map(|&(key, _)| key);
        assert!(
            keys.eq(received.iter().map(|a| a.key)),
            "every n-gram has its context's statistics"
        );
        drop(received);
        let how = Interpolation {
            discounts: &discounts,
            empty: &empty,
            options,
            packing,
            words,
        };
        for probabilities in kneser_ney::probabilities(&grams, &contexts, &how) {
            for p in probabilities {
                part.probs.push(p.log10().min(0.0)).map_err(spilled)?;
            }
        }
    }
    let counts = (0..order)
        .map(|n| parts.iter().map(|part| part.len(n + 1) as u64).sum())
        .collect();
    Ok(Model {
        vocabulary,
        packing,
        order,
        parts,
        counts,
        discounts,
        scratch,
        limit,
    })
}

/// One share's n-grams, every order (1 first) sorted by key, their log10 probabilities in the
/// same order, and the γs of those that are contexts.
struct Part {
    grams: Spill<(u128, u64)>,
    probs: Spill<f32>,
    gammas: Spill<f32>,
    /// Where each order's n-grams (and probabilities) start, and the end.
    gram_starts: Vec<usize>,
    /// Where each order's γs start, and the end.
    gamma_starts: Vec<usize>,
}

impl Part {
    fn new(scratch: &Arc<Scratch>, capacity: usize, grams: &Grams) -> io::Result<Part> {
        let mut part = Part {
            grams: Spill::new(scratch, capacity),
            probs: Spill::new(scratch, capacity),
            gammas: Spill::new(scratch, capacity),
            gram_starts: vec![0],
            gamma_starts: Vec::new(),
        };
        for order in grams {
            for &gram in order {
                part.grams.push(gram)?;
            }
            part.gram_starts.push(part.grams.len());
        }
        Ok(part)
    }

    fn len(&self, n: usize) -> usize {
        self.gram_starts[n] - self.gram_starts[n - 1]
    }

    fn grams(&self) -> io::Result<Grams> {
        self.gram_starts
            .windows(2)
            .map(|w| self.grams.iter(w[0]..w[1])?.collect())
            .collect()
    }

    /// The γ of the next context of order `n` (contexts come by order, then by key).
    fn push_gamma(&mut self, n: usize, gamma: f32) -> io::Result<()> {
        while self.gamma_starts.len() < n {
            self.gamma_starts.push(self.gammas.len());
        }
        self.gammas.push(gamma)
    }

    fn close_gammas(&mut self, order: usize) {
        while self.gamma_starts.len() <= order {
            self.gamma_starts.push(self.gammas.len());
        }
    }
}

/// An estimated model, its n-grams in lmplz's order.
pub struct Model {
    pub vocabulary: Vocabulary,
    packing: Packing,
    order: usize,
    parts: Vec<Part>,
    /// The n-grams of each order.
    pub counts: Vec<u64>,
    /// Per order, the discounts used and whether they are the fallback ones.
    pub discounts: Vec<(Discount, bool)>,
    scratch: Arc<Scratch>,
    /// The memory limit it was estimated within.
    limit: Option<usize>,
}

impl Model {
    pub fn order(&self) -> usize {
        self.order
    }

    /// The n-grams of order `n` in lmplz's order: their word ids, log10 probability and, below
    /// the highest order, log10 back-off.
    pub fn visit(
        &self,
        n: usize,
        mut visit: impl FnMut(&[u32], f32, Option<f32>) -> io::Result<()>,
    ) -> io::Result<()> {
        // lmplz hands the contexts' γ out in order to every n-gram that does not end in <unk>
        // or </s>. Every such n-gram is a context, save the last words of a last line without
        // its line end: there the back-offs that follow shift by one (across shares too), as
        // lmplz writes them.
        let mut gammas = self.parts.iter().map(|part| {
            part.gammas
                .iter(part.gamma_starts[n - 1]..part.gamma_starts[n])
        });
        let mut current: Option<crate::storage::spill::Records<'_, f32>> = None;
        let mut next_gamma = || -> io::Result<Option<f32>> {
            loop {
                if let Some(gamma) = current.as_mut().and_then(Iterator::next) {
                    return gamma.map(Some);
                }
                match gammas.next() {
                    Some(records) => current = Some(records?),
                    None => return Ok(None),
                }
            }
        };
        let mut words = vec![0u32; n];
        for part in &self.parts {
            let range = part.gram_starts[n - 1]..part.gram_starts[n];
            let probs = part.probs.iter(range.clone())?;
            for (gram, prob) in part.grams.iter(range)?.zip(probs) {
                let (key, _) = gram?;
                for (i, word) in words.iter_mut().enumerate() {
                    *word = self.packing.word(key, i);
                }
                let backoff = if n == self.order {
                    None
                } else if kneser_ney::takes_backoff(key, n, self.packing) {
                    Some(next_gamma()?.map_or(0.0, f32::log10))
                } else {
                    Some(0.0)
                };
                visit(&words, prob?, backoff)?;
            }
        }
        Ok(())
    }
}

/// Write `model` as ARPA to `target` (atomically) or, without one, to `stdout`.
pub fn write(model: &Model, target: Option<&Path>, stdout: &mut dyn Write) -> Result<()> {
    let failed = |e: io::Error| -> anyhow::Error {
        match e.kind() {
            // Reading back what was spilled.
            io::ErrorKind::UnexpectedEof | io::ErrorKind::NotFound => model.scratch.error(e).into(),
            _ => e.into(),
        }
    };
    match target {
        Some(path) => {
            let mut out = Output::create(path)?;
            write_arpa(model, &mut out)
                .map_err(failed)
                .with_context(|| format!("writing {}", path.display()))?;
            out.commit()
        }
        None => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
            write_arpa(model, &mut out)
                .and_then(|()| out.flush())
                .map_err(failed)
                .context("writing the model to stdout")
        }
    }
}

fn write_arpa(model: &Model, out: &mut dyn Write) -> io::Result<()> {
    let mut writer = arpa::Writer::new(out, &model.counts);
    for n in 1..=model.order() {
        writer.section(n);
        model.visit(n, |words, prob, backoff| {
            writer.gram(
                prob,
                words.iter().map(|&w| model.vocabulary.word(w)),
                backoff,
            )
        })?;
    }
    writer.finish()
}

impl Record for ContextOf {
    const SIZE: usize = 29;
    fn put(self, to: &mut Vec<u8>) {
        (self.key, self.denominator).put(to);
        self.gamma.put(to);
        to.push(self.order);
    }
    fn get(from: &[u8]) -> Self {
        let (key, denominator) = <(u128, u64)>::get(&from[..24]);
        ContextOf {
            key,
            denominator,
            gamma: f32::get(&from[24..28]),
            order: from[28],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use hashbrown::HashMap;

    use crate::lm::kneser_ney::{BOS, UNK};

    fn corpus(lines: &[&str]) -> Corpus {
        let mut corpus = Corpus::new(SpecialWords::Refuse, &Memory::default());
        for line in lines {
            corpus.push(line.split_whitespace(), true).unwrap();
        }
        corpus
    }

    fn model(corpus: Corpus, options: &Options) -> Model {
        estimate_in_shares(corpus, options).unwrap()
    }

    /// Every word's log10 probability and back-off, by its words.
    fn table(model: &Model) -> HashMap<Vec<u32>, (f64, f64)> {
        let mut table = HashMap::new();
        for n in 1..=model.order() {
            model
                .visit(n, |words, prob, backoff| {
                    let backoff = backoff.unwrap_or(0.0) as f64;
                    table.insert(words.to_vec(), (prob as f64, backoff));
                    Ok(())
                })
                .unwrap();
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
        let model = model(corpus(&["a a b a", "b a a b"]), &options);
        let mut unigrams = Vec::new();
        model
            .visit(1, |_, prob, _| {
                unigrams.push(prob);
                Ok(())
            })
            .unwrap();
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
        let mut random = crate::stats::random::SplitMix64::new(7);
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
            let model = model(corpus(&lines), &options);
            let table = table(&model);
            let words: Vec<u32> = (0..model.vocabulary.len() as u32)
                .filter(|&w| w != BOS)
                .collect();
            // Each context of the model, and the empty one.
            let mut contexts: Vec<Vec<u32>> = vec![Vec::new()];
            for n in 1..order {
                model
                    .visit(n, |words, _, _| {
                        if !matches!(words.last(), Some(&EOS) | Some(&UNK)) {
                            contexts.push(words.to_vec());
                        }
                        Ok(())
                    })
                    .unwrap();
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

    /// The ARPA of `lines` (the last one without its line end when `unclosed`) estimated
    /// within `limit` bytes, or the error.
    fn arpa(
        lines: &[String],
        unclosed: bool,
        order: usize,
        limit: Option<usize>,
    ) -> Result<String, String> {
        let memory = Memory {
            limit,
            temp_dir: None,
        };
        let mut corpus = Corpus::new(SpecialWords::Refuse, &memory);
        for (i, line) in lines.iter().enumerate() {
            let closed = !(unclosed && i + 1 == lines.len());
            corpus.push(line.split_whitespace(), closed).unwrap();
        }
        let options = Options {
            discount_fallback: Some([0.5, 1.0, 1.5]),
            ..Options::new(order)
        };
        let model = estimate_in_shares(corpus, &options).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        write_arpa(&model, &mut out).unwrap();
        Ok(String::from_utf8(out).unwrap())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Shares of any size, down to a word each, give the model of one share: the same
        /// bytes (or the same error, for a text with no word), with empty lines and a last
        /// line without its line end.
        #[test]
        fn shares_give_the_model_of_one(
            lines in proptest::collection::vec(proptest::collection::vec(0u8..12, 0..7), 1..25),
            unclosed: bool,
            order in 1usize..5,
            limit in 1usize..20_000,
        ) {
            let lines: Vec<String> = lines
                .iter()
                .map(|words| words.iter().map(|w| format!("w{}", w * w % 13)).collect::<Vec<_>>().join(" "))
                .collect();
            let whole = arpa(&lines, unclosed, order, None);
            proptest::prop_assert_eq!(arpa(&lines, unclosed, order, Some(limit)), whole);
        }
    }
}
