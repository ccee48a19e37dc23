//! datasketch 2.0's MinHash LSH (`lsh.py`): the band count b and band size r its `MinHashLSH`
//! chooses for a threshold, and the band keys it files signatures under, so that the pairs
//! sharing a key are the candidates `query` returns.

/// `_optimal_param(threshold, num_perm, fp_weight, fn_weight)`: the (b, r) with b·r ≤ num_perm
/// that minimises fp_weight · P(false positive) + fn_weight · P(false negative), each the
/// integral of the S-curve 1 - (1 - s^r)^b below the threshold (or of its complement above).
/// The search order is datasketch's (b, then r, ascending; only a strictly smaller error
/// replaces the best), so ties go as they go there.
pub fn optimal_params(threshold: f64, num_perm: u32, fp_weight: f64, fn_weight: f64) -> (u32, u32) {
    let mut min_error = f64::INFINITY;
    let mut best = (0, 0);
    for b in 1..=num_perm {
        for r in 1..=num_perm / b {
            let (bf, rf) = (f64::from(b), f64::from(r));
            // Python's `s ** float(r)`, C's pow: the same function as f64::powf.
            let collide = |s: f64| 1.0 - (1.0 - s.powf(rf)).powf(bf);
            let false_positive = integrate(collide, 0.0, threshold);
            let false_negative = integrate(
                |s| 1.0 - (1.0 - (1.0 - s.powf(rf)).powf(bf)),
                threshold,
                1.0,
            );
            let error = false_positive * fp_weight + false_negative * fn_weight;
            if error < min_error {
                min_error = error;
                best = (b, r);
            }
        }
    }
    best
}

/// QUADPACK's 21-point Gauss-Kronrod rule (`dqk21`): abscissae from the outside in (the even
/// ones, 1-based, are the 10-point Gauss rule's), Kronrod and Gauss weights, in QUADPACK's
/// decimals (rounded to the same doubles as its Fortran and scipy's C).
#[allow(clippy::excessive_precision)]
const XGK: [f64; 11] = [
    0.995_657_163_025_808_080_735_527_280_689_003,
    0.973_906_528_517_171_720_077_964_012_084_452,
    0.930_157_491_355_708_226_001_207_180_059_508,
    0.865_063_366_688_984_510_732_096_688_423_493,
    0.780_817_726_586_416_897_063_717_578_345_042,
    0.679_409_568_299_024_406_234_327_365_114_874,
    0.562_757_134_668_604_683_339_000_099_272_694,
    0.433_395_394_129_247_190_799_265_943_165_784,
    0.294_392_862_701_460_198_131_126_603_103_866,
    0.148_874_338_981_631_210_884_826_001_129_720,
    0.0,
];
#[allow(clippy::excessive_precision)]
const WGK: [f64; 11] = [
    0.011_694_638_867_371_874_278_064_396_062_192,
    0.032_558_162_307_964_727_478_818_972_459_390,
    0.054_755_896_574_351_996_031_381_300_244_580,
    0.075_039_674_810_919_952_767_043_140_916_190,
    0.093_125_454_583_697_605_535_065_465_083_366,
    0.109_387_158_802_297_641_899_210_590_325_805,
    0.123_491_976_262_065_851_077_208_703_211_400,
    0.134_709_217_311_473_325_928_054_001_771_707,
    0.142_775_938_577_060_080_797_094_273_138_717,
    0.147_739_104_901_338_491_374_841_515_972_068,
    0.149_445_554_002_916_905_664_936_468_389_821,
];
#[allow(clippy::excessive_precision)]
const WG: [f64; 5] = [
    0.066_671_344_308_688_137_593_568_809_893_332,
    0.149_451_349_150_580_593_145_776_339_657_697,
    0.219_086_362_515_982_043_995_534_934_228_163,
    0.269_266_719_309_996_355_091_226_921_569_469,
    0.295_524_224_714_752_870_173_892_994_651_338,
];

