//! The true score of a paraphrase under a phrase table (Chevelu et al., Coling 2010; SPEC §3):
//! the best sum of ln p over the monotone derivations of T from S, by a Viterbi DP over
//! (position in S, position in T). Plain Rust: no Arrow here.
//!
//! A derivation segments S into phrases, each rewritten by a rule of the table or kept unchanged
//! by an identity rule (ln 1 = 0). The table is indexed once ([`PhraseIndex`]): tokens interned,
//! source phrases in a trie, each trie node owning its rules' target phrases in one flat buffer.

use std::collections::HashMap;

use crate::text::intern::Interner;

/// When a word may be kept unchanged for free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Identity {
    /// SPEC's default: only when the table has no `w -> w` entry (otherwise that entry's
    /// probability applies).
    #[default]
    UnlessInTable,
    /// Always (an unchanged word costs nothing, whatever the table says).
    Always,
}

/// The root of the source-phrase trie.
const ROOT: u32 = 0;

/// A phrase table indexed for the DP. Built once, shared read-only by every thread.
#[derive(Debug, Default)]
pub struct PhraseIndex {
    vocabulary: Interner,
    /// Trie of source phrases: (node, token) -> child node.
    children: HashMap<(u32, u32), u32>,
    /// Per node, its rules: `rules[node_rules[node]..node_rules[node + 1]]` once built.
    node_rules: Vec<u32>,
    rules: Vec<Rule>,
    /// Target phrases of all rules, flat.
    targets: Vec<u32>,
    /// Words with a single-token `w -> w` rule.
    self_rules: std::collections::HashSet<u32>,
    longest_source: usize,
    identity: Identity,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    /// The target phrase's first token: a node's rules are sorted by it, so the rules that can
    /// match at a target position are found by binary search.
    first: u32,
    pub(crate) target: (u32, u32),
    log_p: f64,
    pub(crate) directions: Directions,
}

/// A rule's probabilities in both directions (for synthetic phrases), whatever column the
/// true score uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Directions {
    /// p(tgt | src): the Moses table's p_e_f.
    pub direct: f64,
    /// p(src | tgt): p_f_e.
    pub inverse: f64,
}

/// Builds a [`PhraseIndex`] entry by entry.
#[derive(Debug, Default)]
pub struct PhraseIndexBuilder {
    index: PhraseIndex,
    /// (node, target start, target end, ln p, directions) in insertion order; sorted by node at
    /// the end.
    pending: Vec<(u32, u32, u32, f64, Directions)>,
    nodes: u32,
}

impl PhraseIndexBuilder {
    pub fn new(identity: Identity) -> Self {
        let mut builder = PhraseIndexBuilder {
            nodes: 1,
            ..Default::default()
        };
        builder.index.identity = identity;
        builder
    }

    fn intern(&mut self, token: &str) -> u32 {
        self.index.vocabulary.intern(token)
    }

    /// Add the rule `source -> target` with probability `p` in every use.
    pub fn add(&mut self, source: &[&str], target: &[&str], p: f64) {
        self.add_with_directions(
            source,
            target,
            p,
            Directions {
                direct: p,
                inverse: p,
            },
        );
    }

    /// Add the rule `source -> target` with probability `p` for the true score and `directions`
    /// for synthetic phrases. Rules with p <= 0 (or NaN) can be in no derivation with a finite
    /// score and are skipped; an empty side is skipped too.
    pub fn add_with_directions(
        &mut self,
        source: &[&str],
        target: &[&str],
        p: f64,
        directions: Directions,
    ) {
        if source.is_empty() || target.is_empty() || p.is_nan() || p <= 0.0 {
            return;
        }
        let mut node = ROOT;
        for token in source {
            let id = self.intern(token);
            let next = self.nodes;
            node = *self.index.children.entry((node, id)).or_insert(next);
            if node == next {
                self.nodes += 1;
            }
        }
        let start = self.index.targets.len() as u32;
        for token in target {
            let id = self.intern(token);
            self.index.targets.push(id);
        }
        if source.len() == 1 && target.len() == 1 && source[0] == target[0] {
            let id = self.intern(source[0]);
            self.index.self_rules.insert(id);
        }
        self.index.longest_source = self.index.longest_source.max(source.len());
        self.pending.push((
            node,
            start,
            self.index.targets.len() as u32,
            p.ln(),
            directions,
        ));
    }

