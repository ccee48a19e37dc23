//! OpusFilter 3.3.1's deterministic, model-free filters (`opusfilter/filters.py`): each one's
//! score for a pair of segments, as OpusFilter writes it, and its `accept`.
//!
//! Words are Python's `str.split()` tokens ([`crate::text::whitespace`]); lengths count code
//! points; `\s` and `\S` are the `regex` module's (White_Space), and Alphabetic and Script its
//! Unicode properties (Rust's tables: same properties, Unicode 16 where `regex` has its own
//! version).

pub use unicode_script::Script;

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::LazyLock;

use hashbrown::HashMap;

use crate::lid::{self, filter::Identify};
use crate::text::whitespace;

use super::difflib::SequenceMatcher;
use super::html;
use super::levenshtein;
use super::regexp::PyRegex;

/// How a filter measures length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Word,
    Char,
}

impl Unit {
    /// OpusFilter's names: `word`, `char` or `character`.
    pub fn parse(name: &str) -> Result<Unit, String> {
        match name {
            "word" => Ok(Unit::Word),
            "char" | "character" => Ok(Unit::Char),
            other => Err(format!("unit {other:?}: expected word, char or character")),
        }
    }

    /// `get_length`: words (`len(segment.split())`) or code points (`len(segment)`).
    pub fn length(self, segment: &str) -> usize {
        match self {
            Unit::Word => whitespace::split(segment).count(),
            Unit::Char => segment.chars().count(),
        }
    }
}

/// LengthFilter's score of one segment.
pub fn length(segment: &str, unit: Unit) -> usize {
    unit.length(segment)
}

/// LengthFilter's `accept`: every length within its side's bounds, or (with `pass_empty`) all
/// segments empty.
pub fn length_accept(lengths: &[usize], min: &[f64], max: &[f64], pass_empty: bool) -> bool {
    if pass_empty && lengths.iter().sum::<usize>() == 0 {
        return true;
    }
    lengths
        .iter()
        .zip(min.iter().zip(max))
        .all(|(&l, (&lo, &hi))| lo <= l as f64 && l as f64 <= hi)
}

/// LengthRatioFilter: the longer length over the shorter; 0 when both are empty, infinity when
/// one is.
pub fn length_ratio(lengths: &[usize]) -> f64 {
    let (Some(&shortest), Some(&longest)) = (lengths.iter().min(), lengths.iter().max()) else {
        return 0.0;
    };
    match (shortest, longest) {
        (0, 0) => 0.0,
        (0, _) => f64::INFINITY,
        _ => longest as f64 / shortest as f64,
    }
}

/// LongWordFilter: the longest word's length in code points (0 without words).
pub fn longest_word(segment: &str) -> usize {
    whitespace::split(segment)
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0)
}

/// AverageWordLengthFilter: code points of the words over their number (0 without words).
pub fn average_word_length(segment: &str) -> f64 {
    let (mut words, mut chars) = (0usize, 0usize);
    for word in whitespace::split(segment) {
        words += 1;
        chars += word.chars().count();
    }
    if words == 0 {
        return 0.0;
    }
    chars as f64 / words as f64
}

/// The `regex` module's `\s`: White_Space.
fn is_regex_space(c: char) -> bool {
    c.is_whitespace()
}

/// Unicode's Alphabetic, as `char::is_alphabetic`, for the Basic Multilingual Plane from a
/// bitset built once (8 KiB): the standard library searches a table for every character past
/// ASCII, which made it the costliest step of AlphabetRatioFilter on non-Latin text.
fn is_alphabetic(c: char) -> bool {
    static BMP: LazyLock<Box<[u64; 1024]>> = LazyLock::new(|| {
        let mut bits = Box::new([0u64; 1024]);
        for c in (0..0x10000)
            .filter_map(char::from_u32)
            .filter(|c| c.is_alphabetic())
        {
            bits[c as usize / 64] |= 1 << (c as usize % 64);
        }
        bits
    });
    match c as usize {
        cp @ 0..0x10000 => BMP[cp / 64] >> (cp % 64) & 1 == 1,
        _ => c.is_alphabetic(),
    }
}

