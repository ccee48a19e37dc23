//! Synthetic phrases (IUCL, SemEval-2014 Task 5; SPEC §4): translations of a phrase built
//! from the table's translations of its pieces. The phrase is split into contiguous pieces
//! that all have table entries (or, given a [`Lexicon`], entries there for the pieces the table
//! lacks); each candidate concatenates one translation per piece, in the phrase's order, with
//! direct and inverse probabilities the products of the pieces'.
//!
//! Order: splits with fewer pieces first (longer pieces); among splits with as many pieces,
//! the one whose pieces, longest first, are longer (`3+1` before `2+2`), then the one whose
//! first piece is longer; within a split, by direct then inverse probability, descending.
//! Only the first [`Limits::decompositions`] splits in that order are tried. A candidate text
//! already listed (from a better split) is not listed again. Plain Rust.

use crate::pair::true_score::{PhraseIndex, Rule};

/// The longest phrase we split: the number of splits grows as 2^(n-1).
pub const MAX_TOKENS: usize = 20;

/// Splits tried when not told: the IUCL system's first 100.
pub const DEFAULT_DECOMPOSITIONS: usize = 100;

/// One candidate translation.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub tokens: Vec<String>,
    /// Product of the pieces' p(tgt | src).
    pub direct: f64,
    /// Product of the pieces' p(src | tgt).
    pub inverse: f64,
    /// The source pieces, in order.
    pub split: Vec<String>,
}

/// Translations of the pieces the phrase table has none for: a bilingual dictionary's, say.
pub trait Lexicon {
    /// `phrase`'s translations as (words, p(tgt | src), p(src | tgt)).
    fn translations(&self, phrase: &[&str]) -> Vec<(&[String], f64, f64)>;
}

/// How much is listed: at most `candidates` candidates, from at most the first
/// `decompositions` splits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub candidates: usize,
    pub decompositions: usize,
}

impl Limits {
    /// At most `candidates` candidates, from the default number of splits.
    pub fn at_most(candidates: usize) -> Limits {
        Limits {
            candidates,
            decompositions: DEFAULT_DECOMPOSITIONS,
        }
    }
}

/// One translation of a piece.
struct Piece<'a> {
    words: Words<'a>,
    direct: f64,
    inverse: f64,
}

