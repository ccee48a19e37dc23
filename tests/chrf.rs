//! chrF and chrF++ against sacrebleu 2.6.0 itself: `chrf` with its defaults on hand-made cases and
//! every pair of the bundled Europarl sample; every option's statistics, score and signature on
//! hand-made pairs; corpus and sentence scores of WMT23 systems (one and two references); the SQL
//! functions. Expected values from `scripts/make_chrf_vectors.py`; the new ones equal to the bit.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray};
use pairmetrics::sacrebleu::chrf::{self, ChrfOptions, Scratch};
use serde_json::Value;

use crate::common::*;

/// sacrebleu computes in the same order; allow for nothing but the last bits.
const TOLERANCE: f64 = 1e-9;

fn expected(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(vectors().join("chrf").join(file)).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn assert_close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: NULL, expected {want}"));
    assert!(
        (got - want).abs() <= TOLERANCE,
        "{what}: {got}, sacrebleu {want}"
    );
}

#[tokio::test]
async fn hand_made_cases_equal_sacrebleu() {
    let ctx = context();
    let cases = expected("cases.json");
    let column = |key: &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            cases.iter().map(|c| c[key].as_str().unwrap()),
        ))
    };
    register(
        &ctx,
        "cases",
        batch(vec![("hyp", column("hyp")), ("ref", column("ref"))]),
    );
    let text = floats(&ctx, "SELECT chrf(hyp, ref) FROM cases", 0).await;
    let tokens = floats(
        &ctx,
        "SELECT chrf(tokenize(hyp), tokenize(ref)) FROM cases",
        0,
    )
    .await;
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
    ctx.register_parquet("pairs", path_str(&pairs), Default::default())
        .await
        .unwrap();
    let sql = "SELECT chrf(tgt, src), chrf(tgt_text, src_text) FROM pairs ORDER BY pair_id";
    let (tokens, text) = (floats(&ctx, sql, 0).await, floats(&ctx, sql, 1).await);
    let want = expected("europarl_sample.json");
    assert_eq!(tokens.len(), want.len());
    for ((pair, tokens), text) in want.iter().zip(tokens).zip(text) {
        let id = &pair["pair_id"];
        assert_close(
            tokens,
            pair["tokens"].as_f64().unwrap(),
            &format!("pair {id} tokens"),
        );
        assert_close(
            text,
            pair["text"].as_f64().unwrap(),
            &format!("pair {id} text"),
        );
    }
}

#[tokio::test]
async fn nulls_give_null_and_kinds_must_match() {
    let ctx = context();
    let rows = [
        Some(vec![Some("a"), Some("b")]),
        None,
        Some(vec![Some("a"), None]),
    ];
    register(
        &ctx,
        "t",
        batch(vec![
            ("hyp", token_lists(&rows)),
            ("ref", token_lists(&rows)),
        ]),
    );
    let got = floats(&ctx, "SELECT chrf(hyp, ref) FROM t", 0).await;
    assert_eq!(got, vec![Some(100.0), None, None]);
    assert_eq!(
        floats(&ctx, "SELECT chrf(NULL, 'abc')", 0).await,
        vec![None]
    );
    let mixed = ctx
        .sql("SELECT chrf(hyp, 'a b') FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        mixed.contains("chrf: argument `hyp` must be a string"),
        "{mixed}"
    );
}

/// `score --metrics` adds chrf, bleu and ter (tgt against src), the same values as the SQL
/// functions, with sacrebleu's signatures; and names what a metric needs when its inputs are
/// missing.
#[tokio::test]
async fn score_adds_sacrebleus_metrics_when_asked() {
    let dir = tempfile::TempDir::new().unwrap();
    let out = dir.path().join("scored.parquet");
    let pairs = sample().join("pairs.parquet");
    let text = ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out),
        "--metrics",
        "ter,chrf,lepod,bleu",
    ]);
    assert!(
        text.contains("chrf: mean") && text.contains("bleu: mean") && text.contains("ter: mean"),
        "{text}"
    );
    let signature = "|led:multiset|case:mixed\
        |chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0\
        |BLEU|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0\
        |TER|nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0";
    assert!(text.contains(signature), "{text}");
    let ctx = context();
    ctx.register_parquet("scored", path_str(&out), Default::default())
        .await
        .unwrap();
    let got = floats(&ctx, "SELECT chrf FROM scored ORDER BY pair_id", 0).await;
    let want = expected("europarl_sample.json");
    for (got, pair) in got.iter().zip(&want) {
        assert_close(
            *got,
            pair["tokens"].as_f64().unwrap(),
            &format!("score, pair {}", pair["pair_id"]),
        );
    }
    ctx.register_parquet("pairs", path_str(&pairs), Default::default())
        .await
        .unwrap();
    let sql = "SELECT (s.bleu IS NOT DISTINCT FROM sentence_bleu(p.tgt, p.src)) AND (s.ter IS NOT DISTINCT FROM sentence_ter(p.tgt, p.src)) \
               FROM scored s JOIN pairs p USING (pair_id)";
    let equal = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let equal = equal.iter().flat_map(|b| {
        b.column(0)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::BooleanArray>()
            .unwrap()
            .iter()
    });
    assert!(
        equal.into_iter().all(|e| e == Some(true)),
        "score's bleu and ter are the SQL functions'"
    );
    let columns = strings(
        &ctx,
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'scored'",
        0,
    )
    .await;
    assert!(
        columns.contains(&Some("led".into())) && !columns.contains(&Some("pod".into())),
        "{columns:?}"
    );

    let error = err(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out),
        "--metrics",
        "derp",
    ]);
    assert!(
        error.contains("metric derp needs an alignments table and an arcs table"),
        "{error}"
    );
    let error = err(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out),
        "--metrics",
        "meteor",
    ]);
    assert!(error.contains("unknown metric `meteor`; score knows lepod, derp, true_score, dep_fit, lm, model_score, langid, lingua_lid, fasttext_lid, hardrules, chrf, bleu, ter"), "{error}");
    let default = ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out),
    ]);
    assert!(
        !default.contains("chrf") && !default.contains("bleu") && !default.contains("ter:"),
        "sacrebleu's metrics are opt-in: {default}"
    );
}

