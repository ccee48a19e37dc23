//! Confidence intervals and paired significance tests that stream and merge: the kernels of
//! `bootstrap_ci`, `paired_bootstrap`, `approx_randomization` and of the corpus metrics' tests
//! (`bleu_paired_bootstrap`, ...; docs/significance.md).
//!
//! A row is a few numbers per system (a mean's `x`; a pooled score's numerator and denominator;
//! a corpus metric's sufficient statistics), and a statistic is a function of their sums: a
//! ratio of sums, or the corpus BLEU of summed statistics. Paired rows put system A's numbers
//! first and B's after, in two halves of equal width.
//!
//! Resampling is a Poisson bootstrap: each resample takes every row Poisson(1) times instead of
//! drawing n rows with replacement (the two agree as n grows; sacrebleu draws n). An aggregate
//! sees no stable row number (partitions and batches are cut differently from run to run), so a
//! row is known by its values, and rows with equal values are drawn together: the sum of c
//! independent Poisson(1) counts is one Poisson(c) count, the same distribution. Every count
//! comes from a counter-based generator keyed by (seed, the row's values, the resample), so the
//! results do not depend on partitioning or batching, and the state is the distinct rows with
//! their counts: small for metrics with few distinct values (LeD, PoD and DERP are ratios of
//! small integers), up to one entry a row for continuous ones and for corpus statistics.

use std::cmp::Ordering;
use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use super::random::{GAMMA, SplitMix64, mix};

/// One row of the ratio statistics: system A's (numerator, denominator) and, for the paired
/// tests, system B's.
pub type Row = [f64; 4];

/// The rows seen so far: each distinct row of `width` values with how many times it occurred.
#[derive(Debug, Clone)]
pub struct Sample {
    width: usize,
    /// The distinct rows' values as bits (-0.0 as 0.0), `width` a row, in order of arrival.
    bits: Vec<u64>,
    counts: Vec<u64>,
    /// Row numbers, by the hash of their bits.
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// The row being added.
    key: Vec<u64>,
}

impl Sample {
    /// An empty sample of rows of `width` values.
    pub fn new(width: usize) -> Sample {
        Sample {
            width,
            bits: Vec::new(),
            counts: Vec::new(),
            index: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            key: Vec::with_capacity(width),
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Add a row of `width` values `count` times. False (and nothing added) when a value is not
    /// finite.
    pub fn add(&mut self, row: &[f64], count: u64) -> bool {
        assert_eq!(row.len(), self.width, "a row of the sample's width");
        if !row.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.key.clear();
        self.key
            .extend(row.iter().map(|&v| if v == 0.0 { 0 } else { v.to_bits() }));
        self.add_key(count);
        true
    }

    /// Add `self.key`, a row's bits, `count` times.
    fn add_key(&mut self, count: u64) {
        let Sample {
            width,
            bits,
            counts,
            index,
            hasher,
            key,
        } = self;
        let width = *width;
        let row = |r: u32| &bits[r as usize * width..][..width];
        let hash = hasher.hash_one(&key[..]);
        if let Some(&r) = index.find(hash, |&r| row(r) == &key[..]) {
            counts[r as usize] += count;
            return;
        }
        let r = counts.len() as u32;
        bits.extend_from_slice(key);
        counts.push(count);
        let bits = &*bits;
        index.insert_unique(hash, r, |&r| {
            hasher.hash_one(&bits[r as usize * width..][..width])
        });
    }

    pub fn merge(&mut self, other: &Sample) {
        for (row, &count) in other.bits.chunks_exact(other.width).zip(&other.counts) {
            self.key.clear();
            self.key.extend_from_slice(row);
            self.add_key(count);
        }
    }

    /// How many rows were added.
    pub fn rows(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Bytes of memory held.
    pub fn size(&self) -> usize {
        (self.bits.capacity() + self.counts.capacity()) * 8 + self.index.allocation_size()
    }

    /// The state a partition hands on: each distinct row's values, then its count, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.counts.len() * (self.width + 1) * 8);
        for (row, count) in self.bits.chunks_exact(self.width).zip(&self.counts) {
            row.iter()
                .chain([count])
                .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        }
        bytes
    }

    pub fn merge_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let record = (self.width + 1) * 8;
        if bytes.len() % record != 0 {
            return Err(format!(
                "a sample state of {} bytes is not a whole number of {record}-byte rows",
                bytes.len()
            ));
        }
        for words in bytes.chunks_exact(record) {
            let word =
                |i: usize| u64::from_le_bytes(words[i * 8..][..8].try_into().expect("8 bytes"));
            self.key.clear();
            self.key.extend((0..self.width).map(word));
            self.add_key(word(self.width));
        }
        Ok(())
    }

    /// The distinct rows in a fixed order (sums come out the same to the last bit on every run),
    /// with their counts and the keys of their random draws.
    fn distinct(&self, seed: u64, test: u64) -> Rows {
        let width = self.width;
        let row = |r: usize| &self.bits[r * width..][..width];
        let mut order: Vec<usize> = (0..self.counts.len()).collect();
        order.sort_unstable_by(|&x, &y| row(x).cmp(row(y)));
        Rows {
            width,
            values: order
                .iter()
                .flat_map(|&r| row(r).iter().map(|&b| f64::from_bits(b)))
                .collect(),
            counts: order.iter().map(|&r| self.counts[r]).collect(),
            keys: order
                .iter()
                .map(|&r| row(r).iter().fold(mix(seed ^ test), |h, &b| mix(h ^ b)))
                .collect(),
        }
    }
}

/// Equal when they hold the same distinct rows with the same counts, in whatever order.
impl PartialEq for Sample {
    fn eq(&self, other: &Sample) -> bool {
        fn rows(s: &Sample) -> Vec<(&[u64], u64)> {
            let mut rows: Vec<_> = s
                .bits
                .chunks_exact(s.width)
                .zip(s.counts.iter().copied())
                .collect();
            rows.sort_unstable();
            rows
        }
        self.width == other.width && rows(self) == rows(other)
    }
}

/// A sample's distinct rows, sorted, with their counts and draw keys.
struct Rows {
    width: usize,
    values: Vec<f64>,
    counts: Vec<u64>,
    keys: Vec<u64>,
}

impl Rows {
    fn len(&self) -> usize {
        self.counts.len()
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.width..][..self.width]
    }

