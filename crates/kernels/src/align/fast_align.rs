//! fast_align (Dyer, Chahuneau and Smith, NAACL 2013): the reparameterised IBM Model 2, trained
//! by EM, as `clab/fast_align` computes it, to the bit: the same Viterbi links for the same
//! input and flags (fast_align run on one thread, which makes it deterministic).
//!
//! What exactness takes, beyond the model:
//! - Words are numbered as fast_align's `Dict` numbers them (`<eps>`, the NULL word, is 1 and
//!   `|||` is 2; then each new word as first read, line by line), because
//! - each source word's translation row is summed, when normalised, in the order
//!   libstdc++'s `std::unordered_map` iterates it: a function of the word numbers and the order
//!   they were inserted ([`std_unordered_order`]); floating-point sums depend on that order;
//! - the tension's gradient sums the (target, source) length pairs in the same kind of order;
//! - the posterior alignment feature is summed in chunks of `--thread_buffer_size` lines, as
//!   fast_align sums its per-chunk reductions;
//! - fast_align's own quirks are kept: the feature it accumulates uses the 0-based target
//!   position, the tension's log-partition derivative is computed with a partition whose
//!   lengths are swapped, a tab separates the sides as `|||` does, and every `|||` after the
//!   first belongs to the target side.
//!
//! Memory: only the vocabulary and the translation table are held. What grows with the corpus
//! (its lines, each line's table slots, the links) spills to a scratch directory and is read
//! back a block at a time, as fast_align reads its file again each iteration.
//!
//! No Arrow here: `pipeline::fast_align` reads and writes files.

use std::hash::BuildHasher;
use std::io;
use std::sync::Arc;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::spill::{Scratch, Spill};

/// fast_align's options (its flags in brackets), with its defaults.
#[derive(Debug, Clone)]
pub struct Options {
    /// Condition on the target and predict the source (`-r`).
    pub reverse: bool,
    /// EM iterations (`-I`, 5); the last only aligns.
    pub iterations: usize,
    /// Favour alignment points close to the diagonal (`-d`).
    pub favor_diagonal: bool,
    /// The probability of aligning to NULL (`-q`, 0.08).
    pub prob_align_null: f64,
    /// The diagonal tension to start from (`-T`, 4).
    pub diagonal_tension: f64,
    /// Optimise the tension between iterations (`-o`).
    pub optimize_tension: bool,
    /// Variational Bayes with a Dirichlet prior of `alpha` (`-v`, `-a`, 0.01).
    pub variational_bayes: bool,
    pub alpha: f64,
    /// No NULL word (`-N`).
    pub no_null_word: bool,
    /// Lines per chunk (`-b`, 10000): the posterior feature is summed per chunk.
    pub chunk_lines: usize,
    /// Worker threads (not a fast_align flag: the output is the same for any number).
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reverse: false,
            iterations: 5,
            favor_diagonal: false,
            prob_align_null: 0.08,
            diagonal_tension: 4.0,
            optimize_tension: false,
            variational_bayes: false,
            alpha: 0.01,
            no_null_word: false,
            chunk_lines: 10000,
            threads: 1,
        }
    }
}

/// The NULL word's and the separator's numbers, as fast_align's `Dict` gives them.
const NULL: u32 = 1;
const SEPARATOR: u32 = 2;

/// The most word pairs (source words x target words) a line may have: its cost in every
/// iteration is their product (fast_align has no limit; a 10,000 x 10,000-word line took over
/// 100 s and 400 MB of scratch). 2^24 is a pair of 4,096 words a side.
pub const MAX_LINE_PAIRS: usize = 1 << 24;

/// Words kept in memory by each list that spills to the scratch directory (the corpus, the
/// cells, the links): past that, written to a file and read back a block at a time.
const SPILL_WORDS: usize = 1 << 20;

/// A parallel corpus as numbered words, read as fast_align reads its lines. Only the vocabulary
/// is held: the lines spill to the scratch directory, as fast_align reads its file again.
pub struct Corpus {
    words: HashMap<String, u32>,
    /// Per line: its source length, its target length, its source words, its target words.
    lines: Spill<u32>,
    count: usize,
    /// The last line's (source, target) lengths.
    last: (usize, usize),
    /// A line's words as read, separators included.
    read: Vec<u32>,
}

impl Corpus {
    /// An empty corpus whose lines spill to `scratch`.
    pub fn new(scratch: &Arc<Scratch>) -> Corpus {
        let mut corpus = Corpus {
            words: HashMap::new(),
            lines: Spill::new(scratch, SPILL_WORDS * 4),
            count: 0,
            last: (0, 0),
            read: Vec::new(),
        };
        corpus.number("<eps>");
        corpus.number("|||");
        corpus
    }

    fn number(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.words.get(word) {
            return id;
        }
        let id = self.words.len() as u32 + 1;
        self.words.insert(word.to_string(), id);
        id
    }

    /// One `source ||| target` line: words split on spaces and tabs; a tab also separates the
    /// sides; the source ends at the first separator, and the target is everything after it.
    pub fn push_line(&mut self, line: &str) -> io::Result<()> {
        let mut read = std::mem::take(&mut self.read);
        read.clear();
        for (i, field) in line.split('\t').enumerate() {
            if i > 0 {
                read.push(SEPARATOR);
            }
            for word in field.split(' ').filter(|w| !w.is_empty()) {
                read.push(self.number(word));
            }
        }
        let result = match read.iter().position(|&t| t == SEPARATOR) {
            Some(p) => self.push(&read[..p], &read[p + 1..]),
            None => self.push(&read, &[]),
        };
        self.read = read;
        result
    }

    /// One pair given as tokens: what `push_line` reads from `source ||| target` when no token
    /// holds a space, a tab or is `|||`.
    pub fn push_pair(&mut self, source: &[&str], target: &[&str]) -> io::Result<()> {
        let mut read = std::mem::take(&mut self.read);
        read.clear();
        read.extend(source.iter().chain(target).map(|word| self.number(word)));
        let result = self.push(&read[..source.len()], &read[source.len()..]);
        self.read = read;
        result
    }

