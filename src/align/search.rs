//! METEOR's alignment resolution (`Aligner.resolve`): the candidate matches of every stage, the
//! one-to-one matches that nothing else touches fixed first, then a beam search from left to
//! right over the second sentence. Its arithmetic and its quirks are METEOR's on purpose; each
//! is explained in docs/meteor-aligner.md.

use super::{Match, Objective};

/// Candidate matches, listed under the position where they start in the second sentence, in
/// the order the stages found them, with the number of candidates covering each word.
#[derive(Debug, Default)]
pub(super) struct Candidates {
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
#[derive(Debug, Default)]
pub(super) struct Beam {
    bits: Vec<u64>,
    /// u64 words per slot.
    words: usize,
    /// The bit of the first sentence's first word.
    offset1: usize,
    choices: Vec<(Match, u32)>,
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
        (m.s2_start..m.s2_start + m.s2_len).any(|k| Self::bit(bits, k as usize))
            || (m.s1_start..m.s1_start + m.s1_len).any(|k| Self::bit(bits, self.offset1 + k as usize))
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
/// made.
fn key(path: &Path, objective: Objective, index: usize) -> u128 {
    let all = match objective {
        Objective::MaxCoverage => 0,
        Objective::MaxAccuracy => path.all1 + path.all2,
    };
    // Counts are non-negative: matched words and chunks stay below 2^24 (sentences of millions
    // of words), distances below 2^32, paths below 2^24. Flipping the bits of the "more is
    // better" ones orders them descending.
    let more = |x: i32| u128::from(!(x as u32) & 0xff_ffff);
    let less = |x: i32, bits: u32| u128::from(x as u32) & ((1 << bits) - 1);
    more(path.matches1 + path.matches2) << 104
        | more(all) << 80
        | less(path.chunks, 24) << 56
        | less(path.distance, 32) << 24
        | index as u128
}

fn index(key: u128) -> usize {
    (key & 0xff_ffff) as usize
}

/// The best `keep` paths in METEOR's order, as keys whose low 24 bits index `paths`.
fn rank<'a>(paths: impl Iterator<Item = &'a Path>, order: &mut Vec<u128>, objective: Objective, keep: usize) {
    order.clear();
    order.extend(paths.enumerate().map(|(i, p)| key(p, objective, i)));
    // Where nothing branched the paths often come out in order already.
    if !order.is_sorted() {
        if order.len() > keep && keep > 0 {
            order.select_nth_unstable(keep - 1);
            order.truncate(keep);
        }
        order.sort_unstable();
    }
    order.truncate(keep);
}

/// The best alignment: its matches in order of their position in the second sentence.
pub(super) fn resolve(c: &Candidates, half_weights: &[u32], beam_size: usize, objective: Objective, beam: &mut Beam) -> Vec<Match> {
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
    let all_fixed = c.at[..n2].iter().zip(&fixed).all(|(at, f)| at.is_empty() || (at.len() == 1 && f.is_some()));
    if all_fixed || beam_size == 0 {
        return fixed.into_iter().flatten().collect();
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
    // METEOR makes them. A path that takes a match is counted at once but gets its word bits
    // and its place in the choice chain only if it makes the next beam.
    let mut paths = vec![start];
    let mut next: Vec<(Path, Option<Match>)> = Vec::new();
    let mut order = Vec::new();
    for current in 0..=n2 {
        next.clear();
        for mut path in paths.drain(..) {
            if current == n2 {
                if path.last_end != -1 {
                    path.chunks += 1;
                }
                next.push((path, None));
                continue;
            }
            if Beam::bit(beam.slot(&path), current) {
                if current < path.idx {
                    next.push((path, None));
                } else if let Some(m) = fixed[path.idx] {
                    // A fixed match begins here.
                    path.take(&m, half_weights[m.stage as usize]);
                    path.distance += distance(&m);
                    next.push((path, None));
                }
                // Otherwise METEOR drops the path (it cannot happen: a used word past `idx`
                // belongs to a fixed match starting at `idx`).
                continue;
            }
            for m in &c.at[current] {
                if beam.is_used(&path, m) {
                    continue;
                }
                let mut taken = path;
                taken.take(m, half_weights[m.stage as usize]);
                next.push((taken, Some(*m)));
                // METEOR adds the distance to the path it branched from, not to the branch: each
                // later branch and the path that skips carry the distances of the earlier ones.
                path.distance += distance(m);
            }
            path.close_chunk();
            path.idx += 1;
            next.push((path, None));
        }
        let keep = if current == n2 { 1 } else { beam_size };
        rank(next.iter().map(|(path, _)| path), &mut order, objective, keep);
        for &k in &order {
            let (mut path, taken) = next[index(k)];
            if let Some(m) = taken {
                beam.take(&mut path, &m);
                beam.choices.push((m, path.last_choice));
                path.last_choice = (beam.choices.len() - 1) as u32;
            }
            paths.push(path);
        }
    }
    let best = paths[0];
    let mut matches: Vec<Match> = fixed.into_iter().flatten().collect();
    let mut choice = best.last_choice;
    while choice != NONE {
        let (m, previous) = beam.choices[choice as usize];
        matches.push(m);
        choice = previous;
    }
    matches.sort_unstable_by_key(|m| m.s2_start);
    matches
}
