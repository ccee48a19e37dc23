//! sacrebleu's confidence intervals and paired tests (`--confidence`, `--paired-bs`,
//! `--paired-ar`, sacrebleu 2.6's `significance.py`), number for number: the resamples come
//! from numpy's generator ([`crate::stats::numpy_random`]), a bootstrap resample's statistics are
//! summed in float32 row by row as numpy sums them, and the means are numpy's pairwise sums
//! (paired tests) or Python's exact `statistics.mean` (`--confidence`).
//!
//! A system is its segments' statistics, row-major ([`Stats`]); every system and the baseline
//! are resampled with the same indices, as sacrebleu's fixed seed makes them.

use crate::sacrebleu::corpus::{Py, SacreMetric};
use crate::stats::numpy_random::NumpyRng;

/// A system's segment statistics as sacrebleu holds them, `width` numbers a segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub width: usize,
    pub values: Vec<f64>,
}

impl Stats {
    pub fn rows(&self) -> usize {
        self.values.len() / self.width.max(1)
    }

    /// The column sums, as Python adds them (in row order).
    pub fn sums(&self) -> Vec<f64> {
        let mut sums = vec![0.0; self.width];
        for row in self.values.chunks_exact(self.width) {
            sums.iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
        sums
    }

    fn float32(&self) -> Vec<f32> {
        self.values.iter().map(|&x| x as f32).collect()
    }
}

/// One system's figures for one metric (sacrebleu's `Result`).
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    pub score: f64,
    pub p_value: Option<f64>,
    pub mean: Option<Py>,
    pub ci: Option<Py>,
}

/// sacrebleu's tests hold `rows x draws` resample indices or coin flips (as numpy does): the
/// most this crate holds, 2^28 (1 GiB of indices). The drop-in and the SQL functions refuse more
/// with [`check_draws`]'s message.
pub const MAX_DRAWS: u64 = 1 << 28;

/// Whether `rows` segments times `draws` resamples or trials fit in [`MAX_DRAWS`]; if not, what
/// to say.
pub fn check_draws(rows: usize, draws: u64) -> Result<(), String> {
    match (rows as u64).checked_mul(draws) {
        Some(n) if n <= MAX_DRAWS => Ok(()),
        _ => Err(format!(
            "{rows} segments x {draws} draws is more than the 2^28 sacrebleu's test holds in memory"
        )),
    }
}

/// The resample indices of `choice(rows, (resamples, rows))`, one resample after another.
pub fn bootstrap_indices(seed: u128, rows: usize, resamples: usize) -> Vec<u32> {
    let mut rng = NumpyRng::new(seed);
    (0..rows * resamples)
        .map(|_| rng.below(rows as u64) as u32)
        .collect()
}

/// The coin flips of `integers(2, (trials, rows), dtype=bool)`.
pub fn randomization_flips(seed: u128, rows: usize, trials: usize) -> Vec<bool> {
    let mut rng = NumpyRng::new(seed);
    let mut flips = rng.bools();
    (0..rows * trials).map(|_| flips.next_bool()).collect()
}

/// The score of each bootstrap resample (`_bootstrap_resample`): its rows' float32 statistics
/// summed in float32, scored as sacrebleu scores a float32 row.
pub fn resample_scores(metric: &SacreMetric, stats: &Stats, indices: &[u32]) -> Vec<Py> {
    let rows = stats.rows();
    let values = stats.float32();
    let mut sums = vec![0f32; stats.width];
    indices
        .chunks_exact(rows.max(1))
        .map(|resample| {
            sums.iter_mut().for_each(|s| *s = 0.0);
            for &i in resample {
                let row = &values[i as usize * stats.width..(i as usize + 1) * stats.width];
                sums.iter_mut().zip(row).for_each(|(s, x)| *s += x);
            }
            metric.resample_score(&sums)
        })
        .collect()
}

