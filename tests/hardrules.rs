//! bicleaner-hardrules 2.10.8 against its own output (tests/data/hardrules, made by
//! scripts/make_hardrules_vectors.py): `pairmetrics hardrules` byte for byte over WMT23 test
//! sets in six language pairs, adversarial pairs in four and odd file shapes, with five flag
//! sets; the `hardrules` SQL function against the tool's `-A` reasons.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray};

use crate::common::{self, root};

fn data() -> PathBuf {
    root().join("tests/data/hardrules")
}

/// (input, arguments, expected output file) of every case.
fn cases() -> Vec<(String, Vec<String>, String)> {
    std::fs::read_to_string(data().join("cases.tsv"))
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let args = fields[1].split(' ').map(str::to_string).collect();
            (fields[0].to_string(), args, fields[2].to_string())
        })
        .collect()
}

fn hardrules(dir: &Path, args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .current_dir(dir)
        .arg("hardrules")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_case_prints_what_bicleaner_hardrules_prints() {
    let cases = cases();
    assert_eq!(cases.len(), 52);
    for (i, (input, args, expected)) in cases.iter().enumerate() {
        let mut args = args.clone();
        args.extend(["-q".to_string(), input.clone()]);
        // Half of the cases through one thread and a file, half through every core and stdout.
        let out_dir = tempfile::tempdir().unwrap();
        let target = out_dir.path().join("out.txt");
        if i % 2 == 0 {
            args.extend(["-p".into(), "1".into(), common::path_str(&target).into()]);
        }
        let out = hardrules(&data(), &args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = if i % 2 == 0 {
            std::fs::read(&target).unwrap()
        } else {
            out.stdout
        };
        let want = std::fs::read(data().join("expected").join(expected)).unwrap();
        if printed != want {
            let (printed, want) = (
                String::from_utf8_lossy(&printed),
                String::from_utf8_lossy(&want),
            );
            let line = printed.lines().zip(want.lines()).position(|(a, b)| a != b);
            panic!("{expected} ({args:?}) differs at line {line:?}");
        }
    }
}

#[test]
fn standard_input_and_a_summary() {
    let input = std::fs::read(data().join("shapes.tsv")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(["hardrules", "-s", "en", "-t", "fr"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&input).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let expected = cases().into_iter().find(|c| c.0 == "shapes.tsv").unwrap().2;
    assert_eq!(
        out.stdout,
        std::fs::read(data().join("expected").join(expected)).unwrap()
    );
    let summary = String::from_utf8(out.stderr).unwrap();
    assert!(
        summary.contains("16 lines, 6 kept, 10 discarded"),
        "{summary}"
    );
    assert!(
        summary.contains("fewer than 2 columns (missing_columns; the first is line 2)"),
        "{summary}"
    );
}

#[test]
fn refusals_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        hardrules(dir.path(), &args)
    };
    std::fs::write(dir.path().join("in.tsv"), "a b c\td e f\n").unwrap();
    std::fs::write(dir.path().join("bad.yaml"), "no_url: true\n").unwrap();
    std::fs::write(dir.path().join("type.yaml"), "no_literals: 3\n").unwrap();
    let stderr = |o: std::process::Output| {
        assert!(!o.status.success());
        String::from_utf8(o.stderr).unwrap()
    };
    assert!(stderr(run(&["in.tsv"])).contains("No source or target languages provided"));
    assert!(
        stderr(run(&["-s", "en", "-t", "fr", "-c", "bad.yaml", "in.tsv"]))
            .contains("unknown rule \"no_url\"")
    );
    assert!(
        stderr(run(&["-s", "en", "-t", "fr", "-c", "type.yaml", "in.tsv"]))
            .contains("no_literals: expected a list of strings")
    );
    assert!(
        stderr(run(&[
            "-s",
            "en",
            "-t",
            "fr",
            "-c",
            "missing.yaml",
            "in.tsv"
        ]))
        .contains("missing.yaml")
    );
    assert!(
        stderr(run(&["-s", "en", "-t", "fr", "--scol", "0", "in.tsv"]))
            .contains("0 is an invalid positive int value")
    );
    assert!(stderr(run(&["-s", "en", "-t", "fr", "missing.tsv"])).contains("missing.tsv"));
    // Unknown language codes are the tool's: no language-specific exception applies.
    let out = run(&["-s", "qq", "-t", "zz", "in.tsv", "out.tsv"]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.tsv")).unwrap(),
        "a b c\td e f\t1\n"
    );
}

#[tokio::test]
async fn the_sql_function_lists_what_the_tool_lists_with_dash_a() {
    let lines: Vec<String> = std::fs::read_to_string(data().join("adversarial.tsv"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let (src, tgt): (Vec<&str>, Vec<&str>) =
        lines.iter().map(|l| l.split_once('\t').unwrap()).unzip();
    let ctx = common::context();
    common::register(
        &ctx,
        "pairs",
        common::batch(vec![
            (
                "id",
                Arc::new(datafusion::arrow::array::Int64Array::from_iter_values(
                    0..src.len() as i64,
                )) as ArrayRef,
            ),
            ("src", Arc::new(StringArray::from(src)) as ArrayRef),
            ("tgt", Arc::new(StringArray::from(tgt)) as ArrayRef),
        ]),
    );
    let config = std::fs::read_to_string(data().join("config.yaml"))
        .unwrap()
        .replace('\'', "''");
    for (langs, config, expected) in [
        (("en", "fr"), None, "30.adversarial.en-fr.all.out"),
        (("zh", "ja"), None, "38.adversarial.zh-ja.all.out"),
        (
            ("fi", "pt"),
            Some(&config),
            "36.adversarial.fi-pt.config.out",
        ),
    ] {
        let config = config.map(|c| format!(", '{c}'")).unwrap_or_default();
        let sql = format!(
            "SELECT CASE WHEN cardinality(r) = 0 THEN 'keep' ELSE array_to_string(r, '+') END \
             FROM (SELECT id, hardrules(src, tgt, '{}', '{}'{config}) AS r FROM pairs) ORDER BY id",
            langs.0, langs.1
        );
        let got = common::strings(&ctx, &sql, 0).await;
        let want = std::fs::read_to_string(data().join("expected").join(expected)).unwrap();
        let want: Vec<&str> = want
            .lines()
            .map(|l| l.split_once('\t').unwrap().1)
            .collect();
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.as_deref(), Some(*w), "{expected}, row {i}");
        }
    }
    // A configuration that is not the tool's is an error naming the key.
    let err = ctx
        .sql("SELECT hardrules(src, tgt, 'en', 'fr', '{no_url: true}') FROM pairs")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no_url"), "{err}");
}

#[tokio::test]
async fn score_adds_the_verdict_of_the_bundled_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scored.parquet");
    let pairs = root().join("data/europarl-sample/pairs.parquet");
    common::ok(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--metrics",
        "lepod",
        "--hardrules",
        "fr-en",
        "--out",
        common::path_str(&out),
    ]);
    let ctx = common::context();
    ctx.register_parquet("s", common::path_str(&out), Default::default())
        .await
        .unwrap();
    let got = common::strings(
        &ctx,
        "SELECT CASE WHEN hardrules_keep THEN 'keep' ELSE array_to_string(hardrules, '+') END, \
         led FROM s ORDER BY pair_id",
        0,
    )
    .await;
    let want =
        std::fs::read_to_string(data().join("expected/europarl-sample.fr-en.all.out")).unwrap();
    let want: Vec<&str> = want
        .lines()
        .map(|l| l.split_once('\t').unwrap().1)
        .collect();
    assert_eq!(got.len(), 3000);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.as_deref(), Some(*w), "pair {i}");
    }
    let err = common::err(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--metrics",
        "hardrules",
        "--out",
        "x.parquet",
    ]);
    assert!(err.contains("--hardrules SRC-TGT"), "{err}");
    let err = common::err(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--hardrules",
        "fr",
        "--out",
        "x.parquet",
    ]);
    assert!(err.contains("expected SRC-TGT"), "{err}");
}

#[test]
fn a_line_of_100_mb_is_not_too_long_as_in_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut line = "word ".repeat(20 << 20).into_bytes();
    line.extend_from_slice(b"\tun deux trois\nshort line here\tune ligne courte ici\n");
    std::fs::write(dir.path().join("long.tsv"), &line).unwrap();
    let args: Vec<String> = [
        "-q",
        "-s",
        "en",
        "-t",
        "fr",
        "-A",
        "--annotated_output",
        "--score_only",
        "long.tsv",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = hardrules(dir.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "0\tnot_too_long\n1\tkeep\n"
    );
}
