//! Whitespace as Python's `str.split()` and `str.strip()` see it, so that our tokens equal
//! those of the Python tools (lepod-score.py, sacrebleu) byte for byte: Rust's `char::is_whitespace`
//! and U+001C..U+001F, the information separators, which Python also splits on.

/// Whether Python's `str.split()` splits at `c`.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// [`is_space`] of an ASCII byte: \t \n \v \f \r, the separators 0x1c-0x1f and space.
pub const fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=0x20)
}

/// Python's `line.split()`.
pub fn split(line: &str) -> Split<'_> {
    // Printable ASCII (most corpus lines) has one separator, the space. The test folds over
    // every byte, without stopping early, so that it is vectorised.
    let printable_ascii = !line
        .bytes()
        .fold(false, |other, b| other | !(0x20..0x80).contains(&b));
    Split {
        line,
        at: 0,
        spaces: printable_ascii.then(|| Spaces::new(line.as_bytes())),
    }
}

/// The positions of the spaces in `bytes`, found 64 bytes at a time: the mask of a block's
/// spaces takes a few instructions, cheaper than a `memchr` call per token (words average five
/// bytes; the tokenizer's share of `lepod` fell from 15% to 12%).
struct Spaces<'a> {
    bytes: &'a [u8],
    /// Where the block of `mask` starts.
    block: usize,
    /// The spaces of the block not returned yet, one bit each.
    mask: u64,
}

impl<'a> Spaces<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Spaces {
            bytes,
            block: 0,
            mask: Self::mask(bytes),
        }
    }

    /// The spaces among the first 64 bytes, the first byte's in the lowest bit.
    fn mask(bytes: &[u8]) -> u64 {
        let Some(block) = bytes.first_chunk::<64>() else {
            return bytes
                .iter()
                .enumerate()
                .fold(0, |mask, (i, &b)| mask | u64::from(b == b' ') << i);
        };
        // Eight bytes at a time: the high bit of each byte that is a space (exactly: the
        // additions cannot carry from one byte into the next), then those eight bits gathered
        // into the top byte by one multiplication.
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        block
            .chunks_exact(8)
            .enumerate()
            .fold(0, |mask, (k, word)| {
                let x = u64::from_le_bytes(word.try_into().expect("eight bytes"))
                    ^ 0x2020_2020_2020_2020;
                let zero_bytes = !((x & LOW7) + LOW7 | x | LOW7);
                mask | ((zero_bytes >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k)
            })
    }
}

impl Iterator for Spaces<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.block += 64;
            if self.block >= self.bytes.len() {
                return None;
            }
            self.mask = Self::mask(&self.bytes[self.block..]);
        }
        let at = self.block + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }
}

/// The tokens of a line; ASCII is told apart by byte, anything else by `is_space`.
pub struct Split<'a> {
    line: &'a str,
    /// Where the rest of the line starts.
    at: usize,
    /// The spaces of a printable ASCII line, its only separators; None for other lines.
    spaces: Option<Spaces<'a>>,
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

/// Python's `line.rstrip()`, as OpusFilter and sacrebleu strip the lines they read.
pub fn rstrip(line: &str) -> &str {
    line.trim_end_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_python() {
        let line = " a\u{1f}b\u{a0}c\u{3000}d\te  ";
        assert_eq!(split(line).collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
        assert_eq!(strip("\u{1c} x y \u{85}"), "x y");
        assert_eq!(rstrip("\u{1c} x y \u{85}\u{3000}\n"), "\u{1c} x y");
        // Zero-width space and joiner are not whitespace, in Python either.
        assert_eq!(split("a\u{200b}b\u{200d}c").count(), 1);
        assert_eq!(
            split("x\u{b}y\u{1c}z é\u{85}").collect::<Vec<_>>(),
            ["x", "y", "z", "é"]
        );
        assert_eq!(split("   ").count(), 0);
        assert_eq!(split("  a  bb c ").collect::<Vec<_>>(), ["a", "bb", "c"]);
        assert_eq!(split("a").collect::<Vec<_>>(), ["a"]);
        // Printable ASCII lines are read 64 bytes at a time: tokens and runs of spaces across
        // the blocks' edges.
        for len in [63, 64, 65, 127, 128, 129, 200] {
            for step in [1, 2, 3, 7, 63, 64, 65] {
                let line: String = (0..len)
                    .map(|i| {
                        if i % step == step - 1 || i % 61 == 0 {
                            ' '
                        } else {
                            'x'
                        }
                    })
                    .collect();
                let python: Vec<&str> = line.split(' ').filter(|t| !t.is_empty()).collect();
                assert_eq!(split(&line).collect::<Vec<_>>(), python, "{len} {step}");
            }
        }
        // The eight-byte test against the plain one, over every pair of adjacent bytes.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let block: Vec<u8> = (0..64).map(|i| if i % 2 == 0 { a } else { b }).collect();
                let plain = block
                    .iter()
                    .enumerate()
                    .fold(0, |mask, (i, &c)| mask | u64::from(c == b' ') << i);
                assert_eq!(Spaces::mask(&block), plain, "{a} {b}");
            }
        }
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
