//! METEOR's alignment resolution (`Aligner.resolve`): the candidate matches of every stage, the
//! one-to-one matches that nothing else touches fixed first, then a beam search from left to
//! right over the second sentence. Its arithmetic and its quirks are METEOR's on purpose; each
//! is explained in docs/meteor-aligner.md.

use std::mem::take;
use std::ops::{BitOr, Shl};

use super::{Match, Objective};

/// Candidate matches, listed under the position where they start in the second sentence, in
/// the order the stages found them, with the number of candidates covering each word.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    pub at: Vec<Vec<Match>>,
    pub cover1: Vec<u32>,
    pub cover2: Vec<u32>,
}

impl Candidates {
    pub fn reset(&mut self, n1: usize, n2: usize) {
        self.at.iter_mut().for_each(Vec::clear);
        self.at.resize_with(n2.max(self.at.len()), Vec::new);
        self.cover1.clear();
        self.cover1.resize(n1, 0);
        self.cover2.clear();
        self.cover2.resize(n2, 0);
    }

    pub fn add(&mut self, m: Match) {
        for k in m.s1_start..m.s1_start + m.s1_len {
            self.cover1[k as usize] += 1;
        }
        for k in m.s2_start..m.s2_start + m.s2_len {
            self.cover2[k as usize] += 1;
        }
        self.at[m.s2_start as usize].push(m);
    }
}

/// A partial alignment of METEOR's beam. The counts are Java `int`s: `matches1 += length *
/// weight` truncates toward zero at every step, so a one-word match of weight 0.5 adds nothing.
/// Which words it uses lives in a [`Beam`] slot, and the matches it took in the beam's list of
/// choices, so a path is small and copying one allocates nothing.
#[derive(Debug, Clone, Copy)]
struct Path {
    matches1: i32,
    matches2: i32,
    all1: i32,
    all2: i32,
    chunks: i32,
    /// The next position of the second sentence this path has not decided.
    idx: usize,
    /// End (exclusive) in the first sentence of the open chunk's last match; -1 when no chunk
    /// is open.
    last_end: i32,
    distance: i32,
    /// Its used-word bits: slot `slot` of the beam's arena.
    slot: u32,
    /// Its last taken (non-fixed) match in `Beam::choices`, or [`NONE`].
    last_choice: u32,
}

const NONE: u32 = u32::MAX;

impl Path {
    /// Count a match into the path (everything but its distance, which METEOR adds elsewhere).
    /// Java's `matches1 += length * weight` on an `int` truncates the sum; with counts and
    /// weights (0, ½ or 1, given in halves) never negative, that is adding `length * halves / 2`.
    fn take(&mut self, m: &Match, halves: u32) {
        self.matches1 += (m.s1_len * halves / 2) as i32;
        self.matches2 += (m.s2_len * halves / 2) as i32;
        self.all1 += m.s1_len as i32;
        self.all2 += m.s2_len as i32;
        if self.last_end != -1 && m.s1_start as i32 != self.last_end {
            self.chunks += 1;
        }
        self.idx = (m.s2_start + m.s2_len) as usize;
        self.last_end = (m.s1_start + m.s1_len) as i32;
    }

    fn close_chunk(&mut self) {
        if self.last_end != -1 {
            self.chunks += 1;
            self.last_end = -1;
        }
    }
}

/// The paths' used-word bits (the second sentence's words, then the first's) in an arena of
/// fixed-size slots: a path that takes a match gets a new slot, the others keep theirs. And every
/// match any path took, each with the path's previous choice, so a path's matches are a chain.
/// And the search's buffers, kept from one alignment to the next.
#[derive(Debug, Default)]
pub(crate) struct Beam {
    bits: Vec<u64>,
    /// u64 words per slot.
    words: usize,
    /// The bit of the first sentence's first word.
    offset1: usize,
    choices: Vec<(Match, u32)>,
    paths: Vec<Path>,
    next: Vec<(Path, u32)>,
    narrow_keys: Vec<u64>,
    wide_keys: Vec<(u128, usize)>,
}

