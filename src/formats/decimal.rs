//! Fixed-point decimal text of floats, as `format!("{x:.d$}")` writes it (and Python's
//! `"%.*f"`): the binary value rounded exactly, ties to even.

/// Append `x` with `digits` digits after the point, byte for byte as `write!(out, "{x:.digits$}")`.
///
/// Scores in [0, 2^52) with at most 19 digits are rounded here with integer arithmetic: std takes
/// its exact-bignum path for many of them (those whose binary value ends within the digits asked
/// for, such as every multiple of 1/16 at 4 digits), several times slower (5% of `lepod` against
/// under 1% here). Anything else goes to std.
pub fn push_fixed(out: &mut Vec<u8>, x: f64, digits: usize) {
    match scaled_and_rounded(x, digits) {
        Some(scaled) => {
            let unit = 10u128.pow(digits as u32);
            let mut text = itoa::Buffer::new();
            out.extend_from_slice(text.format((scaled / unit) as u64).as_bytes());
            if digits > 0 {
                out.push(b'.');
                let fraction = text.format((scaled % unit) as u64);
                out.extend(std::iter::repeat_n(b'0', digits - fraction.len()));
                out.extend_from_slice(fraction.as_bytes());
            }
        }
        None => {
            use std::io::Write;
            write!(out, "{x:.digits$}").expect("writing to a Vec cannot fail");
        }
    }
}

/// round(x * 10^digits), ties to even, computed exactly; None outside [0, 2^52) or past 19
/// digits (and for -0.0, which std writes with its sign).
fn scaled_and_rounded(x: f64, digits: usize) -> Option<u128> {
    if !(x.is_sign_positive() && x < (1u64 << 52) as f64 && digits <= 19) {
        return None;
    }
    // x = mantissa * 2^-shift exactly; the shift is positive below 2^52.
    let bits = x.to_bits();
    let (biased, fraction) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (mantissa, shift) = match biased {
        0 => (fraction, 1074),
        _ => (fraction | 1 << 52, 1075 - biased),
    };
    // Below 2^53 * 10^19 < 2^117: no overflow.
    let scaled = u128::from(mantissa) * 10u128.pow(digits as u32);
    if shift >= 128 {
        // The value is below 2^117 * 2^-128: less than half a unit, so it rounds to 0.
        return Some(0);
    }
    let (whole, rest, half) = (
        scaled >> shift,
        scaled & ((1 << shift) - 1),
        1u128 << (shift - 1),
    );
    Some(whole + u128::from(rest > half || (rest == half && whole % 2 == 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn std_text(x: f64, digits: usize) -> String {
        format!("{x:.digits$}")
    }

    fn ours(x: f64, digits: usize) -> String {
        let mut out = Vec::new();
        push_fixed(&mut out, x, digits);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_what_std_writes() {
        // Ties (to even), exact binary values, the edges of the integer path and beyond it.
        let special = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.125,
            0.375,
            0.0625,
            1.0 / 3.0,
            2.0 / 3.0,
            0.99995,
            0.999949999,
            9.9999,
            f64::MIN_POSITIVE,
            5e-324,
            1e-300,
            4503599627370495.5,
            4503599627370496.0,
            1e300,
            -0.25,
            -1.5,
            f64::INFINITY,
            f64::NAN,
            f64::MAX,
        ];
        for &x in &special {
            for digits in 0..=22 {
                assert_eq!(
                    ours(x, digits),
                    std_text(x, digits),
                    "{x:e} at {digits} digits"
                );
            }
        }
        // LeD and PoD are means of ratios of small counts; and random bit patterns below 2^52.
        let mut rng = crate::stats::random::SplitMix64::new(0x9e37_79b9_7f4a_7c15);
        let mut next = || rng.next_u64();
        for _ in 0..200_000 {
            let (a, b, c, d) = (next() % 60, next() % 60 + 1, next() % 60, next() % 60 + 1);
            let ratio = (a as f64 / b as f64 + c as f64 / d as f64) / 2.0;
            let random = f64::from_bits(next() % 0x4330_0000_0000_0000);
            let digits = (next() % 21) as usize;
            for x in [ratio, random] {
                assert_eq!(
                    ours(x, digits),
                    std_text(x, digits),
                    "{x:e} at {digits} digits"
                );
            }
        }
    }
}
