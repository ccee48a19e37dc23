//! DERP, the dependency-path ordering score (McCaffery 2017, thesis ch. 5; SPEC §2): how well an
//! alignment preserves word order, judged through the dependency paths between aligned words in
//! the two trees. Plain Rust over slices: no Arrow here.
//!
//! The steps, each a function below: build each [`Tree`] (validated, labels interned), pick the
//! meta-graph's side and each node's counterpart ([`Scratch::select_nodes`]), weigh every
//! meta-graph edge by the [`disparity`] of its two path [`Encoding`]s, take the minimum spanning
//! tree by Kruskal with SPEC's tie order, and score `1 - sum(L) / sum(Lmax)` over its edges.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt;

use super::{Link, Side};

/// Pairs with more aligned nodes than this are not scored unless told ([`derp_within`]): the
/// meta-graph is complete, so its edges grow as the square (1,000 nodes are 499,500 edges),
/// and one mis-split "sentence" would stall a corpus. No real sentence comes near.
pub const MAX_NODES: usize = 1000;

/// Marks a root's parent, and a path not yet computed.
const NONE: u32 = u32::MAX;

/// One side's dependency parse: CoNLL-U heads (1-based, 0 = root) and relation labels.
#[derive(Debug, Clone, Copy)]
pub struct Parse<'a> {
    pub head: &'a [i32],
    pub deprel: &'a [&'a str],
}

/// Why a parse is not a tree (or a forest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeError {
    LengthMismatch { heads: usize, deprels: usize },
    HeadOutOfRange { token: usize, head: i32, len: usize },
    Cycle { token: usize },
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::LengthMismatch { heads, deprels } => {
                write!(f, "{heads} heads but {deprels} deprels")
            }
            TreeError::HeadOutOfRange { token, head, len } => {
                write!(f, "head {head} of token {token} is outside 0..={len}")
            }
            TreeError::Cycle { token } => write!(f, "token {token} is on a cycle of heads"),
        }
    }
}

/// Why a pair has no DERP score. Token positions in messages are 0-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DerpError {
    Tree { side: Side, error: TreeError },
    LinkOutOfRange { side: Side, position: u32, len: usize },
    TooFewNodes { nodes: usize },
    TooManyNodes { nodes: usize, limit: usize },
    /// Every aligned node shares one counterpart, so every edge has Lmax = 0.
    NoPathLength,
}

impl fmt::Display for DerpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DerpError::Tree { side, error } => write!(f, "{side} parse: {error}"),
            DerpError::LinkOutOfRange { side, position, len } => write!(
                f,
                "link position {position} outside the {side} sentence of {len} tokens"
            ),
            DerpError::TooFewNodes { nodes } => {
                write!(f, "fewer than two aligned nodes ({nodes})")
            }
            DerpError::TooManyNodes { nodes, limit } => {
                write!(f, "{nodes} aligned nodes, more than the {limit} DERP scores (pairmetrics.derp_max_nodes)")
            }
            DerpError::NoPathLength => {
                f.write_str("all aligned nodes share one counterpart (sum of Lmax is 0)")
            }
        }
    }
}

impl std::error::Error for DerpError {}

/// Dependency labels interned to small integers, so paths compare integers, not strings.
/// Ids are kept across sentences: a corpus has few distinct labels.
#[derive(Debug, Default)]
pub struct Labels {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Labels {
    pub fn id(&mut self, label: &str) -> u32 {
        if let Some(&id) = self.ids.get(label) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(label.to_owned(), id);
        self.names.push(label.to_owned());
        id
    }

    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.names.clear();
    }
}

/// A validated dependency tree, or a forest whose roots hang under a virtual root by an edge
/// labelled with the root's own deprel. Rebuilt in place for each sentence.
#[derive(Debug, Default, Clone)]
pub struct Tree {
    /// 0-based parent of each token; `NONE` for a root.
    parent: Vec<u32>,
    /// The interned deprel of each token: the label of the edge to its parent.
    label: Vec<u32>,
    /// Edges between each token and the virtual root: 1 for a root.
    depth: Vec<u32>,
    climb: Vec<u32>,
}

impl Tree {
    pub fn new(parse: Parse, labels: &mut Labels) -> Result<Tree, TreeError> {
        let mut tree = Tree::default();
        tree.build(parse, labels)?;
        Ok(tree)
    }