    fn push(&mut self, source: &[u32], target: &[u32]) -> io::Result<()> {
        self.lines.push(source.len() as u32)?;
        self.lines.push(target.len() as u32)?;
        for &word in source.iter().chain(target) {
            self.lines.push(word)?;
        }
        self.count += 1;
        self.last = (source.len(), target.len());
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The source and target lengths of the last line read.
    pub fn last_pair(&self) -> (usize, usize) {
        self.last
    }

    /// The lines in order, read back a block at a time.
    fn pairs(&self, reverse: bool) -> Pairs<'_> {
        Pairs {
            words: Words::new(&self.lines),
            reverse,
        }
    }
}

/// A corpus's lines in order: each (source, target), swapped when `reverse`.
struct Pairs<'a> {
    words: Words<'a>,
    reverse: bool,
}

impl Pairs<'_> {
    fn next(&mut self) -> io::Result<Option<(&[u32], &[u32])>> {
        let (s, t) = match self.words.take(2)? {
            [] => return Ok(None),
            &[s, t] => (s as usize, t as usize),
            _ => return Err(truncated()),
        };
        let (source, target) = self.words.take_exact(s + t)?.split_at(s);
        Ok(Some(if self.reverse {
            (target, source)
        } else {
            (source, target)
        }))
    }
}

fn truncated() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "a scratch file ends early")
}

/// A spilled list of words read in order, a block at a time.
struct Words<'a> {
    spill: &'a Spill<u32>,
    /// The next word of the list to read into the buffer.
    next: usize,
    buffer: Vec<u32>,
    /// The next word of the buffer to take.
    at: usize,
}

impl<'a> Words<'a> {
    fn new(spill: &'a Spill<u32>) -> Words<'a> {
        Words {
            spill,
            next: 0,
            buffer: Vec::new(),
            at: 0,
        }
    }

    /// The next `n` words (fewer only at the end of the list).
    fn take(&mut self, n: usize) -> io::Result<&[u32]> {
        if self.buffer.len() - self.at < n {
            self.buffer.drain(..self.at);
            self.at = 0;
            let want = (n - self.buffer.len()).max(SPILL_WORDS);
            let end = (self.next + want).min(self.spill.len());
            self.spill.read_into(self.next..end, &mut self.buffer)?;
            self.next = end;
        }
        let taken = &self.buffer[self.at..(self.at + n).min(self.buffer.len())];
        self.at += taken.len();
        Ok(taken)
    }

    /// The next `n` words; an error if the list ends before them.
    fn take_exact(&mut self, n: usize) -> io::Result<&[u32]> {
        let taken = self.take(n)?;
        if taken.len() < n {
            return Err(truncated());
        }
        Ok(taken)
    }
}

/// Where libstdc++'s `std::unordered_map` (GCC 12) rehashes as it grows by single inserts:
/// (the size reached by the insert that rehashes, the new bucket count). Measured by inserting
/// 1..10^8 into a default-constructed map and printing `bucket_count()` as it changed.
const GROWTH: [(usize, usize); 24] = [
    (1, 13),
    (14, 29),
    (30, 59),
    (60, 127),
    (128, 257),
    (258, 541),
    (542, 1109),
    (1110, 2357),
    (2358, 5087),
    (5088, 10273),
    (10274, 20753),
    (20754, 42043),
    (42044, 85229),
    (85230, 172933),
    (172934, 351061),
    (351062, 712697),
    (712698, 1447153),
    (1447154, 2938679),
    (2938680, 5967347),
    (5967348, 12117689),
    (12117690, 24607243),
    (24607244, 49969847),
    (49969848, 101473717),
    (usize::MAX, usize::MAX),
];

/// The order in which libstdc++'s `std::unordered_map` iterates keys inserted one by one in this
/// order (distinct keys; `hashes` are their hash codes, the key itself for integers): positions
/// into `hashes`. Its nodes form one list; a node goes first in its bucket, or at the head of
/// the list when its bucket is empty; a rehash re-threads the list in list order.
pub fn std_unordered_order(hashes: &[u64]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    /// A bucket whose first node is the head of the list (libstdc++'s `_M_before_begin`).
    const HEAD: u32 = u32::MAX - 1;
    let mut next = vec![NONE; hashes.len()];
    let mut head = NONE;
    let mut buckets = vec![NONE; 1];
    let mut growth = GROWTH.iter();
    let mut resize = growth.next().expect("a growth table");
    let bucket = |node: u32, count: usize| (hashes[node as usize] % count as u64) as usize;
    // The node after `before`, and setting it, where `before` may be the head's sentinel.
    fn after(next: &[u32], head: u32, before: u32) -> u32 {
        if before == HEAD {
            head
        } else {
            next[before as usize]
        }
    }
    fn link(next: &mut [u32], head: &mut u32, before: u32, node: u32) {
        if before == HEAD {
            *head = node
        } else {
            next[before as usize] = node
        }
    }
    for node in 0..hashes.len() as u32 {
        if node as usize + 1 == resize.0 {
            let count = resize.1;
            let mut fresh = vec![NONE; count];
            let mut p = std::mem::replace(&mut head, NONE);
            let mut first_bucket = 0;
            while p != NONE {
                let following = next[p as usize];
                let b = bucket(p, count);
                if fresh[b] == NONE {
                    next[p as usize] = head;
                    head = p;
                    fresh[b] = HEAD;
                    if next[p as usize] != NONE {
                        fresh[first_bucket] = p;
                    }
                    first_bucket = b;
                } else {
                    let before = fresh[b];
                    next[p as usize] = after(&next, head, before);
                    link(&mut next, &mut head, before, p);
                }
                p = following;
            }
            buckets = fresh;
            resize = growth.next().expect("the table ends with usize::MAX");
        }
        let count = buckets.len();
        let b = bucket(node, count);
        if buckets[b] == NONE {
            next[node as usize] = head;
            head = node;
            if next[node as usize] != NONE {
                let moved = bucket(next[node as usize], count);
                buckets[moved] = node;
            }
            buckets[b] = HEAD;
        } else {
            let before = buckets[b];
            next[node as usize] = after(&next, head, before);
            link(&mut next, &mut head, before, node);
        }
    }
    let mut order = Vec::with_capacity(hashes.len());
    let mut p = head;
    while p != NONE {
        order.push(p);
        p = next[p as usize];
    }
    order
}

/// fast_align's `DiagonalAlignment`: i is the target position (1-based), j the source position,
/// m the target length, n the source length.
mod diagonal {
    pub fn feature(i: usize, j: usize, m: usize, n: usize) -> f64 {
        -(j as f64 / n as f64 - i as f64 / m as f64).abs()
    }