#[derive(Clone, Copy)]
enum Words<'a> {
    Table(&'a Rule),
    Lexicon(&'a [String]),
}

/// Candidates for `phrase`, best first (see the module's order), within `limits`. An empty
/// phrase, or one longer than [`MAX_TOKENS`], has none.
pub fn synthetic_phrases<'a>(
    index: Option<&'a PhraseIndex>,
    lexicon: Option<&'a dyn Lexicon>,
    phrase: &[&str],
    limits: Limits,
) -> Vec<Candidate> {
    let n = phrase.len();
    let max = limits.candidates;
    if n == 0 || n > MAX_TOKENS || max == 0 {
        return Vec::new();
    }
    // pieces[i][len - 1]: the translations of phrase[i..i + len] (the table's, else the
    // lexicon's), best direct probability first, then inverse, then by target words: the order
    // never depends on the table's row order.
    let pieces: Vec<Vec<Vec<Piece<'a>>>> = (0..n)
        .map(|i| {
            (1..=n - i)
                .map(|len| {
                    let span = &phrase[i..i + len];
                    let mut found: Vec<Piece> = index
                        .and_then(|index| Some(index.rules_of(index.node(span)?)))
                        .unwrap_or_default()
                        .iter()
                        .map(|rule| Piece {
                            words: Words::Table(rule),
                            direct: rule.directions.direct,
                            inverse: rule.directions.inverse,
                        })
                        .collect();
                    if found.is_empty()
                        && let Some(lexicon) = lexicon
                    {
                        found.extend(lexicon.translations(span).into_iter().map(
                            |(words, direct, inverse)| Piece {
                                words: Words::Lexicon(words),
                                direct,
                                inverse,
                            },
                        ));
                    }
                    found.sort_by(|a, b| {
                        b.direct
                            .total_cmp(&a.direct)
                            .then(b.inverse.total_cmp(&a.inverse))
                            .then_with(|| target(a, index).cmp(target(b, index)))
                    });
                    // best_products never takes more than `max` of one span.
                    found.truncate(max);
                    found
                })
                .collect()
        })
        .collect();
    let covered = |i: usize, len: usize| !pieces[i][len - 1].is_empty();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut tried = 0;
    for count in 1..=n {
        let mut splits = Vec::new();
        collect_splits(n, count, &covered, &mut Vec::new(), &mut splits);
        splits.sort_by_cached_key(|lengths: &Vec<usize>| {
            let mut longest_first = lengths.clone();
            longest_first.sort_unstable_by(|a, b| b.cmp(a));
            std::cmp::Reverse((longest_first, lengths.clone()))
        });
        for lengths in splits {
            if tried == limits.decompositions {
                return out;
            }
            tried += 1;
            let spans: Vec<(usize, usize)> = lengths
                .iter()
                .scan(0, |start, &len| {
                    let span = (*start, len);
                    *start += len;
                    Some(span)
                })
                .collect();
            for (direct, inverse, choice) in best_products(&spans, &pieces, max) {
                let tokens: Vec<String> = spans
                    .iter()
                    .zip(&choice)
                    .flat_map(|(&(i, len), &r)| target(&pieces[i][len - 1][r], index))
                    .map(str::to_owned)
                    .collect();
                if !seen.insert(tokens.join(" ")) {
                    continue;
                }
                let split = spans
                    .iter()
                    .map(|&(i, len)| phrase[i..i + len].join(" "))
                    .collect();
                out.push(Candidate {
                    tokens,
                    direct,
                    inverse,
                    split,
                });
                if out.len() == max {
                    return out;
                }
            }
        }
    }
    out
}

/// A piece's target words, from the table or from the lexicon.
fn target<'a>(
    piece: &Piece<'a>,
    index: Option<&'a PhraseIndex>,
) -> impl Iterator<Item = &'a str> + use<'a> {
    let (table, lexicon) = match piece.words {
        Words::Table(rule) => {
            let index = index.expect("table pieces come from the table");
            (Some(index.target_words(rule)), None)
        }
        Words::Lexicon(words) => (None, Some(words.iter().map(String::as_str))),
    };
    table
        .into_iter()
        .flatten()
        .chain(lexicon.into_iter().flatten())
}

/// Every split of n tokens into `pieces` covered pieces, as piece lengths.
fn collect_splits(
    n: usize,
    pieces: usize,
    covered: &impl Fn(usize, usize) -> bool,
    prefix: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) {
    let start: usize = prefix.iter().sum();
    let left = pieces - prefix.len();
    if left == 0 {
        if start == n {
            out.push(prefix.clone());
        }
        return;
    }
    // Leave at least one token for each remaining piece.
    for len in 1..=(n - start).saturating_sub(left - 1) {
        if covered(start, len) {
            prefix.push(len);
            collect_splits(n, pieces, covered, prefix, out);
            prefix.pop();
        }
    }
}

