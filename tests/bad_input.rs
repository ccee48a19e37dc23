//! Broken input never panics and never passes silently: every reader names the file and the
//! line, Parquet problems are errors before any work, and bad rows give NULL plus a reason.

use std::io::Write;
use std::path::Path;

use tempfile::TempDir;

use crate::common::*;

/// How each importer is called on one input file.
fn import_args(kind: &str, input: &str, out: &str) -> Vec<String> {
    let mut args = vec!["import".to_string(), kind.to_string()];
    let flags: &[&str] = match kind {
        "text" | "conllu" => &["--src", input, "--tgt", input],
        "pharaoh" | "meteor" => &["--alignments", input],
        "moses-phrase-table" => &["--table", input],
        "moses-nbest" => &["--nbest", input],
        "syntactic-ngrams" | "dictionary" => &[input],
        other => panic!("no importer {other}"),
    };
    args.extend(flags.iter().map(|s| s.to_string()));
    args.extend(["--out".to_string(), out.to_string()]);
    args
}

const METEOR_HEADER: &str = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n";

fn meteor(blocks: &str) -> Vec<u8> {
    blocks.replace("HEADER\n", METEOR_HEADER).into_bytes()
}

fn conllu_line(id: u32, form: &str, head: &str) -> String {
    format!("{id}\t{form}\t_\tX\t_\t_\t{head}\tdep\t_\t_\n")
}

