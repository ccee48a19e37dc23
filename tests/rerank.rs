//! `pairmetrics rerank` (the n-best study) on generated n-best lists whose true order is known:
//! every statistic against a brute-force computation here; the figure in headless Chromium.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

use crate::common::{csv_rows, err, import_text, ok, pairmetrics, path_str, root};

/// One generated list: per hypothesis in decoder order, its true score (None: unreachable),
/// whether the decoder's total differs from it, and that total.
type List = Vec<(Option<f64>, bool, f64)>;

/// Lists of lengths 12, 7, 10, 3 and 10: sentence k is the token `s{k}`, hypothesis j the token
/// `h{k}_{j}` with a rule s{k} -> h{k}_{j} of probability p, so its true score is ln p. Decoder
/// order is a seeded shuffle; a third of the totals are off by 0.5; one hypothesis has no rule.
fn generate(dir: &Path) -> Vec<List> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let (mut rules, mut nbest, mut sources, mut lists) =
        (String::new(), String::new(), String::new(), Vec::new());
    for (k, length) in [12usize, 7, 10, 3, 10].into_iter().enumerate() {
        sources.push_str(&format!("s{k}\n"));
        let mut order: Vec<usize> = (0..length).collect();
        for i in (1..length).rev() {
            order.swap(i, next(i + 1));
        }
        let mut list = List::new();
        for &j in &order {
            // Distinct probabilities, and one tie (j = 1 and j = 2 in list 2).
            let p = if k == 2 && j == 2 {
                1.0 / 2.0_f64.powi(2)
            } else {
                1.0 / 2.0_f64.powi(j as i32 + 1)
            };
            let reachable = !(k == 0 && j == 5);
            if reachable {
                rules.push_str(&format!("s{k} ||| h{k}_{j} ||| {p:?} 1 1 1\n"));
            }
            let changed = next(3) == 0;
            let total = p.ln() + if changed { 0.5 } else { 0.0 };
            nbest.push_str(&format!(
                "{k} ||| h{k}_{j} ||| tm: {total:?} ||| {total:?}\n"
            ));
            list.push((reachable.then(|| p.ln()), changed, total));
        }
        lists.push(list);
    }
    for (name, text) in [
        ("rules.txt", rules),
        ("nbest.txt", nbest),
        ("sources.txt", sources),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        &file("rules.txt"),
        "--out",
        &file("rules.parquet"),
    ]);
    ok(&[
        "import",
        "moses-nbest",
        "--nbest",
        &file("nbest.txt"),
        "--out",
        &file("nbest.parquet"),
    ]);
    ok(&[
        "import",
        "text",
        "--src",
        &file("sources.txt"),
        "--tgt",
        &file("sources.txt"),
        "--out",
        &file("sources.parquet"),
    ]);
    lists
}

/// tau_A of decoder order against true order over the scored hypotheses, by counting pairs.
fn tau_a(list: &[(Option<f64>, bool, f64)]) -> Option<f64> {
    let scored: Vec<(usize, f64)> = list
        .iter()
        .enumerate()
        .filter_map(|(r, (s, ..))| s.map(|s| (r, s)))
        .collect();
    let n = scored.len();
    if n < 2 {
        return None;
    }
    let mut balance = 0i64;
    for a in 0..n {
        for b in a + 1..n {
            // a precedes b in decoder order: concordant when a's score is higher.
            let (sa, sb) = (scored[a].1, scored[b].1);
            balance += if sa > sb {
                1
            } else if sa < sb {
                -1
            } else {
                0
            };
        }
    }
    Some(2.0 * balance as f64 / (n * (n - 1)) as f64)
}

fn mean_std(values: &[f64]) -> (Option<f64>, Option<f64>) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (None, None);
    }
    let mean = values.iter().sum::<f64>() / n;
    let std = (values.len() > 1)
        .then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    (Some(mean), std)
}