/// A numpy array of Python scores: float32 when every score is a float32, else float64.
#[derive(Debug, Clone, PartialEq)]
pub enum Array {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Array {
    pub fn of(scores: &[Py]) -> Array {
        match scores.iter().all(|s| matches!(s, Py::Float32(_))) {
            true => Array::F32(scores.iter().map(|s| s.value() as f32).collect()),
            false => Array::F64(scores.iter().map(|s| s.value()).collect()),
        }
    }

    fn as_f64(&self) -> Vec<f64> {
        match self {
            Array::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Array::F64(v) => v.clone(),
        }
    }
}

/// numpy's `add.reduce` of a contiguous array: pairwise summation in blocks of 8 (numpy's
/// `pairwise_sum`), in the array's own precision.
fn pairwise_sum<T: Copy + Default + std::ops::Add<Output = T>>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        a.iter().fold(T::default(), |sum, &x| sum + x)
    } else if n <= 128 {
        let mut r: [T; 8] = a[..8].try_into().expect("8 values");
        let full = n - n % 8;
        for block in a[8..full].chunks_exact(8) {
            r.iter_mut().zip(block).for_each(|(r, &x)| *r = *r + x);
        }
        let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[full..] {
            sum = sum + x;
        }
        sum
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise_sum(&a[..half]) + pairwise_sum(&a[half..])
    }
}

/// `estimate_ci` of significance.py: the mean (numpy's, of the sorted scores) and half the
/// central 95% range.
pub fn estimate_ci(scores: &Array) -> (Py, Py) {
    match scores {
        Array::F32(values) => {
            let mut sorted = values.clone();
            sorted.sort_by(f32::total_cmp);
            let (lower, upper) = bounds(&sorted);
            let mean = pairwise_sum(&sorted) / sorted.len() as f32;
            (Py::Float32(mean), Py::Float32(0.5 * (upper - lower)))
        }
        Array::F64(values) => {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let (lower, upper) = bounds(&sorted);
            let mean = pairwise_sum(&sorted) / sorted.len() as f64;
            (Py::Float(mean), Py::Float(0.5 * (upper - lower)))
        }
    }
}

/// The 2.5% and 97.5% order statistics as sacrebleu picks them (n // 40 from either end).
fn bounds<T: Copy>(sorted: &[T]) -> (T, T) {
    let lower = sorted.len() / 40;
    (sorted[lower], sorted[sorted.len() - lower - 1])
}

/// `Score.estimate_ci` of `--confidence`: the same interval, but the mean is Python's exact
/// `statistics.mean` (the correctly rounded mean of the values, in their type).
pub fn estimate_ci_exact(scores: &[Py]) -> (Py, Py) {
    let (_, ci) = estimate_ci(&Array::of(scores));
    let values: Vec<f64> = scores.iter().map(|s| s.value()).collect();
    let mean = exact_mean(&values);
    match Array::of(scores) {
        Array::F32(_) => (Py::Float32(mean as f32), ci),
        Array::F64(_) => (Py::Float(mean), ci),
    }
}

/// `_compute_p_value`: the share of resampled statistics above the real one, with one added
/// to either side. The comparison is in the array's precision.
fn p_value(stats: &Array, real: f64) -> f64 {
    let above = match stats {
        Array::F32(v) => v.iter().filter(|&&x| x > real as f32).count(),
        Array::F64(v) => v.iter().filter(|&&x| x > real).count(),
    };
    (above + 1) as f64 / (stats_len(stats) + 1) as f64
}

fn stats_len(stats: &Array) -> usize {
    match stats {
        Array::F32(v) => v.len(),
        Array::F64(v) => v.len(),
    }
}

/// The baseline of a paired bootstrap: its score and its resamples' scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    pub score: f64,
    pub resampled: Array,
}

impl Baseline {
    pub fn new(metric: &SacreMetric, stats: &Stats, indices: &[u32]) -> Baseline {
        Baseline {
            score: metric.score(&stats.sums()),
            resampled: Array::of(&resample_scores(metric, stats, indices)),
        }
    }
}

