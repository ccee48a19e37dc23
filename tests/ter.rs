//! TER against sacrebleu 2.6.0 itself: its Tercom tokeniser's text under every option, edits,
//! reference lengths, scores and signatures on hand-made pairs (shifts, the search's candidate
//! limit, references past the beam, several references), corpus and sentence scores of WMT23
//! systems (one and two references), and the SQL functions. Expected values from
//! `scripts/make_ter_vectors.py`; every number must be equal, not close.

use pairmetrics::sacrebleu::ter::{self, Scratch, TerOptions};
use serde_json::Value;

use crate::common::*;

/// sacrebleu's `TER(**config)` arguments.
fn options(config: &Value) -> TerOptions {
    let flag = |key: &str| config.get(key).is_some_and(|v| v.as_bool().unwrap());
    TerOptions {
        normalized: flag("normalized"),
        no_punct: flag("no_punct"),
        asian_support: flag("asian_support"),
        case_sensitive: flag("case_sensitive"),
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

#[test]
fn the_tokeniser_writes_what_sacrebleu_writes() {
    let cases = sacrebleu_vectors("ter", "cases.json");
    let mut out = String::new();
    for case in cases["tokenized"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        for run in case["configs"].as_array().unwrap() {
            ter::tokenize(text, &options(&run["config"]), &mut out);
            assert_eq!(
                out,
                run["tokens"].as_str().unwrap(),
                "{text:?} {}",
                run["config"]
            );
        }
    }
}

#[test]
fn hand_made_pairs_equal_sacrebleu() {
    let cases = sacrebleu_vectors("ter", "cases.json");
    let mut scratch = Scratch::default();
    for case in cases["pairs"].as_array().unwrap() {
        let options = options(&case["config"]);
        let (hyp, refs) = (case["hyp"].as_str().unwrap(), strings_of(&case["refs"]));
        let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
        let what = format!("{hyp:?} {refs:?} {}", case["config"]);
        let mut stats = [0; 3];
        ter::segment_stats(hyp, &refs, &options, &mut scratch, &mut stats).unwrap();
        assert_eq!(stats[0], case["edits"].as_u64().unwrap(), "{what}: edits");
        assert_eq!(
            (stats[1] as f64 / stats[2] as f64).to_bits(),
            float(&case["ref_length"]).to_bits(),
            "{what}: length"
        );
        let score = ter::sentence_score(&stats);
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
        assert_eq!(
            TerOptions::default().parse(case["signature"].as_str().unwrap()),
            Ok(options),
            "{what}"
        );
    }
}

#[test]
fn wmt23_systems_equal_sacrebleu_corpus_and_sentence_scores() {
    let corpora = sacrebleu_vectors("ter", "wmt23.json");
    let mut checked = (0, 0);
    for run in corpora["corpora"].as_array().unwrap() {
        let options = options(&run["config"]);
        let refs: Vec<Vec<String>> = strings_of(&run["refs"])
            .iter()
            .map(|f| wmt23_lines(f))
            .collect();
        let hyps = wmt23_lines(run["system"].as_str().unwrap());
        let what = format!("{} {} {}", run["set"], run["system"], run["config"]);
        let mut scratch = Scratch::default();
        let (mut total, mut stats) = (Vec::new(), [0; 3]);
        for (i, hyp) in hyps.iter().enumerate() {
            let line: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
            ter::segment_stats(hyp, &line, &options, &mut scratch, &mut stats).unwrap();
            ter::add_stats(&mut total, &stats);
            if let Some(sentences) = run.get("sentences") {
                let (got, want) = (ter::sentence_score(&stats), float(&sentences[i]));
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{what} line {}: {got} against {want}",
                    i + 1
                );
                checked.1 += 1;
            }
        }
        if run.get("score").is_some() {
            assert_eq!(total[0], run["edits"].as_u64().unwrap(), "{what}: edits");
            let got = ter::corpus_score(&total);
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
        (5 * 4, 5 * 200),
        "corpus scores and sentence scores checked"
    );
}

#[tokio::test]
async fn sql_functions_equal_sacrebleu_on_wmt23() {
    let ctx = context();
    let corpora = sacrebleu_vectors("ter", "wmt23.json");
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
            ", 'norm:yes|case:lc'",
            serde_json::json!({"normalized": true}),
        ),
    ] {
        let sql = format!(
            "SELECT corpus_ter(hyp, refs{options}) FROM he_en GROUP BY system ORDER BY system"
        );
        let want: Vec<Value> = systems
            .iter()
            .map(|s| run(s, config.clone(), "score"))
            .collect();
        assert_eq!(bits(floats(&ctx, &sql, 0).await), want_bits(&want), "{sql}");
    }
    for system in systems {
        let sql = format!("SELECT sentence_ter(hyp, refs) FROM he_en WHERE system = '{system}'");
        let want = run(system, serde_json::json!({}), "sentences");
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
        one("SELECT sentence_ter('a b c', 'a c b')").await,
        [Some(100.0 * (1.0 / 3.0))]
    );
    assert_eq!(
        one("SELECT sentence_ter('a b', [NULL, NULL])").await,
        [None],
        "no reference left"
    );
    assert_eq!(
        one("SELECT sentence_ter('a b', '')").await,
        [Some(100.0)],
        "edits against an empty reference"
    );
    assert_eq!(
        one("SELECT sentence_ter(['A', 'b'], ['a', 'b'], 'case:mixed')").await,
        [Some(50.0)]
    );
    let stats = strings(
        &ctx,
        "SELECT CAST(ter_stats('a b c', ['a c b', 'a b c']) AS VARCHAR)",
        0,
    )
    .await;
    assert_eq!(stats, [Some("[0, 6, 2]".to_string())]);
    assert_eq!(
        one("SELECT corpus_ter(hyp, hyp) FROM (SELECT 'a' AS hyp) WHERE hyp = 'b'").await,
        [None],
        "no rows"
    );
    // rows with different numbers of references: mean lengths 3 and 3.5, 2 edits
    let rows = "(VALUES ('a b c', ['a c b']), ('x b c', ['a b c', 'a b c d'])) AS t(hyp, refs)";
    assert_eq!(
        floats(
            &ctx,
            &format!("SELECT corpus_ter(hyp, refs) FROM {rows}"),
            0
        )
        .await,
        [Some(100.0 * (2.0 / 6.5))]
    );
    let error = ctx
        .sql("SELECT corpus_ter('a', 'a', 'norm:maybe')")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("TER option 'norm:maybe' is not one of"),
        "{error}"
    );
}

/// TER's matrix is stored as its beam's bands, so its memory is linear in the segment: two
/// 60,000-word segments (whose full matrix is 32 GB; 120,000 words aborted the process asking
/// for 115 GB) score in a process limited to 4 GB of address space, to sacrebleu's value: two
/// edits whatever the length (one word deleted at the front, one inserted at the end), as
/// sacrebleu 2.6.0 gives at 2,000 and 6,000 words a side.
#[test]
fn long_segments_score_in_bounded_memory() {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"));
    command.args([
        "sql",
        "--format",
        "csv",
        "SELECT sentence_ter(repeat('ab cd ', 30000), repeat('cd ab ', 30000)) AS t",
    ]);
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // 2 edits over 60,000 reference words, in percent.
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "t\n0.0033333333333333335\n"
    );
    let short = ok(&[
        "sql",
        "--format",
        "csv",
        "SELECT sentence_ter(trim(repeat('ab cd ', 1000)), trim(repeat('cd ab ', 1000))) AS t",
    ]);
    // sacrebleu 2.6.0: TER().sentence_score(...).score == 0.1
    assert_eq!(short, "t\n0.1\n");
}