impl Beam {
    fn reset(&mut self, n1: usize, n2: usize) {
        self.offset1 = n2.div_ceil(64) * 64;
        self.words = (n2.div_ceil(64) + n1.div_ceil(64)).max(1);
        self.bits.clear();
        self.bits.resize(self.words, 0);
        self.choices.clear();
    }

    fn slot(&self, path: &Path) -> &[u64] {
        let at = path.slot as usize * self.words;
        &self.bits[at..at + self.words]
    }

    fn bit(bits: &[u64], k: usize) -> bool {
        bits[k / 64] & (1 << (k % 64)) != 0
    }

    fn set(bits: &mut [u64], offset1: usize, m: &Match) {
        for k in m.s2_start..m.s2_start + m.s2_len {
            bits[k as usize / 64] |= 1 << (k % 64);
        }
        for k in (m.s1_start..m.s1_start + m.s1_len).map(|k| offset1 + k as usize) {
            bits[k / 64] |= 1 << (k % 64);
        }
    }

    fn is_used(&self, path: &Path, m: &Match) -> bool {
        let bits = self.slot(path);
        let (s1, s2) = (m.s1_start as usize, m.s2_start as usize);
        match (m.s1_len, m.s2_len) {
            // Most matches are of one word (iterating over the spans took a sixth of the check).
            (1, 1) => Self::bit(bits, s2) || Self::bit(bits, self.offset1 + s1),
            _ => {
                (s2..s2 + m.s2_len as usize).any(|k| Self::bit(bits, k))
                    || (s1..s1 + m.s1_len as usize).any(|k| Self::bit(bits, self.offset1 + k))
            }
        }
    }

    /// Move `path` past position `k` where it cannot branch: a word it uses (inside a match it
    /// took, or where a fixed match begins, which it takes), or a word no candidate starts at
    /// (it skips, closing its chunk).
    fn walk_on(&self, path: &mut Path, k: usize, fixed: &[Option<Match>], half_weights: &[u32]) {
        if !Self::bit(self.slot(path), k) {
            path.close_chunk();
            path.idx += 1;
        } else if k >= path.idx
            && let Some(m) = fixed[path.idx]
        {
            path.take(&m, half_weights[m.stage as usize]);
            path.distance += distance(&m);
        }
    }

    /// Give the path a new slot: its bits with `m`'s words marked.
    fn take(&mut self, path: &mut Path, m: &Match) {
        let from = path.slot as usize * self.words;
        path.slot = (self.bits.len() / self.words) as u32;
        self.bits.extend_from_within(from..from + self.words);
        let at = self.bits.len() - self.words;
        Self::set(&mut self.bits[at..], self.offset1, m);
    }
}

fn distance(m: &Match) -> i32 {
    (m.s2_start as i32 - m.s1_start as i32).abs()
}

/// METEOR's comparators as one sort key (smaller first): more (weighted) words matched; for
/// `maxacc` then more words matched at all; then fewer chunks; then the smaller distance. The
/// path's index breaks ties, as METEOR's stable sort keeps tied paths in the order they were
/// made. Each field gets the bits its bound in this alignment needs, so that the key of a pair of
/// ordinary sentences fits a `u64`, which sorts faster than anything wider.
#[derive(Debug, Clone, Copy)]
struct KeyLayout {
    count_bits: u32,
    chunk_bits: u32,
    distance_bits: u32,
    index_bits: u32,
}

impl KeyLayout {
    /// The bounds: matched words (weighted or not) at most `n1 + n2`; chunks at most one per
    /// match; a path's distance at most the sum of every candidate's (each position adds those
    /// of its own candidates, once); paths ranked at once at most a beam times one more than
    /// the most candidates at a position. The counts are Java `int`s: 31 bits at most.
    fn new(c: &Candidates, beam_size: usize) -> KeyLayout {
        let bits = |x: u64| (u64::BITS - x.leading_zeros()).min(31);
        let (n1, n2) = (c.cover1.len() as u64, c.cover2.len() as u64);
        let candidates = || c.at[..n2 as usize].iter();
        let distance: u64 = candidates().flatten().map(|m| distance(m) as u64).sum();
        let widest = candidates().map(Vec::len).max().unwrap_or(0) as u64;
        KeyLayout {
            count_bits: bits(n1 + n2),
            chunk_bits: bits(n2 + 1),
            distance_bits: bits(distance),
            index_bits: u64::BITS - (beam_size as u64 * (widest + 1)).leading_zeros(),
        }
    }

