//! OpusFilter 3.3.1's filters against OpusFilter's own scores (tests/data/opusfilter, made by
//! scripts/make_opusfilter_vectors.py): every score of every pair, through SQL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};

use crate::common::{self, root};

fn pairs() -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(root().join("tests/data/opusfilter/pairs.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let pair: serde_json::Value = serde_json::from_str(line).unwrap();
            let side = |k: &str| pair[k].as_str().unwrap().to_string();
            (side("src"), side("tgt"))
        })
        .unzip()
}

/// Each filter's columns, as SQL over `src` and `tgt`: one per side where OpusFilter writes a
/// list, else one.
fn columns(name: &str) -> Vec<String> {
    let sides = |f: &dyn Fn(&str) -> String| vec![f("src"), f("tgt")];
    let regex = |pattern: &str| sides(&|s| format!("regex_search({s}, '{pattern}')"));
    match name {
        "length_word" => sides(&|s| format!("segment_length({s}, 'word')")),
        "length_char" => sides(&|s| format!("segment_length({s}, 'char')")),
        "length_ratio_word" => vec!["length_ratio(src, tgt, 'word')".into()],
        "length_ratio_char" => vec!["length_ratio(src, tgt, 'char')".into()],
        "long_word" => sides(&|s| format!("longest_word({s})")),
        "average_word_length" => sides(&|s| format!("average_word_length({s})")),
        "alphabet_ratio" => sides(&|s| format!("alphabet_ratio({s})")),
        "alphabet_ratio_no_space" => sides(&|s| format!("alphabet_ratio({s}, true)")),
        "character_score_latin" => sides(&|s| format!("character_score({s}, 'Latin')")),
        "character_score_han_latin" => vec![
            "character_score(src, 'Han')".into(),
            "character_score(tgt, 'Latin')".into(),
        ],
        "character_score_cyrillic_latin" => vec![
            "character_score(src, 'Cyrillic')".into(),
            "character_score(tgt, 'Latin')".into(),
        ],
        "terminal_punctuation" => vec!["terminal_punctuation(src, tgt)".into()],
        "non_zero_numerals" => vec!["non_zero_numerals(src, tgt)".into()],
        "longest_common_substring" => vec!["longest_common_substring(src, tgt)".into()],
        "similarity" => vec!["levenshtein_similarity(src, tgt)".into()],
        "similarity_word_lower" => vec!["levenshtein_similarity(src, tgt, 'word', true)".into()],
        "similarity_weights" => {
            vec!["levenshtein_similarity(src, tgt, 'char', false, 1, 1, 2)".into()]
        }
        // OpusFilter's score is the larger side's count.
        "repetition" => vec!["greatest(repetitions(src), repetitions(tgt))".into()],
        "repetition_short" => {
            vec!["greatest(repetitions(src, 1, 2, 10), repetitions(tgt, 1, 2, 10))".into()]
        }
        "html_tags" => sides(&|s| format!("has_html_tag({s})")),
        "regexp_digits" => regex("\\d"),
        "regexp_tags" => regex("<[^>]+>"),
        "regexp_per_side" => vec![
            "regex_search(src, '[[:upper:]]{3,}')".into(),
            "regex_search(tgt, '(\\w)\\1')".into(),
        ],
        "regexp_posix" => regex("^[[:alpha:][:space:]]+$"),
        "regexp_posix_digit" => regex("[[:digit:]]"),
        "regexp_lookaround" => regex("(?<=\\s)\\d+(?=\\s)"),
        "regexp_ignorecase" => regex("(?i)straße|the"),
        "regexp_end" => regex("[.!?]\\Z"),
        "regexp_word_boundary" => regex("\\b\\w{12,}\\b"),
        other => panic!("no SQL for {other}"),
    }
}

/// A score as JSON writes it: a number, or "inf".
fn number(value: &serde_json::Value) -> f64 {
    match value {
        serde_json::Value::String(s) => s.parse().unwrap(),
        serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
        v => v.as_f64().unwrap(),
    }
}

