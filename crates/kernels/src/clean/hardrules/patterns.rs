//! The rules' regular expressions, each written out as what it matches over a sentence's code
//! points: `findall` counts are leftmost, non-overlapping matches; a search is whether one exists.
//! The two with a backreference (`no_repeated_words`) follow the backtracking order of the
//! `regex` module, since the first match found at a position decides where the next search
//! starts.

use super::unicode::{caseless, is_alpha, is_decimal, is_lower, is_space, is_upper, is_word};

/// `regex_url.findall(s)` is non-empty. Of the pattern
/// `(http(s)?:\/\/.)?(www\.)?[-a-zA-Z0-9@:%._\+~#=]{2,256}\.[a-z]{2,6}\b(...)*`, the optional
/// head and tail never decide whether a match exists: two characters of the host set before a
/// dot, then 2–6 lowercase ASCII letters ending at a word boundary.
pub(super) fn has_url(s: &[char]) -> bool {
    let host = |c: char| c.is_ascii_alphanumeric() || "-@:%._+~#=".contains(c);
    (2..s.len()).any(|dot| {
        s[dot] == '.' && host(s[dot - 1]) && host(s[dot - 2]) && {
            let run = s[dot + 1..]
                .iter()
                .take_while(|c| c.is_ascii_lowercase())
                .count();
            (2..=6).contains(&run) && s.get(dot + 1 + run).is_none_or(|&c| !is_word(c))
        }
    })
}

/// `len(regex_breadcrumbs1.findall(s))`: `([ ][-/][ ]|[<>*]|[ ][:][ ])`.
pub(super) fn breadcrumbs1(s: &[char]) -> usize {
    count(s, |s, i| match s[i] {
        '<' | '>' | '*' => 1,
        ' ' if s.get(i + 2) == Some(&' ') && matches!(s[i + 1], '-' | '/' | ':') => 3,
        _ => 0,
    })
}

/// `len(regex_breadcrumbs2.findall(s))`: `([ ][»][ ]|[|→←•·¬])`.
pub(super) fn breadcrumbs2(s: &[char]) -> usize {
    count(s, |s, i| match s[i] {
        '|' | '→' | '←' | '•' | '·' | '¬' => 1,
        ' ' if s.get(i + 2) == Some(&' ') && s[i + 1] == '»' => 3,
        _ => 0,
    })
}

/// Leftmost non-overlapping matches of a pattern whose match at `i` has the length
/// `match_at(s, i)` (0: none).
fn count(s: &[char], match_at: impl Fn(&[char], usize) -> usize) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < s.len() {
        match match_at(s, i) {
            0 => i += 1,
            len => {
                n += 1;
                i += len;
            }
        }
    }
    n
}

/// `[\x80-\xFF]{min,}` matches somewhere.
pub(super) fn has_latin1_run(s: &[char], min: usize) -> bool {
    let mut run = 0;
    for &c in s {
        run = if ('\u{80}'..='\u{ff}').contains(&c) {
            run + 1
        } else {
            0
        };
        if run >= min {
            return true;
        }
    }
    false
}

/// `([ ]\D){4,}[ ]` matches somewhere: four spaces each followed by a non-digit, then a space.
/// (A fifth pair starts with that space, so a chain of five is a match; of exactly four, only if
/// a space follows.)
pub(super) fn has_space_noise(s: &[char]) -> bool {
    (0..s.len()).any(|start| {
        let pairs = (0..)
            .take_while(|k| {
                let i = start + 2 * k;
                i + 1 < s.len() && s[i] == ' ' && !is_decimal(s[i + 1])
            })
            .take(5)
            .count();
        pairs == 5 || (pairs == 4 && s.get(start + 8) == Some(&' '))
    })
}

/// `[\\][xu][0-9a-fA-F]{2,}` matches somewhere.
pub(super) fn has_escaped_unicode(s: &[char]) -> bool {
    s.windows(4).any(|w| {
        w[0] == '\\'
            && matches!(w[1], 'x' | 'u')
            && w[2].is_ascii_hexdigit()
            && w[3].is_ascii_hexdigit()
    })
}

