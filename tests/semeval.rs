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
        let mut args = vec!["semeval-eval", "--ref", path_str(&gold), "--out", path_str(&run)];
        args.extend(flags.split_whitespace());
        let printed = ok(&args);
        assert_eq!(printed, format!("Accuracy Word-Accuracy Recall\n{want}\n"), "{line}");
        checked += 1;
    }
    assert!(checked >= 14, "{checked} lines checked");
}

/// The gold file with its references as a run's output.
fn gold_as_run(gold: &str, dir: &std::path::Path) -> PathBuf {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(fixtures().join(gold)).unwrap()).read_to_string(&mut text).unwrap();
    let path = dir.join("gold-as-run.xml");
    std::fs::write(&path, text.replace("<ref>", "<output>").replace("</ref>", "</output>")).unwrap();
    path
}

#[test]
fn semeval_eval_of_the_reference_itself_is_perfect_and_per_sentence_figures_are_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let run = gold_as_run("en-es.gold.tokenised.xml.gz", dir.path());
    let gold = fixtures().join("en-es.gold.tokenised.xml.gz");
    let per_sentence = dir.path().join("per-sentence.parquet");
    let printed = ok(&["semeval-eval", "--ref", path_str(&gold), "--out", path_str(&run), "-a", "--per-sentence", path_str(&per_sentence)]);
    assert_eq!(printed, "Accuracy Word-Accuracy Recall\n1.0 1.0 1.0\n");
    let rows = csv_rows(&[], &[("p", &per_sentence)], "SELECT count(*), min(fragment_word_accuracy), count(DISTINCT sentence_id) FROM p");
    assert_eq!(rows, ["498,1.0,498"]);

    // A real run: the per-sentence table's means are the printed figures.
    let run = fixtures().join("TeamZ.en-es.run1.xml.gz");
    let printed = ok(&["semeval-eval", "-I", "--ref", path_str(&gold), "--out", path_str(&run), "--per-sentence", path_str(&per_sentence)]);
    let figures: Vec<f64> = printed.lines().nth(1).unwrap().split(' ').map(|x| x.parse().unwrap()).collect();
    let means = csv_rows(&[], &[("p", &per_sentence)], "SELECT avg(accuracy), avg(word_accuracy), avg(recall), count(fragment_word_accuracy) FROM p");
    let means: Vec<f64> = means[0].split(',').map(|x| x.parse().unwrap()).collect();
    for k in 0..3 {
        assert!((means[k] - figures[k]).abs() < 1e-12, "{means:?} {figures:?}");
    }
    assert_eq!(means[3], (0.751004016064257f64 * 498.0).round(), "answered fragments have a score, the others NULL");
}

#[test]
fn semeval_eval_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let gold = fixtures().join("en-es.gold.tokenised.xml.gz");
    let run = fixtures().join("UNAL.en-es.run1.oof.xml.gz");
    // Its inputs are untokenised: the official scorer stops unless told -I.
    let error = err(&["semeval-eval", "--ref", path_str(&gold), "--out", path_str(&run)]);
    assert!(error.contains("UNAL.en-es.run1.oof.xml.gz line 2, sentence 1 differs from the reference's") && error.contains("-I scores it all the same"), "{error}");
    let error = err(&["semeval-eval", "-I", "--ref", path_str(&run), "--out", path_str(&run)]);
    assert!(error.contains("no reference for"), "{error}");
    let no_languages = dir.path().join("no-languages.xml");
    std::fs::write(&no_languages, "<sentencepairs><s id=\"1\"><input>a</input></s></sentencepairs>").unwrap();
    let error = err(&["semeval-eval", "--ref", path_str(&no_languages), "--out", path_str(&run)]);
    assert!(error.contains("the reference must give L1 and L2"), "{error}");
    let broken = dir.path().join("broken.xml");
    std::fs::write(&broken, "<sentencepairs L1=\"en\" L2=\"es\"><s id=\"1\">").unwrap();
    let error = err(&["semeval-eval", "--ref", path_str(&gold), "--out", path_str(&broken)]);
    assert!(error.contains("broken.xml") && error.contains("not well-formed XML"), "{error}");
    let error = err(&["semeval-eval", "-S", "klingon", "--ref", path_str(&gold), "--out", path_str(&run)]);
    assert!(error.contains("-S klingon: no Snowball stemmer"), "{error}");
}