    /// The comparators' fields packed (at most 124 bits), in `T`.
    fn fields<T>(&self, path: &Path, objective: Objective) -> T
    where
        T: From<u32> + Shl<u32, Output = T> + BitOr<Output = T>,
    {
        let all = match objective {
            Objective::MaxCoverage => 0,
            Objective::MaxAccuracy => path.all1 + path.all2,
        };
        // Every field is a non-negative Java `int` within its bits. Flipping the bits of the
        // "more is better" counts orders them descending.
        let more = |x: i32| T::from(!(x as u32) & ((1 << self.count_bits) - 1));
        let key = more(path.matches1 + path.matches2) << self.count_bits | more(all);
        let key = key << self.chunk_bits | T::from(path.chunks as u32);
        key << self.distance_bits | T::from(path.distance as u32)
    }

    fn fits_u64(&self) -> bool {
        2 * self.count_bits + self.chunk_bits + self.distance_bits + self.index_bits <= u64::BITS
    }
}

/// A sort key: fields and index packed in a `u64` when the layout fits one, else side by side.
trait Key: Copy + Ord {
    fn new(layout: &KeyLayout, path: &Path, objective: Objective, index: usize) -> Self;
    fn index(self, layout: &KeyLayout) -> usize;
    /// The beam's buffer of keys of this type.
    fn buffer(beam: &mut Beam) -> &mut Vec<Self>;
}

impl Key for u64 {
    fn new(layout: &KeyLayout, path: &Path, objective: Objective, index: usize) -> u64 {
        layout.fields::<u64>(path, objective) << layout.index_bits | index as u64
    }

    fn index(self, layout: &KeyLayout) -> usize {
        (self & ((1 << layout.index_bits) - 1)) as usize
    }

    fn buffer(beam: &mut Beam) -> &mut Vec<u64> {
        &mut beam.narrow_keys
    }
}

impl Key for (u128, usize) {
    fn new(layout: &KeyLayout, path: &Path, objective: Objective, index: usize) -> Self {
        (layout.fields(path, objective), index)
    }

    fn index(self, _: &KeyLayout) -> usize {
        self.1
    }

    fn buffer(beam: &mut Beam) -> &mut Vec<(u128, usize)> {
        &mut beam.wide_keys
    }
}

/// The best `keep` paths in METEOR's order, as keys that index `paths`.
fn rank<'a, K: Key>(
    paths: impl Iterator<Item = &'a Path>,
    order: &mut Vec<K>,
    layout: &KeyLayout,
    objective: Objective,
    keep: usize,
) {
    order.clear();
    order.extend(
        paths
            .enumerate()
            .map(|(i, p)| K::new(layout, p, objective, i)),
    );
    // Where nothing branched the paths often come out in order already.
    if order.len() > keep && keep > 0 {
        order.select_nth_unstable(keep - 1);
        order.truncate(keep);
        order.sort_unstable();
    } else if !order.is_sorted() {
        order.sort_unstable();
    }
    order.truncate(keep);
}

/// The best alignment: its matches in order of their position in the second sentence.
pub(crate) fn resolve(
    c: &Candidates,
    half_weights: &[u32],
    beam_size: usize,
    objective: Objective,
    beam: &mut Beam,
) -> Vec<Match> {
    let layout = KeyLayout::new(c, beam_size);
    if layout.fits_u64() {
        search::<u64, true>(c, half_weights, beam_size, objective, beam, layout)
    } else {
        search::<(u128, usize), true>(c, half_weights, beam_size, objective, beam, layout)
    }
}

