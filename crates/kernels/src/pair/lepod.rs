//! LePoD (Niu & Carpuat, AAAI 2020): LeD, the lexical difference, and PoD, the positional
//! difference, between two sentences (SPEC §1). Plain Rust over token slices: no Arrow here.
//!
//! An alignment groups tokens into *units*, the connected components of its link graph. Each
//! function takes a [`Scratch`] so that a caller scoring many rows reuses its buffers.

use std::fmt;

use crate::{Link, Side};

/// Why a pair has no LeD or PoD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LepodError {
    EmptySentence(Side),
    LinkOutOfRange {
        side: Side,
        position: i64,
        len: usize,
    },
}

impl fmt::Display for LepodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LepodError::EmptySentence(side) => write!(f, "empty sentence ({side})"),
            LepodError::LinkOutOfRange {
                side,
                position,
                len,
            } => write!(
                f,
                "link position {position} outside the {side} sentence of {len} tokens"
            ),
        }
    }
}

impl std::error::Error for LepodError {}

/// Reusable buffers for the unit computations; one per thread or per batch.
#[derive(Debug, Default)]
pub struct Scratch {
    parent: Vec<u32>,
    /// [`Scratch::equal_units`]' gathered nodes, grouped by unit, and where each group ends.
    members: Vec<u32>,
    end: Vec<u32>,
    /// Per component root: its tokens in each sentence.
    count1: Vec<u32>,
    count2: Vec<u32>,
    kept: Vec<bool>,
    anchor1: Vec<u32>,
    anchor2: Vec<u32>,
    rank2: Vec<u32>,
    /// Each token's partner, NONE or MANY (see [`Scratch::partners`]).
    partner1: Vec<u32>,
    partner2: Vec<u32>,
    /// The nodes whose units [`Scratch::equal_units`] looks at: those [`Scratch::shared_units`]
    /// groups, or every node.
    shared: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Scratch {
    /// Build the units of `links` over `n1 + n2` nodes (the second sentence's positions are
    /// offset by `n1`), after checking every link is inside both sentences.
    fn units(&mut self, n1: usize, n2: usize, links: &[Link]) -> Result<(), LepodError> {
        check_links(n1, n2, links)?;
        self.build_units(n1, n2, links);
        Ok(())
    }

    /// [`Scratch::units`] of links already checked.
    fn build_units(&mut self, n1: usize, n2: usize, links: &[Link]) {
        let n = n1 + n2;
        self.parent.clear();
        self.parent.extend(0..n as u32);
        for &(a, b) in links {
            self.union(a, n1 as u32 + b);
        }
        // Anchors stay NONE on a side where a unit has no token.
        for buf in [&mut self.count1, &mut self.count2] {
            buf.clear();
            buf.resize(n, 0);
        }
        for buf in [&mut self.anchor1, &mut self.anchor2] {
            buf.clear();
            buf.resize(n, NONE);
        }
        for node in 0..n as u32 {
            self.tally(node, n1);
        }
    }

    /// Join the units of nodes `x` and `y`, towards the smaller root: a unit's root is then its
    /// smallest node, the first of its nodes in node order.
    fn union(&mut self, x: u32, y: u32) {
        let (rx, ry) = (self.find(x), self.find(y));
        if rx != ry {
            let (lo, hi) = if rx < ry { (rx, ry) } else { (ry, rx) };
            self.parent[hi as usize] = lo;
        }
    }

    /// Point `node` at its unit's root, and count it among the unit's tokens on its side (at
    /// the root). Called in node order, it makes each unit's first token on a side its anchor
    /// there; the root's counts must be 0 before the unit's first node.
    fn tally(&mut self, node: u32, n1: usize) {
        let root = self.find(node) as usize;
        self.parent[node as usize] = root as u32;
        let (count, anchor, pos) = match (node as usize) < n1 {
            true => (&mut self.count1[root], &mut self.anchor1[root], node),
            false => (
                &mut self.count2[root],
                &mut self.anchor2[root],
                node - n1 as u32,
            ),
        };
        if *count == 0 {
            *anchor = pos;
        }
        *count += 1;
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }
}

/// Every link inside both sentences, or the first that is not.
fn check_links(n1: usize, n2: usize, links: &[Link]) -> Result<(), LepodError> {
    for &(a, b) in links {
        check_position(Side::Src, a, n1)?;
        check_position(Side::Tgt, b, n2)?;
    }
    Ok(())
}

fn check_position(side: Side, position: u32, len: usize) -> Result<(), LepodError> {
    if (position as usize) < len {
        Ok(())
    } else {
        Err(LepodError::LinkOutOfRange {
            side,
            position: position as i64,
            len,
        })
    }
}

fn check_non_empty(s1: usize, s2: usize) -> Result<(), LepodError> {
    if s1 == 0 {
        return Err(LepodError::EmptySentence(Side::Src));
    }
    if s2 == 0 {
        return Err(LepodError::EmptySentence(Side::Tgt));
    }
    Ok(())
}

/// SPEC's formula, summed in exactly this order so results match the original byte for byte.
fn led_formula(diff1: usize, len1: usize, diff2: usize, len2: usize) -> f64 {
    (diff1 as f64 / len1 as f64 + diff2 as f64 / len2 as f64) / 2.0
}

/// Alignment-free LeD: the exact-match alignment of maximum coverage, i.e. a multiset
/// difference. `scratch` holds sorted copies of both sentences.
pub fn led_unaligned<'a>(
    s1: &[&'a str],
    s2: &[&'a str],
    scratch: &mut (Vec<&'a str>, Vec<&'a str>),
) -> Result<f64, LepodError> {
    check_non_empty(s1.len(), s2.len())?;
    let (a, b) = scratch;
    a.clear();
    a.extend_from_slice(s1);
    a.sort_unstable();
    b.clear();
    b.extend_from_slice(s2);
    b.sort_unstable();
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    Ok(led_formula(
        s1.len() - common,
        s1.len(),
        s2.len() - common,
        s2.len(),
    ))
}

/// Alignment-based LeD: a token is kept when its unit's first-sentence tokens equal its
/// second-sentence tokens (in position order); every other token, aligned or not, differs.
pub fn led_aligned(
    s1: &[&str],
    s2: &[&str],
    links: &[Link],
    scratch: &mut Scratch,
) -> Result<f64, LepodError> {
    led_and_pod(s1, s2, links, &Punctuation::default(), scratch).map(|(led, _)| led)
}

/// Which tokens of each sentence LeD keeps (see [`led_aligned`]).
pub fn kept_tokens<'s>(
    s1: &[&str],
    s2: &[&str],
    links: &[Link],
    scratch: &'s mut Scratch,
) -> Result<(&'s [bool], &'s [bool]), LepodError> {
    check_non_empty(s1.len(), s2.len())?;
    scratch.units(s1.len(), s2.len(), links)?;
    scratch.mark_kept(s1, s2);
    Ok(scratch.kept.split_at(s1.len()))
}

impl Scratch {
    /// Mark the tokens of every unit whose first-sentence tokens equal its second-sentence
    /// tokens in position order.
    fn mark_kept(&mut self, s1: &[&str], s2: &[&str]) {
        let mut kept = std::mem::take(&mut self.kept);
        kept.clear();
        kept.resize(self.parent.len(), false);
        self.shared.clear();
        self.shared.extend(0..self.parent.len() as u32);
        self.equal_units(s1, s2, |unit| {
            unit.iter().for_each(|&node| kept[node as usize] = true)
        });
        self.kept = kept;
    }