    /// Check `parse` (lengths agree, heads in `0..=len`, no cycle) and make this tree of it.
    pub fn build(&mut self, parse: Parse, labels: &mut Labels) -> Result<(), TreeError> {
        let n = parse.head.len();
        if parse.deprel.len() != n {
            return Err(TreeError::LengthMismatch { heads: n, deprels: parse.deprel.len() });
        }
        self.parent.clear();
        for (token, &head) in parse.head.iter().enumerate() {
            if head < 0 || head as usize > n {
                return Err(TreeError::HeadOutOfRange { token, head, len: n });
            }
            self.parent.push(if head == 0 { NONE } else { head as u32 - 1 });
        }
        self.label.clear();
        self.label.extend(parse.deprel.iter().map(|l| labels.id(l)));
        self.compute_depths()
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    pub fn depth(&self, token: u32) -> u32 {
        self.depth[token as usize]
    }

    /// Depths by climbing from each token to the first one already known; meeting a token of
    /// the current climb again is a cycle. Linear in the tree size.
    fn compute_depths(&mut self) -> Result<(), TreeError> {
        const UNKNOWN: u32 = 0;
        const CLIMBING: u32 = u32::MAX;
        self.depth.clear();
        self.depth.resize(self.parent.len(), UNKNOWN);
        for start in 0..self.parent.len() as u32 {
            self.climb.clear();
            let mut node = start;
            let mut depth = loop {
                if node == NONE {
                    break 0;
                }
                match self.depth[node as usize] {
                    UNKNOWN => {
                        self.depth[node as usize] = CLIMBING;
                        self.climb.push(node);
                        node = self.parent[node as usize];
                    }
                    CLIMBING => return Err(TreeError::Cycle { token: node as usize }),
                    known => break known,
                }
            };
            for &node in self.climb.iter().rev() {
                depth += 1;
                self.depth[node as usize] = depth;
            }
        }
        Ok(())
    }

    /// The path encoding of tokens `n` and `m` (SPEC §2.1), with label names: for explaining
    /// and testing. The scorer uses the same [`Paths`] without allocating.
    pub fn encoding<'l>(&self, n: u32, m: u32, labels: &'l Labels) -> Encoding<&'l str> {
        let mut paths = Paths::default();
        paths.reset(self.len());
        paths.add(self, n);
        paths.add(self, m);
        let path = paths.encoding(n, m);
        let names = |ids: &[u32]| ids.iter().map(|&id| labels.name(id)).collect::<Vec<_>>();
        let mut chi = names(path.chi);
        chi.reverse(); // stored root first; the encoding lists the edge nearest n first
        Encoding { chi, left: path.left, omega: names(path.omega) }
    }
}

/// `encoding(n, m) = (chi, psi, omega)`: the labels of the edges from n up to the lowest common
/// ancestor p (nearest n first), whether n is left of m (`alpha`, else `beta`), and the labels
/// of the edges from p down to m.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding<T> {
    pub chi: Vec<T>,
    /// psi: `alpha` when true, `beta` when false.
    pub left: bool,
    pub omega: Vec<T>,
}

/// The disparity of two path encodings (SPEC §2.2): `(L, Lmax)` with
/// `L = lev(chi, chi') + lev(psi, psi') + lev(omega, omega')` — three separate distances over
/// whole labels — and `Lmax = max(|chi|, |chi'|) + 1 + max(|omega|, |omega'|)`.
pub fn disparity<T: PartialEq>(a: &Encoding<T>, b: &Encoding<T>) -> (u32, u32) {
    fn view<T>(e: &Encoding<T>) -> PathView<'_, T> {
        PathView { chi: &e.chi, left: e.left, omega: &e.omega }
    }
    path_disparity(view(a), view(b), &mut Vec::new())
}

/// An encoding borrowed from [`Paths`]: `chi` is stored root first (reversed), which leaves every
/// edit distance unchanged, as both sides of a comparison are stored alike.
#[derive(Debug, Clone, Copy)]
struct PathView<'s, T> {
    chi: &'s [T],
    left: bool,
    omega: &'s [T],
}

fn path_disparity<T: PartialEq>(a: PathView<T>, b: PathView<T>, row: &mut Vec<u32>) -> (u32, u32) {
    let l = levenshtein(a.chi, b.chi, row)
        + u32::from(a.left != b.left)
        + levenshtein(a.omega, b.omega, row);
    let lmax = a.chi.len().max(b.chi.len()) + 1 + a.omega.len().max(b.omega.len());
    (l, lmax as u32)
}

