//! rapidfuzz's `distance.Levenshtein` with weights (insertion, deletion, substitution): the
//! weighted edit distance and `normalized_similarity`, over any sequence of comparable items
//! (characters, or words). The distance is an integer: any exact algorithm gives rapidfuzz's.
//! With unit weights (its default) it is computed bit-parallel, as rapidfuzz computes it.

use std::hash::Hash;

use hashbrown::HashMap;

/// An item of the sequences compared: characters, words, bytes.
pub trait Symbol: Eq + Hash {
    /// An index below 256 for the items a table can hold (ASCII characters, bytes), so the
    /// common ones need no hashing.
    fn small(&self) -> Option<usize>;
}

impl Symbol for char {
    fn small(&self) -> Option<usize> {
        self.is_ascii().then_some(*self as usize)
    }
}

impl Symbol for &str {
    fn small(&self) -> Option<usize> {
        None
    }
}

impl Symbol for u8 {
    fn small(&self) -> Option<usize> {
        Some(*self as usize)
    }
}

/// The weighted Levenshtein distance turning `a` into `b`.
pub fn distance<T: Symbol>(a: &[T], b: &[T], weights: (u64, u64, u64)) -> u64 {
    if weights == (1, 1, 1) {
        return unit_distance(a, b);
    }
    weighted_distance(a, b, weights)
}

/// Wagner-Fischer, one row at a time: any weights.
fn weighted_distance<T: PartialEq>(a: &[T], b: &[T], weights: (u64, u64, u64)) -> u64 {
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

/// The Levenshtein distance with unit weights: Myers' bit-vector algorithm in blocks of 64
/// items of `a` (each column of the table as vertical deltas, a block's top delta passed down
/// from the block above), O(len(a) / 64 · len(b)).
fn unit_distance<T: Symbol>(a: &[T], b: &[T]) -> u64 {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as u64;
    }
    let blocks = a.len().div_ceil(64);
    // Where each item occurs in `a`, a bit per position: the item's row of `bits` (row 0 for
    // items not in `a`), found in a table for small items and in a map for the others.
    let mut small_rows = [0usize; 256];
    let mut rows: HashMap<&T, usize> = HashMap::new();
    let mut count = 0;
    let mut bits = vec![0u64; blocks];
    for (i, item) in a.iter().enumerate() {
        let row = match item.small() {
            Some(k) => &mut small_rows[k],
            None => rows.entry(item).or_insert(0),
        };
        if *row == 0 {
            count += 1;
            *row = count;
            bits.resize((count + 1) * blocks, 0);
        }
        bits[*row * blocks + i / 64] |= 1 << (i % 64);
    }
    let (mut plus, mut minus) = (vec![u64::MAX; blocks], vec![0u64; blocks]);
    let last = 1u64 << ((a.len() - 1) % 64);
    let mut score = a.len() as i64;
    for item in b {
        let row = match item.small() {
            Some(k) => small_rows[k],
            None => rows.get(item).copied().unwrap_or(0),
        };
        let eq = &bits[row * blocks..(row + 1) * blocks];
        // The delta along the table's top row: D[0][j] - D[0][j - 1] = 1.
        let mut h_in: i64 = 1;
        for k in 0..blocks {
            let (pv, mv) = (plus[k], minus[k]);
            let mut eq = eq[k];
            let xv = eq | mv;
            if h_in < 0 {
                eq |= 1;
            }
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            let high = if k + 1 == blocks { last } else { 1 << 63 };
            let h_out = i64::from(ph & high != 0) - i64::from(mh & high != 0);
            ph <<= 1;
            mh <<= 1;
            if h_in < 0 {
                mh |= 1;
            } else if h_in > 0 {
                ph |= 1;
            }
            plus[k] = mh | !(xv | ph);
            minus[k] = ph & xv;
            h_in = h_out;
        }
        score += h_in;
    }
    score as u64
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
pub fn normalized_similarity<T: Symbol>(a: &[T], b: &[T], weights: (u64, u64, u64)) -> f64 {
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

    proptest::proptest! {
        #[test]
        fn the_bit_vectors_give_the_table_s_distance_for_characters(
            a in "[ab\u{e9}\u{4e2d}]{0,150}",
            b in "[ab\u{e9}\u{4e2d}]{0,150}",
        ) {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            proptest::prop_assert_eq!(unit_distance(&a, &b), weighted_distance(&a, &b, (1, 1, 1)));
        }

        #[test]
        fn the_bit_vectors_give_the_table_s_distance(
            a in proptest::collection::vec(0u8..4, 0..200),
            b in proptest::collection::vec(0u8..4, 0..200),
        ) {
            proptest::prop_assert_eq!(unit_distance(&a, &b), weighted_distance(&a, &b, (1, 1, 1)));
        }
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
