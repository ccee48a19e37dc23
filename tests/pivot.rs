//! `pairmetrics pivot` on a small hand-made bilingual table, with each pruning threshold, and
//! `import moses-nbest`.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

fn pairmetrics(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// French f, English pivots e; scores p(f|e) lex(f|e) p(e|f) lex(e|f).
const BILINGUAL: &str = "\
maison ||| house ||| 0.8 1 0.9 1
domicile ||| house ||| 0.2 1 0.5 1
maison ||| home ||| 0.3 1 0.1 1
foyer ||| home ||| 0.7 1 0.6 1
logis ||| dwelling ||| 1 1 1 1
";

fn bilingual(dir: &Path) -> PathBuf {
    let text = dir.join("phrase-table");
    std::fs::write(&text, BILINGUAL).unwrap();
    let table = dir.join("bilingual.parquet");
    pairmetrics(&[
        "import",
        "moses-phrase-table",
        "--table",
        text.to_str().unwrap(),
        "--out",
        table.to_str().unwrap(),
    ]);
    table
}

/// (src, tgt, p(tgt|src), p(src|tgt)) of the paraphrase table made with `options`.
fn pivoted(dir: &Path, options: &[&str]) -> Vec<(String, String, f64, f64)> {
    let table = bilingual(dir);
    let out = dir.join("paraphrases.parquet");
    let mut args = vec![
        "pivot",
        "--table",
        table.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(options);
    pairmetrics(&args);
    let csv = pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("o={}", out.display()),
        "SELECT src, tgt, p_e_f, p_f_e FROM o",
    ]);
    csv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

fn assert_rows(got: &[(String, String, f64, f64)], want: &[(&str, &str, f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1.as_str()), (w.0, w.1), "{got:?}");
        assert!(
            (g.2 - w.2).abs() < 1e-12 && (g.3 - w.3).abs() < 1e-12,
            "{g:?} vs {w:?}"
        );
    }
}

#[test]
fn hand_computed_probabilities() {
    let dir = TempDir::new().unwrap();
    // p(f2|f1) = sum_e p(f2|e) p(e|f1); the reverse p(f1|f2) = sum_e p(f1|e) p(e|f2).
    assert_rows(
        &pivoted(dir.path(), &[]),
        &[
            ("domicile", "maison", 0.8 * 0.5, 0.2 * 0.9),
            ("domicile", "domicile", 0.2 * 0.5, 0.2 * 0.5),
            ("foyer", "foyer", 0.7 * 0.6, 0.7 * 0.6),
            ("foyer", "maison", 0.3 * 0.6, 0.7 * 0.1),
            ("logis", "logis", 1.0, 1.0),
            (
                "maison",
                "maison",
                0.8 * 0.9 + 0.3 * 0.1,
                0.8 * 0.9 + 0.3 * 0.1,
            ),
            ("maison", "domicile", 0.2 * 0.9, 0.8 * 0.5),
            ("maison", "foyer", 0.7 * 0.1, 0.3 * 0.6),
        ],
    );
}

#[test]
fn min_product_drops_small_pivot_products() {
    let dir = TempDir::new().unwrap();
    let rows = pivoted(dir.path(), &["--min-product", "0.1"]);
    // maison -> maison keeps only the house product; maison -> foyer (0.07) is gone
    let maison: Vec<_> = rows.iter().filter(|r| r.0 == "maison").collect();
    assert_eq!(maison.len(), 2);
    assert_eq!((maison[0].1.as_str(), maison[0].2), ("maison", 0.8 * 0.9));
    assert_eq!(maison[1].1, "domicile");
    assert!(
        rows.iter().any(|r| r.0 == "domicile" && r.1 == "domicile"),
        "0.2 * 0.5 is not below 0.1"
    );
}

#[test]
fn max_cluster_drops_crowded_pivots() {
    let dir = TempDir::new().unwrap();
    // house and home each pivot two French phrases; only dwelling is left
    assert_rows(
        &pivoted(dir.path(), &["--max-cluster", "1"]),
        &[("logis", "logis", 1.0, 1.0)],
    );
}

#[test]
fn keep_and_self_pairs() {
    let dir = TempDir::new().unwrap();
    let rows = pivoted(dir.path(), &["--keep", "1"]);
    let maison: Vec<_> = rows
        .iter()
        .filter(|r| r.0 == "maison")
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(maison, ["maison"]);
    assert_eq!(rows.len(), 4, "one per source phrase");
    let rows = pivoted(dir.path(), &["--no-self-pairs"]);
    assert!(rows.iter().all(|r| r.0 != r.1));
    assert_eq!(rows.len(), 4);
}

#[test]
fn nbest_import_ranks_each_list() {
    let dir = TempDir::new().unwrap();
    let nbest = dir.path().join("nbest.txt");
    std::fs::write(
        &nbest,
        "0 ||| the house ||| lm: -2 tm: -1 -0.5 ||| -3.5\n0 ||| a house ||| lm: -3 tm: -1 -1 ||| -5\n\
         1 ||| yes ||| lm: -1 tm: 0 0 ||| -1\n",
    )
    .unwrap();
    let out = dir.path().join("nbest.parquet");
    pairmetrics(&[
        "import",
        "moses-nbest",
        "--nbest",
        nbest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let csv = pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("n={}", out.display()),
        "SELECT id, rank, array_to_string(hyp_tokens, '_'), total, scores[2] FROM n ORDER BY id, rank",
    ]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "0,0,the_house,-3.5,-1.0",
            "0,1,a_house,-5.0,-1.0",
            "1,0,yes,-1.0,0.0"
        ]
    );
}

/// The sums of a real table are exact: the same rules and probabilities, bit for bit (the
/// shortest text that reads back as the same float), whatever the partitions and batch sizes
/// (float sums moved probabilities by their last bit with the order the partitions delivered
/// the products in). The table is extracted from the first 400 pairs of
/// the bundled sample.
#[test]
fn the_same_table_whatever_the_partitions() {
    let dir = TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let sample = crate::common::sample();
    for (table, column) in [
        ("pairs", "pairs.parquet"),
        ("alignments", "alignments.parquet"),
    ] {
        pairmetrics(&[
            "sql",
            "--table",
            &format!("t={}", sample.join(column).display()),
            "--out",
            &path(&format!("{table}.parquet")),
            "SELECT * FROM t WHERE pair_id < 400 ORDER BY pair_id",
        ]);
    }
    pairmetrics(&[
        "extract",
        "--pairs",
        &path("pairs.parquet"),
        "--alignments",
        &path("alignments.parquet"),
        "--out",
        &path("bilingual.parquet"),
    ]);
    let (bilingual, mut outputs) = (path("bilingual.parquet"), Vec::new());
    let tunings = [
        ["--partitions", "1"],
        ["--partitions", "2"],
        ["--partitions", "7"],
        ["--batch-size", "333"],
    ];
    for (i, tuning) in tunings.iter().enumerate() {
        let out = path(&format!("paraphrases{i}.parquet"));
        let mut args = vec!["pivot", "--table", &bilingual, "--out", &out];
        args.extend(tuning);
        pairmetrics(&args);
        outputs.push(pairmetrics(&[
            "sql",
            "--format",
            "csv",
            "--table",
            &format!("p={out}"),
            "SELECT src, tgt, p_e_f, p_f_e FROM p ORDER BY src, tgt",
        ]));
    }
    assert!(outputs[0].lines().count() > 100_000);
    assert!(outputs.iter().all(|o| o == &outputs[0]));
}