/// `_paired_bs_test` for one system against the baseline, resampled with the same `indices`.
pub fn paired_bootstrap(
    metric: &SacreMetric,
    baseline: &Baseline,
    system: &Stats,
    indices: &[u32],
) -> TestResult {
    let score = metric.score(&system.sums());
    let real = (baseline.score - score).abs();
    let scores_baseline = &baseline.resampled;
    let scores_system = Array::of(&resample_scores(metric, system, indices));
    let (mean, ci) = estimate_ci(&scores_system);
    let diffs = match (&scores_system, scores_baseline) {
        (Array::F32(s), Array::F32(b)) => {
            let diffs: Vec<f32> = s.iter().zip(b).map(|(s, b)| (s - b).abs()).collect();
            let mean = pairwise_sum(&diffs) / diffs.len() as f32;
            Array::F32(diffs.iter().map(|d| d - mean).collect())
        }
        (s, b) => {
            let diffs: Vec<f64> = s
                .as_f64()
                .iter()
                .zip(b.as_f64())
                .map(|(s, b)| (s - b).abs())
                .collect();
            let mean = pairwise_sum(&diffs) / diffs.len() as f64;
            Array::F64(diffs.iter().map(|d| d - mean).collect())
        }
    };
    TestResult {
        score,
        p_value: Some(p_value(&diffs, real)),
        mean: Some(mean),
        ci: Some(ci),
    }
}

/// `_paired_ar_test` for one system against the baseline: in each trial every segment's
/// statistics swap sides where its flip is true.
pub fn paired_randomization(
    metric: &SacreMetric,
    baseline: &Stats,
    system: &Stats,
    flips: &[bool],
) -> TestResult {
    let (baseline_score, system_score) =
        (metric.score(&baseline.sums()), metric.score(&system.sums()));
    let real = (baseline_score - system_score).abs();
    // Trial sums: a = Σ system + Σ_flipped (baseline − system), b = Σ baseline − the same.
    let (rows, width) = (baseline.rows(), baseline.width);
    let swing: Vec<f64> = baseline
        .values
        .iter()
        .zip(&system.values)
        .map(|(b, s)| b - s)
        .collect();
    let (system_sums, baseline_sums) = (system.sums(), baseline.sums());
    let (mut flipped, mut a, mut b) = (vec![0.0; width], vec![0.0; width], vec![0.0; width]);
    let differences: Vec<f64> = flips
        .chunks_exact(rows.max(1))
        .map(|trial| {
            flipped.iter_mut().for_each(|x| *x = 0.0);
            for (row, _) in trial.iter().enumerate().filter(|(_, flip)| **flip) {
                flipped
                    .iter_mut()
                    .zip(&swing[row * width..][..width])
                    .for_each(|(f, d)| *f += d);
            }
            a.iter_mut()
                .zip(&system_sums)
                .zip(&flipped)
                .for_each(|((a, s), f)| *a = s + f);
            b.iter_mut()
                .zip(&baseline_sums)
                .zip(&flipped)
                .for_each(|((b, s), f)| *b = s - f);
            (metric.trial_score(&a) - metric.trial_score(&b)).abs()
        })
        .collect();
    TestResult {
        score: system_score,
        p_value: Some(p_value(&Array::F64(differences), real)),
        mean: None,
        ci: None,
    }
}

