//! Synthetic phrases (IUCL, SemEval-2014 Task 5; SPEC §4): translations of a phrase built
//! from the table's translations of its pieces. The phrase is split into contiguous pieces
//! that all have table entries; each candidate concatenates one translation per piece, with
//! direct and inverse probabilities the products of the pieces'.
//!
//! Order: splits with fewer pieces first (longer pieces); among splits with as many pieces,
//! the one whose pieces, longest first, are longer (`3+1` before `2+2`), then the one whose
//! first piece is longer; within a split, by direct then inverse probability, descending.
//! A candidate text already listed (from a better split) is not listed again. Plain Rust.

use super::true_score::{PhraseIndex, Rule};

/// The longest phrase we split: the number of splits grows as 2^(n-1).
pub const MAX_TOKENS: usize = 20;

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

/// Up to `max` candidates for `phrase`, best first (see the module's order). An empty phrase,
/// or one longer than [`MAX_TOKENS`], has none.
pub fn synthetic_phrases(index: &PhraseIndex, phrase: &[&str], max: usize) -> Vec<Candidate> {
    let n = phrase.len();
    if n == 0 || n > MAX_TOKENS || max == 0 {
        return Vec::new();
    }
    // rules[i][len - 1]: the rules of phrase[i..i + len], best direct probability first, then
    // inverse, then by target words: the order never depends on the table's row order.
    let rules: Vec<Vec<Vec<&Rule>>> = (0..n)
        .map(|i| {
            (1..=n - i)
                .map(|len| {
                    let mut rules: Vec<&Rule> = index
                        .node(&phrase[i..i + len])
                        .map(|node| index.rules_of(node).iter().collect())
                        .unwrap_or_default();
                    rules.sort_by(|a, b| {
                        b.directions
                            .direct
                            .total_cmp(&a.directions.direct)
                            .then(b.directions.inverse.total_cmp(&a.directions.inverse))
                            .then_with(|| index.target_words(a).cmp(index.target_words(b)))
                    });
                    rules
                })
                .collect()
        })
        .collect();
    let covered = |i: usize, len: usize| !rules[i][len - 1].is_empty();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for pieces in 1..=n {
        let mut splits = Vec::new();
        collect_splits(n, pieces, &covered, &mut Vec::new(), &mut splits);
        splits.sort_by_cached_key(|lengths: &Vec<usize>| {
            let mut longest_first = lengths.clone();
            longest_first.sort_unstable_by(|a, b| b.cmp(a));
            std::cmp::Reverse((longest_first, lengths.clone()))
        });
        for lengths in splits {
            let spans: Vec<(usize, usize)> = lengths
                .iter()
                .scan(0, |start, &len| {
                    let span = (*start, len);
                    *start += len;
                    Some(span)
                })
                .collect();
            for (direct, inverse, choice) in best_products(&spans, &rules, max) {
                let tokens: Vec<String> = spans
                    .iter()
                    .zip(&choice)
                    .flat_map(|(&(i, len), &r)| index.target_words(rules[i][len - 1][r]))
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

/// The `max` best choices of one rule per span by direct probability (then inverse), as
/// (direct, inverse, rule index per span). Keeping the best `max` partial products after each
/// span is exact: the factors are non-negative.
fn best_products(
    spans: &[(usize, usize)],
    rules: &[Vec<Vec<&Rule>>],
    max: usize,
) -> Vec<(f64, f64, Vec<usize>)> {
    let mut beam = vec![(1.0, 1.0, Vec::new())];
    for &(i, len) in spans {
        let options = &rules[i][len - 1];
        let mut next = Vec::with_capacity(beam.len() * options.len().min(max));
        for (direct, inverse, choice) in &beam {
            for (r, rule) in options.iter().enumerate().take(max) {
                let mut choice = choice.clone();
                choice.push(r);
                next.push((
                    direct * rule.directions.direct,
                    inverse * rule.directions.inverse,
                    choice,
                ));
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
    use crate::metrics::true_score::{Directions, Identity, PhraseIndexBuilder};

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
        let all = synthetic_phrases(&index, &["la", "maison", "bleue"], 100);
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
            texts(&synthetic_phrases(&index, &["la", "maison", "bleue"], 3)).len(),
            3
        );
    }

    #[test]
    fn a_phrase_in_the_table_lists_its_own_entries_first() {
        let index = index();
        let all = synthetic_phrases(&index, &["maison", "bleue"], 100);
        assert_eq!(texts(&all), ["blue house", "house blue"]);
        assert!(synthetic_phrases(&index, &["la", "voiture"], 100).is_empty());
        assert!(synthetic_phrases(&index, &[], 100).is_empty());
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
                texts(&synthetic_phrases(&b.build(), &["x"], 100)),
                ["c", "a", "b"],
                "{order:?}"
            );
        }
    }
}
