//! `kendall_tau_a`: the `tests/vectors/kendall/` cases through SQL GROUP BY, and agreement with
//! the O(n^2) definition on random lists with ties, over several partitions (so partial states
//! are merged).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use proptest::prelude::*;
use serde_json::Value;

use crate::common::*;

/// Rows (group, x, y) as a table of `partitions` partitions.
fn register_rows(
    ctx: &datafusion::prelude::SessionContext,
    rows: &[(i64, Option<f64>, Option<f64>)],
    partitions: usize,
) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("x", DataType::Float64, true),
        Field::new("y", DataType::Float64, true),
    ]));
    let chunk = rows.len().div_ceil(partitions).max(1);
    let mut parts: Vec<Vec<RecordBatch>> = rows
        .chunks(chunk)
        .map(|part| {
            let columns: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from_iter_values(part.iter().map(|r| r.0))),
                Arc::new(Float64Array::from_iter(part.iter().map(|r| r.1))),
                Arc::new(Float64Array::from_iter(part.iter().map(|r| r.2))),
            ];
            vec![RecordBatch::try_new(schema.clone(), columns).unwrap()]
        })
        .collect();
    if parts.is_empty() {
        parts.push(vec![]); // a table of no rows still has a partition
    }
    ctx.register_table("t", Arc::new(MemTable::try_new(schema, parts).unwrap()))
        .unwrap();
}

fn cases() -> Vec<(Vec<f64>, Vec<f64>, Option<f64>)> {
    let text = std::fs::read_to_string(vectors().join("kendall/tau_a.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let floats = |a: &Value| {
        a.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (floats(&c["x"]), floats(&c["y"]), c["tau_a"].as_f64()))
        .collect()
}

#[tokio::test]
async fn vectors_through_group_by() {
    let cases = cases();
    let mut rows = Vec::new();
    for (g, (x, y, _)) in cases.iter().enumerate() {
        rows.extend(x.iter().zip(y).map(|(&x, &y)| (g as i64, Some(x), Some(y))));
    }
    for partitions in [1, 3] {
        let ctx = context();
        register_rows(&ctx, &rows, partitions);
        let got = floats(
            &ctx,
            "SELECT kendall_tau_a(x, y) FROM t GROUP BY g ORDER BY g",
            0,
        )
        .await;
        let want: Vec<Option<f64>> = cases.iter().map(|c| c.2).collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            match (g, w) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-15, "{got:?} vs {want:?}"),
                _ => assert_eq!(g, w),
            }
        }
    }
}

#[tokio::test]
async fn without_group_by_nulls_left_out_and_wrong_types_rejected() {
    let ctx = context();
    let (x, y, want) = cases().swap_remove(2);
    let mut rows: Vec<_> = x
        .iter()
        .zip(&y)
        .map(|(&x, &y)| (0, Some(x), Some(y)))
        .collect();
    rows.push((0, None, Some(100.0)));
    rows.push((0, Some(-100.0), None));
    register_rows(&ctx, &rows, 2);
    let got = floats(&ctx, "SELECT kendall_tau_a(x, y) FROM t", 0).await;
    assert!((got[0].unwrap() - want.unwrap()).abs() < 1e-15);
    // integer arguments are coerced; strings are not accepted
    let got = floats(&ctx, "SELECT kendall_tau_a(CAST(x AS INT), y) FROM t", 0).await;
    assert!((got[0].unwrap() - want.unwrap()).abs() < 1e-15);
    let err = ctx
        .sql("SELECT kendall_tau_a('a', y) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("argument `x` must be numeric"), "{err}");
}

fn by_definition(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    let mut sum = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            sum += ((x[i] - x[j]).signum() * (y[i] - y[j]).signum())
                * f64::from(x[i] != x[j] && y[i] != y[j]);
        }
    }
    Some(2.0 * sum / (n * (n - 1)) as f64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn equals_the_definition_on_random_lists_with_ties(
        groups in prop::collection::vec(prop::collection::vec((0u8..5, 0u8..5), 0..30), 1..12),
        partitions in 1usize..4,
    ) {
        let mut rows = Vec::new();
        for (g, pairs) in groups.iter().enumerate() {
            rows.extend(pairs.iter().map(|&(x, y)| (g as i64, Some(f64::from(x)), Some(f64::from(y)))));
        }
        let rt = tokio::runtime::Runtime::new().unwrap();
        let got = rt.block_on(async {
            let ctx = context();
            register_rows(&ctx, &rows, partitions);
            floats(&ctx, "SELECT g, kendall_tau_a(x, y) FROM t GROUP BY g ORDER BY g", 1).await
        });
        let want: Vec<Option<f64>> = groups
            .iter()
            .filter(|pairs| !pairs.is_empty())
            .map(|pairs| {
                let (x, y): (Vec<f64>, Vec<f64>) = pairs.iter().map(|&(x, y)| (f64::from(x), f64::from(y))).unzip();
                by_definition(&x, &y)
            })
            .collect();
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            match (g, w) {
                (Some(g), Some(w)) => prop_assert!((g - w).abs() < 1e-12),
                _ => prop_assert_eq!(g, w),
            }
        }
    }
}
