//! Whitespace as Python's `str.split()` and `str.strip()` see it, so that our tokens equal
//! those of the Python tools (lepod-score.py) byte for byte. Rust's `split_whitespace` differs
//! on U+001C..U+001F, which Python also treats as separators.

pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `line.split()`.
pub fn split(line: &str) -> impl Iterator<Item = &str> {
    line.split(is_space).filter(|t| !t.is_empty())
}

/// Python's `line.strip()`.
pub fn strip(line: &str) -> &str {
    line.trim_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_python() {
        let line = " a\u{1f}b\u{a0}c\u{3000}d\te  ";
        assert_eq!(split(line).collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
        assert_eq!(strip("\u{1c} x y \u{85}"), "x y");
        // Zero-width space and joiner are not whitespace, in Python either.
        assert_eq!(split("a\u{200b}b\u{200d}c").count(), 1);
    }
}