    pub fn unnormalized(i: usize, j: usize, m: usize, n: usize, tension: f64) -> f64 {
        (feature(i, j, m, n) * tension).exp()
    }

    /// The prior of aligning target position j + 1 to source position i, at `[j * n + i - 1]`:
    /// the unnormalised probability over the partition, which leaves p_null to NULL.
    pub fn priors(m: usize, n: usize, tension: f64, prob_align_not_null: f64) -> Vec<f64> {
        let mut priors = Vec::with_capacity(m * n);
        for j in 1..=m {
            let az = z(j, m, n, tension) / prob_align_not_null;
            for i in 1..=n {
                priors.push(unnormalized(j, i, m, n, tension) / az);
            }
        }
        priors
    }

    pub fn z(i: usize, m: usize, n: usize, tension: f64) -> f64 {
        let split = i as f64 * n as f64 / m as f64;
        let floor = split as u32 as usize;
        let ceil = floor + 1;
        let ratio = (-tension / n as f64).exp();
        let num_top = n.wrapping_sub(floor) as u32;
        let mut top = 0.0;
        let mut bottom = 0.0;
        if num_top != 0 {
            top = unnormalized(i, ceil, m, n, tension) * (1.0 - ratio.powf(num_top as f64))
                / (1.0 - ratio);
        }
        if floor != 0 {
            bottom = unnormalized(i, floor, m, n, tension) * (1.0 - ratio.powf(floor as f64))
                / (1.0 - ratio);
        }
        bottom + top
    }

    /// d log Z / d tension, with fast_align's partition of swapped lengths.
    pub fn d_log_z(i: usize, m: usize, n: usize, tension: f64) -> f64 {
        let z = z(i, n, m, tension);
        let split = i as f64 * n as f64 / m as f64;
        let floor = split as u32 as usize;
        let ceil = floor + 1;
        let ratio = (-tension / n as f64).exp();
        let d = -1.0 / n as f64;
        let num_top = n.wrapping_sub(floor) as u32;
        let mut top = 0.0;
        let mut bottom = 0.0;
        if num_top != 0 {
            top = series(
                feature(i, ceil, m, n),
                unnormalized(i, ceil, m, n, tension),
                ratio,
                d,
                num_top as usize,
            );
        }
        if floor != 0 {
            bottom = series(
                feature(i, floor, m, n),
                unnormalized(i, floor, m, n, tension),
                ratio,
                d,
                floor,
            );
        }
        (top + bottom) / z
    }

    /// The sum of an arithmetico-geometric series.
    fn series(a_1: f64, g_1: f64, r: f64, d: f64, n: usize) -> f64 {
        let g_np1 = g_1 * r.powf(n as f64);
        let a_n = d * (n as f64 - 1.0) + a_1;
        let x_1 = a_1 * g_1;
        let g_2 = g_1 * r;
        let rm1 = r - 1.0;
        (a_n * g_np1 - x_1) / rm1 - d * (g_np1 - g_2) / (rm1 * rm1)
    }
}

/// fast_align's digamma approximation.
fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 7.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    x -= 1.0 / 2.0;
    let xx = 1.0 / x;
    let xx2 = xx * xx;
    let xx4 = xx2 * xx2;
    result += x.ln() + (1. / 24.) * xx2 - (7.0 / 960.0) * xx4 + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4;
    result
}

/// The translation table t(f | e): a slot per co-occurring (e, f), each row's slots in the
/// order fast_align's hash map iterates the row.
struct Table {
    /// Row e's slots are rows[e]..rows[e + 1].
    rows: Vec<u32>,
    /// Each slot's target word f.
    targets: Vec<u32>,
    probs: Vec<f64>,
    initialized: bool,
}

/// Each line's cells: per target word, the table slot of (NULL, f) (unless -N), then one per
/// source word (e, f). Looked up once, so no iteration hashes a word pair; they spill to the
/// scratch directory, and each iteration reads them back.
struct Cells {
    /// Per line: its target length m, its width (source length, plus one with the NULL word),
    /// then its m * width cells.
    lines: Spill<u32>,
    /// The first line of each share of each batch ([`shares`]),
    firsts: Vec<usize>,
    /// and where its cells start in `lines`, and the end.
    starts: Vec<usize>,
    /// How many cells hold a slot of each row.
    per_row: Vec<usize>,
}

/// Lines per batch: each worker scores its share of a batch, then, once all have, adds its
/// slots' posteriors from every share in line order.
const BATCH: usize = 4096;

/// The first line of each worker's share of each batch (batch b, worker w at `b * workers + w`).
fn shares(lines: usize, workers: usize) -> Vec<usize> {
    let mut firsts = Vec::new();
    for batch in (0..lines).step_by(BATCH) {
        let end = (batch + BATCH).min(lines);
        let share = (end - batch).div_ceil(workers);
        firsts.extend((0..workers).map(|w| (batch + w * share).min(end)));
    }
    firsts
}

/// The corpus's (target, source) length pairs, with their counts, as fast_align counts them for
/// the tension's gradient; and its target words.
#[derive(Default)]
struct Lengths {
    /// fast_align keys its length counts by (short, short) and hashes them as
    /// (unsigned short) m << 16 | (unsigned) n: the hashes in order of first sight.
    hashes: Vec<u64>,
    counts: HashMap<u64, u32>,
    target_tokens: f64,
}

