//! BLEU against sacrebleu 2.6.0 itself: its tokenised text, statistics, scores and signatures on
//! hand-made cases, and corpus and sentence scores of WMT23 systems (one and two references),
//! expected values from `scripts/make_bleu_vectors.py`. Every number must be equal, not close.

use pairmetrics::sacrebleu::bleu::{self, BleuOptions, Scratch, Smoothing, Tokenizer};
use serde_json::Value;

use crate::common::*;

fn expected(file: &str) -> Value {
    sacrebleu_vectors("bleu", file)
}

/// sacrebleu's `BLEU(**config)` arguments.
fn options(config: &Value) -> BleuOptions {
    let mut options = BleuOptions::default();
    if let Some(name) = config.get("tokenize") {
        options.tokenizer = name.as_str().unwrap().parse::<Tokenizer>().unwrap();
    }
    options.lowercase = config
        .get("lowercase")
        .is_some_and(|v| v.as_bool().unwrap());
    options.effective_order = config
        .get("effective_order")
        .is_some_and(|v| v.as_bool().unwrap());
    if let Some(order) = config.get("max_ngram_order") {
        options.max_order = order.as_u64().unwrap() as usize;
    }
    if let Some(method) = config.get("smooth_method") {
        options.smoothing = Smoothing::new(
            method.as_str().unwrap(),
            config.get("smooth_value").map(|v| v.as_f64().unwrap()),
        )
        .unwrap();
    }
    options
}

fn corpus_stats(hyps: &[String], refs: &[Vec<String>], options: &BleuOptions) -> Vec<u64> {
    let mut scratch = Scratch::default();
    let (mut total, mut segment) = (vec![0; options.stats_len()], vec![0; options.stats_len()]);
    for (i, hyp) in hyps.iter().enumerate() {
        let refs: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
        bleu::segment_stats(hyp, &refs, options, &mut scratch, &mut segment).unwrap();
        bleu::add_stats(&mut total, &segment);
    }
    total
}