    /// `visit` the nodes (first sentence's first, each side in position order) of every unit
    /// of the nodes in `shared` (in node order, each pointing at its root in `parent`) that has
    /// as many tokens on each side, equal in position order: the units LeD keeps.
    fn equal_units(&mut self, s1: &[&str], s2: &[&str], mut visit: impl FnMut(&[u32])) {
        let n1 = s1.len();
        let Scratch {
            parent,
            shared,
            count1,
            count2,
            members,
            end,
            ..
        } = self;
        let candidate = |root: usize| count1[root] == count2[root];
        let roots = || {
            shared
                .iter()
                .map(|&node| node as usize)
                .filter(|&node| parent[node] as usize == node)
        };
        end.resize(parent.len(), 0);
        let mut gathered = 0;
        for root in roots().filter(|&root| candidate(root)) {
            end[root] = gathered;
            gathered += 2 * count1[root];
        }
        if gathered == 0 {
            return;
        }
        // Gather each candidate's nodes in node order (first sentence first); end[root] moves
        // from where its group starts to where it ends.
        members.resize(gathered as usize, 0);
        for &node in shared.iter() {
            let root = parent[node as usize] as usize;
            if candidate(root) {
                members[end[root] as usize] = node;
                end[root] += 1;
            }
        }
        for root in roots().filter(|&root| candidate(root)) {
            let c = count1[root] as usize;
            let unit = &members[end[root] as usize - 2 * c..end[root] as usize];
            let (side1, side2) = unit.split_at(c);
            if side1
                .iter()
                .zip(side2)
                .all(|(&a, &b)| same_token(s1[a as usize], s2[b as usize - n1]))
            {
                visit(unit);
            }
        }
    }
}

/// Whether two tokens are equal. Short tokens, most of them, are compared in two overlapping
/// loads per side instead of a call to `memcmp` (that call was a seventh of `score`'s kernel).
#[inline]
fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u32::from_ne_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
    let long =
        |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("eight bytes"));
    match n {
        0 => true,
        // The first, middle and last bytes are all of them.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4),
        8..=16 => long(a, 0) == long(b, 0) && long(a, n - 8) == long(b, n - 8),
        _ => a == b,
    }
}