/// AlphabetRatioFilter: the share of alphabetic characters (Alphabetic) in the segment, with or
/// without its whitespace (`\s`); 1 for an empty segment.
pub fn alphabet_ratio(segment: &str, exclude_whitespace: bool) -> f64 {
    let (mut total, mut alphas) = (0usize, 0usize);
    let mut count = |space: bool, alpha: bool| {
        if !(exclude_whitespace && space) {
            total += 1;
            alphas += usize::from(alpha);
        }
    };
    // ASCII bytes are characters of their own: read them without decoding.
    let bytes = segment.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii() {
            count(matches!(b, b'\t'..=b'\r' | b' '), b.is_ascii_alphabetic());
            at += 1;
        } else {
            let c = segment[at..].chars().next().expect("a character");
            count(is_regex_space(c), is_alphabetic(c));
            at += c.len_utf8();
        }
    }
    if total == 0 {
        return 1.0;
    }
    alphas as f64 / total as f64
}

/// A script as the `regex` module names it in `\p{Script=...}`: its long name (`Latin`,
/// `Old_Italic`) or short name (`Latn`), case, spaces and hyphens aside.
pub fn parse_script(name: &str) -> Result<unicode_script::Script, String> {
    use unicode_script::Script;
    let title = |word: &str| -> String {
        let mut chars = word.chars();
        chars
            .next()
            .map(|first| {
                first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect()
            })
            .unwrap_or_default()
    };
    let words: Vec<String> = name
        .split([' ', '_', '-'])
        .filter(|w| !w.is_empty())
        .map(title)
        .collect();
    Script::from_full_name(&words.join("_"))
        .or_else(|| Script::from_short_name(&title(name)))
        .ok_or_else(|| {
            format!("unknown script {name:?} (Unicode script names: Latin, Cyrillic, Han, ...)")
        })
}

/// CharacterScoreFilter: the share of the segment's alphabetic characters that are in `script`
/// (the Script property, not Script_Extensions); 1 without alphabetic characters.
pub fn character_score(segment: &str, script: unicode_script::Script) -> f64 {
    use unicode_script::UnicodeScript;
    let (mut alphas, mut in_script) = (0usize, 0usize);
    for c in segment.chars().filter(|&c| is_alphabetic(c)) {
        alphas += 1;
        in_script += usize::from(c.script() == script);
    }
    if alphas == 0 {
        return 1.0;
    }
    in_script as f64 / alphas as f64
}

/// TerminalPunctuationFilter: -ln(1 + |s - t| + extra marks), over the counts of `.?!…` in
/// each side.
pub fn terminal_punctuation(src: &str, tgt: &str) -> f64 {
    let count = |s: &str| {
        s.chars()
            .filter(|c| matches!(c, '.' | '?' | '!' | '…'))
            .count() as i64
    };
    let (spun, tpun) = (count(src), count(tgt));
    let mut score = (spun - tpun).abs();
    if spun > 1 {
        score += spun - 1;
    }
    if tpun > 1 {
        score += tpun - 1;
    }
    -((score + 1) as f64).ln()
}

/// NonZeroNumeralsFilter: difflib's ratio between the sequences of the digits 1-9 (ASCII only,
/// `string.digits` without 0) of the two segments.
pub fn non_zero_numerals(src: &str, tgt: &str) -> f64 {
    let digits = |s: &str| -> Vec<u8> { s.bytes().filter(|b| (b'1'..=b'9').contains(b)).collect() };
    let (a, b) = (digits(src), digits(tgt));
    SequenceMatcher::new(&a, &b).ratio()
}

/// LongestCommonSubstringFilter: the longest common substring difflib finds (autojunk and all)
/// over the shorter segment's length in code points; 0 when one is empty.
pub fn longest_common_substring(src: &str, tgt: &str) -> f64 {
    let a: Vec<char> = src.chars().collect();
    let b: Vec<char> = tgt.chars().collect();
    let shorter = a.len().min(b.len());
    if shorter == 0 {
        return 0.0;
    }
    let m = SequenceMatcher::new(&a, &b).find_longest_match(0, a.len(), 0, b.len());
    m.size as f64 / shorter as f64
}