#[tokio::test]
async fn every_filter_scores_as_opusfilter() {
    let (src, tgt) = pairs();
    let ctx = common::context();
    let batch = common::batch(vec![
        ("src", Arc::new(StringArray::from(src.clone())) as _),
        ("tgt", Arc::new(StringArray::from(tgt.clone())) as _),
    ]);
    common::register(&ctx, "p", batch);
    let expected =
        std::fs::read_to_string(root().join("tests/data/opusfilter/expected.jsonl")).unwrap();
    let mut filters = 0;
    for line in expected.lines() {
        let filter: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = filter["name"].as_str().unwrap();
        let scores = filter["scores"].as_array().unwrap();
        let columns = columns(name);
        let sql = format!("SELECT {} FROM p ORDER BY pair_id", columns.join(", "));
        let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let mut row = 0;
        for batch in &batches {
            for i in 0..batch.num_rows() {
                let want: Vec<f64> = match &scores[row] {
                    serde_json::Value::Array(per_side) => per_side.iter().map(number).collect(),
                    single => vec![number(single)],
                };
                let got: Vec<f64> = (0..columns.len())
                    .map(|c| {
                        let column = batch.column(c);
                        assert!(column.is_valid(i));
                        match column.data_type() {
                            DataType::Int64 => column.as_primitive::<Int64Type>().value(i) as f64,
                            DataType::Boolean => f64::from(u8::from(column.as_boolean().value(i))),
                            _ => column.as_primitive::<Float64Type>().value(i),
                        }
                    })
                    .collect();
                let equal = got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g == w || (g - w).abs() <= 1e-12);
                assert!(
                    equal && got.len() == want.len(),
                    "{name}, pair {row} ({:?} ||| {:?}): pairmetrics {got:?}, OpusFilter {want:?}",
                    src[row],
                    tgt[row]
                );
                row += 1;
            }
        }
        assert_eq!(row, src.len(), "{name}");
        filters += 1;
    }
    assert_eq!(filters, 29);
}

fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .arg("opusfilter")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A copy of tests/data/opusfilter/pipeline (its config and inputs) to run in.
fn pipeline_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = root().join("tests/data/opusfilter/pipeline");
    for name in ["config.yaml", "src.txt", "tgt.txt"] {
        std::fs::copy(data.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn decompressed(path: &std::path::Path) -> Vec<u8> {
    use std::io::Read;
    let file = std::fs::File::open(path).unwrap();
    let mut reader: Box<dyn Read> = match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(file)),
        Some("bz2") => Box::new(bzip2::read::MultiBzDecoder::new(file)),
        Some("xz") => Box::new(liblzma::read::XzDecoder::new(file)),
        _ => Box::new(file),
    };
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap();
    bytes
}

#[test]
fn the_drop_in_writes_what_opusfilter_writes() {
    let dir = pipeline_dir();
    let out = run_in(dir.path(), &["config.yaml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = root().join("tests/data/opusfilter/pipeline/expected");
    let mut compared = 0;
    for entry in std::fs::read_dir(dir.path().join("out")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        let plain = ["gz", "bz2", "xz"]
            .iter()
            .find_map(|ext| name.strip_suffix(&format!(".{ext}")))
            .unwrap_or(name);
        let want = std::fs::read(expected.join(plain)).unwrap();
        assert!(
            decompressed(&path) == want,
            "{name} differs from OpusFilter's"
        );
        compared += 1;
    }
    assert_eq!(compared, 20);

    // Outputs that exist are kept, unless --overwrite.
    let kept = dir.path().join("out/kept.src");
    std::fs::write(&kept, "mine\n").unwrap();
    assert!(run_in(dir.path(), &["config.yaml"]).status.success());
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "mine\n");
    assert!(
        run_in(dir.path(), &["config.yaml", "--single", "7", "--overwrite"]) // the filter step writing kept.src
            .status
            .success()
    );
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        std::fs::read(expected.join("kept.src")).unwrap()
    );
}

