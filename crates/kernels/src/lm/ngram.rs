//! A back-off n-gram language model (as an ARPA file gives it) and the log10 probability of a
//! sentence under it, computed as SRILM and KenLM do:
//!
//! ```text
//! log p(w | c) = log p(c w)                      if the n-gram c w is in the model
//!              = backoff(c) + log p(w | c[1..])  otherwise (backoff 0 for a context not in it)
//! ```
//!
//! N-grams are stored in a trie over *reversed* n-grams (w, then the word before it, ...), so
//! one walk finds the longest match for a word; the back-off weights of its context are those
//! of the nodes the previous word's walk met, carried along as KenLM's State carries them, so
//! a sentence costs one walk per word. Every n-gram is one hash entry and one node: no
//! allocation per n-gram. A node's scores live in its hash entry, so a step of the walk is one
//! random memory access, not three (the entry, then the node's log p, then its back-off).

use hashbrown::HashMap;

use crate::text::intern::Interner;

/// What KenLM assigns to `<unk>` when a model does not list it.
pub const MISSING_UNK_LOG10: f32 = -100.0;

/// The id of `<unk>`.
const UNK: u32 = 0;

/// A node whose n-gram is not itself in the model (only a longer one it is a suffix of).
const ABSENT: f32 = f32::NAN;

#[derive(Debug, Default)]
pub struct NgramModel {
    /// Unigram node of word `id` is node `id`.
    vocabulary: Interner,
    /// (node, previous word) -> node of the n-gram one word longer to the left.
    children: HashMap<(u32, u32), Node>,
    /// The unigrams' scores, by word id.
    log_p: Vec<f32>,
    backoff: Vec<f32>,
    /// Nodes below the unigrams so far (their ids follow the word ids).
    longer: u32,
    order: usize,
    bos: Option<u32>,
    eos: u32,
    counts: Vec<u64>,
}

/// A node below the unigrams: its id (the key of its own children) and its n-gram's scores.
#[derive(Debug, Clone, Copy)]
struct Node {
    id: u32,
    log_p: f32,
    backoff: f32,
}

/// Why an n-gram cannot be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NgramError {
    UnknownWord(String),
    UnigramAfterLonger(String),
    Order { expected: usize, got: usize },
}

impl std::fmt::Display for NgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NgramError::UnknownWord(w) => {
                write!(f, "`{w}` is in an n-gram but not among the unigrams")
            }
            NgramError::UnigramAfterLonger(w) => {
                write!(f, "unigram `{w}` comes after longer n-grams")
            }
            NgramError::Order { expected, got } => {
                write!(f, "expected a {expected}-gram, got {got} words")
            }
        }
    }
}

/// Builds an [`NgramModel`]: unigrams first, then longer n-grams in any order.
#[derive(Debug, Default)]
pub struct NgramModelBuilder {
    model: NgramModel,
}

impl NgramModelBuilder {
    /// `counts[k]` is the number of (k+1)-grams announced, used to size the tables (up to a
    /// bound: a header is not trusted with the memory it asks for; the tables grow past it).
    pub fn new(counts: &[u64]) -> Self {
        const RESERVE: u64 = 1 << 24;
        let unigrams = counts.first().copied().unwrap_or(0).min(RESERVE) as usize;
        let longer = counts
            .iter()
            .skip(1)
            .fold(0u64, |a, &c| a.saturating_add(c))
            .min(RESERVE) as usize;
        let mut builder = NgramModelBuilder {
            model: NgramModel {
                vocabulary: Interner::with_capacity(unigrams + 1),
                children: HashMap::with_capacity(longer),
                log_p: Vec::with_capacity(unigrams + 1),
                backoff: Vec::with_capacity(unigrams + 1),
                order: counts.len(),
                counts: counts.to_vec(),
                ..Default::default()
            },
        };
        // <unk> is word 0, as in KenLM, whether or not the model lists it.
        builder
            .add_unigram("<unk>", MISSING_UNK_LOG10, 0.0)
            .expect("the first unigram");
        builder
    }

    pub fn add_unigram(&mut self, word: &str, log_p: f32, backoff: f32) -> Result<(), NgramError> {
        let m = &mut self.model;
        if m.vocabulary.get(word).is_none() && m.longer > 0 {
            return Err(NgramError::UnigramAfterLonger(word.to_string()));
        }
        let id = m.vocabulary.intern(word) as usize;
        if id == m.log_p.len() {
            m.log_p.push(log_p);
            m.backoff.push(backoff);
        } else {
            (m.log_p[id], m.backoff[id]) = (log_p, backoff);
        }
        Ok(())
    }

