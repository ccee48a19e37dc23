//! DERP: the `tests/vectors/derp/` cases (the project's reference vectors) at the kernel level
//! and through SQL, malformed parses, and properties over random trees and alignments.

use std::collections::HashMap;

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Int64Type};
use pairmetrics::kernels::{Link, Side};
use pairmetrics::pair::derp::{Derp, Encoding, Labels, Parse, Scratch, Tree, derp, disparity};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::Value;

use crate::common::*;

fn vector(name: &str) -> Value {
    let text = std::fs::read_to_string(vectors().join("derp").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn strings_of(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

fn ints_of(v: &Value) -> Vec<i32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as i32)
        .collect()
}

fn links_of(v: &Value) -> Vec<Link> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| (l[0].as_u64().unwrap() as u32, l[1].as_u64().unwrap() as u32))
        .collect()
}

fn encoding_of(v: &Value) -> Encoding<&str> {
    Encoding {
        chi: strings_of(&v[0]),
        left: v[1] == "alpha",
        omega: strings_of(&v[2]),
    }
}

/// The Figure 5.1 example: (src head, src deprel, tgt head, tgt deprel, links, src tokens).
struct Figure {
    v: Value,
}

impl Figure {
    fn load() -> Self {
        Figure {
            v: vector("figure_5_1.json"),
        }
    }
    fn heads(&self, side: &str) -> Vec<i32> {
        ints_of(&self.v[format!("{side}_head")])
    }
    fn deprels(&self, side: &str) -> Vec<&str> {
        strings_of(&self.v[format!("{side}_deprel")])
    }
    fn links(&self) -> Vec<Link> {
        links_of(&self.v["links"])
    }
    fn position(&self, token: &str) -> u32 {
        strings_of(&self.v["src_tokens"])
            .iter()
            .position(|t| *t == token)
            .unwrap() as u32
    }
}

#[test]
fn figure_5_1_encodings_stated_in_the_text() {
    let f = Figure::load();
    let mut labels = Labels::default();
    for (side, key, n, m) in [
        ("tgt", "tgt the->Sherlock (tgt positions 3 -> 1)", 3, 1),
        ("src", "src the->Sherlock (src positions 0 -> 5)", 0, 5),
    ] {
        let (heads, deprels) = (f.heads(side), f.deprels(side));
        let tree = Tree::new(
            Parse {
                head: &heads,
                deprel: &deprels,
            },
            &mut labels,
        )
        .unwrap();
        let stated = encoding_of(&f.v["encodings_stated_in_text"][key]);
        assert_eq!(tree.encoding(n, m, &labels), stated, "{key}");
    }
}

#[test]
fn figure_5_1_edges_spanning_tree_and_score() {
    let f = Figure::load();
    let (sh, sd, th, td) = (
        f.heads("src"),
        f.deprels("src"),
        f.heads("tgt"),
        f.deprels("tgt"),
    );
    let mut scratch = Scratch::default();
    let result = derp(
        Parse {
            head: &sh,
            deprel: &sd,
        },
        Parse {
            head: &th,
            deprel: &td,
        },
        &f.links(),
        &mut scratch,
    )
    .unwrap();

    let weights: HashMap<(u32, u32), (u32, u32)> = scratch
        .edges()
        .iter()
        .map(|e| ((e.a, e.b), (e.l, e.lmax)))
        .collect();
    let stated = f.v["meta_graph_edges"].as_array().unwrap();
    assert_eq!(
        weights.len(),
        stated.len(),
        "a complete graph over the six aligned src nodes"
    );
    for edge in stated {
        let ends = strings_of(&edge["edge"]);
        let key = (f.position(ends[0]), f.position(ends[1]));
        let want = (
            edge["L"].as_u64().unwrap() as u32,
            edge["Lmax"].as_u64().unwrap() as u32,
        );
        assert_eq!(weights[&key], want, "edge {ends:?}");
    }

    let mut mst: Vec<(u32, u32)> = scratch.mst().iter().map(|e| (e.a, e.b)).collect();
    let mut want: Vec<(u32, u32)> = f.v["mst_edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let ends = strings_of(e);
            (f.position(ends[0]), f.position(ends[1]))
        })
        .collect();
    mst.sort();
    want.sort();
    assert_eq!(mst, want);

    assert_eq!((result.sum_l, result.sum_lmax), (5, 11));
    assert_eq!((result.nodes, result.side), (6, Side::Src));
    assert_eq!(result.score, f.v["score"].as_f64().unwrap());
    assert_eq!(result.score, 1.0 - 5.0 / 11.0);
}