    pub fn build(mut self) -> PhraseIndex {
        let targets = &self.index.targets;
        self.pending
            .sort_by_key(|&(node, start, ..)| (node, targets[start as usize]));
        let mut index = self.index;
        index.node_rules = vec![0; self.nodes as usize + 1];
        for &(node, ..) in &self.pending {
            index.node_rules[node as usize + 1] += 1;
        }
        for i in 1..index.node_rules.len() {
            index.node_rules[i] += index.node_rules[i - 1];
        }
        index.rules = self
            .pending
            .into_iter()
            .map(|(_, start, end, log_p, directions)| Rule {
                first: index.targets[start as usize],
                target: (start, end),
                log_p,
                directions,
            })
            .collect();
        index
    }
}

/// A rule applied at a place of a sentence: `source[start..end]` becomes its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Application {
    pub(crate) start: u32,
    pub(crate) end: u32,
    target: (u32, u32),
    /// ln p of the rule.
    pub(crate) log_p: f64,
    pub(crate) directions: Directions,
}

/// The true score of one pair and how it was reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrueScore {
    /// ln of the best derivation's probability (0 = T is S, or only free identities).
    pub score: f64,
    /// Non-identity rules in the best derivation (the fewest among equally good ones).
    pub rules: u32,
    /// Distinct derivations of T from S (saturating at u64::MAX).
    pub derivations: u64,
}

/// Token ids of a sentence; words the table has never seen get ids past its vocabulary, equal
/// for equal words, so identity rules still apply to them.
#[derive(Debug, Default)]
pub struct Scratch {
    source: Vec<u32>,
    target: Vec<u32>,
    unknown: HashMap<String, u32>,
    best: Vec<f64>,
    rules: Vec<u32>,
    count: Vec<u64>,
    /// (length, trie node) of the source phrases starting at the current position.
    phrases: Vec<(usize, u32)>,
}

impl PhraseIndex {
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Approximate heap bytes held.
    pub fn memory(&self) -> usize {
        self.vocabulary.memory()
            + self.children.capacity() * 16
            + self.node_rules.capacity() * 4
            + self.rules.capacity() * size_of::<Rule>()
            + self.targets.capacity() * 4
            + self.self_rules.capacity() * 8
    }

    fn ids(&self, tokens: &[&str], out: &mut Vec<u32>, unknown: &mut HashMap<String, u32>) {
        out.clear();
        for token in tokens {
            let id = match self.vocabulary.get(token) {
                Some(id) => id,
                None => {
                    let next = (self.vocabulary.len() + unknown.len()) as u32;
                    match unknown.get(*token) {
                        Some(&id) => id,
                        None => {
                            unknown.insert((*token).to_owned(), next);
                            next
                        }
                    }
                }
            };
            out.push(id);
        }
    }

    pub(crate) fn rules_of(&self, node: u32) -> &[Rule] {
        let node = node as usize;
        &self.rules[self.node_rules[node] as usize..self.node_rules[node + 1] as usize]
    }

    /// The trie node of a source phrase, if some rule's source starts with it.
    pub(crate) fn node(&self, phrase: &[&str]) -> Option<u32> {
        phrase.iter().try_fold(ROOT, |node, token| {
            let id = self.vocabulary.get(token)?;
            self.children.get(&(node, id)).copied()
        })
    }

    /// The target tokens of a rule.
    pub(crate) fn target_words(&self, rule: &Rule) -> impl Iterator<Item = &str> {
        self.targets[rule.target.0 as usize..rule.target.1 as usize]
            .iter()
            .map(|&id| self.vocabulary.resolve(id))
    }

    fn identity_is_free(&self, word: u32) -> bool {
        self.identity == Identity::Always || !self.self_rules.contains(&word)
    }

    /// The true score of `target` as a paraphrase of `source`; None when no derivation exists.
    pub fn true_score(
        &self,
        source: &[&str],
        target: &[&str],
        s: &mut Scratch,
    ) -> Option<TrueScore> {
        if s.unknown.len() > 1 << 16 {
            s.unknown.clear();
        }
        self.ids(source, &mut s.source, &mut s.unknown);
        self.ids(target, &mut s.target, &mut s.unknown);
        self.viterbi(s)
    }