/// Edit distance with unit costs (insert, delete, substitute; no transposition), one DP row.
fn levenshtein<T: PartialEq>(a: &[T], b: &[T], row: &mut Vec<u32>) -> u32 {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as u32;
    }
    row.clear();
    row.extend(0..=b.len() as u32);
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i as u32 + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + u32::from(x != y)).min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The root-first chains of ancestors (and their labels) of some tokens of one tree, stored
/// flat: the encoding of n and m is then two slices past their common prefix.
#[derive(Debug, Default)]
struct Paths {
    /// Where each token's chain starts in `nodes`/`labels`; `NONE` when not computed.
    start: Vec<u32>,
    /// Chain lengths (the token's depth).
    len: Vec<u32>,
    nodes: Vec<u32>,
    labels: Vec<u32>,
}

impl Paths {
    fn reset(&mut self, tree_len: usize) {
        self.start.clear();
        self.start.resize(tree_len, NONE);
        self.len.clear();
        self.len.resize(tree_len, 0);
        self.nodes.clear();
        self.labels.clear();
    }

    fn add(&mut self, tree: &Tree, token: u32) {
        if self.start[token as usize] != NONE {
            return;
        }
        let begin = self.nodes.len();
        let mut node = token;
        while node != NONE {
            self.nodes.push(node);
            self.labels.push(tree.label[node as usize]);
            node = tree.parent[node as usize];
        }
        self.nodes[begin..].reverse();
        self.labels[begin..].reverse();
        self.start[token as usize] = begin as u32;
        self.len[token as usize] = (self.nodes.len() - begin) as u32;
    }

    fn chain(&self, token: u32) -> std::ops::Range<usize> {
        let start = self.start[token as usize] as usize;
        start..start + self.len[token as usize] as usize
    }

    /// The encoding of `n` and `m` (both added): past the common ancestors, n's chain holds the
    /// labels up from n (root first) and m's the labels down to m.
    fn encoding(&self, n: u32, m: u32) -> PathView<'_, u32> {
        let (cn, cm) = (self.chain(n), self.chain(m));
        let common =
            self.nodes[cn.clone()].iter().zip(&self.nodes[cm.clone()]).take_while(|(a, b)| a == b).count();
        PathView {
            chi: &self.labels[cn.start + common..cn.end],
            left: n < m,
            omega: &self.labels[cm.start + common..cm.end],
        }
    }
}

/// An edge of the meta-graph between tokens `a < b` of the meta-graph's side, with its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub a: u32,
    pub b: u32,
    pub l: u32,
    pub lmax: u32,
}

/// A pair's DERP score and how it arose; the spanning tree's edges are in [`Scratch::mst`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derp {
    pub score: f64,
    pub sum_l: u64,
    pub sum_lmax: u64,
    /// Aligned nodes in the meta-graph.
    pub nodes: usize,
    /// The tree whose aligned nodes make the meta-graph.
    pub side: Side,
}

/// Reusable buffers for [`derp`]; one per thread or per batch.
#[derive(Debug, Default)]
pub struct Scratch {
    labels: Labels,
    trees: [Tree; 2],
    paths: [Paths; 2],
    links: Vec<Link>,
    /// Links per token, for each side.
    degree: [Vec<u32>; 2],
    /// (token of the meta-graph's side, its counterpart in the other tree), ascending.
    nodes: Vec<(u32, u32)>,
    edges: Vec<Edge>,
    mst: Vec<Edge>,
    sets: Vec<u32>,
    row: Vec<u32>,
}

impl Scratch {
    /// Every meta-graph edge of the last pair scored, in Kruskal's order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The minimum spanning tree of the last pair scored, in the order its edges were taken.
    pub fn mst(&self) -> &[Edge] {
        &self.mst
    }

    fn build_trees(&mut self, src: Parse, tgt: Parse) -> Result<(), DerpError> {
        if self.labels.len() > 1 << 16 {
            self.labels.clear(); // only garbage labels get here; keep memory bounded
        }
        for (i, (side, parse)) in [(Side::Src, src), (Side::Tgt, tgt)].into_iter().enumerate() {
            self.trees[i]
                .build(parse, &mut self.labels)
                .map_err(|error| DerpError::Tree { side, error })?;
        }
        Ok(())
    }

    /// Deduplicate the links and check them against both trees.
    fn read_links(&mut self, links: &[Link]) -> Result<(), DerpError> {
        let lens = [self.trees[0].len(), self.trees[1].len()];
        for &(a, b) in links {
            for (side, position, len) in [(Side::Src, a, lens[0]), (Side::Tgt, b, lens[1])] {
                if position as usize >= len {
                    return Err(DerpError::LinkOutOfRange { side, position, len });
                }
            }
        }
        self.links.clear();
        self.links.extend_from_slice(links);
        self.links.sort_unstable();
        self.links.dedup();
        for (side, degree) in self.degree.iter_mut().enumerate() {
            degree.clear();
            degree.resize(lens[side], 0);
        }
        for &(a, b) in &self.links {
            self.degree[0][a as usize] += 1;
            self.degree[1][b as usize] += 1;
        }
        Ok(())
    }

