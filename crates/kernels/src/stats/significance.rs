//! Confidence intervals and paired significance tests that stream and merge: the kernels of
//! `bootstrap_ci`, `paired_bootstrap` and `approx_randomization` (docs/significance.md).
//!
//! A statistic is a ratio of sums, Σ num / Σ den over the rows: a mean is `(x, 1)` a row, a
//! pooled score (DERP's 1 - Σ l / Σ lmax, say) its own numerator and denominator, which a
//! resample draws together.
//!
//! Resampling is a Poisson bootstrap: each resample takes every row Poisson(1) times instead of
//! drawing n rows with replacement (the two agree as n grows; sacrebleu draws n). An aggregate
//! sees no stable row number (partitions and batches are cut differently from run to run), so a
//! row is known by its values, and rows with equal values are drawn together: the sum of c
//! independent Poisson(1) counts is one Poisson(c) count, the same distribution. Every count
//! comes from a counter-based generator keyed by (seed, the row's values, the resample), so the
//! results do not depend on partitioning or batching, and the state is the distinct rows with
//! their counts: small for metrics with few distinct values (LeD, PoD and DERP are ratios of
//! small integers), up to one entry a row for continuous ones.
//!
//! Corpus metrics (BLEU, chrF, TER) are scores of summed statistics, nearly every row distinct:
//! their tests ([`crate::stats::keyed_totals::KeyedTotals`]) know a row by a key the caller gives (its segment) and keep,
//! instead of rows, one pair of totals per draw.

use std::cmp::Ordering;

use hashbrown::HashMap;

use crate::stats::random::{GAMMA, SplitMix64, mix};

/// One row: system A's (numerator, denominator) and, for the paired tests, system B's.
pub type Row = [f64; 4];

/// The rows seen so far: each distinct row with how many times it occurred.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Sample {
    counts: HashMap<[u64; 4], u64>,
}

/// Bytes of a row in [`Sample::to_bytes`]: its four values, then its count.
const RECORD: usize = 40;

impl Sample {
    /// Add a row `count` times. False (and nothing added) when a value is not finite.
    pub fn add(&mut self, row: Row, count: u64) -> bool {
        if !row.iter().all(|v| v.is_finite()) {
            return false;
        }
        // -0.0 and 0.0 are one value.
        let key = row.map(|v| if v == 0.0 { 0 } else { v.to_bits() });
        *self.counts.entry(key).or_default() += count;
        true
    }

    pub fn merge(&mut self, other: &Sample) {
        for (key, count) in &other.counts {
            *self.counts.entry(*key).or_default() += count;
        }
    }

    /// How many rows were added.
    pub fn rows(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Bytes of memory held.
    pub fn size(&self) -> usize {
        self.counts.allocation_size()
    }

    /// The state a partition hands on: RECORD bytes a distinct row.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.counts.len() * RECORD);
        for (key, count) in &self.counts {
            key.iter()
                .chain([count])
                .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        }
        bytes
    }

    pub fn merge_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.len() % RECORD != 0 {
            return Err(format!(
                "a sample state of {} bytes is not a whole number of {RECORD}-byte rows",
                bytes.len()
            ));
        }
        for record in bytes.chunks_exact(RECORD) {
            let word = |i: usize| {
                u64::from_le_bytes(record[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
            };
            *self
                .counts
                .entry([word(0), word(1), word(2), word(3)])
                .or_default() += word(4);
        }
        Ok(())
    }

    /// The distinct rows in a fixed order (sums come out the same to the last bit on every run),
    /// each with its count and the key of its random draws.
    fn distinct(&self, seed: u64, test: u64) -> Vec<Distinct> {
        let mut rows: Vec<Distinct> = self
            .counts
            .iter()
            .map(|(key, &count)| Distinct {
                row: key.map(f64::from_bits),
                count,
                key: key.iter().fold(mix(seed ^ test), |h, &bits| mix(h ^ bits)),
            })
            .collect();
        rows.sort_unstable_by_key(|d| d.row.map(f64::to_bits));
        rows
    }
}

struct Distinct {
    row: Row,
    count: u64,
    key: u64,
}

/// Sums of one resample (or of the sample itself).
#[derive(Debug, Default, Clone, Copy)]
struct Sums {
    num_a: f64,
    den_a: f64,
    num_b: f64,
    den_b: f64,
}

impl Sums {
    fn of(rows: &[Distinct]) -> Sums {
        let mut sums = Sums::default();
        rows.iter().for_each(|d| sums.add(&d.row, d.count as f64));
        sums
    }

