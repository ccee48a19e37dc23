//! `pairmetrics sacrebleu` prints what sacrebleu 2.6.0 prints, byte for byte, on 35 command
//! lines over real WMT23 system outputs (he-en, en-de, en-zh; tests/vectors/sacrebleu_cli, made by
//! scripts/make_sacrebleu_cli_vectors.py): JSON, text and LaTeX, one and several systems, one
//! and two references, sentence scores, BLEU's 13a, intl, zh, char and none tokenizers,
//! --confidence, --paired-bs and --paired-ar (numpy's
//! generator, so sacrebleu's p-values); and numpy's generator draws what numpy draws
//! (tests/vectors/numpy_rng, scripts/make_numpy_rng_vectors.py).

use std::io::Write;
use std::process::{Command, Stdio};

use pairmetrics::stats::numpy_random::NumpyRng;
use serde_json::Value;

use crate::common::*;

fn wmt23() -> std::path::PathBuf {
    root().join("tests/data/wmt23")
}

/// Run `pairmetrics sacrebleu ARGS` in tests/data/wmt23 with `env`, feeding `stdin`.
fn sacrebleu(args: &[String], env: &[(String, String)], stdin: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .arg("sacrebleu")
        .args(args)
        .current_dir(wmt23())
        .env_remove("SACREBLEU_SEED")
        .env_remove("SACREBLEU_FORMAT")
        .envs(env.iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn prints_what_sacrebleu_prints() {
    let text =
        std::fs::read_to_string(root().join("tests/vectors/sacrebleu_cli/cases.json")).unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 35);
    for case in cases {
        let args = strings(&case["args"]);
        let env: Vec<(String, String)> = case["env"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        let output = sacrebleu(&args, &env, "");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            case["stdout"].as_str().unwrap(),
            "sacrebleu {args:?} {env:?}"
        );
    }
}

/// Systems on standard input, tab-separated, are sacrebleu's "System 1", "System 2", ...: the
/// same scores as the files.
#[test]
fn reads_tab_separated_systems_from_standard_input() {
    let a = std::fs::read_to_string(wmt23().join("he-en.hyp.GPT4-5shot.en")).unwrap();
    let b = std::fs::read_to_string(wmt23().join("he-en.hyp.ONLINE-A.en")).unwrap();
    let joined: String = a
        .lines()
        .zip(b.lines())
        .map(|(a, b)| format!("{a}\t{b}\n"))
        .collect();
    let args = |extra: &[&str]| -> Vec<String> {
        ["he-en.ref.refA.en", "-m", "bleu", "ter", "-f", "text"]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let from_stdin = sacrebleu(&args(&[]), &[], &joined);
    assert!(
        from_stdin.status.success(),
        "{}",
        String::from_utf8_lossy(&from_stdin.stderr)
    );
    let from_files = sacrebleu(
        &args(&["-i", "he-en.hyp.GPT4-5shot.en", "he-en.hyp.ONLINE-A.en"]),
        &[],
        "",
    );
    let stdin_text = String::from_utf8(from_stdin.stdout).unwrap();
    let files_text = String::from_utf8(from_files.stdout).unwrap();
    assert!(
        stdin_text.contains("System 1") && stdin_text.contains("System 2"),
        "{stdin_text}"
    );
    let scores = |text: &str| {
        text.lines()
            .filter(|l| l.contains('│'))
            .map(|l| l.split('│').skip(2).collect::<Vec<_>>().join("|"))
            .collect::<Vec<_>>()
    };
    assert_eq!(scores(&stdin_text), scores(&files_text));
}

/// `--num-refs 2` splits one file's lines on tabs: the same as two reference files.
#[test]
fn splits_tab_separated_references() {
    let dir = tempfile::TempDir::new().unwrap();
    let a = std::fs::read_to_string(wmt23().join("he-en.ref.refA.en")).unwrap();
    let b = std::fs::read_to_string(wmt23().join("he-en.ref.refB.en")).unwrap();
    let joined: String = a
        .lines()
        .zip(b.lines())
        .map(|(a, b)| format!("{a}\t{b}\n"))
        .collect();
    let refs = dir.path().join("refs.tsv");
    std::fs::write(&refs, joined).unwrap();
    let run = |refs: &[&str], extra: &[&str]| {
        let args: Vec<String> = refs
            .iter()
            .chain(&["-i", "he-en.hyp.GPT4-5shot.en", "-m", "bleu", "chrf", "ter"])
            .chain(extra)
            .map(|s| s.to_string())
            .collect();
        let output = sacrebleu(&args, &[], "");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let refs = refs.to_str().unwrap();
    assert_eq!(
        run(&[refs], &["--num-refs", "2"]),
        run(&["he-en.ref.refA.en", "he-en.ref.refB.en"], &[])
    );
    assert_eq!(
        run(&[refs], &["-nr", "2"]),
        run(&["he-en.ref.refA.en", "he-en.ref.refB.en"], &[])
    );
}

/// Bad input stops with a message naming what is wrong, and prints no scores.
#[test]
fn refuses_what_sacrebleu_refuses() {
    let dir = tempfile::TempDir::new().unwrap();
    let short = dir.path().join("short.txt");
    std::fs::write(&short, "one line\n").unwrap();
    let short = short.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["he-en.ref.refA.en", "-i", short], "different lengths"),
        // Resamples past what the test can hold: one limit and one message for the drop-in
        // and the SQL functions (it aborted asking for the memory).
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "--confidence",
                "--confidence-n",
                "100000000",
            ],
            "draws is more than the 2^28",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "he-en.hyp.ONLINE-A.en",
                "--paired-bs",
                "--paired-bs-n",
                "1000000000",
            ],
            "draws is more than the 2^28",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "he-en.hyp.ONLINE-A.en",
                "--paired-ar",
                "--paired-ar-n",
                "4000000000",
            ],
            "draws is more than the 2^28",
        ),
        // Nothing on standard input (a decoder that printed nothing): one system of no lines.
        (
            &["he-en.ref.refA.en"],
            "different lengths: System 1 has 0 lines",
        ),
        (&["-i", "he-en.hyp.GPT4-5shot.en"], "no references"),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "--paired-bs",
            ],
            "several systems",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "-m",
                "bleu",
                "ter",
                "-sl",
            ],
            "one metric",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "-tok",
                "ja-mecab",
            ],
            "13a, intl, zh, char or none",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "he-en.hyp.ONLINE-A.en",
                "--confidence",
            ],
            "--paired-bs",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
                "he-en.hyp.GPT4-5shot.en",
            ],
            "names two systems",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "he-en.ref.refB.en",
                "--num-refs",
                "2",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
            ],
            "one reference file",
        ),
        (
            &[
                "he-en.ref.refA.en",
                "--num-refs",
                "2",
                "-i",
                "he-en.hyp.GPT4-5shot.en",
            ],
            "line 1: expected 2",
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let output = sacrebleu(&args, &[], "");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(
            output.stdout.is_empty(),
            "{args:?} printed {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let output = sacrebleu(
        &[
            "he-en.ref.refA.en".to_string(),
            "-i".to_string(),
            "he-en.hyp.GPT4-5shot.en".to_string(),
        ],
        &[("SACREBLEU_SEED".to_string(), "-3".to_string())],
        "",
    );
    assert!(output.status.success(), "the seed is only read by tests");
}