/// (importer, file content, what must happen: Ok(rows) or Err(part of the message)).
fn import_cases() -> Vec<(&'static str, Vec<u8>, Result<u64, String>)> {
    let ok = |rows: u64| Ok(rows);
    let err = |m: &str| Err(m.to_string());
    let good_sentence = conllu_line(1, "a", "0") + &conllu_line(2, "b", "1");
    vec![
        // Every line-based format: empty file, no trailing newline, CRLF, invalid UTF-8.
        ("text", b"".to_vec(), ok(0)),
        ("text", b"a b\nc".to_vec(), ok(2)),
        ("text", b"a b\r\nc\r\n".to_vec(), ok(2)),
        (
            "text",
            b"a\n\xff b\n".to_vec(),
            err("input:2: invalid UTF-8"),
        ),
        ("pharaoh", b"".to_vec(), ok(0)),
        ("pharaoh", b"0-0 1-1\n0-1".to_vec(), ok(2)),
        ("pharaoh", b"0-0\r\n1-1\r\n".to_vec(), ok(2)),
        (
            "pharaoh",
            b"0-0\n0-x\n".to_vec(),
            err("input:2: alignment entry 1 is `0-x`"),
        ),
        (
            "pharaoh",
            b"0-0 -1-2\n".to_vec(),
            err("input:1: alignment entry 2 is `-1-2`"),
        ),
        (
            "pharaoh",
            b"0-0 3000000000-1\n".to_vec(),
            err("input:1: link 3000000000-1 is past Int32"),
        ),
        (
            "pharaoh",
            b"0-0\n\xfe\n".to_vec(),
            err("input:2: invalid UTF-8"),
        ),
        ("meteor", b"".to_vec(), ok(0)),
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:1\t0:1\t0\t1.0\n\n"),
            ok(1),
        ),
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:1\t0:1\t0\t1.0"),
            ok(1),
        ),
        (
            "meteor",
            String::from_utf8(meteor(
                "Alignment 1\na b\na b\nHEADER\n0:1\t0:1\t0\t1.0\n\n",
            ))
            .unwrap()
            .replace('\n', "\r\n")
            .into_bytes(),
            ok(1),
        ),
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:1\t0:1\t0\t1.0\n\nAlignment 2\na b\n"),
            err("input:8: the file ends inside a block"),
        ),
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:x\t0:1\t0\t1.0\n\n"),
            err("input:5: expected `start:len"),
        ),
        // Spans are checked against the block's sentences before their links are made: found
        // by fuzzing, a span of 177777 tokens made billions of links.
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:1\t5:1\t0\t1.0\n\n"),
            err("input:1: block 1: a match reaches position 5, past the src sentence of 2 tokens"),
        ),
        (
            "meteor",
            meteor("Alignment 1\na b\na b\nHEADER\n0:1\t1:177777\t0\t1.0\n\n"),
            err("input:1: block 1: a match reaches position 2, past the src sentence of 2 tokens"),
        ),
        (
            "meteor",
            b"Alignment 1\na \xff\n".to_vec(),
            err("input:2: invalid UTF-8"),
        ),
        ("conllu", b"".to_vec(), ok(0)),
        ("conllu", format!("{good_sentence}\n").into_bytes(), ok(1)),
        ("conllu", good_sentence.clone().into_bytes(), ok(1)),
        (
            "conllu",
            format!("{good_sentence}\n")
                .replace('\n', "\r\n")
                .into_bytes(),
            ok(1),
        ),
        (
            "conllu",
            (conllu_line(1, "a", "0") + &conllu_line(2, "b", "x")).into_bytes(),
            err("input:2: HEAD `x` is not a word ID or 0"),
        ),
        (
            "conllu",
            b"1\ta\t_\tX\t_\t_\t0\troot\n\n".to_vec(),
            err("input:1: expected 10 tab-separated fields, found 8"),
        ),
        (
            "conllu",
            (conllu_line(1, "a", "0") + &conllu_line(3, "é", "1")).into_bytes(),
            err("input:2:"),
        ),
        (
            "conllu",
            b"1\ta\xff\t_\tX\t_\t_\t0\troot\t_\t_\n".to_vec(),
            err("input:1: invalid UTF-8"),
        ),
        ("moses-phrase-table", b"".to_vec(), ok(0)),
        (
            "moses-phrase-table",
            b"a ||| b ||| 0.5 0.5 0.5 0.5\r\nc ||| d ||| 1 1 1 1".to_vec(),
            ok(2),
        ),
        (
            "moses-phrase-table",
            b"a ||| b ||| 0.5 0.5 0.5\n".to_vec(),
            err("input:1: 3 score(s); expected at least 4"),
        ),
        (
            "moses-phrase-table",
            b"a ||| b ||| 0.5 x 0.5 0.5\n".to_vec(),
            err("input:1: scores: `x` is not a number"),
        ),
        (
            "moses-phrase-table",
            b"a ||| b\n".to_vec(),
            err("input:1: 2 field(s) separated by `|||`"),
        ),
        (
            "moses-phrase-table",
            b"a ||| b ||| 1 1 1 1\n ||| b ||| 1 1 1 1\n".to_vec(),
            err("input:2: empty source phrase"),
        ),
        (
            "moses-phrase-table",
            b"a ||| b ||| 1 1 1 1 ||| 0-x\n".to_vec(),
            err("input:1:"),
        ),
        ("moses-nbest", b"".to_vec(), ok(0)),
        (
            "moses-nbest",
            b"0 ||| a b ||| lm: -1 ||| -1\r\n0 ||| a ||| lm: -2 ||| -2".to_vec(),
            ok(2),
        ),
        (
            "moses-nbest",
            b"0 ||| a b ||| lm: -1 ||| x\n".to_vec(),
            err("input:1: total `x` is not a number"),
        ),
        (
            "moses-nbest",
            b"x ||| a b ||| lm: -1 ||| -1\n".to_vec(),
            err("input:1: id `x` is not an integer"),
        ),
        (
            "moses-nbest",
            b"0 ||| a b\n".to_vec(),
            err("input:1: 2 field(s) separated by `|||`"),
        ),
        ("syntactic-ngrams", b"".to_vec(), ok(0)),
        (
            "syntactic-ngrams",
            b"a\ta/DT/det/0 b/NN/nn/1\t3\t2000,3\r\n".to_vec(),
            ok(2),
        ),
        (
            "syntactic-ngrams",
            b"a\ta/DT/det/0 b/NN/nn/1\t3\n".to_vec(),
            ok(2),
        ),
        (
            "syntactic-ngrams",
            b"a\ta/DT/det/0 b/NN/nn/3\t3\n".to_vec(),
            err("input:1: token `b` has head index 3"),
        ),
        (
            "syntactic-ngrams",
            b"a\ta/DT/det/0\n".to_vec(),
            err("input:1: expected head<TAB>syntactic-ngram<TAB>total_count"),
        ),
        (
            "syntactic-ngrams",
            b"a\ta/DT/det/0 b/NN/nn/1\t-3\n".to_vec(),
            err("input:1: total count `-3`"),
        ),
        (
            "syntactic-ngrams",
            b"ok\tok/DT/det/0\t1\n\xff\n".to_vec(),
            err("input:2: invalid UTF-8"),
        ),
        ("dictionary", b"".to_vec(), ok(0)),
        ("dictionary", b"a\tb\r\nc\td\t0.5".to_vec(), ok(2)),
        (
            "dictionary",
            b"a\tb\n\xff\tc\n".to_vec(),
            err("input:2: invalid UTF-8"),
        ),
        (
            "dictionary",
            b"a\tb\na b\n".to_vec(),
            err("input:2: 1 tab-separated field(s)"),
        ),
    ]
}