/// The search, with sort keys of type `K`, walking stretches where no path branches when
/// `STRETCHES` (the tests compare it with sorting at every position, as METEOR does).
fn search<K: Key, const STRETCHES: bool>(
    c: &Candidates,
    half_weights: &[u32],
    beam_size: usize,
    objective: Objective,
    beam: &mut Beam,
    layout: KeyLayout,
) -> Vec<Match> {
    let (n1, n2) = (c.cover1.len(), c.cover2.len());
    beam.reset(n1, n2);
    // A candidate that is its position's only one, and whose words no other candidate covers,
    // is part of every alignment: fix it before searching.
    let mut fixed: Vec<Option<Match>> = vec![None; n2];
    for (j, at) in c.at[..n2].iter().enumerate() {
        if let [m] = at.as_slice() {
            let alone = (m.s2_start..m.s2_start + m.s2_len).all(|k| c.cover2[k as usize] == 1)
                && (m.s1_start..m.s1_start + m.s1_len).all(|k| c.cover1[k as usize] == 1);
            if alone {
                fixed[j] = Some(*m);
                Beam::set(&mut beam.bits, beam.offset1, m);
            }
        }
    }
    // With every candidate fixed there is nothing to choose: the search would walk one path.
    // With a beam of 0 METEOR warns "unexpected conditions" at every position and carries its
    // first path on unexpanded: the fixed matches are all it finds.
    let all_fixed = c.at[..n2]
        .iter()
        .zip(&fixed)
        .all(|(at, f)| at.is_empty() || (at.len() == 1 && f.is_some()));
    if all_fixed || beam_size == 0 {
        return fixed_matches(&fixed);
    }
    let start = Path {
        matches1: 0,
        matches2: 0,
        all1: 0,
        all2: 0,
        chunks: 0,
        idx: 0,
        last_end: -1,
        distance: 0,
        slot: 0,
        last_choice: NONE,
    };
    // The beam, best first, and the paths it leads to at the current position, in the order
    // METEOR makes them, each with the index of the candidate it took there (or NONE). A path
    // that takes a match is counted at once but gets its word bits and its place in the choice
    // chain only if it makes the next beam.
    let (mut paths, mut next, mut order) = (
        take(&mut beam.paths),
        take(&mut beam.next),
        take(K::buffer(beam)),
    );
    paths.clear();
    paths.push(start);
    // Where some path may branch: a candidate that is not fixed starts there.
    let branches = |k: usize| fixed[k].is_none() && !c.at[k].is_empty();
    let mut current = 0;
    while current <= n2 {
        next.clear();
        let stretch_end = (STRETCHES
            && current < n2
            && !branches(current)
            && paths.iter().all(|p| p.idx == current))
        .then(|| (current..n2).find(|&k| branches(k)).unwrap_or(n2));
        if let Some(end) = stretch_end {
            // No path can branch before `end`, and every path stands at `current`: each path
            // walks the stretch on its own, and one ranking at its end orders them as METEOR's
            // sort at every position would (docs/meteor-aligner.md §12).
            for mut path in paths.drain(..) {
                for k in current..end {
                    beam.walk_on(&mut path, k, &fixed, half_weights);
                }
                next.push((path, NONE));
            }
            current = end;
        } else {
            for mut path in paths.drain(..) {
                if current == n2 {
                    if path.last_end != -1 {
                        path.chunks += 1;
                    }
                    next.push((path, NONE));
                    continue;
                }
                if Beam::bit(beam.slot(&path), current) {
                    beam.walk_on(&mut path, current, &fixed, half_weights);
                    // METEOR drops a path whose word here is used past its end with no fixed
                    // match beginning at its end (it cannot happen: a used word past `idx`
                    // belongs to a fixed match starting at `idx`).
                    if path.idx > current {
                        next.push((path, NONE));
                    }
                    continue;
                }
                for (i, m) in c.at[current].iter().enumerate() {
                    if beam.is_used(&path, m) {
                        continue;
                    }
                    let mut taken = path;
                    taken.take(m, half_weights[m.stage as usize]);
                    next.push((taken, i as u32));
                    // METEOR adds the distance to the path it branched from, not to the branch:
                    // each later branch and the path that skips carry the distances of the
                    // earlier ones.
                    path.distance += distance(m);
                }
                path.close_chunk();
                path.idx += 1;
                next.push((path, NONE));
            }
            current += 1;
        }
        let keep = if current > n2 { 1 } else { beam_size };
        rank(
            next.iter().map(|(path, _)| path),
            &mut order,
            &layout,
            objective,
            keep,
        );
        for &k in &order {
            let (mut path, taken) = next[k.index(&layout)];
            if taken != NONE {
                let m = c.at[current - 1][taken as usize];
                beam.take(&mut path, &m);
                beam.choices.push((m, path.last_choice));
                path.last_choice = (beam.choices.len() - 1) as u32;
            }
            paths.push(path);
        }
    }
    let best = paths[0];
    (beam.paths, beam.next, *K::buffer(beam)) = (paths, next, order);
    let mut matches = fixed_matches(&fixed);
    let mut choice = best.last_choice;
    while choice != NONE {
        let (m, previous) = beam.choices[choice as usize];
        matches.push(m);
        choice = previous;
    }
    matches.sort_unstable_by_key(|m| m.s2_start);
    matches
}