#[test]
fn what_it_cannot_run_is_refused_before_anything_is_written() {
    let dir = pipeline_dir();
    let config = std::fs::read_to_string(dir.path().join("config.yaml")).unwrap();
    for (change, says) in [
        (
            config.replace("type: head", "type: train_ngram"),
            "step type `train_ngram` is not supported",
        ),
        (
            config.replace("LongWordFilter:", "SentenceEmbeddingFilter:"),
            "filter SentenceEmbeddingFilter is not supported",
        ),
        (
            config.replace("  chunksize: 50", "  chunksize: [50"),
            "not a YAML configuration",
        ),
        (config.replace("n: 10", "n: ten"), "`n` must be an integer"),
    ] {
        std::fs::write(dir.path().join("bad.yaml"), change).unwrap();
        let out = run_in(dir.path(), &["bad.yaml"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{says}: {err}");
        assert!(
            !dir.path().join("out").exists(),
            "{says}: something was written"
        );
    }
}

#[test]
fn bad_inputs_name_the_file_and_line() {
    let dir = pipeline_dir();
    // Invalid UTF-8 on line 3 of the source.
    let mut src = std::fs::read(dir.path().join("src.txt")).unwrap();
    let third = src
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .unwrap()
        .0
        + 1;
    src.insert(third, 0xff);
    std::fs::write(dir.path().join("src.txt"), &src).unwrap();
    let out = run_in(dir.path(), &["config.yaml", "--single", "6"]); // the score step
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("src.txt:3: not UTF-8"),
        "{err}"
    );
    assert!(!dir.path().join("out/scores.jsonl").exists());

    // Inputs of different lengths: the shortest ends it, with a warning.
    let dir = pipeline_dir();
    let tgt = std::fs::read_to_string(dir.path().join("tgt.txt")).unwrap();
    let short: String = tgt.split_inclusive('\n').take(100).collect();
    std::fs::write(dir.path().join("tgt.txt"), short).unwrap();
    let out = run_in(dir.path(), &["config.yaml", "--single", "6"]); // the score step
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("different numbers of lines"),
        "{err}"
    );
    let scores = std::fs::read_to_string(dir.path().join("out/scores.jsonl")).unwrap();
    assert_eq!(scores.lines().count(), 100);

    // The first file longer by one line only: that line, read as the pair was tried, is what
    // makes it longer.
    let dir = pipeline_dir();
    let src = std::fs::read_to_string(dir.path().join("src.txt")).unwrap();
    let tgt = std::fs::read_to_string(dir.path().join("tgt.txt")).unwrap();
    let lines = |text: &str, n: usize| -> String { text.split_inclusive('\n').take(n).collect() };
    std::fs::write(dir.path().join("src.txt"), lines(&src, 101)).unwrap();
    std::fs::write(dir.path().join("tgt.txt"), lines(&tgt, 100)).unwrap();
    let out = run_in(dir.path(), &["config.yaml", "--single", "6"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success()
            && err.contains("different numbers of lines")
            && err.contains("src.txt"),
        "{err}"
    );
    let scores = std::fs::read_to_string(dir.path().join("out/scores.jsonl")).unwrap();
    assert_eq!(scores.lines().count(), 100);
}

/// The language-ID filters (tests/data/opusfilter/lid: py3langid 0.3.0, fastText, lingua in
/// both modes, restricted languages, thresholds): the score file and the filtered files as
/// OpusFilter 3.3.1 writes them.
#[test]
fn the_language_id_filters_write_what_opusfilter_writes() {
    let dir = tempfile::tempdir().unwrap();
    let data = root().join("tests/data/opusfilter");
    std::fs::copy(data.join("lid/config.yaml"), dir.path().join("config.yaml")).unwrap();
    for name in ["src.txt", "tgt.txt"] {
        std::fs::copy(data.join("pipeline").join(name), dir.path().join(name)).unwrap();
    }
    std::fs::copy(
        root().join("tests/data/lid/models/hs.ftz"),
        dir.path().join("hs.ftz"),
    )
    .unwrap();
    let out = run_in(dir.path(), &["config.yaml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = data.join("lid/expected");
    let mut compared = 0;
    for entry in std::fs::read_dir(&expected).unwrap() {
        let want = entry.unwrap().path();
        let name = want.file_name().unwrap().to_str().unwrap();
        let got = std::fs::read_to_string(dir.path().join("out").join(name)).unwrap();
        let want = std::fs::read_to_string(&want).unwrap();
        if name == "scores.jsonl" {
            // lingua sums over a hash map whose order changes from process to process, in
            // lingua-py as here: its confidences differ in the last digits from run to run.
            assert_eq!(got.lines().count(), want.lines().count());
            for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
                let (g, w): (serde_json::Value, serde_json::Value) = (
                    serde_json::from_str(g).unwrap(),
                    serde_json::from_str(w).unwrap(),
                );
                assert!(
                    same_json(&g, &w, 1e-12),
                    "line {}: {g} against OpusFilter's {w}",
                    i + 1
                );
            }
            let langid_and_fasttext = |text: &str| {
                text.lines()
                    .map(|l| l.split("\"LinguaFilter\"").next().unwrap().to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(langid_and_fasttext(&got), langid_and_fasttext(&want));
        } else {
            assert!(got == want, "{name} differs from OpusFilter's");
        }
        compared += 1;
    }
    assert_eq!(compared, 5);

    // OpusFilter's configuration errors, before anything is written.
    for (filter, error) in [
        (
            "LangidFilter: {}",
            "A list of language codes needs to be defined",
        ),
        ("FastTextFilter: {languages: [en, de]}", "model_path"),
        (
            "LinguaFilter: {languages: [en, de], lingua_mode: medium}",
            "lingua mode 'medium'",
        ),
        (
            "LanguageIDFilter: {languages: [en, de], id_method: cld2}",
            "cld2",
        ),
        (
            "LanguageIDFilter: {languages: [en, de], langid_languages: [xx]}",
            "xx",
        ),
        (
            "LanguageIDFilter: {languages: [en, de], id_method: fasttext, fasttext_model_path: nowhere.ftz}",
            "nowhere.ftz",
        ),
    ] {
        let config = format!(
            "common: {{output_directory: bad}}\nsteps:\n  - type: score\n    parameters:\n      inputs: [src.txt, tgt.txt]\n      output: s.jsonl\n      filters:\n        - {filter}\n"
        );
        std::fs::write(dir.path().join("bad.yaml"), config).unwrap();
        let out = run_in(dir.path(), &["bad.yaml"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(error),
            "{filter}: {stderr}"
        );
        assert!(!dir.path().join("bad/s.jsonl").exists(), "{filter}");
    }
    // A key another class takes is ignored with a warning, as OpusFilter ignores it.
    let config = "common: {output_directory: warn}\nsteps:\n  - type: score\n    parameters:\n      inputs: [../src.txt, ../tgt.txt]\n      output: s.jsonl\n      filters:\n        - LangidFilter: {languages: [de, en], lingua_mode: high}\n";
    std::fs::write(dir.path().join("warn.yaml"), config).unwrap();
    let out = run_in(dir.path(), &["warn.yaml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.matches("lingua_mode").count() == 1,
        "said once: {stderr}"
    );
}

/// The same JSON, numbers equal to `tolerance`.
fn same_json(a: &serde_json::Value, b: &serde_json::Value, tolerance: f64) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= tolerance
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y, tolerance))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w, tolerance)))
        }
        _ => a == b,
    }
}