    fn add(&mut self, row: &Row, weight: f64) {
        self.num_a += weight * row[0];
        self.den_a += weight * row[1];
        self.num_b += weight * row[2];
        self.den_b += weight * row[3];
    }

    /// (A's statistic, B's), when both denominators are not 0.
    fn ratios(&self) -> Option<(f64, f64)> {
        (self.den_a != 0.0 && self.den_b != 0.0)
            .then(|| (self.num_a / self.den_a, self.num_b / self.den_b))
    }
}

/// Keeps the draws of the three tests apart under one seed.
const BOOTSTRAP: u64 = 0xb007;
const RANDOMIZATION: u64 = 0xa770;

/// A statistic with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// An estimate with its interval as `0.1234 [0.1200, 0.1300]` (signed: `+0.0100 [...]`);
    /// `-` for none.
    pub fn text(interval: Option<&Interval>, signed: bool) -> String {
        match interval {
            Some(e) if signed => format!("{:+.4} [{:+.4}, {:+.4}]", e.estimate, e.low, e.high),
            Some(e) => format!("{:.4} [{:.4}, {:.4}]", e.estimate, e.low, e.high),
            None => "-".into(),
        }
    }
}

/// The paired bootstrap's answer: A's and B's statistics, B's minus A's with its interval, and
/// the p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    pub a: f64,
    pub b: f64,
    pub delta: Interval,
    pub p_value: f64,
}

/// System A's statistic with a percentile bootstrap interval at `level` (0.95: the 2.5th and
/// 97.5th percentiles of the resampled statistic). None without rows (or when no resample has a
/// denominator other than 0).
pub fn bootstrap_ci(sample: &Sample, level: f64, resamples: u64, seed: u64) -> Option<Interval> {
    let rows = sample.distinct(seed, BOOTSTRAP);
    let (estimate, _) = Sums::of(&rows).ratios()?;
    let mut values: Vec<f64> = resample(&rows, resamples)
        .iter()
        .filter_map(|s| s.ratios())
        .map(|(a, _)| a)
        .collect();
    let (low, high) = percentiles(&mut values, level)?;
    Some(Interval {
        estimate,
        low,
        high,
    })
}

/// B against A on the same rows: delta = B - A, its percentile interval at `level`, and
/// sacrebleu's paired bootstrap p-value ([`paired_answer`]).
pub fn paired_bootstrap(sample: &Sample, level: f64, resamples: u64, seed: u64) -> Option<Paired> {
    let rows = sample.distinct(seed, BOOTSTRAP);
    let (a, b) = Sums::of(&rows).ratios()?;
    let deltas = resample(&rows, resamples)
        .iter()
        .filter_map(|s| s.ratios())
        .map(|(a, b)| b - a)
        .collect();
    paired_answer(a, b, deltas, level)
}

/// The approximate randomization test (sacrebleu's `ar`): in each trial every row's A and B
/// swap with probability 1/2 ([`randomized_p_value`]).
pub fn approx_randomization(sample: &Sample, trials: u64, seed: u64) -> Option<f64> {
    let rows = sample.distinct(seed, RANDOMIZATION);
    let (a, b) = Sums::of(&rows).ratios()?;
    if a == b {
        return Some(1.0);
    }
    let stats = sums_per_draw(&rows, trials, |_, d, draw, sums| {
        // Of the row's `count` copies, `swapped` trade places.
        let swapped = half_binomial(d.count, &mut Uniforms::new(d.key, draw)) as f64;
        let [na, da, nb, db] = d.row;
        sums.add(&d.row, d.count as f64 - swapped);
        sums.add(&[nb, db, na, da], swapped);
    });
    let each = stats.iter().filter_map(|s| s.ratios());
    Some(randomized_p_value(a, b, trials, each))
}

/// The paired bootstrap's answer from A's and B's statistics and the resamples' B_r - A_r:
/// delta = B - A with its percentile interval at `level`, and sacrebleu's p-value: with m the
/// mean of |d_r|, p = (#{r : |d_r| - m > |delta|} + 1) / (R + 1). When delta is exactly 0 (A and
/// B score the same) p = 1, where sacrebleu's formula would give 1 / (R + 1).
pub(crate) fn paired_answer(a: f64, b: f64, mut deltas: Vec<f64>, level: f64) -> Option<Paired> {
    let delta = b - a;
    let spread = deltas.iter().map(|d| d.abs()).sum::<f64>() / deltas.len() as f64;
    let beyond = deltas
        .iter()
        .filter(|d| d.abs() - spread > delta.abs())
        .count();
    let p_value = if delta == 0.0 {
        1.0
    } else {
        (beyond + 1) as f64 / (deltas.len() + 1) as f64
    };
    let (low, high) = percentiles(&mut deltas, level)?;
    Some(Paired {
        a,
        b,
        delta: Interval {
            estimate: delta,
            low,
            high,
        },
        p_value,
    })
}