/// sacrebleu's `CHRF(**config)` arguments.
fn options(config: &Value) -> ChrfOptions {
    let number = |key: &str, default: usize| {
        config
            .get(key)
            .map_or(default, |v| v.as_u64().unwrap() as usize)
    };
    let flag = |key: &str| config.get(key).is_some_and(|v| v.as_bool().unwrap());
    ChrfOptions {
        char_order: number("char_order", 6),
        word_order: number("word_order", 0),
        beta: number("beta", 2) as i32,
        lowercase: flag("lowercase"),
        whitespace: flag("whitespace"),
        eps_smoothing: flag("eps_smoothing"),
    }
}

fn strings_of(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The summed statistics of a corpus: each segment against its references (one per file).
fn corpus_stats(hyps: &[String], refs: &[Vec<String>], options: &ChrfOptions) -> Vec<u64> {
    let mut scratch = Scratch::default();
    let (mut total, mut segment) = (vec![0; options.stats_len()], vec![0; options.stats_len()]);
    for (i, hyp) in hyps.iter().enumerate() {
        let refs: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
        chrf::segment_stats(hyp, &refs, options, &mut scratch, &mut segment).unwrap();
        chrf::add_stats(&mut total, &segment);
    }
    total
}

#[test]
fn every_option_equals_sacrebleu_on_hand_made_pairs() {
    let cases = sacrebleu_vectors("chrf", "options.json");
    let mut scratch = Scratch::default();
    for case in cases["pairs"].as_array().unwrap() {
        let options = options(&case["config"]);
        let (hyp, refs) = (case["hyp"].as_str().unwrap(), strings_of(&case["refs"]));
        let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
        let what = format!("{hyp:?} {refs:?} {}", case["config"]);
        let mut stats = vec![0; options.stats_len()];
        chrf::segment_stats(hyp, &refs, &options, &mut scratch, &mut stats).unwrap();
        let want: Vec<u64> = case["stats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(stats, want, "{what}: statistics");
        let score = chrf::f_score(&stats, &options);
        assert_eq!(
            score.to_bits(),
            float(&case["score"]).to_bits(),
            "{what}: {score} against {}",
            case["score"]
        );
        assert_eq!(
            options.signature(Some(refs.len())),
            case["signature"].as_str().unwrap(),
            "{what}"
        );
        assert_eq!(options.name(), case["name"].as_str().unwrap(), "{what}");
        assert_eq!(
            ChrfOptions::default()
                .parse(case["signature"].as_str().unwrap())
                .map(|o| o.signature(Some(refs.len())))
                .unwrap(),
            case["signature"].as_str().unwrap()
        );
    }
}

#[test]
fn wmt23_systems_equal_sacrebleu_corpus_and_sentence_scores() {
    let corpora = sacrebleu_vectors("chrf", "wmt23.json");
    let mut checked = (0, 0);
    for run in corpora["corpora"].as_array().unwrap() {
        let options = options(&run["config"]);
        let refs: Vec<Vec<String>> = strings_of(&run["refs"])
            .iter()
            .map(|f| wmt23_lines(f))
            .collect();
        let hyps = wmt23_lines(run["system"].as_str().unwrap());
        let what = format!("{} {} {}", run["set"], run["system"], run["config"]);
        if let Some(sentences) = run.get("sentences") {
            let mut scratch = Scratch::default();
            for (i, (hyp, want)) in hyps.iter().zip(sentences.as_array().unwrap()).enumerate() {
                let refs: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
                let got = chrf::sentence(hyp, &refs, &options, &mut scratch).unwrap();
                assert_eq!(
                    got.to_bits(),
                    float(want).to_bits(),
                    "{what} line {}: {got} against {}",
                    i + 1,
                    float(want)
                );
                checked.1 += 1;
            }
        } else {
            let got = chrf::f_score(&corpus_stats(&hyps, &refs, &options), &options);
            assert_eq!(
                got.to_bits(),
                float(&run["score"]).to_bits(),
                "{what}: {got} against {}",
                run["score"]
            );
            assert_eq!(
                options.signature(Some(refs.len())),
                run["signature"].as_str().unwrap(),
                "{what}"
            );
            checked.0 += 1;
        }
    }
    assert_eq!(
        checked,
        (5 * 5, 5 * 2 * 200),
        "corpus scores and sentence scores checked"
    );
}

#[tokio::test]
async fn sql_functions_equal_sacrebleu_on_wmt23() {
    let ctx = context();
    let corpora = sacrebleu_vectors("chrf", "wmt23.json");
    let runs = corpora["corpora"].as_array().unwrap();
    let run = |system: &str, config: Value, key: &str| -> Value {
        let found = runs
            .iter()
            .find(|r| r["system"] == system && r["config"] == config && r.get(key).is_some());
        found.unwrap_or_else(|| panic!("{system} {config}"))[key].clone()
    };
    let systems = ["he-en.hyp.GPT4-5shot.en", "he-en.hyp.ONLINE-A.en"];
    register_wmt23(
        &ctx,
        "he_en",
        &systems,
        &["he-en.ref.refA.en", "he-en.ref.refB.en"],
    );
    let bits = |values: Vec<Option<f64>>| {
        values
            .into_iter()
            .map(|v| v.unwrap().to_bits())
            .collect::<Vec<_>>()
    };
    let want_bits = |values: &[Value]| {
        values
            .iter()
            .map(|v| float(v).to_bits())
            .collect::<Vec<_>>()
    };
    for (options, config) in [
        ("", serde_json::json!({})),
        (
            ", 'nw:2|case:lc'",
            serde_json::json!({"word_order": 2, "lowercase": true}),
        ),
    ] {
        let sql = format!(
            "SELECT corpus_chrf(hyp, refs{options}) FROM he_en GROUP BY system ORDER BY system"
        );
        let want: Vec<Value> = systems
            .iter()
            .map(|s| run(s, config.clone(), "score"))
            .collect();
        assert_eq!(bits(floats(&ctx, &sql, 0).await), want_bits(&want), "{sql}");
    }
    for system in systems {
        let sql = format!("SELECT chrf(hyp, refs, 'nw:2') FROM he_en WHERE system = '{system}'");
        let want = run(system, serde_json::json!({"word_order": 2}), "sentences");
        assert_eq!(
            bits(floats(&ctx, &sql, 0).await),
            want_bits(want.as_array().unwrap()),
            "{system}"
        );
    }
}

#[tokio::test]
async fn sql_functions_at_the_edges() {
    let ctx = context();
    let one = |sql: &'static str| {
        let ctx = ctx.clone();
        async move { floats(&ctx, sql, 0).await }
    };
    assert_eq!(
        one("SELECT chrf('a b', [NULL, NULL])").await,
        [None],
        "no reference left"
    );
    assert_eq!(
        one("SELECT chrf('a b', [NULL, 'a b'])").await,
        [Some(100.0)]
    );
    assert_eq!(
        one("SELECT chrf(['the', 'cat'], ['the', 'cat'], 'nw:2')").await,
        [Some(100.0)]
    );
    let stats = strings(
        &ctx,
        "SELECT CAST(chrf_stats('ab', 'abc', 'nc:2') AS VARCHAR)",
        0,
    )
    .await;
    assert_eq!(stats, [Some("[2, 3, 2, 1, 2, 1]".to_string())]);
    assert_eq!(
        one("SELECT corpus_chrf(hyp, hyp) FROM (SELECT 'a' AS hyp) WHERE hyp = 'b'").await,
        [None],
        "no rows"
    );
    // a corpus score is the score of summed statistics, not a mean of sentence scores
    let rows = "(VALUES ('ab', 'abc'), ('abcdef', 'abcdef')) AS t(hyp, ref)";
    let corpus = floats(
        &ctx,
        &format!("SELECT corpus_chrf(hyp, ref, 'nc:2') FROM {rows}"),
        0,
    )
    .await[0]
        .unwrap();
    let mean = floats(
        &ctx,
        &format!("SELECT avg(chrf(hyp, ref, 'nc:2')) FROM {rows}"),
        0,
    )
    .await[0]
        .unwrap();
    assert_ne!(corpus, mean);
    let error = ctx
        .sql("SELECT corpus_chrf('a', 'a', 'nw:x')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("chrF option 'nw:x' is not one of"),
        "{error}"
    );
    let error = ctx
        .sql("SELECT chrf('a', 'a', 'tok:13a')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("chrF option 'tok:13a'"), "{error}");
}