#[test]
fn small_cases_path_disparity() {
    let v = vector("small_cases.json");
    for case in v["path_disparity"].as_array().unwrap() {
        let (a, b) = (encoding_of(&case["a"]), encoding_of(&case["b"]));
        let want = (
            case["L"].as_u64().unwrap() as u32,
            case["Lmax"].as_u64().unwrap() as u32,
        );
        assert_eq!(disparity(&a, &b), want, "{}", case["note"]);
        assert_eq!(disparity(&b, &a), want, "L and Lmax are symmetric");
    }
}

#[test]
fn small_cases_identical_trees_score_one() {
    let v = vector("small_cases.json");
    let case = &v["identical_trees"];
    let (head, deprel) = (ints_of(&case["head"]), strings_of(&case["deprel"]));
    let parse = Parse {
        head: &head,
        deprel: &deprel,
    };
    let result = derp(
        parse,
        parse,
        &links_of(&case["links"]),
        &mut Scratch::default(),
    )
    .unwrap();
    assert_eq!(Some(result.score), case["score"].as_f64());
    assert_eq!(result.sum_l, 0);
}

fn labels_column(rows: &[Vec<&str>]) -> ArrayRef {
    token_lists(
        &rows
            .iter()
            .map(|r| Some(r.iter().map(|s| Some(*s)).collect()))
            .collect::<Vec<_>>(),
    )
}

const ARGS: &str = "src_head, src_deprel, tgt_head, tgt_deprel, links";

/// Rows: the figure; the identical trees; one aligned node; a cycle; a head out of range;
/// fewer deprels than heads; a link past the tgt sentence; a NULL tgt_head.
fn sql_table() -> Vec<(&'static str, ArrayRef)> {
    let f = Figure::load();
    let small = vector("small_cases.json");
    let same = &small["identical_trees"];
    let (sh, th) = (f.heads("src"), f.heads("tgt"));
    let (same_h, same_d) = (ints_of(&same["head"]), strings_of(&same["deprel"]));
    let (fig_sd, fig_td) = (f.deprels("src"), f.deprels("tgt"));
    let three = || same_h.clone();
    let src_head = head_lists(&[
        Some(sh.clone()),
        Some(same_h.clone()),
        Some(three()),
        Some(vec![2, 3, 1]),
        Some(vec![2, 0, 7]),
        Some(three()),
        Some(three()),
        Some(three()),
    ]);
    let tgt_head = head_lists(&[
        Some(th.clone()),
        Some(same_h.clone()),
        Some(three()),
        Some(three()),
        Some(three()),
        Some(three()),
        Some(three()),
        None,
    ]);
    let mut src_deprel = vec![fig_sd.clone()];
    let mut tgt_deprel = vec![fig_td.clone()];
    for i in 1..8 {
        src_deprel.push(if i == 5 {
            vec!["nsubj", "root"]
        } else {
            same_d.clone()
        });
        tgt_deprel.push(same_d.clone());
    }
    let identity = vec![(0, 0), (1, 1), (2, 2)];
    let links = link_lists(&[
        Some(
            f.links()
                .iter()
                .map(|&(a, b)| (a as i32, b as i32))
                .collect(),
        ),
        Some(identity.clone()),
        Some(vec![(1, 1)]),
        Some(identity.clone()),
        Some(identity.clone()),
        Some(identity.clone()),
        Some(vec![(0, 0), (1, 3)]),
        Some(identity),
    ]);
    vec![
        ("src_head", src_head),
        ("src_deprel", labels_column(&src_deprel)),
        ("tgt_head", tgt_head),
        ("tgt_deprel", labels_column(&tgt_deprel)),
        ("links", links),
    ]
}