/// The approximate randomization p-value from A's and B's statistics and the (A_t, B_t) of T
/// trials (those defined): p = (#{t : |B_t - A_t| > |B - A|} + 1) / (T + 1), and 1 when B - A
/// is exactly 0.
pub(crate) fn randomized_p_value(
    a: f64,
    b: f64,
    trials: u64,
    each: impl Iterator<Item = (f64, f64)>,
) -> f64 {
    let observed = (b - a).abs();
    if observed == 0.0 {
        return 1.0;
    }
    let beyond = each.filter(|(a, b)| (b - a).abs() > observed).count();
    (beyond + 1) as f64 / (trials + 1) as f64
}

/// The sums of each resample: resample r takes every distinct row Poisson(count) times.
fn resample(rows: &[Distinct], resamples: u64) -> Vec<Sums> {
    // One generator per distinct count, shared by the rows of that count.
    let mut generators: Vec<Poisson> = Vec::new();
    let mut by_count: HashMap<u64, usize> = HashMap::new();
    let generator: Vec<usize> = rows
        .iter()
        .map(|d| {
            *by_count.entry(d.count).or_insert_with(|| {
                generators.push(Poisson::new(d.count as f64));
                generators.len() - 1
            })
        })
        .collect();
    sums_per_draw(rows, resamples, |i, d, draw, sums| {
        let weight = generators[generator[i]].draw(&mut Uniforms::new(d.key, draw));
        if weight > 0 {
            sums.add(&d.row, weight as f64);
        }
    })
}

/// Rows a thread takes through all its draws before the next: they stay in cache, where a
/// pass over every row per draw would stream them from memory a thousand times.
const BLOCK: usize = 2048;

/// The sums of draws (resamples or trials) 0..n, each over every row in row order via
/// `add(row index, row, draw key, sums)`; the draws split across the cores.
fn sums_per_draw(
    rows: &[Distinct],
    n: u64,
    add: impl Fn(usize, &Distinct, u64, &mut Sums) + Sync,
) -> Vec<Sums> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, n.max(1) as usize) as u64;
    let chunk = n.div_ceil(threads);
    let add = &add;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let draws: Vec<u64> = (t * chunk..((t + 1) * chunk).min(n))
                        .map(Uniforms::draw_key)
                        .collect();
                    let mut sums = vec![Sums::default(); draws.len()];
                    for (b, block) in rows.chunks(BLOCK).enumerate() {
                        for (sums, &draw) in sums.iter_mut().zip(&draws) {
                            for (k, d) in block.iter().enumerate() {
                                add(b * BLOCK + k, d, draw, sums);
                            }
                        }
                    }
                    sums
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a resampling thread panicked"))
            .collect()
    })
}

/// The interval between the ⌊n (1 - level) / 2⌋-th and the (n - 1 - that)-th smallest value:
/// sacrebleu's `estimate_ci` rule (n // 40 at 95 %) for any level.
pub fn percentiles(values: &mut [f64], level: f64) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
    let n = values.len();
    // The small epsilon keeps 1000 * (1 - 0.95) / 2 = 25.000000000000004 at 25 after rounding.
    let lower = ((n as f64 * (1.0 - level) / 2.0) + 1e-9).floor() as usize;
    let lower = lower.min((n - 1) / 2);
    Some((values[lower], values[n - 1 - lower]))
}

/// The random numbers of one (row, resample or trial): a SplitMix64 stream from a state that
/// depends on nothing else, so any thread can draw them in any order.
struct Uniforms;

impl Uniforms {
    /// The key of resample or trial `draw`, computed once for all rows.
    fn draw_key(draw: u64) -> u64 {
        mix(draw.wrapping_add(1).wrapping_mul(GAMMA))
    }

    fn new(row_key: u64, draw_key: u64) -> SplitMix64 {
        SplitMix64::new(mix(row_key ^ draw_key))
    }
}