impl Lengths {
    fn add(&mut self, m: usize, s: usize) {
        self.target_tokens += m as f64;
        let hash = ((m as i16 as u16 as u64) << 16) | (s as i16 as i32 as u32 as u64);
        let count = self.counts.entry(hash).or_insert(0);
        if *count == 0 {
            self.hashes.push(hash);
        }
        *count += 1;
    }

    /// (m, s, count) in the order fast_align's map iterates them.
    fn in_order(&self) -> Vec<(i16, i16, u32)> {
        std_unordered_order(&self.hashes)
            .into_iter()
            .map(|p| {
                let hash = self.hashes[p as usize];
                (
                    (hash >> 16) as u16 as i16,
                    hash as u16 as i16,
                    self.counts[&hash],
                )
            })
            .collect()
    }
}

impl Table {
    /// Every (e, f) that co-occurs (NULL with every target word), rows laid out in the hash
    /// map's order of their first insertion; every line's cells; the corpus's lengths. Each of
    /// `workers` threads finds the rows of its share of the source words, as fast_align fills
    /// its rows.
    fn new(
        corpus: &Corpus,
        options: &Options,
        workers: usize,
    ) -> io::Result<(Table, Cells, Lengths)> {
        let use_null = !options.no_null_word;
        let scratch = corpus.lines.scratch();
        let owners: Vec<u8> = (0..=corpus.words.len())
            .map(|e| (e % workers) as u8)
            .collect();
        let owners = &owners;
        let owner = |e: u32| owners[e as usize] as usize;
        // Each worker's rows (each row's targets in order of insertion), and where each of its
        // cells' pairs was inserted in its row, line by line, and in a line by source word
        // (NULL first) and then by target word. A row has its own map, as in fast_align: the
        // rows of frequent words stay in cache.
        type Found = (Vec<Vec<u32>>, Spill<u32>);
        let found: Vec<Found> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let owner = &owner;
                    scope.spawn(move || -> io::Result<Found> {
                        // A row's map holds places in the row, keyed by the target word there.
                        let mut rows: Vec<(HashTable<u32>, Vec<u32>)> =
                            vec![Default::default(); owners.len()];
                        let hasher = DefaultHashBuilder::default();
                        let mut places = Spill::new(scratch, SPILL_WORDS * 4);
                        let null = use_null && owner(NULL) == w;
                        let mut pairs = corpus.pairs(options.reverse);
                        while let Some((source, target)) = pairs.next()? {
                            let words = null.then_some(NULL).into_iter();
                            let mine = source.iter().copied().filter(|&e| owner(e) == w);
                            for e in words.chain(mine) {
                                let (found, row) = &mut rows[e as usize];
                                for &f in target {
                                    let hash = hasher.hash_one(f);
                                    let place = match found.find(hash, |&p| row[p as usize] == f) {
                                        Some(&place) => place,
                                        None => {
                                            row.push(f);
                                            let place = row.len() as u32 - 1;
                                            found.insert_unique(hash, place, |&p| {
                                                hasher.hash_one(row[p as usize])
                                            });
                                            place
                                        }
                                    };
                                    places.push(place)?;
                                }
                            }
                        }
                        let rows = rows.into_iter().map(|(_, row)| row).collect();
                        Ok((rows, places))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a table worker panicked"))
                .collect::<io::Result<_>>()
        })?;
        // Rows in the hash map's order: (e, f) inserted at `place` is slot
        // rows[e] + rank[rows[e] + place].
        let words = owners.len();
        let row = |e: usize| {
            let rows = &found[owner(e as u32)].0;
            rows.get(e).map_or(&[][..], Vec::as_slice)
        };
        let size: usize = (0..words).map(|e| row(e).len()).sum();
        assert!(
            size < u32::MAX as usize,
            "more than 2^32 co-occurring word pairs"
        );
        let mut rows = Vec::with_capacity(words + 1);
        let mut targets = Vec::with_capacity(size);
        let mut rank = vec![0u32; size];
        rows.push(0);
        for e in 0..words {
            let row = row(e);
            let start = targets.len();
            let hashes: Vec<u64> = row.iter().map(|&f| f as u64).collect();
            for (r, position) in std_unordered_order(&hashes).into_iter().enumerate() {
                rank[start + position as usize] = r as u32;
                targets.push(row[position as usize]);
            }
            rows.push(targets.len() as u32);
        }
        // Places to slots, line by line.
        let mut places: Vec<Words> = found.iter().map(|(_, places)| Words::new(places)).collect();
        let mut per_row = vec![0; words];
        let mut lines = Spill::new(scratch, SPILL_WORDS * 4);
        let firsts = shares(corpus.len(), workers);
        let mut starts = Vec::with_capacity(firsts.len() + 1);
        let mut lengths = Lengths::default();
        let mut line = Vec::new();
        let mut pairs = corpus.pairs(options.reverse);
        let mut n = 0;
        while let Some((source, target)) = pairs.next()? {
            while starts.len() < firsts.len() && firsts[starts.len()] == n {
                starts.push(lines.len());
            }
            lengths.add(target.len(), source.len());
            let width = source.len() + use_null as usize;
            line.clear();
            line.resize(width * target.len(), 0);
            let words = use_null.then_some(NULL).into_iter();
            for (k, e) in words.chain(source.iter().copied()).enumerate() {
                per_row[e as usize] += target.len();
                let row = rows[e as usize];
                let mine = places[owner(e)].take_exact(target.len())?;
                for (cell, &place) in line[k..].iter_mut().step_by(width).zip(mine) {
                    *cell = row + rank[(row + place) as usize];
                }
            }
            lines.push(target.len() as u32)?;
            lines.push(width as u32)?;
            for &cell in &line {
                lines.push(cell)?;
            }
            n += 1;
        }
        starts.resize(firsts.len() + 1, lines.len());
        drop(places);
        drop(found);
        let table = Table {
            rows,
            targets,
            probs: vec![0.0; size],
            initialized: false,
        };
        let cells = Cells {
            lines,
            firsts,
            starts,
            per_row,
        };
        Ok((table, cells, lengths))
    }

    fn prob(&self, slot: u32) -> f64 {
        if self.initialized {
            self.probs[slot as usize]
        } else {
            1e-9
        }
    }

