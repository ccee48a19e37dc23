//! `pairmetrics report`: the page's figures against SQL over the same table, the drawn pairs
//! against their scores, a comparison of two systems, bad arguments, and the page rendered in
//! a real headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{csv_rows, err, ok, pairmetrics, path_str, root, sample};

/// The bundled sample scored as the demo scores it (lowercased), or as given by `extra`.
fn scored(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let data = sample();
    let [pairs, alignments, arcs] =
        ["pairs", "alignments", "arcs"].map(|t| data.join(format!("{t}.parquet")));
    let mut args = vec![
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--arcs",
        path_str(&arcs),
    ];
    args.extend(["--punct", ".,;:!?\"'()", "--out", path_str(&out)]);
    args.extend(extra);
    ok(&args);
    out
}

/// The `<svg>...</svg>` pictures of a page.
fn pictures(html: &str) -> Vec<&str> {
    html.match_indices("<svg")
        .map(|(i, _)| &html[i..i + html[i..].find("</svg>").unwrap()])
        .collect()
}

/// The numbers `N` of every `: N pairs</title>` in a picture (a histogram's bars).
fn bar_counts(svg: &str) -> Vec<u64> {
    svg.match_indices(" pairs</title>")
        .map(|(i, _)| {
            let head = &svg[..i];
            head[head.rfind(": ").unwrap() + 2..].parse().unwrap()
        })
        .collect()
}

/// The tokens of a pair drawing, as (position, not kept by LeD), src's then tgt's.
fn drawn_tokens(svg: &str) -> Vec<(usize, bool)> {
    svg.match_indices("<title>")
        .filter_map(|(i, _)| {
            let title = &svg[i + 7..i + svg[i..].find("</title>").unwrap()];
            let (position, rest) = title.split_once(": ")?;
            Some((position.parse().ok()?, rest.ends_with("(not kept by LeD)")))
        })
        .collect()
}

#[test]
fn report_of_the_sample_counts_every_row_and_draws_pairs_as_scored() {
    let dir = tempfile::tempdir().unwrap();
    let table = scored(dir.path(), "scored.parquet", &["--lowercase"]);
    let page = dir.path().join("report.html");
    let printed = ok(&[
        "report",
        path_str(&table),
        "--out",
        path_str(&page),
        "--pairs",
        "3",
    ]);
    assert!(printed.contains("9 pairs drawn"), "{printed}");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing to load, no script.
    let outside = html.replace(r#"xmlns="http://www.w3.org/2000/svg""#, "");
    for forbidden in ["http:", "https:", "<script", "src=", "href=", "url("] {
        assert!(!outside.contains(forbidden), "the page holds `{forbidden}`");
    }
    let svgs = pictures(&html);
    // Histograms of led, pod and derp, two densities, 3 pairs in each of 3 lists.
    assert_eq!(svgs.len(), 3 + 2 + 9);
    let scored_rows = |metric: &str| -> u64 {
        csv_rows(
            &[],
            &[("s", &table)],
            &format!("SELECT count({metric}) FROM s"),
        )[0]
        .parse()
        .unwrap()
    };
    for (svg, metric) in svgs.iter().zip(["led", "pod", "derp"]) {
        assert!(svg.contains(&format!("histogram of {metric}")));
        assert_eq!(
            bar_counts(svg).iter().sum::<u64>(),
            scored_rows(metric),
            "{metric}"
        );
    }
    // The most reordered pairs, in the order SQL gives them.
    let want = csv_rows(
        &[],
        &[("s", &table)],
        "SELECT pair_id FROM s WHERE pod IS NOT NULL ORDER BY pod DESC, pair_id LIMIT 3",
    );
    let list =
        &html[html.find("The 3 most reordered").unwrap()..html.find("The 3 most changed").unwrap()];
    let drawn: Vec<String> = list
        .match_indices("<b>pair ")
        .map(|(i, _)| list[i + 8..].split('<').next().unwrap().to_string())
        .collect();
    assert_eq!(drawn, want);
    // Each drawing marks the tokens LeD does not keep: they give the pair's led.
    for (i, _) in html.match_indices("<b>pair ") {
        let rest = &html[i..];
        let led: f64 = rest[rest.find("led ").unwrap() + 4..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let tokens = drawn_tokens(&rest[rest.find("<svg").unwrap()..rest.find("</svg>").unwrap()]);
        let tgt_start = tokens.iter().skip(1).position(|&(p, _)| p == 0).unwrap() + 1;
        let share = |t: &[(usize, bool)]| t.iter().filter(|x| x.1).count() as f64 / t.len() as f64;
        let from_drawing = (share(&tokens[..tgt_start]) + share(&tokens[tgt_start..])) / 2.0;
        assert!(
            (from_drawing - led).abs() < 1e-4,
            "drawn {from_drawing}, scored {led}"
        );
    }
    assert!(html.contains("MST edge"), "DERP's trees are drawn");
    assert!(
        html.contains("empty sentence (src)"),
        "NULL reasons are listed"
    );
}

#[test]
fn report_of_two_systems_compares_them_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let base = scored(dir.path(), "lowercased.parquet", &["--lowercase"]);
    let cased = scored(dir.path(), "cased.parquet", &[]);
    let page = dir.path().join("compare.html");
    let printed = ok(&[
        "report",
        path_str(&base),
        path_str(&cased),
        "--out",
        path_str(&page),
        "--pairs",
        "2",
        "--resamples",
        "200",
        "--trials",
        "200",
    ]);
    assert!(printed.contains("4 pairs drawn"), "{printed}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Is the difference real?")
            && html.contains("compare:bs=200:ar=200:seed=12345:level=0.95")
    );
    // Case matters to LeD only: its delta is positive (fewer tokens kept), PoD's is 0 with p = 1.
    assert!(
        html.contains("<td>1.0000</td><td>1.0000</td>"),
        "pod's p-values are 1"
    );
    let svgs = pictures(&html);
    // Three overlaid histograms, two densities each; only led differs: its 2 pairs, drawn twice.
    assert_eq!(svgs.len(), 3 + 2 * 2 + 2 * 2);
    assert_eq!(
        html.matches("No pair to show").count(),
        2,
        "pod and derp do not differ"
    );
    assert_eq!(
        svgs[0].matches("<polygon").count(),
        2,
        "one outline per system"
    );
    let want = csv_rows(
        &[],
        &[("b", &base), ("s", &cased)],
        "SELECT b.pair_id FROM b JOIN s ON b.pair_id = s.pair_id WHERE b.led IS NOT NULL AND s.led IS NOT NULL \
         ORDER BY abs(s.led - b.led) DESC, b.pair_id LIMIT 1",
    );
    let list = &html[html.find("differs most from the baseline in led").unwrap()..];
    assert!(list.starts_with(&format!(
        "differs most from the baseline in led</h3><div class=\"pair side\">"
    )));
    assert!(list.contains(&format!("<b>pair {}</b>", want[0])));
}

