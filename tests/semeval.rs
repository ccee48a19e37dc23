//! `pairmetrics semeval-eval` against SemEval-2014 Task 5's official scorer: its published
//! figures (and, for -i and -S, its own output) on real system runs, to the last printed digit.

use std::io::Read;
use std::path::PathBuf;

use crate::common::{csv_rows, err, ok, path_str, root};

fn fixtures() -> PathBuf {
    root().join("tests/data/semeval2014t5")
}

#[test]
fn semeval_eval_prints_what_the_official_scorer_printed() {
    let expected = std::fs::read_to_string(fixtures().join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in expected.lines().skip(1) {
        let [run, gold, flags, want] = line.splitn(4, '\t').collect::<Vec<_>>().try_into().unwrap();
        let (run, gold) = (fixtures().join(run), fixtures().join(gold));
        let mut args = vec![
            "semeval-eval",
            "--ref",
            path_str(&gold),
            "--out",
            path_str(&run),
        ];
        args.extend(flags.split_whitespace());
        let printed = ok(&args);
        assert_eq!(
            printed,
            format!("Accuracy Word-Accuracy Recall\n{want}\n"),
            "{line}"
        );
        checked += 1;
    }
    assert!(checked >= 14, "{checked} lines checked");
}

/// The gold file with its references as a run's output.
fn gold_as_run(gold: &str, dir: &std::path::Path) -> PathBuf {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(fixtures().join(gold)).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let path = dir.join("gold-as-run.xml");
    std::fs::write(
        &path,
        text.replace("<ref>", "<output>")
            .replace("</ref>", "</output>"),
    )
    .unwrap();
    path
}

#[test]
fn semeval_eval_of_the_reference_itself_is_perfect_and_per_sentence_figures_are_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let run = gold_as_run("en-es.gold.tokenised.xml.gz", dir.path());
    let gold = fixtures().join("en-es.gold.tokenised.xml.gz");
    let per_sentence = dir.path().join("per-sentence.parquet");
    let printed = ok(&[
        "semeval-eval",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&run),
        "-a",
        "--per-sentence",
        path_str(&per_sentence),
    ]);
    assert_eq!(printed, "Accuracy Word-Accuracy Recall\n1.0 1.0 1.0\n");
    let rows = csv_rows(
        &[],
        &[("p", &per_sentence)],
        "SELECT count(*), min(fragment_word_accuracy), count(DISTINCT sentence_id) FROM p",
    );
    assert_eq!(rows, ["498,1.0,498"]);

    // A real run: the per-sentence table's means are the printed figures.
    let run = fixtures().join("TeamZ.en-es.run1.xml.gz");
    let printed = ok(&[
        "semeval-eval",
        "-I",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&run),
        "--per-sentence",
        path_str(&per_sentence),
    ]);
    let figures: Vec<f64> = printed
        .lines()
        .nth(1)
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    let means = csv_rows(
        &[],
        &[("p", &per_sentence)],
        "SELECT avg(accuracy), avg(word_accuracy), avg(recall), count(fragment_word_accuracy) FROM p",
    );
    let means: Vec<f64> = means[0].split(',').map(|x| x.parse().unwrap()).collect();
    for k in 0..3 {
        assert!(
            (means[k] - figures[k]).abs() < 1e-12,
            "{means:?} {figures:?}"
        );
    }
    assert_eq!(
        means[3],
        (0.751004016064257f64 * 498.0).round(),
        "answered fragments have a score, the others NULL"
    );
}

