//! Log-linear ranking and minimum error rate training (Och, ACL 2003): the weights of a
//! log-linear model that maximise a metric of the candidates it ranks first.
//!
//! Each source item (a SemEval fragment, a sentence of an n-best list) has a list of candidates,
//! each with a feature vector and a metric value (its word accuracy, its BLEU...). The model
//! picks, per list, the candidate with the highest score `w · f` (the first on ties). Along a
//! line `w + γ d` each candidate's score is a line in γ, so the picked candidate changes only
//! where the upper envelope of those lines bends: Och's exact line search computes every list's
//! envelope, merges their breakpoints and takes the middle of the best interval. Directions are
//! the coordinate axes and, optionally, random ones; the search repeats from the starting
//! weights and from random restarts (seeded, so a run is reproducible) and keeps the best.
//!
//! Plain Rust: no Arrow here.

use crate::stats::random::SplitMix64;

/// The candidates of one source item: `features` holds `dimensions` values per candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateList {
    pub features: Vec<f64>,
    pub metric: Vec<f64>,
}

impl CandidateList {
    pub fn len(&self) -> usize {
        self.metric.len()
    }

    pub fn is_empty(&self) -> bool {
        self.metric.is_empty()
    }

    fn features_of(&self, candidate: usize, dimensions: usize) -> &[f64] {
        &self.features[candidate * dimensions..(candidate + 1) * dimensions]
    }
}

/// The log-linear score of a feature vector.
pub fn loglinear(weights: &[f64], features: &[f64]) -> f64 {
    weights.iter().zip(features).map(|(w, f)| w * f).sum()
}

/// The candidate `weights` rank first (the first of equals); None for an empty list.
pub fn best(list: &CandidateList, weights: &[f64]) -> Option<usize> {
    let d = weights.len();
    let mut best: Option<(usize, f64)> = None;
    for c in 0..list.len() {
        let score = loglinear(weights, list.features_of(c, d));
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((c, score));
        }
    }
    best.map(|(c, _)| c)
}

/// The summed metric of the candidates `weights` rank first (an empty list adds nothing).
pub fn total(lists: &[CandidateList], weights: &[f64]) -> f64 {
    lists
        .iter()
        .filter_map(|l| best(l, weights).map(|c| l.metric[c]))
        .sum()
}

/// How the search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MertOptions {
    /// Random starting points tried after the given one.
    pub restarts: usize,
    /// Random directions tried in each iteration, besides the coordinate axes.
    pub random_directions: usize,
    /// Seeds the restarts and directions.
    pub seed: u64,
    /// Line searches per starting point, at most.
    pub max_iterations: usize,
}

impl Default for MertOptions {
    fn default() -> Self {
        MertOptions {
            restarts: 20,
            random_directions: 0,
            seed: 0,
            max_iterations: 100,
        }
    }
}

/// What the search found.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuned {
    /// Scaled so that their absolute values sum to 1 (the ranking does not depend on scale).
    pub weights: Vec<f64>,
    /// [`total`] at `weights`.
    pub total: f64,
    /// [`total`] at the starting weights.
    pub initial_total: f64,
}

/// Improvements smaller than this are rounding, not progress.
const EPSILON: f64 = 1e-9;

/// Weights maximising [`total`] over `lists`, starting from `initial` (whose length sets the
/// number of features).
pub fn tune(lists: &[CandidateList], initial: &[f64], options: MertOptions) -> Tuned {
    let d = initial.len();
    let mut rng = SplitMix64::new(options.seed);
    let initial_total = total(lists, initial);
    let mut found = (initial.to_vec(), initial_total);
    for restart in 0..=options.restarts {
        let start: Vec<f64> = if restart == 0 {
            initial.to_vec()
        } else {
            (0..d).map(|_| rng.next_f64() * 2.0 - 1.0).collect()
        };
        let (weights, score) = climb(lists, start, options, &mut rng);
        if score > found.1 + EPSILON {
            found = (weights, score);
        }
    }
    let norm: f64 = found.0.iter().map(|w| w.abs()).sum();
    let weights = if norm > 0.0 {
        found.0.iter().map(|w| w / norm).collect()
    } else {
        found.0
    };
    // Scaling keeps the ranking, but evaluate again rather than assume it.
    let total = total(lists, &weights);
    Tuned {
        weights,
        total,
        initial_total,
    }
}