/// The correctly rounded mean of non-negative finite values (Python's `statistics.mean`, which
/// sums exactly in fractions): an exact big-integer sum divided with round-half-even.
pub fn exact_mean(values: &[f64]) -> f64 {
    let parts: Vec<(u64, i32)> = values
        .iter()
        .filter(|&&x| x != 0.0)
        .map(|&x| decompose(x))
        .collect();
    let Some(low) = parts.iter().map(|&(_, e)| e).min() else {
        return 0.0;
    };
    let mut sum: Vec<u64> = Vec::new();
    for &(mantissa, exponent) in &parts {
        add_shifted(&mut sum, mantissa, (exponent - low) as usize);
    }
    let n = values.len() as u64;
    // Enough quotient bits for a 53-bit mantissa, a rounding bit and more.
    let shift = (bit_length(&[n]) + 66).saturating_sub(bit_length(&sum));
    let mut shifted = Vec::new();
    add_shifted_big(&mut shifted, &sum, shift);
    let (quotient, remainder) = divide(&shifted, n);
    let bits = bit_length(&quotient);
    let drop = bits - 64;
    let top = extract_u64(&quotient, drop);
    let sticky = remainder != 0 || low_bits_nonzero(&quotient, drop);
    let (mut mantissa, rest) = (top >> 11, top & 0x7ff);
    if rest > 0x400 || (rest == 0x400 && (sticky || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    mantissa as f64 * 2f64.powi(11 + drop as i32 + low - shift as i32)
}

/// A positive finite f64 as mantissa × 2^exponent.
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    match exponent {
        0 => (fraction, -1074),
        _ => (fraction | (1 << 52), exponent - 1075),
    }
}

fn add_shifted(sum: &mut Vec<u64>, value: u64, shift: usize) {
    let (limb, bit) = (shift / 64, shift % 64);
    let wide = u128::from(value) << bit;
    let mut carry = 0u128;
    let mut i = limb;
    let mut addend = wide;
    while addend != 0 || carry != 0 {
        if sum.len() <= i {
            sum.resize(i + 1, 0);
        }
        let total = u128::from(sum[i]) + (addend & u128::from(u64::MAX)) + carry;
        sum[i] = total as u64;
        carry = total >> 64;
        addend >>= 64;
        i += 1;
    }
}

fn add_shifted_big(out: &mut Vec<u64>, value: &[u64], shift: usize) {
    for (i, &limb) in value.iter().enumerate() {
        add_shifted(out, limb, i * 64 + shift);
    }
}

fn bit_length(value: &[u64]) -> usize {
    match value.iter().rposition(|&limb| limb != 0) {
        Some(i) => i * 64 + 64 - value[i].leading_zeros() as usize,
        None => 0,
    }
}

fn divide(value: &[u64], divisor: u64) -> (Vec<u64>, u64) {
    let mut quotient = vec![0u64; value.len()];
    let mut remainder = 0u128;
    for i in (0..value.len()).rev() {
        let current = (remainder << 64) | u128::from(value[i]);
        quotient[i] = (current / u128::from(divisor)) as u64;
        remainder = current % u128::from(divisor);
    }
    (quotient, remainder as u64)
}

/// The 64 bits of `value` from bit `from` up.
fn extract_u64(value: &[u64], from: usize) -> u64 {
    let (limb, bit) = (from / 64, from % 64);
    let low = value.get(limb).copied().unwrap_or(0) >> bit;
    let high = if bit == 0 {
        0
    } else {
        value.get(limb + 1).copied().unwrap_or(0) << (64 - bit)
    };
    low | high
}

fn low_bits_nonzero(value: &[u64], below: usize) -> bool {
    let (limb, bit) = (below / 64, below % 64);
    value[..limb.min(value.len())].iter().any(|&l| l != 0)
        || (bit > 0
            && value
                .get(limb)
                .is_some_and(|&l| l & ((1u64 << bit) - 1) != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_mean_rounds_the_exact_sum() {
        assert_eq!(exact_mean(&[1.0, 2.0]), 1.5);
        assert_eq!(exact_mean(&[0.1, 0.2, 0.3]), 0.2);
        // 1e16 + 1 + 1: a float sum loses both ones; the exact mean keeps them.
        assert_eq!(exact_mean(&[1e16, 1.0, 1.0]), (1e16 + 2.0) / 3.0);
        assert_eq!(exact_mean(&[0.0, 0.0]), 0.0);
        assert_eq!(
            exact_mean(&[53.123456789, 53.123456789, 53.123456789]),
            53.123456789
        );
    }

    #[test]
    fn pairwise_sum_blocks_as_numpy() {
        let values: Vec<f64> = (0..1000).map(|i| f64::from(i) * 0.1).collect();
        let sequential: f64 = values.iter().sum();
        assert!((pairwise_sum(&values) - sequential).abs() < 1e-9);
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
    }
}