    /// Each column's sum over the rows, each row `count` times.
    fn sums(&self) -> Vec<f64> {
        let mut sums = vec![0.0; self.width];
        for i in 0..self.len() {
            add(&mut sums, self.row(i), self.counts[i] as f64);
        }
        sums
    }
}

/// `sums += weight * row`, element-wise.
fn add(sums: &mut [f64], row: &[f64], weight: f64) {
    sums.iter_mut().zip(row).for_each(|(s, x)| *s += weight * x);
}

/// What a test computes from a draw's column sums: (A's statistic, B's), or None when it is not
/// defined for these sums (a denominator of 0).
pub trait Statistic: Fn(&[f64]) -> Option<(f64, f64)> + Sync {}
impl<F: Fn(&[f64]) -> Option<(f64, f64)> + Sync> Statistic for F {}

/// The statistic of [`Row`]s: (Σ num_a / Σ den_a, Σ num_b / Σ den_b), when both denominators
/// are not 0.
pub fn ratios(sums: &[f64]) -> Option<(f64, f64)> {
    (sums[1] != 0.0 && sums[3] != 0.0).then(|| (sums[0] / sums[1], sums[2] / sums[3]))
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

/// The paired bootstrap's answer: the two systems' statistics, B's minus A's with its interval,
/// and the p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    pub a: f64,
    pub b: f64,
    pub delta: Interval,
    pub p_value: f64,
}

/// The approximate randomization test's answer: the two systems' statistics and the p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Randomized {
    pub a: f64,
    pub b: f64,
    pub p_value: f64,
}

