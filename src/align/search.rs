//! METEOR's alignment resolution (`Aligner.resolve`): the candidate matches of every stage, the
//! one-to-one matches that nothing else touches fixed first, then a beam search from left to
//! right over the second sentence. Its arithmetic and its quirks are METEOR's on purpose; each
//! is explained in docs/meteor-aligner.md.

use std::cmp::Ordering;

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
#[derive(Debug, Clone)]
struct Path {
    chosen: Vec<Option<Match>>,
    used1: Vec<bool>,
    used2: Vec<bool>,
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
}

impl Path {
    fn is_used(&self, m: &Match) -> bool {
        (m.s2_start..m.s2_start + m.s2_len).any(|k| self.used2[k as usize])
            || (m.s1_start..m.s1_start + m.s1_len).any(|k| self.used1[k as usize])
    }

    fn set_used(&mut self, m: &Match) {
        (m.s2_start..m.s2_start + m.s2_len).for_each(|k| self.used2[k as usize] = true);
        (m.s1_start..m.s1_start + m.s1_len).for_each(|k| self.used1[k as usize] = true);
    }

    /// Count a match into the path (everything but its distance, which METEOR adds elsewhere).
    fn take(&mut self, m: &Match, weight: f64) {
        self.matches1 = (f64::from(self.matches1) + f64::from(m.s1_len) * weight) as i32;
        self.matches2 = (f64::from(self.matches2) + f64::from(m.s2_len) * weight) as i32;
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

fn distance(m: &Match) -> i32 {
    (m.s2_start as i32 - m.s1_start as i32).abs()
}

/// METEOR's comparators: more (weighted) words matched first; for `maxacc` then more words
/// matched at all; then fewer chunks; then the smaller distance. Sorting is stable, so ties
/// keep the order the paths were made in.
fn compare(objective: Objective) -> impl Fn(&Path, &Path) -> Ordering {
    move |x, y| {
        let weighted = (y.matches1 + y.matches2).cmp(&(x.matches1 + x.matches2));
        let all = match objective {
            Objective::MaxCoverage => Ordering::Equal,
            Objective::MaxAccuracy => (y.all1 + y.all2).cmp(&(x.all1 + x.all2)),
        };
        weighted.then(all).then(x.chunks.cmp(&y.chunks)).then(x.distance.cmp(&y.distance))
    }
}

/// The best alignment: its matches in order of their position in the second sentence.
pub(super) fn resolve(c: &Candidates, weights: &[f64], beam: usize, objective: Objective) -> Vec<Match> {
    let (n1, n2) = (c.cover1.len(), c.cover2.len());
    let mut start = Path {
        chosen: vec![None; n2],
        used1: vec![false; n1],
        used2: vec![false; n2],
        matches1: 0,
        matches2: 0,
        all1: 0,
        all2: 0,
        chunks: 0,
        idx: 0,
        last_end: -1,
        distance: 0,
    };
    // A candidate that is its position's only one, and whose words no other candidate covers,
    // is part of every alignment: fix it before searching.
    for (j, at) in c.at[..n2].iter().enumerate() {
        if let [m] = at.as_slice() {
            let alone = (m.s2_start..m.s2_start + m.s2_len).all(|k| c.cover2[k as usize] == 1)
                && (m.s1_start..m.s1_start + m.s1_len).all(|k| c.cover1[k as usize] == 1);
            if alone {
                start.chosen[j] = Some(*m);
                start.set_used(m);
            }
        }
    }
    let compare = compare(objective);
    let mut next = vec![start];
    for current in 0..=n2 {
        let mut paths = std::mem::take(&mut next);
        paths.sort_by(&compare);
        let mut kept = paths.into_iter();
        for mut path in kept.by_ref().take(beam) {
            if current == n2 {
                if path.last_end != -1 {
                    path.chunks += 1;
                }
                next.push(path);
                continue;
            }
            if path.used2[current] {
                if current < path.idx {
                    next.push(path);
                } else if let Some(m) = path.chosen[path.idx] {
                    // A fixed match begins here.
                    path.take(&m, weights[m.stage as usize]);
                    path.distance += distance(&m);
                    next.push(path);
                }
                // Otherwise METEOR drops the path (it cannot happen with consistent input).
                continue;
            }
            for m in &c.at[current] {
                if path.is_used(m) {
                    continue;
                }
                let mut taken = path.clone();
                taken.set_used(m);
                taken.chosen[current] = Some(*m);
                taken.take(m, weights[m.stage as usize]);
                // METEOR adds the distance to the path it branched from, not to the branch: each
                // later branch and the path that skips carry the distances of the earlier ones.
                path.distance += distance(m);
                next.push(taken);
            }
            path.close_chunk();
            path.idx += 1;
            next.push(path);
        }
        if next.is_empty() {
            // METEOR warns "unexpected conditions" and carries its best unexpanded path on.
            next.extend(kept.next());
        }
    }
    next.sort_by(&compare);
    next.into_iter().next().map(|best| best.chosen.into_iter().flatten().collect()).unwrap_or_default()
}
