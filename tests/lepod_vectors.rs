//! Every `tests/vectors/lepod/` case (copied from ../shared/testvectors, produced by the original
//! lepod-score.py with `-l -d 4 -p ","`), checked at the UDF level through SQL.

use std::fs;
use std::io::BufReader;

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
    text.lines().map(|l| l.split('\t').next().unwrap().to_string()).collect()
}

fn expected(case: &str) -> Expected {
    let dir = vectors().join("lepod");
    let stdout = fs::read_to_string(dir.join(format!("{case}.expected.stdout"))).unwrap();
    let corpus = |key: &str| {
        stdout.lines().find_map(|l| l.strip_prefix(key)).unwrap().to_string()
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
    let file = fs::File::open(dir.join(format!("{case}.alignment"))).unwrap();
    let blocks: Vec<_> = Blocks::new(BufReader::new(file)).collect::<Result<_, _>>().unwrap();
    let s1: Vec<&str> = s1.lines().collect();
    let s2: Vec<&str> = s2.lines().collect();
    assert_eq!((blocks.len(), s1.len()), (s2.len(), s2.len()));
    for (i, block) in blocks.iter().enumerate() {
        assert_eq!(block.number, i as u64 + 1);
    }
    let links: Vec<_> = blocks
        .iter()
        .map(|b| Some(b.links().iter().map(|&(s, t)| (s as i32, t as i32)).collect()))
        .collect();
    let ctx = context();
    register(
        &ctx,
        "v",
        batch(vec![("src", sentences(&s1)), ("tgt", sentences(&s2)), ("links", link_lists(&links))]),
    );
    let sql = "SELECT led(lowercase_tokens(src), lowercase_tokens(tgt), links), \
               pod(lowercase_tokens(src), lowercase_tokens(tgt), links, ',') FROM v ORDER BY pair_id";
    let led = floats(&ctx, sql, 0).await;
    let pod = floats(&ctx, sql, 1).await;
    led.into_iter().zip(pod).map(|(l, p)| (l.unwrap(), p.unwrap())).collect()
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
    assert_eq!(format!("{:.4}", mean(|s| s.0)), want.corpus_led, "{case}: corpus LeD");
    assert_eq!(format!("{:.4}", mean(|s| s.1)), want.corpus_pod, "{case}: corpus PoD");
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