/// The punctuation tokens PoD ignores: a token is punctuation when it is exactly one of the
/// characters of the `-p` string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Punctuation {
    /// The ASCII characters, one bit each: PoD asks about every aligned token.
    ascii: u128,
    /// The others, sorted.
    other: Vec<char>,
}

impl Punctuation {
    pub fn new(chars: &str) -> Self {
        let (ascii, mut other): (Vec<char>, Vec<char>) = chars.chars().partition(char::is_ascii);
        other.sort_unstable();
        other.dedup();
        Punctuation {
            ascii: ascii.into_iter().fold(0, |bits, c| bits | 1 << c as u32),
            other,
        }
    }

    /// Small enough to be inlined where PoD asks about every unit's anchors (as one function it
    /// was called, for a fortieth of `score`'s time); the rare non-ASCII case is a call.
    #[inline]
    pub fn contains(&self, token: &str) -> bool {
        match token.as_bytes() {
            // A one-byte token is an ASCII character.
            &[byte] => self.ascii >> byte & 1 == 1,
            // One character is at most four bytes (most tokens are longer).
            bytes @ &[lead, ..]
                if bytes.len() <= 4 && !lead.is_ascii() && !self.other.is_empty() =>
            {
                self.other_contains(token)
            }
            _ => false,
        }
    }

    /// Whether `token` is one non-ASCII character of the set.
    fn other_contains(&self, token: &str) -> bool {
        let mut chars = token.chars();
        matches!((chars.next(), chars.next()), (Some(c), None) if self.other.binary_search(&c).is_ok())
    }
}

/// PoD: the mean, over the anchors of the units that survive punctuation filtering, of the
/// largest rank displacement inside each closed segment (SPEC §1). 0 when no unit survives.
pub fn pod(
    s1: &[&str],
    s2: &[&str],
    links: &[Link],
    punct: &Punctuation,
    scratch: &mut Scratch,
) -> Result<f64, LepodError> {
    led_and_pod(s1, s2, links, punct, scratch).map(|(_, pod)| pod)
}

/// LeD and PoD of one pair, its units computed once: what `score` asks of every pair.
pub fn led_and_pod(
    s1: &[&str],
    s2: &[&str],
    links: &[Link],
    punct: &Punctuation,
    scratch: &mut Scratch,
) -> Result<(f64, f64), LepodError> {
    let (n1, n2) = (s1.len(), s2.len());
    check_non_empty(n1, n2)?;
    if scratch.partners(n1, n2, links)? {
        scratch.shared_units(n1, links);
    }
    Ok(scratch.led_and_pod_of_partners(s1, s2, punct))
}

/// In `partner1`/`partner2`: a token with more than one link.
const MANY: u32 = u32::MAX - 1;

impl Scratch {
    /// Each token's partner in `partner1`/`partner2`: the token its one link goes to, NONE when
    /// it has no link, MANY when it has more. Returns whether some token has MANY, or the
    /// first link outside the sentences.
    ///
    /// A link between two tokens with one link each is a unit of its own. Every other link
    /// touches a MANY token (a unit of two links or more is connected, so each of its links
    /// shares a token with another); those are the few that [`Scratch::shared_units`] groups.
    /// Alignments have few: 1.9 a pair in the generated Europarl-like corpus of 26 links a pair.
    fn partners(&mut self, n1: usize, n2: usize, links: &[Link]) -> Result<bool, LepodError> {
        let Scratch {
            partner1,
            partner2,
            shared,
            ..
        } = self;
        for (partner, n) in [(&mut *partner1, n1), (&mut *partner2, n2)] {
            partner.clear();
            partner.resize(n, NONE);
        }
        shared.clear();
        let mut many = false;
        for &(a, b) in links {
            check_position(Side::Src, a, n1)?;
            check_position(Side::Tgt, b, n2)?;
            let (p1, p2) = (&mut partner1[a as usize], &mut partner2[b as usize]);
            many |= *p1 != NONE || *p2 != NONE;
            *p1 = if *p1 == NONE { b } else { MANY };
            *p2 = if *p2 == NONE { a } else { MANY };
        }
        Ok(many)
    }