/// System A's statistic (of [`Row`]s) with a percentile bootstrap interval at `level` (0.95:
/// the 2.5th and 97.5th percentiles of the resampled statistic). None without rows (or when no
/// resample has a denominator other than 0).
pub fn bootstrap_ci(sample: &Sample, level: f64, resamples: u64, seed: u64) -> Option<Interval> {
    let rows = sample.distinct(seed, BOOTSTRAP);
    let (estimate, _) = ratios(&rows.sums())?;
    let mut values: Vec<f64> = resample(&rows, resamples)
        .chunks_exact(rows.width)
        .filter_map(ratios)
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
/// sacrebleu's paired bootstrap p-value: with d_r = B_r - A_r over the resamples and m the mean
/// of |d_r|, p = (#{r : |d_r| - m > |delta|} + 1) / (R + 1). When delta is exactly 0 (A and B
/// score the same) p = 1, where sacrebleu's formula would give 1 / (R + 1).
pub fn paired_bootstrap(
    sample: &Sample,
    level: f64,
    resamples: u64,
    seed: u64,
    statistic: impl Statistic,
) -> Option<Paired> {
    let rows = sample.distinct(seed, BOOTSTRAP);
    let (a, b) = statistic(&rows.sums())?;
    let delta = b - a;
    let mut deltas: Vec<f64> = resample(&rows, resamples)
        .chunks_exact(rows.width)
        .filter_map(&statistic)
        .map(|(a, b)| b - a)
        .collect();
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

/// The approximate randomization test (sacrebleu's `ar`): in each trial every row's A and B
/// halves swap with probability 1/2; p = (#{t : |B_t - A_t| > |B - A|} + 1) / (T + 1), and 1
/// when B - A is exactly 0.
pub fn approx_randomization(
    sample: &Sample,
    trials: u64,
    seed: u64,
    statistic: impl Statistic,
) -> Option<Randomized> {
    let rows = sample.distinct(seed, RANDOMIZATION);
    let (a, b) = statistic(&rows.sums())?;
    let observed = (b - a).abs();
    if observed == 0.0 {
        return Some(Randomized { a, b, p_value: 1.0 });
    }
    let half = rows.width / 2;
    let stats = sums_per_draw(&rows, trials, |i, draw, sums| {
        // Of the row's `count` copies, `swapped` trade places.
        let count = rows.counts[i];
        let swapped = half_binomial(count, &mut Uniforms::new(rows.keys[i], draw)) as f64;
        let (row, kept) = (rows.row(i), count as f64 - swapped);
        let (row_a, row_b) = row.split_at(half);
        let (sums_a, sums_b) = sums.split_at_mut(half);
        add(sums_a, row_a, kept);
        add(sums_b, row_b, kept);
        add(sums_a, row_b, swapped);
        add(sums_b, row_a, swapped);
    });
    let beyond = stats
        .chunks_exact(rows.width)
        .filter_map(&statistic)
        .filter(|(a, b)| (b - a).abs() > observed)
        .count();
    let p_value = (beyond + 1) as f64 / (trials + 1) as f64;
    Some(Randomized { a, b, p_value })
}

/// The column sums of each resample, one after another: resample r takes every distinct row
/// Poisson(count) times.
fn resample(rows: &Rows, resamples: u64) -> Vec<f64> {
    // One generator per distinct count, shared by the rows of that count.
    let mut generators: Vec<Poisson> = Vec::new();
    let mut by_count: HashMap<u64, usize> = HashMap::new();
    let generator: Vec<usize> = rows
        .counts
        .iter()
        .map(|&count| {
            *by_count.entry(count).or_insert_with(|| {
                generators.push(Poisson::new(count as f64));
                generators.len() - 1
            })
        })
        .collect();
    sums_per_draw(rows, resamples, |i, draw, sums| {
        let weight = generators[generator[i]].draw(&mut Uniforms::new(rows.keys[i], draw));
        if weight > 0 {
            add(sums, rows.row(i), weight as f64);
        }
    })
}

/// Rows a thread takes through all its draws before the next: they stay in cache, where a
/// pass over every row per draw would stream them from memory a thousand times.
const BLOCK: usize = 2048;

/// The column sums of draws (resamples or trials) 0..n, one after another, each over every row
/// in row order via `add(row index, draw key, sums)`; the draws split across the cores.
fn sums_per_draw(rows: &Rows, n: u64, add: impl Fn(usize, u64, &mut [f64]) + Sync) -> Vec<f64> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, n.max(1) as usize) as u64;
    let chunk = n.div_ceil(threads);
    let (add, width) = (&add, rows.width);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let draws: Vec<u64> = (t * chunk..((t + 1) * chunk).min(n))
                        .map(Uniforms::draw_key)
                        .collect();
                    let mut sums = vec![0.0; draws.len() * width];
                    for start in (0..rows.len()).step_by(BLOCK) {
                        let block = start..(start + BLOCK).min(rows.len());
                        for (sums, &draw) in sums.chunks_exact_mut(width).zip(&draws) {
                            block.clone().for_each(|i| add(i, draw, sums));
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
        let mut s = Sample::new(4);
        xs.iter()
            .for_each(|&x| assert!(s.add(&[x, 1.0, 0.0, 1.0], 1)));
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
        let mut from_bytes = Sample::new(4);
        from_bytes.merge_bytes(&a.to_bytes()).unwrap();
        assert_eq!(from_bytes, a);
        a.merge(&b);
        assert_eq!(a, mean_sample(&[0.5, 0.25, 0.5, 0.25, 1.0]));
        assert_eq!(a.rows(), 5);
        assert!(Sample::new(4).merge_bytes(&[0; 7]).is_err());
        assert!(!Sample::new(4).add(&[f64::NAN, 1.0, 0.0, 1.0], 1));
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
        let mut s = Sample::new(4);
        for i in 0..100 {
            let x = f64::from(i % 7);
            s.add(&[x, 1.0, x, 1.0], 1);
        }
        let paired = paired_bootstrap(&s, 0.95, 500, 9, ratios).unwrap();
        assert_eq!(
            (
                paired.delta.estimate,
                paired.delta.low,
                paired.delta.high,
                paired.p_value
            ),
            (0.0, 0.0, 0.0, 1.0)
        );
        assert_eq!(
            approx_randomization(&s, 500, 9, ratios).unwrap().p_value,
            1.0
        );
    }

    #[test]
    fn no_rows_give_none() {
        let empty = Sample::new(4);
        assert_eq!(bootstrap_ci(&empty, 0.95, 10, 1), None);
        assert_eq!(paired_bootstrap(&empty, 0.95, 10, 1, ratios), None);
        assert_eq!(approx_randomization(&empty, 10, 1, ratios), None);
    }
}
