//! docs/guide/raw-text.md's pipeline on 400 lines of Europarl fr-en, with pairmetrics alone:
//! text → pairs → word alignments → phrase tables (bilingual, then pivoted) → language models →
//! the true score, decoding, MCPG and the IUCL system.

use tempfile::TempDir;

use crate::common::{csv_rows, europarl_pairs, ok, path_str, root};

#[test]
fn raw_bitext_to_every_resource_and_the_papers_systems() {
    let dir = TempDir::new().unwrap();
    let at = |name: &str| dir.path().join(name);
    let run = |args: &[&str]| ok(args);
    let p = |name: &str| path_str(&at(name)).to_string();
    europarl_pairs(dir.path(), Some(400));
    run(&[
        "align-words",
        "--pairs",
        &p("pairs.parquet"),
        "--out",
        &p("alignments.parquet"),
    ]);
    run(&[
        "extract",
        "--pairs",
        &p("pairs.parquet"),
        "--alignments",
        &p("alignments.parquet"),
        "--out",
        &p("fr-en.parquet"),
    ]);
    run(&[
        "pivot",
        "--table",
        &p("fr-en.parquet"),
        "--out",
        &p("fr-fr.parquet"),
    ]);
    for (column, model) in [("src", "fr.arpa"), ("tgt", "en.arpa")] {
        run(&[
            "lm",
            "estimate",
            "--input",
            &p("pairs.parquet"),
            "--column",
            column,
            "-o",
            "3",
            "--discount-fallback",
            "--out",
            &p(model),
        ]);
    }
    let counts = csv_rows(
        &[],
        &[("b", &at("fr-en.parquet")), ("f", &at("fr-fr.parquet"))],
        "SELECT (SELECT count(*) FROM b) > 1000 AS b, (SELECT count(*) FROM f) > 1000 AS f",
    );
    assert_eq!(counts, ["true,true"]);

    // The true score under the pivoted table, and the French LM, over the French side: every
    // sentence derives itself (at most ln 1: the table's w -> w rules cost), and has a
    // probability.
    let scored = csv_rows(
        &["--phrase-table", &p("fr-fr.parquet"), "--lm", &p("fr.arpa")],
        &[("p", &at("pairs.parquet"))],
        "SELECT count(*), sum(CASE WHEN true_score(src, src) <= 0 THEN 1 ELSE 0 END), \
         count(lm_logprob(src)) FROM p",
    );
    assert_eq!(scored, ["400,400,400"]);

    // Chevelu et al.: n-best lists from the decoder and MCPG's paraphrases, with the LM.
    let held = at("held.parquet");
    run(&[
        "sql",
        "--table",
        &format!("p={}", p("pairs.parquet")),
        "--out",
        path_str(&held),
        "SELECT pair_id, src, src AS tgt FROM p WHERE pair_id < 3 ORDER BY pair_id",
    ]);
    let nbest = run(&[
        "decode",
        path_str(&held),
        "--phrase-table",
        &p("fr-fr.parquet"),
        "--lm",
        &p("fr.arpa"),
        "--nbest",
        "5",
    ]);
    assert!(nbest.lines().count() >= 3, "{nbest}");
    assert!(nbest.contains(" lm= -"), "{nbest}");
    run(&[
        "paraphrase",
        path_str(&held),
        "--phrase-table",
        &p("fr-fr.parquet"),
        "--lm",
        &p("fr.arpa"),
        "--episodes",
        "200",
        "--out",
        &p("mcpg.parquet"),
    ]);
    let best = csv_rows(
        &[],
        &[("m", &at("mcpg.parquet"))],
        "SELECT count(DISTINCT id), count(model_score) > 0 FROM m WHERE rank = 1",
    );
    assert_eq!(best, ["3,true"]);

    // IUCL: the trial data's French fragments translated with the bilingual table and the
    // English LM.
    let trial = root().join("tests/data/semeval2014t5/fr-en.trial.xml.gz");
    run(&[
        "l2-assist",
        "--input",
        path_str(&trial),
        "--phrase-table",
        &p("fr-en.parquet"),
        "--lm",
        &p("en.arpa"),
        "--table",
        &p("candidates.parquet"),
        "--out",
        &p("run.xml"),
    ]);
    let origins = csv_rows(
        &[],
        &[("c", &at("candidates.parquet"))],
        "SELECT count(DISTINCT pair_id) FILTER (WHERE origin = 'table') > 100 FROM c",
    );
    assert_eq!(origins, ["true"]);
}
