//! The scorer's edges and spanning tree 16 nodes at a time, on CPUs with AVX-512 (any real
//! sentence: ranks in u32, at most 256 nodes). The same tree and the same ranks as the scalar
//! path ([`super::Weights`] and [`super::prim`]), by other means:
//!
//! - Nodes stay in sentence order. The depth of the common ancestor of node p and each other
//!   node is counted, 16 nodes at a time, from p's own climb to the root: an ancestor of p is a
//!   common ancestor when the other node's place in preorder is inside its subtree's range.
//!   No preorder of the nodes, no rows of gaps, no scatter.
//! - p's table of edit distances is looked up in registers (two of them hold 32 cells, which
//!   most tables fit), so p's half of all its edges comes in one pass with no loads by index.
//! - The halves are also written as columns, so Prim's rounds read both halves of each edge of
//!   the joined node in two rows, with the edge's ends and order bits made in the same lanes.
//!
//! Kernels stay plain Rust over slices: only [`halves_of`] and [`transpose`] are written in
//! intrinsics; [`prim_round`] is plain lanes the compiler vectorises.

use std::arch::x86_64::*;

use super::{NONE, PrefixDistances, Rank, Tree, grow};

/// Whether this CPU runs this path.
pub fn available() -> bool {
    is_x86_feature_detected!("avx512f")
}

/// The shifts of L and of Lmax's reversed field in a u32 rank (see [`Rank`]).
const L_AT: u32 = 3 * <u32 as Rank>::FIELD;
const LMAX_AT: u32 = 2 * <u32 as Rank>::FIELD;
const LANES: usize = 16;

/// This path's buffers, kept across pairs like the rest of [`super::Scratch`].
#[derive(Debug, Default)]
pub struct Avx512 {
    /// Per node (sentence order, padded to a multiple of 16 lanes), in each tree: the place
    /// of its token in preorder, its depth; and its counterpart.
    place: [Vec<u32>; 2],
    depth: [Vec<u32>; 2],
    counterpart: Vec<u32>,
    /// One node's climb in each tree: the labels, and each ancestor's (place, subtree size).
    climbs: [Vec<u32>; 2],
    ancestors: [Vec<(u32, u32)>; 2],
    table: PrefixDistances,
    /// padded x padded (rows past k unused): `halves[p * padded + q]` is node p's half of edge
    /// (p, q); `columns` the same transposed, q's half of it.
    halves: Vec<u32>,
    columns: Vec<u32>,
    /// Prim's state: the best rank from the tree to each node, and all ones for a node joined
    /// (or a padding lane).
    best: Vec<u32>,
    joined: Vec<u32>,
    padded: usize,
}

