//! Which rows repeat an earlier row, for inputs larger than memory.
//!
//! Rows are numbered in input order (their ordinals). A [`Grouping`] takes a key per row (a
//! side's hash, a band of a signature), spills the (key, ordinal) records into partitions by
//! key (a hash repartition, as a cluster would shard them) and visits each group of rows sharing
//! a key, one partition in memory at a time. What the groups say is then asked row by row in
//! input order: [`Firsts`] (exact duplicates: the first row of each group, spilled by ordinal
//! range), [`FirstSeen`] (the same held in memory, when the distinct keys fit) or
//! [`Components`] (near duplicates: groups joined transitively, 9 bytes a row in memory). Each
//! answers with a [`Role`], and none depends on the order groups are visited in, so the answer
//! is the same whatever the partitions and threads.

use std::io;
use std::sync::Arc;

use crate::spill::{Record, Scratch, Spill};

/// What a row is among the rows sharing its keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Role {
    /// The earlier row it repeats (the first of its group), if any.
    pub repeats: Option<u64>,
    /// Whether later rows repeat it. With keys on either side, a row can repeat an earlier row
    /// by its source and be repeated by its target.
    pub repeated: bool,
}

impl Role {
    pub const UNIQUE: Role = Role {
        repeats: None,
        repeated: false,
    };
    pub const KEPT: Role = Role {
        repeats: None,
        repeated: true,
    };
    pub fn duplicate(first: u64) -> Role {
        Role {
            repeats: Some(first),
            repeated: false,
        }
    }
}

/// A group key: a record whose bits are well mixed (a hash), so some of them pick its partition.
pub trait Key: Record + Ord {
    fn spread(self) -> u64;
}

impl Key for u64 {
    fn spread(self) -> u64 {
        self
    }
}

impl Key for u128 {
    fn spread(self) -> u64 {
        self as u64
    }
}

/// The smallest write a spilled partition makes: smaller ones would cost a system call each.
const MIN_BUFFER: usize = 64 << 10;

/// (key, ordinal) records partitioned by key; see the module.
pub struct Grouping<K: Key> {
    partitions: Vec<Spill<(K, u64)>>,
}

impl<K: Key> Grouping<K> {
    /// A grouping for about `records` records in about `memory` bytes: half for the partition
    /// being grouped, half for the records pushed and not yet written out.
    pub fn new(scratch: &Arc<Scratch>, records: u64, memory: usize) -> Grouping<K> {
        let half = (memory / 2).max(MIN_BUFFER) as u64;
        let bytes = records.saturating_mul(<(K, u64)>::SIZE as u64);
        let count = bytes.div_ceil(half).max(1).next_power_of_two() as usize;
        let buffer = (half as usize / count).max(MIN_BUFFER);
        Grouping {
            partitions: (0..count).map(|_| Spill::new(scratch, buffer)).collect(),
        }
    }

    pub fn push(&mut self, key: K, ordinal: u64) -> io::Result<()> {
        // The high bits: the low ones may also pick a cluster's shard.
        let count = self.partitions.len() as u64;
        let partition = ((u128::from(key.spread()) * u128::from(count)) >> 64) as usize;
        let spill = &mut self.partitions[partition];
        spill
            .push((key, ordinal))
            .map_err(|e| spill.scratch().error(e))
    }

    /// Call `group` with the ordinals (ascending, distinct) of each set of two or more rows that
    /// share a key, one partition at a time; each partition's file is removed once read.
    pub fn for_each_group(self, mut group: impl FnMut(&[u64]) -> io::Result<()>) -> io::Result<()> {
        let mut members = Vec::new();
        for spill in self.partitions {
            let mut records = spill.to_vec().map_err(|e| spill.scratch().error(e))?;
            drop(spill);
            records.sort_unstable();
            for run in records.chunk_by(|a, b| a.0 == b.0) {
                members.clear();
                members.extend(run.iter().map(|&(_, ordinal)| ordinal));
                members.dedup();
                if members.len() > 1 {
                    group(&members)?;
                }
            }
        }
        Ok(())
    }
}

