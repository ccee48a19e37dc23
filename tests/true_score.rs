//! The true score: `tests/vectors/true_score/example_2.json` (Chevelu et al. 2010, errata
//! corrected) and a differential test of the DP against brute-force enumeration.

use pairmetrics::pair::true_score::{Identity, PhraseIndex, PhraseIndexBuilder, Scratch};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::*;

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

pub fn example() -> Value {
    let text = std::fs::read_to_string(vectors().join("true_score/example_2.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn example_index(v: &Value) -> PhraseIndex {
    let mut b = PhraseIndexBuilder::new(Identity::default());
    for rule in v["rules"].as_array().unwrap() {
        let (src, tgt) = (rule["src"].as_str().unwrap(), rule["tgt"].as_str().unwrap());
        b.add(&words(src), &words(tgt), rule["p"].as_f64().unwrap());
    }
    b.build()
}

#[test]
fn example_2_every_target() {
    let v = example();
    let index = example_index(&v);
    let source = words(v["source"].as_str().unwrap());
    let s = &mut Scratch::default();
    for target in v["targets"].as_array().unwrap() {
        let tgt = target["tgt"].as_str().unwrap();
        let got = index.true_score(&source, &words(tgt), s);
        match target["true_score"].as_f64() {
            None => assert_eq!(got, None, "{tgt} is unreachable"),
            Some(p) => {
                let got = got.unwrap_or_else(|| panic!("{tgt} is reachable"));
                assert!(
                    (got.score - p.ln()).abs() < 1e-12,
                    "{tgt}: {} vs ln {p}",
                    got.score
                );
                let best_rules = target["best_rules"].as_array().unwrap().len() as u32;
                assert_eq!(got.rules, best_rules, "{tgt}");
                let others = target
                    .get("other_derivations")
                    .map_or(0, |o| o.as_array().unwrap().len());
                assert_eq!(got.derivations, 1 + others as u64, "{tgt}");
            }
        }
    }
    let two = index
        .true_score(&source, &words("the beast runs after the kitten ."), s)
        .unwrap();
    assert_eq!(two.derivations, 2);
}

/// Every derivation's (ln score, rules) by plain recursion over the rules, no DP.
fn enumerate(
    rules: &[(Vec<u8>, Vec<u8>, f64)],
    identity: Identity,
    source: &[u8],
    target: &[u8],
    acc: (f64, u32),
    out: &mut Vec<(f64, u32)>,
) {
    if source.is_empty() && target.is_empty() {
        out.push(acc);
        return;
    }
    let self_rule = |w: u8| {
        rules
            .iter()
            .any(|(s, t, _)| s.len() == 1 && s == t && s[0] == w)
    };
    if let (Some(&w), Some(&v)) = (source.first(), target.first())
        && w == v
        && (identity == Identity::Always || !self_rule(w))
    {
        enumerate(rules, identity, &source[1..], &target[1..], acc, out);
    }
    for (s, t, p) in rules {
        if source.starts_with(s) && target.starts_with(t) {
            let next = (acc.0 + p.ln(), acc.1 + 1);
            enumerate(
                rules,
                identity,
                &source[s.len()..],
                &target[t.len()..],
                next,
                out,
            );
        }
    }
}

const VOCAB: [&str; 3] = ["a", "b", "c"];

fn to_words(ids: &[u8]) -> Vec<&'static str> {
    ids.iter().map(|&i| VOCAB[i as usize]).collect()
}

proptest! {
    #[test]
    fn the_dp_equals_brute_force_enumeration(
        rules in prop::collection::vec(
            (prop::collection::vec(0u8..3, 1..=3), prop::collection::vec(0u8..3, 1..=3), prop::sample::select(vec![0.9, 0.5, 0.25, 1.0])),
            0..8,
        ),
        source in prop::collection::vec(0u8..3, 0..7),
        noise in prop::collection::vec(0u8..3, 0..7),
        use_source in any::<bool>(),
        always in any::<bool>(),
    ) {
        let identity = if always { Identity::Always } else { Identity::UnlessInTable };
        let target = if use_source { source.clone() } else { noise };
        let mut b = PhraseIndexBuilder::new(identity);
        for (s, t, p) in &rules {
            b.add(&to_words(s), &to_words(t), *p);
        }
        let index = b.build();
        let got = index.true_score(&to_words(&source), &to_words(&target), &mut Scratch::default());

        let mut all = Vec::new();
        enumerate(&rules, identity, &source, &target, (0.0, 0), &mut all);
        let want = all.iter().map(|d| d.0).fold(None, |best: Option<f64>, s| Some(best.map_or(s, |b| b.max(s))));
        match (got, want) {
            (None, None) => {}
            (Some(g), Some(best)) => {
                prop_assert_eq!(g.score, best);
                let fewest = all.iter().filter(|d| d.0 == best).map(|d| d.1).min().unwrap();
                prop_assert_eq!(g.rules, fewest);
                prop_assert_eq!(g.derivations, all.len() as u64);
            }
            (g, w) => prop_assert!(false, "dp {g:?} vs brute force {w:?}"),
        }
    }
}

fn pairmetrics(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(args)
        .output()
        .unwrap()
}

/// The example's rules as a Moses phrase table (p in the first score, p(f|e)), imported, then
/// every target scored through `sql --phrase-table`.
#[test]
fn example_2_through_moses_import_and_sql() {
    let v = example();
    let dir = tempfile::TempDir::new().unwrap();
    let moses = dir.path().join("phrase-table");
    let mut text = String::new();
    for rule in v["rules"].as_array().unwrap() {
        let p = rule["p"].as_f64().unwrap();
        text += &format!(
            "{} ||| {} ||| {p} 0.5 0.25 0.5 2.718 ||| 0-0 ||| 3 4 2\n",
            rule["src"].as_str().unwrap(),
            rule["tgt"].as_str().unwrap()
        );
    }
    std::fs::write(&moses, text).unwrap();
    let table = dir.path().join("pt.parquet");
    let out = pairmetrics(&[
        "import",
        "moses-phrase-table",
        "--table",
        moses.to_str().unwrap(),
        "--out",
        table.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let source = v["source"].as_str().unwrap();
    let targets: Vec<&str> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tgt"].as_str().unwrap())
        .collect();
    let values = targets
        .iter()
        .enumerate()
        .map(|(i, t)| format!("({i}, '{t}')"))
        .collect::<Vec<_>>()
        .join(", ");
    let query = format!(
        "SELECT true_score(tokenize('{source}'), tokenize(t)) AS score, \
         true_score_detail(tokenize('{source}'), tokenize(t))['derivations'] AS derivations \
         FROM (VALUES {values}) AS v(i, t) ORDER BY i"
    );
    let out = pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--phrase-table",
        table.to_str().unwrap(),
        &query,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("5 rules indexed"));
    // A wrong option value is named as the command line spells the option (Python says
    // prob_column=).
    let bad = pairmetrics(&[
        "sql",
        "--phrase-table",
        table.to_str().unwrap(),
        "--prob-column",
        "p_x",
        "SELECT 1",
    ]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("--prob-column p_x: expected one of p_f_e, p_e_f, lex_f_e, lex_e_f"),
        "{stderr}"
    );
    let rows: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect();
    for (row, target) in rows.iter().zip(v["targets"].as_array().unwrap()) {
        let (score, derivations) = row.split_once(',').unwrap();
        match target["true_score"].as_f64() {
            None => assert_eq!((score, derivations), ("", "")),
            Some(p) => assert!(
                (score.parse::<f64>().unwrap() - p.ln()).abs() < 1e-12,
                "{row} vs ln {p}"
            ),
        }
    }
    assert_eq!(
        rows[2].split_once(',').unwrap().1,
        "2",
        "the beast runs after the kitten ."
    );

    // The same through `score`: a pairs table of (source, target) rows.
    let (src_file, tgt_file) = (dir.path().join("src.txt"), dir.path().join("tgt.txt"));
    std::fs::write(&src_file, format!("{source}\n").repeat(targets.len())).unwrap();
    std::fs::write(
        &tgt_file,
        targets.iter().map(|t| format!("{t}\n")).collect::<String>(),
    )
    .unwrap();
    let pairs = dir.path().join("pairs.parquet");
    let p = |path: &std::path::Path| path.to_str().unwrap().to_string();
    let out = pairmetrics(&[
        "import",
        "text",
        "--src",
        &p(&src_file),
        "--tgt",
        &p(&tgt_file),
        "--out",
        &p(&pairs),
    ]);
    assert!(out.status.success());
    let scored = dir.path().join("scored.parquet");
    let out = pairmetrics(&[
        "score",
        "--pairs",
        &p(&pairs),
        "--phrase-table",
        &p(&table),
        "--out",
        &p(&scored),
    ]);
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && summary.contains("true_score:p=p_f_e|identity:unless-in-table"),
        "{summary}"
    );
    let query = "SELECT true_score FROM s ORDER BY pair_id";
    let out = pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("s={}", scored.display()),
        query,
    ]);
    let scores: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect();
    assert_eq!(scores.len(), targets.len());
    for (row, target) in rows.iter().zip(&scores) {
        assert_eq!(
            row.split_once(',').unwrap().0,
            target.trim_matches('"'),
            "a single NULL column is written as \"\""
        );
    }

    // The other probability column, and the table's columns as imported.
    let query =
        "SELECT src, tgt, p_f_e, p_e_f, extra_scores, alignment, counts FROM pt WHERE src = 'cat'";
    let out = pairmetrics(&[
        "sql",
        "--format",
        "json",
        "--table",
        &format!("pt={}", table.display()),
        query,
    ]);
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains(r#""src":"cat","tgt":"kitten","p_f_e":0.1,"p_e_f":0.25,"extra_scores":[2.718],"alignment":[{"src":0,"tgt":0}],"counts":[3.0,4.0,2.0]"#), "{json}");
}

