//! `pairmetrics lmplz` writes what KenLM's lmplz writes, byte for byte, for every case of
//! tests/data/lmplz/cases.tsv (Europarl en and fr, WMT23 references and outputs, toy texts;
//! orders 1 to 6, fallback discounts, SRILM unigrams, padding, skipped symbols, a last line
//! without its line end); the expected files come from lmplz itself
//! (scripts/make_lmplz_vectors.sh). `lm estimate` is the same estimator over a Parquet column.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::common::{err, gunzip, import_text, ok, path_str, root};

fn data() -> PathBuf {
    root().join("tests/data/lmplz")
}

fn cases() -> Vec<(String, String, String)> {
    std::fs::read_to_string(data().join("cases.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields[0].into(), fields[1].into(), fields[2].into())
        })
        .collect()
}

/// Whether `printed` is the expected model of case `name`: the gzipped ARPA, or its SHA-256
/// and size for the large ones.
fn check(name: &str, printed: &str) {
    let full = data().join(format!("{name}.arpa.gz"));
    if full.exists() {
        let expected = gunzip(&full);
        if printed != expected {
            let first = printed
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b);
            panic!("{name}: first differing line {first:?}");
        }
        return;
    }
    let digest = std::fs::read_to_string(data().join(format!("{name}.sha256"))).unwrap();
    let (sha, size) = digest.trim().split_once(' ').unwrap();
    let got: String = Sha256::digest(printed.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(printed.len().to_string(), size, "{name}: the size differs");
    assert_eq!(got, sha, "{name}: the bytes differ");
}

#[test]
fn writes_what_lmplz_writes() {
    let cases = cases();
    for (name, input, flags) in &cases {
        let input = root().join(input);
        let mut args = vec!["lmplz", "--text", path_str(&input)];
        args.extend(flags.split_whitespace());
        check(name, &ok(&args));
    }
    assert_eq!(cases.len(), 13);
}