/// SimilarityFilter: rapidfuzz's normalised weighted Levenshtein similarity, over characters or
/// words, lowercased first (Python's `str.lower()`) when asked.
pub fn similarity(
    src: &str,
    tgt: &str,
    unit: Unit,
    lowercase: bool,
    weights: (u64, u64, u64),
) -> f64 {
    let (src, tgt): (Cow<str>, Cow<str>) = match lowercase {
        true => (src.to_lowercase().into(), tgt.to_lowercase().into()),
        false => (src.into(), tgt.into()),
    };
    match unit {
        Unit::Char => {
            let a: Vec<char> = src.chars().collect();
            let b: Vec<char> = tgt.chars().collect();
            levenshtein::normalized_similarity(&a, &b, weights)
        }
        Unit::Word => {
            let a: Vec<&str> = whitespace::split(&src).collect();
            let b: Vec<&str> = whitespace::split(&tgt).collect();
            levenshtein::normalized_similarity(&a, &b, weights)
        }
    }
}

/// RepetitionFilter's parameters: a substring of `min_length` to `max_length + 1` characters
/// (the first not `\s`), repeated at least `threshold` more times with only spaces between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repetition {
    pub threshold: usize,
    pub min_length: usize,
    pub max_length: usize,
}

impl Default for Repetition {
    fn default() -> Self {
        Repetition {
            threshold: 2,
            min_length: 3,
            max_length: 100,
        }
    }
}

impl Repetition {
    /// `get_repetitions(segment)[0]`: the first match of `(\S.{min-1,max}?)(?: *\1){threshold,}`
    /// (leftmost start, then the shortest group), and `full.count(repeated) - 1` over it; 0
    /// without a match.
    ///
    /// The regex tries every group length at every start; a length can only match where its
    /// first repeat begins with the group's first character, so only the lengths that end
    /// (past spaces) at a later occurrence of that character are tried, in the same order.
    pub fn repetitions(&self, segment: &str) -> usize {
        let chars: Vec<char> = segment.chars().collect();
        let n = chars.len();
        // Past the spaces from each position: where ` *` leaves the next repeat to start (a
        // group starts with \S, so the spaces are always all taken).
        let mut past_spaces = vec![n; n + 1];
        // Where the run of spaces ending before each position starts (itself without one).
        let mut spaces_from = vec![0; n + 1];
        let (shortest, longest) = (self.min_length.max(1), 1 + self.max_length);
        // A repeat begins with the group's first characters: its first two when every group
        // has two, which far fewer later positions share than the first alone.
        let next_same = next_occurrences(&chars, shortest.min(2));
        // The next newline after each position.
        let mut newline_after = vec![n; n + 1];
        for i in (0..n).rev() {
            past_spaces[i] = if chars[i] == ' ' {
                past_spaces[i + 1]
            } else {
                i
            };
            newline_after[i] = if chars.get(i + 1) == Some(&'\n') {
                i + 1
            } else {
                newline_after[i + 1]
            };
        }
        for i in 0..=n {
            spaces_from[i] = match i > 0 && chars[i - 1] == ' ' {
                true => spaces_from[i - 1],
                false => i,
            };
        }
        for start in 0..n {
            // `\S` must match the first character.
            if is_regex_space(chars[start]) {
                continue;
            }
            // `.` stops at \n: the group ends before the next newline.
            let longest = longest.min(newline_after[start] - start);
            let mut repeat = next_same[start];
            while repeat != usize::MAX && spaces_from[repeat] - start <= longest {
                // The lengths whose first repeat starts at `repeat`, shortest first.
                let lengths =
                    (spaces_from[repeat] - start).max(shortest)..=(repeat - start).min(longest);
                for len in lengths {
                    // The group's second and last characters rule out most lengths without a
                    // slice comparison.
                    let second = 1.min(len - 1);
                    if chars.get(repeat + second) != Some(&chars[start + second])
                        || chars.get(repeat + len - 1) != Some(&chars[start + len - 1])
                    {
                        continue;
                    }
                    let group = &chars[start..start + len];
                    // `(?: *\1){threshold,}`, greedy: as many repeats as there are.
                    let (mut at, mut repeats) = (start + len, 0);
                    loop {
                        let next = past_spaces[at];
                        if chars.len() >= next + len && &chars[next..next + len] == group {
                            at = next + len;
                            repeats += 1;
                        } else {
                            break;
                        }
                    }
                    if repeats >= self.threshold {
                        return count_non_overlapping(&chars[start..at], group) - 1;
                    }
                }
                repeat = next_same[repeat];
            }
        }
        0
    }
}