#[test]
fn every_importer_names_the_file_and_line() {
    let dir = TempDir::new().unwrap();
    let (input, out) = (dir.path().join("input"), dir.path().join("out.parquet"));
    let cases = import_cases();
    for (kind, content, want) in &cases {
        std::fs::write(&input, content).unwrap();
        let args = import_args(kind, path_str(&input), path_str(&out));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let result = pairmetrics(&args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr),
        );
        let shown = String::from_utf8_lossy(content);
        assert!(!stderr.contains("panicked"), "{kind} {shown:?}: {stderr}");
        match want {
            Ok(rows) => {
                assert!(result.status.success(), "{kind} {shown:?}: {stderr}");
                assert!(
                    stdout.contains(&format!(": {rows} rows")),
                    "{kind} {shown:?}: {stdout}"
                );
            }
            Err(message) => {
                assert!(!result.status.success(), "{kind} {shown:?} should fail");
                assert!(stderr.contains(message), "{kind} {shown:?}: {stderr}");
                assert!(!out.exists(), "{kind}: a failed import leaves no output");
            }
        }
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn a_truncated_gzip_stream_is_an_error_not_a_short_table() {
    let dir = TempDir::new().unwrap();
    let gz = dir.path().join("aligned.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), Default::default());
    for _ in 0..20_000 {
        enc.write_all(b"0-0 1-1 2-2 3-3\n").unwrap();
    }
    let bytes = enc.finish().unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let out = dir.path().join("out.parquet");
    let error = err(&[
        "import",
        "pharaoh",
        "--alignments",
        path_str(&gz),
        "--out",
        path_str(&out),
    ]);
    assert!(
        error.contains("aligned.gz:") && !error.contains("panicked"),
        "{error}"
    );
    assert!(!out.exists());
}

/// (ARPA text, what must happen)
#[test]
fn arpa_models_name_the_line() {
    let dir = TempDir::new().unwrap();
    let model = dir.path().join("model.arpa");
    let good = "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-1\t<s>\t-0.5\n-1\t</s>\n-1\ta\t-0.2\n\n\\2-grams:\n-0.5\t<s> a\n\n\\end\\\n";
    let cases: Vec<(Vec<u8>, Result<&str, &str>)> = vec![
        (good.as_bytes().to_vec(), Ok("-1.7000000476837158")),
        (
            good.replace('\n', "\r\n").into_bytes(),
            Ok("-1.7000000476837158"),
        ),
        (
            good.trim_end().to_string().into_bytes(),
            Ok("-1.7000000476837158"),
        ),
        (b"".to_vec(), Err("no \\data\\ header: not an ARPA file")),
        (
            good.replace("\\end\\\n", "").into_bytes(),
            Err("the file ends before \\end\\ (truncated?)"),
        ),
        (
            good.replace("ngram 2=1", "ngram 2=2").into_bytes(),
            Err(":13: the header announces 2 2-grams but the section has 1"),
        ),
        (
            good.replace("<s> a", "<s> b").into_bytes(),
            Err(":11: `b` is in an n-gram but not among the unigrams"),
        ),
        (
            good.replace("-1\ta\t", "x\ta\t").into_bytes(),
            Err(":8: log10 probability `x` is not a number"),
        ),
        (
            good.replace("-1\ta\t-0.2", "-1\ta\t-0.2\t7").into_bytes(),
            Err(":8: too many fields for a 1-gram line"),
        ),
        (
            good.replace("ngram 1=3", "ngram 1=three").into_bytes(),
            Err(":2: expected `ngram 1=COUNT`"),
        ),
        (
            good.replace("\\2-grams:", "\\3-grams:").into_bytes(),
            Err(":10: expected \\2-grams: or \\end\\"),
        ),
        // A unigram line without its word reads the back-off as the word; `a` is then missing.
        (
            good.replace("-1\ta\t", "-1\t\t").into_bytes(),
            Err(":11: `a` is in an n-gram but not among the unigrams"),
        ),
        (
            [good.as_bytes(), b"\xff\n"].concat(),
            Err(":14: invalid UTF-8"),
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&model, &text).unwrap();
        let result = pairmetrics(&[
            "sql",
            "--format",
            "csv",
            "--lm",
            path_str(&model),
            "SELECT lm_logprob(['a'])",
        ]);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr),
        );
        let shown = String::from_utf8_lossy(&text);
        assert!(!stderr.contains("panicked"), "{shown:?}: {stderr}");
        match want {
            Ok(value) => assert_eq!(stdout.lines().nth(1), Some(value), "{shown:?}: {stderr}"),
            Err(message) => assert!(
                !result.status.success() && stderr.contains(message),
                "{shown:?}: {stderr}"
            ),
        }
    }
}

