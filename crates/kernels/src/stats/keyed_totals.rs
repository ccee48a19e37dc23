//! Paired tests of a score computed from summed integer totals (a corpus BLEU, chrF or TER), over
//! rows known by a key (their segment number), in constant memory: the kernel of
//! `bleu_paired_bootstrap`, `bleu_approx_randomization` and their chrF and TER twins.
//!
//! Each row's draws come from a generator keyed by (seed, the row's key), so resample r's totals
//! are a sum that any partitioning and batching of the rows gives alike (integer sums), and the
//! state is one pair of totals per draw, however many rows.
//!
//! The bootstrap's work is a matrix product: every row's statistics times its weight in every
//! resample, 2 x 10^11 weighted rows for 20 systems of 10M segments at 1,000 resamples. So a
//! weight is a function of (row, resample) alone, cheap to compute 32 resamples at a time: a
//! 16-bit word of two AES rounds of the row's key and a counter, made a Poisson(1) count by
//! comparing it with the cumulative probabilities scaled to 2^16. On CPUs with AVX-512 VNNI and
//! VAES one instruction adds a statistic of four rows (two when a value exceeds 127), times
//! their weights, to 16 resamples' totals; elsewhere a scalar loop adds the same integers.

use std::borrow::Cow;

use crate::stats::random::{SplitMix64, mix};
use crate::stats::significance::{Paired, paired_answer, randomized_p_value};

/// Which paired test the totals are drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PairedTest {
    Bootstrap,
    Randomization,
}

impl PairedTest {
    /// Keeps the two tests' draws apart under one seed.
    fn salt(self) -> u64 {
        match self {
            PairedTest::Bootstrap => 0xb007,
            PairedTest::Randomization => 0xa770,
        }
    }
}

/// Rows waiting to be added: each a key with its A and B totals, both padded to one width.
#[derive(Debug, Default, Clone)]
pub struct KeyedRows {
    keys: Vec<u64>,
    width: usize,
    /// Each row's A totals then its B totals, `width` each.
    values: Vec<u64>,
}

impl KeyedRows {
    /// Add the row `key` whose totals are `a` and `b` (of any lengths; the shorter are padded
    /// with zeros).
    pub fn push(&mut self, key: u64, a: &[u64], b: &[u64]) {
        let width = a.len().max(b.len());
        if width > self.width {
            *self = self.padded(width);
        }
        self.keys.push(key);
        let start = self.values.len();
        self.values.resize(start + 2 * self.width, 0);
        self.values[start..][..a.len()].copy_from_slice(a);
        self.values[start + self.width..][..b.len()].copy_from_slice(b);
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
    }

    /// The same rows with every total `width` wide.
    fn padded(&self, width: usize) -> KeyedRows {
        KeyedRows {
            keys: self.keys.clone(),
            width,
            values: widened(&self.values, self.width, width, self.keys.len() * 2),
        }
    }
}

/// The totals of the rows as they are (draw 0) and of each draw after it, A's and B's.
///
/// A row's totals are what it adds to a corpus total (its statistics "lifted": for TER, the
/// words go to the place of its number of references), so weighted sums of them are corpus
/// totals; the width grows to the widest row seen.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedTotals {
    test: PairedTest,
    draws: usize,
    seed: u64,
    width: usize,
    /// For draw 0 and each draw after it: A's total, then B's.
    totals: Vec<u64>,
    rows: u64,
}

