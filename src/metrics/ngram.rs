//! A back-off n-gram language model (as an ARPA file gives it) and the log10 probability of a
//! sentence under it, computed as SRILM and KenLM do:
//!
//! ```text
//! log p(w | c) = log p(c w)                      if the n-gram c w is in the model
//!              = backoff(c) + log p(w | c[1..])  otherwise (backoff 0 for a context not in it)
//! ```
//!
//! N-grams are stored in a trie over *reversed* n-grams (w, then the word before it, ...), so
//! one walk finds the longest match for a word and a second walk the back-off weights of its
//! context. Every n-gram is one hash entry and one node: no allocation per n-gram.

use hashbrown::HashMap;

use super::intern::Interner;

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
    children: HashMap<(u32, u32), u32>,
    log_p: Vec<f32>,
    backoff: Vec<f32>,
    order: usize,
    bos: Option<u32>,
    eos: u32,
    counts: Vec<u64>,
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
            NgramError::UnknownWord(w) => write!(f, "`{w}` is in an n-gram but not among the unigrams"),
            NgramError::UnigramAfterLonger(w) => write!(f, "unigram `{w}` comes after longer n-grams"),
            NgramError::Order { expected, got } => write!(f, "expected a {expected}-gram, got {got} words"),
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
        let longer = counts.iter().skip(1).fold(0u64, |a, &c| a.saturating_add(c)).min(RESERVE) as usize;
        let nodes = unigrams + longer;
        let mut builder = NgramModelBuilder {
            model: NgramModel {
                vocabulary: Interner::with_capacity(unigrams + 1),
                children: HashMap::with_capacity(longer),
                log_p: Vec::with_capacity(nodes + 1),
                backoff: Vec::with_capacity(nodes + 1),
                order: counts.len(),
                counts: counts.to_vec(),
                ..Default::default()
            },
        };
        // <unk> is word 0, as in KenLM, whether or not the model lists it.
        builder.add_unigram("<unk>", MISSING_UNK_LOG10, 0.0).expect("the first unigram");
        builder
    }

    pub fn add_unigram(&mut self, word: &str, log_p: f32, backoff: f32) -> Result<(), NgramError> {
        let m = &mut self.model;
        if m.vocabulary.get(word).is_none() && m.vocabulary.len() < m.log_p.len() {
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
        let id = |w: &str| m.vocabulary.get(w).ok_or_else(|| NgramError::UnknownWord(w.to_string()));
        let mut node = id(words[words.len() - 1])?;
        for word in words[..words.len() - 1].iter().rev() {
            let word = id(word)?;
            let next = m.log_p.len() as u32;
            node = *m.children.entry((node, word)).or_insert(next);
            if node == next {
                m.log_p.push(ABSENT);
                m.backoff.push(0.0);
            }
        }
        m.log_p[node as usize] = log_p;
        m.backoff[node as usize] = backoff;
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
        self.vocabulary.memory() + self.children.capacity() * 13 + self.log_p.capacity() * 8
    }

    /// The id of `word`, `<unk>` for a word the model does not know.
    pub fn id(&self, word: &str) -> u32 {
        self.vocabulary.get(word).unwrap_or(UNK)
    }

    /// log10 p(word | context), context oldest first (only its last order-1 words matter).
    pub fn log_p(&self, context: &[u32], word: u32) -> f32 {
        let context = &context[context.len().saturating_sub(self.order - 1)..];
        let (mut node, mut log_p, mut matched) = (word, self.log_p[word as usize], 0);
        for (k, &previous) in context.iter().rev().enumerate() {
            let Some(&child) = self.children.get(&(node, previous)) else { break };
            node = child;
            if !self.log_p[node as usize].is_nan() {
                (log_p, matched) = (self.log_p[node as usize], k + 1);
            }
        }
        // The contexts longer than the match back off: add their weights. The context of length
        // j is the node reached by walking j words back from the last one.
        let Some((&last, rest)) = context.split_last() else { return log_p };
        let mut node = last;
        if matched < 1 {
            log_p += self.backoff[node as usize];
        }
        for (j, &previous) in (2..).zip(rest.iter().rev()) {
            let Some(&child) = self.children.get(&(node, previous)) else { break };
            node = child;
            if j > matched {
                log_p += self.backoff[node as usize];
            }
        }
        log_p
    }

    /// log10 probability of a sentence with `<s>` before and `</s>` after, as KenLM's
    /// `Model.score(sentence, bos=True, eos=True)`. `ids` is scratch space.
    pub fn sentence_log10(&self, words: &[&str], ids: &mut Vec<u32>) -> f64 {
        self.sentence_log10_of_ids(words.iter().map(|w| self.id(w)), ids)
    }

    /// [`Self::sentence_log10`] of words given as ids of this model ([`Self::id`]).
    pub fn sentence_log10_of_ids(&self, words: impl IntoIterator<Item = u32>, ids: &mut Vec<u32>) -> f64 {
        ids.clear();
        ids.push(self.bos.unwrap_or(UNK));
        ids.extend(words);
        ids.push(self.eos);
        (1..ids.len()).map(|i| self.log_p(&ids[..i], ids[i]) as f64).sum()
    }
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
        let mut ids = Vec::new();
        // <s> a: -0.1; a b: -0.2; b </s>: backoff(b) + p(</s>) = -0.2 - 1.0
        assert!((m.sentence_log10(&["a", "b"], &mut ids) - (-0.1 - 0.2 - 1.2)).abs() < 1e-6);
        // <s> b: -0.5 - 0.8; b a: -0.2 - 0.6; a </s>: -0.3 - 1.0
        assert!((m.sentence_log10(&["b", "a"], &mut ids) - (-1.3 - 0.8 - 1.3)).abs() < 1e-6);
        // An unknown word scores as <unk>, which this model lacks: -100; the context <unk> has no backoff.
        assert_eq!(m.sentence_log10(&["zzz"], &mut ids), -0.5 - 100.0 - 1.0);
    }

    #[test]
    fn rejects_ngrams_over_unknown_words() {
        let mut b = NgramModelBuilder::new(&[1, 1]);
        b.add_unigram("a", -1.0, 0.0).unwrap();
        assert_eq!(b.add(&["a", "c"], -1.0, 0.0), Err(NgramError::UnknownWord("c".into())));
        b.add(&["a", "a"], -1.0, 0.0).unwrap();
        assert_eq!(b.add_unigram("c", -1.0, 0.0), Err(NgramError::UnigramAfterLonger("c".into())));
    }
}