thread_local! {
    /// The last position of each pair of ASCII characters in the text being read, valid when
    /// its stamp is the text's (so the table is not cleared for every text).
    static ASCII_PAIRS: RefCell<(u32, Vec<(u32, u32)>)> = RefCell::new((0, vec![(0, 0); 128 * 128]));
}

/// For each position, the next one whose `width` characters (1 or 2) are the same; `usize::MAX`
/// for none (and for the last position, with width 2).
fn next_occurrences(chars: &[char], width: usize) -> Vec<usize> {
    let n = chars.len();
    let mut next = vec![usize::MAX; n];
    // Sized once for text past ASCII: growing it was a sixth of the time on such text.
    let ascii = chars.iter().all(char::is_ascii);
    let mut others: HashMap<(char, char), usize> =
        HashMap::with_capacity(if ascii { 0 } else { n });
    let key = |i: usize| (chars[i], if width == 2 { chars[i + 1] } else { '\0' });
    let first = n.saturating_sub(width - 1);
    if n >= u32::MAX as usize {
        for i in (0..first).rev() {
            next[i] = others.insert(key(i), i).unwrap_or(usize::MAX);
        }
        return next;
    }
    ASCII_PAIRS.with_borrow_mut(|(stamp, last)| {
        *stamp = stamp.wrapping_add(1);
        if *stamp == 0 {
            last.fill((0, 0));
            *stamp = 1;
        }
        for i in (0..first).rev() {
            let (a, b) = key(i);
            next[i] = match a.is_ascii() && b.is_ascii() {
                true => {
                    let entry = &mut last[a as usize * 128 + b as usize];
                    let seen = (entry.0 == *stamp).then_some(entry.1 as usize);
                    *entry = (*stamp, i as u32);
                    seen.unwrap_or(usize::MAX)
                }
                false => others.insert((a, b), i).unwrap_or(usize::MAX),
            };
        }
    });
    next
}