/// One expected row of sizes.parquet, in its column order, over the lists at least
/// `long_enough` long.
fn expected_row(lists: &[List], n: usize, long_enough: usize) -> Vec<Option<f64>> {
    let prefixes: Vec<&[(Option<f64>, bool, f64)]> = lists
        .iter()
        .filter(|l| l.len() >= long_enough)
        .map(|l| &l[..n])
        .collect();
    let taus: Vec<f64> = prefixes.iter().filter_map(|p| tau_a(p)).collect();
    let scored: usize = prefixes
        .iter()
        .map(|p| p.iter().filter(|h| h.0.is_some()).count())
        .sum();
    let changed: usize = prefixes
        .iter()
        .map(|p| p.iter().filter(|h| h.0.is_some() && h.1).count())
        .sum();
    let (mut old_top, mut new_top, mut tops_changed) = (Vec::new(), Vec::new(), Vec::new());
    for p in &prefixes {
        let old = p[0].0.expect("the generated 1-bests are reachable");
        let old_rank = 1 + p.iter().filter(|h| h.0.is_some_and(|s| s > old)).count();
        let best = p
            .iter()
            .filter_map(|h| h.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let new_rank = 1 + p.iter().position(|h| h.0 == Some(best)).unwrap();
        old_top.push(old_rank as f64);
        new_top.push(new_rank as f64);
        tops_changed.push(old_rank > 1);
    }
    let only = |values: &[f64]| -> Vec<f64> {
        values
            .iter()
            .zip(&tops_changed)
            .filter(|(_, c)| **c)
            .map(|(v, _)| *v)
            .collect()
    };
    let (tau, o, w, oc, wc) = (
        mean_std(&taus),
        mean_std(&old_top),
        mean_std(&new_top),
        mean_std(&only(&old_top)),
        mean_std(&only(&new_top)),
    );
    let share = tops_changed.iter().filter(|c| **c).count() as f64 / prefixes.len() as f64;
    let worst = |ranks: &[f64]| ranks.iter().copied().reduce(f64::max);
    let gaps: Vec<f64> = prefixes.iter().map(|p| p[0].2 - p[n - 1].2).collect();
    let gap = mean_std(&gaps);
    vec![
        Some(n as f64),
        Some(prefixes.len() as f64),
        tau.0,
        tau.1,
        Some(changed as f64 / scored as f64),
        Some(share),
        o.0,
        o.1,
        w.0,
        w.1,
        oc.0,
        oc.1,
        wc.0,
        wc.1,
        worst(&old_top),
        worst(&new_top),
        gap.0,
        gap.1,
    ]
}

#[test]
fn the_study_equals_a_brute_force_count() {
    let dir = TempDir::new().unwrap();
    let lists = generate(dir.path());
    let file = |name: &str| dir.path().join(name);
    // Each size over the lists at least that long, then every size over the same lists (those
    // of at least 10 hypotheses: 12, 10 and 10).
    let study_of = |name: &str, sizes: &[usize], full_lists_only: bool| {
        let study = file(name);
        let sizes_arg: Vec<String> = sizes.iter().map(usize::to_string).collect();
        let sizes_arg = sizes_arg.join(",");
        let [nbest, sources, rules] =
            ["nbest.parquet", "sources.parquet", "rules.parquet"].map(file);
        let mut args = vec![
            "rerank",
            "--nbest",
            path_str(&nbest),
            "--sources",
            path_str(&sources),
            "--phrase-table",
            path_str(&rules),
            "--sizes",
            &sizes_arg,
            "--out",
            path_str(&study),
        ];
        if full_lists_only {
            args.push("--full-lists-only");
        }
        let printed = ok(&args);
        assert!(
            printed.contains("lists: 5, hypotheses: 42 (1 unscored"),
            "{printed}"
        );
        let rows = csv_rows(
            &[],
            &[("s", &study.join("sizes.parquet"))],
            "SELECT * FROM s ORDER BY n",
        );
        assert_eq!(rows.len(), sizes.len(), "{rows:?}");
        let largest = *sizes.iter().max().unwrap();
        for (row, &n) in rows.iter().zip(sizes) {
            let got: Vec<Option<f64>> = row
                .split(',')
                .map(|v| (!v.is_empty()).then(|| v.parse().unwrap()))
                .collect();
            let want = expected_row(&lists, n, if full_lists_only { largest } else { n });
            assert_eq!(got.len(), want.len(), "n = {n}: {row}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let same = match (g, w) {
                    (Some(g), Some(w)) => (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    (None, None) => true,
                    _ => false,
                };
                assert!(same, "n = {n}, column {i}: got {g:?}, want {w:?}\n{row}");
            }
        }
        study
    };
    let study = study_of("study", &[2, 3, 5, 7, 10, 12], false);
    study_of("full", &[2, 3, 5, 7, 10], true);

    // The generated lists exercise both branches: some 1-bests stay, some do not.
    let shares: Vec<f64> = [2, 3, 5, 7, 10, 12]
        .iter()
        .filter_map(|&n| expected_row(&lists, n, n)[5])
        .collect();
    assert!(shares.iter().any(|&s| s > 0.0 && s < 1.0), "{shares:?}");

    // hypotheses.parquet: the true order of each whole list, ties in decoder order.
    let ranks = csv_rows(
        &[],
        &[("h", &study.join("hypotheses.parquet"))],
        "SELECT id, rank, true_rank, score_changed FROM h ORDER BY id, rank",
    );
    assert_eq!(ranks.len(), 42);
    let mut row = ranks.iter();
    for (k, list) in lists.iter().enumerate() {
        for (rank, &(score, changed, _)) in list.iter().enumerate() {
            let want = score.map(|s| {
                1 + list
                    .iter()
                    .enumerate()
                    .filter(|(r, h)| h.0.is_some_and(|o| o > s || (o == s && *r < rank)))
                    .count()
            });
            let want = match want {
                Some(r) => format!("{k},{rank},{r},{changed}"),
                None => format!("{k},{rank},,"),
            };
            assert_eq!(row.next().unwrap(), &want);
        }
    }

    // Figure 1: one point per size with a mean, drawn by a real browser; the other plots
    // have a point per line and size (two shares; four ranks; the gap).
    for (plot, points) in [("changed", 12), ("ranks", 24), ("gap", 6)] {
        let svg = std::fs::read_to_string(study.join(format!("{plot}.svg"))).unwrap();
        assert_eq!(svg.matches("<circle").count(), points, "{plot}");
    }
    let svg = std::fs::read_to_string(study.join("tau_a.svg")).unwrap();
    assert_eq!(svg.matches("<circle").count(), 6);
    let page = dir.path().join("figure.html");
    std::fs::write(
        &page,
        format!("<!doctype html><html><body>{svg}</body></html>"),
    )
    .unwrap();
    let (shot, dom) = (dir.path().join("shot.png"), dir.path().join("dom.html"));
    let script = root().join("scripts/report/headless_chromium.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args([&page, &shot, &dom])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed = std::fs::read_to_string(&dom).unwrap();
    assert_eq!(
        parsed.matches("<circle").count(),
        6,
        "the browser parsed every point"
    );
    assert!(std::fs::read(&shot).unwrap().starts_with(b"\x89PNG"));

    // The directory exists now: a second run refuses it rather than mixing two studies.
    let error = err(&[
        "rerank",
        "--nbest",
        path_str(&file("nbest.parquet")),
        "--sources",
        path_str(&file("sources.parquet")),
        "--phrase-table",
        path_str(&file("rules.parquet")),
        "--out",
        path_str(&study),
    ]);
    assert!(error.contains("already exists"), "{error}");
}

#[test]
fn bad_arguments_are_refused_before_any_output() {
    let dir = TempDir::new().unwrap();
    generate(dir.path());
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Sources for sentences 0 and 1 only.
    std::fs::write(dir.path().join("two.txt"), "s0\ns1\n").unwrap();
    ok(&[
        "import",
        "text",
        "--src",
        &file("two.txt"),
        "--tgt",
        &file("two.txt"),
        "--out",
        &file("two.parquet"),
    ]);
    let run = |sources: &str, sizes: &str| {
        err(&[
            "rerank",
            "--nbest",
            &file("nbest.parquet"),
            "--sources",
            &file(sources),
            "--phrase-table",
            &file("rules.parquet"),
            "--sizes",
            sizes,
            "--out",
            &file("study"),
        ])
    };
    let error = run("two.parquet", "5");
    assert!(
        error.contains("3 n-best ids have no source sentence") && error.contains("the first 2"),
        "{error}"
    );
    let error = run("sources.parquet", "1,5");
    assert!(error.contains("--sizes: 1 is too small"), "{error}");
    assert!(!dir.path().join("study").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".study"))
        .collect();
    assert!(leftovers.is_empty());
}

/// `decode`'s n-best lines, compared feature by feature: a hypothesis's score changed when its
/// derivation's `phrase=` is not its true score (the best derivation), whatever distortion its
/// total adds; compared by totals, every reordered one changes.
#[test]
fn decoder_lists_compared_feature_by_feature() {
    let dir = TempDir::new().unwrap();
    let file = |name: &str| dir.path().join(name);
    let example = |name: &str| root().join("data/chevelu-example").join(name);
    let (rules, nbest, sources) = (
        file("rules.parquet"),
        file("nbest.txt"),
        file("sources.parquet"),
    );
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&example("phrase-table")),
        "--out",
        path_str(&rules),
    ]);
    let lines = ok(&[
        "decode",
        path_str(&example("source.txt")),
        "--phrase-table",
        path_str(&rules),
        "--nbest",
        "40",
    ]);
    std::fs::write(&nbest, &lines).unwrap();
    let imported = file("nbest.parquet");
    ok(&[
        "import",
        "moses-nbest",
        "--nbest",
        path_str(&nbest),
        "--out",
        path_str(&imported),
    ]);
    let source = example("source.txt");
    import_text(&source, &source, &sources);
    let study = |name: &str, extra: &[&str]| {
        let out = file(name);
        let mut args = vec![
            "rerank",
            "--nbest",
            path_str(&imported),
            "--sources",
            path_str(&sources),
            "--phrase-table",
            path_str(&rules),
            "--sizes",
            "2",
            "--out",
            path_str(&out),
        ];
        args.extend(extra);
        ok(&args);
        csv_rows(
            &[],
            &[("h", &out.join("hypotheses.parquet"))],
            "SELECT hyp, true_score, score_changed FROM h ORDER BY rank",
        )
    };
    let by_feature = study("by_feature", &["--phrase-feature", "phrase="]);
    let by_total = study("by_total", &[]);
    assert_eq!(by_feature.len(), lines.lines().count());
    let mut changed = 0;
    for ((line, feature), total) in lines.lines().zip(&by_feature).zip(&by_total) {
        let fields: Vec<&str> = line.split(" ||| ").collect();
        let phrase: f64 = fields[2].split(' ').nth(1).unwrap().parse().unwrap();
        let true_score = feature.split(',').nth(1).unwrap();
        let expected = match true_score.parse::<f64>() {
            Ok(t) => ((t - phrase).abs() > 1e-4).to_string(),
            Err(_) => String::new(),
        };
        assert_eq!(
            feature,
            &format!("{},{true_score},{expected}", fields[1]),
            "{line}"
        );
        changed += usize::from(expected == "true");
        // In order, the total is the phrase score; reordered, no monotone derivation reaches
        // the sentence.
        match fields[2].contains(" distortion= 0 ") {
            true => assert_eq!(total, feature),
            false => assert!(true_score.is_empty(), "{line}"),
        }
    }
    // `the young -> the` then `cat -> kitten` reaches the 1-best's sentence by a worse
    // derivation: its score changed.
    assert_eq!(changed, 2, "{by_feature:?}");
    // Such repeats are what `decode --distinct` avoids: rerank warns of them.
    let out = pairmetrics(&[
        "rerank",
        "--nbest",
        path_str(&imported),
        "--sources",
        path_str(&sources),
        "--phrase-table",
        path_str(&rules),
        "--sizes",
        "2",
        "--out",
        path_str(&file("warned")),
    ]);
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success()
            && warning.contains(
                "warning: 1 of 1 lists hold a hypothesis more than once (the first: list 0)"
            ),
        "{warning}"
    );

    let e = err(&[
        "rerank",
        "--nbest",
        path_str(&imported),
        "--sources",
        path_str(&sources),
        "--phrase-table",
        path_str(&rules),
        "--phrase-feature",
        "tm:",
        "--out",
        path_str(&file("missing")),
    ]);
    assert!(
        e.contains("12 n-best lines have no number after feature `tm:`"),
        "{e}"
    );
}

