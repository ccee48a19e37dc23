//! Numbers as C++ iostreams print them by default (`std::cout << x`: printf's `%g` with 6
//! significant digits), for drop-ins of C++ tools.

/// `x` as `std::ostream << double` prints it with the default precision, 6.
pub fn double(x: f64) -> String {
    const PRECISION: i32 = 6;
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent %e would print, after rounding to 6 significant digits.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x);
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    if (-4..PRECISION).contains(&exponent) {
        let fixed = format!("{:.*}", (PRECISION - 1 - exponent) as usize, x);
        trim_zeros(&fixed).to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), exponent.abs())
    }
}

/// `%g` drops trailing zeros of the fraction, and the point when nothing follows it.
fn trim_zeros(number: &str) -> &str {
    if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    }
}

#[cfg(test)]
mod tests {
    use super::double;

    #[test]
    fn prints_as_printf_g() {
        for (x, printed) in [
            (-2.302585092994046, "-2.30259"),
            (-0.0001234567, "-0.000123457"),
            (-0.00001234567, "-1.23457e-05"),
            (123456.7, "123457"),
            (1234567.0, "1.23457e+06"),
            (0.5, "0.5"),
            (-3.0, "-3"),
            (99999.95, "99999.9"),
            (999999.5, "1e+06"),
            (1e-300, "1e-300"),
            (0.0, "0"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(double(x), printed, "{x}");
        }
    }
}