/// `([[:alpha:]]*[[:upper:]]{1}[[:lower:]]+){2}` matches somewhere, run as its automaton:
/// per unit, "in the letters before the capital", "after the capital", "after a lowercase".
pub(super) fn has_glued_words(s: &[char]) -> bool {
    const BEFORE: [u8; 2] = [1, 8];
    const CAPITAL: [u8; 2] = [2, 16];
    const LOWER: [u8; 2] = [4, 32];
    let mut states = 0u8;
    for &c in s {
        // Epsilon moves: a unit that has read a lowercase letter may end; the second one ending
        // is a match. A new attempt starts at every position.
        if states & LOWER[1] != 0 {
            return true;
        }
        states |= BEFORE[0];
        if states & LOWER[0] != 0 {
            states |= BEFORE[1];
        }
        let (alpha, upper, lower) = (is_alpha(c), is_upper(c), is_lower(c));
        let mut next = 0;
        for unit in 0..2 {
            if states & BEFORE[unit] != 0 {
                if alpha {
                    next |= BEFORE[unit];
                }
                if upper {
                    next |= CAPITAL[unit];
                }
            }
            if states & (CAPITAL[unit] | LOWER[unit]) != 0 && lower {
                next |= LOWER[unit];
            }
        }
        states = next;
    }
    states & LOWER[1] != 0
}

/// `no_repeated_words`' count: of the matches of `pattern` (in `finditer` order), those whose
/// stripped text is longer than `min_chars` and holds a letter, counted up to `limit`.
pub(super) fn repeated(s: &[char], with_words: bool, min_chars: usize, limit: usize) -> usize {
    let mut found = 0;
    let mut start = 0;
    while start < s.len() && found < limit {
        let end = if with_words {
            repeated_words_at(s, start)
        } else {
            repeated_at(s, start)
        };
        let Some(end) = end else {
            start += 1;
            continue;
        };
        let text: String = s[start..end].iter().collect();
        let stripped = super::unicode::strip(&text);
        if stripped.chars().count() > min_chars && stripped.chars().any(is_alpha) {
            found += 1;
        }
        start = end;
    }
    found
}

/// The end of the line holding `start` (a `.` never crosses a newline).
fn line_end(s: &[char], start: usize) -> usize {
    s[start..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(s.len(), |i| start + i)
}

/// `(.+)\1` matched at `start`: the longest group first.
fn repeated_at(s: &[char], start: usize) -> Option<usize> {
    let last = line_end(s, start).min(start + (s.len() - start) / 2);
    (start + 1..=last)
        .rev()
        .find(|&end| s[start..end] == s[end..2 * end - start])
        .map(|end| 2 * end - start)
}

/// `(?i)(\b\S+(.+))\s+\b\1\b` matched at `start`. Whatever split `\S+(.+)` backtracks through,
/// the group is `s[start..end]` for every `end` from the line's end down; `\s+` then takes the
/// whole run of spaces (a shorter take leaves a space where the group's first, non-space
/// character must match).
fn repeated_words_at(s: &[char], start: usize) -> Option<usize> {
    let boundary = |i: usize| {
        let before = i > 0 && is_word(s[i - 1]);
        let after = i < s.len() && is_word(s[i]);
        before != after
    };
    if is_space(s[start]) || !boundary(start) {
        return None;
    }
    (start + 2..=line_end(s, start)).rev().find_map(|end| {
        let spaces = s[end..].iter().take_while(|&&c| is_space(c)).count();
        let copy = end + spaces;
        let copy_end = copy + (end - start);
        let matches = spaces > 0
            && copy_end <= s.len()
            && boundary(copy)
            && s[start..end]
                .iter()
                .zip(&s[copy..copy_end])
                .all(|(&a, &b)| caseless(a) == caseless(b))
            && boundary(copy_end);
        matches.then_some(copy_end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn patterns_match_where_the_regexes_do() {
        assert!(has_url(&chars("see example.com now")));
        assert!(!has_url(&chars("see example.community")));
        assert!(!has_url(&chars("e.com")));
        assert!(has_url(&chars("ab.cd")));
        assert_eq!(breadcrumbs1(&chars("a - b / c : d <e>")), 5);
        assert_eq!(breadcrumbs1(&chars(" - - ")), 1);
        assert_eq!(breadcrumbs2(&chars("a » b | c · d")), 3);
        assert!(has_latin1_run(&chars("xÃ©Â©"), 3));
        assert!(has_space_noise(&chars(" a b c d ")));
        assert!(!has_space_noise(&chars(" a b c d")));
        assert!(!has_space_noise(&chars(" a b 1 d e ")));
        assert!(has_escaped_unicode(&chars("x \\u00e9")));
        assert!(has_glued_words(&chars("the HelloWorld page")));
        assert!(!has_glued_words(&chars("Hello World")));
        assert!(has_glued_words(&chars("McDonald")));
        assert_eq!(repeated(&chars("the house the house"), true, 7, 10), 1);
        assert_eq!(repeated(&chars("abcabc"), false, 4, 10), 1);
    }
}