impl Avx512 {
    /// The minimum spanning tree's ranks, in SPEC's order as [`super::prim`] leaves them, of
    /// `nodes` ((token, counterpart) in sentence order; at most 256) in `trees` (the
    /// meta-graph's side first).
    ///
    /// # Safety
    /// The CPU has AVX-512 F ([`available`]).
    pub unsafe fn spanning_tree(
        &mut self,
        trees: [&Tree; 2],
        nodes: &[(u32, u32)],
        tree: &mut Vec<u32>,
    ) {
        let k = nodes.len();
        let padded = k.next_multiple_of(LANES);
        self.padded = padded;
        let Avx512 {
            place,
            depth,
            counterpart,
            climbs,
            ancestors,
            table,
            halves,
            columns,
            best,
            joined,
            ..
        } = self;
        let mut top = [0; 2];
        for (side, tree) in trees.into_iter().enumerate() {
            let token = |&(n, c): &(u32, u32)| if side == 0 { n } else { c };
            top[side] = common_depth(tree, nodes.iter().map(token));
            place[side].clear();
            place[side].extend(nodes.iter().map(|n| tree.preorder[token(n) as usize]));
            place[side].resize(padded, 0);
            depth[side].clear();
            depth[side].extend(nodes.iter().map(|n| tree.depth(token(n))));
        }
        counterpart.clear();
        counterpart.extend(nodes.iter().map(|&(_, c)| c));
        counterpart.resize(padded, NONE);
        // Square, for the transposition by whole tiles; rows past k are only ever transposed
        // into padding lanes.
        grow(halves, padded * padded, 0);
        for (p, (&(n, c), row)) in nodes
            .iter()
            .zip(halves.chunks_exact_mut(padded))
            .enumerate()
        {
            let d = [depth[0][p], depth[1][p]];
            let steps = [0, 1].map(|side| (d[side] - top[side]) as usize);
            for (side, token) in [n, c].into_iter().enumerate() {
                climb(
                    trees[side],
                    token,
                    steps[side],
                    &mut climbs[side],
                    &mut ancestors[side],
                );
            }
            let (cells, width) = table.fill(&climbs[0][..steps[0]], &climbs[1][..steps[1]]);
            // SAFETY: the CPU has AVX-512 F (this function's contract); the rows of places
            // have `padded` lanes; each node's climbs end at `top`, at or above every common
            // ancestor, and its table covers them.
            unsafe {
                halves_of(
                    row,
                    [&place[0], &place[1]],
                    [&ancestors[0][..steps[0]], &ancestors[1][..steps[1]]],
                    top,
                    d,
                    cells,
                    width as u32,
                )
            };
        }
        grow(columns, padded * padded, 0);
        // SAFETY: the CPU has AVX-512 F (this function's contract); both are padded x padded.
        unsafe {
            transpose(
                &halves[..padded * padded],
                &mut columns[..padded * padded],
                padded,
            )
        };
        best.clear();
        best.resize(padded, u32::MAX);
        joined.clear();
        joined.resize(padded, u32::MAX);
        joined[..k].fill(0);
        tree.clear();
        let mut node = 0;
        for _ in 1..k {
            joined[node] = u32::MAX;
            best[node] = u32::MAX;
            let at = node * padded..(node + 1) * padded;
            // SAFETY: the CPU has AVX-512 F (this function's contract).
            let cheapest = unsafe {
                prim_round(
                    node as u32,
                    &halves[at.clone()],
                    &columns[at],
                    counterpart,
                    joined,
                    best,
                )
            };
            tree.push(cheapest);
            // The end not yet in the tree joins it.
            let (i, j) = cheapest.ends();
            node = if joined[i] == u32::MAX { j } else { i };
        }
        tree.sort_unstable();
    }

    /// The rank of edge (i, j) of the last pair, i != j in sentence order.
    pub fn rank(&self, i: usize, j: usize) -> u32 {
        let at = i * self.padded + j;
        rank(
            i as u32,
            j as u32,
            self.counterpart[i],
            self.counterpart[j],
            self.halves[at],
            self.columns[at],
        )
    }
}

/// The depth of the common ancestor of `tokens` (0: the virtual root): the deepest ancestor of
/// the first in preorder whose subtree reaches the last.
fn common_depth(tree: &Tree, tokens: impl Iterator<Item = u32> + Clone) -> u32 {
    let place = |token: u32| tree.preorder[token as usize];
    let last = tokens.clone().map(place).max().expect("two nodes or more");
    let mut token = tokens.min_by_key(|&t| place(t)).expect("two nodes or more");
    while token != NONE {
        if last - place(token) < tree.subtree[token as usize] {
            return tree.depth(token);
        }
        token = tree.parent[token as usize];
    }
    0
}

/// The first `steps` edges from `token` towards the root: their labels, nearest first, and
/// each lower end's (place in preorder, subtree size), into the first `steps` of each buffer.
fn climb(
    tree: &Tree,
    token: u32,
    steps: usize,
    labels: &mut Vec<u32>,
    ancestors: &mut Vec<(u32, u32)>,
) {
    // Written in place, not pushed: the length is known.
    grow(labels, steps, 0);
    grow(ancestors, steps, (0, 0));
    let mut node = token as usize;
    for (label, ancestor) in labels[..steps].iter_mut().zip(&mut ancestors[..steps]) {
        *label = tree.label[node];
        *ancestor = (tree.preorder[node], tree.subtree[node]);
        node = tree.parent[node] as usize;
    }
}

