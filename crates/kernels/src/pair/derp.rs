//! DERP, the dependency-path ordering score (McCaffery 2017, thesis ch. 5; SPEC §2): how well an
//! alignment preserves word order, judged through the dependency paths between aligned words in
//! the two trees. Plain Rust over slices: no Arrow here.
//!
//! The steps: build each [`Tree`] (validated, labels interned), pick the meta-graph's side and
//! each node's counterpart ([`Scratch::select_nodes`]), weigh every meta-graph edge by the
//! [`disparity`] of its two path [`Encoding`]s, take the minimum spanning tree under SPEC's edge
//! order, and score `1 - sum(L) / sum(Lmax)` over its edges.
//!
//! Why it is fast: a path's chi and omega are the first steps of two climbs to the root, up to
//! the lowest common ancestor, so one table of edit distances per node ([`PrefixDistances`])
//! answers its half of all its edges ([`Rank::half`]); Prim's algorithm adds an edge's two
//! halves into its packed rank when it first needs it, with no sort of all k^2/2 edges, and the
//! common ancestors' depths come a node's row at a time ([`Ancestors`]): memory grows as k^2
//! halves, nothing more. On CPUs with AVX-512, pairs of real sentences go through
//! [`avx512`]'s path instead: the same ranks and tree, 16 nodes at a time, each node's table
//! looked up in registers (the test `avx512_gives_the_scalar_ranks_and_tree` holds the two
//! paths equal). [`disparity`] is the definition, for tests and explanations; the scorer gives
//! the same values.

use std::fmt;
use std::ops::{BitOr, Shl, Shr};

use crate::text::intern::Interner;
use crate::{Link, Side};

#[cfg(target_arch = "x86_64")]
mod avx512;

/// Pairs with more aligned nodes than this, or an aligned word deeper than this in its tree,
/// are not scored unless told ([`derp_within`]): the meta-graph is complete, so its edges grow
/// as the square (1,000 nodes are 499,500 edges), and each word's table of path distances as
/// the square of its depth; one mis-split "sentence" would stall a corpus. No real sentence
/// comes near.
pub const MAX_NODES: usize = 1000;

/// The largest size limit honoured, whatever [`derp_within`] is given: edges are ranked in a u64
/// (16 bits for each end and for L and Lmax, which is at most twice the depth plus one), and a
/// pair this large already takes 8 GiB of ranks.
pub const MAX_NODES_CEILING: usize = (1 << 15) - 1;

/// Marks a root's parent, and a path not yet computed.
const NONE: u32 = u32::MAX;

const SIDES: [Side; 2] = [Side::Src, Side::Tgt];

/// One side's dependency parse: CoNLL-U heads (1-based, 0 = root) and relation labels.
#[derive(Debug, Clone, Copy)]
pub struct Parse<'a> {
    pub head: &'a [i32],
    pub deprel: &'a [&'a str],
}

/// A [`Parse`] whose labels are already ids of the scorer's [`Labels`] ([`Scratch::labels`]):
/// what a caller passes when it holds each distinct label once (a dictionary-encoded column),
/// so that no label is looked up per token.
#[derive(Debug, Clone, Copy)]
pub struct LabelledParse<'a> {
    pub head: &'a [i32],
    pub label: &'a [u32],
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
    Tree {
        side: Side,
        error: TreeError,
    },
    LinkOutOfRange {
        side: Side,
        position: u32,
        len: usize,
    },
    TooFewNodes {
        nodes: usize,
    },
    TooManyNodes {
        nodes: usize,
        limit: usize,
    },
    /// An aligned word deeper than the limit: a word's edges cost the square of its depth.
    TooDeep {
        depth: u32,
        limit: usize,
    },
    /// Every aligned node shares one counterpart, so every edge has Lmax = 0.
    NoPathLength,
}