const PROBLEMS: [Option<&str>; 8] = [
    None,
    None,
    Some("fewer than two aligned nodes (1)"),
    Some("src parse: token 0 is on a cycle of heads"),
    Some("src parse: head 7 of token 2 is outside 0..=3"),
    Some("src parse: 3 heads but 2 deprels"),
    Some("link position 3 outside the tgt sentence of 3 tokens"),
    Some("tgt_head is NULL"),
];

#[tokio::test]
async fn derp_functions_through_sql() {
    let ctx = context();
    register(&ctx, "t", batch(sql_table()));
    let scores = floats(
        &ctx,
        &format!("SELECT derp({ARGS}) FROM t ORDER BY pair_id"),
        0,
    )
    .await;
    let mut want = vec![Some(6.0 / 11.0), Some(1.0)];
    want.resize(8, None);
    assert_eq!(scores.len(), 8);
    assert!((scores[0].unwrap() - 6.0 / 11.0).abs() < 1e-15);
    assert_eq!(scores[1..], want[1..]);

    let problems = strings(
        &ctx,
        &format!("SELECT derp_problem({ARGS}) FROM t ORDER BY pair_id"),
        0,
    )
    .await;
    assert_eq!(problems, PROBLEMS.map(|p| p.map(str::to_string)));

    let pooled = floats(&ctx, &format!("SELECT derp_pooled({ARGS}) FROM t"), 0).await;
    // the figure (5 of 11) and the identical trees (0 of 5): 1 - 5/16
    assert!(
        (pooled[0].unwrap() - (1.0 - 5.0 / 16.0)).abs() < 1e-15,
        "{pooled:?}"
    );
}

#[tokio::test]
async fn derp_detail_explains_the_figure() {
    let ctx = context();
    register(&ctx, "t", batch(sql_table()));
    let sql = format!(
        "SELECT d.sum_l, d.sum_lmax, d.nodes, d.side, d.mst, d IS NULL \
         FROM (SELECT pair_id, derp_detail({ARGS}) AS d FROM t) ORDER BY pair_id"
    );
    let batches = collect(&ctx, &sql).await;
    let b = &batches[0];
    let int = |i: usize| {
        cast(b.column(i), &DataType::Int64)
            .unwrap()
            .as_primitive::<Int64Type>()
            .value(0)
    };
    assert_eq!((int(0), int(1), int(2)), (5, 11, 6));
    assert_eq!(b.column(3).as_string::<i32>().value(0), "src");
    let mst = b.column(4).as_list::<i32>().value(0);
    let mst = mst.as_struct();
    let field = |name: &str| {
        mst.column_by_name(name)
            .unwrap()
            .as_primitive::<Int32Type>()
            .values()
            .to_vec()
    };
    // Kruskal's order: L ascending, then Lmax descending, then positions.
    assert_eq!(field("a"), [0, 2, 4, 0, 3]);
    assert_eq!(field("b"), [1, 3, 5, 3, 4]);
    assert_eq!(field("l"), [0, 0, 1, 2, 2]);
    assert_eq!(field("lmax"), [2, 0, 3, 3, 3]);
    let null = b.column(5).as_boolean();
    assert_eq!(
        null.iter().map(Option::unwrap).collect::<Vec<_>>(),
        [false, false, true, true, true, true, true, true]
    );
}