    /// The units of the links that touch a MANY token, by union-find over their tokens alone
    /// (`shared` lists them, in node order; `parent` is NONE for every other node), with each
    /// unit's tokens and first position per sentence at its root.
    fn shared_units(&mut self, n1: usize, links: &[Link]) {
        let n = n1 + self.partner2.len();
        self.parent.clear();
        self.parent.resize(n, NONE);
        for &(a, b) in links {
            if self.partner1[a as usize] != MANY && self.partner2[b as usize] != MANY {
                continue;
            }
            for node in [a, n1 as u32 + b] {
                if self.parent[node as usize] == NONE {
                    self.parent[node as usize] = node;
                    self.shared.push(node);
                }
            }
            self.union(a, n1 as u32 + b);
        }
        self.shared.sort_unstable();
        let Scratch {
            count1,
            count2,
            anchor1,
            anchor2,
            ..
        } = self;
        for buf in [&mut *count1, &mut *count2, &mut *anchor1, &mut *anchor2] {
            if buf.len() < n {
                buf.resize(n, 0);
            }
        }
        for i in 0..self.shared.len() {
            let node = self.shared[i];
            // A unit's root is its first node: its counts start there.
            if self.find(node) == node {
                (self.count1[node as usize], self.count2[node as usize]) = (0, 0);
            }
            self.tally(node, n1);
        }
    }

    /// LeD and PoD from [`Scratch::partners`] and, when some token has several links,
    /// [`Scratch::shared_units`]. One pass over the second sentence finds the tokens kept by
    /// one-link units and ranks the units that survive PoD's filter by their anchor there; one
    /// pass over the first sentence walks those anchors in its order.
    fn led_and_pod_of_partners(
        &mut self,
        s1: &[&str],
        s2: &[&str],
        punct: &Punctuation,
    ) -> (f64, f64) {
        let (n1, n2) = (s1.len(), s2.len());
        let Scratch {
            parent,
            partner1,
            partner2,
            anchor1,
            anchor2,
            rank2,
            ..
        } = self;
        // Per unit, its rank among the surviving anchors, at its anchor in the second sentence.
        rank2.clear();
        rank2.resize(n2, NONE);
        let (mut same, mut units) = (0, 0u32);
        for (b, &a) in partner2.iter().enumerate() {
            let survives = match a {
                NONE => continue,
                a if a != MANY && partner1[a as usize] == b as u32 => {
                    let (t1, t2) = (s1[a as usize], s2[b]);
                    let equal = same_token(t1, t2);
                    same += usize::from(equal);
                    !punct.contains(t1) && (equal || !punct.contains(t2))
                }
                _ => {
                    let root = parent[n1 + b] as usize;
                    anchor2[root] == b as u32
                        && !punct.contains(s1[anchor1[root] as usize])
                        && !punct.contains(s2[b])
                }
            };
            if survives {
                rank2[b] = units;
                units += 1;
            }
        }
        let ranks = partner1.iter().enumerate().filter_map(|(a, &b)| {
            let anchor2 = match b {
                NONE => return None,
                b if b != MANY && partner2[b as usize] == a as u32 => b,
                _ => {
                    let root = parent[a] as usize;
                    if anchor1[root] != a as u32 {
                        return None;
                    }
                    anchor2[root]
                }
            };
            let rank = rank2[anchor2 as usize];
            (rank != NONE).then_some(((), rank))
        });
        let mut total = 0u64;
        segments(ranks, |_, closed| total += closed.unwrap_or(0) as u64);
        let pod = if units == 0 {
            0.0
        } else {
            total as f64 / units as f64
        };
        if !self.shared.is_empty() {
            self.equal_units(s1, s2, |unit| same += unit.len() / 2);
        }
        (led_formula(n1 - same, n1, n2 - same, n2), pod)
    }
}

/// PoD of the pair [`kept_tokens`] was just asked about, from the units it found (the drop-in
/// reports which tokens are kept, then PoD, without finding the units twice).
pub fn pod_after_kept_tokens(
    s1: &[&str],
    s2: &[&str],
    punct: &Punctuation,
    scratch: &mut Scratch,
) -> f64 {
    pod_of_units(s1, s2, punct, scratch)
}

