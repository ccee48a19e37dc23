//! The character properties the rules read, answered from tables taken from the reference
//! interpreter (tables.rs, generated): Python 3.9's `str` methods (Unicode 13) and the `regex`
//! module's classes are different tables, and each rule reads the one its code reads.

use super::tables;

/// A set of code points: sorted, disjoint inclusive ranges, with ASCII answered from a mask.
pub(super) struct Class {
    ranges: &'static [(u32, u32)],
    ascii: u128,
}

impl Class {
    pub(super) const fn new(ranges: &'static [(u32, u32)]) -> Class {
        let mut ascii = 0u128;
        let mut i = 0;
        while i < ranges.len() {
            let (mut c, end) = ranges[i];
            while c <= end && c < 128 {
                ascii |= 1 << c;
                c += 1;
            }
            i += 1;
        }
        Class { ranges, ascii }
    }

    pub(super) fn contains(&self, c: char) -> bool {
        let c = c as u32;
        if c < 128 {
            return self.ascii >> c & 1 == 1;
        }
        range_holding(self.ranges, c, |&(start, end)| (start, end)).is_some()
    }
}

/// The index of the range of sorted, disjoint inclusive `ranges` that holds code point `c`.
fn range_holding<T>(ranges: &[T], c: u32, bounds: impl Fn(&T) -> (u32, u32)) -> Option<usize> {
    ranges
        .binary_search_by(|range| {
            let (start, end) = bounds(range);
            if end < c {
                std::cmp::Ordering::Less
            } else if start > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .ok()
}

/// The properties the rules read most, one bit each, looked up once per character
/// ([`properties`]).
pub(super) const LETTER: u8 = 1;
pub(super) const ALPHA: u8 = 2;
pub(super) const UPPER: u8 = 4;
pub(super) const LOWER: u8 = 8;
pub(super) const WORD: u8 = 16;
pub(super) const SPACE: u8 = 32;
pub(super) const DECIMAL: u8 = 64;

const PROPERTY_CLASSES: [(u8, &Class); 7] = [
    (LETTER, &tables::PY_LETTER),
    (ALPHA, &tables::RE_ALPHA),
    (UPPER, &tables::RE_UPPER),
    (LOWER, &tables::RE_LOWER),
    (WORD, &tables::RE_WORD),
    (SPACE, &tables::RE_SPACE),
    (DECIMAL, &tables::RE_DECIMAL),
];

static ASCII_PROPERTIES: [u8; 128] = {
    let mut out = [0u8; 128];
    let mut k = 0;
    while k < PROPERTY_CLASSES.len() {
        let (bit, class) = PROPERTY_CLASSES[k];
        let mut c = 0;
        while c < 128 {
            if class.ascii >> c & 1 == 1 {
                out[c] |= bit;
            }
            c += 1;
        }
        k += 1;
    }
    out
};

/// The property bits of `c`: `LETTER` (`str.isalpha`), then the `regex` module's
/// `[[:alpha:]]`, `[[:upper:]]`, `[[:lower:]]`, `\w`, `\s` and `\d`.
pub(super) fn properties(c: char) -> u8 {
    if c.is_ascii() {
        return ASCII_PROPERTIES[c as usize];
    }
    PROPERTY_CLASSES
        .iter()
        .filter(|(_, class)| class.contains(c))
        .fold(0, |bits, (bit, _)| bits | bit)
}

/// `regex`'s `[[:digit:]]`: ASCII digits only.
pub(super) fn is_posix_digit(c: char) -> bool {
    tables::RE_DIGIT.contains(c)
}

/// `str.strip()` of a text's characters, as the range it keeps.
pub(super) fn strip_chars(s: &[char]) -> (usize, usize) {
    let space = |c: &char| tables::PY_SPACE.contains(*c);
    let from = s.iter().position(|c| !space(c)).unwrap_or(s.len());
    let to = s.iter().rposition(|c| !space(c)).map_or(from, |i| i + 1);
    (from, to)
}

/// `s.translate(tbl_non_alpha).casefold()`: the letters alone, case-folded. `tbl_non_alpha` is
/// built over `range(sys.maxunicode)`, which stops before U+10FFFF: that one code point stays.
pub(super) fn letters_casefolded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|&c| tables::PY_LETTER.contains(c) || c == '\u{10FFFF}')
        .flat_map(|c| {
            // Python folds ASCII as it lowercases it.
            if c.is_ascii() {
                return Folded::One(Some(c.to_ascii_lowercase()));
            }
            match tables::PY_CASEFOLD.binary_search_by_key(&c, |&(from, _)| from) {
                Ok(i) => Folded::Many(tables::PY_CASEFOLD[i].1.chars()),
                Err(_) => Folded::One(Some(c)),
            }
        })
}