/// The first row of each group and the rows that repeat it, spilled by ordinal range and read
/// back in input order.
pub struct Firsts {
    rows_per_range: u64,
    ranges: Vec<Spill<(u64, u64)>>,
}

impl Firsts {
    /// For `rows` rows, each in at most `keys_per_row` groups, in about `memory` bytes.
    pub fn new(scratch: &Arc<Scratch>, rows: u64, keys_per_row: u64, memory: usize) -> Firsts {
        let half = (memory / 2).max(MIN_BUFFER) as u64;
        let per_row = keys_per_row.max(1) * <(u64, u64)>::SIZE as u64;
        let rows_per_range = (half / per_row).max(1);
        let count = rows.div_ceil(rows_per_range).max(1) as usize;
        let buffer = (half as usize / count).max(MIN_BUFFER);
        Firsts {
            rows_per_range,
            ranges: (0..count).map(|_| Spill::new(scratch, buffer)).collect(),
        }
    }

    /// Record that `members` (ascending) share a key: the first is kept, the others repeat it.
    pub fn group(&mut self, members: &[u64]) -> io::Result<()> {
        self.repeat(members[0], &members[1..])
    }

    /// Record that `later` rows (all after `first`) repeat row `first`.
    pub fn repeat(&mut self, first: u64, later: &[u64]) -> io::Result<()> {
        if later.is_empty() {
            return Ok(());
        }
        self.push(first, first)?;
        for &row in later {
            self.push(row, first)?;
        }
        Ok(())
    }

    fn push(&mut self, row: u64, first: u64) -> io::Result<()> {
        let range = (row / self.rows_per_range) as usize;
        let spill = self
            .ranges
            .get_mut(range)
            .expect("rows are numbered below the count given");
        spill
            .push((row, first))
            .map_err(|e| spill.scratch().error(e))
    }

    /// The rows' roles, asked in input order.
    pub fn in_order(self) -> FirstsInOrder {
        FirstsInOrder {
            rows_per_range: self.rows_per_range,
            ranges: self.ranges.into_iter().map(Some).collect(),
            loaded: Vec::new(),
            range: None,
            next: 0,
        }
    }
}

/// [`Firsts`] read back one ordinal range at a time.
pub struct FirstsInOrder {
    rows_per_range: u64,
    ranges: Vec<Option<Spill<(u64, u64)>>>,
    loaded: Vec<(u64, u64)>,
    range: Option<usize>,
    next: usize,
}

impl FirstsInOrder {
    /// Row `row`'s role; rows are asked in ascending order. A row in several groups (either
    /// side's key) repeats the earliest first row among them.
    pub fn role(&mut self, row: u64) -> io::Result<Role> {
        let range = (row / self.rows_per_range) as usize;
        if self.range != Some(range) {
            self.loaded.clear();
            if let Some(spill) = self.ranges.get_mut(range).and_then(Option::take) {
                spill
                    .read_into(0..spill.len(), &mut self.loaded)
                    .map_err(|e| spill.scratch().error(e))?;
            }
            self.loaded.sort_unstable();
            self.range = Some(range);
            self.next = 0;
        }
        while self.next < self.loaded.len() && self.loaded[self.next].0 < row {
            self.next += 1;
        }
        let mut role = Role::UNIQUE;
        while let Some(&(r, first)) = self.loaded.get(self.next).filter(|(r, _)| *r == row) {
            // Being a first itself is (row, row); sorted, the earliest first comes first.
            if first == r {
                role.repeated = true;
            } else if role.repeats.is_none() {
                role.repeats = Some(first);
            }
            self.next += 1;
        }
        Ok(role)
    }
}

/// The first row of each key, in memory, with a value of the caller's (its id): for inputs
/// whose distinct keys fit (a billion rows of ten million distinct pairs hold ten million
/// entries), no key is written to disk. Keys are inserted in input order, so the first insert
/// of a key is its first row.
pub struct FirstSeen {
    firsts: hashbrown::HashMap<u128, First>,
    capacity: usize,
}