/// HtmlTagFilter on 3,000 random fragments of markup, whole and broken
/// (tests/data/opusfilter/html.jsonl: BeautifulSoup 4.15's html.parser on CPython 3.11.7).
#[test]
fn html_tags_are_found_as_beautifulsoup_finds_them() {
    let text = std::fs::read_to_string(root().join("tests/data/opusfilter/html.jsonl")).unwrap();
    let mut found = 0;
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let segment = row["segment"].as_str().unwrap();
        let want = row["found"].as_bool().unwrap();
        assert_eq!(
            pairmetrics::clean::html::has_tag(segment),
            want,
            "{segment:?}"
        );
        found += usize::from(want);
    }
    assert_eq!((text.lines().count(), found), (3000, 862));
}

/// Python's `str.rstrip()` (its whitespace has U+001C–U+001F besides Unicode's).
fn py_rstrip(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
}

/// A score cell as OpusFilter's JSON writes it: a number or a list of them (booleans as 0/1).
fn cell(column: &dyn Array, i: usize) -> Vec<f64> {
    assert!(column.is_valid(i));
    match column.data_type() {
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(i);
            (0..items.len())
                .flat_map(|k| cell(items.as_ref(), k))
                .collect()
        }
        DataType::Int64 => vec![column.as_primitive::<Int64Type>().value(i) as f64],
        DataType::Boolean => vec![f64::from(u8::from(column.as_boolean().value(i)))],
        _ => vec![column.as_primitive::<Float64Type>().value(i)],
    }
}