/// Figure 3 (`--versus`): each system's rank-1 score against the decoder's best true model
/// score per list, counted and differenced as by hand; a system without a list's sentence
/// leaves the sentence out, named.
#[test]
fn figure3_compares_each_system_with_the_reranked_decoder() {
    let dir = TempDir::new().unwrap();
    let lists = generate(dir.path());
    let file = |name: &str| dir.path().join(name);
    // System a has every sentence, b all but sentence 3; b's rank 2 rows must be ignored.
    let a = [-1.5, -0.25, -4.0, -2.0, -0.5];
    let mut rows_a = vec![];
    let mut rows_b = vec![];
    for (k, score) in a.iter().enumerate() {
        rows_a.push(format!("({k}, 1, {score:?})"));
        if k != 3 {
            rows_b.push(format!("({k}, 1, {:?})", score - 1.0 - k as f64));
            rows_b.push(format!("({k}, 2, 100.0)"));
        }
    }
    for (name, rows) in [("a.parquet", &rows_a), ("b.parquet", &rows_b)] {
        ok(&[
            "sql",
            "--out",
            path_str(&file(name)),
            &format!(
                "SELECT * FROM (VALUES {}) AS v(id, rank, model_score)",
                rows.join(", ")
            ),
        ]);
    }
    let study = file("study");
    let out = pairmetrics(&[
        "rerank",
        "--nbest",
        path_str(&file("nbest.parquet")),
        "--sources",
        path_str(&file("sources.parquet")),
        "--phrase-table",
        path_str(&file("rules.parquet")),
        "--sizes",
        "2,3",
        "--versus",
        &format!("sys_a={}", file("a.parquet").display()),
        "--versus",
        &format!("sys_b={}", file("b.parquet").display()),
        "--out",
        path_str(&study),
    ]);
    let printed = crate::common::stdout(&out);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "no list repeats a hypothesis"
    );
    // The decoder's re-ranked best: the best true score of the list.
    let decoder: Vec<f64> = (lists.iter())
        .map(|list| list.iter().filter_map(|h| h.0).fold(f64::MIN, f64::max))
        .collect();
    let b = |k: usize| a[k] - 1.0 - k as f64;
    let complete = [0, 1, 2, 4];
    let stats = |d: Vec<f64>| {
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let std = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        format!("{mean:.2} ± {std:.2}")
    };
    let a_minus = stats(complete.iter().map(|&k| a[k] - decoder[k]).collect());
    let b_minus = stats(complete.iter().map(|&k| b(k) - decoder[k]).collect());
    let a_b = stats(complete.iter().map(|&k| a[k] - b(k)).collect());
    assert!(
        printed.contains(
            "Figure 3: true model scores of the best paraphrases, 4 sentences \
             (left out: 1 without a paraphrase from sys_b)"
        ),
        "{printed}"
    );
    for (label, value) in [
        ("sys_a - decoder", a_minus),
        ("sys_b - decoder", b_minus),
        ("sys_a - sys_b", a_b),
    ] {
        assert!(
            printed.contains(&format!("  {label:<15} {value:>15}")),
            "{label} {value}\n{printed}"
        );
    }
    assert!(printed.contains("|versus=sys_a,sys_b"), "{printed}");
    // figure3.parquet: a row per list, ordered by the decoder's score.
    let rows = csv_rows(
        &[],
        &[("f", &study.join("figure3.parquet"))],
        "SELECT * FROM f",
    );
    let mut order: Vec<usize> = (0..5).collect();
    order.sort_by(|&i, &j| decoder[i].total_cmp(&decoder[j]).then(i.cmp(&j)));
    let want: Vec<String> = (order.iter())
        .map(|&k| {
            let b = if k == 3 {
                String::new()
            } else {
                format!("{:?}", b(k))
            };
            format!("{k},{:?},{:?},{b}", decoder[k], a[k])
        })
        .collect();
    assert_eq!(rows, want);
    // The plot: a point per complete sentence and line (decoder, a, b).
    let svg = std::fs::read_to_string(study.join("figure3.svg")).unwrap();
    assert_eq!(svg.matches("<circle").count(), 12, "{svg}");
    assert!(
        svg.contains("<title>sentence 1: decoder (re-ranked)"),
        "{svg}"
    );

    // Names that cannot be a column, and tables without the columns read, are refused.
    for (versus, expected) in [
        ("decoder=a.parquet", "not id or decoder"),
        ("Sys=a.parquet", "lowercase letters"),
        ("sys", "expected NAME=TABLE"),
        ("sys=missing.parquet", "no such file"),
        ("sys=sources.parquet", "expected a column id (integer)"),
    ] {
        let versus = match versus.split_once('=') {
            Some((name, table)) => format!("{name}={}", file(table).display()),
            None => versus.to_string(),
        };
        let e = err(&[
            "rerank",
            "--nbest",
            path_str(&file("nbest.parquet")),
            "--sources",
            path_str(&file("sources.parquet")),
            "--phrase-table",
            path_str(&file("rules.parquet")),
            "--versus",
            &versus,
            "--out",
            path_str(&file("refused")),
        ]);
        assert!(e.contains(expected), "{versus}: {e}");
        assert!(!file("refused").exists());
    }
}

