//! A string interner that keeps every string in one arena: no allocation per string, which
//! matters for vocabularies of millions of words (language models, triple counts).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

#[derive(Debug, Default, Clone)]
pub struct Interner {
    arena: String,
    /// End offset of string `id` in `arena` (its start is the previous end).
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl Interner {
    pub fn with_capacity(strings: usize) -> Self {
        Interner {
            ends: Vec::with_capacity(strings),
            table: HashTable::with_capacity(strings),
            ..Default::default()
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string of `id`.
    pub fn resolve(&self, id: u32) -> &str {
        slice(&self.arena, &self.ends, id)
    }

    pub fn get(&self, s: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(s);
        self.table.find(hash, |&id| self.resolve(id) == s).copied()
    }

    /// The id of `s`, added if new. Panics past 4 GiB of text (u32 offsets).
    pub fn intern(&mut self, s: &str) -> u32 {
        let hash = self.hasher.hash_one(s);
        if let Some(id) = self.table.find(hash, |&id| self.resolve(id) == s) {
            return *id;
        }
        let Interner {
            arena,
            ends,
            table,
            hasher,
        } = self;
        let id = ends.len() as u32;
        arena.push_str(s);
        let end = u32::try_from(arena.len()).expect("interner arena past 4 GiB");
        ends.push(end);
        table.insert_unique(hash, id, |&id| hasher.hash_one(slice(arena, ends, id)));
        id
    }

    /// Bytes held (arena, offsets and table), for reports.
    pub fn memory(&self) -> usize {
        self.arena.capacity() + self.ends.capacity() * 4 + self.table.capacity() * 5
    }
}

fn slice<'a>(arena: &'a str, ends: &[u32], id: u32) -> &'a str {
    let end = ends[id as usize] as usize;
    let start = if id == 0 {
        0
    } else {
        ends[id as usize - 1] as usize
    };
    &arena[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once_and_resolves() {
        let mut i = Interner::default();
        let a = i.intern("maison");
        let b = i.intern("");
        let c = i.intern("maisons");
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(i.intern("maison"), 0);
        assert_eq!(i.get(""), Some(1));
        assert_eq!(i.get("mais"), None);
        assert_eq!(
            (i.resolve(0), i.resolve(1), i.resolve(2)),
            ("maison", "", "maisons")
        );
        for n in 0..10_000 {
            i.intern(&n.to_string());
        }
        assert_eq!(i.get("9999"), Some(3 + 9999));
        assert_eq!(i.len(), 10_003);
    }
}