/// The statistics, score and signature of one sacrebleu result.
fn check(want: &Value, stats: &[u64], options: &BleuOptions, nrefs: usize, what: &str) {
    let order = options.max_order;
    let counts: Vec<u64> = want["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let totals: Vec<u64> = want["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // add-k adds to the counts sacrebleu reports; the statistics themselves are before it
    if !matches!(options.smoothing, Smoothing::AddK(_)) {
        assert_eq!(&stats[2..2 + order], counts, "{what}: matches");
        assert_eq!(&stats[2 + order..], totals, "{what}: totals");
    }
    assert_eq!(
        (stats[0], stats[1]),
        (
            want["sys_len"].as_u64().unwrap(),
            want["ref_len"].as_u64().unwrap()
        ),
        "{what}: lengths"
    );
    let got = bleu::bleu(stats, options);
    assert_eq!(
        got.score.to_bits(),
        float(&want["score"]).to_bits(),
        "{what}: score {} against {}",
        got.score,
        float(&want["score"])
    );
    assert_eq!(got.bp.to_bits(), float(&want["bp"]).to_bits(), "{what}: bp");
    let precisions: Vec<f64> = want["precisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(float)
        .collect();
    assert_eq!(got.precisions, precisions, "{what}: precisions");
    assert_eq!(
        options.signature(Some(nrefs)),
        want["signature"].as_str().unwrap(),
        "{what}: signature"
    );
}

#[test]
fn the_tokenisers_write_what_sacrebleu_writes() {
    let cases = expected("cases.json");
    let mut out = String::new();
    for case in cases["tokenized"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        for (key, tokenizer, lowercase) in [
            ("13a", "13a", false),
            ("13a-lc", "13a", true),
            ("char", "char", false),
            ("none", "none", false),
            ("intl", "intl", false),
            ("zh", "zh", false),
        ] {
            let options = BleuOptions {
                tokenizer: tokenizer.parse().unwrap(),
                lowercase,
                ..BleuOptions::default()
            };
            bleu::tokenize(text, &options, &mut out);
            assert_eq!(out, case[key].as_str().unwrap(), "{key} of {text:?}");
        }
    }
}

#[test]
fn hand_made_pairs_equal_sacrebleu_under_every_option() {
    let cases = expected("cases.json");
    for case in cases["pairs"].as_array().unwrap() {
        let options = options(&case["config"]);
        let refs: Vec<String> = case["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        let hyps = [case["hyp"].as_str().unwrap().to_string()];
        let refs: Vec<Vec<String>> = refs.into_iter().map(|r| vec![r]).collect();
        let stats = corpus_stats(&hyps, &refs, &options);
        check(
            case,
            &stats,
            &options,
            refs.len(),
            &format!("{} / {}", case["hyp"], case["config"]),
        );
    }
}

#[test]
fn wmt23_systems_equal_sacrebleu_corpus_and_sentence_scores() {
    let corpora = expected("wmt23.json");
    let mut checked = (0, 0);
    for run in corpora["corpora"].as_array().unwrap() {
        let options = options(&run["config"]);
        let refs: Vec<Vec<String>> = run["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| wmt23_lines(r.as_str().unwrap()))
            .collect();
        let hyps = wmt23_lines(run["system"].as_str().unwrap());
        let what = format!("{} {} {}", run["set"], run["system"], run["config"]);
        if let Some(sentences) = run.get("sentences") {
            let mut scratch = Scratch::default();
            let mut stats = vec![0; options.stats_len()];
            for (i, (hyp, want)) in hyps.iter().zip(sentences.as_array().unwrap()).enumerate() {
                let refs: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
                bleu::segment_stats(hyp, &refs, &options, &mut scratch, &mut stats).unwrap();
                let got = bleu::bleu(&stats, &options).score;
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
            check(
                run,
                &corpus_stats(&hyps, &refs, &options),
                &options,
                refs.len(),
                &what,
            );
            checked.0 += 1;
        }
    }
    assert_eq!(
        checked,
        (6 * 16, 6 * 6 * 200),
        "corpus scores and sentence scores checked"
    );
}

#[tokio::test]
async fn sql_functions_equal_sacrebleu_on_wmt23() {
    let ctx = context();
    let corpora = expected("wmt23.json");
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

    // corpus scores per system, with two references as a list; and with options
    for (options, config) in [
        ("", serde_json::json!({"tokenize": "13a"})),
        (
            ", 'tok:char|case:lc'",
            serde_json::json!({"tokenize": "char", "lowercase": true}),
        ),
    ] {
        let sql = format!(
            "SELECT corpus_bleu(hyp, refs{options}) FROM he_en GROUP BY system ORDER BY system"
        );
        let want: Vec<Value> = systems
            .iter()
            .map(|s| run(s, config.clone(), "score"))
            .collect();
        assert_eq!(bits(floats(&ctx, &sql, 0).await), want_bits(&want), "{sql}");
    }
    // sentence scores with sentence_bleu's defaults
    for system in systems {
        let sql = format!("SELECT sentence_bleu(hyp, refs) FROM he_en WHERE system = '{system}'");
        let want = run(
            system,
            serde_json::json!({"tokenize": "13a", "effective_order": true}),
            "sentences",
        );
        assert_eq!(
            bits(floats(&ctx, &sql, 0).await),
            want_bits(want.as_array().unwrap()),
            "{system}"
        );
    }
    // the statistics summed in SQL give the aggregate's score
    let summed = strings(
        &ctx,
        "SELECT CAST(count(bleu_stats(hyp, ref)) AS VARCHAR) FROM he_en",
        0,
    )
    .await;
    assert_eq!(summed, [Some("400".to_string())]);
}

#[tokio::test]
async fn sql_functions_at_the_edges() {
    let ctx = context();
    let one = |sql: &str| {
        let ctx = ctx.clone();
        let sql = sql.to_string();
        async move { floats(&ctx, &sql, 0).await }
    };
    // sacrebleu's own value: exp(mean of four ln 100)
    assert_eq!(
        one("SELECT sentence_bleu('the cat sat on the mat', 'the cat sat on the mat')").await,
        [Some(100.00000000000004)]
    );
    assert_eq!(
        one("SELECT sentence_bleu('the cat sat on the mat', 'the cat sat on a mat')").await,
        [Some(53.7284965911771)]
    );
    assert_eq!(one("SELECT sentence_bleu(NULL, 'a')").await, [None]);
    assert_eq!(
        one("SELECT sentence_bleu('a', [NULL, NULL])").await,
        [None],
        "no reference left"
    );
    assert_eq!(
        one("SELECT sentence_bleu('a b', [NULL, 'a b'])").await,
        one("SELECT sentence_bleu('a b', 'a b')").await
    );
    let stats = strings(
        &ctx,
        "SELECT CAST(bleu_stats('the cat sat', 'the cat sat down') AS VARCHAR)",
        0,
    )
    .await;
    assert_eq!(stats, [Some("[3, 4, 3, 2, 1, 0, 3, 2, 1, 0]".to_string())]);
    assert_eq!(
        one("SELECT corpus_bleu(hyp, hyp) FROM (SELECT 'a' AS hyp) WHERE hyp = 'b'").await,
        [None],
        "no rows"
    );
    let error = ctx
        .sql("SELECT sentence_bleu('a', 'a', 'tok:ja-mecab')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("'ja-mecab' tokenizer is not supported"),
        "{error}"
    );
    let error = ctx
        .sql("SELECT corpus_bleu('a', 'a', 'smooth:add-one')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("unknown BLEU smoothing 'add-one'"),
        "{error}"
    );
}