#[test]
fn any_memory_limit_gives_the_same_model() {
    // -S 1b puts every word in a share of its own, so every n-gram's context, suffix and
    // back-off come from other shares through spilled lists; 300K mixes shares of many words.
    for limit in ["1b", "300K"] {
        for (name, input, flags) in cases() {
            let input = root().join(input);
            let mut args = vec!["lmplz", "-S", limit, "--text", path_str(&input)];
            args.extend(flags.split_whitespace());
            check(&name, &ok(&args));
        }
    }
    // The Parquet form under its --memory-limit (MiB), spilling where --temp-dir says.
    let dir = TempDir::new().unwrap();
    let pairs = dir.path().join("pairs.parquet");
    let text = root().join("tests/data/wmt23/he-en.ref.refA.en");
    import_text(&text, &text, &pairs);
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let out = crate::common::pairmetrics(&[
        "lm",
        "estimate",
        "--input",
        path_str(&pairs),
        "--column",
        "tgt",
        "-o",
        "5",
        "--discount-fallback",
        "--memory-limit",
        "1",
        "--temp-dir",
        path_str(&scratch),
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    check("he-en-5-fallback", &crate::common::stdout(&out));
    assert!(said.contains("Estimated within 1.0 MiB in "), "{said}");
    // The scratch directory goes with the estimate.
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
}

#[test]
fn reads_memory_sizes_as_lmplz_does() {
    let toy = data().join("toy.txt");
    for size in ["1G", "512M", "2048", "0.5G", "10%", "100b"] {
        let printed = ok(&[
            "lmplz",
            "-o",
            "3",
            "--discount_fallback",
            "-S",
            size,
            "--text",
            path_str(&toy),
        ]);
        check("toy", &printed);
    }
    for (size, says) in [
        ("12Q", "the suffixes are"),
        ("G", "not a memory size"),
        ("0b", "at least one byte"),
    ] {
        let said = err(&["lmplz", "-o", "3", "-S", size, "--text", path_str(&toy)]);
        assert!(said.contains(says), "{size}: {said}");
    }
}

#[test]
fn reads_stdin_and_writes_arpa_files() {
    let dir = TempDir::new().unwrap();
    let arpa = dir.path().join("toy.arpa");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(["lmplz", "-o", "3", "--discount_fallback", "--arpa"])
        .arg(&arpa)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(data().join("toy.txt")).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("Unigram tokens 8 types 5"), "{stderr}");
    check("toy", &std::fs::read_to_string(&arpa).unwrap());
}

#[test]
fn estimates_from_a_parquet_column() {
    // The he-en references as the tgt column of a pairs table: the model is lmplz's on the text.
    let dir = TempDir::new().unwrap();
    let pairs = dir.path().join("pairs.parquet");
    let text = root().join("tests/data/wmt23/he-en.ref.refA.en");
    import_text(&text, &text, &pairs);
    let printed = ok(&[
        "lm",
        "estimate",
        "--input",
        path_str(&pairs),
        "--column",
        "tgt",
        "-o",
        "5",
        "--discount-fallback",
    ]);
    check("he-en-5-fallback", &printed);
    // And the text file itself, sentence per line.
    let arpa = dir.path().join("he-en.arpa");
    ok(&[
        "lm",
        "estimate",
        "--input",
        path_str(&text),
        "-o",
        "5",
        "--discount-fallback",
        "--out",
        path_str(&arpa),
    ]);
    check("he-en-5-fallback", &std::fs::read_to_string(&arpa).unwrap());
    // The model is one --lm reads.
    let scored = ok(&[
        "sql",
        "--format",
        "csv",
        "--lm",
        path_str(&arpa),
        "--table",
        &format!("p={}", path_str(&pairs)),
        "SELECT round(sum(lm_logprob(tgt)), 3) AS total FROM p",
    ]);
    assert!(scored.starts_with("total\n-"), "{scored}");
}

#[test]
fn says_what_it_cannot_do() {
    let zh = root().join("tests/data/wmt23/en-zh.ref.refA.zh");
    let said = err(&["lmplz", "-o", "4", "--text", path_str(&zh)]);
    assert!(
        said.contains("Kneser-Ney discounts for 1-grams")
            && said.contains("the discount for adjusted count 3 is -0.8562875"),
        "{said}"
    );
    let unk = root().join("tests/data/wmt23/he-en.hyp.UvA-LTL.en");
    let said = err(&["lmplz", "-o", "3", "--text", path_str(&unk)]);
    assert!(said.contains(":83: the special word <unk>"), "{said}");
    let en = data().join("europarl.en.gz");
    let said = err(&[
        "lmplz",
        "-o",
        "3",
        "-S",
        "1b",
        "-T",
        "/no/such/dir/",
        "--text",
        path_str(&en),
    ]);
    assert!(
        said.starts_with("error: spilling to the scratch directory /no/such/dir/"),
        "{said}"
    );
    let toy = data().join("toy.txt");
    let said = err(&[
        "lmplz",
        "-o",
        "3",
        "--prune",
        "0",
        "1",
        "--text",
        path_str(&toy),
    ]);
    assert!(said.contains("--prune is not supported yet"), "{said}");
    let said = err(&[
        "lmplz",
        "-o",
        "3",
        "--discount_fallback",
        "2.5",
        "--text",
        path_str(&toy),
    ]);
    assert!(
        said.contains("the discount for count 1 is 2.5, outside [0, 1]"),
        "{said}"
    );
}

#[test]
fn a_table_of_many_row_groups_and_files_gives_the_same_model() {
    // The he-en references as a text column, in a directory of two files of several row groups
    // each: the sentences are read in file order, so the model is the one of the text.
    use std::sync::Arc;

    use datafusion::arrow::array::{ArrayRef, Int64Array, StringArray};

    let dir = TempDir::new().unwrap();
    let text = root().join("tests/data/wmt23/he-en.ref.refA.en");
    let lines: Vec<String> = std::fs::read_to_string(&text)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let table = dir.path().join("table");
    crate::common::write_two_parts(&table, lines.len(), 17, |range| {
        let ids = Int64Array::from_iter_values(range.clone().map(|i| i as i64));
        // Not common::batch, which adds a pair_id of its own (0.. in each part).
        datafusion::arrow::array::RecordBatch::try_from_iter(vec![
            ("pair_id", Arc::new(ids) as ArrayRef),
            (
                "tgt",
                Arc::new(StringArray::from_iter_values(&lines[range])) as ArrayRef,
            ),
        ])
        .unwrap()
    });
    let printed = ok(&[
        "lm",
        "estimate",
        "--input",
        path_str(&table),
        "-o",
        "5",
        "--discount-fallback",
    ]);
    check("he-en-5-fallback", &printed);
}
