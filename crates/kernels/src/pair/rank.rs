//! Rank agreement (SPEC §3): Kendall tau_A between two scorings of the same items, e.g. the
//! decoder's n-best rank and the true-score rank. Plain Rust: no Arrow here.

/// `tau_A = 2 (n_p - n_i) / (n (n - 1))` over `(x, y)` pairs: n_p pairs ordered the same way by
/// x and y, n_i ordered oppositely; pairs tied in x or in y count in the denominator only. None
/// for fewer than two pairs. O(n log n) (Knight 1966): sort by (x, y), count ties, and count the
/// discordant pairs as the inversions of the y sequence by merge sort. Reorders `pairs`.
pub fn kendall_tau_a(pairs: &mut [(f64, f64)], scratch: &mut Vec<f64>) -> Option<f64> {
    let n = pairs.len();
    if n < 2 {
        return None;
    }
    // -0.0 and 0.0 tie; `total_cmp` alone would order them.
    for (x, y) in pairs.iter_mut() {
        *x += 0.0;
        *y += 0.0;
    }
    pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let tied_x = run_pairs(pairs, |a, b| same(a.0, b.0));
    let tied_xy = run_pairs(pairs, |a, b| same(a.0, b.0) && same(a.1, b.1));
    scratch.clear();
    scratch.extend(pairs.iter().map(|p| p.1));
    scratch.resize(2 * n, 0.0);
    let (ys, buffer) = scratch.split_at_mut(n);
    let discordant = inversions(ys, buffer);
    // ys is now sorted: count the ties in y.
    let tied_y = run_pairs(ys, |a, b| same(*a, *b));
    let all = (n * (n - 1) / 2) as u64;
    let concordant = all + tied_xy - tied_x - tied_y - discordant;
    Some((concordant as f64 - discordant as f64) / all as f64)
}

fn same(a: f64, b: f64) -> bool {
    a.total_cmp(&b).is_eq()
}

/// Pairs within runs of adjacent equal items: sum of t (t - 1) / 2 over runs of length t.
fn run_pairs<T>(items: &[T], equal: impl Fn(&T, &T) -> bool) -> u64 {
    items
        .chunk_by(|a, b| equal(a, b))
        .map(|run| (run.len() * (run.len() - 1) / 2) as u64)
        .sum()
}

/// Sort `v` ascending and return the number of pairs i < j with v[i] > v[j].
fn inversions(v: &mut [f64], buffer: &mut [f64]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count = inversions(&mut v[..mid], &mut buffer[..mid])
        + inversions(&mut v[mid..], &mut buffer[mid..]);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j].total_cmp(&v[i]).is_lt() {
            buffer[k] = v[j];
            count += (mid - i) as u64;
            j += 1;
        } else {
            buffer[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buffer[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buffer[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buffer[..n]);
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The O(n^2) definition.
    fn by_definition(pairs: &[(f64, f64)]) -> Option<f64> {
        let n = pairs.len();
        if n < 2 {
            return None;
        }
        let mut sum = 0i64;
        for i in 0..n {
            for j in i + 1..n {
                let dx = pairs[i].0.total_cmp(&pairs[j].0) as i64;
                let dy = pairs[i].1.total_cmp(&pairs[j].1) as i64;
                sum += dx * dy;
            }
        }
        Some(2.0 * sum as f64 / (n * (n - 1)) as f64)
    }

    #[test]
    fn agrees_with_the_definition_on_lists_with_ties() {
        let mut state = 12345u64;
        let mut next = |bound: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        for _ in 0..2000 {
            let n = next(12) as usize;
            let values = next(6) + 1;
            let pairs: Vec<(f64, f64)> = (0..n)
                .map(|_| (next(values) as f64, next(values) as f64))
                .collect();
            let want = by_definition(&pairs);
            let got = kendall_tau_a(&mut pairs.clone(), &mut Vec::new());
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{pairs:?}: {g} vs {w}"),
                _ => assert_eq!(got, want),
            }
        }
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let mut pairs = [(0.0, 1.0), (-0.0, 2.0), (1.0, 3.0)];
        // the first pair is tied in x: (0 + 1 + 1) * 2 / 6
        assert_eq!(kendall_tau_a(&mut pairs, &mut Vec::new()), Some(2.0 / 3.0));
    }
}