impl KeyedTotals {
    pub fn new(test: PairedTest, draws: u64, seed: u64) -> KeyedTotals {
        KeyedTotals {
            test,
            draws: draws as usize,
            seed,
            width: 0,
            totals: Vec::new(),
            rows: 0,
        }
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes of memory held.
    pub fn size(&self) -> usize {
        self.totals.capacity() * 8
    }

    /// Make each total `width` wide, padding with zeros.
    fn widen(&mut self, width: usize) {
        if width <= self.width {
            return;
        }
        self.totals = widened(&self.totals, self.width, width, (self.draws + 1) * 2);
        self.width = width;
    }

    /// Add `rows` to draw 0 and, each with its weight or swap, to every draw.
    pub fn add(&mut self, rows: &KeyedRows) {
        if rows.keys.is_empty() {
            return;
        }
        self.widen(rows.width);
        let rows = match rows.width == self.width {
            true => Cow::Borrowed(rows),
            false => Cow::Owned(rows.padded(self.width)),
        };
        let stride = 2 * self.width;
        let (as_they_are, drawn) = self.totals.split_at_mut(stride);
        for row in rows.values.chunks_exact(stride) {
            add_scaled(as_they_are, row, 1);
        }
        let seed = mix(self.seed ^ self.test.salt());
        let keys = rows.keys.iter().map(|&key| mix(seed ^ key));
        match self.test {
            PairedTest::Bootstrap => {
                let keys: Vec<RowKey> = keys.map(RowKey::new).collect();
                add_weighted(&keys, &rows.values, stride, drawn);
            }
            PairedTest::Randomization => {
                for (key, row) in keys.zip(rows.values.chunks_exact(stride)) {
                    add_swapped(key, row, drawn);
                }
            }
        }
        self.rows += rows.keys.len() as u64;
    }

    pub fn merge(&mut self, other: &KeyedTotals) {
        self.widen(other.width);
        if other.width > 0 {
            for (mine, theirs) in self
                .totals
                .chunks_exact_mut(self.width)
                .zip(other.totals.chunks_exact(other.width))
            {
                add_scaled(mine, theirs, 1);
            }
        }
        self.rows += other.rows;
    }

    /// The state a partition hands on: the rows, the width, then the totals, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        [self.rows, self.width as u64]
            .iter()
            .chain(&self.totals)
            .flat_map(|x| x.to_le_bytes())
            .collect()
    }

    pub fn merge_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        let (rows, width) = match words[..] {
            [rows, width, ..] => (rows, width as usize),
            _ => return Err(format!("a state of {} bytes has no header", bytes.len())),
        };
        if bytes.len() % 8 != 0 || words.len() - 2 != (self.draws + 1) * 2 * width {
            return Err(format!(
                "a state of {} bytes is not {} totals of width {width}",
                bytes.len(),
                (self.draws + 1) * 2
            ));
        }
        let other = KeyedTotals {
            test: self.test,
            draws: self.draws,
            seed: self.seed,
            width,
            totals: words[2..].to_vec(),
            rows,
        };
        self.merge(&other);
        Ok(())
    }

    /// A's and B's total of draw `d` (0: the rows as they are).
    fn pair(&self, d: usize) -> (&[u64], &[u64]) {
        self.totals[d * 2 * self.width..][..2 * self.width].split_at(self.width)
    }

    /// A's and B's scores of draw `d`.
    fn scores(&self, d: usize, score: &impl Fn(&[u64]) -> f64) -> (f64, f64) {
        let (a, b) = self.pair(d);
        (score(a), score(b))
    }

    /// The paired bootstrap ([`paired_answer`]) of the score of a total; None without rows.
    pub fn paired_bootstrap(&self, level: f64, score: impl Fn(&[u64]) -> f64) -> Option<Paired> {
        assert_eq!(self.test, PairedTest::Bootstrap);
        if self.rows == 0 {
            return None;
        }
        let (a, b) = self.scores(0, &score);
        let deltas = (1..=self.draws)
            .map(|d| self.scores(d, &score))
            .map(|(a, b)| b - a)
            .collect();
        paired_answer(a, b, deltas, level)
    }

    /// Approximate randomization ([`randomized_p_value`]): A's and B's scores and the p-value;
    /// None without rows.
    pub fn approx_randomization(&self, score: impl Fn(&[u64]) -> f64) -> Option<(f64, f64, f64)> {
        assert_eq!(self.test, PairedTest::Randomization);
        if self.rows == 0 {
            return None;
        }
        let (a, b) = self.scores(0, &score);
        let each = (1..=self.draws).map(|d| self.scores(d, &score));
        Some((a, b, randomized_p_value(a, b, self.draws as u64, each)))
    }
}

/// Add `row` (A's totals then B's) to each trial's totals, A's and B's swapped where the trial's
/// coin says so: the bits of a generator keyed by the row, 64 trials a draw.
fn add_swapped(key: u64, row: &[u64], trials: &mut [u64]) {
    let (a, b) = row.split_at(row.len() / 2);
    let mut draws = SplitMix64::new(key);
    let mut coins = 0;
    for (t, totals) in trials.chunks_exact_mut(row.len()).enumerate() {
        if t % 64 == 0 {
            coins = draws.next_u64();
        }
        let (x, y) = if coins >> (t % 64) & 1 == 1 {
            (b, a)
        } else {
            (a, b)
        };
        let (total_a, total_b) = totals.split_at_mut(a.len());
        add_scaled(total_a, x, 1);
        add_scaled(total_b, y, 1);
    }
}