#[test]
fn broken_parquet_files_are_errors_before_any_work() {
    let dir = TempDir::new().unwrap();
    let good = std::fs::read(sample().join("pairs.parquet")).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "empty.parquet",
            Vec::new(),
            "0 bytes, fewer than a Parquet file's header and footer",
        ),
        (
            "truncated.parquet",
            good[..good.len() / 2].to_vec(),
            "no PAR1 magic at its start and end",
        ),
        (
            "garbage.parquet",
            b"PAR1garbagePAR1".to_vec(),
            "its footer claims",
        ),
        (
            "text.parquet",
            b"pair_id,src,tgt\n0,a,b\n".to_vec(),
            "no PAR1 magic",
        ),
        (
            "footer.parquet",
            [
                &good[..good.len() - 8],
                &(good.len() as u32 - 20).to_le_bytes()[..],
                b"PAR1",
            ]
            .concat(),
            "not a readable Parquet file",
        ),
    ];
    for (name, bytes, message) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = dir.path().join("scored.parquet");
        for args in [
            vec!["score", "--pairs", path_str(&path), "--out", path_str(&out)],
            vec![
                "sql",
                "--table",
                &format!("t={}", path.display()),
                "SELECT count(*) FROM t",
            ],
        ] {
            let result = pairmetrics(&args);
            let stderr = String::from_utf8_lossy(&result.stderr);
            assert!(!result.status.success(), "{name} {args:?}");
            assert!(
                stderr.contains(name) && stderr.contains(message),
                "{name}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
            assert!(!out.exists());
        }
    }
    // One bad file in a directory of good ones names that file.
    let table = dir.path().join("pairs");
    std::fs::create_dir(&table).unwrap();
    std::fs::write(table.join("part-0.parquet"), &good).unwrap();
    std::fs::write(table.join("part-1.parquet"), &good[..100]).unwrap();
    let error = err(&[
        "sql",
        "--table",
        &format!("t={}", table.display()),
        "SELECT count(*) FROM t",
    ]);
    assert!(
        error.contains("part-1.parquet is not a readable Parquet file"),
        "{error}"
    );
}