/// A key's first row, its value, and whether a later row has the key.
#[derive(Debug, Clone, Copy)]
struct First {
    row: u64,
    value: i64,
    repeated: bool,
}

/// What a [`FirstSeen`] entry may cost at worst: 41 bytes (key, row, value, flag, and the
/// table's control byte) in a table at most 7/8 full, twice while it grows (the old table and
/// the new one, twice as large, are both held).
const SEEN_ENTRY_BYTES: usize = 96;

impl FirstSeen {
    /// A map of at most `memory` bytes.
    pub fn new(memory: usize) -> FirstSeen {
        FirstSeen {
            firsts: hashbrown::HashMap::new(),
            capacity: memory / SEEN_ENTRY_BYTES,
        }
    }

    /// Record that row `ordinal`, with `value`, has `key`; false, and nothing recorded, when a
    /// new key would pass the memory given (the keys are then to be grouped on disk instead).
    pub fn insert(&mut self, key: u128, ordinal: u64, value: i64) -> bool {
        if let Some(first) = self.firsts.get_mut(&key) {
            first.repeated = true;
            return true;
        }
        if self.firsts.len() >= self.capacity {
            return false;
        }
        let first = First {
            row: ordinal,
            value,
            repeated: false,
        };
        self.firsts.insert(key, first);
        true
    }

    /// The role of row `ordinal`, whose keys are `keys`: it repeats the earliest first row among
    /// its keys' before it (given with its value), and is repeated when it is the first of a key
    /// that repeats.
    pub fn role(&self, ordinal: u64, keys: &[u128]) -> (Role, Option<i64>) {
        let mut role = Role::UNIQUE;
        let mut value = None;
        for first in keys.iter().filter_map(|key| self.firsts.get(key)) {
            if first.row < ordinal && role.repeats.is_none_or(|r| first.row < r) {
                role.repeats = Some(first.row);
                value = Some(first.value);
            }
            role.repeated |= first.row == ordinal && first.repeated;
        }
        (role, value)
    }
}

/// Rows joined into groups transitively (a union-find whose roots are each group's first row).
pub struct Components {
    parent: Vec<u64>,
    has_members: Vec<bool>,
}

impl Components {
    pub fn new(rows: u64) -> Components {
        Components {
            parent: (0..rows).collect(),
            has_members: vec![false; rows as usize],
        }
    }

    fn root(&mut self, mut row: u64) -> u64 {
        let mut root = row;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[row as usize] != root {
            let next = self.parent[row as usize];
            self.parent[row as usize] = root;
            row = next;
        }
        root
    }

    /// Join every row of `members` into one group.
    pub fn join(&mut self, members: &[u64]) {
        for pair in members.windows(2) {
            let (a, b) = (self.root(pair[0]), self.root(pair[1]));
            if a != b {
                let (first, later) = (a.min(b), a.max(b));
                self.parent[later as usize] = first;
                self.has_members[first as usize] = true;
            }
        }
    }

