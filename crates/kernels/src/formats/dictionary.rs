//! Bilingual dictionaries as users write or export them (BabelNet, Wiktionary dumps, a
//! glossary): one entry per line, `source phrase<TAB>translation[<TAB>probability]`. Phrases
//! are whitespace-separated words; a line that is only whitespace is skipped.

use std::fmt;

/// One entry: its phrases as written (trimmed) and its probability if the line gives one.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<'a> {
    pub src: &'a str,
    pub tgt: &'a str,
    pub p: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DictionaryError(pub String);

impl fmt::Display for DictionaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DictionaryError {}

/// Parses one line: None for a blank one. Tabs separate the fields, so phrases keep their
/// spaces; a probability must be in (0, 1] (an empty third field is none).
pub fn parse_line(line: &str) -> Result<Option<Entry<'_>>, DictionaryError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let fail = |message: String| Err(DictionaryError(message));
    let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
    if !(2..=3).contains(&fields.len()) {
        return fail(format!(
            "{} tab-separated field(s); expected source phrase<TAB>translation[<TAB>probability]",
            fields.len()
        ));
    }
    for (field, side) in [(fields[0], "source phrase"), (fields[1], "translation")] {
        if field.is_empty() {
            return fail(format!("empty {side}"));
        }
    }
    let p = match fields.get(2) {
        None | Some(&"") => None,
        Some(text) => match text.parse::<f64>() {
            Ok(p) if p > 0.0 && p <= 1.0 => Some(p),
            Ok(_) => return fail(format!("probability {text} is not in (0, 1]")),
            Err(_) => return fail(format!("probability `{text}` is not a number")),
        },
    };
    Ok(Some(Entry {
        src: fields[0],
        tgt: fields[1],
        p,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(src: &'static str, tgt: &'static str, p: Option<f64>) -> Option<Entry<'static>> {
        Some(Entry { src, tgt, p })
    }

    #[test]
    fn lines_with_and_without_a_probability() {
        assert_eq!(
            parse_line("chat noir\tblack cat").unwrap(),
            entry("chat noir", "black cat", None)
        );
        assert_eq!(
            parse_line(" chat \t cat \t0.25\r").unwrap(),
            entry("chat", "cat", Some(0.25))
        );
        assert_eq!(
            parse_line("chat\tcat\t").unwrap(),
            entry("chat", "cat", None)
        );
        assert_eq!(
            parse_line("chat\tcat\t1").unwrap(),
            entry("chat", "cat", Some(1.0))
        );
        assert_eq!(parse_line("  \t ").unwrap(), None);
        assert_eq!(parse_line("").unwrap(), None);
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        for (line, message) in [
            ("chat cat", "1 tab-separated field(s)"),
            ("a\tb\t0.5\textra", "4 tab-separated field(s)"),
            ("\tcat", "empty source phrase"),
            ("chat\t ", "empty translation"),
            ("chat\tcat\t0", "probability 0 is not in (0, 1]"),
            ("chat\tcat\t1.5", "probability 1.5 is not in (0, 1]"),
            ("chat\tcat\tNaN", "probability NaN is not in (0, 1]"),
            ("chat\tcat\thigh", "probability `high` is not a number"),
        ] {
            let error = parse_line(line).unwrap_err().to_string();
            assert!(error.contains(message), "{line:?}: {error}");
        }
    }
}
