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
        self.ranges
            .binary_search_by(|&(start, end)| {
                if end < c {
                    std::cmp::Ordering::Less
                } else if start > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

/// `c.isalpha()` (category L*).
pub(super) fn is_letter(c: char) -> bool {
    tables::PY_LETTER.contains(c)
}

/// `regex`'s `[[:alpha:]]` (Alphabetic).
pub(super) fn is_alpha(c: char) -> bool {
    tables::RE_ALPHA.contains(c)
}

pub(super) fn is_upper(c: char) -> bool {
    tables::RE_UPPER.contains(c)
}

pub(super) fn is_lower(c: char) -> bool {
    tables::RE_LOWER.contains(c)
}

/// `regex`'s `[[:digit:]]`: ASCII digits only.
pub(super) fn is_posix_digit(c: char) -> bool {
    tables::RE_DIGIT.contains(c)
}

/// `regex`'s `\d` (decimal numbers of every script).
pub(super) fn is_decimal(c: char) -> bool {
    tables::RE_DECIMAL.contains(c)
}

/// `regex`'s `\w`.
pub(super) fn is_word(c: char) -> bool {
    tables::RE_WORD.contains(c)
}

/// `regex`'s `\s` (White_Space: not `str.isspace`, which adds U+001C..U+001F).
pub(super) fn is_space(c: char) -> bool {
    tables::RE_SPACE.contains(c)
}

/// `str.strip()`.
pub(super) fn strip(s: &str) -> &str {
    s.trim_matches(|c| tables::PY_SPACE.contains(c))
}

/// `s.translate(tbl_non_alpha).casefold()`: the letters alone, case-folded. `tbl_non_alpha` is
/// built over `range(sys.maxunicode)`, which stops before U+10FFFF: that one code point stays.
pub(super) fn letters_casefolded(s: &str, out: &mut String) {
    out.clear();
    for c in s.chars().filter(|&c| is_letter(c) || c == '\u{10FFFF}') {
        // Python folds ASCII as it lowercases it.
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        match tables::PY_CASEFOLD.binary_search_by_key(&c, |&(from, _)| from) {
            Ok(i) => out.push_str(tables::PY_CASEFOLD[i].1),
            Err(_) => out.push(c),
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
    let c = c as u32;
    match tables::FAMILIES.binary_search_by(|&(start, end, _)| {
        if end < c {
            std::cmp::Ordering::Less
        } else if start > c {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => tables::FAMILIES[i].2,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_and_regex_tables_differ_where_the_tool_reads_them() {
        // U+001C is whitespace to str.strip but not to regex's \s.
        assert_eq!(strip("\u{1c} a \u{1c}"), "a");
        assert!(!is_space('\u{1c}'));
        assert!(is_posix_digit('7') && !is_posix_digit('٧') && is_decimal('٧'));
        // Ⓐ is Alphabetic and Uppercase (regex) but not a letter (Python's category So).
        assert!(is_alpha('Ⓐ') && is_upper('Ⓐ') && !is_letter('Ⓐ'));
        let mut out = String::new();
        letters_casefolded("Straße, ǅ 12!\u{10FFFF}", &mut out);
        assert_eq!(out, "strasseǆ\u{10FFFF}");
        assert!(is_title("Hello World") && is_title("ǅungla") && !is_title("HeLLo"));
        assert!(!is_title("123 !"));
        assert_eq!(caseless('\u{212A}'), caseless('k'));
        assert_eq!(caseless('ſ'), caseless('S'));
        assert_ne!(script_family('a'), script_family('д'));
        assert_eq!(script_family('!'), 0);
    }
}
