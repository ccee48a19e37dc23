//! rapidfuzz's `distance.Levenshtein` with weights (insertion, deletion, substitution): the
//! weighted edit distance and `normalized_similarity`, over any sequence of comparable items
//! (characters, or words).

/// The weighted Levenshtein distance turning `a` into `b`.
pub fn distance<T: PartialEq>(a: &[T], b: &[T], weights: (u64, u64, u64)) -> u64 {
    let (insert, delete, replace) = weights;
    // One row of the Wagner-Fischer table over b.
    let mut row: Vec<u64> = (0..=b.len() as u64).map(|j| j * insert).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = (i as u64 + 1) * delete;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            let cost = if x == y { diagonal } else { diagonal + replace };
            row[j + 1] = cost.min(above + delete).min(row[j] + insert);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The largest distance two sequences of these lengths can have (rapidfuzz's
/// `_levenshtein_maximum`).
pub fn maximum(len_a: usize, len_b: usize, weights: (u64, u64, u64)) -> u64 {
    let (insert, delete, replace) = weights;
    let (la, lb) = (len_a as u64, len_b as u64);
    let all = la * delete + lb * insert;
    if la >= lb {
        all.min(lb * replace + (la - lb) * delete)
    } else {
        all.min(la * replace + (lb - la) * insert)
    }
}

/// `Levenshtein.normalized_similarity(a, b, weights=weights)`: 1 - distance / maximum (1 when
/// the maximum is 0).
pub fn normalized_similarity<T: PartialEq>(a: &[T], b: &[T], weights: (u64, u64, u64)) -> f64 {
    let most = maximum(a.len(), b.len(), weights);
    if most == 0 {
        return 1.0;
    }
    1.0 - distance(a, b, weights) as f64 / most as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn as_rapidfuzz() {
        // Levenshtein.distance("kitten", "sitting") == 3; with weights (1, 1, 2) == 5
        let (a, b) = (chars("kitten"), chars("sitting"));
        assert_eq!(distance(&a, &b, (1, 1, 1)), 3);
        assert_eq!(distance(&a, &b, (1, 1, 2)), 5);
        // normalized_similarity("kitten", "sitting") == 0.5714285714285714
        assert_eq!(normalized_similarity(&a, &b, (1, 1, 1)), 0.5714285714285714);
        assert_eq!(normalized_similarity::<char>(&[], &[], (1, 1, 1)), 1.0);
    }
}