/// NULL in every column of every table: each row is kept and says why it has no score.
#[test]
fn nulls_everywhere_give_null_metrics_with_reasons() {
    let dir = TempDir::new().unwrap();
    let (pairs, alignments, arcs) = (
        dir.path().join("p.parquet"),
        dir.path().join("a.parquet"),
        dir.path().join("r.parquet"),
    );
    let tokens = token_lists(&[
        None,
        Some(vec![Some("a"), None]),
        Some(vec![Some("a"), Some("b")]),
    ]);
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids(&[0, 1, 2])),
            ("src", tokens.clone()),
            ("tgt", tokens),
        ],
    );
    let links = link_lists(&[Some(vec![(0, 0)]), None, Some(vec![(0, 0), (1, 1)])]);
    write_parquet(
        &alignments,
        vec![("pair_id", ids(&[0, 1, 2])), ("links", links)],
    );
    let heads = head_lists(&[Some(vec![0]), Some(vec![0, 1]), None]);
    let labels = token_lists(&[
        Some(vec![Some("root")]),
        None,
        Some(vec![Some("root"), Some("dep")]),
    ]);
    write_parquet(
        &arcs,
        vec![
            ("pair_id", ids(&[0, 1, 2])),
            ("src_head", heads.clone()),
            ("tgt_head", heads),
            ("src_deprel", labels.clone()),
            ("tgt_deprel", labels),
        ],
    );
    let out = dir.path().join("scored.parquet");
    let summary = ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--arcs",
        path_str(&arcs),
        "--out",
        path_str(&out),
    ]);
    assert!(summary.contains("rows: 3"), "{summary}");
    let rows = csv_rows(
        &[],
        &[("s", &out)],
        "SELECT pair_id, led IS NULL, lepod_problem, derp IS NULL, derp_problem FROM s ORDER BY pair_id",
    );
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].starts_with("0,true,src is NULL,true,"), "{rows:?}");
    assert!(rows[1].starts_with("1,true,"), "{rows:?}");
    assert!(rows[2].starts_with("2,false,,true,"), "{rows:?}");
    for row in &rows {
        assert!(
            row.split(',').nth(4).is_some_and(|why| !why.is_empty()),
            "every NULL derp has a reason: {rows:?}"
        );
    }
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// A 10,000-token sentence, and tokens that are combining marks, right-to-left text, emoji
/// and zero-width joiners: scored like any other, compared byte for byte.
#[test]
fn long_sentences_and_unusual_unicode() {
    let dir = TempDir::new().unwrap();
    let long: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let unicode = "e\u{301} שָׁלוֹם 👩\u{200d}👩\u{200d}👧 a\u{200b}b مرحبا";
    let unicode_nfc = "\u{e9} שָׁלוֹם 👩\u{200d}👩\u{200d}👧 a\u{200b}b مرحبا";
    let (src, tgt) = (dir.path().join("s.txt"), dir.path().join("t.txt"));
    write_lines(&src, &[long.join(" "), unicode.to_string()]);
    write_lines(
        &tgt,
        &[
            long.iter().rev().cloned().collect::<Vec<_>>().join(" "),
            unicode_nfc.to_string(),
        ],
    );
    let pairs = dir.path().join("pairs.parquet");
    import_text(&src, &tgt, &pairs);
    let links = dir.path().join("links.txt");
    let reversed: Vec<String> = (0..10_000).map(|i| format!("{i}-{}", 9_999 - i)).collect();
    write_lines(&links, &[reversed.join(" "), "1-1 2-2 3-3 4-4".to_string()]);
    let alignments = dir.path().join("alignments.parquet");
    ok(&[
        "import",
        "pharaoh",
        "--alignments",
        path_str(&links),
        "--out",
        path_str(&alignments),
    ]);
    let rows = csv_rows(
        &[],
        &[("p", &pairs), ("a", &alignments)],
        "SELECT pair_id, cardinality(src), led(src, tgt, links), round(pod(src, tgt, links), 6), \
         led(src, tgt) FROM p JOIN a USING (pair_id) ORDER BY pair_id",
    );
    // Reversed: every word kept (LeD 0), every unit moved (PoD near 1).
    assert_eq!(rows[0], "0,10000,0.0,0.9999,0.0");
    // `e` + combining acute and the precomposed `é` are different tokens (their bytes differ):
    // one token of five changed on each side; the other four, aligned in place, do not move.
    assert_eq!(rows[1], "1,5,0.2,0.0,0.2");
}