impl fmt::Display for DerpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DerpError::Tree { side, error } => write!(f, "{side} parse: {error}"),
            DerpError::LinkOutOfRange {
                side,
                position,
                len,
            } => write!(
                f,
                "link position {position} outside the {side} sentence of {len} tokens"
            ),
            DerpError::TooFewNodes { nodes } => {
                write!(f, "fewer than two aligned nodes ({nodes})")
            }
            DerpError::TooManyNodes { nodes, limit } => {
                write!(
                    f,
                    "{nodes} aligned nodes, more than the {limit} DERP scores (pairmetrics.derp_max_nodes)"
                )
            }
            DerpError::TooDeep { depth, limit } => {
                write!(
                    f,
                    "an aligned word {depth} arcs below the root, deeper than the {limit} DERP scores (pairmetrics.derp_max_nodes)"
                )
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
#[derive(Debug, Clone)]
pub struct Labels {
    names: Interner,
    /// The ids of recent labels of up to 15 bytes, keyed by their bytes and length packed in
    /// two integers, one slot per hash (a newer label takes its slot): the labels of the usual
    /// tag sets, found without hashing or comparing strings. `names` holds every id.
    recent: Box<[([u64; 2], u32); 1 << RECENT_BITS]>,
}

/// `recent` has 256 slots, indexed by the top bits of a multiplicative hash.
const RECENT_BITS: u32 = 8;
/// No label packs to this: its length byte would be 255.
const NO_LABEL: [u64; 2] = [u64::MAX; 2];

impl Default for Labels {
    fn default() -> Self {
        Labels {
            names: Interner::default(),
            recent: Box::new([(NO_LABEL, 0); 1 << RECENT_BITS]),
        }
    }
}

impl Labels {
    /// The id of `label`, added if new.
    pub fn intern(&mut self, label: &str) -> u32 {
        let bytes = label.as_bytes();
        if bytes.len() > 15 {
            return self.names.intern(label);
        }
        // The bytes little-endian in two words, the length in the last byte.
        let (low, high) = bytes.split_at(bytes.len().min(8));
        let key = [
            little_endian(low),
            little_endian(high) | (bytes.len() as u64) << 56,
        ];
        let mixed = (key[0] ^ key[1]).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = &mut self.recent[(mixed >> (64 - RECENT_BITS)) as usize];
        if slot.0 != key {
            *slot = (key, self.names.intern(label));
        }
        slot.1
    }

    pub fn resolve(&self, id: u32) -> &str {
        self.names.resolve(id)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Up to 8 bytes as a little-endian integer, read in at most three loads: copied byte by byte
/// into a buffer and read back as one word, they would wait for the copy (no store forwarding).
fn little_endian(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word = |at: usize| u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4")));
    match n {
        8 => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        // Two words that overlap: the bytes they share are the same bytes in the same places.
        4..=7 => word(0) | word(n - 4) << (8 * (n - 4)),
        1..=3 => {
            let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        _ => 0,
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
    /// Each token's place in a depth-first preorder of the forest, and the depths in that order:
    /// the lowest common ancestor of two tokens is one above the shallowest token between them.
    preorder: Vec<u32>,
    depth_in_preorder: Vec<u32>,
    /// Each token's subtree size in tokens: its subtree is that many places of preorder from
    /// its own.
    subtree: Vec<u32>,
    /// Each parent's first child (the virtual root is parent `len`) and each token's next
    /// sibling, `NONE` for none: the links [`Tree::walk`] follows.
    first_child: Vec<u32>,
    next_sibling: Vec<u32>,
    /// Work space: the climbs of `cycle`.
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
        self.label.clear();
        self.label
            .extend(parse.deprel.iter().map(|l| labels.intern(l)));
        self.build_labelled(parse.head)
    }

    /// [`Tree::build`] from heads, the labels' ids already in `self.label`.
    fn build_labelled(&mut self, head: &[i32]) -> Result<(), TreeError> {
        let n = head.len();
        if self.label.len() != n {
            return Err(TreeError::LengthMismatch {
                heads: n,
                deprels: self.label.len(),
            });
        }
        // Checked in one pass with no early exit, which the compiler vectorises; a negative
        // head is out of range as a u32 too.
        let out_of_range = |&head: &i32| head as u32 > n as u32;
        if head.iter().fold(false, |any, h| any | out_of_range(h)) {
            let token = head
                .iter()
                .position(out_of_range)
                .expect("one is out of range");
            return Err(TreeError::HeadOutOfRange {
                token,
                head: head[token],
                len: n,
            });
        }
        self.parent.clear();
        // head - 1, or NONE for a root (0 - 1 wraps to it).
        (self.parent).extend(head.iter().map(|&head| (head as u32).wrapping_sub(1)));
        if self.walk() {
            Ok(())
        } else {
            Err(self.cycle())
        }
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

    /// The cycle that keeps [`Tree::walk`] from some token: climbing from each token in turn to
    /// the first one already known, the first token met twice in one climb.
    fn cycle(&mut self) -> TreeError {
        const UNKNOWN: u32 = 0;
        const CLIMBING: u32 = u32::MAX;
        const KNOWN: u32 = 1;
        let state = &mut self.depth;
        state.clear();
        state.resize(self.parent.len(), UNKNOWN);
        for start in 0..self.parent.len() as u32 {
            self.stack.clear();
            let mut node = start;
            while node != NONE {
                match state[node as usize] {
                    UNKNOWN => {
                        state[node as usize] = CLIMBING;
                        self.stack.push(node);
                        node = self.parent[node as usize];
                    }
                    CLIMBING => {
                        return TreeError::Cycle {
                            token: node as usize,
                        };
                    }
                    _ => break,
                }
            }
            for &node in &self.stack {
                state[node as usize] = KNOWN;
            }
        }
        unreachable!("walk reaches every token of a forest")
    }

    /// Each token's depth, place in a depth-first preorder of the forest (children in sentence
    /// order) and subtree size. False when some token is not reached from a root: a cycle of heads.
    fn walk(&mut self) -> bool {
        let len = self.len();
        // Local slices, written by index: through `self`, and with pushes, each field's pointer
        // would be reloaded for every token.
        let Tree {
            parent,
            depth,
            preorder,
            depth_in_preorder,
            subtree,
            first_child: first,
            next_sibling: next,
            ..
        } = self;
        // Linked from the last token back, so that siblings come in sentence order.
        first.clear();
        first.resize(len + 1, NONE);
        next.clear();
        next.resize(len, NONE);
        for (token, &parent) in parent.iter().enumerate().rev() {
            let p = (parent as usize).min(len);
            next[token] = first[p];
            first[p] = token as u32;
        }
        for v in [
            &mut *depth,
            &mut *preorder,
            &mut *subtree,
            &mut *depth_in_preorder,
        ] {
            v.clear();
            v.resize(len, 0);
        }
        let (parent, depth, preorder) = (&parent[..len], &mut depth[..len], &mut preorder[..len]);
        let (subtree, depth_in_preorder) = (&mut subtree[..len], &mut depth_in_preorder[..len]);
        let (first, next) = (&first[..=len], &next[..len]);
        // Down to a token's first child, or else on to the next sibling of the nearest token
        // (itself or an ancestor) that has one: no stack, and the depth counted on the way.
        // Each token is some one parent's child, so at most `len` are visited.
        let (mut node, mut d, mut visited) = (first[len], 1, 0);
        while node != NONE {
            let t = node as usize;
            depth[t] = d;
            preorder[t] = visited as u32;
            depth_in_preorder[visited] = d;
            visited += 1;
            node = first[t];
            if node != NONE {
                d += 1;
                continue;
            }
            // Each token left behind has its whole subtree in preorder.
            let mut up = t;
            loop {
                subtree[up] = visited as u32 - preorder[up];
                node = next[up];
                if node != NONE {
                    break;
                }
                match parent[up] {
                    NONE => break,
                    p => {
                        up = p as usize;
                        d -= 1;
                    }
                }
            }
        }
        visited == len
    }

    /// The labels of the first `steps` edges from `token` towards the root, nearest first,
    /// written into `out` (grown to `steps`: its length is known, so no push checks room).
    fn climb<'o>(&self, token: u32, steps: u32, out: &'o mut Vec<u32>) -> &'o [u32] {
        let steps = steps as usize;
        grow(out, steps, 0);
        let climb = &mut out[..steps];
        let mut node = token as usize;
        for label in climb.iter_mut() {
            *label = self.label[node];
            node = self.parent[node] as usize;
        }
        climb
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
        let names = |nodes: &[u32]| {
            nodes
                .iter()
                .map(|&t| labels.resolve(self.label[t as usize]))
                .collect::<Vec<_>>()
        };
        let mut chi = names(&cn[common..]);
        chi.reverse(); // the encoding lists the edge nearest n first
        Encoding {
            chi,
            left: n < m,
            omega: names(&cm[common..]),
        }
    }
}

/// The lowest common ancestors of some tokens of a [`Tree`], prepared once per pair to give
/// any token's row of their depths in one pass. In preorder, the shallowest token after the
/// first of two and up to the second is a child of their common ancestor, so a running minimum
/// over the gaps between the tokens in preorder, from one token outwards, gives all its pairs.
#[derive(Debug, Default)]
struct Ancestors {
    /// The tokens' indices in preorder.
    order: Vec<u32>,
    /// `gap[b]`: the smallest depth after `order[b - 1]`'s token in preorder and up to
    /// `order[b]`'s (unused for `b = 0`).
    gap: Vec<u32>,
    /// Where each index is in `order`.
    place: Vec<u32>,
    /// Each token's depth, by index.
    depth: Vec<u32>,
    /// (place in preorder, index) packed as sort keys: integer compares, no lookups in sorting.
    keys: Vec<u64>,
}

impl Ancestors {
    fn prepare(&mut self, tree: &Tree, tokens: &[u32]) {
        self.keys.clear();
        self.keys.extend(
            tokens
                .iter()
                .enumerate()
                .map(|(i, &t)| u64::from(tree.preorder[t as usize]) << 32 | i as u64),
        );
        self.keys.sort_unstable();
        self.order.clear();
        self.order.extend(self.keys.iter().map(|&key| key as u32));
        self.place.clear();
        self.place.resize(tokens.len(), 0);
        for (at, &i) in self.order.iter().enumerate() {
            self.place[i as usize] = at as u32;
        }
        self.depth.clear();
        self.depth.extend(tokens.iter().map(|&t| tree.depth(t)));
        self.gap.clear();
        self.gap.push(u32::MAX);
        for w in self.keys.windows(2) {
            let (from, to) = ((w[0] >> 32) as usize, (w[1] >> 32) as usize);
            // No token between them: the same token twice (counterparts can repeat), its own
            // ancestor. One below its depth stands for it: every later range from it covers a
            // child of it or something shallower.
            self.gap.push(
                tree.depth_in_preorder[from + 1..=to]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(tree.depth_in_preorder[from] + 1),
            );
        }
    }

    /// `row[j]`: the depth of the lowest common ancestor of tokens i and j (0 across the trees
    /// of a forest; token i's own depth when `j == i`).
    fn row(&self, i: usize, row: &mut [u32]) {
        let at = self.place[i] as usize;
        row[i] = self.depth[i];
        let mut shallowest = u32::MAX;
        for (&j, &gap) in self.order[at + 1..].iter().zip(&self.gap[at + 1..]) {
            shallowest = shallowest.min(gap);
            row[j as usize] = shallowest - 1;
        }
        shallowest = u32::MAX;
        for (&j, &gap) in self.order[..at]
            .iter()
            .rev()
            .zip(self.gap[1..=at].iter().rev())
        {
            shallowest = shallowest.min(gap);
            row[j as usize] = shallowest - 1;
        }
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
    let l =
        levenshtein(&a.chi, &b.chi) + u32::from(a.left != b.left) + levenshtein(&a.omega, &b.omega);
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
            row[j + 1] = (diagonal + u32::from(x != y))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Edit distances between every prefix of one label sequence and every prefix of another:
/// `cell[x * width + y] = lev(a[..x], b[..y])`, the whole Wagner-Fischer table. Given two climbs to the
/// root, it holds the distance of the paths up to any pair of ancestors: lev is the same read
/// backwards, so these are SPEC's chi (and omega) against its counterpart's.
#[derive(Debug, Default)]
struct PrefixDistances {
    cells: Vec<u32>,
}

impl PrefixDistances {
    /// The table of `a` against `b`, and its width.
    fn fill(&mut self, a: &[u32], b: &[u32]) -> (&[u32], usize) {
        let width = b.len() + 1;
        grow(&mut self.cells, (a.len() + 1) * width, 0);
        let cells = &mut self.cells;
        for (y, cell) in cells[..width].iter_mut().enumerate() {
            *cell = y as u32;
        }
        for (x, &label) in a.iter().enumerate() {
            let (above, row) = cells[x * width..(x + 2) * width].split_at_mut(width);
            // The cell to the left stays in a register: only it chains one cell to the next.
            let mut left = x as u32 + 1;
            row[0] = left;
            for ((cell, (&diagonal, &up)), &other) in row[1..]
                .iter_mut()
                .zip(above.iter().zip(&above[1..]))
                .zip(b)
            {
                left = (diagonal + u32::from(label != other))
                    .min(up + 1)
                    .min(left + 1);
                *cell = left;
            }
        }
        (&self.cells[..(a.len() + 1) * width], width)
    }
}

/// Make `v` at least `len` long. The matrices are written before they are read, so growing is
/// all they need between pairs: no clearing.
fn grow<T: Copy>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.len() < len {
        v.resize(len, fill);
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
    weights: Weights,
    /// Every edge's rank and the spanning tree: in u32 for any real sentence (the fast path),
    /// in u64 for any pair within [`MAX_NODES_CEILING`]; for the former, 16 nodes at a time on
    /// CPUs with AVX-512 (unless `scalar`). `last` says which holds the last pair.
    narrow: Ranks<u32>,
    wide: Ranks<u64>,
    #[cfg(target_arch = "x86_64")]
    avx512: avx512::Avx512,
    /// Take the scalar path whatever the CPU: for the test that holds the two paths equal.
    scalar: bool,
    last: Path,
    mst: Vec<Edge>,
}

/// Which of [`Scratch`]'s ways of weighing edges scored the last pair.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Path {
    #[default]
    Narrow,
    Wide,
    Avx512,
}

/// What the edges' weights are made of, for k meta-graph nodes.
///
/// The nodes are taken in the preorder of the meta-graph's tree (the kernel's order, `p` and
/// `q` below), so that a node's common ancestors with the others come from a running minimum
/// over contiguous gaps as its row of halves is written; the edges' ranks still name the nodes
/// by their places in sentence order, which SPEC's order needs.
#[derive(Debug, Default)]
struct Weights {
    /// The nodes' common ancestors in the meta-graph's tree, and their counterparts' in the
    /// other; `row` holds one node's depths of the latter.
    ancestors: [Ancestors; 2],
    row: Vec<u32>,
    climbs: [Vec<u32>; 2],
    table: PrefixDistances,
    tokens: Vec<u32>,
    /// In the kernel's order: each node's place in sentence order and its counterpart.
    kernel: Vec<(u32, u32)>,
}

impl Weights {
    /// Every node's [`Rank::half`] of each of its edges into the k x k matrix `halves` (row p
    /// is the kernel's node p), from two trees and the nodes' (token, counterpart) in sentence
    /// order; [`Weights::kernel`] and [`Weights::kernel_place`] then map the two orders.
    ///
    /// Edge (i, j)'s L (eq. 5.5) is the distance of node i's path up to the common ancestor
    /// against its counterpart's, the same for j, and 1 when their orders differ; its Lmax the
    /// longer of i's two paths, the same for j, plus 1. Node i's paths to every ancestor come
    /// from one table ([`PrefixDistances`] of its two climbs to the root), so each node fills
    /// its own row from its own table, and [`edge_rank`] adds the two halves of an edge.
    fn halves<R: Rank>(&mut self, trees: [&Tree; 2], nodes: &[(u32, u32)], halves: &mut Vec<R>) {
        let k = nodes.len();
        self.tokens.clear();
        self.tokens.extend(nodes.iter().map(|&(n, _)| n));
        self.ancestors[0].prepare(trees[0], &self.tokens);
        self.kernel.clear();
        self.kernel.extend(
            self.ancestors[0]
                .order
                .iter()
                .map(|&i| (i, nodes[i as usize].1)),
        );
        self.tokens.clear();
        self.tokens.extend(self.kernel.iter().map(|&(_, c)| c));
        self.ancestors[1].prepare(trees[1], &self.tokens);
        grow(halves, k * k, R::ZERO);
        let Weights {
            ancestors: [ancestors0, ancestors1],
            row: lca1,
            climbs: [climb0, climb1],
            table,
            kernel,
            ..
        } = self;
        grow(lca1, k, 0);
        let lca1 = &mut lca1[..k];
        // gap[q]: one deeper than the common ancestor of kernel nodes q - 1 and q (their tokens
        // are distinct); a range's common ancestor is one above its smallest gap.
        let gap = &ancestors0.gap[..k];
        // The depth of the common ancestor of all the nodes, in each tree: no path climbs above
        // it, so no climb or table goes further (a one-rooted tree's root label is on no path).
        let top = [gap, &ancestors1.gap[..k]].map(|gap| gap[1..].iter().min().map_or(0, |g| g - 1));
        for (p, (&(i, c), row)) in kernel.iter().zip(halves.chunks_exact_mut(k)).enumerate() {
            ancestors1.row(p, lca1);
            let n = nodes[i as usize].0;
            let (d0, d1) = (trees[0].depth(n), trees[1].depth(c));
            let (climb0, climb1) = (
                trees[0].climb(n, d0 - top[0], climb0),
                trees[1].climb(c, d1 - top[1], climb1),
            );
            // The table's cells as a local slice: read through `self`, they would be reloaded
            // for every cell (the compiler cannot tell the writes below leave them alone).
            let (table, width) = table.fill(climb0, climb1);
            let half = |shallowest: u32, y: u32| {
                let (up0, up1) = (d0 + 1 - shallowest, d1 - y);
                R::half(table[up0 as usize * width + up1 as usize], up0.max(up1))
            };
            let mut shallowest = u32::MAX;
            for ((half_pq, &gap), &y) in row[p + 1..]
                .iter_mut()
                .zip(&gap[p + 1..])
                .zip(&lca1[p + 1..])
            {
                shallowest = shallowest.min(gap);
                *half_pq = half(shallowest, y);
            }
            shallowest = u32::MAX;
            for ((half_pq, &gap), &y) in row[..p]
                .iter_mut()
                .rev()
                .zip(gap[1..=p].iter().rev())
                .zip(lca1[..p].iter().rev())
            {
                shallowest = shallowest.min(gap);
                *half_pq = half(shallowest, y);
            }
        }
    }

    /// Where node i of sentence order is in the kernel's order.
    fn kernel_place(&self, i: usize) -> usize {
        self.ancestors[0].place[i] as usize
    }
}

impl Scratch {
    /// Every meta-graph edge of the last pair scored, by (a, b): for explaining and testing.
    pub fn edges(&self) -> Vec<Edge> {
        let k = self.nodes.len();
        let w = &self.weights;
        let edge = |(i, j)| {
            let places = || (w.kernel_place(i), w.kernel_place(j));
            match self.last {
                Path::Narrow => {
                    let (p, q) = places();
                    edge_rank(&self.narrow.halves, &w.kernel, p, q).edge(&self.nodes)
                }
                Path::Wide => {
                    let (p, q) = places();
                    edge_rank(&self.wide.halves, &w.kernel, p, q).edge(&self.nodes)
                }
                #[cfg(target_arch = "x86_64")]
                Path::Avx512 => self.avx512.rank(i, j).edge(&self.nodes),
                #[cfg(not(target_arch = "x86_64"))]
                Path::Avx512 => unreachable!("AVX-512 is x86-64's"),
            }
        };
        (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .map(edge)
            .collect()
    }

    /// The minimum spanning tree of the last pair scored, in SPEC's edge order (the order
    /// Kruskal's algorithm takes its edges).
    pub fn mst(&self) -> &[Edge] {
        &self.mst
    }

    /// The labels that [`LabelledParse`]s' ids are of. Call it before taking ids from it, not
    /// once per pair: it starts afresh past 65,536 labels (only garbage labels get there), which
    /// keeps memory bounded and leaves ids taken earlier meaningless.
    pub fn labels(&mut self) -> &mut Labels {
        if self.labels.len() > 1 << 16 {
            self.labels = Labels::default();
        }
        &mut self.labels
    }

    fn build_trees(&mut self, src: Parse, tgt: Parse) -> Result<(), DerpError> {
        self.labels();
        let Scratch { trees, labels, .. } = self;
        for ((tree, parse), side) in trees.iter_mut().zip([src, tgt]).zip(SIDES) {
            tree.build(parse, labels)
                .map_err(|error| DerpError::Tree { side, error })?;
        }
        Ok(())
    }

    fn build_labelled_trees(
        &mut self,
        src: LabelledParse,
        tgt: LabelledParse,
    ) -> Result<(), DerpError> {
        for ((tree, parse), side) in self.trees.iter_mut().zip([src, tgt]).zip(SIDES) {
            tree.label.clear();
            tree.label.extend_from_slice(parse.label);
            tree.build_labelled(parse.head)
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
                    return Err(DerpError::LinkOutOfRange {
                        side,
                        position,
                        len,
                    });
                }
            }
        }
        self.links.clear();
        self.links.extend_from_slice(links);
        if !self.links.is_sorted() {
            self.links.sort_unstable();
        }
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
            let best = group
                .iter()
                .min_by_key(|&&(_, b)| (tgt.depth(b), b))
                .expect("non-empty");
            self.nodes.push(*best);
        }
        Side::Src
    }
}

/// The halves of one pair's edges and its spanning tree, in one integer width.
#[derive(Debug, Default)]
struct Ranks<R> {
    /// k x k: `halves[p * k + q]` is node p's half of edge (p, q), in the kernel's order
    /// ([`Weights::halves`]).
    halves: Vec<R>,
    /// Prim's state (see [`prim`]).
    best: Vec<R>,
    rest: Vec<u32>,
    slot: Vec<u32>,
    /// The spanning tree's edges, in SPEC's order.
    tree: Vec<R>,
}

impl<R: Rank> Ranks<R> {
    /// Weigh every edge and take the minimum spanning tree, into `mst`.
    fn spanning_tree(
        &mut self,
        weights: &mut Weights,
        trees: [&Tree; 2],
        nodes: &[(u32, u32)],
        mst: &mut Vec<Edge>,
    ) {
        weights.halves(trees, nodes, &mut self.halves);
        let Ranks {
            halves,
            best,
            rest,
            slot,
            tree,
        } = self;
        prim(
            &halves[..nodes.len() * nodes.len()],
            weights,
            best,
            [rest, slot],
            tree,
        );
        mst.clear();
        mst.extend(tree.iter().map(|rank| rank.edge(nodes)));
    }
}

/// An edge's place in SPEC's order, packed in one integer of four equal fields: L, then Lmax
/// reversed, then the two ends (node indices in sentence order, or positions: they order alike).
/// The order is total, so the minimum spanning tree under it is unique: sum(L) is the minimum
/// and, among minimum trees, sum(Lmax) the maximum.
trait Rank:
    Copy + Ord + From<u32> + BitOr<Output = Self> + Shl<u32, Output = Self> + Shr<u32, Output = Self>
{
    const MAX: Self;
    const ZERO: Self;
    const FIELD: u32;
    const MASK: u32 = u32::MAX >> (32 - Self::FIELD);
    fn low_u32(self) -> u32;
    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;

    /// Whether the edges of k nodes, none deeper than `deepest`, fit: Lmax is at most
    /// `2 * deepest + 1`, and L at most Lmax.
    fn holds(k: usize, deepest: u64) -> bool {
        k as u64 <= u64::from(Self::MASK) + 1 && 2 * deepest + 1 <= u64::from(Self::MASK)
    }

    /// One end's half of an edge: its part `share` of L, and `reach`, the longer of its two
    /// paths up to the common ancestors, as its part of Lmax. The two halves and [`edge_rank`]'s
    /// own bits add up to the rank (the reversed Lmax borrows from L in a half alone, and the
    /// sum pays it back: the rank's fields are all in range).
    fn half(share: u32, reach: u32) -> Self {
        (Self::from(share) << (3 * Self::FIELD))
            .wrapping_sub(Self::from(reach) << (2 * Self::FIELD))
    }

    fn field(self, at: u32) -> u32 {
        (self >> (at * Self::FIELD)).low_u32() & Self::MASK
    }

    /// The two ends of a packed edge.
    fn ends(self) -> (usize, usize) {
        (self.field(1) as usize, self.field(0) as usize)
    }

    fn edge(self, nodes: &[(u32, u32)]) -> Edge {
        let (i, j) = self.ends();
        Edge {
            a: nodes[i].0,
            b: nodes[j].0,
            l: self.field(3),
            lmax: Self::MASK - self.field(2),
        }
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
            fn wrapping_add(self, other: Self) -> Self {
                <$type>::wrapping_add(self, other)
            }
            fn wrapping_sub(self, other: Self) -> Self {
                <$type>::wrapping_sub(self, other)
            }
        }
    };
}
rank!(u32, 8);
rank!(u64, 16);

/// The rank of edge (p, q), `p != q` in the kernel's order ([`Weights::kernel`]: each node's
/// place in sentence order and its counterpart), from its two [`Rank::half`]s: L is their
/// shares and 1 when the counterparts' order is the reverse of the nodes', Lmax their reaches
/// and 1; or L = Lmax = 0 when the two share a counterpart (eq. 5.6).
#[inline(always)]
fn edge_rank<R: Rank>(halves: &[R], kernel: &[(u32, u32)], p: usize, q: usize) -> R {
    let k = kernel.len();
    let (first, second) = if kernel[p].0 < kernel[q].0 {
        (kernel[p], kernel[q])
    } else {
        (kernel[q], kernel[p])
    };
    let ends = R::from(first.0) << R::FIELD | R::from(second.0);
    if first.1 == second.1 {
        return R::from(R::MASK) << (2 * R::FIELD) | ends;
    }
    let reversed = R::from(u32::from(first.1 > second.1)) << (3 * R::FIELD);
    let lmax_one = R::from(R::MASK - 1) << (2 * R::FIELD);
    halves[p * k + q]
        .wrapping_add(halves[q * k + p])
        .wrapping_add(reversed)
        .wrapping_add(lmax_one)
        .wrapping_add(ends)
}

/// Prim's algorithm on the complete meta-graph, O(k^2), under SPEC's total edge order: the same
/// unique tree Kruskal's algorithm finds, left in `tree` in the order Kruskal takes its edges.
/// Each edge is ranked once, when its first end joins the tree: `rest` holds the nodes (in the
/// kernel's order) not yet joined, `best[at]` the rank of the cheapest edge from the tree to
/// `rest[at]`, and `slot` where each node is in `rest`. The cheapest of them is the next edge;
/// its rank names its ends.
fn prim<R: Rank>(
    halves: &[R],
    weights: &Weights,
    best: &mut Vec<R>,
    [rest, slot]: [&mut Vec<u32>; 2],
    tree: &mut Vec<R>,
) {
    let kernel = &weights.kernel[..];
    let k = kernel.len();
    best.clear();
    best.resize(k - 1, R::MAX);
    rest.clear();
    rest.extend(1..k as u32);
    slot.clear();
    slot.extend((0..k as u32).map(|node| node.wrapping_sub(1)));
    tree.clear();
    let mut joined = 0;
    while !rest.is_empty() {
        let mut cheapest = R::MAX;
        for (best, &node) in best.iter_mut().zip(&*rest) {
            *best = (*best).min(edge_rank(halves, kernel, joined, node as usize));
            cheapest = cheapest.min(*best);
        }
        tree.push(cheapest);
        let (i, j) = cheapest.ends();
        let (p, q) = (weights.kernel_place(i), weights.kernel_place(j));
        // The end still in `rest` joins: it leaves `rest`, whose last node takes its slot.
        joined = if slot[p] == u32::MAX { q } else { p };
        let at = slot[joined] as usize;
        slot[joined] = u32::MAX;
        best.swap_remove(at);
        rest.swap_remove(at);
        if let Some(&moved) = rest.get(at) {
            slot[moved as usize] = at as u32;
        }
    }
    tree.sort_unstable();
}

/// DERP of a pair: `src` is the reference tree D, `tgt` the hypothesis D', `links` 0-based
/// (src, tgt) positions. 1 = the same order; an error says why the score is undefined.
pub fn derp(
    src: Parse,
    tgt: Parse,
    links: &[Link],
    scratch: &mut Scratch,
) -> Result<Derp, DerpError> {
    derp_within(src, tgt, links, MAX_NODES, scratch)
}

/// [`derp`] of a pair of at most `max_nodes` aligned nodes, none deeper than `max_nodes`; more
/// is [`DerpError::TooManyNodes`] or [`DerpError::TooDeep`]. `max_nodes` past
/// [`MAX_NODES_CEILING`] is the ceiling.
pub fn derp_within(
    src: Parse,
    tgt: Parse,
    links: &[Link],
    max_nodes: usize,
    scratch: &mut Scratch,
) -> Result<Derp, DerpError> {
    scratch.build_trees(src, tgt)?;
    score_trees(links, max_nodes, scratch)
}

/// [`derp_within`] of parses whose labels are ids of [`Scratch::labels`].
pub fn derp_labelled(
    src: LabelledParse,
    tgt: LabelledParse,
    links: &[Link],
    max_nodes: usize,
    scratch: &mut Scratch,
) -> Result<Derp, DerpError> {
    scratch.build_labelled_trees(src, tgt)?;
    score_trees(links, max_nodes, scratch)
}

/// Whether the CPU has what [`avx512`]'s path needs.
fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// DERP of the two trees in `scratch` through `links`.
fn score_trees(links: &[Link], max_nodes: usize, scratch: &mut Scratch) -> Result<Derp, DerpError> {
    let max_nodes = max_nodes.min(MAX_NODES_CEILING);
    scratch.read_links(links)?;
    let side = scratch.select_nodes();
    let nodes = scratch.nodes.len();
    if nodes < 2 {
        return Err(DerpError::TooFewNodes { nodes });
    }
    if nodes > max_nodes {
        return Err(DerpError::TooManyNodes {
            nodes,
            limit: max_nodes,
        });
    }
    let trees = match side {
        Side::Src => [&scratch.trees[0], &scratch.trees[1]],
        Side::Tgt => [&scratch.trees[1], &scratch.trees[0]],
    };
    let depth = |side: usize, token: u32| u64::from(trees[side].depth(token));
    let deepest = scratch
        .nodes
        .iter()
        .map(|&(n, c)| depth(0, n).max(depth(1, c)))
        .max()
        .unwrap_or(0);
    if deepest > max_nodes as u64 {
        return Err(DerpError::TooDeep {
            depth: deepest as u32,
            limit: max_nodes,
        });
    }
    scratch.last = match u32::holds(nodes, deepest) {
        false => Path::Wide,
        true if !scratch.scalar && avx512_available() => Path::Avx512,
        true => Path::Narrow,
    };
    let (weights, mst) = (&mut scratch.weights, &mut scratch.mst);
    match scratch.last {
        Path::Narrow => scratch
            .narrow
            .spanning_tree(weights, trees, &scratch.nodes, mst),
        Path::Wide => scratch
            .wide
            .spanning_tree(weights, trees, &scratch.nodes, mst),
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => {
            let tree = &mut scratch.narrow.tree;
            // SAFETY: the CPU has AVX-512 F (`avx512_available`).
            unsafe { scratch.avx512.spanning_tree(trees, &scratch.nodes, tree) };
            mst.clear();
            mst.extend(tree.iter().map(|rank| rank.edge(&scratch.nodes)));
        }
        #[cfg(not(target_arch = "x86_64"))]
        Path::Avx512 => unreachable!("AVX-512 is x86-64's"),
    }
    let sum_l: u64 = scratch.mst.iter().map(|e| u64::from(e.l)).sum();
    let sum_lmax: u64 = scratch.mst.iter().map(|e| u64::from(e.lmax)).sum();
    if sum_lmax == 0 {
        return Err(DerpError::NoPathLength);
    }
    Ok(Derp {
        score: 1.0 - sum_l as f64 / sum_lmax as f64,
        sum_l,
        sum_lmax,
        nodes,
        side,
    })
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
    fn labels_keep_one_id_each_whatever_their_slots() {
        // Enough labels that many share a slot of the recent cache, of every length around its
        // 15-byte limit (and the empty label), interned twice in different orders.
        let names: Vec<String> = (0..2000)
            .map(|i| format!("{}{i}", "x".repeat(i % 18)))
            .chain(["".into(), "a".into(), "a\0".into()])
            .collect();
        let mut labels = Labels::default();
        let ids: Vec<u32> = names.iter().map(|n| labels.intern(n)).collect();
        for (name, &id) in names.iter().zip(&ids).rev() {
            assert_eq!(
                (labels.intern(name), labels.resolve(id)),
                (id, name.as_str())
            );
        }
        let distinct: std::collections::HashSet<u32> = ids.iter().copied().collect();
        assert_eq!((distinct.len(), labels.len()), (names.len(), names.len()));
    }

    #[test]
    fn little_endian_reads_as_a_padded_word_does() {
        let bytes: Vec<u8> = (1..=8).map(|b| b * 29).collect();
        for n in 0..=8 {
            let mut padded = [0u8; 8];
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                little_endian(&bytes[..n]),
                u64::from_le_bytes(padded),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn depths_of_a_forest() {
        let mut labels = Labels::default();
        // two sentences on one line: 1 <- 2 (root), 4 <- 3 (root)
        let tree = Tree::new(
            parse(&[2, 0, 0, 3], &["a", "root", "root", "b"]),
            &mut labels,
        )
        .unwrap();
        assert_eq!(
            (0..4).map(|t| tree.depth(t)).collect::<Vec<_>>(),
            [2, 1, 1, 2]
        );
        // across the forest the path runs through the virtual root, over both roots' labels
        let e = tree.encoding(0, 3, &labels);
        assert_eq!(
            (e.chi, e.left, e.omega),
            (vec!["a", "root"], true, vec!["root", "b"])
        );
    }

    #[test]
    fn malformed_trees() {
        let mut labels = Labels::default();
        let mut tree = Tree::default();
        let mut check = |head: &[i32], deprel: &[&str], expected: TreeError| {
            assert_eq!(tree.build(parse(head, deprel), &mut labels), Err(expected));
        };
        check(
            &[0, 1],
            &["root"],
            TreeError::LengthMismatch {
                heads: 2,
                deprels: 1,
            },
        );
        check(
            &[0, 3],
            &["r", "x"],
            TreeError::HeadOutOfRange {
                token: 1,
                head: 3,
                len: 2,
            },
        );
        check(
            &[0, -1],
            &["r", "x"],
            TreeError::HeadOutOfRange {
                token: 1,
                head: -1,
                len: 2,
            },
        );
        check(&[2, 1], &["x", "y"], TreeError::Cycle { token: 0 });
        check(&[0, 2], &["r", "x"], TreeError::Cycle { token: 1 });
        check(
            &[0, 3, 4, 2],
            &["r", "x", "y", "z"],
            TreeError::Cycle { token: 1 },
        );
    }

    #[test]
    fn one_to_many_links_put_the_meta_graph_on_the_other_side() {
        // src token 0 links to tgt 0 and 1: src does not qualify, tgt does.
        let (h, d) = (&[0, 1, 1][..], &["root", "a", "b"][..]);
        let mut scratch = Scratch::default();
        let result = derp(
            parse(h, d),
            parse(h, d),
            &[(0, 0), (0, 1), (2, 2)],
            &mut scratch,
        )
        .unwrap();
        assert_eq!((result.side, result.nodes), (Side::Tgt, 3));
        assert_eq!(scratch.mst().iter().filter(|e| e.lmax == 0).count(), 1);
    }

    #[test]
    fn wide_ranks_give_the_same_tree() {
        // A chain and a tree of mixed labels, all aligned: the u64 ranks (for pairs past any
        // real sentence) must weigh every edge as the u32 ranks do and take the same tree.
        let head: Vec<i32> = (0..40)
            .map(|i| if i == 0 { 0 } else { (i * 7 + 3) % i + 1 })
            .collect();
        let chain: Vec<i32> = (0..40).collect();
        let labels = ["a", "b", "c", "d", "e"];
        let (d1, d2): (Vec<&str>, Vec<&str>) = (
            (0..40).map(|i| labels[i % 5]).collect(),
            (0..40).map(|i| labels[i * 3 % 5]).collect(),
        );
        let links: Vec<Link> = (0..40).map(|i| (i, (i * 11) % 40)).collect();
        let mut scratch = Scratch {
            scalar: true,
            ..Scratch::default()
        };
        derp(parse(&head, &d1), parse(&chain, &d2), &links, &mut scratch).unwrap();
        assert_eq!(scratch.last, Path::Narrow);
        let (narrow_edges, narrow_tree) = (scratch.edges(), scratch.mst().to_vec());
        let trees = [&scratch.trees[0], &scratch.trees[1]];
        scratch.wide.spanning_tree(
            &mut scratch.weights,
            trees,
            &scratch.nodes,
            &mut scratch.mst,
        );
        scratch.last = Path::Wide;
        assert_eq!(
            (scratch.edges(), scratch.mst().to_vec()),
            (narrow_edges, narrow_tree)
        );
    }

    /// A random parse of `len` tokens: heads mostly near, some anywhere, some chains; a few
    /// roots; labels from a small set, so that paths often agree.
    fn random_parse(len: usize, rng: &mut impl FnMut(u64) -> u64) -> (Vec<i32>, Vec<&'static str>) {
        const LABELS: [&str; 6] = ["nsubj", "obj", "det", "case", "nmod", "punct"];
        let chain = rng(8) == 0;
        let head = (0..len)
            .map(|i| match i {
                0 => 0,
                _ if rng(30) == 0 => 0,
                _ if chain => i as i32,
                _ if rng(2) == 0 => (i - rng(i.min(3) as u64) as usize) as i32,
                _ => rng(i as u64) as i32 + 1,
            })
            .collect();
        let labels = (0..len).map(|_| LABELS[rng(6) as usize]).collect();
        (head, labels)
    }

    #[test]
    fn avx512_gives_the_scalar_ranks_and_tree() {
        if !avx512_available() {
            eprintln!("this CPU has no AVX-512: only the scalar path runs here");
            return;
        }
        let mut random = crate::stats::random::SplitMix64::new(46);
        let mut rng = |bound: u64| random.below(bound as usize) as u64;
        let mut scalar = Scratch {
            scalar: true,
            ..Scratch::default()
        };
        let mut avx512 = Scratch::default();
        let mut scored = 0;
        // Sizes around the 16 lanes, real sentences, long ones, and the most nodes a u32 rank
        // holds (256); chains make tables too big for registers.
        for len in (2..=40).chain([47, 48, 49, 80, 130, 256]) {
            for _ in 0..12 {
                let (sh, sd) = random_parse(len, &mut rng);
                let (th, td) = random_parse(len, &mut rng);
                let mut links = Vec::new();
                for i in 0..len as u32 {
                    if rng(6) != 0 {
                        links.push((i, (i + rng(3) as u32) % len as u32));
                    }
                }
                if rng(3) == 0 {
                    // many-to-many and shared counterparts
                    for _ in 0..len / 4 {
                        links.push((rng(len as u64) as u32, rng(len as u64) as u32));
                    }
                }
                let results = [&mut scalar, &mut avx512].map(|scratch| {
                    let result = derp(parse(&sh, &sd), parse(&th, &td), &links, scratch);
                    let described =
                        result.map(|d| (d.score.to_bits(), d.sum_l, d.sum_lmax, d.nodes, d.side));
                    (described, scratch.mst().to_vec(), scratch.last)
                });
                assert_eq!(
                    results[0].0, results[1].0,
                    "{len} tokens: {sh:?} {th:?} {links:?}"
                );
                if results[0].0.is_ok() {
                    assert_eq!(results[0].1, results[1].1);
                    assert_eq!(scalar.edges(), avx512.edges());
                    if results[0].2 == Path::Narrow {
                        assert_eq!(results[1].2, Path::Avx512);
                        scored += 1;
                    }
                }
            }
        }
        assert!(scored > 400, "{scored} pairs scored by both paths");
    }

    #[test]
    fn a_word_deeper_than_the_limit_is_not_scored() {
        let chain: Vec<i32> = (0..30).collect();
        let labels = vec!["x"; 30];
        let links = [(0, 0), (29, 29)];
        let mut scratch = Scratch::default();
        let too_deep = derp_within(
            parse(&chain, &labels),
            parse(&chain, &labels),
            &links,
            20,
            &mut scratch,
        );
        assert_eq!(
            too_deep,
            Err(DerpError::TooDeep {
                depth: 30,
                limit: 20
            })
        );
        assert!(
            derp_within(
                parse(&chain, &labels),
                parse(&chain, &labels),
                &links,
                30,
                &mut scratch
            )
            .is_ok()
        );
    }

    #[test]
    fn the_limit_stops_at_its_ceiling() {
        let len = MAX_NODES_CEILING + 1;
        let (head, labels) = (vec![0; len], vec!["root"; len]);
        let links: Vec<Link> = (0..len as u32).map(|i| (i, i)).collect();
        let result = derp_within(
            parse(&head, &labels),
            parse(&head, &labels),
            &links,
            usize::MAX,
            &mut Scratch::default(),
        );
        assert_eq!(
            result,
            Err(DerpError::TooManyNodes {
                nodes: len,
                limit: MAX_NODES_CEILING
            })
        );
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
