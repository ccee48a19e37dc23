//! `chrf` against sacrebleu's `sentence_chrf` (defaults): hand-made cases and every pair of the
//! bundled Europarl sample, expected values from `scripts/make_chrf_vectors.py`.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray};
use serde_json::Value;

use crate::common::*;

/// sacrebleu computes in the same order; allow for nothing but the last bits.
const TOLERANCE: f64 = 1e-9;

fn expected(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(vectors().join("chrf").join(file)).unwrap();
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn assert_close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: NULL, expected {want}"));
    assert!((got - want).abs() <= TOLERANCE, "{what}: {got}, sacrebleu {want}");
}

#[tokio::test]
async fn hand_made_cases_equal_sacrebleu() {
    let ctx = context();
    let cases = expected("cases.json");
    let column = |key: &str| -> ArrayRef { Arc::new(StringArray::from_iter_values(cases.iter().map(|c| c[key].as_str().unwrap()))) };
    register(&ctx, "cases", batch(vec![("hyp", column("hyp")), ("ref", column("ref"))]));
    let text = floats(&ctx, "SELECT chrf(hyp, ref) FROM cases", 0).await;
    let tokens = floats(&ctx, "SELECT chrf(tokenize(hyp), tokenize(ref)) FROM cases", 0).await;
    for ((case, text), tokens) in cases.iter().zip(text).zip(tokens) {
        let want = case["chrf"].as_f64().unwrap();
        assert_close(text, want, &format!("text {case}"));
        assert_close(tokens, want, &format!("tokens {case}"));
    }
}

#[tokio::test]
async fn every_sample_pair_equals_sacrebleu() {
    let ctx = context();
    let pairs = sample().join("pairs.parquet");
    ctx.register_parquet("pairs", path_str(&pairs), Default::default()).await.unwrap();
    let sql = "SELECT chrf(tgt, src), chrf(tgt_text, src_text) FROM pairs ORDER BY pair_id";
    let (tokens, text) = (floats(&ctx, sql, 0).await, floats(&ctx, sql, 1).await);
    let want = expected("europarl_sample.json");
    assert_eq!(tokens.len(), want.len());
    for ((pair, tokens), text) in want.iter().zip(tokens).zip(text) {
        let id = &pair["pair_id"];
        assert_close(tokens, pair["tokens"].as_f64().unwrap(), &format!("pair {id} tokens"));
        assert_close(text, pair["text"].as_f64().unwrap(), &format!("pair {id} text"));
    }
}

#[tokio::test]
async fn nulls_give_null_and_kinds_must_match() {
    let ctx = context();
    let rows = [Some(vec![Some("a"), Some("b")]), None, Some(vec![Some("a"), None])];
    register(&ctx, "t", batch(vec![("hyp", token_lists(&rows)), ("ref", token_lists(&rows))]));
    let got = floats(&ctx, "SELECT chrf(hyp, ref) FROM t", 0).await;
    assert_eq!(got, vec![Some(100.0), None, None]);
    assert_eq!(floats(&ctx, "SELECT chrf(NULL, 'abc')", 0).await, vec![None]);
    let mixed = ctx.sql("SELECT chrf(hyp, 'a b') FROM t").await.unwrap_err().to_string();
    assert!(mixed.contains("chrf: argument `hyp` must be a string"), "{mixed}");
}

/// `score --metrics` adds chrf (tgt against src), the same values as the SQL function, and
/// names what a metric needs when its inputs are missing.
#[tokio::test]
async fn score_adds_chrf_when_asked() {
    let dir = tempfile::TempDir::new().unwrap();
    let out = dir.path().join("scored.parquet");
    let pairs = sample().join("pairs.parquet");
    let text = ok(&["score", "--pairs", path_str(&pairs), "--out", path_str(&out), "--metrics", "chrf,lepod"]);
    assert!(text.contains("chrf: mean"), "{text}");
    assert!(text.contains("|led:multiset|case:mixed|chrf:nc=6,nw=0,beta=2,space=no,eff=yes"), "{text}");
    let ctx = context();
    ctx.register_parquet("scored", path_str(&out), Default::default()).await.unwrap();
    let got = floats(&ctx, "SELECT chrf FROM scored ORDER BY pair_id", 0).await;
    let want = expected("europarl_sample.json");
    for (got, pair) in got.iter().zip(&want) {
        assert_close(*got, pair["tokens"].as_f64().unwrap(), &format!("score, pair {}", pair["pair_id"]));
    }
    let columns = strings(&ctx, "SELECT column_name FROM information_schema.columns WHERE table_name = 'scored'", 0).await;
    assert!(columns.contains(&Some("led".into())) && !columns.contains(&Some("pod".into())), "{columns:?}");

    let error = err(&["score", "--pairs", path_str(&pairs), "--out", path_str(&out), "--metrics", "derp"]);
    assert!(error.contains("metric derp needs an alignments table and an arcs table"), "{error}");
    let error = err(&["score", "--pairs", path_str(&pairs), "--out", path_str(&out), "--metrics", "bleu"]);
    assert!(error.contains("unknown metric `bleu`; score knows lepod, derp, true_score, dep_fit, lm, model_score, chrf"), "{error}");
    let default = ok(&["score", "--pairs", path_str(&pairs), "--out", path_str(&out)]);
    assert!(!default.contains("chrf"), "chrf is opt-in: {default}");
}
