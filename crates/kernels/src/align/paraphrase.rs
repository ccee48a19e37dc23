//! METEOR's paraphrase table: records of three lines (a probability METEOR ignores, a phrase,
//! its paraphrase), gzip-compressed in METEOR's distribution. Phrases are looked up in a trie
//! over word ids, as METEOR's `ParaphraseTransducer` does.

use hashbrown::HashMap;
use std::io::BufRead;

use super::java;
use super::load::{LoadError, for_each_line};

/// A word the table has never seen: matches nothing.
pub const UNKNOWN: i32 = -1;

#[derive(Debug, Default)]
pub struct ParaphraseTable {
    vocabulary: HashMap<Box<str>, i32>,
    /// Trie edges: (state, word id) -> state; state 0 is the root.
    edges: HashMap<(u32, i32), u32>,
    /// Paraphrases ending at each state, in the order the file lists them.
    emits: Vec<Vec<u32>>,
    paraphrases: Vec<Box<[i32]>>,
}

impl ParaphraseTable {
    /// Read a table. A record whose paraphrase is empty is left out (METEOR would match it at
    /// every position as a span of no words).
    pub fn read(reader: impl BufRead, name: &str) -> Result<Self, LoadError> {
        let mut table = ParaphraseTable {
            emits: vec![Vec::new()],
            ..Default::default()
        };
        // Records of three lines: a probability (not used), a phrase, its paraphrase.
        let (mut phrase, mut lines) = (Vec::new(), 0);
        for_each_line(reader, name, |number, line| {
            lines = number;
            match number % 3 {
                1 => {}
                2 => {
                    phrase.clear();
                    phrase.extend(java::tokens(line).map(|w| table.intern(w)));
                }
                _ => {
                    let paraphrase: Box<[i32]> =
                        java::tokens(line).map(|w| table.intern(w)).collect();
                    if !paraphrase.is_empty() {
                        let state = phrase
                            .iter()
                            .fold(0, |state, &word| table.step_or_add(state, word));
                        table.emits[state as usize].push(table.paraphrases.len() as u32);
                        table.paraphrases.push(paraphrase);
                    }
                }
            }
            Ok(())
        })?;
        if lines % 3 != 0 {
            let what = if lines % 3 == 1 {
                "phrase"
            } else {
                "paraphrase"
            };
            return Err(LoadError::new(
                name,
                format!(
                    "line {}: the file ends before the {what} of a record",
                    lines - lines % 3 + 1
                ),
            ));
        }
        Ok(table)
    }

    pub fn len(&self) -> usize {
        self.paraphrases.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paraphrases.is_empty()
    }

    fn intern(&mut self, word: &str) -> i32 {
        let next = self.vocabulary.len() as i32;
        *self.vocabulary.entry(word.into()).or_insert(next)
    }

    fn step_or_add(&mut self, state: u32, word: i32) -> u32 {
        let fresh = self.emits.len() as u32;
        let next = *self.edges.entry((state, word)).or_insert(fresh);
        if next == fresh {
            self.emits.push(Vec::new());
        }
        next
    }

    /// The word's id, or [`UNKNOWN`].
    pub fn word_id(&self, word: &str) -> i32 {
        self.vocabulary.get(word).copied().unwrap_or(UNKNOWN)
    }

    /// Every table phrase that starts at `words[start]`: (its length, the paraphrase), shortest
    /// first, in file order for one length.
    pub fn phrases_at<'a>(
        &'a self,
        words: &'a [i32],
        start: usize,
    ) -> impl Iterator<Item = (usize, &'a [i32])> + 'a {
        let mut state = 0u32;
        words[start..]
            .iter()
            .enumerate()
            .map_while(move |(i, &word)| {
                state = *self.edges.get(&(state, word))?;
                Some((i + 1, &self.emits[state as usize]))
            })
            .flat_map(move |(len, emits)| {
                emits
                    .iter()
                    .map(move |&p| (len, &*self.paraphrases[p as usize]))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_phrase_starting_at_a_position() {
        let text = "0.5\na lot of\nmany\n0.2\na\none\n0.1\na lot\nplenty\n0.1\nx\n\n";
        let table = ParaphraseTable::read(text.as_bytes(), "t").unwrap();
        assert_eq!(
            table.len(),
            3,
            "the record with an empty paraphrase is left out"
        );
        let words: Vec<i32> = ["a", "lot", "of", "zzz"]
            .iter()
            .map(|w| table.word_id(w))
            .collect();
        assert_eq!(words[3], UNKNOWN);
        let found: Vec<(usize, Vec<i32>)> = table
            .phrases_at(&words, 0)
            .map(|(n, p)| (n, p.to_vec()))
            .collect();
        let id = |w| table.word_id(w);
        assert_eq!(
            found,
            [
                (1, vec![id("one")]),
                (2, vec![id("plenty")]),
                (3, vec![id("many")])
            ]
        );
        assert_eq!(table.phrases_at(&words, 1).count(), 0);
    }
}
