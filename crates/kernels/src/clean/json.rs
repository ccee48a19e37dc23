//! JSON values as Python's `json.dumps(value, sort_keys=True)` writes them: `, ` and `: `
//! separators, ASCII only (`\uXXXX` escapes), floats as `repr` writes them (`1e-05`, `2.0`,
//! `-0.0`), `Infinity`, `-Infinity` and `NaN`, integers as integers.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::text::python::{json_float, json_string};

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
            Value::Float(x) => out.push_str(&json_float(*x)),
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
                    out.push_str(&json_string(key, true));
                    out.push_str(": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
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
            assert_eq!(json_float(x), python, "{x}");
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
