//! DERP, the dependency-path ordering score (McCaffery 2017, thesis ch. 5; SPEC §2): how well an
//! alignment preserves word order, judged through the dependency paths between aligned words in
//! the two trees. Plain Rust over slices: no Arrow here.
//!
//! The steps: build each [`Tree`] (validated, labels interned), pick the meta-graph's side and
//! each node's counterpart ([`Scratch::select_nodes`]), weigh every meta-graph edge by the
//! [`disparity`] of its two path [`Encoding`]s, take the minimum spanning tree under SPEC's edge
//! order, and score `1 - sum(L) / sum(Lmax)` over its edges.
//!
//! Why it is fast: a path's chi and omega are suffixes of root chains cut at the lowest common
//! ancestor, so the edit distances of all of a node's edges are read from one table of suffix
//! distances per node ([`Weights`]), and Prim's algorithm weighs each edge once, when needed,
//! instead of sorting all k^2/2 of them. [`disparity`] is the definition, for tests and
//! explanations; the scorer gives the same values.

use std::fmt;

use super::intern::Interner;
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
pub type Labels = Interner;

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
    /// The tokens by depth, so that a parent comes before its children.
    top_down: Vec<u32>,
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
        self.label.extend(parse.deprel.iter().map(|l| labels.intern(l)));
        self.compute_depths()?;
        self.sort_top_down();
        Ok(())
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

    /// A counting sort of the tokens by depth.
    fn sort_top_down(&mut self) {
        let len = self.len();
        let counts = &mut self.climb; // free once the depths are known
        counts.clear();
        counts.resize(len + 2, 0);
        for &d in &self.depth {
            counts[d as usize + 1] += 1;
        }
        for d in 1..counts.len() {
            counts[d] += counts[d - 1];
        }
        self.top_down.clear();
        self.top_down.resize(len, 0);
        for (token, &d) in self.depth.iter().enumerate() {
            self.top_down[counts[d as usize] as usize] = token as u32;
            counts[d as usize] += 1;
        }
    }

    /// Push the labels from the root down to `token` (its root chain's edges, root first).
    fn push_chain(&self, token: u32, out: &mut Vec<u32>) {
        let begin = out.len();
        let mut node = token;
        while node != NONE {
            out.push(self.label[node as usize]);
            node = self.parent[node as usize];
        }
        out[begin..].reverse();
    }

    /// The depth of the lowest common ancestor of `token` and every token (0 across the trees
    /// of a forest), into `out`: one pass from the roots down.
    fn lca_depths(&self, token: u32, on_chain: &mut [bool], out: &mut [u32]) {
        let mut node = token;
        while node != NONE {
            on_chain[node as usize] = true;
            node = self.parent[node as usize];
        }
        for &t in &self.top_down {
            let t = t as usize;
            out[t] = match self.parent[t] {
                _ if on_chain[t] => self.depth[t],
                NONE => 0,
                p => out[p as usize],
            };
        }
        let mut node = token;
        while node != NONE {
            on_chain[node as usize] = false;
            node = self.parent[node as usize];
        }
    }

    /// The path encoding of tokens `n` and `m` (SPEC §2.1), with label names: for explaining
    /// and testing. The scorer finds the same paths as suffixes of root chains.
    pub fn encoding<'l>(&self, n: u32, m: u32, labels: &'l Labels) -> Encoding<&'l str> {
        let chain = |token: u32| {
            let mut nodes = Vec::new();
            let mut node = token;
            while node != NONE {
                nodes.push(node);
                node = self.parent[node as usize];
            }
            nodes.reverse();
            nodes
        };
        let (cn, cm) = (chain(n), chain(m));
        let common = cn.iter().zip(&cm).take_while(|(a, b)| a == b).count();
        let names = |nodes: &[u32]| nodes.iter().map(|&t| labels.resolve(self.label[t as usize])).collect::<Vec<_>>();
        let mut chi = names(&cn[common..]);
        chi.reverse(); // the encoding lists the edge nearest n first
        Encoding { chi, left: n < m, omega: names(&cm[common..]) }
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
    let l = levenshtein(&a.chi, &b.chi) + u32::from(a.left != b.left) + levenshtein(&a.omega, &b.omega);
    let lmax = a.chi.len().max(b.chi.len()) + 1 + a.omega.len().max(b.omega.len());
    (l, lmax as u32)
}