    /// The token ids of `tokens` in `s.source` (the words the table lacks get ids past its
    /// vocabulary, as [`Scratch`] says), for [`Self::true_score_of_ids`].
    pub(crate) fn source_ids<'s>(&self, tokens: &[&str], s: &'s mut Scratch) -> &'s [u32] {
        s.unknown.clear();
        self.ids(tokens, &mut s.source, &mut s.unknown);
        &s.source
    }

    /// The true score of a target given as token ids against the source last given to
    /// [`Self::source_ids`].
    pub(crate) fn true_score_of_ids(&self, target: &[u32], s: &mut Scratch) -> Option<TrueScore> {
        s.target.clear();
        s.target.extend_from_slice(target);
        self.viterbi(s)
    }

    /// The word of a token id from [`Self::source_ids`]: the table's, or one of that source's.
    pub(crate) fn word<'a>(&'a self, id: u32, s: &'a Scratch) -> &'a str {
        match (id as usize) < self.vocabulary.len() {
            true => self.vocabulary.resolve(id),
            false => s
                .unknown
                .iter()
                .find(|&(_, &u)| u == id)
                .map(|(w, _)| w.as_str())
                .expect("an id of the last source"),
        }
    }

    /// Every rule that applies somewhere in `source` (token ids): its span and target, at most
    /// `limit` rules per source phrase (the most probable, as Moses' table limit keeps them;
    /// 0 keeps all), in source order.
    pub(crate) fn applications(&self, source: &[u32], limit: usize) -> Vec<Application> {
        let mut out = Vec::new();
        for i in 0..source.len() {
            let mut node = ROOT;
            for k in 0..self.longest_source.min(source.len() - i) {
                let Some(&child) = self.children.get(&(node, source[i + k])) else {
                    break;
                };
                node = child;
                let mut rules: Vec<&Rule> = self.rules_of(node).iter().collect();
                // Equally probable rules by their target's words, not by the index's order,
                // which follows the table's rows: the same rules in any row order or row
                // groups give the same applications, and MCPG the same game for a seed.
                rules.sort_by(|a, b| {
                    b.log_p
                        .total_cmp(&a.log_p)
                        .then_with(|| self.target_words(a).cmp(self.target_words(b)))
                });
                let limit = if limit == 0 { rules.len() } else { limit };
                out.extend(rules.into_iter().take(limit).map(|rule| Application {
                    start: i as u32,
                    end: (i + k + 1) as u32,
                    target: rule.target,
                    log_p: rule.log_p,
                    directions: rule.directions,
                }));
            }
        }
        out
    }

    /// The target words of an application.
    pub(crate) fn application_words(
        &self,
        application: &Application,
    ) -> impl Iterator<Item = &str> {
        (self.target_ids(application).iter()).map(|&id| self.vocabulary.resolve(id))
    }

    /// The target tokens of an application.
    pub(crate) fn target_ids(&self, application: &Application) -> &[u32] {
        &self.targets[application.target.0 as usize..application.target.1 as usize]
    }

    /// When the table lets a word be kept unchanged for free.
    pub(crate) fn identity(&self) -> Identity {
        self.identity
    }

    /// The DP over `s.source` and `s.target`.
    fn viterbi(&self, s: &mut Scratch) -> Option<TrueScore> {
        let (n, m) = (s.source.len(), s.target.len());
        let width = m + 1;
        let cells = (n + 1) * width;
        s.best.clear();
        s.best.resize(cells, f64::NEG_INFINITY);
        s.rules.clear();
        s.rules.resize(cells, 0);
        s.count.clear();
        s.count.resize(cells, 0);
        s.best[0] = 0.0;
        s.count[0] = 1;
        // Forward over reachable cells: a derivation of t[..j] from s[..i] extends by one step.
        for i in 0..n {
            // The trie nodes of s[i..i+k] that have rules, once per i rather than per cell.
            s.phrases.clear();
            let mut node = ROOT;
            for k in 0..self.longest_source.min(n - i) {
                let Some(&child) = self.children.get(&(node, s.source[i + k])) else {
                    break;
                };
                node = child;
                if !self.rules_of(node).is_empty() {
                    s.phrases.push((k + 1, node));
                }
            }
            for j in 0..=m {
                let here = i * width + j;
                if s.count[here] == 0 {
                    continue;
                }
                let (best, rules, count) = (s.best[here], s.rules[here], s.count[here]);
                let mut relax = |cell: usize, score: f64, used: u32| {
                    s.count[cell] = s.count[cell].saturating_add(count);
                    if score > s.best[cell] || score == s.best[cell] && used < s.rules[cell] {
                        s.best[cell] = score;
                        s.rules[cell] = used;
                    }
                };
                if j < m && s.source[i] == s.target[j] && self.identity_is_free(s.source[i]) {
                    relax(here + width + 1, best, rules);
                }
                let Some(&next) = s.target.get(j) else {
                    continue;
                };
                for &(len, node) in &s.phrases {
                    let candidates = self.rules_of(node);
                    let from = candidates.partition_point(|r| r.first < next);
                    for rule in candidates[from..].iter().take_while(|r| r.first == next) {
                        let phrase = &self.targets[rule.target.0 as usize..rule.target.1 as usize];
                        let rest = &s.target[j..];
                        if phrase.len() <= rest.len()
                            && phrase.iter().zip(rest).all(|(a, b)| a == b)
                        {
                            let cell = (i + len) * width + j + phrase.len();
                            relax(cell, best + rule.log_p, rules + 1);
                        }
                    }
                }
            }
        }
        let end = cells - 1;
        (s.count[end] > 0).then(|| TrueScore {
            score: s.best[end],
            rules: s.rules[end],
            derivations: s.count[end],
        })
    }
}

