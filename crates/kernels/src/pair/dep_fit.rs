//! Dependency fitness of a phrase in its sentence (IUCL, SemEval-2014 Task 5; SPEC §4), from
//! counts of (head, dependent, deprel) triples:
//!
//! ```text
//! SIM(h, d, l) = 2 c(h,d,l) / (c(h,*,l) + c(*,d,l))      0 when the denominator is 0
//! FIT(token)   = mean SIM over the arcs incident to the token (head arc unless root, dependents)
//! FIT(phrase)  = mean FIT over the phrase's tokens that have at least one incident arc
//! ```
//!
//! [`Formula::Iucl`] is the IUCL code's variant: no factor 2, and the mean over the distinct
//! (head, dep, deprel) arcs touching the phrase. Plain Rust: no Arrow here.

use std::fmt;

use hashbrown::HashMap;

use crate::text::intern::Interner;

/// Counts of one level (word forms or UPOS tags): c(h,d,l) and its two marginals.
#[derive(Debug, Default, Clone)]
pub struct TripleCounts {
    strings: Interner,
    triples: HashMap<(u32, u32, u32), u64>,
    head_label: HashMap<(u32, u32), u64>,
    dep_label: HashMap<(u32, u32), u64>,
}

impl TripleCounts {
    /// Add `count` occurrences of the arc `head -deprel-> dep` (repeated keys add up).
    pub fn add(&mut self, head: &str, dep: &str, deprel: &str, count: u64) {
        let (h, d, l) = (
            self.strings.intern(head),
            self.strings.intern(dep),
            self.strings.intern(deprel),
        );
        *self.triples.entry((h, d, l)).or_default() += count;
        *self.head_label.entry((h, l)).or_default() += count;
        *self.dep_label.entry((d, l)).or_default() += count;
    }

    /// Distinct (head, dep, deprel) triples.
    pub fn len(&self) -> usize {
        self.triples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.triples.is_empty()
    }

    /// Approximate bytes held, for reports.
    pub fn memory(&self) -> usize {
        self.strings.memory()
            + self.triples.capacity() * 21
            + (self.head_label.capacity() + self.dep_label.capacity()) * 17
    }

    /// c(h,d,l), c(h,*,l) and c(*,d,l); unknown strings count 0.
    pub fn counts(&self, head: &str, dep: &str, deprel: &str) -> (u64, u64, u64) {
        let (h, d, l) = (
            self.strings.get(head),
            self.strings.get(dep),
            self.strings.get(deprel),
        );
        let Some(l) = l else { return (0, 0, 0) };
        let hdl = match (h, d) {
            (Some(h), Some(d)) => self.triples.get(&(h, d, l)).copied().unwrap_or(0),
            _ => 0,
        };
        let hl = h
            .and_then(|h| self.head_label.get(&(h, l)).copied())
            .unwrap_or(0);
        let dl = d
            .and_then(|d| self.dep_label.get(&(d, l)).copied())
            .unwrap_or(0);
        (hdl, hl, dl)
    }

    /// SIM(h, d, l) under `formula`.
    pub fn sim(&self, head: &str, dep: &str, deprel: &str, formula: Formula) -> f64 {
        let (hdl, hl, dl) = self.counts(head, dep, deprel);
        if hl + dl == 0 {
            return 0.0;
        }
        let factor = match formula {
            Formula::Paper => 2.0,
            Formula::Iucl => 1.0,
        };
        factor * hdl as f64 / (hl + dl) as f64
    }
}

/// Triple counts at both levels, as `pairmetrics triples` writes them.
#[derive(Debug, Default, Clone)]
pub struct TripleIndex {
    pub form: TripleCounts,
    pub upos: TripleCounts,
}

impl TripleIndex {
    pub fn memory(&self) -> usize {
        self.form.memory() + self.upos.memory()
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Formula {
    /// The paper's: SIM with the factor 2, FIT(phrase) the mean of token FITs.
    #[default]
    Paper,
    /// The IUCL code's: no factor 2, the mean over distinct arcs touching the phrase.
    Iucl,
}

/// A parsed sentence: one form (or tag), head and deprel per token; heads 1-based, 0 = root.
#[derive(Debug, Clone, Copy)]
pub struct Parse<'a> {
    pub words: &'a [&'a str],
    pub heads: &'a [i32],
    pub deprels: &'a [&'a str],
}

/// Why a phrase has no fitness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FitProblem {
    Lengths {
        words: usize,
        heads: usize,
        deprels: usize,
    },
    HeadOutOfRange {
        token: usize,
        head: i32,
    },
    EmptyPhrase,
    PhraseOutOfRange {
        position: i64,
        len: usize,
    },
    NoArcs,
}

