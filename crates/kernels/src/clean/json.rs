//! JSON values as Python's `json.dumps(value, sort_keys=True)` writes them: `, ` and `: `
//! separators, ASCII only (`\uXXXX` escapes), floats as `repr` writes them (`1e-05`, `2.0`,
//! `-0.0`), `Infinity`, `-Infinity` and `NaN`, integers as integers.

use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    List(Vec<Value>),
    /// Keys in code point order, as `sort_keys` orders them.
    Object(BTreeMap<String, Value>),
}

impl Value {
    pub fn dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => write!(out, "{i}").expect("a String"),
            Value::Float(x) => out.push_str(&float(*x)),
            Value::List(items) => {
                out.push('[');
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Value::Object(entries) => {
                out.push('{');
                for (k, (key, value)) in entries.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    string(key, out);
                    out.push_str(": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// A float as `json.dumps` writes it: `float.__repr__`, or Infinity, -Infinity, NaN.
pub fn float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    repr(x)
}

/// Python's `repr(x)` of a finite float: the shortest digits that read back as x, fixed
/// notation when the decimal exponent is from -4 to 15, else `d.ddde+XX`.
pub fn repr(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Python's threshold: scientific when decpt <= -4 or decpt > 16 (decpt = exponent + 1).
    let decpt = exponent + 1;
    if -4 < decpt && decpt <= 16 {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{digits}", "0".repeat((-decpt) as usize))
        } else if decpt >= n {
            format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
        } else {
            format!(
                "{}.{}",
                &digits[..decpt as usize],
                &digits[decpt as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{point}e{esign}{:02}", exponent.abs())
    }
}

/// A JSON string with `ensure_ascii`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other control
/// characters and every non-ASCII character as `\uXXXX` (surrogate pairs beyond the BMP).
fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(out, "\\u{unit:04x}").expect("a String");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_repr() {
        for (x, python) in [
            (1.5, "1.5"),
            (2.0, "2.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-0.0, "-0.0"),
            (-2.5e-7, "-2.5e-07"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(float(x), python, "{x}");
        }
    }

    #[test]
    fn objects_as_json_dumps() {
        let mut inner = BTreeMap::new();
        inner.insert(
            "b".to_string(),
            Value::List(vec![Value::Int(1), Value::Float(0.5)]),
        );
        inner.insert("a".to_string(), Value::Bool(false));
        inner.insert("é".to_string(), Value::Float(f64::NEG_INFINITY));
        // json.dumps({"b": [1, 0.5], "a": False, "é": float("-inf")}, sort_keys=True)
        assert_eq!(
            Value::Object(inner).dumps(),
            r#"{"a": false, "b": [1, 0.5], "\u00e9": -Infinity}"#
        );
    }
}