    /// SPEC §2.3: the meta-graph is made of the aligned nodes of the tree in which each has
    /// exactly one counterpart, `src` when both qualify. When neither does, each `src` node takes
    /// the counterpart highest in the `tgt` tree (smallest depth), ties to the leftmost.
    fn select_nodes(&mut self) -> Side {
        let one_each = |degree: &[u32]| degree.iter().all(|&d| d <= 1);
        self.nodes.clear();
        if !one_each(&self.degree[0]) && one_each(&self.degree[1]) {
            self.nodes.extend(self.links.iter().map(|&(a, b)| (b, a)));
            self.nodes.sort_unstable();
            return Side::Tgt;
        }
        // Links are sorted by (src, tgt): each src token's links are adjacent.
        let tgt = &self.trees[1];
        for group in self.links.chunk_by(|x, y| x.0 == y.0) {
            let best = group.iter().min_by_key(|&&(_, b)| (tgt.depth(b), b)).expect("non-empty");
            self.nodes.push(*best);
        }
        Side::Src
    }

    /// Weigh every pair of meta-graph nodes: L and Lmax of their paths in both trees (eq. 5.5),
    /// or 0 and 0 when they share a counterpart (eq. 5.6).
    fn weigh_edges(&mut self, side: Side) {
        let (meta, other) = match side {
            Side::Src => (0, 1),
            Side::Tgt => (1, 0),
        };
        for (i, tree) in self.trees.iter().enumerate() {
            self.paths[i].reset(tree.len());
        }
        for &(n, c) in &self.nodes {
            self.paths[meta].add(&self.trees[meta], n);
            self.paths[other].add(&self.trees[other], c);
        }
        self.edges.clear();
        let (meta_paths, other_paths) = (&self.paths[meta], &self.paths[other]);
        for (i, &(n, cn)) in self.nodes.iter().enumerate() {
            for &(m, cm) in &self.nodes[i + 1..] {
                let (l, lmax) = if cn == cm {
                    (0, 0)
                } else {
                    let here = meta_paths.encoding(n, m);
                    let there = other_paths.encoding(cn, cm);
                    path_disparity(here, there, &mut self.row)
                };
                self.edges.push(Edge { a: n, b: m, l, lmax });
            }
        }
    }

    /// Kruskal over edges sorted by (L ascending, Lmax descending, a, b): SPEC's tie order,
    /// under which sum(L) is the minimum and, among minimum trees, sum(Lmax) the maximum.
    fn spanning_tree(&mut self, side_len: usize) {
        self.edges.sort_unstable_by_key(|e| (e.l, Reverse(e.lmax), e.a, e.b));
        self.sets.clear();
        self.sets.extend(0..side_len as u32);
        self.mst.clear();
        for &edge in &self.edges {
            let (ra, rb) = (find(&mut self.sets, edge.a), find(&mut self.sets, edge.b));
            if ra != rb {
                self.sets[ra.max(rb) as usize] = ra.min(rb);
                self.mst.push(edge);
                if self.mst.len() + 1 == self.nodes.len() {
                    break;
                }
            }
        }
    }
}

fn find(sets: &mut [u32], mut x: u32) -> u32 {
    while sets[x as usize] != x {
        let up = sets[sets[x as usize] as usize];
        sets[x as usize] = up; // path halving
        x = up;
    }
    x
}

/// DERP of a pair: `src` is the reference tree D, `tgt` the hypothesis D', `links` 0-based
/// (src, tgt) positions. 1 = the same order; an error says why the score is undefined.
pub fn derp(src: Parse, tgt: Parse, links: &[Link], scratch: &mut Scratch) -> Result<Derp, DerpError> {
    derp_within(src, tgt, links, MAX_NODES, scratch)
}