/// Python's `full.count(part)`: non-overlapping occurrences, left to right.
fn count_non_overlapping(full: &[char], part: &[char]) -> usize {
    let (mut count, mut at) = (0, 0);
    while at + part.len() <= full.len() {
        if &full[at..at + part.len()] == part {
            count += 1;
            at += part.len();
        } else {
            at += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_words_and_lengths() {
        assert_eq!(length("a\u{1f}b\u{a0}c", Unit::Word), 3);
        assert_eq!(length("héllo", Unit::Char), 5);
        assert_eq!(length_ratio(&[0, 0]), 0.0);
        assert_eq!(length_ratio(&[0, 3]), f64::INFINITY);
        assert_eq!(length_ratio(&[2, 3]), 1.5);
        assert_eq!(average_word_length("ab abcd"), 3.0);
        assert_eq!(longest_word("a bbb cc"), 3);
    }

    /// The regex's search as written: every start, every group length.
    fn repetitions_by_every_length(r: &Repetition, segment: &str) -> usize {
        let chars: Vec<char> = segment.chars().collect();
        let n = chars.len();
        for start in 0..n {
            if is_regex_space(chars[start]) {
                continue;
            }
            for len in r.min_length.max(1)..=1 + r.max_length {
                if start + len > n || chars[start + 1..start + len].contains(&'\n') {
                    break;
                }
                let group = &chars[start..start + len];
                let (mut at, mut repeats) = (start + len, 0);
                loop {
                    let mut next = at;
                    while next < n && chars[next] == ' ' {
                        next += 1;
                    }
                    if next + len <= n && &chars[next..next + len] == group {
                        at = next + len;
                        repeats += 1;
                    } else {
                        break;
                    }
                }
                if repeats >= r.threshold {
                    return count_non_overlapping(&chars[start..at], group) - 1;
                }
            }
        }
        0
    }

    proptest::proptest! {
        #[test]
        fn alphabet_ratio_reads_ascii_bytes_as_their_characters(
            text in "[a-z0-9 \t\n\u{b}\u{1c}\u{85}\u{a0}é中 .]{0,30}",
            exclude_whitespace: bool,
        ) {
            let kept: Vec<char> = text
                .chars()
                .filter(|c| !(exclude_whitespace && c.is_whitespace()))
                .collect();
            let alphas = kept.iter().filter(|c| c.is_alphabetic()).count();
            let want = if kept.is_empty() { 1.0 } else { alphas as f64 / kept.len() as f64 };
            proptest::prop_assert_eq!(alphabet_ratio(&text, exclude_whitespace), want);
        }

        #[test]
        fn repetitions_try_the_lengths_the_regex_tries(
            text in "[ab \n.]{0,60}",
            threshold in 1usize..4,
            min_length in 1usize..4,
            max_length in 0usize..8,
        ) {
            let r = Repetition { threshold, min_length, max_length };
            proptest::prop_assert_eq!(r.repetitions(&text), repetitions_by_every_length(&r, &text));
        }
    }

    #[test]
    fn alphabetic_is_the_standard_library_s_for_every_character() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(is_alphabetic(c), c.is_alphabetic(), "{c:?}");
        }
    }

    #[test]
    fn repetitions_as_the_regex() {
        let r = Repetition::default();
        // regex.search(r'(\S.{2,100}?)(?: *\1){2,}', 'abcabcabc') -> 'abcabcabc', group 'abc'
        assert_eq!(r.repetitions("abcabcabc"), 2);
        assert_eq!(r.repetitions("abc abc abc abc"), 3);
        assert_eq!(r.repetitions("abcabc"), 0);
        assert_eq!(r.repetitions("no repeats here"), 0);
        // 'aaaaaaaaa': group 'aaa', full 'aaaaaaaaa', count 3 - 1.
        assert_eq!(r.repetitions("aaaaaaaaa"), 2);
    }

    #[test]
    fn terminal_punctuation_as_opusfilter() {
        assert_eq!(terminal_punctuation("Hi.", "Salut."), -(1f64).ln());
        assert_eq!(terminal_punctuation("Hi...", "Salut"), -(6f64).ln());
    }
}

/// One configured filter of an OpusFilter pipeline: its score for a tuple of segments, as
/// OpusFilter's `score()` yields it (the JSON its `score` step writes), and `accept`.
#[derive(Debug, Clone)]
pub enum Filter {
    Length {
        min: Vec<f64>,
        max: Vec<f64>,
        units: Vec<Unit>,
        pass_empty: bool,
    },
    LengthRatio {
        threshold: f64,
        units: Vec<Unit>,
    },
    LongWord {
        thresholds: Vec<f64>,
    },
    AverageWordLength {
        min: Vec<f64>,
        max: Vec<f64>,
        pass_empty: bool,
    },
    AlphabetRatio {
        thresholds: Vec<f64>,
        exclude_whitespace: bool,
    },
    CharacterScore {
        scripts: Vec<Script>,
        thresholds: Vec<f64>,
    },
    TerminalPunctuation {
        threshold: f64,
    },
    NonZeroNumerals {
        threshold: f64,
        require_all: bool,
    },
    LongestCommonSubstring {
        threshold: f64,
        require_all: bool,
    },
    Similarity {
        threshold: f64,
        weights: (u64, u64, u64),
        unit: Unit,
        lowercase: bool,
        require_all: bool,
    },
    Repetition {
        repetition: Option<Repetition>,
    },
    /// HtmlTagFilter.
    HtmlTag,
    /// RegExpFilter: a pattern per side.
    RegExp {
        regexps: Vec<PyRegex>,
        accept_match: bool,
    },
    /// LanguageIDFilter, LangidFilter, FastTextFilter, LinguaFilter.
    LanguageId {
        /// The language expected of each side.
        languages: Vec<String>,
        thresholds: Vec<f64>,
        identify: Identify,
    },
}

/// A per-side parameter: one value for every side, or a list with one per side.
pub fn per_side<T: Clone>(values: &[T], side: usize) -> &T {
    if values.len() == 1 {
        &values[0]
    } else {
        &values[side]
    }
}