#[tokio::test]
async fn derp_accepts_large_lists_wide_heads_and_string_views() {
    let ctx = context();
    let columns = sql_table()
        .into_iter()
        .map(|(name, array)| {
            let to = match name {
                "src_head" | "tgt_head" => {
                    DataType::LargeList(Field::new("element", DataType::Int64, true).into())
                }
                "links" => return (name, array),
                _ => DataType::LargeList(Field::new("element", DataType::Utf8View, true).into()),
            };
            (name, cast(&array, &to).unwrap())
        })
        .collect();
    register(&ctx, "t", batch(columns));
    let problems = strings(
        &ctx,
        &format!("SELECT derp_problem({ARGS}) FROM t ORDER BY pair_id"),
        0,
    )
    .await;
    assert_eq!(problems, PROBLEMS.map(|p| p.map(str::to_string)));
    let scores = floats(
        &ctx,
        &format!("SELECT derp({ARGS}) FROM t ORDER BY pair_id"),
        0,
    )
    .await;
    assert_eq!(scores[1], Some(1.0));
}

/// Labels as Parquet's dictionary pages are read (what `score` reads): every score and reason
/// the same as from plain strings.
#[tokio::test]
async fn derp_reads_dictionary_encoded_labels_as_plain_ones() {
    let ctx = context();
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let columns = sql_table()
        .into_iter()
        .map(|(name, array)| match name {
            "src_deprel" | "tgt_deprel" => {
                let to = DataType::List(Field::new("item", dictionary.clone(), true).into());
                (name, cast(&array, &to).unwrap())
            }
            _ => (name, array),
        })
        .collect();
    register(&ctx, "t", batch(columns));
    register(&ctx, "plain", batch(sql_table()));
    let query =
        |function, table| format!("SELECT {function}({ARGS}) FROM {table} ORDER BY pair_id");
    assert_eq!(
        strings(&ctx, &query("derp_problem", "t"), 0).await,
        strings(&ctx, &query("derp_problem", "plain"), 0).await
    );
    let scores = floats(&ctx, &query("derp", "t"), 0).await;
    assert_eq!(scores, floats(&ctx, &query("derp", "plain"), 0).await);
    assert_eq!(scores[1], Some(1.0));
}

#[tokio::test]
async fn derp_rejects_wrong_argument_types_at_plan_time() {
    let ctx = context();
    register(&ctx, "t", batch(sql_table()));
    let err = ctx
        .sql("SELECT derp(src_deprel, src_deprel, tgt_head, tgt_deprel, links) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("argument `src_head` must be dependency heads"),
        "{err}"
    );
    let err = ctx
        .sql("SELECT derp(src_head, src_deprel) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("derp takes derp(src_head, src_deprel, tgt_head, tgt_deprel, links)"),
        "{err}"
    );
}

// ---- properties over random trees and alignments ----

const LABELS: &[&str] = &["nsubj", "obj", "det", "amod", "root"];

#[derive(Debug, Clone)]
struct RandomTree {
    head: Vec<i32>,
    deprel: Vec<&'static str>,
}

impl RandomTree {
    fn parse(&self) -> Parse<'_> {
        Parse {
            head: &self.head,
            deprel: &self.deprel,
        }
    }
}

/// A random tree (sometimes a forest) of 2..=max tokens, in any word order (not projective).
fn tree(max: usize) -> impl Strategy<Value = RandomTree> {
    (2..=max)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(any::<u32>(), n),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                prop::collection::vec(prop::sample::select(LABELS), n),
                prop::collection::vec(prop::bool::weighted(0.1), n),
            )
        })
        .prop_map(|(raw, order, deprel, extra_root)| {
            // abstract node i > 0 hangs under a node before it; `order` places nodes in the sentence
            let mut head = vec![0; order.len()];
            for i in 1..order.len() {
                if !extra_root[i] {
                    head[order[i]] = order[raw[i] as usize % i] as i32 + 1;
                }
            }
            RandomTree { head, deprel }
        })
}