/// PoD over the units `scratch` holds for these two (non-empty) sentences.
fn pod_of_units(s1: &[&str], s2: &[&str], punct: &Punctuation, scratch: &mut Scratch) -> f64 {
    let mut total = 0u64;
    let units = walk_segments(s1, s2, punct, scratch, |_, closed| {
        total += closed.unwrap_or(0) as u64
    });
    if units == 0 {
        0.0
    } else {
        total as f64 / units as f64
    }
}

/// PoD's walk (SPEC §1): the anchors of the units that survive punctuation filtering, in
/// first-sentence order. `visit(root, closed)` is called for each with its unit's root; when
/// the anchor closes a segment, `closed` is that segment's largest rank displacement.
/// Returns the number of surviving units.
fn walk_segments(
    s1: &[&str],
    s2: &[&str],
    punct: &Punctuation,
    scratch: &mut Scratch,
    visit: impl FnMut(usize, Option<u32>),
) -> u32 {
    let (n1, n2) = (s1.len(), s2.len());
    let n = n1 + n2;
    let Scratch {
        parent,
        anchor1,
        anchor2,
        rank2,
        ..
    } = scratch;
    rank2.clear();
    rank2.resize(n, NONE);
    let survives = |root: usize| {
        anchor1[root] != NONE
            && anchor2[root] != NONE
            && !punct.contains(s1[anchor1[root] as usize])
            && !punct.contains(s2[anchor2[root] as usize])
    };
    let mut units = 0u32;
    for pos in 0..n2 {
        let root = parent[n1 + pos] as usize;
        if anchor2[root] == pos as u32 && survives(root) {
            rank2[root] = units;
            units += 1;
        }
    }
    let ranks = (0..n1).filter_map(|pos| {
        let root = parent[pos] as usize;
        (anchor1[root] == pos as u32 && rank2[root] != NONE).then(|| (root, rank2[root]))
    });
    segments(ranks, visit);
    units
}

/// PoD's segments over the surviving units, given as (unit, its rank in second-sentence order)
/// in first-sentence order: `visit(unit, closed)` for each, `closed` being the segment's
/// largest rank displacement when the unit closes one.
fn segments<T>(ranks: impl Iterator<Item = (T, u32)>, mut visit: impl FnMut(T, Option<u32>)) {
    let (mut k, mut running, mut segment_max) = (0i64, 0i64, 0i64);
    for (unit, rank) in ranks {
        let d = rank as i64 - k;
        k += 1;
        running += d;
        segment_max = segment_max.max(d.abs());
        let closes = running == 0;
        visit(unit, closes.then_some(segment_max as u32));
        // Written to become a conditional move: whether a unit closes is hard to predict.
        segment_max = if closes { 0 } else { segment_max };
    }
}

/// What LeD and PoD see in one pair, for drawing it: its units, the tokens kept, and PoD's
/// segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub led: f64,
    pub pod: f64,
    /// Per token of each sentence: its unit (an index into the units, numbered in order of
    /// their first token in the first sentence, then the second), None when unaligned.
    pub unit1: Vec<Option<u32>>,
    pub unit2: Vec<Option<u32>>,
    /// Per token of each sentence: whether LeD keeps it.
    pub kept1: Vec<bool>,
    pub kept2: Vec<bool>,
    /// PoD's closed segments in first-sentence order.
    pub segments: Vec<Segment>,
}

/// One of PoD's segments: the units whose anchors it spans, in first-sentence order, and its
/// largest rank displacement (what it adds to PoD's sum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub units: Vec<u32>,
    pub displacement: u32,
}