/// Edit distance with unit costs (insert, delete, substitute; no transposition).
fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> u32 {
    let mut row: Vec<u32> = (0..=b.len() as u32).collect();
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

/// Edit distances between every suffix of one label chain and every suffix of another:
/// `get(x, y) = lev(a[x..], b[y..])`. A meta-graph node's chi (and omega) against its
/// counterpart's is always such a pair of suffixes, cut where the lowest common ancestor is, so
/// one table per node answers all its edges.
#[derive(Debug, Default)]
struct SuffixDistances {
    width: usize,
    cells: Vec<u32>,
}

impl SuffixDistances {
    fn fill(&mut self, a: &[u32], b: &[u32]) {
        let width = b.len() + 1;
        self.width = width;
        self.cells.clear();
        self.cells.resize((a.len() + 1) * width, 0);
        let cells = &mut self.cells;
        for y in 0..width {
            cells[a.len() * width + y] = (b.len() - y) as u32;
        }
        for x in (0..a.len()).rev() {
            let (row, below) = cells[x * width..(x + 2) * width].split_at_mut(width);
            row[b.len()] = (a.len() - x) as u32;
            for y in (0..b.len()).rev() {
                let substitute = below[y + 1] + u32::from(a[x] != b[y]);
                row[y] = substitute.min(below[y] + 1).min(row[y + 1] + 1);
            }
        }
    }

    fn get(&self, x: u32, y: u32) -> u32 {
        self.cells[x as usize * self.width + y as usize]
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

impl Edge {
    /// SPEC's order of edges: L ascending, then Lmax descending, then (a, b). It is total, so the
    /// minimum spanning tree under it is unique, and sum(L) is the minimum and, among minimum
    /// trees, sum(Lmax) the maximum.
    fn rank(&self) -> u128 {
        (u128::from(self.l) << 96) | (u128::from(u32::MAX - self.lmax) << 64) | (u128::from(self.a) << 32) | u128::from(self.b)
    }
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

/// Reusable buffers for [`derp`]; one per thread or per batch. Nothing is allocated per pair
/// once they have grown to the largest pair seen.
#[derive(Debug, Default)]
pub struct Scratch {
    labels: Labels,
    trees: [Tree; 2],
    links: Vec<Link>,
    /// Links per token, for each side.
    degree: [Vec<u32>; 2],
    /// (token of the meta-graph's side, its counterpart in the other tree), ascending.
    nodes: Vec<(u32, u32)>,
    /// The weights of the last pair scored, as k x k matrices over the nodes (row-major).
    weights: Weights,
    mst: Vec<Edge>,
    /// Prim's state: each node outside the tree and its cheapest edge to it.
    frontier: Vec<(u32, u128, Edge)>,
}

/// What every edge's (L, Lmax) is made of, for k meta-graph nodes.
#[derive(Debug, Default)]
struct Weights {
    k: usize,
    /// Depth of the lowest common ancestor of nodes i and j in the meta-graph's tree, and of
    /// their counterparts in the other tree.
    lca: [Vec<u32>; 2],
    /// `half[i * k + j]`: lev of node i's path up to that ancestor against its counterpart's, so
    /// that an edge's L is `half[i][j] + half[j][i]` plus the direction.
    half: Vec<u32>,
    /// Depth of each node (in its tree) and of its counterpart (in the other).
    depth: [Vec<u32>; 2],
    chains: [Vec<u32>; 2],
    on_chain: Vec<bool>,
    lca_row: Vec<u32>,
    table: SuffixDistances,
}

impl Weights {
    /// L and Lmax of every pair of nodes, from two trees and the nodes' (token, counterpart).
    fn compute(&mut self, trees: [&Tree; 2], nodes: &[(u32, u32)]) {
        let k = nodes.len();
        self.k = k;
        for (side, tree) in trees.into_iter().enumerate() {
            let token = |&(n, c): &(u32, u32)| if side == 0 { n } else { c };
            self.depth[side].clear();
            self.depth[side].extend(nodes.iter().map(|node| tree.depth(token(node))));
            self.on_chain.clear();
            self.on_chain.resize(tree.len(), false);
            self.lca_row.resize(tree.len(), 0);
            let lca = &mut self.lca[side];
            lca.clear();
            for node in nodes {
                tree.lca_depths(token(node), &mut self.on_chain, &mut self.lca_row);
                lca.extend(nodes.iter().map(|other| self.lca_row[token(other) as usize]));
            }
        }
        self.half.clear();
        self.half.resize(k * k, 0);
        for (i, &(n, c)) in nodes.iter().enumerate() {
            for (side, token) in [(0, n), (1, c)] {
                self.chains[side].clear();
                trees[side].push_chain(token, &mut self.chains[side]);
            }
            self.table.fill(&self.chains[0], &self.chains[1]);
            for j in 0..k {
                self.half[i * k + j] = self.table.get(self.lca[0][i * k + j], self.lca[1][i * k + j]);
            }
        }
    }

    /// The edge between nodes i and j (eq. 5.5), or 0 and 0 when they share a counterpart
    /// (eq. 5.6). The meta-graph's nodes are in sentence order, so n < m there.
    fn edge(&self, nodes: &[(u32, u32)], i: usize, j: usize) -> Edge {
        let (i, j) = (i.min(j), i.max(j));
        let ((n, cn), (m, cm)) = (nodes[i], nodes[j]);
        if cn == cm {
            return Edge { a: n, b: m, l: 0, lmax: 0 };
        }
        let at = i * self.k + j;
        let (x, y) = (self.lca[0][at], self.lca[1][at]);
        let l = self.half[at] + self.half[j * self.k + i] + u32::from(cn > cm);
        let up = |node: usize| (self.depth[0][node] - x).max(self.depth[1][node] - y);
        Edge { a: n, b: m, l, lmax: up(i) + 1 + up(j) }
    }
}

impl Scratch {
    /// Every meta-graph edge of the last pair scored, by (a, b): for explaining and testing.
    pub fn edges(&self) -> Vec<Edge> {
        let k = self.nodes.len();
        (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).map(|(i, j)| self.weights.edge(&self.nodes, i, j)).collect()
    }

    /// The minimum spanning tree of the last pair scored, in SPEC's edge order (the order
    /// Kruskal's algorithm takes its edges).
    pub fn mst(&self) -> &[Edge] {
        &self.mst
    }

    fn build_trees(&mut self, src: Parse, tgt: Parse) -> Result<(), DerpError> {
        if self.labels.len() > 1 << 16 {
            self.labels = Labels::default(); // only garbage labels get here; keep memory bounded
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

    /// Prim's algorithm on the complete meta-graph, O(k^2) with no list of all edges, under
    /// SPEC's total edge order: the same unique tree Kruskal's algorithm finds. Its edges are
    /// then put in that order, the order Kruskal takes them.
    fn spanning_tree(&mut self) {
        let (nodes, weights) = (&self.nodes, &self.weights);
        self.mst.clear();
        self.frontier.clear();
        self.frontier.extend((1..nodes.len()).map(|j| {
            let edge = weights.edge(nodes, 0, j);
            (j as u32, edge.rank(), edge)
        }));
        while let Some(at) = (0..self.frontier.len()).min_by_key(|&at| self.frontier[at].1) {
            let (joined, _, edge) = self.frontier.swap_remove(at);
            self.mst.push(edge);
            for (j, rank, best) in &mut self.frontier {
                let edge = weights.edge(nodes, joined as usize, *j as usize);
                if edge.rank() < *rank {
                    (*rank, *best) = (edge.rank(), edge);
                }
            }
        }
        self.mst.sort_unstable_by_key(Edge::rank);
    }
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
    let trees = match side {
        Side::Src => [&scratch.trees[0], &scratch.trees[1]],
        Side::Tgt => [&scratch.trees[1], &scratch.trees[0]],
    };
    scratch.weights.compute(trees, &scratch.nodes);
    scratch.spanning_tree();
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
        assert_eq!(levenshtein(&[1, 2], &[2, 1]), 2);
        assert_eq!(levenshtein(&[1, 2, 3], &[1, 3]), 1);
        assert_eq!(levenshtein::<u32>(&[], &[4, 5]), 2);
        assert_eq!(levenshtein(&[1, 2, 3, 4], &[5, 2, 3, 6]), 2);
        assert_eq!(levenshtein(&[7, 8, 9], &[9, 7, 8]), 2);
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