impl fmt::Display for FitProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitProblem::Lengths {
                words,
                heads,
                deprels,
            } => write!(
                f,
                "the sentence has {words} tokens but {heads} heads and {deprels} deprels"
            ),
            FitProblem::HeadOutOfRange { token, head } => {
                write!(
                    f,
                    "head[{token}] = {head} is not a position of the sentence (0 = root) nor another token"
                )
            }
            FitProblem::EmptyPhrase => f.write_str("the phrase is empty"),
            FitProblem::PhraseOutOfRange { position, len } => {
                write!(
                    f,
                    "phrase position {position} is outside the sentence (0..{len})"
                )
            }
            FitProblem::NoArcs => f.write_str("no token of the phrase has a dependency arc"),
        }
    }
}

impl Parse<'_> {
    /// Check lengths and heads.
    pub fn check(&self) -> Result<(), FitProblem> {
        let n = self.words.len();
        if self.heads.len() != n || self.deprels.len() != n {
            return Err(FitProblem::Lengths {
                words: n,
                heads: self.heads.len(),
                deprels: self.deprels.len(),
            });
        }
        for (token, &head) in self.heads.iter().enumerate() {
            if head < 0 || head as usize > n || head as usize == token + 1 {
                return Err(FitProblem::HeadOutOfRange { token, head });
            }
        }
        Ok(())
    }

    /// Check the phrase positions (0-based) and write them, sorted and distinct, into `out`.
    pub fn phrase(
        &self,
        positions: impl IntoIterator<Item = i64>,
        out: &mut Vec<usize>,
    ) -> Result<(), FitProblem> {
        let len = self.words.len();
        out.clear();
        for position in positions {
            if position < 0 || position as usize >= len {
                return Err(FitProblem::PhraseOutOfRange { position, len });
            }
            out.push(position as usize);
        }
        if out.is_empty() {
            return Err(FitProblem::EmptyPhrase);
        }
        out.sort_unstable();
        out.dedup();
        Ok(())
    }

    /// The arc whose dependent is `token`: (head position, dependent position), None for a root.
    fn arc(&self, token: usize) -> Option<(usize, usize)> {
        let head = self.heads[token];
        (head > 0).then(|| (head as usize - 1, token))
    }

    fn sim(&self, counts: &TripleCounts, (head, dep): (usize, usize), formula: Formula) -> f64 {
        counts.sim(
            self.words[head],
            self.words[dep],
            self.deprels[dep],
            formula,
        )
    }
}

/// The fitness of the phrase at `phrase` (sorted distinct positions, from [`Parse::phrase`]) in a
/// checked parse ([`Parse::check`]).
pub fn dep_fit(
    counts: &TripleCounts,
    parse: &Parse,
    phrase: &[usize],
    formula: Formula,
) -> Result<f64, FitProblem> {
    let n = parse.words.len();
    match formula {
        Formula::Paper => {
            let (mut sum, mut tokens) = (0.0, 0usize);
            for &token in phrase {
                let dependents = (0..n).filter(|&j| parse.heads[j] as usize == token + 1);
                let arcs = parse
                    .arc(token)
                    .into_iter()
                    .chain(dependents.map(|j| (token, j)));
                let (mut fit, mut count) = (0.0, 0usize);
                for arc in arcs {
                    fit += parse.sim(counts, arc, formula);
                    count += 1;
                }
                if count > 0 {
                    sum += fit / count as f64;
                    tokens += 1;
                }
            }
            if tokens == 0 {
                Err(FitProblem::NoArcs)
            } else {
                Ok(sum / tokens as f64)
            }
        }
        Formula::Iucl => {
            let in_phrase = |i: usize| phrase.binary_search(&i).is_ok();
            let mut arcs: Vec<(&str, &str, &str)> = (0..n)
                .filter_map(|j| parse.arc(j))
                .filter(|&(h, d)| in_phrase(h) || in_phrase(d))
                .map(|(h, d)| (parse.words[h], parse.words[d], parse.deprels[d]))
                .collect();
            arcs.sort_unstable();
            arcs.dedup();
            if arcs.is_empty() {
                return Err(FitProblem::NoArcs);
            }
            let sum: f64 = arcs
                .iter()
                .map(|&(h, d, l)| counts.sim(h, d, l, formula))
                .sum();
            Ok(sum / arcs.len() as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_words_and_empty_denominators_give_zero() {
        let mut counts = TripleCounts::default();
        counts.add("eat", "rice", "obj", 3);
        counts.add("eat", "rice", "obj", 1);
        assert_eq!(counts.counts("eat", "rice", "obj"), (4, 4, 4));
        assert_eq!(counts.sim("eat", "rice", "obj", Formula::Paper), 1.0);
        assert_eq!(counts.sim("eat", "soup", "obj", Formula::Paper), 0.0);
        assert_eq!(counts.sim("drink", "soup", "obj", Formula::Paper), 0.0);
        assert_eq!(counts.sim("eat", "rice", "nsubj", Formula::Iucl), 0.0);
    }
}