/// `scripts/chevelu_study.sh` on a small configuration: every step runs, and the summary has
/// the shape the guide quotes (its header, the full lists, a row per size, Figure 3's three
/// differences), beside the plots and the per-sentence table.
#[test]
fn the_study_script_writes_its_summary_and_plots() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("study");
    let run = Command::new("bash")
        .arg(root().join("scripts/chevelu_study.sh"))
        .arg(&out)
        .envs([
            ("PAIRMETRICS", env!("CARGO_BIN_EXE_pairmetrics")),
            ("SAMPLE", "5"),
            ("SEED", "7"),
            ("NBEST", "10"),
            ("ETA", "50"),
            ("LM_ORDER", "2"),
            ("ALIGNMENTS", "bundled"),
            ("TRAIN_PAIRS", "300"),
            ("MODEL", "moses"),
        ])
        .output()
        .unwrap();
    let summary = crate::common::stdout(&run);
    assert_eq!(
        std::fs::read_to_string(out.join("summary.txt")).unwrap(),
        summary
    );
    let lines: Vec<&str> = summary.lines().collect();
    assert!(lines[1].starts_with("commit: "), "{summary}");
    assert_eq!(lines[2], "sample: 5 sentences, seed 7; training pairs: 300");
    assert_eq!(
        lines[3],
        "nbest: 10 distinct; decoder model: moses; reordering: distortion; lm order: 2; alignments: bundled; eta: 50"
    );
    assert!(lines[4].ends_with("paraphrase rules"), "{summary}");
    let full = lines
        .iter()
        .find(|l| l.starts_with("full lists: "))
        .unwrap();
    assert!(full.ends_with("of 5 have at least 10 hypotheses; every size is measured over them"));
    for n in ["5", "10"] {
        assert!(
            lines.iter().any(|l| l.split_whitespace().next() == Some(n)),
            "no row for n = {n}\n{summary}"
        );
    }
    for label in [
        "mcpg_true_score - decoder",
        "mcpg_translator - decoder",
        "mcpg_true_score - mcpg_translator",
    ] {
        assert!(
            lines.iter().any(|l| l.trim_start().starts_with(label)),
            "{label}\n{summary}"
        );
    }
    assert!(
        !String::from_utf8_lossy(&run.stderr).contains("lists hold a hypothesis more than once"),
        "the lists are distinct"
    );
    // The sample is the seed's: five distinct sentences, none of them in the training pairs.
    let sample = csv_rows(
        &[],
        &[
            ("h", &out.join("held-out.parquet")),
            ("t", &out.join("train-pairs.parquet")),
        ],
        "SELECT count(DISTINCT pair_id), (SELECT count(*) FROM t WHERE pair_id IN (SELECT pair_id FROM h)) FROM h",
    );
    assert_eq!(sample, ["5,0"]);
    for file in [
        "tau_a.svg",
        "changed.svg",
        "ranks.svg",
        "gap.svg",
        "figure3.svg",
        "figure3.parquet",
    ] {
        assert!(out.join("study").join(file).is_file(), "{file}");
    }
}
