//! Whitespace as Python's `str.split()` and `str.strip()` see it, so that our tokens equal
//! those of the Python tools (lepod-score.py) byte for byte. Rust's `split_whitespace` differs
//! on U+001C..U+001F, which Python also treats as separators.

pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// [`is_space`] of an ASCII byte.
pub fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=0x20)
}

/// Python's `line.split()`.
pub fn split(line: &str) -> Split<'_> {
    // Printable ASCII (most corpus lines) has one separator, the space, found by byte.
    let spaces_only = line.bytes().all(|b| (0x20..0x80).contains(&b));
    Split { rest: line, spaces_only }
}

/// The tokens of a line; ASCII is told apart by byte, anything else by `is_space`.
pub struct Split<'a> {
    rest: &'a str,
    spaces_only: bool,
}

impl Split<'_> {
    /// The length of the space (`want_space`) or non-space run at the start of `text`.
    fn run(text: &str, want_space: bool) -> usize {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let (space, width) = match bytes[i] {
                b @ 0..=0x7f => (is_ascii_space(b), 1),
                // The lead bytes of every non-ASCII space: U+0085 and U+00A0; U+1680;
                // U+2000..U+205F; U+3000.
                0xc2 | 0xe1 | 0xe2 | 0xe3 => {
                    let c = text[i..].chars().next().expect("a character starts here");
                    (is_space(c), c.len_utf8())
                }
                // Any other byte belongs to a character that is not a space.
                _ => (false, 1),
            };
            if space != want_space {
                break;
            }
            i += width;
        }
        i
    }
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let skip = match self.spaces_only {
            true => self.rest.bytes().position(|b| b != b' ').unwrap_or(self.rest.len()),
            false => Self::run(self.rest, true),
        };
        let rest = &self.rest[skip..];
        if rest.is_empty() {
            self.rest = rest;
            return None;
        }
        let end = match self.spaces_only {
            true => rest.bytes().position(|b| b == b' ').unwrap_or(rest.len()),
            false => Self::run(rest, false),
        };
        let (token, rest) = rest.split_at(end);
        self.rest = rest;
        Some(token)
    }
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
        assert_eq!(split("x\u{b}y\u{1c}z é\u{85}").collect::<Vec<_>>(), ["x", "y", "z", "é"]);
        assert_eq!(split("   ").count(), 0);
        for c in (0..0x80u8).map(char::from) {
            assert_eq!(split(&format!("a{c}b")).count() == 2, is_space(c), "{c:?}");
        }
        // Every character, next to non-ASCII ones (the byte scan only decodes four lead bytes).
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(split(&format!("é{c}é")).count() == 2, is_space(c), "{c:?}");
        }
    }
}
