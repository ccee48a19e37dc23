//! Patterns as Python's `regex` module (version 0 behaviour, what `regex.search(pattern, text)`
//! uses) reads them, for OpusFilter's RegExpFilter: run by `fancy-regex` (backreferences,
//! lookaround) after the spellings whose meaning differs are rewritten. What the two agree on
//! is most of what users write; what they would not agree on is refused by name rather than
//! run differently.
//!
//! The differences handled:
//! - POSIX classes are Unicode properties in `regex` (`[[:alpha:]]` is Alphabetic,
//!   `[[:upper:]]` Uppercase, `[[:lower:]]` Lowercase, `[[:space:]]` White_Space) except
//!   `[[:digit:]]`, which is ASCII; Rust's are all ASCII;
//! - `\Z` is the end of the text in Python (Rust's `\z`);
//! - `$` also matches before a final newline in Python; OpusFilter's segments are lines, which
//!   never hold one, so `$` is the same there.
//!
//! `\d`, `\w`, `\s` and `\b` are Unicode in both (`\s` is White_Space in `regex`, not
//! `str.split()`'s whitespace), and both fold case simply under `(?i)`.

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct PyRegex {
    regex: fancy_regex::Regex,
}

impl PyRegex {
    /// Compile `pattern`; an error names what in it cannot be run as `regex` runs it.
    pub fn new(pattern: &str) -> Result<PyRegex, String> {
        let translated = translate(pattern)?;
        let regex = fancy_regex::RegexBuilder::new(&translated)
            .build()
            .map_err(|e| format!("the pattern {pattern:?} cannot be run here: {e}"))?;
        Ok(PyRegex { regex })
    }

    /// `regex.search(pattern, text) is not None`.
    pub fn search(&self, text: &str) -> Result<bool, String> {
        self.regex
            .is_match(text)
            .map_err(|e| format!("matching {:?}: {e}", self.regex.as_str()))
    }
}

/// Rewrite the spellings whose meaning differs (see the module's documentation).
fn translate(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    return Err(format!(
                        "the pattern {pattern:?} ends with a lone backslash"
                    ));
                };
                match next {
                    'Z' if !in_class => out.push_str("\\z"),
                    // Python spells a named backreference (?P=name); `\g<name>` is only for
                    // replacements.
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if in_class && chars.peek() == Some(&':') => {
                let rest: String = chars.clone().collect();
                let Some(end) = rest.find(":]") else {
                    out.push('[');
                    continue;
                };
                let name = &rest[1..end];
                let (negated, name) = match name.strip_prefix('^') {
                    Some(name) => (true, name),
                    None => (false, name),
                };
                let class = match name {
                    "alpha" => r"\p{Alphabetic}",
                    "upper" => r"\p{Uppercase}",
                    "lower" => r"\p{Lowercase}",
                    "space" => r"\p{White_Space}",
                    "digit" => "0-9",
                    other => {
                        return Err(format!(
                            "the POSIX class [:{other}:] in {pattern:?} is not supported here \
                             (alpha, upper, lower, space and digit are)"
                        ));
                    }
                };
                if negated {
                    return Err(format!(
                        "the negated POSIX class [:^{name}:] in {pattern:?} is not supported here"
                    ));
                }
                out.push_str(class);
                for _ in 0..end + 2 {
                    chars.next();
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A `]` or `^]` first in a class is literal.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '(' if !in_class && chars.peek() == Some(&'?') => {
                out.push('(');
                let rest: String = chars.clone().take(3).collect();
                // (?a) and (?L): ASCII and locale matching, which Rust's engine has no flag for.
                if rest.starts_with("?a") || rest.starts_with("?L") {
                    return Err(format!(
                        "the flag in {pattern:?} (ASCII or locale matching) is not supported here"
                    ));
                }
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pattern: &str, text: &str) -> bool {
        PyRegex::new(pattern).unwrap().search(text).unwrap()
    }

    /// regex 2024.x: `bool(regex.search(pattern, text))`.
    #[test]
    fn as_the_regex_module_searches() {
        assert!(search(r"[[:alpha:]]", "é"));
        assert!(!search(r"[[:digit:]]", "٣"));
        assert!(search(r"\d", "٣"));
        assert!(search(r"[[:upper:]]{2}", "ÉÀ"));
        assert!(search(r"(\w)\1", "hello"));
        assert!(!search(r"(\w)\1", "helo"));
        assert!(search(r"abc\Z", "xabc"));
        assert!(search(r"[]a]", "]"));
        assert!(search(r"(?i)straße", "STRAßE"));
        assert!(search(r"(?<=a)b", "ab"));
    }

    #[test]
    fn what_differs_is_refused() {
        assert!(
            PyRegex::new(r"[[:punct:]]")
                .unwrap_err()
                .contains("[:punct:]")
        );
        assert!(PyRegex::new(r"(?a)\w").unwrap_err().contains("ASCII"));
        assert!(PyRegex::new(r"abc\").is_err());
    }
}