/// A row's key for its weights: the row's 64-bit key (from the seed, the test and the row's own
/// key) widened to the 128 bits an AES block takes.
#[derive(Debug, Clone, Copy)]
struct RowKey {
    words: [u32; 4],
}

/// The round keys of the hash: hexadecimal digits of π.
const ROUND_1: [u32; 4] = [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344];
const ROUND_2: [u32; 4] = [0xa409_3822, 0x299f_31d0, 0x082e_fa98, 0xec4e_6c89];

/// P(Poisson(1) <= k) x 2^16, rounded to the nearest integer, for k = 0, 1, ... while below
/// 2^16: a uniform 16-bit u gives the count #{k : THRESHOLDS[k] <= u}. Each cumulative
/// probability is within 2^-17 of Poisson's (counts stop at 8). A test recomputes them.
const THRESHOLDS: [u16; 8] = [24109, 48219, 60273, 64292, 65296, 65497, 65531, 65535];

impl RowKey {
    fn new(key: u64) -> RowKey {
        let (low, high) = (key as u32, (key >> 32) as u32);
        RowKey {
            words: [low, high, !low, !high],
        }
    }

    /// The uniforms of draws 8 counter to 8 counter + 7: two AES rounds of the key with the
    /// counter in its first word, as eight 16-bit words. Two rounds spread every bit of the
    /// counter and the key over the whole block.
    fn uniforms(self, counter: u32) -> [u16; 8] {
        let mut state = self.words;
        state[0] ^= counter;
        let bytes = aes_round(aes_round(bytes(state), bytes(ROUND_1)), bytes(ROUND_2));
        std::array::from_fn(|i| u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]))
    }
}

/// The Poisson(1) count of a 16-bit uniform.
fn poisson(uniform: u16) -> u64 {
    THRESHOLDS.iter().take_while(|&&t| t <= uniform).count() as u64
}

/// Four words as an AES block: little-endian, in order (as they lie in memory on x86).
fn bytes(words: [u32; 4]) -> [u8; 16] {
    std::array::from_fn(|i| words[i / 4].to_le_bytes()[i % 4])
}

/// One AES encryption round (SubBytes, ShiftRows, MixColumns, AddRoundKey), as the `aesenc`
/// instruction computes it; the state and key are 16 bytes in memory order.
fn aes_round(state: [u8; 16], key: [u8; 16]) -> [u8; 16] {
    let s = state.map(|b| SBOX[b as usize]);
    let mut out = [0u8; 16];
    for c in 0..4 {
        // ShiftRows: row r of column c comes from column c + r.
        let col: [u8; 4] = std::array::from_fn(|r| s[4 * ((c + r) % 4) + r]);
        let doubled = col.map(xtime);
        for r in 0..4 {
            out[4 * c + r] = doubled[r]
                ^ doubled[(r + 1) % 4]
                ^ col[(r + 1) % 4]
                ^ col[(r + 2) % 4]
                ^ col[(r + 3) % 4]
                ^ key[4 * c + r];
        }
    }
    out
}

/// x times 2 in AES's field GF(2^8).
const fn xtime(x: u8) -> u8 {
    (x << 1) ^ if x & 0x80 != 0 { 0x1b } else { 0 }
}

/// AES's S-box: the inverse in GF(2^8) (x^254), then the affine map.
const SBOX: [u8; 256] = {
    let mut sbox = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        // x^254 by square-and-multiply: x^2, x^4, ..., x^128, multiplied together.
        let (mut inverse, mut power, mut k) = (1u8, x as u8, 0);
        while k < 7 {
            power = multiply(power, power);
            inverse = multiply(inverse, power);
            k += 1;
        }
        let b = inverse;
        sbox[x] =
            b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        x += 1;
    }
    sbox
};

const fn multiply(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    product
}

/// Rows the vector kernels take at once: no 32-bit lane can overflow (2,048 rows x weight 8 x
/// 32,767 < 2^31), and a draw block's weights stay in L2.
const CHUNK: usize = 2048;