/// The paper's full model score of a paraphrase T of S (Chevelu et al. 2010, §3): its weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelWeights {
    /// α_Φ, on the true score (natural log of the best derivation's probability).
    pub phrase: f64,
    /// α_LM, on ln P(T).
    pub lm: f64,
}

impl Default for ModelWeights {
    /// The paper's α_Φ = α_LM = 1.
    fn default() -> Self {
        ModelWeights {
            phrase: 1.0,
            lm: 1.0,
        }
    }
}

/// α_Φ · true_score + α_LM · ln P(T), from the true score (natural log) and the language model's
/// log10 P(T), converted to a natural log (× ln 10) so both terms are in the same unit. The LM
/// does not depend on the derivation, so this is also the best derivation's full model score.
pub fn model_score(true_score: f64, lm_log10: f64, weights: ModelWeights) -> f64 {
    weights.phrase * true_score + weights.lm * (lm_log10 * std::f64::consts::LN_10)
}

#[cfg(test)]
impl PhraseIndex {
    /// A table of `(src, tgt, p)` rules, each side's words split on whitespace.
    pub(crate) fn of_rules(rules: &[(&str, &str, f64)]) -> PhraseIndex {
        let mut b = PhraseIndexBuilder::new(Identity::UnlessInTable);
        for (s, t, p) in rules {
            let s: Vec<&str> = s.split_whitespace().collect();
            let t: Vec<&str> = t.split_whitespace().collect();
            b.add(&s, &t, *p);
        }
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn a_table_entry_w_to_w_makes_keeping_w_cost_its_probability() {
        let mut b = PhraseIndexBuilder::new(Identity::UnlessInTable);
        b.add(&["a"], &["a"], 0.5);
        b.add(&["a"], &["b"], 0.25);
        let index = b.build();
        let s = &mut Scratch::default();
        let score = index.true_score(&words("a c"), &words("a c"), s).unwrap();
        assert_eq!(
            (score.score, score.rules, score.derivations),
            (0.5f64.ln(), 1, 1)
        );

        let mut b = PhraseIndexBuilder::new(Identity::Always);
        b.add(&["a"], &["a"], 0.5);
        let index = b.build();
        let score = index.true_score(&words("a c"), &words("a c"), s).unwrap();
        // free identity, or the rule: two derivations, the free one best
        assert_eq!((score.score, score.rules, score.derivations), (0.0, 0, 2));
    }

    #[test]
    fn unreachable_and_empty() {
        let index = PhraseIndexBuilder::new(Identity::default()).build();
        let s = &mut Scratch::default();
        assert_eq!(index.true_score(&words("a b"), &words("b a"), s), None);
        assert_eq!(index.true_score(&[], &[], s).map(|t| t.score), Some(0.0));
        assert_eq!(index.true_score(&words("a"), &[], s), None);
    }
}