    /// Add the n-gram `words` (n >= 2; every word already a unigram).
    pub fn add(&mut self, words: &[&str], log_p: f32, backoff: f32) -> Result<(), NgramError> {
        let m = &mut self.model;
        let id = |w: &str| {
            m.vocabulary
                .get(w)
                .ok_or_else(|| NgramError::UnknownWord(w.to_string()))
        };
        let (last, context) = words.split_last().expect("an n-gram has words");
        let mut node = id(last)?;
        let mut entry = None;
        for word in context.iter().rev() {
            let key = (node, id(word)?);
            let next = m.vocabulary.len() as u32 + m.longer;
            let child = m.children.entry(key).or_insert(Node {
                id: next,
                log_p: ABSENT,
                backoff: 0.0,
            });
            if child.id == next {
                m.longer += 1;
            }
            node = child.id;
            entry = Some(key);
        }
        let node = m
            .children
            .get_mut(&entry.expect("n >= 2"))
            .expect("inserted above");
        (node.log_p, node.backoff) = (log_p, backoff);
        Ok(())
    }

    pub fn build(mut self) -> NgramModel {
        let m = &mut self.model;
        m.order = m.order.max(1);
        m.bos = m.vocabulary.get("<s>");
        m.eos = m.vocabulary.get("</s>").unwrap_or(UNK);
        self.model
    }
}

impl NgramModel {
    pub fn order(&self) -> usize {
        self.order
    }

    /// N-grams per order, as the file announced them.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Approximate bytes held, for reports.
    pub fn memory(&self) -> usize {
        self.vocabulary.memory()
            + self.children.capacity() * (std::mem::size_of::<((u32, u32), Node)>() + 1)
            + self.log_p.capacity() * 8
    }

    /// The id of `word`, `<unk>` for a word the model does not know.
    pub fn id(&self, word: &str) -> u32 {
        self.vocabulary.get(word).unwrap_or(UNK)
    }

    /// Whether `word` is in the vocabulary (otherwise it scores as `<unk>`).
    pub fn knows(&self, word: &str) -> bool {
        self.id(word) != UNK
    }

    /// p(word | context), context oldest first (only its last order-1 words matter), as
    /// KenLM's `full_scores` reports it: log10, the length of the n-gram found, and whether the
    /// word is out of the vocabulary. [`Self::log10_within`] and [`Self::full_scores`] give the
    /// same figures in one trie walk per word instead of two.
    pub fn score(&self, context: &[u32], word: u32) -> WordScore {
        let context = &context[context.len().saturating_sub(self.order - 1)..];
        let (mut node, mut log_p, mut matched) = (word, self.log_p[word as usize], 0);
        for (k, &previous) in context.iter().rev().enumerate() {
            let Some(child) = self.children.get(&(node, previous)) else {
                break;
            };
            node = child.id;
            if !child.log_p.is_nan() {
                (log_p, matched) = (child.log_p, k + 1);
            }
        }
        // The contexts longer than the match back off: add their weights. The context of length
        // j is the node reached by walking j words back from the last one.
        let ngram_length = matched as u32 + 1;
        let oov = word == UNK;
        let Some((&last, rest)) = context.split_last() else {
            return WordScore {
                log10: log_p,
                ngram_length,
                oov,
            };
        };
        let mut node = last;
        if matched < 1 {
            log_p += self.backoff[node as usize];
        }
        for (j, &previous) in (2..).zip(rest.iter().rev()) {
            let Some(child) = self.children.get(&(node, previous)) else {
                break;
            };
            node = child.id;
            if j > matched {
                log_p += child.backoff;
            }
        }
        WordScore {
            log10: log_p,
            ngram_length,
            oov,
        }
    }

    /// log10 probability of a sentence with `<s>` before and `</s>` after, as KenLM's
    /// `Model.score(sentence, bos=True, eos=True)`.
    pub fn sentence_log10(&self, words: &[&str], scratch: &mut Scratch) -> f64 {
        self.sentence_log10_of_ids(words.iter().map(|w| self.id(w)), scratch)
    }

    /// [`Self::sentence_log10`] of words given as ids of this model ([`Self::id`]).
    pub fn sentence_log10_of_ids(
        &self,
        words: impl IntoIterator<Item = u32>,
        scratch: &mut Scratch,
    ) -> f64 {
        self.log10_within(words, Bounds::SENTENCE, scratch)
    }

    /// log10 probability of `words` (ids of this model) between `bounds`: KenLM's
    /// `Model.score(sentence, bos, eos)`. Without `<s>` the first word has no context.
    pub fn log10_within(
        &self,
        words: impl IntoIterator<Item = u32>,
        bounds: Bounds,
        scratch: &mut Scratch,
    ) -> f64 {
        let mut total = 0.0;
        self.walk(words, bounds, scratch, |score| total += score.log10 as f64);
        total
    }

