//! Every UDF over every accepted input type, NULLs and empty lists, and plan-time errors.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field};

use crate::common::*;

const LED3: &str = "led(src, tgt, links)";
const SQL: &str = "SELECT led(src, tgt), led(src, tgt, links), pod(src, tgt, links, ','), \
                   lepod_problem(src, tgt, links) FROM t ORDER BY pair_id";

fn base() -> (ArrayRef, ArrayRef, ArrayRef) {
    let src = sentences(&["a b c , d", "the cat sat on the mat", "x y"]);
    let tgt = sentences(&["d , c b a", "the mat", "y x"]);
    let links = link_lists(&[
        Some(vec![(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)]),
        Some(vec![(0, 0), (5, 1)]),
        Some(vec![(0, 1), (1, 0)]),
    ]);
    (src, tgt, links)
}

async fn results(src: ArrayRef, tgt: ArrayRef, links: ArrayRef) -> Vec<Vec<Option<f64>>> {
    let ctx = context();
    register(
        &ctx,
        "t",
        batch(vec![("src", src), ("tgt", tgt), ("links", links)]),
    );
    let mut out = Vec::new();
    for i in 0..3 {
        out.push(floats(&ctx, SQL, i).await);
    }
    out
}

#[tokio::test]
async fn every_list_and_string_type_gives_the_same_scores() {
    let (src, tgt, links) = base();
    let want = results(src.clone(), tgt.clone(), links.clone()).await;
    assert_eq!(want[0][1], Some((4.0 / 6.0) / 2.0));
    assert_eq!(want[2][2], Some(0.5));
    for string in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
        let item = Arc::new(Field::new("element", string.clone(), true));
        for list in [DataType::List(item.clone()), DataType::LargeList(item)] {
            let large_links = cast(
                &links,
                &match list {
                    DataType::LargeList(_) => DataType::LargeList(Arc::new(Field::new(
                        "element",
                        links.as_list::<i32>().values().data_type().clone(),
                        true,
                    ))),
                    _ => links.data_type().clone(),
                },
            )
            .unwrap();
            let got = results(
                cast(&src, &list).unwrap(),
                cast(&tgt, &list).unwrap(),
                large_links,
            )
            .await;
            assert_eq!(got, want, "{list}");
        }
    }
}

#[tokio::test]
async fn null_and_bad_rows_give_null_and_a_reason() {
    let src = token_lists(&[
        None,
        Some(vec![Some("a"), Some("b")]),
        Some(vec![]),
        Some(vec![Some("a")]),
        Some(vec![Some("a")]),
        Some(vec![Some("a")]),
    ]);
    let tgt = token_lists(&[
        Some(vec![Some("a")]),
        Some(vec![Some("a"), None]),
        Some(vec![Some("a")]),
        Some(vec![Some("a")]),
        Some(vec![Some("a")]),
        Some(vec![Some("a")]),
    ]);
    let links = link_lists(&[
        Some(vec![]),
        Some(vec![]),
        Some(vec![]),
        Some(vec![(0, 1)]),
        Some(vec![(-1, 0)]),
        None,
    ]);
    let ctx = context();
    register(
        &ctx,
        "t",
        batch(vec![("src", src), ("tgt", tgt), ("links", links)]),
    );
    let unaligned = floats(&ctx, SQL, 0).await;
    assert_eq!(
        unaligned,
        [None, None, None, Some(0.0), Some(0.0), Some(0.0)]
    );
    for i in 1..3 {
        assert_eq!(floats(&ctx, SQL, i).await, vec![None; 6], "column {i}");
    }
    let reasons = strings(&ctx, SQL, 3).await;
    let want = [
        "src is NULL",
        "tgt[1] is NULL",
        "empty sentence (src)",
        "link position 1 outside the tgt sentence of 1 tokens",
        "links[0] has a negative position",
        "links is NULL (no alignment row)",
    ];
    assert_eq!(reasons, want.map(|s| Some(s.to_string())));
    // The alignment-free LeD only needs the tokens.
    let sql = "SELECT lepod_problem(src, tgt) FROM t ORDER BY pair_id";
    assert_eq!(strings(&ctx, sql, 0).await[5], None);
}