#[test]
fn report_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let table = scored(dir.path(), "scored.parquet", &[]);
    let page = dir.path().join("r.html");
    let alignments = sample().join("alignments.parquet");
    let error = err(&[
        "report",
        path_str(&table),
        "--out",
        path_str(&page),
        "--alignments",
        path_str(&alignments),
        "--alignments",
        path_str(&alignments),
    ]);
    assert!(
        error.contains("--alignments given 2 times for 1 table(s)"),
        "{error}"
    );
    let error = err(&["report", path_str(&alignments), "--out", path_str(&page)]);
    assert!(error.contains("no score column"), "{error}");
    assert!(!page.exists(), "nothing written on an error");
    let error = err(&[
        "report",
        path_str(&table),
        "--out",
        "/nonexistent/dir/r.html",
    ]);
    assert!(
        error.contains("output directory /nonexistent/dir does not exist"),
        "{error}"
    );
    // A table whose recorded alignments are gone is still reported, its pairs without links.
    let moved = dir.path().join("copy.parquet");
    let copy_alignments = dir.path().join("alignments.parquet");
    std::fs::copy(&alignments, &copy_alignments).unwrap();
    let data = sample();
    ok(&[
        "score",
        "--pairs",
        path_str(&data.join("pairs.parquet")),
        "--alignments",
        path_str(&copy_alignments),
        "--out",
        path_str(&moved),
    ]);
    std::fs::remove_file(&copy_alignments).unwrap();
    let out = pairmetrics(&["report", path_str(&moved), "--out", path_str(&page)]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("its alignments") && stderr.contains("are gone; pass --alignments"),
        "{stderr}"
    );
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("LeD and PoD not drawn: no alignment to draw with")
    );
}

/// A received file whose footer records its alignments at a URL elsewhere (a planted
/// `http://` address) makes no request there: the report says what was recorded and draws
/// without it.
#[test]
fn report_follows_no_recorded_input_elsewhere() {
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use datafusion::parquet::file::metadata::KeyValue;
    use datafusion::parquet::file::properties::WriterProperties;
    let dir = tempfile::tempdir().unwrap();
    let table = scored(dir.path(), "scored.parquet", &[]);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let planted = format!(
        "http://{}/alignments.parquet",
        listener.local_addr().unwrap()
    );
    // The same rows, the footer's recorded alignments replaced by the planted address.
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&table).unwrap()).unwrap();
    let metadata: Vec<KeyValue> = reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .unwrap()
        .iter()
        .map(|kv| {
            let value = kv.value.as_ref().map(|v| {
                v.replace(
                    &serde_json::to_string(path_str(&sample().join("alignments.parquet"))).unwrap(),
                    &serde_json::to_string(&planted).unwrap(),
                )
            });
            KeyValue::new(kv.key.clone(), value)
        })
        .collect();
    assert!(
        metadata
            .iter()
            .any(|kv| kv.value.as_deref().is_some_and(|v| v.contains(&planted))),
        "the footer records the alignments"
    );
    let received = dir.path().join("received.parquet");
    let schema = reader.schema().clone();
    let properties = WriterProperties::builder()
        .set_key_value_metadata(Some(metadata))
        .build();
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(&received).unwrap(),
        schema,
        Some(properties),
    )
    .unwrap();
    for batch in reader.build().unwrap() {
        writer.write(&batch.unwrap()).unwrap();
    }
    writer.close().unwrap();
    let page = dir.path().join("r.html");
    let out = pairmetrics(&["report", path_str(&received), "--out", path_str(&page)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&planted) && stderr.contains("not where the table is"),
        "{stderr}"
    );
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("report connected to the planted address: {other:?}"),
    }
}

/// Needs Debian's chromium: scripts/report/headless_chromium.sh installs it when missing.
#[test]
fn report_renders_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let table = scored(dir.path(), "scored.parquet", &["--lowercase"]);
    let page = dir.path().join("report.html");
    ok(&["report", path_str(&table), "--out", path_str(&page)]);
    let (shot, dom) = (dir.path().join("shot.png"), dir.path().join("dom.html"));
    let script = root().join("scripts/report/headless_chromium.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args([&page, &shot, &dom])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed ({}): {stderr}",
        script.display(),
        out.status
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("console:"),
        "the page wrote to the console:\n{stdout}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let parsed = std::fs::read_to_string(&dom).unwrap();
    assert_eq!(
        parsed.matches("<svg").count(),
        html.matches("<svg").count(),
        "every picture parsed"
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "a screenshot with something in it: {} bytes",
        png.len()
    );
}
