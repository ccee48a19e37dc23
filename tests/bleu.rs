//! BLEU against sacrebleu 2.6.0 itself: its tokenised text, statistics, scores and signatures on
//! hand-made cases, and corpus and sentence scores of WMT23 systems (one and two references),
//! expected values from `scripts/make_bleu_vectors.py`. Every number must be equal, not close.

use pairmetrics::metrics::bleu::{self, BleuOptions, Scratch, Smoothing, Tokenizer};
use serde_json::Value;

use crate::common::*;

fn expected(file: &str) -> Value {
    let text = std::fs::read_to_string(vectors().join("bleu").join(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Python's repr of a float: the shortest text that reads back as the same f64.
fn float(value: &Value) -> f64 {
    value.as_str().unwrap().parse().unwrap()
}

/// sacrebleu's `BLEU(**config)` arguments.
fn options(config: &Value) -> BleuOptions {
    let mut options = BleuOptions::default();
    if let Some(name) = config.get("tokenize") {
        options.tokenizer = name.as_str().unwrap().parse::<Tokenizer>().unwrap();
    }
    options.lowercase = config.get("lowercase").is_some_and(|v| v.as_bool().unwrap());
    options.effective_order = config.get("effective_order").is_some_and(|v| v.as_bool().unwrap());
    if let Some(order) = config.get("max_ngram_order") {
        options.max_order = order.as_u64().unwrap() as usize;
    }
    if let Some(method) = config.get("smooth_method") {
        options.smoothing = Smoothing::new(method.as_str().unwrap(), config.get("smooth_value").map(|v| v.as_f64().unwrap())).unwrap();
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
    let counts: Vec<u64> = want["counts"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let totals: Vec<u64> = want["totals"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    // add-k adds to the counts sacrebleu reports; the statistics themselves are before it
    if !matches!(options.smoothing, Smoothing::AddK(_)) {
        assert_eq!(&stats[2..2 + order], counts, "{what}: matches");
        assert_eq!(&stats[2 + order..], totals, "{what}: totals");
    }
    assert_eq!((stats[0], stats[1]), (want["sys_len"].as_u64().unwrap(), want["ref_len"].as_u64().unwrap()), "{what}: lengths");
    let got = bleu::bleu(stats, options);
    assert_eq!(got.score.to_bits(), float(&want["score"]).to_bits(), "{what}: score {} against {}", got.score, float(&want["score"]));
    assert_eq!(got.bp.to_bits(), float(&want["bp"]).to_bits(), "{what}: bp");
    let precisions: Vec<f64> = want["precisions"].as_array().unwrap().iter().map(float).collect();
    assert_eq!(got.precisions, precisions, "{what}: precisions");
    assert_eq!(options.signature(Some(nrefs)), want["signature"].as_str().unwrap(), "{what}: signature");
}

#[test]
fn the_tokenisers_write_what_sacrebleu_writes() {
    let cases = expected("cases.json");
    let mut out = String::new();
    for case in cases["tokenized"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        for (key, tokenizer, lowercase) in [("13a", "13a", false), ("13a-lc", "13a", true), ("char", "char", false), ("none", "none", false)] {
            let options = BleuOptions { tokenizer: tokenizer.parse().unwrap(), lowercase, ..BleuOptions::default() };
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
        let refs: Vec<String> = case["refs"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
        let hyps = [case["hyp"].as_str().unwrap().to_string()];
        let refs: Vec<Vec<String>> = refs.into_iter().map(|r| vec![r]).collect();
        let stats = corpus_stats(&hyps, &refs, &options);
        check(case, &stats, &options, refs.len(), &format!("{} / {}", case["hyp"], case["config"]));
    }
}

fn lines(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("tests/data/wmt23").join(name)).unwrap();
    text.split('\n').map(str::to_string).collect::<Vec<_>>().split_last().map(|(last, rest)| {
        assert!(last.is_empty(), "{name} ends with a newline");
        rest.to_vec()
    }).unwrap()
}

#[test]
fn wmt23_systems_equal_sacrebleu_corpus_and_sentence_scores() {
    let corpora = expected("wmt23.json");
    let mut checked = (0, 0);
    for run in corpora["corpora"].as_array().unwrap() {
        let options = options(&run["config"]);
        let refs: Vec<Vec<String>> = run["refs"].as_array().unwrap().iter().map(|r| lines(r.as_str().unwrap())).collect();
        let hyps = lines(run["system"].as_str().unwrap());
        let what = format!("{} {} {}", run["set"], run["system"], run["config"]);
        if let Some(sentences) = run.get("sentences") {
            let mut scratch = Scratch::default();
            let mut stats = vec![0; options.stats_len()];
            for (i, (hyp, want)) in hyps.iter().zip(sentences.as_array().unwrap()).enumerate() {
                let refs: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
                bleu::segment_stats(hyp, &refs, &options, &mut scratch, &mut stats).unwrap();
                let got = bleu::bleu(&stats, &options).score;
                assert_eq!(got.to_bits(), float(want).to_bits(), "{what} line {}: {got} against {}", i + 1, float(want));
                checked.1 += 1;
            }
        } else {
            check(run, &corpus_stats(&hyps, &refs, &options), &options, refs.len(), &what);
            checked.0 += 1;
        }
    }
    assert_eq!(checked, (5 * 14, 5 * 4 * 200), "corpus scores and sentence scores checked");
}