#[test]
fn numpy_generator_draws_what_numpy_draws() {
    let text = std::fs::read_to_string(root().join("tests/vectors/numpy_rng/draws.json")).unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let number = |v: &Value| -> u128 {
        v.as_str()
            .map_or_else(|| v.as_u64().unwrap().into(), |s| s.parse().unwrap())
    };
    for case in vectors["cases"].as_array().unwrap() {
        let seed = number(&case["seed"]);
        let mut rng = NumpyRng::new(seed);
        let raw: Vec<u128> = (0..5).map(|_| rng.next_u64().into()).collect();
        assert_eq!(
            raw,
            case["raw"]
                .as_array()
                .unwrap()
                .iter()
                .map(number)
                .collect::<Vec<_>>(),
            "seed {seed}"
        );
        for choice in case["choice"].as_array().unwrap() {
            let n = number(&choice["n"]) as u64;
            let count: usize = choice["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .product();
            let mut rng = NumpyRng::new(seed);
            let got: Vec<u128> = (0..count).map(|_| rng.below(n).into()).collect();
            assert_eq!(
                got,
                choice["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(number)
                    .collect::<Vec<_>>(),
                "seed {seed}, choice({n})"
            );
        }
        let sequence = &case["bools_then_choice"];
        let mut rng = NumpyRng::new(seed);
        let flips: Vec<u64> = {
            let mut bools = rng.bools();
            (0..3 * 41).map(|_| u64::from(bools.next_bool())).collect()
        };
        assert_eq!(
            flips,
            sequence["bools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect::<Vec<_>>(),
            "seed {seed}"
        );
        let after: Vec<u64> = (0..18).map(|_| rng.below(9)).collect();
        assert_eq!(
            after,
            sequence["choice"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect::<Vec<_>>(),
            "seed {seed}"
        );
    }
}

/// NaN and infinite smoothing values: sacrebleu accepts them and prints `nan`/`inf` in text and
/// `NaN` in JSON (Python's f-strings and json.dumps); the expected bytes are sacrebleu 2.6.0's.
#[test]
fn non_finite_scores_print_as_sacrebleu_prints_them() {
    let dir = tempfile::TempDir::new().unwrap();
    let (r, h) = (dir.path().join("r.txt"), dir.path().join("h.txt"));
    std::fs::write(&r, "a b c d\n").unwrap();
    std::fs::write(&h, "a x y z\n").unwrap();
    let (r, h) = (r.display().to_string(), h.display().to_string());
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "-m",
                "bleu",
                "--smooth-method",
                "add-k",
                "--smooth-value",
                "nan",
            ],
            "{\n \"name\": \"BLEU\",\n \"score\": NaN,\n \"signature\": \"nrefs:1|case:mixed|eff:no|tok:13a|smooth:add-k[nan]|version:2.6.0\",\n \"verbose_score\": \"25.0/nan/nan/nan (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)\",\n \"nrefs\": \"1\",\n \"case\": \"mixed\",\n \"eff\": \"no\",\n \"tok\": \"13a\",\n \"smooth\": \"add-k[nan]\",\n \"version\": \"2.6.0\"\n}\n",
        ),
        (
            &[
                "-m",
                "bleu",
                "chrf",
                "--smooth-method",
                "add-k",
                "--smooth-value",
                "nan",
                "-f",
                "text",
            ],
            "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:add-k[nan]|version:2.6.0 = nan 25.0/nan/nan/nan (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)\n     chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0 = 6.2\n",
        ),
        (
            &[
                "-m",
                "bleu",
                "--smooth-method",
                "add-k",
                "--smooth-value",
                "inf",
                "-f",
                "text",
            ],
            "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:add-k[inf]|version:2.6.0 = nan 25.0/nan/nan/nan (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)\n",
        ),
    ];
    for (flags, expected) in cases {
        let mut args = vec![r.clone(), "-i".to_string(), h.clone()];
        args.extend(flags.iter().map(|s| s.to_string()));
        let output = sacrebleu(&args, &[], "");
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            expected,
            "{flags:?}"
        );
    }
}

/// Negative values sacrebleu's argparse takes (it reads `-1` as a number) are values here too,
/// not unknown flags; the expected lines are sacrebleu 2.6.0's.
#[test]
fn negative_values_are_read_as_sacrebleu_reads_them() {
    let base = [
        "de-en.ref.refA.en",
        "-i",
        "de-en.hyp.ONLINE-B.en",
        "-f",
        "text",
    ];
    for (flags, expected) in [
        (
            ["-m", "chrf", "--chrf-beta", "-1"],
            "chrF-1|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0 = 68.7\n",
        ),
        (
            ["--smooth-method", "floor", "--smooth-value", "-1"],
            "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[-1.00]|version:2.6.0 = 43.7 \
             74.6/51.3/37.8/28.6 (BP = 0.968 ratio = 0.968 hyp_len = 9071 ref_len = 9367)\n",
        ),
    ] {
        let args: Vec<String> = base.iter().chain(&flags).map(|s| s.to_string()).collect();
        let output = sacrebleu(&args, &[], "");
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            expected,
            "{flags:?}"
        );
    }
}
