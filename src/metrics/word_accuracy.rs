//! SemEval-2014 Task 5 word accuracy of an output fragment against a reference and its
//! alternatives (SPEC §4, `testvectors/word_accuracy/`): after removing tokens that are single
//! punctuation marks among `, ; . ? ¿ ¡ !`, a fragment pair scores 1 when the joined strings are
//! equal, else |longest common contiguous run of tokens| / max(|out|, |ref|); the score is the
//! best over the references. Plain Rust: no Arrow here.

const PUNCTUATION: [&str; 7] = [",", ";", ".", "?", "¿", "¡", "!"];

fn is_punctuation(token: &&str) -> bool {
    PUNCTUATION.contains(token)
}

/// Reused buffers: the filtered tokens and one row of the run-length table.
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    out: Vec<&'a str>,
    reference: Vec<&'a str>,
    row: Vec<usize>,
}

/// The word accuracy of `out` against the best of `refs`; None when there is no reference.
pub fn word_accuracy<'a, 'r>(
    out: &[&'a str],
    refs: impl IntoIterator<Item = &'r [&'a str]>,
    scratch: &mut Scratch<'a>,
) -> Option<f64>
where
    'a: 'r,
{
    scratch.out.clear();
    scratch.out.extend(out.iter().copied().filter(|t| !is_punctuation(t)));
    let mut best: Option<f64> = None;
    for reference in refs {
        scratch.reference.clear();
        scratch.reference.extend(reference.iter().copied().filter(|t| !is_punctuation(t)));
        let score = fragment_score(&scratch.out, &scratch.reference, &mut scratch.row);
        best = Some(best.map_or(score, |b| b.max(score)));
    }
    best
}

fn fragment_score(out: &[&str], reference: &[&str], row: &mut Vec<usize>) -> f64 {
    if joined_equal(out, reference) {
        return 1.0;
    }
    longest_common_run(out, reference, row) as f64 / out.len().max(reference.len()) as f64
}

/// `a.join(" ") == b.join(" ")`.
fn joined_equal(a: &[&str], b: &[&str]) -> bool {
    // Only tokens that hold a space can join equal while differing as lists.
    if a.iter().chain(b).any(|t| t.contains(' ')) { a.join(" ") == b.join(" ") } else { a == b }
}

/// Length of the longest run of tokens that `a` and `b` share, by dynamic programming over
/// one row.
fn longest_common_run(a: &[&str], b: &[&str], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.resize(b.len() + 1, 0);
    let mut best = 0;
    for x in a {
        // Walk right to left so that row[j] still holds the previous row's value.
        for j in (1..=b.len()).rev() {
            row[j] = if *x == b[j - 1] { row[j - 1] + 1 } else { 0 };
            best = best.max(row[j]);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(out: &str, refs: &[&str]) -> Option<f64> {
        let out: Vec<&str> = out.split_whitespace().collect();
        let refs: Vec<Vec<&str>> = refs.iter().map(|r| r.split_whitespace().collect()).collect();
        word_accuracy(&out, refs.iter().map(Vec::as_slice), &mut Scratch::default())
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
}