#[test]
fn semeval_eval_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let gold = fixtures().join("en-es.gold.tokenised.xml.gz");
    let run = fixtures().join("UNAL.en-es.run1.oof.xml.gz");
    // Its inputs are untokenised: the official scorer stops unless told -I.
    let error = err(&[
        "semeval-eval",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&run),
    ]);
    assert!(
        error
            .contains("UNAL.en-es.run1.oof.xml.gz line 2, sentence 1 differs from the reference's")
            && error.contains("-I scores it all the same"),
        "{error}"
    );
    let error = err(&[
        "semeval-eval",
        "-I",
        "--ref",
        path_str(&run),
        "--out",
        path_str(&run),
    ]);
    assert!(error.contains("no reference for"), "{error}");
    let no_languages = dir.path().join("no-languages.xml");
    std::fs::write(
        &no_languages,
        "<sentencepairs><s id=\"1\"><input>a</input></s></sentencepairs>",
    )
    .unwrap();
    let error = err(&[
        "semeval-eval",
        "--ref",
        path_str(&no_languages),
        "--out",
        path_str(&run),
    ]);
    assert!(
        error.contains("the reference must give L1 and L2"),
        "{error}"
    );
    let broken = dir.path().join("broken.xml");
    std::fs::write(&broken, "<sentencepairs L1=\"en\" L2=\"es\"><s id=\"1\">").unwrap();
    let error = err(&[
        "semeval-eval",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&broken),
    ]);
    assert!(
        error.contains("broken.xml") && error.contains("not well-formed XML"),
        "{error}"
    );
    let error = err(&[
        "semeval-eval",
        "-S",
        "klingon",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&run),
    ]);
    assert!(error.contains("-S klingon: no Snowball stemmer"), "{error}");
}

#[test]
fn imported_fragments_give_the_scorers_word_accuracy_in_sql() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, run) = (
        fixtures().join("fr-en.gold.tokenised.xml.gz"),
        fixtures().join("IUCL.fr-en.run1.best.xml.gz"),
    );
    let (g, r, p) = (
        dir.path().join("gold.parquet"),
        dir.path().join("run.parquet"),
        dir.path().join("per.parquet"),
    );
    assert!(
        ok(&[
            "import",
            "semeval2014t5",
            path_str(&gold),
            "--out",
            path_str(&g)
        ])
        .contains("495 rows")
    );
    ok(&[
        "import",
        "semeval2014t5",
        path_str(&run),
        "--out",
        path_str(&r),
    ]);
    ok(&[
        "semeval-eval",
        "-I",
        "--ref",
        path_str(&gold),
        "--out",
        path_str(&run),
        "--per-sentence",
        path_str(&p),
    ]);
    // The fragment sits in its input where the span says; the gold's fr->en metadata is kept.
    let spans = csv_rows(
        &[],
        &[("g", &g)],
        "SELECT count(*) FROM g WHERE array_slice(input, fragment_start + 1, fragment_end) = fragment AND l1 = 'fr' AND l2 = 'en'",
    );
    assert_eq!(spans, ["495"]);
    // English L2, case-sensitive, best only: SQL's word_accuracy is the scorer's, fragment by fragment.
    let differ = csv_rows(
        &[],
        &[("g", &g), ("r", &r), ("p", &p)],
        "SELECT count(*), sum(CASE WHEN word_accuracy(r.output_fragment, array_concat([g.reference_fragment], g.reference_alternatives)) \
         = p.fragment_word_accuracy THEN 0 ELSE 1 END) FROM g JOIN r USING (sentence_id, fragment_id) \
         JOIN p USING (sentence_id, fragment_id)",
    );
    assert_eq!(differ, ["495,0"]);

    let broken = dir.path().join("broken.xml");
    std::fs::write(
        &broken,
        "<sentencepairs L1=\"fr\" L2=\"en\"><s id=\"1\"><input>a <f>b</input>",
    )
    .unwrap();
    let out = dir.path().join("never.parquet");
    let error = err(&[
        "import",
        "semeval2014t5",
        path_str(&broken),
        "--out",
        path_str(&out),
    ]);
    assert!(
        error.contains("broken.xml")
            && error.contains("not well-formed XML")
            && error.contains("1:"),
        "{error}"
    );
    assert!(!out.exists(), "no output on an error");
}