/// Node p's half of each of its edges ([`Rank::half`]), 16 nodes at a time, into `row`.
/// In each tree the depth of the common ancestor of p and node q is `top` plus the number of
/// p's `ancestors` (from p up to just below `top`) whose subtree holds q's place; p's paths
/// up to it are `d` minus that depth, the cell of `cells` (a table `width` wide) their edit
/// distance.
///
/// # Safety
/// The CPU has AVX-512 F; `row` and both `place`s have the same length, a multiple of 16;
/// `ancestors[side]` has `d[side] - top[side]` entries, and `cells` those counts plus one
/// rows and columns, `width` the latter.
#[target_feature(enable = "avx512f")]
unsafe fn halves_of(
    row: &mut [u32],
    place: [&[u32]; 2],
    ancestors: [&[(u32, u32)]; 2],
    top: [u32; 2],
    d: [u32; 2],
    cells: &[u32],
    width: u32,
) {
    let splat = |x: u32| _mm512_set1_epi32(x as i32);
    let one = splat(1);
    // Two registers of 16 cells each hold most tables: looked up by lane, no loads. Loaded
    // under a mask of the cells there are (masked lanes are not read).
    let in_registers = cells.len() <= 2 * LANES;
    let cells_from = |at: usize| -> __mmask16 {
        let there = cells.len().saturating_sub(at).min(LANES);
        ((1u32 << there) - 1) as __mmask16
    };
    // SAFETY: the contract's lengths (all loads and stores are of whole lanes inside `row` and
    // `place`, or masked to `cells`), and every index into `cells` is below its length (see
    // above).
    unsafe {
        let low = _mm512_maskz_loadu_epi32(cells_from(0), cells.as_ptr().cast());
        let high =
            _mm512_maskz_loadu_epi32(cells_from(LANES), cells.as_ptr().wrapping_add(LANES).cast());
        for at in (0..row.len()).step_by(LANES) {
            let mut up = [_mm512_setzero_si512(); 2];
            for side in 0..2 {
                let other = _mm512_loadu_si512(place[side].as_ptr().add(at).cast());
                let mut depth = splat(top[side]);
                for &(first, size) in ancestors[side] {
                    let inside =
                        _mm512_cmplt_epu32_mask(_mm512_sub_epi32(other, splat(first)), splat(size));
                    depth = _mm512_mask_add_epi32(depth, inside, depth, one);
                }
                up[side] = _mm512_sub_epi32(splat(d[side]), depth);
            }
            let cell = _mm512_add_epi32(_mm512_mullo_epi32(up[0], splat(width)), up[1]);
            let share = match in_registers {
                true => _mm512_permutex2var_epi32(low, cell, high),
                false => _mm512_i32gather_epi32::<4>(cell, cells.as_ptr().cast()),
            };
            let reach = _mm512_max_epu32(up[0], up[1]);
            let half = _mm512_sub_epi32(
                _mm512_sllv_epi32(share, splat(L_AT)),
                _mm512_sllv_epi32(reach, splat(LMAX_AT)),
            );
            _mm512_storeu_si512(row.as_mut_ptr().add(at).cast(), half);
        }
    }
}