/// Line searches from `weights` along the best direction each time, until none improves.
fn climb(
    lists: &[CandidateList],
    mut weights: Vec<f64>,
    options: MertOptions,
    rng: &mut SplitMix64,
) -> (Vec<f64>, f64) {
    let d = weights.len();
    let mut score = total(lists, &weights);
    for _ in 0..options.max_iterations {
        let mut directions: Vec<Vec<f64>> = (0..d)
            .map(|i| (0..d).map(|j| f64::from(u8::from(i == j))).collect())
            .collect();
        for _ in 0..options.random_directions {
            let v: Vec<f64> = (0..d).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                directions.push(v.iter().map(|x| x / norm).collect());
            }
        }
        let mut step: Option<(Vec<f64>, f64)> = None;
        for direction in &directions {
            let (gamma, _) = line_search(lists, &weights, direction);
            let moved: Vec<f64> = weights
                .iter()
                .zip(direction)
                .map(|(w, x)| w + gamma * x)
                .collect();
            // The line search's figure is exact in theory; evaluate to be exact in floating point.
            let moved_score = total(lists, &moved);
            if moved_score > step.as_ref().map_or(score, |s| s.1) + EPSILON {
                step = Some((moved, moved_score));
            }
        }
        match step {
            Some((moved, moved_score)) => (weights, score) = (moved, moved_score),
            None => break,
        }
    }
    (weights, score)
}

