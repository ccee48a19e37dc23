//! `pairmetrics decode`: the paper's worked example decoded by hand and by the command, its
//! n-best lines read back by `import moses-nbest`, the same output at any thread count, and
//! what it refuses. The search itself is checked against exhaustive search in
//! the kernels' `smt::decode` unit tests.

use tempfile::TempDir;

use crate::common::{csv_rows, err, ok, path_str, root};

/// The example phrase table of Chevelu et al.'s Example 2, as a phrase_table.
fn example_table(dir: &TempDir) -> String {
    let table = dir.path().join("pt.parquet");
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&root().join("data/chevelu-example/phrase-table")),
        "--out",
        path_str(&table),
    ]);
    path_str(&table).to_string()
}

/// Without an LM the best derivations maximise the sum of ln p. `cat` has a rule of its own, so
/// it must be rewritten (alone, ln 0.1, or with `the young`, ln 0.7); every other word has none
/// and passes through for free; `the dog -> the beast` costs ln 0.8. Any reordering costs at
/// least 10 × 4 and comes last.
#[test]
fn the_worked_example_by_hand_and_back_through_import() {
    let dir = TempDir::new().unwrap();
    let table = example_table(&dir);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "the dog runs after the young cat .\n\nthe cat\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["decode", path_str(&input), "--phrase-table", &table];
        args.extend(extra);
        ok(&args)
    };
    let nbest = run(&["--nbest", "4"]);
    let (ln7, ln8, ln1) = (0.7f64.ln(), 0.8f64.ln(), 0.1f64.ln());
    let line = |id, hyp: &str, phrase: f64, words| {
        format!(
            "{id} ||| {hyp} ||| phrase= {phrase} lm= 0 distortion= 0 word= -{words} ||| {phrase}"
        )
    };
    let expected = [
        line(0, "the dog runs after the kitten .", ln7, 7),
        line(0, "the beast runs after the kitten .", ln8 + ln7, 7),
        line(0, "the dog runs after the young kitten .", ln1, 8),
        line(0, "the beast runs after the young kitten .", ln8 + ln1, 8),
        line(2, "the kitten", ln1, 2),
        // `the` then `cat` swapped: a jump of 1 to `cat`, then 2 back to `the`.
        "2 ||| kitten the ||| phrase= -2.3025850929940455 lm= 0 distortion= -3 word= -2 ||| -32.30258509299404".to_string(),
    ];
    assert_eq!(nbest.lines().collect::<Vec<_>>(), expected, "{nbest}");
    assert_eq!(run(&["--nbest", "4", "--threads", "1"]), nbest);
    assert_eq!(
        run(&[]),
        "the dog runs after the kitten .\n\nthe kitten\n",
        "the best of each sentence, an empty line for the empty one"
    );
    assert_eq!(run(&["--monotone", "--nbest", "4"]).lines().count(), 5);

    let file = dir.path().join("nbest.txt");
    std::fs::write(&file, &nbest).unwrap();
    let imported = dir.path().join("nbest.parquet");
    ok(&[
        "import",
        "moses-nbest",
        "--nbest",
        path_str(&file),
        "--out",
        path_str(&imported),
    ]);
    let rows = csv_rows(
        &[],
        &[("n", &imported)],
        "SELECT id, rank, hyp, scores[4], total FROM n ORDER BY id, rank",
    );
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[0],
        format!("0,0,the dog runs after the kitten .,-7.0,{ln7}")
    );
    assert_eq!(rows[5], "2,1,kitten the,-2.0,-32.30258509299404");
}

#[test]
fn distinct_lists_and_refusals() {
    let dir = TempDir::new().unwrap();
    let table = example_table(&dir);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "the dog runs after the young cat .\n").unwrap();
    let base = ["decode", path_str(&input), "--phrase-table", &table];
    // `the young -> the` then `cat -> kitten` is a second derivation of the best sentence.
    let all = ok(&[&base[..], &["--nbest", "100"]].concat());
    let hyps: Vec<&str> = all
        .lines()
        .map(|l| l.split(" ||| ").nth(1).unwrap())
        .collect();
    assert!(hyps.len() > 5 && hyps.len() <= 100);
    let distinct = ok(&[&base[..], &["--nbest", "100", "--distinct"]].concat());
    let distinct: Vec<&str> = distinct
        .lines()
        .map(|l| l.split(" ||| ").nth(1).unwrap())
        .collect();
    let mut unique = distinct.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), distinct.len(), "{distinct:?}");
    assert!(distinct.len() < hyps.len() || hyps.len() < 100);

    let e = err(&[&base[..], &["--distinct"]].concat());
    assert!(e.contains("--nbest"), "{e}");
    let e = err(&[&base[..], &["--beam-threshold", "2"]].concat());
    assert!(
        e.contains("--beam-threshold 2: expected a number in [0, 1)"),
        "{e}"
    );
    let e = err(&[&base[..], &["--distortion-limit", "-2"]].concat());
    assert!(e.contains("-2"), "{e}");
    let e = err(&[
        "decode",
        path_str(&input),
        "--phrase-table",
        "/nonexistent/pt.parquet",
    ]);
    assert!(e.contains("/nonexistent/pt.parquet"), "{e}");
}