/// [`derp`] of a pair of at most `max_nodes` aligned nodes; more is [`DerpError::TooManyNodes`].
pub fn derp_within(src: Parse, tgt: Parse, links: &[Link], max_nodes: usize, scratch: &mut Scratch) -> Result<Derp, DerpError> {
    scratch.build_trees(src, tgt)?;
    scratch.read_links(links)?;
    let side = scratch.select_nodes();
    let nodes = scratch.nodes.len();
    if nodes < 2 {
        return Err(DerpError::TooFewNodes { nodes });
    }
    if nodes > max_nodes {
        return Err(DerpError::TooManyNodes { nodes, limit: max_nodes });
    }
    scratch.weigh_edges(side);
    let side_len = scratch.trees[if side == Side::Src { 0 } else { 1 }].len();
    scratch.spanning_tree(side_len);
    let sum_l: u64 = scratch.mst.iter().map(|e| u64::from(e.l)).sum();
    let sum_lmax: u64 = scratch.mst.iter().map(|e| u64::from(e.lmax)).sum();
    if sum_lmax == 0 {
        return Err(DerpError::NoPathLength);
    }
    Ok(Derp { score: 1.0 - sum_l as f64 / sum_lmax as f64, sum_l, sum_lmax, nodes, side })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<'a>(head: &'a [i32], deprel: &'a [&'a str]) -> Parse<'a> {
        Parse { head, deprel }
    }

    #[test]
    fn levenshtein_over_whole_labels() {
        let mut row = Vec::new();
        assert_eq!(levenshtein(&[1, 2], &[2, 1], &mut row), 2);
        assert_eq!(levenshtein(&[1, 2, 3], &[1, 3], &mut row), 1);
        assert_eq!(levenshtein::<u32>(&[], &[4, 5], &mut row), 2);
        assert_eq!(levenshtein(&[1, 2, 3, 4], &[5, 2, 3, 6], &mut row), 2);
        assert_eq!(levenshtein(&[7, 8, 9], &[9, 7, 8], &mut row), 2);
    }

    #[test]
    fn depths_of_a_forest() {
        let mut labels = Labels::default();
        // two sentences on one line: 1 <- 2 (root), 4 <- 3 (root)
        let tree = Tree::new(parse(&[2, 0, 0, 3], &["a", "root", "root", "b"]), &mut labels).unwrap();
        assert_eq!((0..4).map(|t| tree.depth(t)).collect::<Vec<_>>(), [2, 1, 1, 2]);
        // across the forest the path runs through the virtual root, over both roots' labels
        let e = tree.encoding(0, 3, &labels);
        assert_eq!((e.chi, e.left, e.omega), (vec!["a", "root"], true, vec!["root", "b"]));
    }

    #[test]
    fn malformed_trees() {
        let mut labels = Labels::default();
        let mut tree = Tree::default();
        let mut check = |head: &[i32], deprel: &[&str], expected: TreeError| {
            assert_eq!(tree.build(parse(head, deprel), &mut labels), Err(expected));
        };
        check(&[0, 1], &["root"], TreeError::LengthMismatch { heads: 2, deprels: 1 });
        check(&[0, 3], &["r", "x"], TreeError::HeadOutOfRange { token: 1, head: 3, len: 2 });
        check(&[0, -1], &["r", "x"], TreeError::HeadOutOfRange { token: 1, head: -1, len: 2 });
        check(&[2, 1], &["x", "y"], TreeError::Cycle { token: 0 });
        check(&[0, 2], &["r", "x"], TreeError::Cycle { token: 1 });
        check(&[0, 3, 4, 2], &["r", "x", "y", "z"], TreeError::Cycle { token: 1 });
    }

    #[test]
    fn one_to_many_links_put_the_meta_graph_on_the_other_side() {
        // src token 0 links to tgt 0 and 1: src does not qualify, tgt does.
        let (h, d) = (&[0, 1, 1][..], &["root", "a", "b"][..]);
        let mut scratch = Scratch::default();
        let result = derp(parse(h, d), parse(h, d), &[(0, 0), (0, 1), (2, 2)], &mut scratch).unwrap();
        assert_eq!((result.side, result.nodes), (Side::Tgt, 3));
        assert_eq!(scratch.mst().iter().filter(|e| e.lmax == 0).count(), 1);
    }

    #[test]
    fn many_to_many_takes_the_highest_counterpart() {
        // src 0 -> tgt {1, 2}, tgt 1 <- src {0, 1}: neither side qualifies. In tgt, token 2 is
        // the root, so src 0 takes it; src 1 has only tgt 1.
        let (h, d) = (&[3, 3, 0][..], &["a", "b", "root"][..]);
        let mut scratch = Scratch::default();
        let links = [(0, 1), (0, 2), (1, 1)];
        let result = derp(parse(h, d), parse(h, d), &links, &mut scratch).unwrap();
        assert_eq!((result.side, result.nodes), (Side::Src, 2));
        assert_eq!(scratch.nodes, [(0, 2), (1, 1)]);
    }
}
