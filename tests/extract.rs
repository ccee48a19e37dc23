//! `pairmetrics extract` (Moses' phrase extraction and scoring) on hand-worked corpora, read
//! back through `export moses-phrase-table`; the Europarl pipeline text -> alignments ->
//! extract -> pivot -> export.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{err, import_text, ok, path_str, root};

/// `import text` and `import pharaoh` of these lines into pairs and alignments tables.
fn corpus(dir: &Path, src: &str, tgt: &str, links: &str) -> (PathBuf, PathBuf) {
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let (src, tgt, links) = (
        file("src.txt", src),
        file("tgt.txt", tgt),
        file("links.txt", links),
    );
    let (pairs, alignments) = (dir.join("pairs.parquet"), dir.join("alignments.parquet"));
    import_text(&src, &tgt, &pairs);
    ok(&[
        "import",
        "pharaoh",
        "--alignments",
        path_str(&links),
        "--out",
        path_str(&alignments),
    ]);
    (pairs, alignments)
}

/// Extract, export as Moses text, and return (extract's summary, the text's lines).
fn extract(dir: &Path, pairs: &Path, alignments: &Path, extra: &[&str]) -> (String, Vec<String>) {
    let (table, text) = (
        dir.join("phrase-table.parquet"),
        dir.join("phrase-table.txt"),
    );
    let mut args = vec![
        "extract",
        "--pairs",
        path_str(pairs),
        "--alignments",
        path_str(alignments),
        "--out",
        path_str(&table),
    ];
    args.extend(extra);
    let summary = ok(&args);
    ok(&[
        "export",
        "moses-phrase-table",
        "--table",
        path_str(&table),
        "--out",
        path_str(&text),
    ]);
    (
        summary,
        std::fs::read_to_string(&text)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn a_hand_worked_corpus_gives_mosess_table() {
    let dir = TempDir::new().unwrap();
    // f = src, e = tgt. "." is unaligned (widens the source side), and "maison" translates as
    // "house" three times and "home" once.
    let (pairs, alignments) = corpus(
        dir.path(),
        "la maison bleue\nla maison\nune maison .\nla maison\n",
        "the blue house\nthe house\na house\nthe home\n",
        "0-0 1-2 2-1\n0-0 1-1\n0-0 1-1\n0-0 1-1\n",
    );
    let (summary, lines) = extract(dir.path(), &pairs, &alignments, &[]);
    assert!(summary.contains("pairs: 4 read, 0 skipped"), "{summary}");
    assert!(summary.contains("phrase pairs: 12"), "{summary}");
    // Word table: la-the 3, maison-house 3, maison-home 1, bleue-blue 1, une-a 1, .-NULL 1, so
    // w(house|maison) = 3/4, w(home|maison) = 1/4 and every w(f|e) is 1.
    // Columns: p(f|e) lex(f|e) p(e|f) lex(e|f) ||| alignment ||| c(e) c(f) c(f,e).
    assert_eq!(
        lines,
        [
            "bleue ||| blue ||| 1 1 1 1 ||| 0-0 ||| 1 1 1",
            "la ||| the ||| 1 1 1 1 ||| 0-0 ||| 3 3 3",
            "la maison ||| the home ||| 1 1 0.5 0.25 ||| 0-0 1-1 ||| 1 2 1",
            "la maison ||| the house ||| 1 1 0.5 0.75 ||| 0-0 1-1 ||| 1 2 1",
            "la maison bleue ||| the blue house ||| 1 1 1 0.75 ||| 0-0 2-1 1-2 ||| 1 1 1",
            "maison ||| home ||| 1 1 0.25 0.25 ||| 0-0 ||| 1 4 1",
            "maison ||| house ||| 0.75 1 0.75 0.75 ||| 0-0 ||| 4 4 3",
            "maison . ||| house ||| 0.25 1 1 0.75 ||| 0-0 ||| 4 1 1",
            "maison bleue ||| blue house ||| 1 1 1 0.75 ||| 1-0 0-1 ||| 1 1 1",
            "une ||| a ||| 1 1 1 1 ||| 0-0 ||| 1 1 1",
            "une maison ||| a house ||| 0.5 1 1 0.75 ||| 0-0 1-1 ||| 2 1 1",
            "une maison . ||| a house ||| 0.5 1 1 0.75 ||| 0-0 1-1 ||| 2 1 1",
        ]
    );
}

#[test]
fn tied_alignments_are_chosen_as_moses_chooses_them_in_each_direction() {
    let dir = TempDir::new().unwrap();
    // "a b ||| x y" is extracted twice, once aligned a-x a-y (b unaligned), once b-x b-y (a
    // unaligned). Moses' direct pass keeps the greater target-to-source alignment, [{1},{1}]
    // (b-x b-y); its inverse pass the greater source-to-target one, [{0,1},{}] (a-x a-y).
    let (pairs, alignments) = corpus(
        dir.path(),
        "a b\na b\na c\n",
        "x y\nx y\nw\n",
        "0-0 0-1\n1-0 1-1\n1-0\n",
    );
    let (_, lines) = extract(dir.path(), &pairs, &alignments, &[]);
    let line = lines
        .iter()
        .find(|l| l.starts_with("a b ||| x y |||"))
        .expect("a b ||| x y");
    let fields: Vec<&str> = line.split(" ||| ").collect();
    let scores: Vec<f64> = fields[2].split(' ').map(|x| x.parse().unwrap()).collect();
    // Word table: a-x 1, a-y 1, a-NULL 2, b-x 1, b-y 1, b-NULL 1, c-w 1; totals a 4, b 3,
    // x 2, y 2, NULL 3. "a b" is extracted twice, both times as "x y"; "x y" four times (also
    // as "a" and as "b"). lex(e|f) under b-x b-y: w(x|b) w(y|b); lex(f|e) under a-x a-y:
    // mean(w(a|x), w(a|y)) w(b|NULL). Products and means in Moses' order, exactly.
    let third = 1.0 / 3.0;
    assert_eq!(
        scores,
        [
            2.0 / 4.0,
            1.0 * ((0.5 + 0.5) / 2.0) * third,
            2.0 / 2.0,
            1.0 * third * third
        ]
    );
    assert_eq!(fields[3], "1-0 1-1");
    assert_eq!(fields[4], "4 2 2");
}

#[test]
fn unreadable_pairs_are_skipped_counted_and_named() {
    let dir = TempDir::new().unwrap();
    // Pair 1's link 5-0 is outside it; pair 2 has no alignment row.
    let (pairs, alignments) = corpus(dir.path(), "a\nb\nc\n", "x\ny\nz\n", "0-0\n5-0\n");
    let (summary, lines) = extract(dir.path(), &pairs, &alignments, &[]);
    assert!(summary.contains("pairs: 3 read, 2 skipped"), "{summary}");
    assert!(
        summary.contains(
            "skipped pair_id 1: links[0] = 5-0 is outside the sentences (1 src and 1 tgt tokens)"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("skipped pair_id 2: links is NULL (no alignment row)"),
        "{summary}"
    );
    assert_eq!(lines, ["a ||| x ||| 1 1 1 1 ||| 0-0 ||| 1 1 1"]);
    let e = err(&[
        "extract",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--out",
        "x.parquet",
        "--max-phrase-length",
        "0",
    ]);
    assert!(e.contains("--max-phrase-length"), "{e}");
}

#[test]
fn the_length_limit_is_mosess_max_phrase_length() {
    let dir = TempDir::new().unwrap();
    let (pairs, alignments) = corpus(dir.path(), "a b c\n", "x y z\n", "0-0 1-1 2-2\n");
    let (_, lines) = extract(
        dir.path(),
        &pairs,
        &alignments,
        &["--max-phrase-length", "2"],
    );
    let phrases: Vec<&str> = lines
        .iter()
        .map(|l| l.split(" ||| ").next().unwrap())
        .collect();
    assert_eq!(phrases, ["a", "a b", "b", "b c", "c"]);
}

#[test]
fn europarl_to_a_paraphrase_table_in_moses_format() {
    // The documented pipeline on the bundled sample (3,000 pairs, eflomal links): extract ->
    // pivot -> export. The bilingual table is consistent (probabilities sum to 1 per phrase).
    let dir = TempDir::new().unwrap();
    let sample = root().join("data/europarl-sample");
    let (pairs, alignments) = (
        sample.join("pairs.parquet"),
        sample.join("alignments.parquet"),
    );
    let (bilingual, paraphrases, text) = (
        dir.path().join("bilingual.parquet"),
        dir.path().join("paraphrases.parquet"),
        dir.path().join("paraphrases.txt"),
    );
    let summary = ok(&[
        "extract",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--out",
        path_str(&bilingual),
    ]);
    assert!(summary.contains(" 0 skipped"), "{summary}");
    let sums = crate::common::csv_rows(
        &[],
        &[("t", &bilingual)],
        "SELECT count(*) FROM (SELECT src, sum(p_e_f) AS s FROM t GROUP BY src) WHERE abs(s - 1) > 1e-9",
    );
    assert_eq!(sums, ["0"]);
    ok(&[
        "pivot",
        "--table",
        path_str(&bilingual),
        "--out",
        path_str(&paraphrases),
    ]);
    let out = crate::common::pairmetrics(&[
        "export",
        "moses-phrase-table",
        "--table",
        path_str(&paraphrases),
        "--out",
        path_str(&text),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("written as 1"));
    let first = std::fs::read_to_string(&text)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(first.split(" ||| ").count(), 5, "{first}");
}

#[test]
fn export_refuses_what_moses_text_cannot_hold() {
    let dir = TempDir::new().unwrap();
    let (table, text) = (dir.path().join("pt.parquet"), dir.path().join("pt.txt"));
    ok(&[
        "sql",
        "--out",
        path_str(&table),
        // One VALUES list is one partition, so the rows keep their order (a UNION ALL may not).
        "SELECT column1 AS src_tokens, column2 AS tgt_tokens, column3 AS p_f_e, 1.0 AS lex_f_e, 0.5 AS p_e_f, \
         1.0 AS lex_e_f FROM (VALUES (['a'], ['b'], 0.5), (['a'], ['c'], CAST(NULL AS DOUBLE)))",
    ]);
    let error = err(&[
        "export",
        "moses-phrase-table",
        "--table",
        path_str(&table),
        "--out",
        path_str(&text),
    ]);
    assert!(
        error.contains("pt.parquet: rule 2 (a ||| c) has no p_f_e"),
        "{error}"
    );
    assert!(!text.exists(), "no partial output");
    // Not a phrase table at all: the schema check names the file and the column.
    let pairs = root().join("data/europarl-sample/pairs.parquet");
    let error = err(&[
        "export",
        "moses-phrase-table",
        "--table",
        path_str(&pairs),
        "--out",
        path_str(&text),
    ]);
    assert!(
        error.contains("pairs.parquet: column `src` has type List<Utf8>; expected Utf8"),
        "{error}"
    );
}

#[test]
fn export_then_import_gives_back_the_table() {
    let dir = TempDir::new().unwrap();
    let (pairs, alignments) = corpus(
        dir.path(),
        "la maison bleue\nune maison .\n",
        "the blue house\na house\n",
        "0-0 1-2 2-1\n0-0 1-1\n",
    );
    let (_, lines) = extract(dir.path(), &pairs, &alignments, &[]);
    let again = dir.path().join("again.parquet");
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&dir.path().join("phrase-table.txt")),
        "--out",
        path_str(&again),
    ]);
    let columns =
        "src, tgt, src_tokens, tgt_tokens, p_f_e, lex_f_e, p_e_f, lex_e_f, alignment, counts";
    let diff = crate::common::csv_rows(
        &[],
        &[
            ("a", &dir.path().join("phrase-table.parquet")),
            ("b", &again),
        ],
        &format!(
            "SELECT count(*) FROM ((SELECT {columns} FROM a EXCEPT ALL SELECT {columns} FROM b) UNION ALL (SELECT {columns} FROM b EXCEPT ALL SELECT {columns} FROM a))"
        ),
    );
    assert_eq!(diff, ["0"], "{lines:?}");
}
