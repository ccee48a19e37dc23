//! SemEval-2014 Task 5 word accuracy of an output fragment against a reference and its
//! alternatives (SPEC §4, `testvectors/word_accuracy/`), exactly as the task's official scorer
//! (`evaluation.py` 2.1, which produced the published results) computes it:
//!
//! - **normalising** a fragment: for Spanish, `de el` → `del` and `a el` → `al` (and `De el`,
//!   `A el`); then every token that is a *substring* of `,;.?¿¡!` is removed, anywhere in the
//!   fragment (the official test is Python's `x in ',;.?¿¡!'`, so `?¿` and `,;` go too, and
//!   so would an empty token);
//! - **equality** of token sequences is equality of their concatenations *without* a
//!   separator (`''.join`), lowercased first when case is ignored;
//! - a pair scores 1 when equal, else the longest match between a run of out's tokens and a
//!   run of ref's tokens (runs whose concatenations are equal, so `New York` matches
//!   `NewYork`; a match counts the longer run's tokens) over the longer fragment's length;
//! - the fragment's score is the best over every output (with out-of-five, the answer and up
//!   to four alternatives) against every reference (the reference and its alternatives).
//!
//! Plain Rust: no Arrow here.

/// How tokens are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    /// Compare lowercased (the scorer's `-i`).
    pub ignore_case: bool,
    /// The L2 is Spanish: contract `de el` and `a el` first.
    pub spanish: bool,
}

const PUNCTUATION: &str = ",;.?¿¡!";
const CONTRACTIONS: [([&str; 2], &str); 4] = [
    (["de", "el"], "del"),
    (["a", "el"], "al"),
    (["De", "el"], "Del"),
    (["A", "el"], "Al"),
];

/// A fragment's tokens as the scorer compares them (see the module's notes).
pub fn normalize<'a>(tokens: &[&'a str], rules: Rules) -> Vec<&'a str> {
    let mut out = tokens.to_vec();
    if rules.spanish {
        // One pass per contraction, left to right and without overlaps, as the scorer's replace().
        for (pair, contracted) in CONTRACTIONS {
            let mut merged = Vec::with_capacity(out.len());
            let mut i = 0;
            while i < out.len() {
                if out[i..].starts_with(&pair) {
                    merged.push(contracted);
                    i += 2;
                } else {
                    merged.push(out[i]);
                    i += 1;
                }
            }
            out = merged;
        }
    }
    out.retain(|t| !PUNCTUATION.contains(t));
    out
}

/// Reused buffers of [`word_accuracy`].
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    out: Vec<&'a str>,
}

/// The word accuracy of `out` against the best of `refs`, case-sensitive and without Spanish
/// contractions (what `word_accuracy()` in SQL computes); None when there is no reference.
pub fn word_accuracy<'a, 'r>(
    out: &[&'a str],
    refs: impl IntoIterator<Item = &'r [&'a str]>,
    scratch: &mut Scratch<'a>,
) -> Option<f64>
where
    'a: 'r,
{
    let rules = Rules::default();
    scratch.out = normalize(out, rules);
    let mut best: Option<f64> = None;
    for reference in refs {
        let score = pair_score(
            &scratch.out,
            &normalize(reference, rules),
            rules.ignore_case,
        );
        best = Some(best.map_or(score, |b| b.max(score)));
    }
    best
}

/// The score of one normalised output against one normalised reference.
pub fn pair_score(out: &[&str], reference: &[&str], ignore_case: bool) -> f64 {
    if joined(out, ignore_case) == joined(reference, ignore_case) {
        return 1.0;
    }
    longest_match(out, reference, ignore_case) as f64 / out.len().max(reference.len()) as f64
}

fn joined(tokens: &[&str], ignore_case: bool) -> String {
    let text = tokens.concat();
    if ignore_case {
        text.to_lowercase()
    } else {
        text
    }
}

/// The longest match between a run of `a` and a run of `b` (equal concatenations), counted
/// in the longer run's tokens; 0 when no run matches.
fn longest_match(a: &[&str], b: &[&str], ignore_case: bool) -> usize {
    // Lowercasing token by token equals lowercasing their concatenation except for a final
    // sigma, whose form depends on what follows it: there, compare concatenations run by run.
    if ignore_case {
        if a.iter().chain(b).any(|t| t.contains('Σ')) {
            return longest_match_by_runs(a, b);
        }
        let (la, lb) = (lowercase(a), lowercase(b));
        return longest_match(
            &la.iter().map(String::as_str).collect::<Vec<_>>(),
            &lb.iter().map(String::as_str).collect::<Vec<_>>(),
            false,
        );
    }
    // With both concatenations and their token boundaries, runs a[i..i+p] and b[j..j+q] match
    // when their byte lengths are equal and within the common prefix of the two suffixes.
    let (ta, sa) = bounds(a);
    let (tb, sb) = bounds(b);
    let mut best = 0;
    for i in 0..a.len() {
        for j in 0..b.len() {
            let common = ta.as_bytes()[sa[i]..]
                .iter()
                .zip(&tb.as_bytes()[sb[j]..])
                .take_while(|(x, y)| x == y)
                .count();
            // Walk both boundary lists (offsets from the runs' starts) in step.
            let (mut p, mut q) = (i + 1, j + 1);
            while p <= a.len() && q <= b.len() {
                let (da, db) = (sa[p] - sa[i], sb[q] - sb[j]);
                if da.max(db) > common {
                    break;
                }
                if da == db {
                    // The longest runs ending at this offset (empty tokens end at the same one).
                    let (mut p2, mut q2) = (p, q);
                    while p2 < a.len() && sa[p2 + 1] == sa[p2] {
                        p2 += 1;
                    }
                    while q2 < b.len() && sb[q2 + 1] == sb[q2] {
                        q2 += 1;
                    }
                    best = best.max((p2 - i).max(q2 - j));
                    (p, q) = (p2 + 1, q2 + 1);
                } else if da < db {
                    p += 1;
                } else {
                    q += 1;
                }
            }
        }
    }
    best
}