#[test]
fn true_score_without_a_phrase_table_says_how_to_give_one() {
    let out = pairmetrics(&["sql", "SELECT true_score(tokenize('a'), tokenize('a'))"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && err.contains("true_score needs a phrase table: pass --phrase-table PATH"),
        "{err}"
    );
}

#[test]
fn a_malformed_phrase_table_line_is_named() {
    let dir = tempfile::TempDir::new().unwrap();
    let moses = dir.path().join("phrase-table");
    std::fs::write(&moses, "a ||| b ||| 1 1 1 1\nc ||| d ||| 0.5 0.5\n").unwrap();
    let out_path = dir.path().join("pt.parquet");
    let out = pairmetrics(&[
        "import",
        "moses-phrase-table",
        "--table",
        moses.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:2: 2 score(s); expected at least 4",
            moses.display()
        )),
        "{err}"
    );
    assert!(!out_path.exists());
}

/// The worked example of the Chevelu guide (docs/guide/chevelu.md), end to end, with its figures.
#[test]
fn readme_rank_agreement_example() {
    let data = root().join("data/chevelu-example");
    let dir = tempfile::TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let input = |name: &str| data.join(name).to_str().unwrap().to_string();
    for args in [
        vec![
            "import",
            "moses-phrase-table",
            "--table",
            &input("phrase-table"),
            "--out",
            &path("rules.parquet"),
        ],
        vec![
            "import",
            "moses-nbest",
            "--nbest",
            &input("nbest.txt"),
            "--out",
            &path("nbest.parquet"),
        ],
        vec![
            "import",
            "text",
            "--src",
            &input("source.txt"),
            "--tgt",
            &input("source.txt"),
            "--out",
            &path("sources.parquet"),
        ],
    ] {
        let out = pairmetrics(&args.iter().map(|s| s.as_ref()).collect::<Vec<&str>>());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let readme = std::fs::read_to_string(root().join("docs/guide/chevelu.md")).unwrap();
    let start = readme.find("WITH scored AS (").unwrap();
    let query = &readme[start..start + readme[start..].find("\"\n").unwrap()];
    let out = pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--phrase-table",
        &path("rules.parquet"),
        "--table",
        &format!("nbest={}", path("nbest.parquet")),
        "--table",
        &format!("sources={}", path("sources.parquet")),
        query,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        csv,
        "prefix,sentences,mean_tau_a\n3,1,-1.0\n5,1,0.4\n8,1,0.2857\n12,1,0.4727\n"
    );
}