impl Filter {
    /// The score of one tuple of segments.
    pub fn score(&self, segments: &[&str]) -> Result<super::json::Value, String> {
        use super::json::Value::{Bool, Float, Int, List};
        let floats = |v: Vec<f64>| List(v.into_iter().map(Float).collect());
        let pairs = || {
            let mut pairs = Vec::new();
            for i in 0..segments.len() {
                for j in i + 1..segments.len() {
                    pairs.push((segments[i], segments[j]));
                }
            }
            pairs
        };
        Ok(match self {
            Filter::Length { units, .. } => List(
                segments
                    .iter()
                    .enumerate()
                    .map(|(i, s)| Int(per_side(units, i).length(s) as i64))
                    .collect(),
            ),
            Filter::LengthRatio { units, .. } => {
                let lengths: Vec<usize> = segments
                    .iter()
                    .enumerate()
                    .map(|(i, s)| per_side(units, i).length(s))
                    .collect();
                match length_ratio(&lengths) {
                    // Both empty: OpusFilter yields the integer 0.
                    0.0 => Int(0),
                    ratio => Float(ratio),
                }
            }
            Filter::LongWord { .. } => List(
                segments
                    .iter()
                    .map(|s| Int(longest_word(s) as i64))
                    .collect(),
            ),
            Filter::AverageWordLength { .. } => List(
                segments
                    .iter()
                    .map(|s| match whitespace::split(s).next() {
                        None => Int(0),
                        Some(_) => Float(average_word_length(s)),
                    })
                    .collect(),
            ),
            Filter::AlphabetRatio {
                exclude_whitespace, ..
            } => floats(
                segments
                    .iter()
                    .map(|s| alphabet_ratio(s, *exclude_whitespace))
                    .collect(),
            ),
            Filter::CharacterScore { scripts, .. } => {
                if scripts.len() != segments.len() {
                    return Err(format!(
                        "Mismatch in number of scripts ({}) and sentences ({})",
                        scripts.len(),
                        segments.len()
                    ));
                }
                floats(
                    segments
                        .iter()
                        .zip(scripts)
                        .map(|(s, &script)| character_score(s, script))
                        .collect(),
                )
            }
            Filter::TerminalPunctuation { .. } => match segments {
                [src, tgt] => Float(terminal_punctuation(src, tgt)),
                _ => {
                    return Err(
                        "Only bilingual input supported by TerminalPunctuationFilter".into(),
                    );
                }
            },
            Filter::NonZeroNumerals { .. } => floats(
                pairs()
                    .into_iter()
                    .map(|(a, b)| non_zero_numerals(a, b))
                    .collect(),
            ),
            Filter::LongestCommonSubstring { .. } => List(
                pairs()
                    .into_iter()
                    .map(|(a, b)| match a.is_empty() || b.is_empty() {
                        true => Int(0),
                        false => Float(longest_common_substring(a, b)),
                    })
                    .collect(),
            ),
            Filter::Similarity {
                weights,
                unit,
                lowercase,
                ..
            } => floats(
                pairs()
                    .into_iter()
                    .map(|(a, b)| similarity(a, b, *unit, *lowercase, *weights))
                    .collect(),
            ),
            Filter::Repetition { repetition } => Int(match repetition {
                None => 0,
                Some(r) => segments.iter().map(|s| r.repetitions(s)).max().unwrap_or(0) as i64,
            }),
            Filter::HtmlTag => List(segments.iter().map(|s| Bool(html::has_tag(s))).collect()),
            Filter::RegExp { regexps, .. } => List(
                segments
                    .iter()
                    .enumerate()
                    .map(|(i, s)| match regexps.get(i) {
                        Some(regex) => regex.search(s).map(Bool),
                        None => Err(format!(
                            "{} patterns for {} inputs (OpusFilter stops with an IndexError)",
                            regexps.len(),
                            segments.len()
                        )),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Filter::LanguageId {
                languages,
                identify,
                ..
            } => List(
                segments
                    .iter()
                    .enumerate()
                    .map(|(i, s)| match languages.get(i) {
                        Some(lang) => identify.confidence(s, lang).map(Float),
                        None => Err(format!(
                            "{} languages for {} inputs (OpusFilter stops with an IndexError)",
                            languages.len(),
                            segments.len()
                        )),
                    })
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    /// `accept(score)`.
    pub fn accept(&self, score: &super::json::Value) -> bool {
        use super::json::Value;
        let numbers: Vec<f64> = match score {
            Value::List(items) => items.iter().map(number).collect(),
            single => vec![number(single)],
        };
        let all_or_any = |require_all: bool, ok: &dyn Fn(f64) -> bool| match require_all {
            true => numbers.iter().all(|&x| ok(x)),
            false => numbers.iter().any(|&x| ok(x)),
        };
        match self {
            Filter::Length {
                min,
                max,
                pass_empty,
                ..
            }
            | Filter::AverageWordLength {
                min,
                max,
                pass_empty,
            } => {
                if *pass_empty && numbers.iter().sum::<f64>() == 0.0 {
                    return true;
                }
                numbers
                    .iter()
                    .enumerate()
                    .all(|(i, &x)| *per_side(min, i) <= x && x <= *per_side(max, i))
            }
            Filter::LengthRatio { threshold, .. } => numbers[0] < *threshold,
            Filter::LongWord { thresholds } => numbers
                .iter()
                .enumerate()
                .all(|(i, &x)| x < *per_side(thresholds, i)),
            Filter::AlphabetRatio { thresholds, .. } => numbers
                .iter()
                .enumerate()
                .all(|(i, &x)| x >= *per_side(thresholds, i)),
            // zip(score, thresholds): sides beyond the thresholds are not checked.
            Filter::CharacterScore { thresholds, .. } => {
                numbers.iter().zip(thresholds).all(|(&x, &t)| x >= t)
            }
            Filter::TerminalPunctuation { threshold } => numbers[0] >= *threshold,
            Filter::NonZeroNumerals {
                threshold,
                require_all,
            } => all_or_any(*require_all, &|x| x >= *threshold),
            Filter::LongestCommonSubstring {
                threshold,
                require_all,
            }
            | Filter::Similarity {
                threshold,
                require_all,
                ..
            } => all_or_any(*require_all, &|x| x < *threshold),
            Filter::Repetition { repetition } => match repetition {
                None => true,
                Some(r) => numbers[0] < r.threshold as f64,
            },
            Filter::HtmlTag => numbers.iter().all(|&x| x == 0.0),
            Filter::RegExp { accept_match, .. } => match accept_match {
                true => numbers.iter().all(|&x| x != 0.0),
                false => numbers.iter().all(|&x| x == 0.0),
            },
            Filter::LanguageId { thresholds, .. } => lid::filter::accept(&numbers, thresholds),
        }
    }
}

/// What a filter's score holds, for a table with a column per filter: one value per side
/// (`per_side`, where OpusFilter writes a list over its inputs) or one value for the pair (a
/// number, or the one comparison of a two-sided list over pairs of inputs), and of what type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub per_side: bool,
    pub item: Item,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Integer,
    Float,
    Flag,
}

impl Filter {
    pub fn shape(&self) -> Shape {
        let (per_side, item) = match self {
            Filter::Length { .. } | Filter::LongWord { .. } => (true, Item::Integer),
            Filter::AverageWordLength { .. }
            | Filter::AlphabetRatio { .. }
            | Filter::CharacterScore { .. }
            | Filter::LanguageId { .. } => (true, Item::Float),
            Filter::HtmlTag | Filter::RegExp { .. } => (true, Item::Flag),
            Filter::LengthRatio { .. }
            | Filter::TerminalPunctuation { .. }
            | Filter::NonZeroNumerals { .. }
            | Filter::LongestCommonSubstring { .. }
            | Filter::Similarity { .. } => (false, Item::Float),
            Filter::Repetition { .. } => (false, Item::Integer),
        };
        Shape { per_side, item }
    }
}

fn number(value: &super::json::Value) -> f64 {
    use super::json::Value;
    match value {
        Value::Int(i) => *i as f64,
        Value::Float(x) => *x,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => f64::NAN,
    }
}