/// Two trees and any links between them.
fn pair(max: usize) -> impl Strategy<Value = (RandomTree, RandomTree, Vec<Link>)> {
    (tree(max), tree(max)).prop_flat_map(|(a, b)| {
        let (n1, n2) = (a.head.len() as u32, b.head.len() as u32);
        (
            Just(a),
            Just(b),
            prop::collection::vec((0..n1, 0..n2), 0..14),
        )
    })
}

/// Two trees and a one-to-one alignment between them.
fn one_to_one(max: usize) -> impl Strategy<Value = (RandomTree, RandomTree, Vec<Link>)> {
    (tree(max), tree(max)).prop_flat_map(|(a, b)| {
        let (n1, n2) = (a.head.len(), b.head.len());
        (
            Just(a),
            Just(b),
            Just((0..n2 as u32).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec(prop::bool::weighted(0.8), n1.min(n2)),
        )
            .prop_map(|(a, b, targets, keep)| {
                let links = (0..keep.len() as u32)
                    .filter(|&i| keep[i as usize])
                    .map(|i| (i, targets[i as usize]))
                    .collect();
                (a, b, links)
            })
    })
}

/// The smallest sum L over all spanning trees, and the largest sum Lmax among those, by
/// enumerating every (k-1)-subset of the edges.
fn brute_force_mst(nodes: &[u32], edges: &[(u32, u32, u32, u32)]) -> (u64, u64) {
    let k = nodes.len();
    let index = |x: u32| nodes.iter().position(|&n| n == x).unwrap();
    let mut best: Option<(u64, u64)> = None;
    let m = edges.len();
    for mask in 0u32..(1 << m) {
        if mask.count_ones() as usize != k - 1 {
            continue;
        }
        let mut set: Vec<usize> = (0..k).collect();
        fn root(set: &mut [usize], mut x: usize) -> usize {
            while set[x] != x {
                x = set[x];
            }
            x
        }
        let (mut l, mut lmax, mut acyclic) = (0u64, 0u64, true);
        for (i, &(a, b, el, elmax)) in edges.iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let (ra, rb) = (root(&mut set, index(a)), root(&mut set, index(b)));
            if ra == rb {
                acyclic = false;
                break;
            }
            set[ra] = rb;
            l += el as u64;
            lmax += elmax as u64;
        }
        if acyclic {
            best = Some(match best {
                Some((bl, _)) if l > bl => best.unwrap(),
                Some((bl, bm)) if l == bl => (l, bm.max(lmax)),
                _ => (l, lmax),
            });
        }
    }
    best.unwrap()
}

fn score(
    src: &RandomTree,
    tgt: &RandomTree,
    links: &[Link],
    scratch: &mut Scratch,
) -> Option<Derp> {
    derp(src.parse(), tgt.parse(), links, scratch).ok()
}

