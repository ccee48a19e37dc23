//! Every `tests/vectors/lepod/` case (the project's reference vectors, produced by the original
//! lepod-score.py with `-l -d 4 -p ","`), checked at the UDF level through SQL.

use std::fs;
use std::io::BufReader;
use std::path::PathBuf;

use pairmetrics::formats::input::Lines;
use pairmetrics::formats::meteor::Blocks;

use crate::common::*;

struct Expected {
    led: Vec<String>,
    pod: Vec<String>,
    corpus_led: String,
    corpus_pod: String,
}

fn first_column(path: &std::path::Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

fn expected(case: &str) -> Expected {
    let dir = vectors().join("lepod");
    let stdout = fs::read_to_string(dir.join(format!("{case}.expected.stdout"))).unwrap();
    let corpus = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap()
            .to_string()
    };
    Expected {
        led: first_column(&dir.join(format!("{case}.expected.led"))),
        pod: first_column(&dir.join(format!("{case}.expected.pod"))),
        corpus_led: corpus("LeD="),
        corpus_pod: corpus("PoD="),
    }
}

/// (led, pod) per pair through SQL, as `lepod-score.py -l -p ","` computes them.
async fn scores(case: &str) -> Vec<(f64, f64)> {
    let dir = vectors().join("lepod");
    let s1 = fs::read_to_string(dir.join(format!("{case}.s1"))).unwrap();
    let s2 = fs::read_to_string(dir.join(format!("{case}.s2"))).unwrap();
    let path = dir.join(format!("{case}.alignment"));
    let lines = Lines::new(BufReader::new(fs::File::open(&path).unwrap()), &path);
    let blocks: Vec<_> = Blocks::new(lines).collect::<Result<_, _>>().unwrap();
    let s1: Vec<&str> = s1.lines().collect();
    let s2: Vec<&str> = s2.lines().collect();
    assert_eq!((blocks.len(), s1.len()), (s2.len(), s2.len()));
    for (i, block) in blocks.iter().enumerate() {
        assert_eq!(block.number, i as u64 + 1);
    }
    let links: Vec<_> = blocks
        .iter()
        .map(|b| {
            Some(
                b.links()
                    .iter()
                    .map(|&(s, t)| (s as i32, t as i32))
                    .collect(),
            )
        })
        .collect();
    let ctx = context();
    register(
        &ctx,
        "v",
        batch(vec![
            ("src", sentences(&s1)),
            ("tgt", sentences(&s2)),
            ("links", link_lists(&links)),
        ]),
    );
    let sql = "SELECT led(s, t, links), pod(s, t, links, ','), x['led'], x['pod'], x['problem'] \
               FROM (SELECT *, lepod(s, t, links, ',') AS x \
                     FROM (SELECT pair_id, lowercase_tokens(src) AS s, lowercase_tokens(tgt) AS t, links FROM v)) \
               ORDER BY pair_id";
    let led = floats(&ctx, sql, 0).await;
    let pod = floats(&ctx, sql, 1).await;
    // lepod, which `score` uses, gives both at once, the same to the last bit.
    assert_eq!(floats(&ctx, sql, 2).await, led);
    assert_eq!(floats(&ctx, sql, 3).await, pod);
    assert!(strings(&ctx, sql, 4).await.iter().all(Option::is_none));
    led.into_iter()
        .zip(pod)
        .map(|(l, p)| (l.unwrap(), p.unwrap()))
        .collect()
}

async fn check_case(case: &str) -> Vec<(f64, f64)> {
    let want = expected(case);
    let got = scores(case).await;
    let led: Vec<String> = got.iter().map(|(l, _)| format!("{l:.4}")).collect();
    let pod: Vec<String> = got.iter().map(|(_, p)| format!("{p:.4}")).collect();
    assert_eq!(led, want.led, "{case}: LeD per pair");
    assert_eq!(pod, want.pod, "{case}: PoD per pair");
    // Corpus scores: plain means, summed sequentially in file order.
    let n = got.len() as f64;
    let mean = |f: fn(&(f64, f64)) -> f64| got.iter().map(f).sum::<f64>() / n;
    assert_eq!(
        format!("{:.4}", mean(|s| s.0)),
        want.corpus_led,
        "{case}: corpus LeD"
    );
    assert_eq!(
        format!("{:.4}", mean(|s| s.1)),
        want.corpus_pod,
        "{case}: corpus PoD"
    );
    got
}