/// A weight that is not finite, or so large that a total overflows, is refused by its flag's
/// name before any work (NaN ranked every hypothesis alike: `decode` printed an empty line);
/// negative weights are weights.
#[test]
fn non_finite_weights_are_refused_by_name() {
    let dir = TempDir::new().unwrap();
    let table = example_table(&dir);
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a b\n").unwrap();
    for (command, flag, value) in [
        ("decode", "--alpha-phi", "nan"),
        ("decode", "--alpha-d", "NaN"),
        ("decode", "--alpha-w", "1e308"),
        ("decode", "--alpha-lm", "inf"),
        ("paraphrase", "--alpha-phi", "nan"),
        ("rerank", "--alpha-phi", "-inf"),
    ] {
        let said = err(&[
            command,
            "--phrase-table",
            &table,
            &format!("{flag}={value}"),
            path_str(&input),
        ]);
        assert!(
            said.contains(flag) && said.contains("a weight must be a finite number"),
            "{command} {flag} {value}: {said}"
        );
    }
    ok(&[
        "decode",
        path_str(&input),
        "--phrase-table",
        &table,
        "--alpha-w",
        "-1",
    ]);
}

/// An n-best line whose hypothesis holds a token `import moses-nbest` would misread (`|||`,
/// white space) is refused naming the sentence, as the Moses export refuses such a rule.
#[test]
fn nbest_tokens_that_would_be_misread_are_refused() {
    let dir = TempDir::new().unwrap();
    let table = dir.path().join("pt.parquet");
    ok(&[
        "sql",
        "--out",
        path_str(&table),
        "SELECT column1 AS src_tokens, column2 AS tgt_tokens, 0.5 AS p_f_e, 0.5 AS lex_f_e, \
         0.5 AS p_e_f, 0.5 AS lex_e_f FROM (VALUES (['x'], ['a|||b']), (['y'], ['c d']))",
    ]);
    let input = dir.path().join("in.txt");
    for (line, token) in [("x", "a|||b"), ("y", "c d")] {
        std::fs::write(&input, format!("{line}\n")).unwrap();
        let said = err(&[
            "decode",
            path_str(&input),
            "--phrase-table",
            path_str(&table),
            "--nbest",
            "2",
        ]);
        assert!(
            said.contains("sentence 0") && said.contains(&format!("{token:?}")),
            "{said}"
        );
    }
}

/// A sentence longer than the decoder and MCPG take is refused naming it, before any work.
#[test]
fn sentences_past_the_length_limit_are_refused() {
    let dir = TempDir::new().unwrap();
    let table = example_table(&dir);
    let input = dir.path().join("in.txt");
    std::fs::write(
        &input,
        format!("the cat\n{}\n", vec!["cat"; 1001].join(" ")),
    )
    .unwrap();
    for command in ["decode", "paraphrase"] {
        let said = err(&[command, path_str(&input), "--phrase-table", &table]);
        assert!(
            said.contains("sentence 1 (0-based) has 1001 words, more than the 1000"),
            "{command}: {said}"
        );
    }
}

/// `--moses-weights`: Moses' untuned model. Each n-best line's tm values are the sums of
/// ln p_e_f and ln p_f_e of the rules (two columns that differ here), pp the phrases, and the
/// total Moses' weighting of them; the list is ordered by it, and no --alpha-* goes with it.
#[test]
fn moses_weights_score_both_directions_and_the_phrase_penalty() {
    let dir = TempDir::new().unwrap();
    let text = dir.path().join("pt.txt");
    // src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f)
    std::fs::write(
        &text,
        "a ||| x ||| 0.2 1 0.6 1\nb ||| y ||| 0.5 1 0.3 1\na b ||| z ||| 0.9 1 0.1 1\n",
    )
    .unwrap();
    let table = dir.path().join("pt.parquet");
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&text),
        "--out",
        path_str(&table),
    ]);
    let source = dir.path().join("in.txt");
    std::fs::write(&source, "a b\n").unwrap();
    let args = [
        "decode",
        path_str(&source),
        "--phrase-table",
        path_str(&table),
        "--nbest",
        "3",
        "--moses-weights",
    ];
    let lines = ok(&args);
    let ln = f64::ln;
    // (target, phrase (p_f_e), direct (p_e_f), inverse (p_f_e), phrases, words, distortion)
    let derivations = [
        (
            "x y",
            ln(0.2) + ln(0.5),
            ln(0.6) + ln(0.3),
            ln(0.2) + ln(0.5),
            2.0,
            2.0,
            0.0,
        ),
        ("z", ln(0.9), ln(0.1), ln(0.9), 1.0, 1.0, 0.0),
        (
            "y x",
            ln(0.2) + ln(0.5),
            ln(0.6) + ln(0.3),
            ln(0.2) + ln(0.5),
            2.0,
            2.0,
            -3.0,
        ),
    ];
    let mut expected: Vec<(f64, String)> = derivations
        .iter()
        .map(|&(t, phrase, direct, inverse, pp, words, d)| {
            let total = 0.2 * (direct + inverse) + 0.2 * pp + 0.3 * d + words;
            let line = format!(
                "0 ||| {t} ||| phrase= {phrase} tm= {direct} {inverse} pp= {pp} lm= 0 distortion= {d} word= {} ||| ",
                -words
            );
            (total, line)
        })
        .collect();
    expected.sort_by(|a, b| b.0.total_cmp(&a.0));
    let got: Vec<&str> = lines.lines().collect();
    assert_eq!(got.len(), 3, "{lines}");
    for (line, (total, prefix)) in got.iter().zip(&expected) {
        let (head, printed) = line.rsplit_once(" ||| ").unwrap();
        assert_eq!(format!("{head} ||| "), *prefix);
        let printed: f64 = printed.parse().unwrap();
        assert!((printed - total).abs() < 1e-12, "{line}: {total}");
    }
    let e = err(&[&args[..], &["--alpha-d", "3"]].concat());
    assert!(e.contains("cannot be used with"), "{e}");
}