/// `score --filters` with the pipeline's own configuration (its three `filter` steps share one
/// list): every filter's column equals OpusFilter's score file, `keep` selects the lines its
/// filter step kept, and `rejected_by` puts its filterfalse file in OpusFilter's order.
#[tokio::test]
async fn score_filters_are_what_opusfilter_scores_and_keeps() {
    let data = root().join("tests/data/opusfilter/pipeline");
    let lines = |name: &str| -> Vec<String> {
        let text = std::fs::read_to_string(data.join(name)).unwrap();
        assert!(!text.contains('\r'));
        text.lines().map(str::to_string).collect()
    };
    let (src, tgt) = (lines("src.txt"), lines("tgt.txt"));
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs.parquet");
    let words = |side: &[String]| {
        let rows: Vec<&str> = side.iter().map(String::as_str).collect();
        common::sentences(&rows)
    };
    common::write_parquet(
        &pairs,
        vec![
            (
                "pair_id",
                common::ids(&(0..src.len() as i64).collect::<Vec<_>>()),
            ),
            ("src", words(&src)),
            ("tgt", words(&tgt)),
            ("src_text", Arc::new(StringArray::from(src.clone())) as _),
            ("tgt_text", Arc::new(StringArray::from(tgt.clone())) as _),
        ],
    );
    let scored = dir.path().join("scored.parquet");
    let summary = common::ok(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--filters",
        common::path_str(&data.join("config.yaml")),
        "--out",
        common::path_str(&scored),
    ]);
    let ctx = common::context();
    ctx.register_parquet("s", common::path_str(&scored), Default::default())
        .await
        .unwrap();
    let batches = ctx
        .sql("SELECT * FROM s ORDER BY pair_id")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let batch = datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap();
    // Columns and the score file's keys, in the configuration's order.
    let filters: [(&str, &[&str]); 15] = [
        ("length_filter_1", &["LengthFilter", "1"]),
        ("length_ratio_filter", &["LengthRatioFilter"]),
        ("long_word_filter", &["LongWordFilter"]),
        ("average_word_length_filter", &["AverageWordLengthFilter"]),
        ("alphabet_ratio_filter", &["AlphabetRatioFilter"]),
        ("character_score_filter", &["CharacterScoreFilter"]),
        (
            "terminal_punctuation_filter",
            &["TerminalPunctuationFilter"],
        ),
        ("non_zero_numerals_filter", &["NonZeroNumeralsFilter"]),
        (
            "longest_common_substring_filter",
            &["LongestCommonSubstringFilter"],
        ),
        ("similarity_filter", &["SimilarityFilter"]),
        (
            "repetition_filter_default",
            &["RepetitionFilter", "default"],
        ),
        ("repetition_filter_short", &["RepetitionFilter", "short"]),
        ("length_filter_2", &["LengthFilter", "2"]),
        ("reg_exp_filter", &["RegExpFilter"]),
        ("html_tag_filter", &["HtmlTagFilter"]),
    ];
    let names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let added: Vec<&str> = filters
        .iter()
        .map(|(c, _)| *c)
        .chain(["keep", "rejected_by"])
        .collect();
    assert!(
        names.ends_with(&added.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        "{names:?}"
    );
    let scores = std::fs::read_to_string(data.join("expected/scores.jsonl")).unwrap();
    for (i, line) in scores.lines().enumerate() {
        // serde_json reads no Infinity: the test's `number` reads it from a string.
        let line = line
            .replace("-Infinity", "\"-inf\"")
            .replace("Infinity", "\"inf\"");
        let object: serde_json::Value = serde_json::from_str(&line).unwrap();
        for (column, keys) in filters {
            let want: Vec<f64> = match keys.iter().fold(&object, |o, k| &o[k]) {
                serde_json::Value::Array(items) => items.iter().map(number).collect(),
                single => vec![number(single)],
            };
            let got = cell(batch.column_by_name(column).unwrap().as_ref(), i);
            // serde_json (without float_roundtrip) may read a decimal one ulp off.
            let same = |g: &f64, w: &f64| g == w || (g - w).abs() <= 2.0 * f64::EPSILON * w.abs();
            assert!(
                got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| same(g, w)),
                "{column}, pair {i}: pairmetrics {got:?}, OpusFilter {want:?}"
            );
        }
    }
    let keep = batch.column_by_name("keep").unwrap().as_boolean().clone();
    let rejected_by = batch
        .column_by_name("rejected_by")
        .unwrap()
        .as_string::<i32>()
        .clone();
    let kept: Vec<&str> = (0..src.len())
        .filter(|&i| keep.value(i))
        .map(|i| py_rstrip(&src[i]))
        .collect();
    assert_eq!(kept, lines("expected/kept.src"));
    // filterfalse: chunk by chunk (chunksize 50), each filter's rejects in turn.
    let mut dropped = Vec::new();
    for chunk in (0..src.len()).collect::<Vec<_>>().chunks(50) {
        for (column, _) in filters {
            for &i in chunk {
                if rejected_by.is_valid(i) && rejected_by.value(i) == column {
                    assert!(!keep.value(i));
                    dropped.push(py_rstrip(&src[i]));
                }
            }
        }
    }
    assert_eq!(dropped, lines("expected/dropped.src"));
    assert!(
        summary.contains(&format!(
            "filters: {} pairs kept, {} rejected",
            kept.len(),
            dropped.len()
        )),
        "{summary}"
    );
}