/// Add each row of `values` (`stride` totals a row, keyed by `keys`) times its weight in each
/// draw to that draw's totals (`stride` a draw, draw 1 first).
fn add_weighted(keys: &[RowKey], values: &[u64], stride: usize, totals: &mut [u64]) {
    for (keys, values) in keys.chunks(CHUNK).zip(values.chunks(CHUNK * stride)) {
        #[cfg(target_arch = "x86_64")]
        if avx512::available() {
            let largest = values.iter().copied().max().unwrap_or(0);
            // SAFETY: the CPU has the features, the values fit the lanes, the chunk CHUNK rows.
            if largest <= i8::MAX as u64 {
                unsafe { avx512::add_weighted::<4>(keys, values, stride, totals) };
                continue;
            }
            if largest <= i16::MAX as u64 {
                unsafe { avx512::add_weighted::<2>(keys, values, stride, totals) };
                continue;
            }
        }
        add_weighted_scalar(keys, values, stride, totals);
    }
}

fn add_weighted_scalar(keys: &[RowKey], values: &[u64], stride: usize, totals: &mut [u64]) {
    for (key, row) in keys.iter().zip(values.chunks_exact(stride)) {
        // One block of uniforms for 8 draws.
        for (counter, totals) in totals.chunks_mut(8 * stride).enumerate() {
            let uniforms = key.uniforms(counter as u32);
            for (total, &uniform) in totals.chunks_exact_mut(stride).zip(&uniforms) {
                let weight = poisson(uniform);
                if weight > 0 {
                    add_scaled(total, row, weight);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{ROUND_1, ROUND_2, RowKey, THRESHOLDS};

    pub fn available() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("vaes")
    }

    /// [`super::add_weighted_scalar`]'s sums, `ROWS` rows (4: bytes, 2: 16-bit words) a 32-bit
    /// lane, 16 draws a vector.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI, and VAES; every value fits a signed byte (`ROWS` 4)
    /// or word (`ROWS` 2); at most [`super::CHUNK`] rows.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,vaes")]
    pub unsafe fn add_weighted<const ROWS: usize>(
        keys: &[RowKey],
        values: &[u64],
        stride: usize,
        totals: &mut [u64],
    ) {
        let draws = totals.len() / stride;
        let groups = keys.len().div_ceil(ROWS);
        // Statistic j of a group's rows as one word, the first row in the lowest bits; padded
        // to a multiple of 4 statistics.
        let padded = stride.next_multiple_of(4);
        let mut statistics = vec![0u32; groups * padded];
        for (i, row) in values.chunks_exact(stride).enumerate() {
            let group = &mut statistics[i / ROWS * padded..][..stride];
            for (word, &v) in group.iter_mut().zip(row) {
                *word |= (v as u32) << (32 / ROWS * (i % ROWS));
            }
        }
        // A block is 32 draws: each row's AES blocks of 4 counters, eight draws a counter.
        // Unpacking interleaves the rows' counts so that lane 4k + i of `low` holds draw 8k + i
        // of the block, and of `high` draw 8k + 4 + i.
        let rounds = [broadcast(&ROUND_1), broadcast(&ROUND_2)];
        let (mut low, mut high) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        for block in 0..draws.div_ceil(32) {
            let c = (block * 4) as i32;
            #[rustfmt::skip]
            let counters = _mm512_setr_epi32(
                c, 0, 0, 0, c + 1, 0, 0, 0, c + 2, 0, 0, 0, c + 3, 0, 0, 0,
            );
            (low.clear(), high.clear());
            for group in keys.chunks(ROWS) {
                let (first, second) = group_counts::<ROWS>(group, counters, rounds);
                low.push(_mm512_unpacklo_epi16(first, second));
                high.push(_mm512_unpackhi_epi16(first, second));
            }
            // Tiles of at most 24 statistics: their sums, a weight and a broadcast stay in the
            // 32 vector registers.
            let tile = (padded / 4).div_ceil(padded.div_ceil(24)) * 4;
            for (weights, offset) in [(&low, 0), (&high, 4)] {
                let mut start = 0;
                while start < stride {
                    let n = tile.min(padded - start);
                    let at = Tile {
                        weights,
                        statistics: &statistics,
                        padded,
                        start,
                        columns: (stride - start).min(n),
                        first: block * 32 + offset,
                        draws,
                    };
                    match n {
                        24 => at.add::<24, ROWS>(totals, stride),
                        20 => at.add::<20, ROWS>(totals, stride),
                        16 => at.add::<16, ROWS>(totals, stride),
                        12 => at.add::<12, ROWS>(totals, stride),
                        8 => at.add::<8, ROWS>(totals, stride),
                        _ => at.add::<4, ROWS>(totals, stride),
                    }
                    start += n;
                }
            }
        }
    }

    /// `N` statistics from `start` of every group of rows, times the groups' weights, for the
    /// 16 draws of half a block.
    struct Tile<'a> {
        weights: &'a [__m512i],
        statistics: &'a [u32],
        padded: usize,
        start: usize,
        /// How many of the N are real statistics, not padding.
        columns: usize,
        /// Lane 4k + i holds draw `first + 8k + i`.
        first: usize,
        draws: usize,
    }

    impl Tile<'_> {
        #[target_feature(enable = "avx512f,avx512bw,avx512vnni,vaes")]
        fn add<const N: usize, const ROWS: usize>(&self, totals: &mut [u64], stride: usize) {
            let mut sums = [_mm512_setzero_si512(); N];
            for (&w, group) in self
                .weights
                .iter()
                .zip(self.statistics.chunks_exact(self.padded))
            {
                let group = &group[self.start..][..N];
                for (sum, &x) in sums.iter_mut().zip(group) {
                    let x = _mm512_set1_epi32(x as i32);
                    *sum = match ROWS {
                        2 => _mm512_dpwssd_epi32(*sum, w, x),
                        _ => _mm512_dpbusd_epi32(*sum, w, x),
                    };
                }
            }
            let mut lanes = [0i32; 16];
            for (j, sum) in sums.iter().take(self.columns).enumerate() {
                // SAFETY: `lanes` is 64 bytes.
                unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), *sum) };
                for (l, &v) in lanes.iter().enumerate() {
                    let draw = self.first + 8 * (l / 4) + l % 4;
                    if draw < self.draws {
                        totals[draw * stride + self.start + j] += v as u64;
                    }
                }
            }
        }
    }

    /// The counts of a group of rows (missing rows count 0) as two vectors to interleave: for
    /// two rows a row each; for four, two rows each, the first in the low bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,vaes")]
    fn group_counts<const ROWS: usize>(
        group: &[RowKey],
        counters: __m512i,
        rounds: [__m512i; 2],
    ) -> (__m512i, __m512i) {
        let mut counts = [_mm512_setzero_si512(); ROWS];
        for (count, &key) in counts.iter_mut().zip(group) {
            *count = row_counts(key, counters, rounds);
        }
        match ROWS {
            2 => (counts[0], counts[1]),
            _ => (
                _mm512_or_si512(counts[0], _mm512_slli_epi16::<8>(counts[1])),
                _mm512_or_si512(counts[2], _mm512_slli_epi16::<8>(counts[3])),
            ),
        }
    }

    /// A 128-bit block in each of the four lanes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,vaes")]
    fn broadcast(words: &[u32; 4]) -> __m512i {
        // SAFETY: `words` is 16 bytes.
        _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(words.as_ptr().cast()) })
    }

    /// One row's counts in the 32 draws of a block, a 16-bit lane each ([`RowKey::weight`]):
    /// the AES blocks of 4 counters, each eight uniforms.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,vaes")]
    fn row_counts(key: RowKey, counters: __m512i, rounds: [__m512i; 2]) -> __m512i {
        let x = _mm512_xor_si512(broadcast(&key.words), counters);
        let x = _mm512_aesenc_epi128(_mm512_aesenc_epi128(x, rounds[0]), rounds[1]);
        // Each uniform's bucket (its top 6 bits) gives a count and the one threshold that
        // can add to it: [`BUCKETS`].
        let bucket = _mm512_srli_epi16::<10>(x);
        let look_up = |table: &[u16; 64]| {
            // SAFETY: each half of the table is 64 bytes.
            let (low, high) = unsafe {
                let at = |i: usize| _mm512_loadu_si512(table[i..].as_ptr().cast());
                (at(0), at(32))
            };
            _mm512_permutex2var_epi16(low, bucket, high)
        };
        let (base, threshold) = (look_up(&BUCKETS.0), look_up(&BUCKETS.1));
        let one = _mm512_set1_epi16(1);
        let count = _mm512_mask_add_epi16(base, _mm512_cmpge_epu16_mask(x, threshold), base, one);
        match _mm512_cmpge_epu16_mask(x, _mm512_set1_epi16(THRESHOLDS[5] as i16)) {
            0 => count,
            _ => THRESHOLDS[5..].iter().fold(count, |count, &t| {
                let reached = _mm512_cmpge_epu16_mask(x, _mm512_set1_epi16(t as i16));
                _mm512_mask_add_epi16(count, reached, count, one)
            }),
        }
    }

    /// For each of the 64 buckets of a uniform's top 6 bits: the count below the bucket's one
    /// threshold (less one, wrapping, where it has none), and that threshold (the bucket's
    /// start where it has none: every uniform in it reaches it). Thresholds 0 to 4 lie in
    /// different buckets; 5 to 7, in the last bucket with 4, are compared apart.
    pub(crate) const BUCKETS: ([u16; 64], [u16; 64]) = {
        let (mut base, mut threshold) = ([0u16; 64], [0u16; 64]);
        let mut bucket = 0;
        while bucket < 64 {
            let start = (bucket * 1024) as u16;
            let (mut below, mut k) = (0u16, 0);
            while k < 5 && THRESHOLDS[k] < start {
                below += 1;
                k += 1;
            }
            (base[bucket], threshold[bucket]) = match k < 5 && THRESHOLDS[k] >> 10 == bucket as u16
            {
                true => (below, THRESHOLDS[k]),
                false => (below.wrapping_sub(1), start),
            };
            bucket += 1;
        }
        (base, threshold)
    };
}