    /// Each word's score and then `</s>`'s when `bounds.eos`: KenLM's `full_scores`.
    pub fn full_scores(
        &self,
        words: impl IntoIterator<Item = u32>,
        bounds: Bounds,
        scratch: &mut Scratch,
        out: &mut Vec<WordScore>,
    ) {
        out.clear();
        self.walk(words, bounds, scratch, |score| out.push(score));
        if bounds.eos {
            // KenLM flags only words of the sentence as OOV, never the `</s>` it adds.
            out.last_mut().expect("</s> was scored").oov = false;
        }
    }

    /// Score [<s>] words [</s>] left to right as [`Self::score`] does, but carrying what KenLM's
    /// State carries: the back-off weights of the contexts ending at the previous word, met
    /// while looking that word up, so that each word walks the trie once instead of twice.
    fn walk(
        &self,
        words: impl IntoIterator<Item = u32>,
        bounds: Bounds,
        scratch: &mut Scratch,
        mut each: impl FnMut(WordScore),
    ) {
        let Scratch {
            ids,
            backoffs,
            next,
        } = scratch;
        ids.clear();
        backoffs.clear();
        if bounds.bos {
            let bos = self.bos.unwrap_or(UNK);
            ids.push(bos);
            backoffs.push(self.backoff[bos as usize]);
        }
        ids.extend(words);
        if bounds.eos {
            ids.push(self.eos);
        }
        // backoffs[j]: the weight of the context made of the j + 1 words before the current one.
        for i in bounds.bos as usize..ids.len() {
            let word = ids[i];
            let (mut node, mut log_p, mut matched) = (word, self.log_p[word as usize], 0);
            next.clear();
            next.push(self.backoff[word as usize]);
            for (k, &previous) in ids[i.saturating_sub(self.order - 1)..i]
                .iter()
                .rev()
                .enumerate()
            {
                let Some(child) = self.children.get(&(node, previous)) else {
                    break;
                };
                node = child.id;
                if !child.log_p.is_nan() {
                    (log_p, matched) = (child.log_p, k + 1);
                }
                if k + 2 < self.order {
                    next.push(child.backoff);
                }
            }
            for backoff in &backoffs[matched.min(backoffs.len())..] {
                log_p += backoff;
            }
            each(WordScore {
                log10: log_p,
                ngram_length: matched as u32 + 1,
                oov: word == UNK,
            });
            std::mem::swap(backoffs, next);
        }
    }
}

/// Reusable buffers for scoring sentences.
#[derive(Debug, Default)]
pub struct Scratch {
    ids: Vec<u32>,
    backoffs: Vec<f32>,
    next: Vec<f32>,
}

/// Whether a scored span is a whole sentence: `<s>` before it, `</s>` after (KenLM's `bos`
/// and `eos`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub bos: bool,
    pub eos: bool,
}

impl Bounds {
    pub const SENTENCE: Bounds = Bounds {
        bos: true,
        eos: true,
    };
}