#[test]
fn the_opusfilter_function_in_sql() {
    let sample = common::sample().join("pairs.parquet");
    let rows = common::csv_rows(
        &[],
        &[("p", &sample)],
        "SELECT f.rejected_by, count(*), sum(CASE WHEN f.keep THEN 1 ELSE 0 END) FROM \
         (SELECT opusfilter('[{LengthRatioFilter: {threshold: 2}}, {TerminalPunctuationFilter: {}}]', \
         src_text, tgt_text) AS f FROM p) GROUP BY 1 ORDER BY 1 NULLS FIRST",
    );
    // The same verdicts as the filters' own functions with OpusFilter's comparisons.
    let direct = common::csv_rows(
        &[],
        &[("p", &sample)],
        "SELECT CASE WHEN length_ratio(src_text, tgt_text) >= 2 THEN 'length_ratio_filter' \
         WHEN terminal_punctuation(src_text, tgt_text) < -2 THEN 'terminal_punctuation_filter' END AS r, \
         count(*), sum(CASE WHEN length_ratio(src_text, tgt_text) < 2 AND \
         terminal_punctuation(src_text, tgt_text) >= -2 THEN 1 ELSE 0 END) FROM p \
         GROUP BY 1 ORDER BY 1 NULLS FIRST",
    );
    assert_eq!(rows, direct);
    assert!(rows.len() > 2, "{rows:?}");
    // NULL sides give a NULL struct; a non-literal list, an unknown filter and clashing
    // columns are errors naming what is wrong.
    let nulls = common::ok(&[
        "sql",
        "--format",
        "csv",
        "SELECT opusfilter('[HtmlTagFilter: {}]', NULL, 'x') IS NULL",
    ]);
    assert!(nulls.contains("true"), "{nulls}");
    for (sql, expected) in [
        (
            "SELECT opusfilter(lower('[HtmlTagFilter: {}]'), 'a', 'b')",
            "filters must be a literal",
        ),
        (
            "SELECT opusfilter('[{NoSuchFilter: {}}]', 'a', 'b')",
            "filter NoSuchFilter is not supported",
        ),
        (
            "SELECT opusfilter('[{HtmlTagFilter: {}}, {HtmlTagFilter: {}}, \
             {HtmlTagFilter: {name: \"1\"}}]', 'a', 'b')",
            "would both be column html_tag_filter_1: give one a `name`",
        ),
    ] {
        let error = common::err(&["sql", sql]);
        assert!(error.contains(expected), "{sql}: {error}");
    }
}