fn lowercase(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|t| t.to_lowercase()).collect()
}

/// The concatenation of `tokens` and where each token starts in it (and, last, its length).
fn bounds(tokens: &[&str]) -> (String, Vec<usize>) {
    let mut starts = Vec::with_capacity(tokens.len() + 1);
    let mut text = String::new();
    for t in tokens {
        starts.push(text.len());
        text.push_str(t);
    }
    starts.push(text.len());
    (text, starts)
}

/// [`longest_match`] by the definition: every pair of runs, concatenated and lowercased.
fn longest_match_by_runs(a: &[&str], b: &[&str]) -> usize {
    let mut best = 0;
    for i in 0..a.len() {
        for p in i + 1..=a.len() {
            let x = a[i..p].concat().to_lowercase();
            for j in 0..b.len() {
                for q in j + 1..=b.len() {
                    if x == b[j..q].concat().to_lowercase() {
                        best = best.max((p - i).max(q - j));
                    }
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(out: &str, refs: &[&str]) -> Option<f64> {
        let out: Vec<&str> = out.split_whitespace().collect();
        let refs: Vec<Vec<&str>> = refs
            .iter()
            .map(|r| r.split_whitespace().collect())
            .collect();
        word_accuracy(
            &out,
            refs.iter().map(Vec::as_slice),
            &mut Scratch::default(),
        )
    }

    #[test]
    fn hand_worked_cases() {
        assert_eq!(score("a b c", &["a b c"]), Some(1.0));
        assert_eq!(score("a b c d", &["x b c y"]), Some(0.5));
        assert_eq!(score("a b", &["b a"]), Some(0.5));
        assert_eq!(score("¿ qué ?", &["qué"]), Some(1.0));
        assert_eq!(score(". ,", &["!"]), Some(1.0));
        assert_eq!(score("a", &["."]), Some(0.0));
        assert_eq!(score("a", &[]), None);
    }

    #[test]
    fn the_official_scorer_joins_without_a_separator() {
        // ''.join: `New York` equals `NewYork`, and a run matching a longer run counts the longer.
        assert_eq!(score("New York", &["NewYork"]), Some(1.0));
        assert_eq!(score("in New York now", &["NewYork", "x"]), Some(0.5));
        // Tokens that are substrings of ",;.?¿¡!" go, wherever they are.
        assert_eq!(score("?¿ a ,; b", &["a b"]), Some(1.0));
        assert_eq!(
            score("a .!", &["a"]),
            Some(0.5),
            "`.!` is not a substring of `,;.?¿¡!`"
        );
    }

    #[test]
    fn spanish_contractions_and_case() {
        let spanish = Rules {
            spanish: true,
            ignore_case: false,
        };
        assert_eq!(
            normalize(&["De", "el", "a", "el", "x", "de", "el", "el"], spanish),
            ["Del", "al", "x", "del", "el"]
        );
        assert_eq!(normalize(&["de", "el"], Rules::default()), ["de", "el"]);
        assert_eq!(pair_score(&["Casa", "Blanca"], &["casablanca"], true), 1.0);
        assert_eq!(
            pair_score(&["Casa", "Blanca", "x"], &["casablanca"], true),
            2.0 / 3.0
        );
        assert_eq!(
            pair_score(&["Casa", "Blanca", "x"], &["casablanca"], false),
            0.0
        );
        assert_eq!(
            pair_score(&["ΟΔΟΣ", "x"], &["οδος"], true),
            0.5,
            "a final sigma, lowercased per run"
        );
    }

    #[test]
    fn longest_match_equals_the_definition_on_random_runs() {
        let tokens = ["a", "b", "ab", "ba", "A"];
        let mut rng = crate::stats::random::SplitMix64::new(5);
        for _ in 0..4000 {
            let a: Vec<&str> = (0..1 + rng.below(5))
                .map(|_| tokens[rng.below(5)])
                .collect();
            let b: Vec<&str> = (0..1 + rng.below(5))
                .map(|_| tokens[rng.below(5)])
                .collect();
            for ignore_case in [false, true] {
                let fast = longest_match(&a, &b, ignore_case);
                let slow = if ignore_case {
                    longest_match_by_runs(&a, &b)
                } else {
                    let mut best = 0;
                    for i in 0..a.len() {
                        for p in i + 1..=a.len() {
                            for j in 0..b.len() {
                                for q in j + 1..=b.len() {
                                    if a[i..p].concat() == b[j..q].concat() {
                                        best = best.max((p - i).max(q - j));
                                    }
                                }
                            }
                        }
                    }
                    best
                };
                assert_eq!(fast, slow, "{a:?} {b:?} ignore_case={ignore_case}");
            }
        }
    }
}