/// The fixed matches, in position order, with room for the rest (collecting the flattened
/// options grew the vector a match at a time: 3% of the aligner's time).
fn fixed_matches(fixed: &[Option<Match>]) -> Vec<Match> {
    let mut matches = Vec::with_capacity(fixed.len());
    matches.extend(fixed.iter().flatten());
    matches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::random::SplitMix64;

    /// Random candidates: one word a side or phrases (half each: paths then stand at different
    /// positions, which stretches must not skip), from four stages, with words
    /// repeated so that many compete.
    fn candidates(rng: &mut SplitMix64) -> Candidates {
        let mut next = |bound: usize| rng.below(bound) as u32;
        let (n1, n2) = (next(25) as usize, next(25) as usize);
        let mut c = Candidates::default();
        c.reset(n1, n2);
        if n1 == 0 || n2 == 0 {
            return c;
        }
        for _ in 0..next(3 * n2 + 1) {
            let phrase = next(2) == 0;
            let (s1_len, s2_len) = if phrase {
                (1 + next(3), 1 + next(3))
            } else {
                (1, 1)
            };
            let (s1_start, s2_start) = (next(n1), next(n2));
            if (s1_start + s1_len) as usize <= n1 && (s2_start + s2_len) as usize <= n2 {
                c.add(Match {
                    s1_start,
                    s1_len,
                    s2_start,
                    s2_len,
                    stage: next(4) as u8,
                });
            }
        }
        c
    }

    #[test]
    fn stretches_and_narrow_keys_give_the_search_that_sorts_everywhere() {
        let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
        let half_weights = [2, 1, 1, 0];
        let (mut beam, mut reference) = (Beam::default(), Beam::default());
        for case in 0..20000 {
            let c = candidates(&mut rng);
            let beam_size = [1, 2, 5, 40][case % 4];
            let objective = [Objective::MaxCoverage, Objective::MaxAccuracy][case / 4 % 2];
            let layout = KeyLayout::new(&c, beam_size);
            assert!(layout.fits_u64(), "case {case}");
            let expected = search::<(u128, usize), false>(
                &c,
                &half_weights,
                beam_size,
                objective,
                &mut reference,
                layout,
            );
            let fast =
                search::<u64, true>(&c, &half_weights, beam_size, objective, &mut beam, layout);
            assert_eq!(fast, expected, "case {case}: {:?}", c.at);
            let wide = search::<(u128, usize), true>(
                &c,
                &half_weights,
                beam_size,
                objective,
                &mut beam,
                layout,
            );
            assert_eq!(wide, expected, "case {case}");
        }
    }
}