/// `score --filters` over a table of two files of many row groups, planned with 1 and with 3
/// partitions and small batches: the same rows, the same columns, bit for bit.
#[test]
fn score_filters_do_not_depend_on_the_layout_or_the_partitions() {
    let data = root().join("tests/data/opusfilter/pipeline");
    let read = |name: &str| -> Vec<String> {
        let text = std::fs::read_to_string(data.join(name)).unwrap();
        text.lines().map(str::to_string).collect()
    };
    let (src, tgt) = (read("src.txt"), read("tgt.txt"));
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs");
    common::write_two_parts(&pairs, src.len(), 60, |range| {
        fn text(side: &[String], range: std::ops::Range<usize>) -> Vec<&str> {
            side[range].iter().map(String::as_str).collect()
        }
        let ids: Vec<i64> = range.clone().map(|i| i as i64).collect();
        datafusion::arrow::array::RecordBatch::try_from_iter(vec![
            ("pair_id", common::ids(&ids)),
            ("src", common::sentences(&text(&src, range.clone()))),
            ("tgt", common::sentences(&text(&tgt, range.clone()))),
            (
                "src_text",
                Arc::new(StringArray::from(text(&src, range.clone()))) as _,
            ),
            (
                "tgt_text",
                Arc::new(StringArray::from(text(&tgt, range.clone()))) as _,
            ),
        ])
        .unwrap()
    });
    let config = data.join("config.yaml");
    let score = |name: &str, partitions: &str| {
        let out = dir.path().join(name);
        common::ok(&[
            "score",
            "--pairs",
            common::path_str(&pairs),
            "--filters",
            common::path_str(&config),
            "--metrics",
            "none",
            "--partitions",
            partitions,
            "--batch-size",
            "37",
            "--out",
            common::path_str(&out),
        ]);
        let table = format!("s={}", out.display());
        common::ok(&[
            "sql",
            "--format",
            "json",
            "--table",
            &table,
            "SELECT * EXCEPT (src, tgt) FROM s ORDER BY pair_id",
        ])
    };
    let one = score("one.parquet", "1");
    assert_eq!(one.lines().count(), src.len());
    assert_eq!(one, score("three.parquet", "3"));
}

/// `score --filters` refuses what it cannot run before writing anything, naming it.
#[test]
fn score_filters_refuse_bad_configurations_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = common::sample().join("pairs.parquet");
    let out = dir.path().join("scored.parquet");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let missing = dir.path().join("missing.yaml");
    let bad_yaml = write("bad.yaml", "- LengthFilter: {min: 1\n");
    let unknown = write("unknown.yaml", "- NoSuchFilter: {}\n");
    for (config, expected) in [
        (&missing, "missing.yaml"),
        (&bad_yaml, "filters bad.yaml: opusfilter: filters: not YAML"),
        (&unknown, "NoSuchFilter"),
    ] {
        let e = common::err(&[
            "score",
            "--pairs",
            common::path_str(&pairs),
            "--filters",
            common::path_str(config),
            "--out",
            common::path_str(&out),
        ]);
        assert!(e.contains(expected), "{}: {e}", config.display());
        assert!(!out.exists(), "{}", config.display());
    }
    // An unknown parameter is ignored with a warning, as OpusFilter ignores it.
    let parameter = write("parameter.yaml", "- LengthRatioFilter: {treshold: 3}\n");
    let run = common::pairmetrics(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--filters",
        common::path_str(&parameter),
        "--metrics",
        "none",
        "--out",
        common::path_str(&out),
    ]);
    common::stdout(&run);
    assert!(
        String::from_utf8_lossy(&run.stderr)
            .contains("LengthRatioFilter: ignoring extra keyword argument treshold"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::remove_file(&out).unwrap();
    let e = common::err(&[
        "score",
        "--pairs",
        common::path_str(&pairs),
        "--metrics",
        "none",
        "--out",
        common::path_str(&out),
    ]);
    assert!(e.contains("--filters"), "{e}");
    assert!(!out.exists());
}