/// `dqk21`: the integral of `f` over [a, b] and QUADPACK's error estimate, with its operations
/// in its order (the sums decide ties between (b, r) candidates, as in datasketch).
fn qk21(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let epmach = f64::EPSILON;
    let uflow = f64::MIN_POSITIVE;
    let centr = 0.5 * (a + b);
    let hlgth = 0.5 * (b - a);
    let dhlgth = hlgth.abs();
    let mut resg = 0.0;
    let fc = f(centr);
    let mut resk = WGK[10] * fc;
    let mut resabs = resk.abs();
    let (mut fv1, mut fv2) = ([0.0; 10], [0.0; 10]);
    for (j, &wg) in WG.iter().enumerate() {
        let jtw = 2 * j + 1;
        let absc = hlgth * XGK[jtw];
        let (fval1, fval2) = (f(centr - absc), f(centr + absc));
        (fv1[jtw], fv2[jtw]) = (fval1, fval2);
        let fsum = fval1 + fval2;
        resg += wg * fsum;
        resk += WGK[jtw] * fsum;
        resabs += WGK[jtw] * (fval1.abs() + fval2.abs());
    }
    for j in 0..5 {
        let jtwm1 = 2 * j;
        let absc = hlgth * XGK[jtwm1];
        let (fval1, fval2) = (f(centr - absc), f(centr + absc));
        (fv1[jtwm1], fv2[jtwm1]) = (fval1, fval2);
        let fsum = fval1 + fval2;
        resk += WGK[jtwm1] * fsum;
        resabs += WGK[jtwm1] * (fval1.abs() + fval2.abs());
    }
    let reskh = resk * 0.5;
    let mut resasc = WGK[10] * (fc - reskh).abs();
    for j in 0..10 {
        resasc += WGK[j] * ((fv1[j] - reskh).abs() + (fv2[j] - reskh).abs());
    }
    let result = resk * hlgth;
    resabs *= dhlgth;
    resasc *= dhlgth;
    let mut abserr = ((resk - resg) * hlgth).abs();
    if resasc != 0.0 && abserr != 0.0 {
        abserr = resasc * (200.0 * abserr / resasc).powf(1.5).min(1.0);
    }
    if resabs > uflow / (50.0 * epmach) {
        abserr = abserr.max(epmach * 50.0 * resabs);
    }
    (result, abserr)
}

/// ∫ f over [a, b] as scipy's `quad` gives it when its first step suffices (QUADPACK's
/// `dqagse` returns the whole interval's 21-point estimate when its error is within
/// 1.49e-8, scipy's default tolerance): bit for bit, so exact ties between candidates (b, r)
/// fall as in datasketch. Otherwise halving each part until its error estimate is below its
/// share of 1e-13: more precise than `dqagse`'s extrapolation, which only a near tie (within
/// its tolerance) could tell apart; tests/dedup.rs compares the choices with datasketch's on
/// a grid. (The integrands are probabilities over [0, 1], whose rounding noise rules out a
/// relative tolerance for the halving.)
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const TOLERANCE: f64 = 1.49e-8;
    let (result, abserr) = qk21(&f, a, b);
    let bound = TOLERANCE.max(TOLERANCE * result.abs());
    if abserr <= bound || abserr == 0.0 {
        return result;
    }
    refine(&f, a, b, (result, abserr), 1e-13, 0)
}

fn refine(
    f: &impl Fn(f64) -> f64,
    a: f64,
    b: f64,
    part: (f64, f64),
    tolerance: f64,
    depth: u32,
) -> f64 {
    let (value, error) = part;
    if error <= tolerance || depth == 40 {
        return value;
    }
    let mid = (a + b) / 2.0;
    let (left, right) = (qk21(f, a, mid), qk21(f, mid, b));
    refine(f, a, mid, left, tolerance / 2.0, depth + 1)
        + refine(f, mid, b, right, tolerance / 2.0, depth + 1)
}

