//! Numbers and strings as Python prints them, for the drop-ins of Python tools: `f"{x:.Nf}"`,
//! `repr` of a float, `json.dumps` of a float and of a string.

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

/// `repr(x)` of a Python float: the shortest digits that read back as `x`, positional for
/// decimal exponents -4..16 (`53.0`, `0.0001`), scientific otherwise (`1e-05`, `1.5e+16`).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Rust's shortest digits, but where two are equally near the binary value Python takes
    // the even one: the value rounded exactly (ties to even) to as many digits.
    let shortest = format!("{x:e}");
    let significant = shortest
        .split_once('e')
        .expect("an exponent")
        .0
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let scientific = format!("{x:.*e}", significant - 1);
    let (digits, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("a decimal exponent");
    if (-4..16).contains(&exponent) {
        let decimals = (significant as i32 - 1 - exponent).max(1) as usize;
        format!("{x:.decimals$}")
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{digits}e{sign}{:02}", exponent.abs())
    }
}

/// A float as `json.dumps` writes it (`NaN` and `Infinity` as Python's encoder does).
pub fn json_float(x: f64) -> String {
    match x {
        x if x.is_nan() => "NaN".to_string(),
        x if x.is_infinite() => if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string(),
        x => float_repr(x),
    }
}

/// `json.dumps(text)`, quoted; with `ensure_ascii` every non-ASCII character is a `\uXXXX`
/// escape (UTF-16 surrogates above the BMP), as Python's default.
pub fn json_string(text: &str, ensure_ascii: bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            // ESCAPE_ASCII: everything outside ' '..='~' (DEL too).
            c if ensure_ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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

    #[test]
    fn floats_read_as_python_writes_them() {
        for (x, repr) in [
            (53.0, "53.0"),
            (72.4, "72.4"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::from(53.09f32), "53.09000015258789"),
            // Two shortest decimals equally near: Python takes the even one.
            (66.808868408203125, "66.80886840820312"),
            (0.0, "0.0"),
        ] {
            assert_eq!(float_repr(x), repr);
        }
    }

    #[test]
    fn strings_escape_as_json_dumps() {
        assert_eq!(json_string("a\"b\\c\n", false), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(json_string("μ ± 1", false), "\"μ ± 1\"");
        assert_eq!(json_string("μ 😀", true), "\"\\u03bc \\ud83d\\ude00\"");
        // json.dumps("\x7f") == '"\\u007f"'; json.dumps("\x7f", ensure_ascii=False) keeps it.
        assert_eq!(json_string("\u{7f}", true), "\"\\u007f\"");
        assert_eq!(json_string("\u{7f}", false), "\"\u{7f}\"");
    }
}
