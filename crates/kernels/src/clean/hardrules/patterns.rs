//! The rules' regular expressions, each written out as what it matches over a sentence's code
//! points: `findall` counts are leftmost, non-overlapping matches; a search is whether one exists.
//! The two with a backreference (`no_repeated_words`) follow the backtracking order of the
//! `regex` module, since the first match found at a position decides where the next search
//! starts.

use super::unicode::{ALPHA, DECIMAL, LOWER, SPACE, UPPER, WORD, caseless, strip_chars};

/// `regex_url.findall(s)` is non-empty. Of the pattern
/// `(http(s)?:\/\/.)?(www\.)?[-a-zA-Z0-9@:%._\+~#=]{2,256}\.[a-z]{2,6}\b(...)*`, the optional
/// head and tail never decide whether a match exists: two characters of the host set before a
/// dot, then 2–6 lowercase ASCII letters ending at a word boundary.
pub(super) fn has_url(s: &[char], p: &[u8]) -> bool {
    let host = |c: char| c.is_ascii_alphanumeric() || "-@:%._+~#=".contains(c);
    (2..s.len()).any(|dot| {
        s[dot] == '.' && host(s[dot - 1]) && host(s[dot - 2]) && {
            let run = s[dot + 1..]
                .iter()
                .take_while(|c| c.is_ascii_lowercase())
                .count();
            (2..=6).contains(&run) && p.get(dot + 1 + run).is_none_or(|&bits| bits & WORD == 0)
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
pub(super) fn has_space_noise(s: &[char], p: &[u8]) -> bool {
    (0..s.len()).any(|start| {
        let pairs = (0..)
            .take_while(|k| {
                let i = start + 2 * k;
                i + 1 < s.len() && s[i] == ' ' && p[i + 1] & DECIMAL == 0
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
pub(super) fn has_glued_words(p: &[u8]) -> bool {
    const BEFORE: [u8; 2] = [1, 8];
    const CAPITAL: [u8; 2] = [2, 16];
    const AFTER_LOWER: [u8; 2] = [4, 32];
    let mut states = 0u8;
    for &bits in p {
        // Epsilon moves: a unit that has read a lowercase letter may end; the second one ending
        // is a match. A new attempt starts at every position.
        if states & AFTER_LOWER[1] != 0 {
            return true;
        }
        states |= BEFORE[0];
        if states & AFTER_LOWER[0] != 0 {
            states |= BEFORE[1];
        }
        let (alpha, upper, lower) = (bits & ALPHA != 0, bits & UPPER != 0, bits & LOWER != 0);
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
            if states & (CAPITAL[unit] | AFTER_LOWER[unit]) != 0 && lower {
                next |= AFTER_LOWER[unit];
            }
        }
        states = next;
    }
    states & AFTER_LOWER[1] != 0
}

/// `no_repeated_words`' count: of the matches of its pattern (in `finditer` order), those whose
/// stripped text is longer than `min_chars` and holds a letter, counted up to `limit`.
/// `with_words`: `(?i)(\b\S+(.+))\s+\b\1\b`, else `(.+)\1`.
pub(super) fn repeated(
    s: &[char],
    p: &[u8],
    with_words: bool,
    min_chars: usize,
    limit: usize,
) -> usize {
    let matcher = Repeats::new(s, p, with_words);
    let mut found = 0;
    let mut start = 0;
    while start < s.len() && found < limit {
        let Some(end) = matcher.at(start) else {
            start += 1;
            continue;
        };
        let (from, to) = strip_chars(&s[start..end]);
        if to - from > min_chars
            && p[start + from..start + to]
                .iter()
                .any(|&bits| bits & ALPHA != 0)
        {
            found += 1;
        }
        start = end;
    }
    found
}

/// The two patterns, matched at a position in the order the `regex` module's backtracking tries
/// them: the longest group first. Only the candidates that can match are visited: for the word
/// pattern the runs of spaces after which the copy starts with the group's first two characters
/// (caselessly), for the other the later occurrences of the group's first character.
struct Repeats<'a> {
    s: &'a [char],
    p: &'a [u8],
    with_words: bool,
    /// For the word pattern, each run of `\s` followed by a word character (`\b` after a space)
    /// and a second character: (the classes of those two, the run's start, its end), sorted.
    runs: Vec<(u64, usize, usize)>,
    /// One bit per key of `runs` (by a hash): most starts are ruled out by it.
    run_keys: u64,
    /// For the other: (the two characters at a position, the position), sorted.
    occurrences: Vec<(u64, usize)>,
    /// Where the newlines are.
    newlines: Vec<usize>,
}

/// The caseless classes of two characters, as one key.
fn two_caseless(a: char, b: char) -> u64 {
    u64::from(caseless(a)) << 32 | u64::from(caseless(b))
}

/// Two characters as one key.
fn two(a: char, b: char) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

/// A key's bit in `Repeats::run_keys`.
fn key_bit(key: u64) -> u64 {
    1 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

impl<'a> Repeats<'a> {
    fn new(s: &'a [char], p: &'a [u8], with_words: bool) -> Repeats<'a> {
        let (mut runs, mut occurrences, mut run_keys) = (Vec::new(), Vec::new(), 0);
        if with_words {
            let mut i = 0;
            while i < s.len() {
                if p[i] & SPACE == 0 {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < s.len() && p[i] & SPACE != 0 {
                    i += 1;
                }
                if i + 1 < s.len() && p[i] & WORD != 0 {
                    let key = two_caseless(s[i], s[i + 1]);
                    run_keys |= key_bit(key);
                    runs.push((key, start, i));
                }
            }
            runs.sort_unstable();
        } else {
            occurrences = s
                .windows(2)
                .enumerate()
                .map(|(i, w)| (two(w[0], w[1]), i))
                .collect();
            occurrences.sort_unstable();
        }
        let newlines = (0..s.len()).filter(|&i| s[i] == '\n').collect();
        Repeats {
            s,
            p,
            with_words,
            runs,
            run_keys,
            occurrences,
            newlines,
        }
    }

    /// The end of the match at `start`, if there is one.
    fn at(&self, start: usize) -> Option<usize> {
        match self.with_words {
            true => self.words_at(start),
            false => self.repeat_at(start),
        }
    }

    /// The end of the line holding `start` (a `.` never crosses a newline).
    fn line_end(&self, start: usize) -> usize {
        let next = self.newlines.partition_point(|&i| i < start);
        self.newlines.get(next).copied().unwrap_or(self.s.len())
    }

    /// `(.+)\1` at `start`: the group `s[start..end]` for every `end` from the line's end down
    /// (the copy cannot cross it either): of two characters or more, where the copy starts with
    /// the group's first two; then of one.
    fn repeat_at(&self, start: usize) -> Option<usize> {
        let s = self.s;
        let last = self.line_end(start).min(start + (s.len() - start) / 2);
        if last <= start {
            return None;
        }
        let key = two(s[start], s[start + 1]);
        let from = self.occurrences.partition_point(|&o| o < (key, start + 2));
        let to = self.occurrences.partition_point(|&o| o <= (key, last));
        self.occurrences[from..to]
            .iter()
            .rev()
            .map(|&(_, end)| end)
            .find(|&end| s[start..end] == s[end..2 * end - start])
            .or_else(|| (s[start + 1] == s[start]).then_some(start + 1))
            .map(|end| 2 * end - start)
    }

    /// `(?i)(\b\S+(.+))\s+\b\1\b` at `start`. Whatever split `\S+(.+)` backtracks through,
    /// the group is `s[start..end]` for every `end` from the line's end down (at least two
    /// characters); `\s+` must take at least one space, and takes the rest of its run (a shorter
    /// take leaves a space where the group's first, non-space character must match). So `end`
    /// lies in a run of spaces, and the copy starts where that run ends.
    fn words_at(&self, start: usize) -> Option<usize> {
        let (s, p) = (self.s, self.p);
        let word = |i: usize| i < s.len() && p[i] & WORD != 0;
        let boundary = |i: usize| (i > 0 && word(i - 1)) != word(i);
        if p[start] & SPACE != 0 || !boundary(start) || start + 2 >= s.len() {
            return None;
        }
        let key = two_caseless(s[start], s[start + 1]);
        if self.run_keys & key_bit(key) == 0 {
            return None;
        }
        let from = self.runs.partition_point(|&(k, _, _)| k < key);
        let to = self.runs.partition_point(|&(k, _, _)| k <= key);
        if from == to {
            return None;
        }
        let line_end = self.line_end(start);
        for &(_, run_start, copy) in self.runs[from..to].iter().rev() {
            if run_start > line_end {
                continue;
            }
            if copy <= start + 2 {
                break;
            }
            let ends = run_start.max(start + 2)..=(copy - 1).min(line_end);
            for end in ends.rev() {
                let copy_end = copy + (end - start);
                if copy_end <= s.len()
                    && s[start..end]
                        .iter()
                        .zip(&s[copy..copy_end])
                        .all(|(&a, &b)| a == b || caseless(a) == caseless(b))
                    && boundary(copy_end)
                {
                    return Some(copy_end);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn props(s: &str) -> Vec<u8> {
        s.chars().map(super::super::unicode::properties).collect()
    }

    #[test]
    fn patterns_match_where_the_regexes_do() {
        assert!(has_url(
            &chars("see example.com now"),
            &props("see example.com now")
        ));
        assert!(!has_url(
            &chars("see example.community"),
            &props("see example.community")
        ));
        assert!(!has_url(&chars("e.com"), &props("e.com")));
        assert!(has_url(&chars("ab.cd"), &props("ab.cd")));
        assert_eq!(breadcrumbs1(&chars("a - b / c : d <e>")), 5);
        assert_eq!(breadcrumbs1(&chars(" - - ")), 1);
        assert_eq!(breadcrumbs2(&chars("a » b | c · d")), 3);
        assert!(has_latin1_run(&chars("xÃ©Â©"), 3));
        assert!(has_space_noise(&chars(" a b c d "), &props(" a b c d ")));
        assert!(!has_space_noise(&chars(" a b c d"), &props(" a b c d")));
        assert!(!has_space_noise(
            &chars(" a b 1 d e "),
            &props(" a b 1 d e ")
        ));
        assert!(has_escaped_unicode(&chars("x \\u00e9")));
        assert!(has_glued_words(&props("the HelloWorld page")));
        assert!(!has_glued_words(&props("Hello World")));
        assert!(has_glued_words(&props("McDonald")));
        assert_eq!(
            repeated(
                &chars("the house the house"),
                &props("the house the house"),
                true,
                7,
                10
            ),
            1
        );
        assert_eq!(
            repeated(&chars("abcabc"), &props("abcabc"), false, 4, 10),
            1
        );
    }
}