/// Poisson(lambda) counts: by inversion (a search of the cumulative probabilities, built once)
/// below 100, by Hörmann's transformed rejection (PTRS, as numpy draws them) from 100 on,
/// where it rarely needs its slow path; the constants of a lambda are computed once.
enum Poisson {
    /// The cumulative probabilities of 0, 1, ... up to the first that is 1, or past the first term
    /// that is 0 in f64.
    Inversion { cdf: Vec<f64> },
    Rejection {
        lambda: f64,
        loglam: f64,
        a: f64,
        b: f64,
        ln_inv_alpha: f64,
        vr: f64,
    },
}

impl Poisson {
    fn new(lambda: f64) -> Self {
        if lambda < 100.0 {
            let (mut p, mut k) = ((-lambda).exp(), 0);
            let mut cdf = vec![p];
            // The uniform draws are below 1, so the table may end at its first 1.
            while p > 0.0 && cdf[cdf.len() - 1] < 1.0 {
                k += 1;
                p *= lambda / f64::from(k);
                cdf.push(cdf[cdf.len() - 1] + p);
            }
            return Poisson::Inversion { cdf };
        }
        let b = 0.931 + 2.53 * lambda.sqrt();
        let a = -0.059 + 0.02483 * b;
        let ln_inv_alpha = (1.1239 + 1.1328 / (b - 3.4)).ln();
        Poisson::Rejection {
            lambda,
            loglam: lambda.ln(),
            a,
            b,
            ln_inv_alpha,
            vr: 0.9277 - 3.6224 / (b - 2.0),
        }
    }

    fn draw(&self, u: &mut SplitMix64) -> u64 {
        match *self {
            Poisson::Inversion { ref cdf } => {
                let x = u.next_f64();
                // The count is how many cumulative probabilities are at most x. Counting from
                // 0 takes about lambda + 1 steps, fewer than a binary search for small lambda
                // (a row drawn once is Poisson(1): 18 entries, 1.6 steps on average).
                let at_most = match cdf.len() <= 32 {
                    true => cdf.iter().take_while(|&&c| c <= x).count(),
                    false => cdf.partition_point(|&c| c <= x),
                };
                at_most.min(cdf.len() - 1) as u64
            }
            Poisson::Rejection {
                lambda,
                loglam,
                a,
                b,
                ln_inv_alpha,
                vr,
            } => loop {
                let uu = u.next_f64() - 0.5;
                let v = u.next_f64();
                let us = 0.5 - uu.abs();
                let k = ((2.0 * a / us + b) * uu + lambda + 0.43).floor();
                if us >= 0.07 && v <= vr {
                    return k as u64;
                }
                if k < 0.0 || (us < 0.013 && v > us) {
                    continue;
                }
                if v.ln() + ln_inv_alpha - (a / (us * us) + b).ln()
                    <= -lambda + k * loglam - ln_gamma(k + 1.0)
                {
                    return k as u64;
                }
            },
        }
    }
}

/// ln Γ(x) for x ≥ 1: Stirling's series from 10 on (error below 1e-12), shifted up below.
fn ln_gamma(mut x: f64) -> f64 {
    let mut shift = 0.0;
    while x < 10.0 {
        shift -= x.ln();
        x += 1.0;
    }
    let (x2, ln2pi) = (x * x, (2.0 * std::f64::consts::PI).ln());
    let series = (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * x2)) / x2) / x2) / x;
    shift + (x - 0.5) * x.ln() - x + 0.5 * ln2pi + series
}