/// One word's score under the model, as KenLM's `full_scores` yields it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WordScore {
    /// log10 p(word | context).
    pub log10: f32,
    /// Words of the longest n-gram of the model ending in this word and its context (1: the
    /// unigram, also for an OOV word, which scores as `<unk>`).
    pub ngram_length: u32,
    /// Not in the model's vocabulary.
    pub oov: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bigram model small enough to score by hand.
    fn model() -> NgramModel {
        let mut b = NgramModelBuilder::new(&[4, 2]);
        b.add_unigram("<s>", -99.0, -0.5).unwrap();
        b.add_unigram("</s>", -1.0, 0.0).unwrap();
        b.add_unigram("a", -0.6, -0.3).unwrap();
        b.add_unigram("b", -0.8, -0.2).unwrap();
        b.add(&["<s>", "a"], -0.1, 0.0).unwrap();
        b.add(&["a", "b"], -0.2, 0.0).unwrap();
        b.build()
    }

    #[test]
    fn backs_off_as_srilm_does() {
        let m = model();
        let mut ids = Scratch::default();
        // <s> a: -0.1; a b: -0.2; b </s>: backoff(b) + p(</s>) = -0.2 - 1.0
        assert!((m.sentence_log10(&["a", "b"], &mut ids) - (-0.1 - 0.2 - 1.2)).abs() < 1e-6);
        // <s> b: -0.5 - 0.8; b a: -0.2 - 0.6; a </s>: -0.3 - 1.0
        assert!((m.sentence_log10(&["b", "a"], &mut ids) - (-1.3 - 0.8 - 1.3)).abs() < 1e-6);
        // An unknown word scores as <unk>, which this model lacks: -100; the context <unk> has no backoff.
        assert_eq!(m.sentence_log10(&["zzz"], &mut ids), -0.5 - 100.0 - 1.0);
    }

    #[test]
    fn full_scores_and_bounds_as_kenlm() {
        let m = model();
        let (mut ids, mut out) = (Scratch::default(), Vec::new());
        let words = [m.id("a"), m.id("b"), m.id("zzz")];
        m.full_scores(words, Bounds::SENTENCE, &mut ids, &mut out);
        let got: Vec<_> = out.iter().map(|w| (w.ngram_length, w.oov)).collect();
        // <s> a: a bigram; a b: a bigram; b zzz: <unk>'s unigram; zzz </s>: </s>'s unigram.
        assert_eq!(got, [(2, false), (2, false), (1, true), (1, false)]);
        let total: f64 = out.iter().map(|w| w.log10 as f64).sum();
        assert_eq!(total, m.log10_within(words, Bounds::SENTENCE, &mut ids));
        // No <s>: `a` has no context (its unigram, no back-off); no </s>: nothing after `b`.
        let bare = Bounds {
            bos: false,
            eos: false,
        };
        assert!(
            (m.log10_within([m.id("a"), m.id("b")], bare, &mut ids) - (-0.6 - 0.2)).abs() < 1e-6
        );
        m.full_scores(
            [m.id("a")],
            Bounds {
                bos: false,
                eos: true,
            },
            &mut ids,
            &mut out,
        );
        assert_eq!(
            out.iter().map(|w| w.ngram_length).collect::<Vec<_>>(),
            [1, 1]
        );
        m.full_scores([], bare, &mut ids, &mut out);
        assert!(out.is_empty());
    }

    /// Scoring a sentence in one walk per word (the carried back-off weights) gives exactly
    /// what scoring each word on its own in its whole context gives.
    #[test]
    fn one_walk_per_word_equals_scoring_each_word_alone() {
        let mut b = NgramModelBuilder::new(&[5, 8, 6]);
        for (w, p, bo) in [
            ("<s>", -99.0, -0.4),
            ("</s>", -1.1, 0.0),
            ("a", -0.6, -0.3),
            ("b", -0.8, -0.2),
            ("c", -0.9, -0.25),
        ] {
            b.add_unigram(w, p, bo).unwrap();
        }
        for (g, p, bo) in [
            (&["<s>", "a"][..], -0.1, -0.15),
            (&["a", "b"], -0.2, -0.05),
            (&["b", "a"], -0.3, -0.1),
            (&["b", "c"], -0.35, 0.0),
            (&["c", "</s>"], -0.4, 0.0),
            (&["<s>", "a", "b"], -0.05, 0.0),
            (&["a", "b", "c"], -0.07, 0.0),
            (&["b", "a", "b"], -0.09, 0.0),
            // A trigram whose bigram suffix is absent: its node exists without a probability.
            (&["c", "c", "a"], -0.11, 0.0),
        ] {
            b.add(g, p, bo).unwrap();
        }
        let m = b.build();
        let mut random = crate::stats::random::SplitMix64::new(7);
        let (mut scratch, mut out) = (Scratch::default(), Vec::new());
        for _ in 0..2000 {
            let words: Vec<u32> = (0..random.below(9))
                .map(|_| random.below(6) as u32)
                .collect();
            for bounds in [
                Bounds::SENTENCE,
                Bounds {
                    bos: false,
                    eos: true,
                },
                Bounds {
                    bos: true,
                    eos: false,
                },
                Bounds {
                    bos: false,
                    eos: false,
                },
            ] {
                let mut ids: Vec<u32> = bounds.bos.then_some(m.bos.unwrap()).into_iter().collect();
                ids.extend(&words);
                ids.extend(bounds.eos.then_some(m.eos));
                let alone: Vec<WordScore> = (bounds.bos as usize..ids.len())
                    .map(|i| m.score(&ids[..i], ids[i]))
                    .collect();
                m.full_scores(words.iter().copied(), bounds, &mut scratch, &mut out);
                let mut want = alone.clone();
                if bounds.eos {
                    want.last_mut().unwrap().oov = false;
                }
                assert_eq!(out, want, "{words:?} {bounds:?}");
                let total: f64 = alone.iter().map(|w| w.log10 as f64).sum();
                assert_eq!(
                    m.log10_within(words.iter().copied(), bounds, &mut scratch),
                    total
                );
            }
        }
    }

    #[test]
    fn rejects_ngrams_over_unknown_words() {
        let mut b = NgramModelBuilder::new(&[1, 1]);
        b.add_unigram("a", -1.0, 0.0).unwrap();
        assert_eq!(
            b.add(&["a", "c"], -1.0, 0.0),
            Err(NgramError::UnknownWord("c".into()))
        );
        b.add(&["a", "a"], -1.0, 0.0).unwrap();
        assert_eq!(
            b.add_unigram("c", -1.0, 0.0),
            Err(NgramError::UnigramAfterLonger("c".into()))
        );
    }
}