    /// Row `row`'s role: the first row of its group is kept, the others repeat it.
    pub fn role(&mut self, row: u64) -> Role {
        let root = self.root(row);
        Role {
            repeats: (root != row).then_some(root),
            repeated: root == row && self.has_members[row as usize],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's role by brute force: the first earlier row sharing its key on one side, and
    /// whether it is the first row of a key that a later row has.
    fn expected(keys: &[Vec<u64>]) -> Vec<Role> {
        let shares = |i: usize, j: usize| keys[i].iter().zip(&keys[j]).any(|(a, b)| a == b);
        (0..keys.len())
            .map(|i| {
                let earlier = (0..i).find(|&j| shares(i, j));
                let first_of_later = (i + 1..keys.len()).any(|j| {
                    // Row i is what j repeats when i is j's earliest match on some side.
                    keys[j]
                        .iter()
                        .zip(&keys[i])
                        .enumerate()
                        .any(|(side, (a, b))| {
                            a == b && (0..i).all(|k| keys[k].get(side) != Some(a))
                        })
                });
                Role {
                    repeats: earlier.map(|j| j as u64),
                    repeated: first_of_later,
                }
            })
            .collect()
    }

    fn roles_through_spills(keys: &[Vec<u64>], memory: usize) -> Vec<Role> {
        let scratch = Scratch::new(None);
        let rows = keys.len() as u64;
        let sides = keys.iter().map(Vec::len).max().unwrap_or(1);
        let mut firsts = Firsts::new(&scratch, rows, sides as u64, memory);
        for side in 0..sides {
            let mut grouping = Grouping::<u64>::new(&scratch, rows, memory);
            for (row, k) in keys.iter().enumerate() {
                if let Some(&key) = k.get(side) {
                    grouping.push(key, row as u64).unwrap();
                }
            }
            grouping.for_each_group(|m| firsts.group(m)).unwrap();
        }
        let mut in_order = firsts.in_order();
        let spilled: Vec<Role> = (0..rows).map(|row| in_order.role(row).unwrap()).collect();
        // The same in memory, each side's keys apart.
        let mut seen = FirstSeen::new(64 << 20);
        let side_keys = |k: &Vec<u64>| -> Vec<u128> {
            k.iter()
                .enumerate()
                .map(|(side, &key)| (side as u128) << 64 | u128::from(key))
                .collect()
        };
        for (row, k) in keys.iter().enumerate() {
            for key in side_keys(k) {
                assert!(seen.insert(key, row as u64, -(row as i64)));
            }
        }
        let in_memory: Vec<Role> = keys
            .iter()
            .enumerate()
            .map(|(row, k)| {
                let (role, value) = seen.role(row as u64, &side_keys(k));
                assert_eq!(value, role.repeats.map(|r| -(r as i64)));
                role
            })
            .collect();
        assert_eq!(in_memory, spilled);
        spilled
    }

    /// Keys drawn so that many rows repeat: a small xorshift generator, fixed seed.
    fn keys(rows: usize, sides: usize, distinct: u64) -> Vec<Vec<u64>> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        (0..rows)
            .map(|_| {
                (0..sides)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (state % distinct).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn firsts_equal_brute_force_in_memory_and_spilled() {
        for (rows, distinct) in [(0, 1), (1, 1), (2000, 300), (2000, 5000)] {
            let one = keys(rows, 1, distinct);
            // 4 KiB of memory spills into many partitions and ranges; 64 MiB holds it all.
            assert_eq!(roles_through_spills(&one, 4 << 10), expected(&one));
            assert_eq!(roles_through_spills(&one, 64 << 20), expected(&one));
        }
    }

    #[test]
    fn either_side_repeats_the_earliest_row_sharing_a_side() {
        let two = keys(3000, 2, 2500);
        assert_eq!(roles_through_spills(&two, 4 << 10), expected(&two));
        // A row whose source repeats row 0 and whose target repeats row 1 repeats row 0.
        let keys = vec![vec![1, 2], vec![3, 4], vec![1, 4]];
        let roles = roles_through_spills(&keys, 1 << 20);
        assert_eq!(roles, vec![Role::KEPT, Role::KEPT, Role::duplicate(0)]);
    }

    #[test]
    fn first_seen_refuses_keys_past_its_memory() {
        let mut seen = FirstSeen::new(2 * SEEN_ENTRY_BYTES);
        assert!(seen.insert(1, 0, 10) && seen.insert(2, 1, 11) && seen.insert(1, 2, 12));
        assert!(!seen.insert(3, 3, 13));
        assert_eq!(seen.role(2, &[1]), (Role::duplicate(0), Some(10)));
        assert_eq!(seen.role(0, &[1]), (Role::KEPT, None));
        assert_eq!(seen.role(1, &[2]), (Role::UNIQUE, None));
    }

    #[test]
    fn components_join_transitively_and_keep_the_first() {
        let mut c = Components::new(6);
        c.join(&[3, 5]);
        c.join(&[1, 3]);
        c.join(&[2, 4]);
        let roles: Vec<Role> = (0..6).map(|r| c.role(r)).collect();
        let (u, k, d) = (Role::UNIQUE, Role::KEPT, Role::duplicate);
        assert_eq!(roles, vec![u, k, k, d(1), d(2), d(1)]);
    }
}