/// A Binomial(n, 1/2) count: the set bits of n random bits.
fn half_binomial(n: u64, u: &mut SplitMix64) -> u64 {
    let mut left = n;
    let mut count = 0;
    while left >= 64 {
        count += u64::from(u.next_u64().count_ones());
        left -= 64;
    }
    if left > 0 {
        count += u64::from((u.next_u64() & ((1 << left) - 1)).count_ones());
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_sample(xs: &[f64]) -> Sample {
        let mut s = Sample::default();
        xs.iter()
            .for_each(|&x| assert!(s.add([x, 1.0, 0.0, 1.0], 1)));
        s
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut factorial = 1.0f64;
        for n in 1..60u32 {
            factorial *= f64::from(n);
            let err = (ln_gamma(f64::from(n) + 1.0) - factorial.ln()).abs();
            assert!(err < 1e-10, "ln {n}! off by {err}");
        }
    }

    #[test]
    fn poisson_counts_have_the_right_mean_and_variance() {
        for lambda in [1.0, 3.0, 9.5, 10.0, 40.0, 99.0, 100.0, 1e6] {
            let poisson = Poisson::new(lambda);
            let draws: Vec<f64> = (0..20_000)
                .map(|i| poisson.draw(&mut Uniforms::new(7, Uniforms::draw_key(i))) as f64)
                .collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            let var = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64;
            let se = (lambda / draws.len() as f64).sqrt();
            assert!(
                (mean - lambda).abs() < 5.0 * se,
                "Poisson({lambda}): mean {mean}"
            );
            assert!(
                (var / lambda - 1.0).abs() < 0.1,
                "Poisson({lambda}): variance {var}"
            );
        }
    }

    #[test]
    fn inversion_draws_what_a_binary_search_of_the_whole_table_draws() {
        for lambda in [1.0f64, 2.0, 5.0, 9.5, 30.0, 99.0] {
            let mut whole = vec![(-lambda).exp()];
            let (mut p, mut k) = (whole[0], 0);
            while p > 0.0 {
                k += 1;
                p *= lambda / f64::from(k);
                whole.push(whole[whole.len() - 1] + p);
            }
            let poisson = Poisson::new(lambda);
            for i in 0..20_000 {
                let x = Uniforms::new(11, Uniforms::draw_key(i)).next_f64();
                let want = whole.partition_point(|&c| c <= x).min(whole.len() - 1) as u64;
                assert_eq!(
                    poisson.draw(&mut Uniforms::new(11, Uniforms::draw_key(i))),
                    want
                );
            }
        }
    }

    #[test]
    fn half_binomial_counts_half() {
        for n in [1, 63, 64, 65, 1000] {
            let total: u64 = (0..2000)
                .map(|i| half_binomial(n, &mut Uniforms::new(3, Uniforms::draw_key(i))))
                .sum();
            let mean = total as f64 / 2000.0;
            assert!(
                (mean - n as f64 / 2.0).abs() < 5.0 * (n as f64 / 4.0 / 2000.0).sqrt(),
                "n {n}: {mean}"
            );
        }
    }

    #[test]
    fn percentiles_follow_sacrebleu_at_95() {
        let mut values: Vec<f64> = (0..1000).rev().map(f64::from).collect();
        assert_eq!(percentiles(&mut values, 0.95), Some((25.0, 974.0)));
        assert_eq!(percentiles(&mut [3.0], 0.95), Some((3.0, 3.0)));
    }

    #[test]
    fn state_round_trips_and_merging_is_adding() {
        let (mut a, b) = (mean_sample(&[0.5, 0.25, 0.5]), mean_sample(&[0.25, 1.0]));
        let mut from_bytes = Sample::default();
        from_bytes.merge_bytes(&a.to_bytes()).unwrap();
        assert_eq!(from_bytes, a);
        a.merge(&b);
        assert_eq!(a, mean_sample(&[0.5, 0.25, 0.5, 0.25, 1.0]));
        assert_eq!(a.rows(), 5);
        assert!(Sample::default().merge_bytes(&[0; 7]).is_err());
        assert!(!Sample::default().add([f64::NAN, 1.0, 0.0, 1.0], 1));
    }

    #[test]
    fn the_same_rows_give_the_same_answer_however_they_arrive() {
        let xs: Vec<f64> = (0..300).map(|i| f64::from(i % 17) / 16.0).collect();
        let whole = mean_sample(&xs);
        let mut parts = mean_sample(&xs[200..]);
        parts.merge(&mean_sample(&xs[..200]));
        assert_eq!(
            bootstrap_ci(&whole, 0.95, 200, 1),
            bootstrap_ci(&parts, 0.95, 200, 1)
        );
        assert_ne!(
            bootstrap_ci(&whole, 0.95, 200, 1),
            bootstrap_ci(&whole, 0.95, 200, 2)
        );
    }

    #[test]
    fn identical_systems_give_p_1_and_a_zero_interval() {
        let mut s = Sample::default();
        for i in 0..100 {
            let x = f64::from(i % 7);
            s.add([x, 1.0, x, 1.0], 1);
        }
        let paired = paired_bootstrap(&s, 0.95, 500, 9).unwrap();
        assert_eq!(
            (
                paired.delta.estimate,
                paired.delta.low,
                paired.delta.high,
                paired.p_value
            ),
            (0.0, 0.0, 0.0, 1.0)
        );
        assert_eq!(approx_randomization(&s, 500, 9), Some(1.0));
    }

    #[test]
    fn no_rows_give_none() {
        let empty = Sample::default();
        assert_eq!(bootstrap_ci(&empty, 0.95, 10, 1), None);
        assert_eq!(paired_bootstrap(&empty, 0.95, 10, 1), None);
        assert_eq!(approx_randomization(&empty, 10, 1), None);
    }
}