proptest! {
    #[test]
    fn scores_are_bounded((src, tgt, links) in pair(12)) {
        if let Some(d) = score(&src, &tgt, &links, &mut Scratch::default()) {
            prop_assert!((0.0..=1.0).contains(&d.score), "{d:?}");
            prop_assert!(d.sum_l <= d.sum_lmax);
        }
    }

    #[test]
    fn a_tree_aligned_with_itself_scores_one(t in tree(15)) {
        let identity: Vec<Link> = (0..t.head.len() as u32).map(|i| (i, i)).collect();
        let d = score(&t, &t, &identity, &mut Scratch::default()).unwrap();
        prop_assert_eq!((d.score, d.sum_l), (1.0, 0));
    }

    #[test]
    fn disparity_is_symmetric_under_swapping_the_ends(
        (a, b, links) in one_to_one(10),
    ) {
        prop_assume!(links.len() >= 2);
        let mut labels = Labels::default();
        let ta = Tree::new(a.parse(), &mut labels).unwrap();
        let tb = Tree::new(b.parse(), &mut labels).unwrap();
        for &(n, n2) in &links {
            for &(m, m2) in &links {
                if n == m {
                    continue;
                }
                let forward = disparity(&ta.encoding(n, m, &labels), &tb.encoding(n2, m2, &labels));
                let backward = disparity(&ta.encoding(m, n, &labels), &tb.encoding(m2, n2, &labels));
                prop_assert_eq!(forward, backward);
            }
        }
    }

    #[test]
    fn swapping_src_and_tgt_keeps_the_score_of_a_one_to_one_alignment(
        (a, b, links) in one_to_one(12),
    ) {
        let back: Vec<Link> = links.iter().map(|&(x, y)| (y, x)).collect();
        let scratch = &mut Scratch::default();
        let forward = score(&a, &b, &links, scratch).map(|d| (d.sum_l, d.sum_lmax, d.score));
        let backward = score(&b, &a, &back, scratch).map(|d| (d.sum_l, d.sum_lmax, d.score));
        prop_assert_eq!(forward, backward);
    }

    #[test]
    fn kruskal_finds_a_minimum_spanning_tree((src, tgt, links) in pair(7)) {
        let mut scratch = Scratch::default();
        let Some(d) = score(&src, &tgt, &links, &mut scratch) else { return Ok(()) };
        prop_assume!(d.nodes <= 6);
        let edges: Vec<_> = scratch.edges().iter().map(|e| (e.a, e.b, e.l, e.lmax)).collect();
        let mut nodes: Vec<u32> = edges.iter().flat_map(|e| [e.0, e.1]).collect();
        nodes.sort();
        nodes.dedup();
        prop_assert_eq!(nodes.len(), d.nodes);
        prop_assert_eq!(edges.len(), d.nodes * (d.nodes - 1) / 2);
        prop_assert_eq!(brute_force_mst(&nodes, &edges), (d.sum_l, d.sum_lmax));
    }

    #[test]
    fn malformed_heads_never_panic(
        head in prop::collection::vec(-3i32..12, 0..10),
        deprel in prop::collection::vec(prop::sample::select(LABELS), 0..10),
        links in prop::collection::vec((0u32..12, 0u32..12), 0..10),
    ) {
        let parse = Parse { head: &head, deprel: &deprel };
        let _ = derp(parse, parse, &links, &mut Scratch::default());
    }
}

/// DERP as SPEC §2 states it, step by step and slowly: every edge from the two encodings, every
/// edge sorted, Kruskal's algorithm. The scorer must give the same tree in the same order.
fn reference(
    src: &RandomTree,
    tgt: &RandomTree,
    links: &[Link],
) -> Option<(Side, Vec<(u32, u32, u32, u32)>, Vec<(u32, u32, u32, u32)>)> {
    let mut labels = Labels::default();
    let trees = [
        Tree::new(src.parse(), &mut labels).ok()?,
        Tree::new(tgt.parse(), &mut labels).ok()?,
    ];
    let mut links = links.to_vec();
    links.sort();
    links.dedup();
    if links
        .iter()
        .any(|&(a, b)| a as usize >= trees[0].len() || b as usize >= trees[1].len())
    {
        return None;
    }
    let one_each = |side: usize| {
        let mut seen = std::collections::HashSet::new();
        links
            .iter()
            .all(|l| seen.insert(if side == 0 { l.0 } else { l.1 }))
    };
    let (side, nodes): (Side, Vec<(u32, u32)>) = if !one_each(0) && one_each(1) {
        let mut nodes: Vec<_> = links.iter().map(|&(a, b)| (b, a)).collect();
        nodes.sort();
        (Side::Tgt, nodes)
    } else {
        let mut nodes: Vec<(u32, u32)> = Vec::new();
        for &(a, b) in &links {
            match nodes.last_mut() {
                Some(last) if last.0 == a => {
                    if (trees[1].depth(b), b) < (trees[1].depth(last.1), last.1) {
                        last.1 = b;
                    }
                }
                _ => nodes.push((a, b)),
            }
        }
        (Side::Src, nodes)
    };
    if nodes.len() < 2 {
        return None;
    }
    let (meta, other) = if side == Side::Src {
        (&trees[0], &trees[1])
    } else {
        (&trees[1], &trees[0])
    };
    let mut edges = Vec::new();
    for (i, &(n, cn)) in nodes.iter().enumerate() {
        for &(m, cm) in &nodes[i + 1..] {
            let (l, lmax) = if cn == cm {
                (0, 0)
            } else {
                disparity(
                    &meta.encoding(n, m, &labels),
                    &other.encoding(cn, cm, &labels),
                )
            };
            edges.push((n, m, l, lmax));
        }
    }
    let mut sorted = edges.clone();
    sorted.sort_by_key(|&(a, b, l, lmax)| (l, std::cmp::Reverse(lmax), a, b));
    let mut set: HashMap<u32, u32> = nodes.iter().map(|&(n, _)| (n, n)).collect();
    fn root(set: &HashMap<u32, u32>, mut x: u32) -> u32 {
        while set[&x] != x {
            x = set[&x];
        }
        x
    }
    let mut mst = Vec::new();
    for e in sorted {
        let (ra, rb) = (root(&set, e.0), root(&set, e.1));
        if ra != rb {
            set.insert(ra, rb);
            mst.push(e);
        }
    }
    Some((side, edges, mst))
}