#[tokio::test]
async fn punct_may_be_null_or_a_column() {
    let (src, tgt, links) = base();
    let punct: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(vec![
        Some(","),
        None,
        Some(""),
    ]));
    let ctx = context();
    register(
        &ctx,
        "t",
        batch(vec![
            ("src", src),
            ("tgt", tgt),
            ("links", links),
            ("p", punct),
        ]),
    );
    let got = floats(
        &ctx,
        "SELECT pod(src, tgt, links, p) FROM t ORDER BY pair_id",
        0,
    )
    .await;
    // Without the comma's unit, a b c d reversed: d = 3, 1, -1, -3 closes once, at max 3.
    assert_eq!(got, vec![Some(3.0 / 4.0), None, Some(0.5)]);
    let null = floats(&ctx, "SELECT pod(src, tgt, links, NULL) FROM t", 0).await;
    assert_eq!(null, vec![None; 3]);
    let nulls = floats(&ctx, "SELECT led(NULL, tgt) FROM t", 0).await;
    assert_eq!(nulls, vec![None; 3]);
}

#[tokio::test]
async fn identical_sentences_score_zero() {
    let ctx = context();
    let sql = "SELECT led(s, s), led(s, s, pharaoh('0-0 1-1 2-2')), pod(s, s, pharaoh('0-0 1-1 2-2')) \
               FROM (SELECT tokenize('x y z') AS s)";
    for i in 0..3 {
        assert_eq!(floats(&ctx, sql, i).await, vec![Some(0.0)]);
    }
}

#[tokio::test]
async fn tokenize_lowercase_and_pharaoh() {
    let ctx = context();
    let sql = "SELECT array_to_string(tokenize(t), '|') FROM (VALUES ('the cat  sat '), (''), (NULL)) v(t)";
    assert_eq!(
        strings(&ctx, sql, 0).await,
        vec![Some("the|cat|sat".into()), Some("".into()), None]
    );
    let sql = "SELECT cardinality(tokenize(t)) FROM (VALUES (''), (NULL)) v(t)";
    let batches = collect(&ctx, sql).await;
    let sizes = cast(batches[0].column(0), &DataType::Int64).unwrap();
    assert_eq!(
        sizes
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
            .iter()
            .collect::<Vec<_>>(),
        vec![Some(0), None]
    );

    let lists = token_lists(&[
        Some(vec![Some("Hello"), None, Some("ΣΑΣ"), Some("ok")]),
        None,
    ]);
    register(&ctx, "t", batch(vec![("toks", lists)]));
    let batches = collect(
        &ctx,
        "SELECT lowercase_tokens(toks) FROM t ORDER BY pair_id",
    )
    .await;
    let out = batches[0].column(0).as_list::<i32>();
    assert!(out.is_null(1));
    let first = out.value(0);
    let first: Vec<Option<&str>> = first.as_string::<i32>().iter().collect();
    assert_eq!(first, vec![Some("hello"), None, Some("σας"), Some("ok")]);

    let sql =
        "SELECT concat(l['src'], '-', l['tgt']) FROM (SELECT unnest(pharaoh('0-0 1-2 2-1')) AS l)";
    assert_eq!(
        strings(&ctx, sql, 0).await,
        vec![Some("0-0".into()), Some("1-2".into()), Some("2-1".into())]
    );
    let sql = "SELECT pharaoh(t) IS NULL, cardinality(pharaoh(t)) FROM (VALUES ('0-0 x'), ('0-0 1-'), ('')) v(t)";
    let flags = strings(&ctx, sql, 0).await;
    assert_eq!(
        flags,
        vec![
            Some("true".into()),
            Some("true".into()),
            Some("false".into())
        ]
    );
    let sql = "SELECT pod(tokenize('a b'), tokenize('b a'), pharaoh('0-1 1-0'))";
    assert_eq!(floats(&ctx, sql, 0).await, vec![Some(0.5)]);
}

#[tokio::test]
async fn wrong_argument_types_fail_at_plan_time_listing_the_signatures() {
    let ctx = context();
    let err = ctx
        .sql("SELECT led(1, tokenize('a'))")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("'led(Int64, List(Utf8))'"), "{err}");
    assert!(err.contains("led(List(Utf8), List(Utf8))"), "{err}");
    let sql = format!(
        "SELECT {LED3} FROM (SELECT tokenize('a') AS src, tokenize('b') AS tgt, 3 AS links)"
    );
    let err = ctx.sql(&sql).await.unwrap_err().to_string();
    assert!(
        err.contains("led(List(Utf8), List(Utf8), List(Struct(\"src\": non-null Int32"),
        "{err}"
    );
    let err = ctx
        .sql("SELECT pod(tokenize('a'), tokenize('a'))")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pod(List(Utf8), List(Utf8), List(Struct"),
        "{err}"
    );
}
