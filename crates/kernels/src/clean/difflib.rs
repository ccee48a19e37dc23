//! Python's `difflib.SequenceMatcher(None, a, b)` (autojunk on), as far as OpusFilter uses it:
//! `find_longest_match` and `ratio`. Its quirks are kept: in a `b` of 200 items or more, an item
//! occurring more than `len(b) // 100 + 1` times is "popular" and left out of the index, so a
//! match can only grow over it by extension; the longest match is the one that starts earliest
//! in `a`, then in `b`.

use std::hash::Hash;

use hashbrown::HashMap;

pub struct SequenceMatcher<'a, T> {
    a: &'a [T],
    b: &'a [T],
    /// `b2j`, flat: each item of `b` has a group, whose places in `b` are
    /// `places[ranges[group].0..ranges[group].1]`, ascending (empty for popular items).
    groups: HashMap<T, usize>,
    ranges: Vec<(usize, usize)>,
    places: Vec<usize>,
}

/// A matching block: `a[i..i + size] == b[j..j + size]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Match {
    pub i: usize,
    pub j: usize,
    pub size: usize,
}

impl<'a, T: Copy + Eq + Hash> SequenceMatcher<'a, T> {
    pub fn new(a: &'a [T], b: &'a [T]) -> Self {
        let mut groups: HashMap<T, usize> = HashMap::new();
        let mut counts: Vec<usize> = Vec::new();
        let group_of: Vec<usize> = b
            .iter()
            .map(|&item| {
                let group = *groups.entry(item).or_insert_with(|| {
                    counts.push(0);
                    counts.len() - 1
                });
                counts[group] += 1;
                group
            })
            .collect();
        let mut ranges = Vec::with_capacity(counts.len());
        let mut start = 0;
        for &count in &counts {
            ranges.push((start, start));
            start += count;
        }
        let mut places = vec![0; b.len()];
        for (j, &group) in group_of.iter().enumerate() {
            let end = &mut ranges[group].1;
            places[*end] = j;
            *end += 1;
        }
        let n = b.len();
        if n >= 200 {
            let most = n / 100 + 1;
            for range in &mut ranges {
                if range.1 - range.0 > most {
                    range.1 = range.0;
                }
            }
        }
        SequenceMatcher {
            a,
            b,
            groups,
            ranges,
            places,
        }
    }

    /// Where an item occurs in `b` (not if it is popular), ascending.
    fn places_of(&self, item: &T) -> &[usize] {
        match self.groups.get(item) {
            Some(&group) => &self.places[self.ranges[group].0..self.ranges[group].1],
            None => &[],
        }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)`.
    pub fn find_longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> Match {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        // j2len[j]: the length of the match ending at a[i - 1], b[j]. Python keeps the row
        // before and the row being made as two dicts; here two arrays whose entries carry the
        // row that wrote them, so an entry of an older row reads as absent (0).
        let mut j2len = vec![(usize::MAX, 0usize); b.len()];
        let mut new_j2len = j2len.clone();
        for i in alo..ahi {
            for &j in self.places_of(&a[i]) {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = match j.checked_sub(1).map(|p| j2len[p]) {
                    Some((row, k)) if row.wrapping_add(1) == i => k + 1,
                    _ => 1,
                };
                new_j2len[j] = (i, k);
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
            std::mem::swap(&mut j2len, &mut new_j2len);
        }
        // Extend over equal items on both sides (with no junk function, popular items too).
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        Match {
            i: besti,
            j: bestj,
            size: bestsize,
        }
    }

    /// The total size of `get_matching_blocks()`.
    pub fn matches(&self) -> usize {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let m = self.find_longest_match(alo, ahi, blo, bhi);
            if m.size > 0 {
                total += m.size;
                if alo < m.i && blo < m.j {
                    queue.push((alo, m.i, blo, m.j));
                }
                if m.i + m.size < ahi && m.j + m.size < bhi {
                    queue.push((m.i + m.size, ahi, m.j + m.size, bhi));
                }
            }
        }
        total
    }

    /// `ratio()`: 2 * matches / (len(a) + len(b)), 1 when both are empty.
    pub fn ratio(&self) -> f64 {
        let length = self.a.len() + self.b.len();
        if length == 0 {
            return 1.0;
        }
        2.0 * self.matches() as f64 / length as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn as_python() {
        // SequenceMatcher(None, "abcd", "bcde").find_longest_match(0, 4, 0, 4) == Match(1, 0, 3)
        let (a, b) = (chars("abcd"), chars("bcde"));
        let m = SequenceMatcher::new(&a, &b);
        assert_eq!(
            m.find_longest_match(0, 4, 0, 4),
            Match {
                i: 1,
                j: 0,
                size: 3
            }
        );
        // SequenceMatcher(None, "abxcd", "abcd").ratio() == 0.8888888888888888
        let (a, b) = (chars("abxcd"), chars("abcd"));
        assert_eq!(SequenceMatcher::new(&a, &b).ratio(), 0.8888888888888888);
        let empty: Vec<char> = Vec::new();
        assert_eq!(SequenceMatcher::new(&empty, &empty).ratio(), 1.0);
    }

    #[test]
    fn autojunk_leaves_popular_items_to_extension() {
        // a = "x" + "a" * 300, b = "a" * 300: "a" is popular in b (300 > 300 // 100 + 1), so
        // find_longest_match finds nothing in the index: Match(0, 0, 0); ratio() == 0.0.
        let a: Vec<char> = std::iter::once('x')
            .chain(std::iter::repeat_n('a', 300))
            .collect();
        let b: Vec<char> = std::iter::repeat_n('a', 300).collect();
        let m = SequenceMatcher::new(&a, &b);
        assert_eq!(
            m.find_longest_match(0, a.len(), 0, b.len()),
            Match {
                i: 0,
                j: 0,
                size: 0
            }
        );
        assert_eq!(m.ratio(), 0.0);
    }
}
