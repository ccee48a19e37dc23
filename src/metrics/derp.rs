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
use std::ops::{BitOr, Shl, Shr};

use super::intern::Interner;
use super::{Link, Side};

/// Pairs with more aligned nodes than this, or an aligned word deeper than this in its tree,
/// are not scored unless told ([`derp_within`]): the meta-graph is complete, so its edges grow
/// as the square (1,000 nodes are 499,500 edges), and each word's table of path distances as
/// the square of its depth; one mis-split "sentence" would stall a corpus. No real sentence
/// comes near.
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
    /// An aligned word deeper than the limit: a word's edges cost the square of its depth.
    TooDeep { depth: u32, limit: usize },
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
            DerpError::TooDeep { depth, limit } => {
                write!(f, "an aligned word {depth} arcs below the root, deeper than the {limit} DERP scores (pairmetrics.derp_max_nodes)")
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
    /// Each token's place in a depth-first preorder of the forest, and the depths in that order:
    /// the lowest common ancestor of two tokens is one above the shallowest token between them.
    preorder: Vec<u32>,
    depth_in_preorder: Vec<u32>,
    /// Work space: the climb of `compute_depths`, then `number_preorder`'s.
    climb: Vec<u32>,
    children: Vec<u32>,
    stack: Vec<u32>,
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
        self.number_preorder();
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

    /// A depth-first preorder of the forest (children in any order), by an explicit stack over
    /// the children grouped per parent (the virtual root is parent `len`).
    fn number_preorder(&mut self) {
        let len = self.len();
        let first = &mut self.climb; // free once the depths are known: where each parent's children start
        first.clear();
        first.resize(len + 2, 0);
        for &p in &self.parent {
            first[if p == NONE { len } else { p as usize } + 1] += 1;
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        self.children.clear();
        self.children.resize(len, 0);
        let next = &mut self.stack;
        next.clear();
        next.extend_from_slice(&first[..=len]);
        for (token, &p) in self.parent.iter().enumerate() {
            let p = if p == NONE { len } else { p as usize };
            self.children[next[p] as usize] = token as u32;
            next[p] += 1;
        }
        self.preorder.clear();
        self.preorder.resize(len, 0);
        self.depth_in_preorder.clear();
        let stack = next; // the DFS stack now
        stack.clear();
        stack.extend(self.children[first[len] as usize..first[len + 1] as usize].iter().rev());
        while let Some(token) = stack.pop() {
            self.preorder[token as usize] = self.depth_in_preorder.len() as u32;
            self.depth_in_preorder.push(self.depth[token as usize]);
            let t = token as usize;
            stack.extend(self.children[first[t] as usize..first[t + 1] as usize].iter().rev());
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

    /// `out[i * k + j]`: the depth of the lowest common ancestor of `tokens[i]` and `tokens[j]`
    /// (0 across the trees of a forest), for k tokens. In preorder, the shallowest token after
    /// the first of two and up to the second is a child of their common ancestor, so one running
    /// minimum per token, over the gaps between the tokens in preorder, gives its whole row.
    fn lca_depths(&self, tokens: &[u32], work: &mut LcaWork, out: &mut Vec<u32>) {
        let k = tokens.len();
        out.clear();
        out.resize(k * k, 0);
        let LcaWork { order, gap } = work;
        order.clear();
        order.extend(0..k as u32);
        order.sort_unstable_by_key(|&i| self.preorder[tokens[i as usize] as usize]);
        gap.clear();
        gap.push(u32::MAX);
        for w in order.windows(2) {
            let (from, to) = (self.preorder[tokens[w[0] as usize] as usize], self.preorder[tokens[w[1] as usize] as usize]);
            gap.push(self.depth_in_preorder[from as usize + 1..=to as usize].iter().copied().min().unwrap_or(u32::MAX));
        }
        for (a, &i) in order.iter().enumerate() {
            let i = i as usize;
            let token = tokens[i];
            out[i * k + i] = self.depth(token);
            let mut shallowest = u32::MAX;
            for (b, &j) in order.iter().enumerate().skip(a + 1) {
                shallowest = shallowest.min(gap[b]);
                // No token between them: the same token twice (counterparts can repeat).
                let d = if shallowest == u32::MAX { self.depth(token) } else { shallowest - 1 };
                out[i * k + j as usize] = d;
                out[j as usize * k + i] = d;
            }
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
        u128::pack(self.l, self.lmax, self.a as usize, self.b as usize)
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
    /// Prim's state (see [`prim`]).
    best64: Vec<u64>,
    best128: Vec<u128>,
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
    /// Every edge's L and Lmax, as symmetric k x k matrices.
    l: Vec<u32>,
    lmax: Vec<u32>,
    /// Depth of each node (in its tree) and of its counterpart (in the other).
    depth: [Vec<u32>; 2],
    chains: [Vec<u32>; 2],
    tokens: Vec<u32>,
    lca_work: LcaWork,
    table: SuffixDistances,
}

/// Buffers of [`Tree::lca_depths`].
#[derive(Debug, Default)]
struct LcaWork {
    order: Vec<u32>,
    gap: Vec<u32>,
}

impl Weights {
    /// L and Lmax of every pair of nodes (eq. 5.5), or 0 and 0 when they share a counterpart
    /// (eq. 5.6), from two trees and the nodes' (token, counterpart), in sentence order.
    fn compute(&mut self, trees: [&Tree; 2], nodes: &[(u32, u32)]) {
        let k = nodes.len();
        self.k = k;
        for (side, tree) in trees.into_iter().enumerate() {
            let token = |&(n, c): &(u32, u32)| if side == 0 { n } else { c };
            self.depth[side].clear();
            self.depth[side].extend(nodes.iter().map(|node| tree.depth(token(node))));
            self.tokens.clear();
            self.tokens.extend(nodes.iter().map(token));
            tree.lca_depths(&self.tokens, &mut self.lca_work, &mut self.lca[side]);
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
        self.l.clear();
        self.l.resize(k * k, 0);
        self.lmax.clear();
        self.lmax.resize(k * k, 0);
        for (i, &(_, cn)) in nodes.iter().enumerate() {
            for (j, &(_, cm)) in nodes.iter().enumerate().skip(i + 1) {
                let (l, lmax) = if cn == cm {
                    (0, 0)
                } else {
                    let at = i * k + j;
                    let (x, y) = (self.lca[0][at], self.lca[1][at]);
                    let up = |node: usize| (self.depth[0][node] - x).max(self.depth[1][node] - y);
                    (self.half[at] + self.half[j * k + i] + u32::from(cn > cm), up(i) + 1 + up(j))
                };
                (self.l[i * k + j], self.l[j * k + i]) = (l, l);
                (self.lmax[i * k + j], self.lmax[j * k + i]) = (lmax, lmax);
            }
        }
    }

    /// The edge between nodes i and j.
    fn edge(&self, nodes: &[(u32, u32)], i: usize, j: usize) -> Edge {
        let (i, j) = (i.min(j), i.max(j));
        let at = i * self.k + j;
        Edge { a: nodes[i].0, b: nodes[j].0, l: self.l[at], lmax: self.lmax[at] }
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
    /// then put in that order, the order Kruskal takes them. Ranks fit in a u64 for any real
    /// sentence (the u64 loop is the fast one); u128 holds any pair.
    fn spanning_tree(&mut self, deepest: u64) {
        let k = self.nodes.len();
        if k <= 1 << 16 && 2 * deepest + 1 < 1 << 16 {
            prim::<u64>(&self.nodes, &self.weights, &mut self.best64, &mut self.mst);
        } else {
            prim::<u128>(&self.nodes, &self.weights, &mut self.best128, &mut self.mst);
        }
        self.mst.sort_unstable_by_key(Edge::rank);
    }
}

/// An edge's place in SPEC's order, packed in one integer of four equal fields: L, then Lmax
/// reversed, then the two ends (node indices in sentence order, or positions: they order alike).
trait Rank: Copy + Ord + From<u32> + BitOr<Output = Self> + Shl<u32, Output = Self> + Shr<u32, Output = Self> {
    const MAX: Self;
    const ZERO: Self;
    const FIELD: u32;
    fn low_u32(self) -> u32;

    fn pack(l: u32, lmax: u32, i: usize, j: usize) -> Self {
        let field = |x: u32, at: u32| Self::from(x) << (at * Self::FIELD);
        let mask = u32::MAX >> (32 - Self::FIELD);
        field(l, 3) | field(mask - lmax, 2) | field(i.min(j) as u32, 1) | field(i.max(j) as u32, 0)
    }

    /// The two ends of a packed edge.
    fn ends(self) -> (usize, usize) {
        let mask = u32::MAX >> (32 - Self::FIELD);
        (((self >> Self::FIELD).low_u32() & mask) as usize, (self.low_u32() & mask) as usize)
    }
}

macro_rules! rank {
    ($type:ty, $field:expr) => {
        impl Rank for $type {
            const MAX: Self = <$type>::MAX;
            const ZERO: Self = 0;
            const FIELD: u32 = $field;
            fn low_u32(self) -> u32 {
                self as u32
            }
        }
    };
}
rank!(u64, 16);
rank!(u128, 32);

/// Prim's algorithm, each step one branch-free pass over the joined node's row: `best[j]` is
/// the rank of the cheapest edge from the tree to node j, or MAX once j is in the tree
/// (`done[j]` is then MAX, and OR-ing it keeps it there). The cheapest of them is the next edge;
/// its rank names its ends.
fn prim<R: Rank>(nodes: &[(u32, u32)], weights: &Weights, best: &mut Vec<R>, mst: &mut Vec<Edge>) {
    let k = nodes.len();
    best.clear();
    best.resize(2 * k, R::MAX);
    let (best, done) = best.split_at_mut(k);
    done.fill(R::ZERO);
    mst.clear();
    let mut joined = 0;
    for _ in 1..k {
        done[joined] = R::MAX;
        let (l, lmax) = (&weights.l[joined * k..(joined + 1) * k], &weights.lmax[joined * k..(joined + 1) * k]);
        let mut cheapest = R::MAX;
        for j in 0..k {
            let rank = R::pack(l[j], lmax[j], joined, j);
            best[j] = best[j].min(rank) | done[j];
            cheapest = cheapest.min(best[j]);
        }
        let (i, j) = cheapest.ends();
        mst.push(weights.edge(nodes, i, j));
        joined = if done[i] == R::MAX { j } else { i };
    }
}

/// DERP of a pair: `src` is the reference tree D, `tgt` the hypothesis D', `links` 0-based
/// (src, tgt) positions. 1 = the same order; an error says why the score is undefined.
pub fn derp(src: Parse, tgt: Parse, links: &[Link], scratch: &mut Scratch) -> Result<Derp, DerpError> {
    derp_within(src, tgt, links, MAX_NODES, scratch)
}

/// [`derp`] of a pair of at most `max_nodes` aligned nodes, none deeper than `max_nodes`; more
/// is [`DerpError::TooManyNodes`] or [`DerpError::TooDeep`].
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
    let depth = |side: usize, token: u32| u64::from(trees[side].depth(token));
    let deepest = scratch.nodes.iter().map(|&(n, c)| depth(0, n).max(depth(1, c))).max().unwrap_or(0);
    if deepest > max_nodes as u64 {
        return Err(DerpError::TooDeep { depth: deepest as u32, limit: max_nodes });
    }
    scratch.weights.compute(trees, &scratch.nodes);
    scratch.spanning_tree(deepest);
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
    fn wide_ranks_give_the_same_tree() {
        // A chain and a tree of mixed labels, all aligned: the u128 ranks (for pairs past any
        // real sentence) must take the tree the u64 ranks take, edge for edge.
        let head: Vec<i32> = (0..40).map(|i| if i == 0 { 0 } else { (i * 7 + 3) % i + 1 }).collect();
        let chain: Vec<i32> = (0..40).collect();
        let labels = ["a", "b", "c", "d", "e"];
        let (d1, d2): (Vec<&str>, Vec<&str>) = ((0..40).map(|i| labels[i % 5]).collect(), (0..40).map(|i| labels[i * 3 % 5]).collect());
        let links: Vec<Link> = (0..40).map(|i| (i, (i * 11) % 40)).collect();
        let mut scratch = Scratch::default();
        derp(parse(&head, &d1), parse(&chain, &d2), &links, &mut scratch).unwrap();
        let narrow = scratch.mst().to_vec();
        prim::<u128>(&scratch.nodes, &scratch.weights, &mut scratch.best128, &mut scratch.mst);
        scratch.mst.sort_unstable_by_key(Edge::rank);
        assert_eq!(scratch.mst, narrow);
    }

    #[test]
    fn a_word_deeper_than_the_limit_is_not_scored() {
        let chain: Vec<i32> = (0..30).collect();
        let labels = vec!["x"; 30];
        let links = [(0, 0), (29, 29)];
        let mut scratch = Scratch::default();
        let too_deep = derp_within(parse(&chain, &labels), parse(&chain, &labels), &links, 20, &mut scratch);
        assert_eq!(too_deep, Err(DerpError::TooDeep { depth: 30, limit: 20 }));
        assert!(derp_within(parse(&chain, &labels), parse(&chain, &labels), &links, 30, &mut scratch).is_ok());
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