fn check_against_reference(
    src: &RandomTree,
    tgt: &RandomTree,
    links: &[Link],
    scratch: &mut Scratch,
) -> Result<(), TestCaseError> {
    let result = derp(src.parse(), tgt.parse(), links, scratch);
    let Some((side, edges, mst)) = reference(src, tgt, links) else {
        prop_assert!(result.is_err());
        return Ok(());
    };
    let sums = (
        mst.iter().map(|e| e.2 as u64).sum::<u64>(),
        mst.iter().map(|e| e.3 as u64).sum::<u64>(),
    );
    if sums.1 == 0 {
        prop_assert!(result.is_err());
        return Ok(());
    }
    let d = result.unwrap();
    prop_assert_eq!((d.side, d.sum_l, d.sum_lmax), (side, sums.0, sums.1));
    prop_assert_eq!(d.score, 1.0 - sums.0 as f64 / sums.1 as f64);
    let got: Vec<_> = scratch
        .edges()
        .iter()
        .map(|e| (e.a, e.b, e.l, e.lmax))
        .collect();
    prop_assert_eq!(got, edges);
    let got: Vec<_> = scratch
        .mst()
        .iter()
        .map(|e| (e.a, e.b, e.l, e.lmax))
        .collect();
    prop_assert_eq!(got, mst);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_scorer_takes_the_tree_and_order_of_spec_kruskal((src, tgt, links) in pair(12)) {
        check_against_reference(&src, &tgt, &links, &mut Scratch::default())?;
    }

    #[test]
    fn the_scorer_agrees_on_long_one_to_one_pairs((src, tgt, links) in one_to_one(60)) {
        check_against_reference(&src, &tgt, &links, &mut Scratch::default())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Trees longer than any proptest above, with long paths between the aligned words.
    #[test]
    fn the_scorer_agrees_on_pairs_past_64_tokens((src, tgt, links) in one_to_one(100)) {
        check_against_reference(&src, &tgt, &links, &mut Scratch::default())?;
    }
}

#[test]
fn one_scratch_scores_pairs_of_every_size_alike() {
    // Buffers grown by a long pair must not leak into a shorter one.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut shared = Scratch::default();
    for i in 0..300 {
        let (src, tgt, links) = pair(if i % 2 == 0 { 30 } else { 80 })
            .new_tree(&mut runner)
            .unwrap()
            .current();
        check_against_reference(&src, &tgt, &links, &mut shared).unwrap();
    }
}