#[tokio::test]
async fn readme_figure_gives_led_0_4_and_pod_0_5() {
    let got = check_case("readme_figure").await;
    assert_eq!(got.len(), 1);
    assert!((got[0].0 - 0.4).abs() < 1e-12, "LeD {}", got[0].0);
    assert_eq!(got[0].1, 0.5);
}

#[tokio::test]
async fn edge_pairs_match_the_original() {
    let got = check_case("edge").await;
    // Hand-worked: "a lot of" <-> "many" is one unit whose tokens differ.
    assert_eq!(got[0].0, (3.0 / 7.0 + 1.0 / 5.0) / 2.0);
    // Nothing aligned: every token differs, no unit moves.
    assert_eq!(got[2], (1.0, 0.0));
    // A rotation by one: the moved word's rank shifts by 4 of 5.
    assert_eq!(got[3], (0.0, 0.8));
    // The comma's unit is ignored by PoD: y and x swap around z.
    assert_eq!(got[5].1, 2.0 / 3.0);
}

/// Run `pairmetrics lepod` with `args` in `dir`; returns stdout.
fn lepod_cli(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .arg("lepod")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn assert_same_file(got: &std::path::Path, want: &std::path::Path) {
    let (g, w) = (fs::read(got).unwrap(), fs::read(want).unwrap());
    assert!(
        g == w,
        "{} differs from {}:\n{}",
        got.display(),
        want.display(),
        String::from_utf8_lossy(&g)
    );
}

#[test]
fn lepod_command_is_byte_identical_to_the_original() {
    let v = vectors().join("lepod");
    let o = vectors().join("lepod_options");
    let dir = tempfile::TempDir::new().unwrap();
    let input = |case: &str, ext: &str| v.join(format!("{case}.{ext}")).display().to_string();
    // (case, options, prefix, expected stdout, expected .led/.pod prefix)
    let runs: Vec<(&str, Vec<&str>, Option<&str>, PathBuf, Option<PathBuf>)> = vec![
        (
            "edge",
            vec!["-l", "-d", "4", "-p", ","],
            Some("out"),
            v.join("edge.expected.stdout"),
            Some(v.join("edge.expected")),
        ),
        (
            "readme_figure",
            vec!["-l", "-d", "4", "-p", ","],
            Some("out"),
            v.join("readme_figure.expected.stdout"),
            Some(v.join("readme_figure.expected")),
        ),
        (
            "edge",
            vec!["-l", "-d", "4", "-p", ",", "-v"],
            None,
            o.join("edge.l_d4_pcomma_v.stdout"),
            None,
        ),
        (
            "edge",
            vec!["-s"],
            Some("out"),
            o.join("edge.default_s.stdout"),
            Some(o.join("edge.default")),
        ),
        (
            "readme_figure",
            vec!["-d", "2", "-p", ",.", "-v"],
            Some("out"),
            o.join("readme_figure.d2_v.stdout"),
            Some(o.join("readme_figure.d2")),
        ),
    ];
    for (case, options, prefix, stdout, files) in runs {
        let (align, s1, s2) = (
            input(case, "alignment"),
            input(case, "s1"),
            input(case, "s2"),
        );
        let mut args: Vec<&str> = options.clone();
        args.extend(["-a", &align, "-f", &s1, &s2]);
        if let Some(p) = prefix {
            args.extend(["-r", p]);
        }
        let out = lepod_cli(dir.path(), &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        fs::write(dir.path().join("stdout"), &out.stdout).unwrap();
        assert_same_file(&dir.path().join("stdout"), &stdout);
        if let Some(want) = files {
            for ext in ["led", "pod"] {
                let want = PathBuf::from(format!("{}.{ext}", want.display()));
                assert_same_file(&dir.path().join(format!("out.{ext}")), &want);
            }
        }
    }
}

#[test]
fn lepod_command_reports_what_the_original_crashes_on() {
    let dir = tempfile::TempDir::new().unwrap();
    let d = dir.path();
    let header = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n";
    let block = |n: usize, m: &str| format!("Alignment {n}\nx\nx\n{header}{m}\n");
    let cases: Vec<(&str, &str, String, &str)> = vec![
        (
            "a b\n\n",
            "a b\nc\n",
            block(1, "0:1\t\t\t0:1\t\t\t0\t\t1.0\n") + &block(2, ""),
            "s1:2: empty sentence",
        ),
        (
            "a b\n",
            "a\n",
            block(1, "0:1\t\t\t5:1\t\t\t0\t\t1.0\n"),
            "align:1: alignment block 1 (pair 1): link position 5 outside the src sentence of 2 tokens",
        ),
        (
            "a b\n",
            "a\n",
            block(1, "0:1 0-1 0 1.0\n"),
            "align:5: expected `start:len  start:len  module  score`, found `0:1 0-1 0 1.0`",
        ),
        (
            "a b\nc\n",
            "a\nc\n",
            block(1, ""),
            "align: the alignment file ends before pair 2",
        ),
        ("", "", String::new(), "no pairs were read"),
    ];
    for (s1, s2, align, want) in cases {
        fs::write(d.join("s1"), s1).unwrap();
        fs::write(d.join("s2"), s2).unwrap();
        fs::write(d.join("align"), align).unwrap();
        let out = lepod_cli(d, &["-a", "align", "-f", "s1", "s2", "-r", "out"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(want),
            "want {want:?}, got {err}"
        );
        assert!(!d.join("out.led").exists() && !d.join("out.pod").exists());
    }
}

#[test]
fn lepod_command_drops_units_with_punctuation_on_one_side() {
    // SPEC's decision where the original asserts: "," <-> ";" is dropped from PoD.
    let dir = tempfile::TempDir::new().unwrap();
    let d = dir.path();
    fs::write(d.join("s1"), "x , y\n").unwrap();
    fs::write(d.join("s2"), "y ; x\n").unwrap();
    let m = "2:1\t\t\t0:1\t\t\t0\t\t1.0\n1:1\t\t\t1:1\t\t\t0\t\t1.0\n0:1\t\t\t2:1\t\t\t0\t\t1.0\n";
    fs::write(d.join("align"), format!("Alignment 1\nx , y\ny ; x\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n{m}\n")).unwrap();
    let out = lepod_cli(
        d,
        &["-a", "align", "-f", "s1", "s2", "-p", ",", "-s", "-d", "4"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "LeD=0.3333 PoD=0.5000\n"
    );
}

#[tokio::test]
async fn lepod_inputs_through_import_meteor_and_sql_give_the_same_numbers() {
    let v = vectors().join("lepod");
    let dir = tempfile::TempDir::new().unwrap();
    let d = dir.path();
    let pm = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    for case in ["edge", "readme_figure"] {
        let path = |ext: &str| v.join(format!("{case}.{ext}")).display().to_string();
        let pairs = d
            .join(format!("{case}.pairs.parquet"))
            .display()
            .to_string();
        let aligns = d
            .join(format!("{case}.align.parquet"))
            .display()
            .to_string();
        pm(&[
            "import",
            "text",
            "--src",
            &path("s1"),
            "--tgt",
            &path("s2"),
            "--out",
            &pairs,
            "--lowercase",
        ]);
        pm(&[
            "import",
            "meteor",
            "--alignments",
            &path("alignment"),
            "--out",
            &aligns,
        ]);
        let csv = pm(&[
            "sql",
            "--format",
            "csv",
            "--table",
            &format!("p={pairs}"),
            "--table",
            &format!("a={aligns}"),
            "SELECT led(src, tgt, links) AS led, pod(src, tgt, links, ',') AS pod FROM p JOIN a USING (pair_id) ORDER BY pair_id",
        ]);
        let want = expected(case);
        let got: Vec<(String, String)> = csv
            .lines()
            .skip(1)
            .map(|l| {
                let (a, b) = l.split_once(',').unwrap();
                (
                    format!("{:.4}", a.parse::<f64>().unwrap()),
                    format!("{:.4}", b.parse::<f64>().unwrap()),
                )
            })
            .collect();
        let (led, pod): (Vec<String>, Vec<String>) = got.into_iter().unzip();
        assert_eq!((led, pod), (want.led, want.pod), "{case}");
    }
}
