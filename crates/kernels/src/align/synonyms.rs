//! METEOR's synonym dictionary: WordNet synsets in its own two files, `<language>.synsets` (a
//! word line, then a line of synset ids) and `<language>.exceptions` (a base-form line, then a
//! line of its irregular forms), and the WordNet morphology METEOR applies to a word that is
//! not an exception.

use hashbrown::HashMap;

use super::java;
use super::load::{LoadError, for_each_pair_of_lines};
use crate::text::intern::Interner;

/// Synset ids of a word, sorted and without duplicates.
pub type Synsets = Vec<u32>;

#[derive(Debug, Default)]
pub struct SynonymDictionary {
    /// Every word (its id indexes `synsets`), in one arena: 150,000 of them for English.
    words: Interner,
    /// A word's synset ids: a range of `ids`.
    synsets: Vec<(u32, u32)>,
    ids: Vec<u32>,
    bases: HashMap<Box<str>, Vec<Box<str>>>,
}

/// WordNet 3's detachment rules (`morph` in METEOR's `SynonymDictionary`): nouns, verbs,
/// adjectives, tried in this order; the first candidate that is a known word wins.
const SUFFIXES: [(&str, &str); 20] = [
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("s", ""),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
];

impl SynonymDictionary {
    /// Read both files. Later entries for the same word replace earlier ones, as METEOR's
    /// `Hashtable.put` does; forms listed under several bases keep them all.
    pub fn read(synsets: &[u8], exceptions: &[u8], names: (&str, &str)) -> Result<Self, LoadError> {
        // Two lines a word: tables sized once (growing them was an eighth of the English load).
        let words = memchr::memchr_iter(b'\n', synsets).count() / 2 + 1;
        let mut dictionary = SynonymDictionary {
            words: Interner::with_capacity(words),
            synsets: Vec::with_capacity(words),
            ..Default::default()
        };
        for_each_pair_of_lines(exceptions, names.1, |base, forms| {
            for form in java::tokens(forms) {
                dictionary
                    .bases
                    .entry(form.into())
                    .or_default()
                    .push(base.into());
            }
            Ok(())
        })?;
        let SynonymDictionary {
            words,
            synsets: ranges,
            ids,
            ..
        } = &mut dictionary;
        let mut set = Vec::new();
        for_each_pair_of_lines(synsets, names.0, |word, line| {
            set.clear();
            for id in java::tokens(line) {
                set.push(id.parse().map_err(|_| {
                    LoadError::new(
                        names.0,
                        format!("`{id}` is not a synset id (word `{word}`)"),
                    )
                })?);
            }
            set.sort_unstable();
            set.dedup();
            let range = (ids.len() as u32, set.len() as u32);
            ids.extend_from_slice(&set);
            match words.intern(word) as usize {
                id if id == ranges.len() => ranges.push(range),
                id => ranges[id] = range,
            }
            Ok(())
        })?;
        Ok(dictionary)
    }

    pub fn words(&self) -> usize {
        self.words.len()
    }

    fn synsets_of(&self, word: &str) -> &[u32] {
        self.words
            .get(word)
            .map_or(&[], |id| span(&self.ids, self.synsets[id as usize]))
    }

    /// What METEOR's synonym matcher compares: the word's own synsets and those of its base
    /// forms (the exception list's, or else the morphology's).
    pub fn synsets_into(&self, word: &str, out: &mut Synsets) {
        out.clear();
        out.extend_from_slice(self.synsets_of(word));
        match self.bases.get(word) {
            Some(bases) => bases
                .iter()
                .for_each(|base| out.extend_from_slice(self.synsets_of(base))),
            None => match self.morph(word) {
                Morph::Itself => out.extend_from_slice(self.synsets_of(word)),
                Morph::Base(base) => out.extend_from_slice(self.synsets_of(&base)),
                Morph::Unknown => out.extend_from_slice(self.synsets_of("")),
            },
        }
        out.sort_unstable();
        out.dedup();
    }

    /// METEOR's `morph`: words ending in "ss" or of at most two UTF-16 units are their own
    /// base; otherwise the first suffix rule giving a known word, or nothing (METEOR then looks
    /// up the empty word). Its "ful" branch never changes the result: no suffix ends in "l".
    fn morph(&self, word: &str) -> Morph {
        if word.ends_with("ss") || java::string_length(word) <= 2 {
            return Morph::Itself;
        }
        for (suffix, ending) in SUFFIXES {
            if let Some(stem) = word.strip_suffix(suffix) {
                let base = format!("{stem}{ending}");
                if self.words.get(&base).is_some() {
                    return Morph::Base(base);
                }
            }
        }
        Morph::Unknown
    }
}

enum Morph {
    Itself,
    Base(String),
    Unknown,
}

/// The ids of a (start, length) range of `ids`: how words keep their synset ids in one arena.
pub(crate) fn span(ids: &[u32], (start, len): (u32, u32)) -> &[u32] {
    &ids[start as usize..(start + len) as usize]
}