/// The keys `MinHashLSH` files a signature under: band i is values [i·r, (i+1)·r), each value
/// big-endian in `width` bytes (4 for affine32's uint32, 8 for uint64), as
/// `bytes(hs.byteswap().data)` writes them on a little-endian machine. `b · r` values must exist.
pub fn band_keys(signature: &[u64], width: usize, b: usize, r: usize) -> Vec<Vec<u8>> {
    (0..b)
        .map(|band| {
            signature[band * r..(band + 1) * r]
                .iter()
                .flat_map(|&v| v.to_be_bytes()[8 - width..].to_vec())
                .collect()
        })
        .collect()
}

/// The band keys of [`band_keys`] as 128-bit hashes (xxh3-128, seeded by `namespace` and the
/// band's position, so that equal values in different bands or namespaces never share a key):
/// fixed-size records for grouping rows by band. Two signatures share a hash where they share
/// a key, but for a collision of 128-bit hashes.
pub fn band_hashes(
    signature: &[u64],
    width: usize,
    b: usize,
    r: usize,
    namespace: u64,
) -> impl Iterator<Item = u128> {
    band_keys(signature, width, b, r)
        .into_iter()
        .enumerate()
        .map(move |(band, key)| {
            twox_hash::XxHash3_128::oneshot_with_seed(namespace << 32 | band as u64, &key)
        })
}

/// `MinHash.jaccard`: the share of positions where two signatures agree (None when their
/// lengths differ, where datasketch raises).
pub fn signature_jaccard<T: PartialEq>(a: &[T], b: &[T]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    Some(equal as f64 / a.len() as f64)
}

/// The Jaccard similarity of two token sets, |A ∩ B| / |A ∪ B| (None when both are empty).
pub fn set_jaccard(a: &[&str], b: &[&str]) -> Option<f64> {
    let a: hashbrown::HashSet<&str> = a.iter().copied().collect();
    let b: hashbrown::HashSet<&str> = b.iter().copied().collect();
    let union = a.union(&b).count();
    (union > 0).then(|| a.intersection(&b).count() as f64 / union as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_polynomials_and_the_s_curve() {
        let cubic = integrate(|s| s * s * s, 0.0, 0.5);
        assert!((cubic - 0.015_625).abs() < 1e-17, "{cubic}");
        // r = 1, b = 1: the curve is s; below 0.3 it integrates to 0.045.
        let (b, r) = (1.0f64, 1.0f64);
        let fp = integrate(|s: f64| 1.0 - (1.0 - s.powf(r)).powf(b), 0.0, 0.3);
        assert!((fp - 0.045).abs() < 1e-16, "{fp}");
    }

    #[test]
    fn datasketch_defaults() {
        // MinHashLSH(threshold=0.5, num_perm=128) and (0.8, 128), as datasketch 2.0 sets b, r.
        assert_eq!(optimal_params(0.5, 128, 0.5, 0.5), (25, 5));
        assert_eq!(optimal_params(0.8, 128, 0.5, 0.5), (9, 13));
        assert_eq!(optimal_params(0.9, 128, 0.5, 0.5), (5, 25));
    }

    #[test]
    fn band_keys_are_big_endian_at_the_signature_width() {
        let keys = band_keys(&[1, 0x0102_0304, 7, 8], 4, 2, 2);
        assert_eq!(
            keys,
            [vec![0, 0, 0, 1, 1, 2, 3, 4], vec![0, 0, 0, 7, 0, 0, 0, 8]]
        );
        assert_eq!(band_keys(&[1], 8, 1, 1), [vec![0, 0, 0, 0, 0, 0, 0, 1]]);
    }

    #[test]
    fn jaccards() {
        assert_eq!(signature_jaccard(&[1, 2, 3, 4], &[1, 2, 0, 4]), Some(0.75));
        assert_eq!(signature_jaccard(&[1, 2], &[1]), None);
        assert_eq!(set_jaccard(&["a", "b", "b"], &["b", "c"]), Some(1.0 / 3.0));
        assert_eq!(set_jaccard(&[], &[]), None);
    }
}