/// LeD, PoD and how they arose for one pair (see [`Explanation`]); a report's view of a pair,
/// not meant for every row.
pub fn explain(
    s1: &[&str],
    s2: &[&str],
    links: &[Link],
    punct: &Punctuation,
    scratch: &mut Scratch,
) -> Result<Explanation, LepodError> {
    let (kept1, kept2) =
        kept_tokens(s1, s2, links, scratch).map(|(a, b)| (a.to_vec(), b.to_vec()))?;
    let n1 = s1.len();
    // Number the units with links, by their first token.
    let mut number = vec![NONE; scratch.parent.len()];
    let mut aligned = vec![false; scratch.parent.len()];
    for &(a, b) in links {
        aligned[a as usize] = true;
        aligned[n1 + b as usize] = true;
    }
    let mut units = 0;
    let mut unit = |node: usize, number: &mut Vec<u32>| {
        if !aligned[node] {
            return None;
        }
        let root = scratch.parent[node] as usize;
        if number[root] == NONE {
            number[root] = units;
            units += 1;
        }
        Some(number[root])
    };
    let unit1: Vec<Option<u32>> = (0..n1).map(|i| unit(i, &mut number)).collect();
    let unit2: Vec<Option<u32>> = (0..s2.len()).map(|j| unit(n1 + j, &mut number)).collect();
    let led = led_formula(
        kept1.iter().filter(|k| !**k).count(),
        n1,
        kept2.iter().filter(|k| !**k).count(),
        s2.len(),
    );
    let (mut segments, mut open, mut total) = (Vec::new(), Vec::new(), 0u64);
    let surviving = walk_segments(s1, s2, punct, scratch, |root, closed| {
        open.push(number[root]);
        if let Some(displacement) = closed {
            total += displacement as u64;
            segments.push(Segment {
                units: std::mem::take(&mut open),
                displacement,
            });
        }
    });
    let pod = if surviving == 0 {
        0.0
    } else {
        total as f64 / surviving as f64
    };
    Ok(Explanation {
        led,
        pod,
        unit1,
        unit2,
        kept1,
        kept2,
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::random::SplitMix64;

    fn toks(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn punctuation_is_a_token_of_exactly_one_listed_character() {
        let punct = Punctuation::new(",.\u{7f}、«");
        for yes in [",", ".", "\u{7f}", "、", "«"] {
            assert!(punct.contains(yes), "{yes:?}");
        }
        for no in [
            "",
            ",,",
            ", ",
            "a",
            "\0",
            "。",
            "«»",
            "、.",
            "abcd",
            "\u{10ffff}",
        ] {
            assert!(!punct.contains(no), "{no:?}");
        }
        assert!(!Punctuation::new("").contains(","));
        // Every ASCII character is told apart from every other.
        for c in (0..0x80u8).map(char::from) {
            let one = Punctuation::new(&c.to_string());
            assert!(
                (0..0x80u8)
                    .map(char::from)
                    .all(|d| one.contains(&d.to_string()) == (c == d)),
                "{c:?}"
            );
        }
    }

    #[test]
    fn same_token_is_string_equality() {
        for n in 0..40 {
            let a: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_token(&a, &a.clone()));
            assert!(!same_token(&a, &format!("{a}x")) && !same_token(&format!("x{a}"), &a));
            // One byte changed, at every position.
            for i in 0..n {
                let mut b = a.clone().into_bytes();
                b[i] = b'Z';
                assert!(
                    !same_token(&a, std::str::from_utf8(&b).unwrap()),
                    "{a} at {i}"
                );
            }
        }
        assert!(same_token("é", "é") && !same_token("é", "è"));
    }

    #[test]
    fn unaligned_led_counts_occurrences_not_types() {
        let mut scratch = Default::default();
        let led = led_unaligned(
            &toks("the cat sat on the mat"),
            &toks("the mat"),
            &mut scratch,
        );
        assert_eq!(led.unwrap(), (4.0 / 6.0 + 0.0 / 2.0) / 2.0);
    }

    #[test]
    fn phrase_unit_differs_when_tokens_differ() {
        // "a lot of" <-> "many" as one unit: 3 of 7 and 1 of 5 tokens differ.
        let s1 = toks("I have a lot of friends .");
        let s2 = toks("I have many friends .");
        let links = [(0, 0), (1, 1), (2, 2), (3, 2), (4, 2), (5, 3), (6, 4)];
        let led = led_aligned(&s1, &s2, &links, &mut Scratch::default()).unwrap();
        assert_eq!(led, (3.0 / 7.0 + 1.0 / 5.0) / 2.0);
    }

    #[test]
    fn many_to_many_units_are_kept_when_equal_in_order() {
        // Units: "New York" <-> "New York" (all four links) kept; "big apple" <-> "apple big"
        // not (same tokens, another order); "is" <-> "is" kept; "." unaligned on both sides.
        let s1 = toks("New York is big apple .");
        let s2 = toks("New York is apple big .");
        let links = [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (3, 4),
            (4, 3),
            (4, 4),
        ];
        let scratch = &mut Scratch::default();
        let (kept1, kept2) = kept_tokens(&s1, &s2, &links, scratch).unwrap();
        let want = [true, true, true, false, false, false];
        assert_eq!((kept1, kept2), (&want[..], &want[..]));
        assert_eq!(led_aligned(&s1, &s2, &links, scratch).unwrap(), 0.5);
        // Linked word for word (the one-to-one path), big <-> big and apple <-> apple are kept.
        let links = [(0, 0), (1, 1), (2, 2), (3, 4), (4, 3)];
        let (kept1, kept2) = kept_tokens(&s1, &s2, &links, scratch).unwrap();
        let want = [true, true, true, true, true, false];
        assert_eq!((kept1, kept2), (&want[..], &want[..]));
        assert_eq!(led_aligned(&s1, &s2, &links, scratch).unwrap(), 1.0 / 6.0);
    }

    #[test]
    fn kept_tokens_equals_the_definition_on_random_alignments() {
        let words = ["a", "b", "c"];
        let mut state = 7u64;
        let mut next = |bound: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % bound
        };
        let scratch = &mut Scratch::default();
        for _ in 0..5000 {
            let (n1, n2) = (1 + next(6), 1 + next(6));
            let s1: Vec<&str> = (0..n1).map(|_| words[next(3)]).collect();
            let s2: Vec<&str> = (0..n2).map(|_| words[next(3)]).collect();
            let links: Vec<Link> = (0..next(10))
                .map(|_| (next(n1) as u32, next(n2) as u32))
                .collect();
            let got = kept_tokens(&s1, &s2, &links, scratch)
                .map(|(a, b)| [a, b].concat())
                .unwrap();
            // The definition: a unit's tokens are kept when its two sides are equal in order.
            let unit = scratch.parent.clone();
            let side = |root: u32, s: &[&str], offset: usize| -> Vec<String> {
                (0..s.len())
                    .filter(|&i| unit[i + offset] == root)
                    .map(|i| s[i].to_string())
                    .collect()
            };
            let want: Vec<bool> = unit
                .iter()
                .map(|&root| side(root, &s1, 0) == side(root, &s2, n1))
                .collect();
            assert_eq!(got, want, "{s1:?} {s2:?} {links:?}");
            // LeD, which counts the kept tokens from the units without marking them.
            let differ = |kept: &[bool]| kept.iter().filter(|&&k| !k).count();
            let led = led_formula(differ(&want[..n1]), n1, differ(&want[n1..]), n2);
            assert_eq!(
                led_aligned(&s1, &s2, &links, scratch).unwrap(),
                led,
                "{s1:?} {s2:?} {links:?}"
            );
            let both = led_and_pod(&s1, &s2, &links, &Punctuation::default(), scratch).unwrap();
            assert_eq!(both.0, led, "{s1:?} {s2:?} {links:?}");
        }
    }

    #[test]
    fn explanation_of_a_rotation_is_one_segment() {
        // "a" moves from first to last: one segment over all five units, displacement 4;
        // "x" is unaligned, "." is punctuation (its unit is drawn but not in a segment).
        let s1 = toks("a b c d e . x");
        let s2 = toks("b c d e a .");
        let links = [(1, 0), (2, 1), (3, 2), (4, 3), (0, 4), (5, 5)];
        let e = explain(
            &s1,
            &s2,
            &links,
            &Punctuation::new("."),
            &mut Scratch::default(),
        )
        .unwrap();
        assert_eq!(
            e.unit1,
            [Some(0), Some(1), Some(2), Some(3), Some(4), Some(5), None]
        );
        assert_eq!(
            e.unit2,
            [Some(1), Some(2), Some(3), Some(4), Some(0), Some(5)]
        );
        assert_eq!(e.kept1, [true, true, true, true, true, true, false]);
        assert_eq!(
            e.segments,
            [Segment {
                units: vec![0, 1, 2, 3, 4],
                displacement: 4
            }]
        );
        assert_eq!((e.pod, e.led), (0.8, (1.0 / 7.0 + 0.0) / 2.0));
    }

    /// Two sentences of 1 to `max` words drawn from a few words and a comma.
    fn random_sentences(
        rng: &mut SplitMix64,
        max: usize,
    ) -> (Vec<&'static str>, Vec<&'static str>) {
        const WORDS: [&str; 4] = ["a", "b", ",", "c"];
        let (n1, n2) = (1 + rng.below(max), 1 + rng.below(max));
        let s1 = (0..n1).map(|_| WORDS[rng.below(4)]).collect();
        let s2 = (0..n2).map(|_| WORDS[rng.below(4)]).collect();
        (s1, s2)
    }

    #[test]
    fn explanation_agrees_with_led_and_pod_on_random_alignments() {
        let punct = Punctuation::new(",");
        let mut rng = SplitMix64::new(11);
        let scratch = &mut Scratch::default();
        for _ in 0..3000 {
            let (s1, s2) = random_sentences(&mut rng, 7);
            let (n1, n2) = (s1.len(), s2.len());
            let links: Vec<Link> = (0..rng.below(9))
                .map(|_| (rng.below(n1) as u32, rng.below(n2) as u32))
                .collect();
            let e = explain(&s1, &s2, &links, &punct, scratch).unwrap();
            let (led, pod) = led_and_pod(&s1, &s2, &links, &punct, scratch).unwrap();
            assert_eq!((e.led, e.pod), (led, pod), "{s1:?} {s2:?} {links:?}");
            let (kept1, kept2) = kept_tokens(&s1, &s2, &links, scratch).unwrap();
            assert_eq!((&e.kept1[..], &e.kept2[..]), (kept1, kept2));
            // Segments partition the surviving units, and their displacements sum to PoD's.
            let in_segments: usize = e.segments.iter().map(|s| s.units.len()).sum();
            let total: u32 = e.segments.iter().map(|s| s.displacement).sum();
            if in_segments > 0 {
                assert_eq!(total as f64 / in_segments as f64, pod);
            }
        }
    }

    #[test]
    fn one_to_one_alignments_score_as_their_units_do() {
        let punct = Punctuation::new(",");
        let mut rng = SplitMix64::new(13);
        let scratch = &mut Scratch::default();
        for _ in 0..3000 {
            let (s1, s2) = random_sentences(&mut rng, 9);
            let (n1, n2) = (s1.len(), s2.len());
            // A random partial matching, its links in a random order.
            let mut partner: Vec<u32> = (0..n2 as u32).collect();
            for i in (1..n2).rev() {
                partner.swap(i, rng.below(i + 1));
            }
            let mut links: Vec<Link> = (0..n1.min(n2))
                .filter(|_| rng.below(3) > 0)
                .map(|i| (i as u32, partner[i]))
                .collect();
            for i in (1..links.len()).rev() {
                links.swap(i, rng.below(i + 1));
            }
            assert!(!scratch.partners(n1, n2, &links).unwrap());
            // explain finds every unit by union-find.
            let e = explain(&s1, &s2, &links, &punct, scratch).unwrap();
            let both = led_and_pod(&s1, &s2, &links, &punct, scratch).unwrap();
            assert_eq!(both, (e.led, e.pod), "{s1:?} {s2:?} {links:?}");
        }
        // A token with two links is not one-to-one.
        assert!(scratch.partners(2, 2, &[(0, 0), (0, 1)]).unwrap());
        assert!(scratch.partners(2, 2, &[(0, 1), (0, 1)]).unwrap());
    }

    #[test]
    fn rotation_gives_pod_of_largest_displacement() {
        let s1 = toks("a b c d e");
        let s2 = toks("b c d e a");
        let links = [(1, 0), (2, 1), (3, 2), (4, 3), (0, 4)];
        let pod = pod(
            &s1,
            &s2,
            &links,
            &Punctuation::default(),
            &mut Scratch::default(),
        );
        assert_eq!(pod.unwrap(), 0.8);
    }

    #[test]
    fn punctuation_unit_is_dropped_when_either_anchor_is_punctuation() {
        let s1 = toks("x , y");
        let s2 = toks("y ; x");
        let links = [(0, 2), (1, 1), (2, 0)];
        let scratch = &mut Scratch::default();
        // Only "," is punctuation; the unit is dropped although its partner ";" is not.
        let with = pod(&s1, &s2, &links, &Punctuation::new(","), scratch).unwrap();
        assert_eq!(with, 0.5);
        let without = pod(&s1, &s2, &links, &Punctuation::default(), scratch).unwrap();
        assert_eq!(without, 2.0 / 3.0);
    }

    #[test]
    fn no_surviving_unit_gives_zero_pod() {
        let pod = pod(
            &toks("a b"),
            &toks("c"),
            &[],
            &Punctuation::default(),
            &mut Scratch::default(),
        );
        assert_eq!(pod.unwrap(), 0.0);
    }

    #[test]
    fn problems_are_reported() {
        let scratch = &mut Scratch::default();
        assert_eq!(
            led_aligned(&[], &toks("a"), &[], scratch),
            Err(LepodError::EmptySentence(Side::Src))
        );
        assert_eq!(
            led_aligned(&toks("a"), &toks("b"), &[(0, 3)], scratch),
            Err(LepodError::LinkOutOfRange {
                side: Side::Tgt,
                position: 3,
                len: 1
            })
        );
    }
}
