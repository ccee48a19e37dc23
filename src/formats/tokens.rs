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
    // Printable ASCII (most corpus lines) has one separator, the space, found by memchr. The
    // test folds over every byte, without stopping early, so that it is vectorised.
    let printable_ascii = !line.bytes().fold(false, |other, b| other | !(0x20..0x80).contains(&b));
    Split { line, at: 0, spaces: printable_ascii.then(|| memchr::memchr_iter(b' ', line.as_bytes())) }
}

/// The tokens of a line; ASCII is told apart by byte, anything else by `is_space`.
pub struct Split<'a> {
    line: &'a str,
    /// Where the rest of the line starts.
    at: usize,
    /// The spaces of a printable ASCII line, its only separators; None for other lines.
    spaces: Option<memchr::Memchr<'a>>,
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
        let (line, start) = (self.line, self.at);
        let Some(spaces) = self.spaces.as_mut() else {
            let start = start + Self::run(&line[start..], true);
            let end = start + Self::run(&line[start..], false);
            self.at = end;
            return (end > start).then(|| &line[start..end]);
        };
        let mut start = start;
        for space in spaces.by_ref() {
            if space > start {
                self.at = space + 1;
                return Some(&line[start..space]);
            }
            start = space + 1;
        }
        self.at = line.len();
        (line.len() > start).then(|| &line[start..])
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
        assert_eq!(split("  a  bb c ").collect::<Vec<_>>(), ["a", "bb", "c"]);
        assert_eq!(split("a").collect::<Vec<_>>(), ["a"]);
        assert_eq!(split("").count(), 0);
        for c in (0..0x80u8).map(char::from) {
            assert_eq!(split(&format!("a{c}b")).count() == 2, is_space(c), "{c:?}");
        }
        // Every character, next to non-ASCII ones (the byte scan only decodes four lead bytes).
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(split(&format!("é{c}é")).count() == 2, is_space(c), "{c:?}");
        }
    }
}
