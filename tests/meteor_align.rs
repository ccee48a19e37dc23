//! The native METEOR aligner against METEOR 1.5 itself: tests/data/meteor/ holds what its
//! `Matcher` printed for each case (scripts/meteor/reference.sh made them from METEOR's source).

use std::path::PathBuf;

use pairmetrics::align::stem::{Stemmer, snowball};
use pairmetrics::align::{Aligner, AlignerOptions, Module, Objective};
use pairmetrics::pipeline::align::{self, Output};
use tempfile::TempDir;

use crate::common::*;

fn data(name: &str) -> PathBuf {
    root().join("tests/data/meteor").join(name)
}

fn matcher_output(case: &str, options: AlignerOptions) -> String {
    let aligner = Aligner::new(options, &pairmetrics::formats::input::open_resource).unwrap();
    let (test, reference) = (
        data(&format!("{case}.test.gz")),
        data(&format!("{case}.ref.gz")),
    );
    let mut out = Vec::new();
    align::run(
        &test,
        &reference,
        &aligner,
        2,
        Output::Matcher(&mut out),
        false,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

fn modules(text: &str) -> Option<Vec<Module>> {
    Some(Module::parse_list(text).unwrap())
}

fn assert_same(case: &str, expected: &str, options: AlignerOptions) {
    let ours = matcher_output(case, options);
    let theirs = gunzip(&data(&format!("{expected}.matcher.gz")));
    if ours != theirs {
        let (n, (a, b)) = ours
            .lines()
            .zip(theirs.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("", "")));
        panic!(
            "{expected}: differs from METEOR at output line {}: ours `{a}`, METEOR `{b}`",
            n + 1
        );
    }
}

#[test]
fn handmade_cases_match_meteor_byte_for_byte() {
    let ess = || AlignerOptions {
        modules: modules("exact stem synonym"),
        ..Default::default()
    };
    assert_same("handmade", "handmade", ess());
    assert_same(
        "handmade",
        "handmade.exact",
        AlignerOptions {
            modules: modules("exact"),
            ..Default::default()
        },
    );
    assert_same(
        "handmade",
        "handmade.reordered",
        AlignerOptions {
            modules: modules("synonym stem exact"),
            ..Default::default()
        },
    );
}

#[test]
fn europarl_cases_match_meteor_byte_for_byte() {
    assert_same(
        "europarl-perturbed",
        "europarl-perturbed",
        AlignerOptions::default(),
    );
    let maxacc = AlignerOptions {
        objective: Objective::MaxAccuracy,
        ..Default::default()
    };
    assert_same("europarl-perturbed", "europarl-perturbed.maxacc", maxacc);
    assert_same(
        "europarl-shifted",
        "europarl-shifted",
        AlignerOptions::default(),
    );
    assert_same(
        "europarl-shifted",
        "europarl-shifted.beam1",
        AlignerOptions {
            beam: 1,
            ..Default::default()
        },
    );
}

#[test]
fn paraphrase_case_matches_meteor_byte_for_byte() {
    let options = AlignerOptions {
        paraphrase_file: Some(data("paraphrase.para.gz")),
        ..Default::default()
    };
    assert_eq!(
        options.modules(),
        Module::ALL,
        "a paraphrase table adds the module"
    );
    assert_same("paraphrase", "paraphrase", options);
}

#[test]
fn snowball_english_stems_equal_meteors_on_every_europarl_word() {
    let stemmer = Stemmer::Snowball(rust_stemmers::Stemmer::create(snowball("english").unwrap()));
    let expected = gunzip(&data("europarl-stems.tsv.gz"));
    let mut words = 0;
    for line in expected.lines() {
        let (word, stem) = line.split_once('\t').unwrap();
        assert_eq!(stemmer.stem(word), stem, "the stem of `{word}`");
        words += 1;
    }
    assert!(words > 10_000, "{words} words");
}

#[test]
fn align_cli_prints_matcher_output_and_writes_alignments() {
    let (test, reference) = (data("handmade.test.gz"), data("handmade.ref.gz"));
    let out = pairmetrics(&[
        "align",
        test.to_str().unwrap(),
        reference.to_str().unwrap(),
        "-m",
        "exact stem synonym",
        "-x",
        "40",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        gunzip(&data("handmade.matcher.gz"))
    );

    let dir = TempDir::new().unwrap();
    let parquet = dir.path().join("alignments.parquet");
    let out = pairmetrics(&[
        "align",
        test.to_str().unwrap(),
        reference.to_str().unwrap(),
        "--out",
        parquet.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(
        &[],
        &[("a", &parquet)],
        "SELECT l['src'], l['tgt'], l['module'] FROM (SELECT pair_id, unnest(links) AS l FROM a) WHERE pair_id = 0 ORDER BY l['tgt']",
    );
    // "the cats sat on the mat ." / "the cat sits on a mat ."
    let expected = [
        "0,0,exact",
        "1,1,stem",
        "2,2,synonym",
        "3,3,exact",
        "5,5,exact",
        "6,6,exact",
    ];
    assert_eq!(rows, expected);
}

#[test]
fn align_cli_errors_name_the_files_and_lines() {
    let dir = TempDir::new().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (three, two) = (
        write("three.txt", b"a\nb\nc\n"),
        write("two.txt", b"a\nb\n"),
    );
    let out = pairmetrics(&["align", &three, &two]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("three.txt has more lines than")
            && stderr.contains("two.txt (2 lines), 3 in all"),
        "{stderr}"
    );

    let bad = write("bad.txt", b"ok\n\xff\xfe\n");
    let out = pairmetrics(&["align", &bad, &two]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.txt:2: invalid UTF-8"), "{stderr}");

    let out = pairmetrics(&["align", &two, &two, "-m", "exact fuzzy"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--modules exact fuzzy: unknown module `fuzzy`"),
        "{stderr}"
    );
    let out = pairmetrics(&["align", &two, &two, "-m", "paraphrase"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a paraphrase table"));
    let out = pairmetrics(&["align", &two, &two, "-l", "fr"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no synonyms are bundled for french"));
    let out = pairmetrics(&["align", &two, &two, "-l", "fr", "-m", "exact stem"]);
    assert!(out.status.success());
}

#[test]
fn meteor_align_in_sql_and_score_align_give_meteors_own_links() {
    let dir = TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name);
    let (pairs, expected, matcher) = (
        path("pairs.parquet"),
        path("meteor.parquet"),
        path("meteor.txt"),
    );
    std::fs::write(&matcher, gunzip(&data("europarl-perturbed.matcher.gz"))).unwrap();
    let (test, reference) = (
        data("europarl-perturbed.test.gz"),
        data("europarl-perturbed.ref.gz"),
    );
    import_text(&test, &reference, &pairs);
    ok(&[
        "import",
        "meteor",
        "--alignments",
        path_str(&matcher),
        "--modules",
        "exact stem synonym",
        "--out",
        path_str(&expected),
    ]);

    // The SQL function gives METEOR's links, modules included, on every row.
    let same = csv_rows(
        &[],
        &[("p", &pairs), ("m", &expected)],
        "SELECT count(*), sum(CASE WHEN meteor_align(p.src, p.tgt) = m.links THEN 1 ELSE 0 END), \
         sum(cardinality(m.links)) FROM p JOIN m USING (pair_id)",
    );
    assert_eq!(same, ["1000,1000,25405"]);
    let modules = csv_rows(
        &[],
        &[("m", &expected)],
        "SELECT l['module'], count(*) FROM (SELECT unnest(links) AS l FROM m) GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(
        modules,
        ["exact,21577", "stem,1680", "synonym,2148"],
        "the counts of METEOR's own output"
    );

    // score --align meteor scores as METEOR's alignments table does.
    let (aligned, given) = (path("aligned.parquet"), path("given.parquet"));
    ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--align",
        "meteor",
        "--out",
        path_str(&aligned),
    ]);
    ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&expected),
        "--out",
        path_str(&given),
    ]);
    let differing = csv_rows(
        &[],
        &[("a", &aligned), ("g", &given)],
        "SELECT count(*), sum(CASE WHEN (a.led IS DISTINCT FROM g.led) OR (a.pod IS DISTINCT FROM g.pod) THEN 1 ELSE 0 END) \
         FROM a JOIN g USING (pair_id)",
    );
    assert_eq!(differing, ["1000,0"]);
}

#[tokio::test]
async fn meteor_align_bad_input_gives_null_or_an_error_naming_it() {
    let ctx = context();
    // A NULL sentence or token gives a NULL alignment, as every pairmetrics function does.
    let rows = strings(
        &ctx,
        "SELECT CASE WHEN l IS NULL THEN 'NULL' ELSE l[2]['module'] END FROM (SELECT meteor_align(s, t) AS l \
         FROM (VALUES (['the', 'cats'], ['the', 'cat']), (NULL, ['a']), (['x', NULL], ['x'])) AS v(s, t))",
        0,
    )
    .await;
    assert_eq!(
        rows,
        [
            Some("stem".to_string()),
            Some("NULL".to_string()),
            Some("NULL".to_string())
        ]
    );
    for (query, expected) in [
        (
            "SELECT meteor_align(['a'], ['a'], 'exact fuzzy')",
            "meteor_align: unknown module `fuzzy`",
        ),
        (
            "SELECT meteor_align(['a'], ['a'], 'exact', 'klingon')",
            "meteor_align: unknown language `klingon`",
        ),
        (
            "SELECT meteor_align(['a'], ['a'], 'paraphrase')",
            "meteor_align: the paraphrase module needs a paraphrase table",
        ),
        ("SELECT meteor_align('a b', ['a'])", "src"),
    ] {
        let error = match ctx.sql(query).await {
            Ok(frame) => frame.collect().await.unwrap_err(),
            Err(error) => error,
        };
        assert!(error.to_string().contains(expected), "{query}: {error}");
    }
}

#[test]
fn score_align_and_import_meteor_name_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    let pairs = sample().join("pairs.parquet");
    let out = dir.path().join("out.parquet");
    let error = err(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--align",
        "meteor:exact+fuzzy",
        "--out",
        path_str(&out),
    ]);
    assert!(error.contains("unknown module `fuzzy`"), "{error}");
    let error = err(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--align",
        "giza",
        "--out",
        path_str(&out),
    ]);
    assert!(
        error.contains("--align giza: the aligner is `meteor`"),
        "{error}"
    );
    assert!(!out.exists(), "no output on an error");

    // A Matcher file whose module column indexes past the --modules list.
    let matcher = dir.path().join("m.txt");
    std::fs::write(&matcher, "Alignment 1\na\na\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n0:1\t\t\t0:1\t\t\t3\t\t1.0\n\n").unwrap();
    let table = dir.path().join("a.parquet");
    let error = err(&[
        "import",
        "meteor",
        "--alignments",
        path_str(&matcher),
        "--modules",
        "exact stem",
        "--out",
        path_str(&table),
    ]);
    assert!(
        error.contains("m.txt:1: block 1 has module 3, but --modules lists 2 (exact stem)"),
        "{error}"
    );
    assert!(!table.exists());
}