/// model_score = alpha_phi * true_score + alpha_lm * ln 10 * lm_logprob, in SQL and in `score`.
#[test]
fn model_score_adds_the_language_model_in_natural_logs() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let run = |args: &[&str]| {
        let out = pairmetrics(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    std::fs::write(
        path("phrase-table"),
        "the cat ||| the kitten ||| 0.25 1 1 1\ncat ||| dog ||| 0.5 1 1 1\n",
    )
    .unwrap();
    run(&[
        "import",
        "moses-phrase-table",
        "--table",
        &path("phrase-table"),
        "--out",
        &path("pt.parquet"),
    ]);
    let lm = crate::common::root().join("tests/data/lm/europarl.en.3gram.arpa.gz");
    let resources = [
        "--phrase-table",
        &path("pt.parquet"),
        "--lm",
        lm.to_str().unwrap(),
    ];
    let query = "SELECT true_score(s, t), lm_logprob(t), model_score(s, t), model_score(s, t, 2, 0.5) \
                 FROM (SELECT tokenize(a) AS s, tokenize(b) AS t FROM (VALUES ('the cat sleeps', 'the kitten sleeps'), \
                 ('the cat sleeps', 'a bird sings')) AS v(a, b))";
    let csv = run(&[&["sql", "--format", "csv"], &resources[..], &[query]].concat());
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let (ts, lp): (f64, f64) = (rows[0][0].parse().unwrap(), rows[0][1].parse().unwrap());
    assert_eq!(ts, 0.25f64.ln());
    let ln_p = lp * std::f64::consts::LN_10;
    assert_eq!(rows[0][2].parse::<f64>().unwrap(), 1.0 * ts + 1.0 * ln_p);
    assert_eq!(rows[0][3].parse::<f64>().unwrap(), 2.0 * ts + 0.5 * ln_p);
    // No derivation reaches "a bird sings": NULL, as true_score.
    assert_eq!((rows[1][0], rows[1][2]), ("", ""));

    // `score` computes it by default when given both resources, with the same value.
    std::fs::write(path("src.txt"), "the cat sleeps\nthe cat sleeps\n").unwrap();
    std::fs::write(path("tgt.txt"), "the kitten sleeps\na bird sings\n").unwrap();
    run(&[
        "import",
        "text",
        "--src",
        &path("src.txt"),
        "--tgt",
        &path("tgt.txt"),
        "--out",
        &path("pairs.parquet"),
    ]);
    run(&[
        &[
            "score",
            "--pairs",
            &path("pairs.parquet"),
            "--out",
            &path("scored.parquet"),
        ],
        &resources[..],
    ]
    .concat());
    let check = format!(
        "SELECT count(*) FILTER (WHERE model_score = true_score + tgt_lm_logprob * {:?}), count(model_score) FROM s",
        std::f64::consts::LN_10
    );
    let csv = run(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("s={}", path("scored.parquet")),
        &check,
    ]);
    assert_eq!(csv.lines().nth(1), Some("1,1"), "{csv}");

    // Without the model, the error says what to pass.
    let out = pairmetrics(&[
        "sql",
        "--phrase-table",
        &path("pt.parquet"),
        "SELECT model_score(['a'], ['a'])",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("model_score needs a language model"),
        "{err}"
    );
}
