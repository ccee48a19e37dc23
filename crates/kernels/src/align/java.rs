//! The three places where METEOR's behaviour is Java's behaviour, reproduced so that our
//! alignments are METEOR's to the byte (docs/meteor-aligner.md lists why each matters).

use std::ops::Range;

/// `String.hashCode()`: 31-polynomial over the UTF-16 code units, wrapping. METEOR compares
/// words by this hash, not by their text, so two words with the same hash ("Aa" and "BB") are
/// an exact match for it, and for us.
pub fn string_hash(word: &str) -> i32 {
    if word.is_ascii() {
        word.bytes()
            .fold(0i32, |h, b| h.wrapping_mul(31).wrapping_add(i32::from(b)))
    } else {
        word.encode_utf16()
            .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
    }
}

/// `String.length()`: UTF-16 code units.
pub fn string_length(word: &str) -> usize {
    if word.is_ascii() {
        word.len()
    } else {
        word.encode_utf16().count()
    }
}

/// `new StringTokenizer(line)`: tokens separated by runs of space, tab, `\n`, `\r` and form
/// feed (and nothing else: a no-break space or a vertical tab is part of a token).
pub fn tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split([' ', '\t', '\n', '\r', '\u{c}'])
        .filter(|t| !t.is_empty())
}

/// `String.trim()`, which `Alignment.toString` applies to the re-joined sentence: the range of
/// `text` left after stripping every character up to U+0020 from both ends (control characters
/// included). Those characters are single bytes in UTF-8 and no other character's bytes fall in
/// that range, so the range falls on character boundaries.
pub fn trim(text: &[u8]) -> Range<usize> {
    let kept = |b: &u8| *b > b' ';
    let start = text.iter().position(kept).unwrap_or(text.len());
    let end = text.iter().rposition(kept).map_or(start, |i| i + 1);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_javas() {
        // Values printed by `"...".hashCode()` in Java 17.
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("the"), 114_801);
        assert_eq!(string_hash("Aa"), string_hash("BB"));
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(string_hash("é"), 233);
        assert_eq!(string_hash("😀"), 1_772_899);
    }

    #[test]
    fn tokens_split_on_javas_five_delimiters_only() {
        let line = " a\tb\u{c}c\u{b}d\u{a0}e  ";
        assert_eq!(
            tokens(line).collect::<Vec<_>>(),
            ["a", "b", "c\u{b}d\u{a0}e"]
        );
        let text = "\u{1}x\u{a0}y\u{b} ".as_bytes();
        assert_eq!(&text[trim(text)], "x\u{a0}y".as_bytes());
        assert_eq!(trim(b" \t\x1f"), 3..3);
        assert_eq!(string_length("😀a"), 3);
    }
}