/// One character's case folding: itself or one other, or several (`ß` is `ss`).
enum Folded {
    One(Option<char>),
    Many(std::str::Chars<'static>),
}

impl Iterator for Folded {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        match self {
            Folded::One(c) => c.take(),
            Folded::Many(chars) => chars.next(),
        }
    }
}

/// `s.istitle()`: every cased run starts with an upper- or titlecase character followed by
/// lowercase ones only, and there is at least one cased character.
pub(super) fn is_title(s: &str) -> bool {
    let (mut cased, mut previous_cased) = (false, false);
    for c in s.chars() {
        if tables::PY_TITLE.contains(c) || tables::PY_UPPER.contains(c) {
            if previous_cased {
                return false;
            }
            (previous_cased, cased) = (true, true);
        } else if tables::PY_LOWER.contains(c) {
            if !previous_cased {
                return false;
            }
            (previous_cased, cased) = (true, true);
        } else {
            previous_cased = false;
        }
    }
    cased
}

/// [`caseless`] of the ASCII characters, from the same table.
static ASCII_CASELESS: [u32; 128] = {
    let mut out = [0u32; 128];
    let mut c = 0;
    while c < 128 {
        out[c] = c as u32;
        c += 1;
    }
    let mut i = 0;
    while i < tables::RE_CASELESS.len() {
        let (from, to) = tables::RE_CASELESS[i];
        if from < 128 {
            out[from as usize] = to;
        }
        i += 1;
    }
    out
};

/// The representative of `c`'s class under `(?i)`: characters match caselessly when equal.
pub(super) fn caseless(c: char) -> u32 {
    let c = c as u32;
    if c < 128 {
        return ASCII_CASELESS[c as usize];
    }
    match tables::RE_CASELESS.binary_search_by_key(&c, |&(from, _)| from) {
        Ok(i) => tables::RE_CASELESS[i].1,
        Err(_) => c,
    }
}

/// The writing-system family `no_script_inconsistencies` gives a character (0: none).
pub(super) fn script_family(c: char) -> u8 {
    range_holding(tables::FAMILIES, c as u32, |&(start, end, _)| (start, end))
        .map_or(0, |i| tables::FAMILIES[i].2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_and_regex_tables_differ_where_the_tool_reads_them() {
        // U+001C is whitespace to str.strip but not to regex's \s.
        let spaced: Vec<char> = "\u{1c} a \u{1c}".chars().collect();
        assert_eq!(strip_chars(&spaced), (2, 3));
        assert_eq!(properties('\u{1c}') & SPACE, 0);
        assert!(is_posix_digit('7') && !is_posix_digit('٧') && properties('٧') & DECIMAL != 0);
        // Ⓐ is Alphabetic and Uppercase (regex) but not a letter (Python's category So).
        assert_eq!(properties('Ⓐ') & (ALPHA | UPPER | LETTER), ALPHA | UPPER);
        assert_eq!(properties('é'), LETTER | ALPHA | LOWER | WORD);
        let folded: String = letters_casefolded("Straße, ǅ 12!\u{10FFFF}").collect();
        assert_eq!(folded, "strasseǆ\u{10FFFF}");
        assert!(is_title("Hello World") && is_title("ǅungla") && !is_title("HeLLo"));
        assert!(!is_title("123 !"));
        assert_eq!(caseless('\u{212A}'), caseless('k'));
        assert_eq!(caseless('ſ'), caseless('S'));
        assert_ne!(script_family('a'), script_family('д'));
        assert_eq!(script_family('!'), 0);
    }
}