/// The words of one sentence by synset: an open-addressing table from synset id to the
/// positions of the words in it, so that each word of the other sentence finds the words it
/// shares a synset with in a probe per synset (sorting the (synset, position) pairs and
/// searching them took a ninth of the aligner's time).
#[derive(Debug, Default)]
pub(crate) struct SynsetIndex {
    /// A power of two of slots: a synset id, or [`FREE`].
    keys: Vec<u64>,
    /// Per slot: its last entry.
    last: Vec<u32>,
    /// (position, the slot's entry before it or [`NO_ENTRY`]).
    entries: Vec<(u32, u32)>,
    /// 64 less the bits of a slot number.
    shift: u32,
    /// The positions [`SynsetIndex::positions_of`] found.
    found: Vec<u32>,
}

const FREE: u64 = u64::MAX;
const NO_ENTRY: u32 = u32::MAX;

impl SynsetIndex {
    /// Index `entries` ((synset, position) pairs); `count` bounds their number.
    pub fn build(&mut self, count: usize, entries: impl Iterator<Item = (u32, u32)>) {
        // At most half full: probes stay short.
        let slots = (2 * count).next_power_of_two().max(16);
        self.shift = 64 - slots.trailing_zeros();
        self.keys.clear();
        self.keys.resize(slots, FREE);
        self.last.resize(slots, NO_ENTRY);
        self.entries.clear();
        for (synset, position) in entries {
            let slot = self.slot(synset);
            if self.keys[slot] == FREE {
                (self.keys[slot], self.last[slot]) = (u64::from(synset), NO_ENTRY);
            }
            self.entries.push((position, self.last[slot]));
            self.last[slot] = (self.entries.len() - 1) as u32;
        }
    }

    /// The slot of `synset`, or the free slot where it would go.
    fn slot(&self, synset: u32) -> usize {
        let mask = self.keys.len() - 1;
        let mut slot =
            (u64::from(synset).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        while self.keys[slot] != u64::from(synset) && self.keys[slot] != FREE {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// The positions of the words in any of `synsets`, ascending and once each.
    pub fn positions_of(&mut self, synsets: &[u32]) -> &[u32] {
        self.found.clear();
        for &synset in synsets {
            let slot = self.slot(synset);
            if self.keys[slot] == FREE {
                continue;
            }
            let mut entry = self.last[slot];
            while entry != NO_ENTRY {
                let (position, before) = self.entries[entry as usize];
                self.found.push(position);
                entry = before;
            }
        }
        self.found.sort_unstable();
        self.found.dedup();
        &self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dictionary() -> SynonymDictionary {
        let synsets = "cat\n1 2\nfeline\n2\nchild\n7\nbox\n9\nboxing\n11\nmoss\n4\n";
        let exceptions = "child\nchildren\n";
        SynonymDictionary::read(synsets.as_bytes(), exceptions.as_bytes(), ("s", "e")).unwrap()
    }

    fn synsets(d: &SynonymDictionary, word: &str) -> Vec<u32> {
        let mut out = Vec::new();
        d.synsets_into(word, &mut out);
        out
    }

    #[test]
    fn bases_come_from_exceptions_then_morphology() {
        let d = dictionary();
        assert_eq!(synsets(&d, "cats"), [1, 2]);
        assert_eq!(synsets(&d, "children"), [7]);
        assert_eq!(
            synsets(&d, "boxes"),
            [9],
            "`xes` -> `x` comes before the verb rules"
        );
        assert_eq!(
            synsets(&d, "boxing"),
            [9, 11],
            "its own synsets and those of `box`"
        );
        assert_eq!(
            synsets(&d, "mosses"),
            [4],
            "`s` -> `mosse` is unknown, `ses` -> `s` gives `moss`"
        );
        assert_eq!(
            synsets(&d, "moss"),
            [4],
            "a word ending in `ss` is its own base"
        );
        assert_eq!(synsets(&d, "dogs"), Vec::<u32>::new());
    }

    #[test]
    fn the_synset_index_finds_what_a_search_of_every_pair_finds() {
        let mut rng = crate::stats::random::SplitMix64::new(7);
        let mut index = SynsetIndex::default();
        for round in 0..2000 {
            // Few distinct ids, so that they collide; the largest id too.
            let range = [5, 50, 5000][round % 3];
            let id = |rng: &mut crate::stats::random::SplitMix64| match rng.next_u64() % 50 {
                0 => u32::MAX,
                _ => (rng.next_u64() % range) as u32,
            };
            let words: Vec<Vec<u32>> = (0..rng.next_u64() % 40)
                .map(|_| (0..rng.next_u64() % 6).map(|_| id(&mut rng)).collect())
                .collect();
            let entries = words
                .iter()
                .enumerate()
                .flat_map(|(i, w)| w.iter().map(move |&s| (s, i as u32)));
            index.build(entries.clone().count(), entries);
            let wanted: Vec<u32> = (0..rng.next_u64() % 8).map(|_| id(&mut rng)).collect();
            let expected: Vec<u32> = (0..words.len() as u32)
                .filter(|&i| words[i as usize].iter().any(|s| wanted.contains(s)))
                .collect();
            assert_eq!(
                index.positions_of(&wanted),
                expected,
                "{words:?} {wanted:?}"
            );
        }
    }
}
