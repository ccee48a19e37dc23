//! Numbers as Python prints them, for the drop-ins of Python tools.

/// `f"{x:.{decimals}f}"`: fixed-point with `decimals` digits, and `nan`, `inf`, `-inf` where
/// Rust's formatting prints `NaN` and `inf` (finite values round alike: both round the exact
/// binary value, ties to even).
pub fn fixed(x: f64, decimals: usize) -> String {
    match x {
        x if x.is_nan() => "nan".to_string(),
        x if x.is_infinite() => if x > 0.0 { "inf" } else { "-inf" }.to_string(),
        x => format!("{x:.decimals$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_as_python_f_strings() {
        assert_eq!(fixed(f64::NAN, 2), "nan");
        assert_eq!(fixed(-f64::NAN, 1), "nan");
        assert_eq!(fixed(f64::INFINITY, 4), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 0), "-inf");
        // f"{0.125:.2f}" == "0.12", f"{0.375:.2f}" == "0.38", f"{-0.0:.1f}" == "-0.0"
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(0.375, 2), "0.38");
        assert_eq!(fixed(-0.0, 1), "-0.0");
        assert_eq!(fixed(43.7, 1), "43.7");
    }
}