/// The `max` best choices of one translation per span by direct probability (then inverse),
/// as (direct, inverse, translation index per span). Keeping the best `max` partial products
/// after each span is exact: the factors are non-negative.
fn best_products(
    spans: &[(usize, usize)],
    pieces: &[Vec<Vec<Piece>>],
    max: usize,
) -> Vec<(f64, f64, Vec<usize>)> {
    let mut beam = vec![(1.0, 1.0, Vec::new())];
    for &(i, len) in spans {
        let options = &pieces[i][len - 1];
        let mut next = Vec::with_capacity(beam.len() * options.len().min(max));
        for (direct, inverse, choice) in &beam {
            for (r, piece) in options.iter().enumerate().take(max) {
                let mut choice = choice.clone();
                choice.push(r);
                next.push((direct * piece.direct, inverse * piece.inverse, choice));
            }
        }
        next.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
        next.truncate(max);
        beam = next;
    }
    beam
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::true_score::{Directions, Identity, PhraseIndexBuilder};

    fn index() -> PhraseIndex {
        let mut b = PhraseIndexBuilder::new(Identity::default());
        let mut add = |s: &str, t: &str, direct: f64, inverse: f64| {
            let (s, t): (Vec<&str>, Vec<&str>) = (s.split(' ').collect(), t.split(' ').collect());
            b.add_with_directions(&s, &t, direct, Directions { direct, inverse });
        };
        add("la", "the", 0.7, 0.4);
        add("la", "it", 0.2, 0.1);
        add("maison", "house", 0.9, 0.8);
        add("bleue", "blue", 0.8, 0.9);
        add("maison bleue", "blue house", 0.6, 0.5);
        b.build()
    }

    fn texts(candidates: &[Candidate]) -> Vec<String> {
        candidates.iter().map(|c| c.tokens.join(" ")).collect()
    }

    #[test]
    fn longer_pieces_first_then_probability() {
        let index = index();
        let all = synthetic_phrases(
            Some(&index),
            None,
            &["la", "maison", "bleue"],
            Limits::at_most(100),
        );
        assert_eq!(
            texts(&all),
            [
                "the blue house",
                "it blue house",
                "the house blue",
                "it house blue"
            ]
        );
        assert_eq!(all[0].split, ["la", "maison bleue"]);
        assert!(
            (all[0].direct - 0.7 * 0.6).abs() < 1e-15 && (all[0].inverse - 0.4 * 0.5).abs() < 1e-15
        );
        assert_eq!(all[2].split, ["la", "maison", "bleue"]);
        assert!((all[3].direct - 0.2 * 0.9 * 0.8).abs() < 1e-15);
        assert_eq!(
            texts(&synthetic_phrases(
                Some(&index),
                None,
                &["la", "maison", "bleue"],
                Limits::at_most(3)
            ))
            .len(),
            3
        );
    }

    #[test]
    fn a_phrase_in_the_table_lists_its_own_entries_first() {
        let index = index();
        let all = synthetic_phrases(
            Some(&index),
            None,
            &["maison", "bleue"],
            Limits::at_most(100),
        );
        assert_eq!(texts(&all), ["blue house", "house blue"]);
        assert!(
            synthetic_phrases(Some(&index), None, &["la", "voiture"], Limits::at_most(100))
                .is_empty()
        );
        assert!(synthetic_phrases(Some(&index), None, &[], Limits::at_most(100)).is_empty());
    }

    #[test]
    fn equal_probabilities_keep_one_order_whatever_the_table_order() {
        for order in [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]] {
            let mut b = PhraseIndexBuilder::new(Identity::default());
            for t in order {
                b.add_with_directions(
                    &["x"],
                    &[t],
                    0.5,
                    Directions {
                        direct: 0.5,
                        inverse: if t == "c" { 0.9 } else { 0.5 },
                    },
                );
            }
            assert_eq!(
                texts(&synthetic_phrases(
                    Some(&b.build()),
                    None,
                    &["x"],
                    Limits::at_most(100)
                )),
                ["c", "a", "b"],
                "{order:?}"
            );
        }
    }

    #[test]
    fn only_the_first_decompositions_are_tried() {
        let index = index();
        let phrase = ["la", "maison", "bleue"];
        let limits = |decompositions| Limits {
            candidates: 100,
            decompositions,
        };
        // Splits in order: la | maison bleue, then la | maison | bleue.
        let one = synthetic_phrases(Some(&index), None, &phrase, limits(1));
        assert_eq!(texts(&one), ["the blue house", "it blue house"]);
        let two = synthetic_phrases(Some(&index), None, &phrase, limits(2));
        assert_eq!(two.len(), 4);
        assert!(synthetic_phrases(Some(&index), None, &phrase, limits(0)).is_empty());
    }
}