/// `to` = `from` transposed, both `n` x `n`, n a multiple of 16: tile by tile, each tile's
/// 16 rows interleaved in registers: by 32-bit, then 64-bit elements, then twice by 128-bit
/// lanes.
///
/// # Safety
/// The CPU has AVX-512 F; `from` and `to` have `n * n` cells.
#[target_feature(enable = "avx512f")]
unsafe fn transpose(from: &[u32], to: &mut [u32], n: usize) {
    assert!(from.len() == n * n && to.len() == n * n && n.is_multiple_of(LANES));
    for tile_row in (0..n).step_by(LANES) {
        for tile_column in (0..n).step_by(LANES) {
            // SAFETY: the assertion above: every row of 16 read or written is inside.
            let r: [__m512i; LANES] = std::array::from_fn(|i| unsafe {
                _mm512_loadu_si512(from.as_ptr().add((tile_row + i) * n + tile_column).cast())
            });
            // In each 128-bit lane, 4 rows by 4 columns become 4 columns by 4 rows: b[4i + j]
            // holds column 4L + j of rows 4i..4i + 4 in lane L.
            let a: [__m512i; LANES] = std::array::from_fn(|i| match i % 2 {
                0 => _mm512_unpacklo_epi32(r[i], r[i + 1]),
                _ => _mm512_unpackhi_epi32(r[i - 1], r[i]),
            });
            let b: [__m512i; LANES] = std::array::from_fn(|i| {
                let (base, j) = (i / 4 * 4, i % 4);
                let (x, y) = (a[base + j / 2], a[base + 2 + j / 2]);
                match j % 2 {
                    0 => _mm512_unpacklo_epi64(x, y),
                    _ => _mm512_unpackhi_epi64(x, y),
                }
            });
            // Column 4L + j gathers lane L of b[j], b[4 + j], b[8 + j], b[12 + j].
            for j in 0..4 {
                let low01 = _mm512_shuffle_i32x4::<0x44>(b[j], b[4 + j]);
                let low23 = _mm512_shuffle_i32x4::<0x44>(b[8 + j], b[12 + j]);
                let high01 = _mm512_shuffle_i32x4::<0xEE>(b[j], b[4 + j]);
                let high23 = _mm512_shuffle_i32x4::<0xEE>(b[8 + j], b[12 + j]);
                let columns = [
                    _mm512_shuffle_i32x4::<0x88>(low01, low23),
                    _mm512_shuffle_i32x4::<0xDD>(low01, low23),
                    _mm512_shuffle_i32x4::<0x88>(high01, high23),
                    _mm512_shuffle_i32x4::<0xDD>(high01, high23),
                ];
                for (lane, column) in columns.into_iter().enumerate() {
                    let at = (tile_column + 4 * lane + j) * n + tile_row;
                    // SAFETY: as above.
                    unsafe { _mm512_storeu_si512(to.as_mut_ptr().add(at).cast(), column) };
                }
            }
        }
    }
}

/// The rank of edge (i, j) from i's half `half_i` and j's `half_j`, as [`super::edge_rank`]
/// makes it: L and Lmax from the halves, 1 more L when the counterparts' order is the reverse
/// of the nodes', or L = Lmax = 0 when the two share a counterpart.
#[inline(always)]
fn rank(i: u32, j: u32, ci: u32, cj: u32, half_i: u32, half_j: u32) -> u32 {
    let ends = i.min(j) << <u32 as Rank>::FIELD | i.max(j);
    if ci == cj {
        return <u32 as Rank>::MASK << LMAX_AT | ends;
    }
    let reversed = u32::from((j > i) != (cj > ci)) << L_AT;
    half_i
        .wrapping_add(half_j)
        .wrapping_add(reversed)
        .wrapping_add((<u32 as Rank>::MASK - 1) << LMAX_AT)
        .wrapping_add(ends)
}

/// One round of Prim's algorithm ([`super::prim`]): the edges of the node that just joined
/// lower the best rank to each node not yet joined; the cheapest of those. Written as plain
/// lanes, for the compiler to vectorise.
#[target_feature(enable = "avx512f")]
unsafe fn prim_round(
    node: u32,
    halves: &[u32],
    columns: &[u32],
    counterpart: &[u32],
    joined: &[u32],
    best: &mut [u32],
) -> u32 {
    let own = counterpart[node as usize];
    let mut cheapest = u32::MAX;
    for (q, ((((best, &half), &other_half), &other), &joined)) in best
        .iter_mut()
        .zip(halves)
        .zip(columns)
        .zip(counterpart)
        .zip(joined)
        .enumerate()
    {
        *best = (*best).min(rank(node, q as u32, own, other, half, other_half) | joined);
        cheapest = cheapest.min(*best);
    }
    cheapest
}