    /// Slot boundaries, at rows, that split the additions of `hits[e]` posteriors to each row e
    /// into `parts` shares of about equal work.
    fn partition(&self, hits: &[usize], parts: usize) -> Vec<u32> {
        let share = hits.iter().sum::<usize>().div_ceil(parts).max(1);
        let mut bounds = vec![0];
        let mut seen = 0;
        for (e, &h) in hits.iter().enumerate() {
            seen += h;
            if seen >= share * bounds.len() && bounds.len() < parts {
                bounds.push(self.rows[e + 1]);
            }
        }
        let size = self.probs.len() as u32;
        bounds.resize(parts + 1, size);
        bounds[parts] = size;
        bounds
    }

    /// The probabilities from the expected counts (which are then zeroed).
    fn normalize(&mut self, counts: &mut [f64], variational_bayes: Option<f64>) {
        for row in self.rows.windows(2) {
            let (counts, probs) = (
                &mut counts[row[0] as usize..row[1] as usize],
                &mut self.probs[row[0] as usize..row[1] as usize],
            );
            match variational_bayes {
                Some(alpha) => {
                    let mut total = 0.0;
                    for &c in counts.iter() {
                        total += c + alpha;
                    }
                    if total == 0.0 {
                        total = 1.0;
                    }
                    let digamma_total = digamma(total);
                    for (p, &c) in probs.iter_mut().zip(counts.iter()) {
                        *p = (digamma(c + alpha) - digamma_total).exp();
                    }
                }
                None => {
                    let mut total = 0.0;
                    for &c in counts.iter() {
                        total += c;
                    }
                    if total == 0.0 {
                        total = 1.0;
                    }
                    for (p, &c) in probs.iter_mut().zip(counts.iter()) {
                        *p = c / total;
                    }
                }
            }
            counts.fill(0.0);
        }
        self.initialized = true;
    }
}