/// `count` totals of `width` (all of them zeros when `width` is 0), each padded with zeros to
/// `wider`.
fn widened(totals: &[u64], width: usize, wider: usize, count: usize) -> Vec<u64> {
    let mut out = vec![0; count * wider];
    if width > 0 {
        for (old, new) in totals.chunks_exact(width).zip(out.chunks_exact_mut(wider)) {
            new[..width].copy_from_slice(old);
        }
    }
    out
}

/// `total += k * x`, element-wise (`x` may be shorter).
fn add_scaled(total: &mut [u64], x: &[u64], k: u64) {
    total.iter_mut().zip(x).for_each(|(t, &x)| *t += k * x);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's weight in resample `draw + 1`: a Poisson(1) count.
    fn weight(key: RowKey, draw: u32) -> u64 {
        poisson(key.uniforms(draw / 8)[draw as usize % 8])
    }

    /// Rows of (key, a, b) totals: a of width 2, b of width 3 for every fifth (a TER row with
    /// more references, say).
    fn keyed_rows() -> Vec<(u64, Vec<u64>, Vec<u64>)> {
        (0..600u64)
            .map(|k| {
                let a = vec![k % 7, 10 + k % 3];
                let b = match k % 5 {
                    0 => vec![k % 5, 0, 11],
                    _ => vec![k % 4, 10 + k % 3],
                };
                (k * 7919, a, b)
            })
            .collect()
    }

    fn added(
        test: PairedTest,
        draws: u64,
        seed: u64,
        rows: &[(u64, Vec<u64>, Vec<u64>)],
    ) -> KeyedTotals {
        let mut batch = KeyedRows::default();
        rows.iter().for_each(|(k, a, b)| batch.push(*k, a, b));
        let mut totals = KeyedTotals::new(test, draws, seed);
        totals.add(&batch);
        totals
    }

    #[test]
    fn keyed_totals_are_the_same_however_rows_arrive() {
        let score = |t: &[u64]| t[0] as f64 / (t[1] + t.get(2).copied().unwrap_or(0)) as f64;
        for test in [PairedTest::Bootstrap, PairedTest::Randomization] {
            let rows = keyed_rows();
            let whole = added(test, 300, 5, &rows);
            // Backwards, in three parts of batches of 1 to 40 rows, one handed on as bytes.
            let mut parts = [0, 1, 2].map(|_| KeyedTotals::new(test, 300, 5));
            let backwards: Vec<_> = rows.iter().rev().cloned().collect();
            let (mut at, mut i) = (0, 0);
            while at < backwards.len() {
                let n = (1 + i * 7 % 40).min(backwards.len() - at);
                parts[i % 3].merge(&added(test, 300, 5, &backwards[at..at + n]));
                (at, i) = (at + n, i + 1);
            }
            let [mut first, second, third] = parts;
            first.merge(&second);
            first.merge_bytes(&third.to_bytes()).unwrap();
            assert_eq!(first, whole);
            assert_eq!(whole.rows(), 600);
            assert!(first.merge_bytes(&[0; 24]).is_err());
            match test {
                PairedTest::Bootstrap => {
                    let p = whole.paired_bootstrap(0.95, score).unwrap();
                    assert!(p.delta.low <= p.delta.estimate && p.delta.estimate <= p.delta.high);
                    assert_eq!(p.delta.estimate, p.b - p.a);
                    assert_ne!(
                        Some(p),
                        added(test, 300, 6, &rows).paired_bootstrap(0.95, score)
                    );
                }
                PairedTest::Randomization => {
                    let (_, _, p) = whole.approx_randomization(score).unwrap();
                    assert!(0.0 < p && p <= 1.0);
                }
            }
        }
    }

    #[test]
    fn the_vector_kernels_add_what_the_scalar_loop_adds() {
        #[cfg(target_arch = "x86_64")]
        if avx512::available() {
            let mut random = SplitMix64::new(11);
            // Widths of every tile shape, draw counts that are and are not multiples of 32, row
            // counts that fill and do not fill a lane, the largest values each kernel takes.
            for (stride, draws, rows) in [
                (20, 1000, 2048),
                (6, 33, 7),
                (48, 17, 255),
                (2, 1, 1),
                (36, 64, 9),
                (60, 40, 30),
            ] {
                let keys: Vec<RowKey> = (0..rows).map(|_| RowKey::new(random.next_u64())).collect();
                for largest in [i8::MAX as u64, i16::MAX as u64] {
                    let values: Vec<u64> = (0..rows * stride)
                        .map(|i| match i % 5 {
                            0 => largest,
                            _ => random.next_u64() % 100,
                        })
                        .collect();
                    let mut scalar = vec![0; draws * stride];
                    add_weighted_scalar(&keys, &values, stride, &mut scalar);
                    let mut vector = vec![0; draws * stride];
                    // SAFETY: checked above; the values fit the lanes; rows <= CHUNK.
                    match largest {
                        127 => unsafe {
                            avx512::add_weighted::<4>(&keys, &values, stride, &mut vector)
                        },
                        _ => unsafe {
                            avx512::add_weighted::<2>(&keys, &values, stride, &mut vector)
                        },
                    }
                    assert_eq!(
                        vector, scalar,
                        "{stride} wide, {draws} draws, {rows} rows up to {largest}"
                    );
                }
            }
            return;
        }
        eprintln!("no AVX-512 VNNI here: the scalar loop is the only kernel");
    }

    #[test]
    fn the_aes_round_is_the_instructions() {
        // FIPS-197's S-box at a few places, and its round-1 state of Appendix B.
        assert_eq!(
            [SBOX[0], SBOX[1], SBOX[0x53], SBOX[0xff]],
            [0x63, 0x7c, 0xed, 0x16]
        );
        let hex = |s: &str| -> [u8; 16] {
            std::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        };
        let start = hex("193de3bea0f4e22b9ac68d2ae9f84808");
        let key = hex("a0fafe1788542cb123a339392a6c7605");
        assert_eq!(
            aes_round(start, key),
            hex("a49c7ff2689f352b6b5bea43026a5049")
        );
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("aes") {
            use std::arch::x86_64::*;
            let mut random = SplitMix64::new(3);
            for _ in 0..10_000 {
                let (state, key) = (random.next_u64(), random.next_u64());
                let (state, key) = (
                    bytes([state as u32, 7, (state >> 32) as u32, 1]),
                    bytes([key as u32, 2, 9, (key >> 32) as u32]),
                );
                // SAFETY: the CPU has AES-NI; both are 16 bytes.
                let round: [u8; 16] = unsafe {
                    let x = _mm_aesenc_si128(
                        _mm_loadu_si128(state.as_ptr().cast()),
                        _mm_loadu_si128(key.as_ptr().cast()),
                    );
                    std::mem::transmute(x)
                };
                assert_eq!(aes_round(state, key), round);
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_buckets_count_as_the_thresholds_for_every_uniform() {
        let (base, threshold) = avx512::BUCKETS;
        for u in 0..=u16::MAX {
            let b = usize::from(u >> 10);
            let tail = THRESHOLDS[5..].iter().filter(|&&t| t <= u).count() as u16;
            let count = base[b].wrapping_add(u16::from(u >= threshold[b])) + tail;
            let want = THRESHOLDS.iter().filter(|&&t| t <= u).count() as u16;
            assert_eq!(count, want, "u {u}");
        }
    }

    #[test]
    fn the_thresholds_are_poissons_probabilities_scaled_to_2_16() {
        let (mut p, mut cdf) = ((-1f64).exp(), 0.0);
        for (k, &t) in THRESHOLDS.iter().enumerate() {
            cdf += p;
            p /= (k + 1) as f64;
            assert_eq!(f64::from(t), (cdf * 65536.0).round(), "k {k}");
        }
        assert_eq!(((cdf + p) * 65536.0).round(), 65536.0);
    }

    #[test]
    fn weights_are_poisson_counts_independent_across_rows_and_draws() {
        // 400 rows x 500 draws: the shares of 0, 1, 2 and the mean of Poisson(1).
        let keys: Vec<RowKey> = (0..400u64).map(|k| RowKey::new(mix(mix(3) ^ k))).collect();
        let weights: Vec<Vec<u64>> = keys
            .iter()
            .map(|&k| (0..500).map(|d| weight(k, d)).collect())
            .collect();
        let n = 200_000.0;
        let share = |c: u64| weights.iter().flatten().filter(|&&w| w == c).count() as f64 / n;
        assert!((share(0) - 0.3679).abs() < 0.005 && (share(1) - 0.3679).abs() < 0.005);
        assert!((share(2) - 0.1839).abs() < 0.004 && (share(3) - 0.0613).abs() < 0.003);
        let mean = weights.iter().flatten().sum::<u64>() as f64 / n;
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        // Neighbouring draws of a row, and neighbouring rows in a draw, are uncorrelated.
        let correlation = |pairs: Vec<(u64, u64)>| {
            let m = pairs.len() as f64;
            let cov = pairs
                .iter()
                .map(|&(x, y)| (x as f64 - 1.0) * (y as f64 - 1.0))
                .sum::<f64>();
            cov / m
        };
        let draws = weights
            .iter()
            .flat_map(|w| w.windows(2).map(|p| (p[0], p[1])));
        assert!(correlation(draws.collect()).abs() < 0.01);
        let rows = weights
            .windows(2)
            .flat_map(|r| r[0].iter().copied().zip(r[1].iter().copied()));
        assert!(correlation(rows.collect()).abs() < 0.01);
    }

    #[test]
    fn keyed_totals_weigh_each_row_by_its_count_and_swap_by_coins() {
        // One row of totals [1]: each resample's total is the row's count in it.
        let rows: Vec<_> = (0..400).map(|key| (key, vec![1], vec![1])).collect();
        let mut sum = 0;
        for row in &rows {
            let t = added(PairedTest::Bootstrap, 50, 3, std::slice::from_ref(row));
            for d in 1..=50 {
                let (a, b) = t.pair(d);
                assert_eq!(a, b);
                sum += a[0];
            }
        }
        assert!((sum as f64 / 20_000.0 - 1.0).abs() < 0.03);
        // A coin a trial: a row whose sides differ lands on A's side in about half the trials.
        let t = added(PairedTest::Randomization, 1000, 1, &[(4, vec![1], vec![0])]);
        let on_a = (1..=1000).filter(|&d| t.pair(d).0[0] == 1).count();
        assert!((450..=550).contains(&on_a), "{on_a}");
        // Against itself, nothing differs.
        let same = added(
            PairedTest::Randomization,
            10,
            1,
            &[(1, vec![3, 4], vec![3, 4])],
        );
        assert_eq!(
            same.approx_randomization(|t| t[0] as f64).map(|t| t.2),
            Some(1.0)
        );
        assert_eq!(
            KeyedTotals::new(PairedTest::Bootstrap, 10, 1).paired_bootstrap(0.95, |_| 0.0),
            None
        );
    }
}