/// The step γ maximising [`total`] at `weights + γ direction`, and that total: the middle of the
/// best interval between the breakpoints of all lists' envelopes (an unbounded end interval is
/// entered by 1). Of equally good intervals the one nearest γ = 0 wins, so a search that
/// cannot improve stays put.
pub fn line_search(lists: &[CandidateList], weights: &[f64], direction: &[f64]) -> (f64, f64) {
    let d = weights.len();
    let mut base = 0.0;
    let mut events: Vec<(f64, f64)> = Vec::new();
    let mut lines = Vec::new();
    for list in lists.iter().filter(|l| !l.is_empty()) {
        lines.clear();
        lines.extend((0..list.len()).map(|c| {
            let f = list.features_of(c, d);
            Line {
                slope: loglinear(direction, f),
                intercept: loglinear(weights, f),
                candidate: c,
            }
        }));
        let envelope = upper_envelope(&mut lines);
        base += list.metric[envelope[0].1];
        for pair in envelope.windows(2) {
            events.push((pair[1].0, list.metric[pair[1].1] - list.metric[pair[0].1]));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Intervals (-inf, x_0), (x_0, x_1), ..., (x_last, +inf), each with its total; γ = 0 when
    // the interval holds it (no breakpoint there, so it picks as the whole interval does).
    let step = |lo: f64, hi: f64| match (lo.is_finite(), hi.is_finite()) {
        _ if lo < 0.0 && 0.0 < hi => 0.0,
        (true, true) => (lo + hi) / 2.0,
        (false, true) => hi - 1.0,
        (true, false) => lo + 1.0,
        (false, false) => 0.0,
    };
    let first = events.first().map_or(f64::INFINITY, |e| e.0);
    let mut best = (
        step(f64::NEG_INFINITY, first),
        base,
        interval_distance(f64::NEG_INFINITY, first),
    );
    let mut running = base;
    let mut i = 0;
    while i < events.len() {
        let x = events[i].0;
        while i < events.len() && events[i].0 == x {
            running += events[i].1;
            i += 1;
        }
        let next = events.get(i).map_or(f64::INFINITY, |e| e.0);
        let distance = interval_distance(x, next);
        if running > best.1 + EPSILON || (running > best.1 - EPSILON && distance < best.2) {
            best = (step(x, next), running, distance);
        }
    }
    (best.0, best.1)
}

/// How far the open interval (lo, hi) is from 0.
fn interval_distance(lo: f64, hi: f64) -> f64 {
    if lo < 0.0 && 0.0 < hi {
        0.0
    } else if hi <= 0.0 {
        -hi
    } else {
        lo
    }
}

#[derive(Debug, Clone, Copy)]
struct Line {
    slope: f64,
    intercept: f64,
    candidate: usize,
}

/// The upper envelope of `lines` from γ = -∞ to +∞: (where it starts, candidate) per piece, the
/// first starting at -∞. Of identical lines the first candidate is kept, as [`best`] picks it.
fn upper_envelope(lines: &mut [Line]) -> Vec<(f64, usize)> {
    lines.sort_by(|a, b| {
        a.slope
            .total_cmp(&b.slope)
            .then(b.intercept.total_cmp(&a.intercept))
            .then(a.candidate.cmp(&b.candidate))
    });
    let mut hull: Vec<(f64, Line)> = Vec::new();
    for (k, &line) in lines.iter().enumerate() {
        if k > 0 && lines[k - 1].slope == line.slope {
            continue; // a parallel line below (or equal to) the one kept
        }
        loop {
            let Some(&(start, top)) = hull.last() else {
                hull.push((f64::NEG_INFINITY, line));
                break;
            };
            let x = (top.intercept - line.intercept) / (line.slope - top.slope);
            if x <= start {
                hull.pop();
            } else {
                hull.push((x, line));
                break;
            }
        }
    }
    hull.into_iter()
        .map(|(x, line)| (x, line.candidate))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(candidates: &[(&[f64], f64)]) -> CandidateList {
        CandidateList {
            features: candidates
                .iter()
                .flat_map(|(f, _)| f.iter().copied())
                .collect(),
            metric: candidates.iter().map(|(_, m)| *m).collect(),
        }
    }

    #[test]
    fn a_worked_line_search() {
        // Along d = (1, 0) from w = (0, 1) the scores are 1, γ and 2 - γ: all three meet at
        // γ = 1, so the envelope is candidate 2 up to 1 and candidate 1 after.
        let one = list(&[(&[0.0, 1.0], 0.5), (&[1.0, 0.0], 1.0), (&[-1.0, 2.0], 0.0)]);
        let mut lines: Vec<Line> = (0..3)
            .map(|c| {
                let f = one.features_of(c, 2);
                Line {
                    slope: f[0],
                    intercept: f[1],
                    candidate: c,
                }
            })
            .collect();
        assert_eq!(
            upper_envelope(&mut lines),
            vec![(f64::NEG_INFINITY, 2), (1.0, 1)],
            "candidate 0 wins only at γ = 1"
        );
        let (gamma, best) = line_search(&[one.clone()], &[0.0, 1.0], &[1.0, 0.0]);
        assert_eq!(
            (gamma, best),
            (2.0, 1.0),
            "beyond γ = 1 candidate 1 (metric 1) wins: step to 1 + 1"
        );
        assert_eq!(best, total(&[one], &[2.0, 1.0]));
    }

    #[test]
    fn ties_and_parallel_lines_pick_as_best_does() {
        let twins = list(&[(&[1.0], 0.0), (&[1.0], 1.0), (&[0.5], 0.25)]);
        assert_eq!(best(&twins, &[1.0]), Some(0), "the first of equals");
        let (gamma, score) = line_search(std::slice::from_ref(&twins), &[1.0], &[1.0]);
        assert_eq!(score, total(std::slice::from_ref(&twins), &[1.0 + gamma]));
        assert!(
            score == 0.25 && gamma < 0.0,
            "only below 0 does candidate 2 (metric 0.25) beat both twins"
        );
        assert_eq!(best(&list(&[]), &[1.0]), None);
    }

    #[test]
    fn the_exact_line_search_beats_every_sampled_step() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..200 {
            let d = 1 + rng.below(3);
            let lists: Vec<CandidateList> = (0..1 + rng.below(6))
                .map(|_| {
                    let n = rng.below(6);
                    // Few distinct values, so ties and parallels happen.
                    let value = |rng: &mut SplitMix64| (rng.below(5) as f64 - 2.0) / 2.0;
                    CandidateList {
                        features: (0..n * d).map(|_| value(&mut rng)).collect(),
                        metric: (0..n).map(|_| rng.below(3) as f64 / 2.0).collect(),
                    }
                })
                .collect();
            let w: Vec<f64> = (0..d).map(|_| rng.next_f64() - 0.5).collect();
            let dir: Vec<f64> = (0..d).map(|_| rng.next_f64() - 0.5).collect();
            let (gamma, score) = line_search(&lists, &w, &dir);
            let at = |g: f64| {
                total(
                    &lists,
                    &w.iter()
                        .zip(&dir)
                        .map(|(a, b)| a + g * b)
                        .collect::<Vec<_>>(),
                )
            };
            assert!(
                (score - at(gamma)).abs() < 1e-9,
                "the figure is the total at the step"
            );
            for k in -400..=400 {
                let g = f64::from(k) / 20.0;
                assert!(at(g) <= score + 1e-9, "γ = {g} gives {} > {score}", at(g));
            }
            assert!(score >= at(0.0) - 1e-9);
        }
    }

    #[test]
    fn tuning_finds_the_weights_that_pick_the_best_candidates() {
        // Feature 0 favours the good candidate of lists 0 and 1, feature 1 of list 2; only
        // weights with w0 > w1 > 0 and w0 < 1.5 w1 pick all three good ones.
        let lists = vec![
            list(&[(&[1.0, 0.0], 1.0), (&[0.0, 1.0], 0.0)]),
            list(&[(&[0.0, 1.0], 0.0), (&[2.0, 1.0], 1.0)]),
            list(&[(&[2.0, 0.0], 0.0), (&[0.0, 1.5], 0.5), (&[0.0, 3.0], 1.0)]),
        ];
        let tuned = tune(&lists, &[0.0, 1.0], MertOptions::default());
        assert_eq!(tuned.initial_total, 1.0);
        assert_eq!(tuned.total, 3.0);
        let [w0, w1] = [tuned.weights[0], tuned.weights[1]];
        assert!(w0 > w1 && w1 > 0.0 && w0 < 1.5 * w1, "{:?}", tuned.weights);
        assert!((w0.abs() + w1.abs() - 1.0).abs() < 1e-12);
        assert_eq!(
            tune(&lists, &[0.0, 1.0], MertOptions::default()),
            tuned,
            "seeded: the same run twice"
        );
    }
}