impl Aligned {
    /// fast_align's `-p` file: per source word in number order, each translation in the
    /// row's hash-map order as `e<TAB>f<TAB>ln t(f|e)`, those within `beam_threshold` (fast_align's
    /// `-t`, -4) times the row's best log-probability; numbers as C++ streams print doubles.
    pub fn write_table(
        &self,
        corpus: &Corpus,
        beam_threshold: f64,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut words = vec!["<bad0>"; corpus.words.len() + 1];
        for (word, &id) in &corpus.words {
            words[id as usize] = word;
        }
        for (e, row) in self.table.rows.windows(2).enumerate() {
            let slots = row[0] as usize..row[1] as usize;
            let best = self.table.probs[slots.clone()]
                .iter()
                .fold(-1.0f64, |m, &p| if p > m { p } else { m });
            let threshold = -best.ln() * beam_threshold;
            for slot in slots {
                let c = self.table.probs[slot].ln();
                if c >= threshold {
                    writeln!(
                        out,
                        "{}\t{}\t{}",
                        words[e],
                        words[self.table.targets[slot] as usize],
                        crate::text::cpp::double(c)
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// What one pass over the corpus reports (fast_align prints it on stderr).
#[derive(Debug, Default, Clone)]
pub struct Iteration {
    pub log_likelihood: f64,
    pub target_tokens: f64,
    pub posterior_null: f64,
    pub posterior_feature: f64,
    /// The tension after this iteration's optimisation.
    pub tension: f64,
}

/// What training gives: each line's Viterbi links and the translation table, both of the last
/// iteration's model.
pub struct Aligned {
    /// Per line: its number of links, then each link's source and target positions.
    links: Spill<u32>,
    table: Table,
}

impl Aligned {
    /// Each line's links `(source, target)`, 0-based, in fast_align's order (by target
    /// position); none without iterations (fast_align then never aligns).
    pub fn links(&self) -> Links<'_> {
        Links {
            words: Words::new(&self.links),
        }
    }
}

/// The lines' links, read back in order.
pub struct Links<'a> {
    words: Words<'a>,
}

impl Iterator for Links<'_> {
    type Item = io::Result<Vec<(u32, u32)>>;

    fn next(&mut self) -> Option<Self::Item> {
        let count = match self.words.take(1) {
            Ok([]) => return None,
            Ok(&[count]) => count as usize,
            Ok(_) => unreachable!("one word taken"),
            Err(e) => return Some(Err(e)),
        };
        let links = self.words.take_exact(2 * count);
        Some(links.map(|links| links.chunks_exact(2).map(|l| (l[0], l[1])).collect()))
    }
}

/// Train on `corpus` and align it.
pub fn align(
    corpus: &Corpus,
    options: &Options,
    mut report: impl FnMut(usize, &Iteration),
) -> io::Result<Aligned> {
    let use_null = !options.no_null_word;
    let threads = options.threads.max(1);
    let (mut table, cells, lengths) = Table::new(corpus, options, threads)?;
    release_freed_memory();
    let length_order = lengths.in_order();
    let target_tokens = lengths.target_tokens;
    let prob_align_not_null = 1.0 - options.prob_align_null;
    let mut tension = options.diagonal_tension;
    let mut links = Spill::new(corpus.lines.scratch(), SPILL_WORDS * 4);
    let bounds = table.partition(&cells.per_row, threads);
    let mut counts = vec![0.0; table.probs.len()];
    let mut workspaces: Vec<Workspace> = (0..threads).map(|_| Workspace::default()).collect();
    for iteration in 0..options.iterations {
        let last = iteration + 1 == options.iterations;
        // The priors are the tension's, which moves between iterations.
        workspaces.iter_mut().for_each(|s| s.priors.clear());
        let model = Model {
            cells: &cells,
            table: &table,
            options,
            use_null,
            priors: options.favor_diagonal.then(|| Priors {
                tension,
                prob_align_not_null,
            }),
            bounds: &bounds,
            last,
        };
        let sums = model.pass(&mut workspaces, &mut counts, &mut links)?;
        let posterior_feature = sums.feature / target_tokens;
        if !last {
            if options.favor_diagonal && options.optimize_tension && iteration > 0 {
                for _ in 0..8 {
                    let mut model_feature = 0.0;
                    for &(m, s, count) in &length_order {
                        for j in 1..=m.max(0) as usize {
                            model_feature += count as f64
                                * diagonal::d_log_z(j, m as usize, s as usize, tension);
                        }
                    }
                    model_feature /= target_tokens;
                    tension += (posterior_feature - model_feature) * 20.0;
                    tension = tension.clamp(0.1, 14.0);
                }
            }
            table.normalize(
                &mut counts,
                options.variational_bayes.then_some(options.alpha),
            );
        }
        report(
            iteration,
            &Iteration {
                log_likelihood: sums.likelihood,
                target_tokens,
                posterior_null: sums.null / target_tokens,
                posterior_feature,
                tension,
            },
        );
    }
    Ok(Aligned { links, table })
}

/// Give the memory the table's build freed back to the system. Its maps were allocated by
/// worker threads, in glibc's per-thread arenas, which keep freed memory: without this the
/// process would hold the build's peak and the training's arrays at once.
fn release_freed_memory() {
    crate::sys::release_freed_memory();
}

/// What one pass over the corpus needs: the model of one iteration, read only.
struct Model<'a> {
    cells: &'a Cells,
    table: &'a Table,
    options: &'a Options,
    use_null: bool,
    /// The diagonal prior's parameters, with -d.
    priors: Option<Priors>,
    /// Worker w adds the posteriors of slots bounds[w]..bounds[w + 1] to the counts.
    bounds: &'a [u32],
    /// The last iteration only aligns.
    last: bool,
}

#[derive(Clone, Copy)]
struct Priors {
    tension: f64,
    prob_align_not_null: f64,
}

/// The sums of one pass that fast_align prints (and the tension's optimisation reads).
#[derive(Default)]
struct Sums {
    likelihood: f64,
    null: f64,
    feature: f64,
}

impl Sums {
    fn add(&mut self, other: &Sums) {
        self.feature += other.feature;
        self.null += other.null;
        self.likelihood += other.likelihood;
    }
}

/// Per worker: the diagonal prior of each (target, source) length pair it has met, its share of
/// the current batch's cells, and what it scored of them.
#[derive(Default)]
struct Workspace {
    priors: HashMap<(usize, usize), Vec<f64>>,
    probs: Vec<f64>,
    cells: Vec<u32>,
    scored: Scored,
}

/// A worker's share of a batch, scored: its first line, each line's (target length, width) and
/// log-likelihood, each cell's posterior in line order, (slot, posterior) per worker that adds
/// them to the counts; in the last iteration each line's links as [`Aligned::links`] holds them.
#[derive(Default)]
struct Scored {
    first: usize,
    lengths: Vec<(usize, usize)>,
    likelihoods: Vec<f64>,
    posteriors: Vec<f64>,
    for_worker: Vec<Vec<(u32, f64)>>,
    links: Vec<u32>,
}

impl Scored {
    fn clear(&mut self, first: usize, workers: usize) {
        self.first = first;
        self.lengths.clear();
        self.likelihoods.clear();
        self.posteriors.clear();
        self.for_worker.resize_with(workers, Vec::new);
        self.for_worker.iter_mut().for_each(Vec::clear);
        self.links.clear();
    }
}

impl Model<'_> {
    /// One pass over the corpus on as many threads as there are workspaces: the sums, and in the
    /// last iteration each line's links appended to `links`. Every floating-point sum is taken
    /// in fast_align's order (line order): a slot's count by the one worker that owns the slot,
    /// the pass's sums (and the links) by the first worker.
    fn pass(
        &self,
        workspaces: &mut [Workspace],
        counts: &mut [f64],
        links: &mut Spill<u32>,
    ) -> io::Result<Sums> {
        let workers = workspaces.len();
        let shares: Vec<std::sync::RwLock<Scored>> = workspaces
            .iter_mut()
            .map(|s| std::sync::RwLock::new(std::mem::take(&mut s.scored)))
            .collect();
        let barrier = Barrier::new(workers);
        let mut parts = Vec::with_capacity(workers);
        let mut rest = counts;
        for w in 0..workers {
            let (part, after) = rest.split_at_mut((self.bounds[w + 1] - self.bounds[w]) as usize);
            parts.push(part);
            rest = after;
        }
        let mut links = Some(links);
        let results: Vec<io::Result<Sums>> = std::thread::scope(|scope| {
            let handles: Vec<_> = workspaces
                .iter_mut()
                .zip(parts)
                .enumerate()
                .map(|(w, (workspace, part))| {
                    let (shares, barrier) = (&shares, &barrier);
                    let links = if w == 0 { links.take() } else { None };
                    scope.spawn(move || self.work(w, workspace, part, shares, barrier, links))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("an alignment worker panicked"))
                .collect()
        });
        for (workspace, share) in workspaces.iter_mut().zip(shares) {
            workspace.scored = share.into_inner().expect("a worker panicked");
        }
        // The first worker's sums are the pass's; the others' are empty, but may hold a failure.
        let mut results = results.into_iter();
        let sums = results.next().expect("a first worker")?;
        results.try_for_each(|result| result.map(drop))?;
        Ok(sums)
    }

    /// Worker `w`'s part of a pass; the first worker also takes the sums and writes the links.
    /// A worker that fails to read goes on with an empty share, so that no other waits for it
    /// in vain, and reports the failure at the end.
    fn work(
        &self,
        w: usize,
        workspace: &mut Workspace,
        counts: &mut [f64],
        shares: &[std::sync::RwLock<Scored>],
        barrier: &Barrier,
        mut links: Option<&mut Spill<u32>>,
    ) -> io::Result<Sums> {
        let workers = shares.len();
        let chunk_lines = self.options.chunk_lines.max(1);
        let mut sums = Sums::default();
        let mut chunk = Sums::default();
        let mut failure = None;
        let owned = self.bounds[w];
        let _broken_if_panicking = barrier.broken_on_panic();
        let firsts = self.cells.firsts.iter();
        for (share, &first) in firsts.enumerate().skip(w).step_by(workers) {
            {
                let mut scored = shares[w].write().expect("a worker panicked");
                scored.clear(first, workers);
                let cells = self.cells.starts[share]..self.cells.starts[share + 1];
                workspace.cells.clear();
                if let Err(e) = self.cells.lines.read_into(cells, &mut workspace.cells) {
                    failure.get_or_insert(e);
                    workspace.cells.clear();
                }
                let mut at = 0;
                while at < workspace.cells.len() {
                    let (m, width) = (
                        workspace.cells[at] as usize,
                        workspace.cells[at + 1] as usize,
                    );
                    let line = &workspace.cells[at + 2..at + 2 + m * width];
                    self.score_line(
                        m,
                        width,
                        line,
                        &mut workspace.priors,
                        &mut workspace.probs,
                        &mut scored,
                    );
                    at += 2 + m * width;
                }
            }
            barrier.wait();
            {
                let all: Vec<_> = shares
                    .iter()
                    .map(|s| s.read().expect("a worker panicked"))
                    .collect();
                if !self.last {
                    for scored in &all {
                        for &(slot, p) in &scored.for_worker[w] {
                            counts[(slot - owned) as usize] += p;
                        }
                    }
                }
                if w == 0 {
                    for scored in &all {
                        self.add_sums(scored, chunk_lines, &mut sums, &mut chunk);
                        if let Some(links) = links.as_deref_mut() {
                            for &word in &scored.links {
                                if let Err(e) = links.push(word) {
                                    failure.get_or_insert(e);
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            barrier.wait();
        }
        sums.add(&chunk);
        match failure {
            Some(e) => Err(e),
            None => Ok(sums),
        }
    }

    /// Add a share's likelihoods and posteriors to the pass's sums, by chunks of `chunk_lines`
    /// lines as fast_align reduces them.
    fn add_sums(&self, scored: &Scored, chunk_lines: usize, sums: &mut Sums, chunk: &mut Sums) {
        let mut posteriors = scored.posteriors.iter();
        let lines = scored.lengths.iter().zip(&scored.likelihoods);
        for (n, (&(m, width), &likelihood)) in (scored.first..).zip(lines) {
            if n > 0 && n % chunk_lines == 0 {
                sums.add(chunk);
                *chunk = Sums::default();
            }
            chunk.likelihood += likelihood;
            if self.last {
                continue;
            }
            let s = width - self.use_null as usize;
            for j in 0..m {
                if self.use_null {
                    chunk.null += posteriors.next().expect("a NULL posterior");
                }
                for i in 1..=s {
                    let p = posteriors.next().expect("a posterior per word");
                    chunk.feature += diagonal::feature(j, i, m, s) * p;
                }
            }
        }
    }

    /// Score a line of `m` target words whose rows of cells are `width` wide: its likelihood and
    /// posteriors into `scored`, or in the last iteration its Viterbi links.
    fn score_line(
        &self,
        m: usize,
        width: usize,
        cells: &[u32],
        priors: &mut HashMap<(usize, usize), Vec<f64>>,
        probs: &mut Vec<f64>,
        scored: &mut Scored,
    ) {
        let options = self.options;
        let null = self.use_null as usize;
        let s = width - null;
        let prior = self.priors.map(|p| {
            &**priors
                .entry((m, s))
                .or_insert_with(|| diagonal::priors(m, s, p.tension, p.prob_align_not_null))
        });
        probs.clear();
        probs.resize(width, 0.0);
        let table = self.table;
        let links_at = scored.links.len();
        if self.last {
            scored.links.push(0);
        }
        let mut likelihood = 0.0;
        for (j, row) in cells.chunks_exact(width).enumerate() {
            let mut sum = 0.0;
            let mut prob_a_i = 1.0 / width as f64;
            if self.use_null {
                if prior.is_some() {
                    prob_a_i = options.prob_align_null;
                }
                probs[0] = table.prob(row[0]) * prob_a_i;
                sum += probs[0];
            }
            for i in 1..=s {
                if let Some(prior) = prior {
                    prob_a_i = prior[j * s + i - 1];
                }
                probs[i - 1 + null] = table.prob(row[i - 1 + null]) * prob_a_i;
                sum += probs[i - 1 + null];
            }
            if self.last {
                let (mut best, mut best_p) = (None, -1.0);
                if self.use_null {
                    best = Some(0);
                    best_p = probs[0];
                }
                for (i, &p) in probs[null..].iter().enumerate() {
                    if p > best_p {
                        best = Some(i + 1);
                        best_p = p;
                    }
                }
                if let Some(i) = best.filter(|&i| i > 0) {
                    let (source, target) = (i as u32 - 1, j as u32);
                    scored.links[links_at] += 1;
                    if options.reverse {
                        scored.links.extend([target, source]);
                    } else {
                        scored.links.extend([source, target]);
                    }
                }
            } else {
                for (&slot, &p) in row.iter().zip(probs.iter()) {
                    let p = p / sum;
                    scored.posteriors.push(p);
                    let worker = self.bounds[1..].partition_point(|&b| b <= slot);
                    scored.for_worker[worker].push((slot, p));
                }
            }
            likelihood += sum.ln();
        }
        scored.lengths.push((m, width));
        scored.likelihoods.push(likelihood);
    }
}

/// A barrier that a panicking worker breaks: the others then panic too, where they wait, instead
/// of waiting for it forever (std's `Barrier` would hang the pass).
struct Barrier {
    workers: usize,
    /// (workers waiting, barriers passed, broken).
    state: std::sync::Mutex<(usize, u64, bool)>,
    passed: std::sync::Condvar,
}

impl Barrier {
    fn new(workers: usize) -> Barrier {
        Barrier {
            workers,
            state: std::sync::Mutex::new((0, 0, false)),
            passed: std::sync::Condvar::new(),
        }
    }

    fn wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let generation = state.1;
        state.0 += 1;
        if state.0 == self.workers {
            *state = (0, generation + 1, state.2);
            self.passed.notify_all();
        }
        while state.1 == generation && !state.2 {
            state = self.passed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        assert!(!state.2, "another alignment worker panicked");
    }

    /// A guard that breaks the barrier if dropped while its thread panics.
    fn broken_on_panic(&self) -> BreakOnPanic<'_> {
        BreakOnPanic(self)
    }
}

struct BreakOnPanic<'a>(&'a Barrier);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            state.2 = true;
            self.0.passed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys in the order libstdc++ iterates them, printed by
    /// scripts/fast_align/std_unordered_order.cc.
    fn std_order(keys: &[u64]) -> Vec<u64> {
        std_unordered_order(keys)
            .into_iter()
            .map(|p| keys[p as usize])
            .collect()
    }

    #[test]
    fn keys_of_one_bucket_iterate_newest_first() {
        // 13 buckets: all but 0 and 39 share bucket 5, 0 and 39 bucket 0.
        assert_eq!(
            std_order(&[5, 18, 31, 2, 44, 13, 26, 0, 39]),
            [39, 0, 26, 13, 2, 44, 31, 18, 5]
        );
    }

    #[test]
    fn rehashing_keeps_libstdcxx_order() {
        // 70 keys: rehashed at 14, 30 and 60 elements.
        let keys = [
            122, 304, 279, 67, 190, 310, 243, 321, 298, 34, 311, 7, 241, 133, 283, 120, 99, 368,
            277, 282, 244, 204, 328, 78, 119, 326, 268, 200, 380, 8, 344, 398, 33, 82, 389, 303,
            22, 155, 16, 138, 305, 369, 199, 366, 219, 203, 373, 296, 228, 69, 188, 50, 19, 70,
            254, 112, 345, 224, 399, 216, 260, 198, 294, 180, 274, 300, 209, 173, 350, 15,
        ];
        let expected = [
            15, 350, 173, 300, 274, 180, 294, 198, 216, 200, 209, 82, 380, 203, 296, 204, 244, 321,
            67, 303, 99, 120, 283, 224, 260, 133, 310, 369, 122, 279, 277, 190, 34, 78, 119, 373,
            19, 243, 7, 298, 311, 16, 268, 328, 33, 368, 241, 344, 398, 8, 389, 22, 326, 199, 282,
            155, 138, 305, 69, 219, 228, 188, 70, 304, 50, 345, 254, 366, 112, 399,
        ];
        assert_eq!(std_order(&keys), expected);
    }

    /// Every line's (source, target) words, read back.
    fn pairs(corpus: &Corpus) -> Vec<(Vec<u32>, Vec<u32>)> {
        let mut pairs = corpus.pairs(false);
        let mut all = Vec::new();
        while let Some((s, t)) = pairs.next().unwrap() {
            all.push((s.to_vec(), t.to_vec()));
        }
        all
    }

    #[test]
    fn lines_split_as_fast_align_splits_them() {
        let mut corpus = Corpus::new(&Scratch::new(None));
        corpus.push_line("a  b ||| c").unwrap();
        corpus.push_line("a b\tc d").unwrap();
        corpus.push_line("a ||| b ||| c").unwrap();
        let lengths: Vec<_> = pairs(&corpus)
            .iter()
            .map(|(s, t)| (s.len(), t.len()))
            .collect();
        assert_eq!(lengths[..2], [(2, 1), (2, 2)]);
        // Every separator after the first is a target word, as in fast_align.
        let (s, t) = &pairs(&corpus)[2];
        assert_eq!(
            (s.len(), &t[..]),
            (1, &[corpus.words["b"], SEPARATOR, corpus.words["c"]][..])
        );
        assert_eq!(corpus.words["<eps>"], NULL);
        assert_eq!(corpus.words["a"], 3);
    }

    #[test]
    fn two_lines_align_as_worked_by_hand() {
        // Model 1, no NULL word: after EM "la" goes with "the" and "maison" with "house".
        let mut corpus = Corpus::new(&Scratch::new(None));
        corpus.push_line("la maison ||| the house").unwrap();
        corpus.push_line("la ||| the").unwrap();
        let options = Options {
            no_null_word: true,
            ..Options::default()
        };
        let aligned = align(&corpus, &options, |_, _| {}).unwrap();
        let links: Vec<_> = aligned.links().map(Result::unwrap).collect();
        assert_eq!(links, vec![vec![(0, 0), (1, 1)], vec![(0, 0)]]);
    }

    #[test]
    fn a_panicking_worker_breaks_the_barrier() {
        let barrier = Barrier::new(3);
        let outcomes: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..3)
                .map(|w| {
                    let barrier = &barrier;
                    scope.spawn(move || {
                        let _guard = barrier.broken_on_panic();
                        barrier.wait();
                        if w == 1 {
                            panic!("worker 1 fails between barriers");
                        }
                        barrier.wait();
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().is_ok()).collect()
        });
        assert_eq!(outcomes, [false, false, false]);
    }

    #[test]
    fn lines_spilled_to_disk_read_back_whole() {
        // Lines longer than a block and a corpus many blocks long, on disk past the first block.
        let mut corpus = Corpus::new(&Scratch::new(None));
        let long: Vec<String> = (0..SPILL_WORDS + 7)
            .map(|i| format!("w{}", i % 1000))
            .collect();
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        corpus.push_pair(&long, &["x", "y"]).unwrap();
        for n in 0..SPILL_WORDS / 4 {
            corpus.push_pair(&["a", "b"][..1 + n % 2], &["c"]).unwrap();
        }
        assert!(corpus.lines.len() > 2 * SPILL_WORDS);
        let read = pairs(&corpus);
        assert_eq!(read.len(), 1 + SPILL_WORDS / 4);
        assert_eq!(read[0].0.len(), SPILL_WORDS + 7);
        assert_eq!(read[0].0[1001], corpus.words["w1"]);
        assert_eq!(read[0].1, [corpus.words["x"], corpus.words["y"]]);
        let last = &read[SPILL_WORDS / 4];
        assert_eq!(last.0.len(), 1 + (SPILL_WORDS / 4 - 1) % 2);
        assert_eq!(last.1, [corpus.words["c"]]);
    }
}
