//! Language identification against the reference tools' own outputs (tests/data/lid, made by
//! scripts/make_lid_vectors.py): fastText 0.9.2's command line byte for byte on eight models,
//! lid.176.ftz among them when it is here; py3langid 0.4.0's and 0.3.0's labels on every text.

use std::path::PathBuf;

use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::datatypes::Float64Type;
use pairmetrics::lid::langid::{Identifier, Model, Scratch};

use crate::common::{self, pairmetrics, path_str, root};

fn data() -> PathBuf {
    root().join("tests/data/lid")
}

/// lid.176.ftz (CC BY-SA 3.0, not in the repository): `PAIRMETRICS_LID176`, or where
/// scripts/test.sh puts it. Required under CI.
fn lid176() -> Option<PathBuf> {
    let path = std::env::var_os("PAIRMETRICS_LID176")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/models/lid.176.ftz"));
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs lid.176.ftz at {} (scripts/test.sh downloads it)",
        path.display()
    );
    None
}

fn predict_args(name: &str) -> (String, Vec<String>) {
    // NAME.EXT.COMMAND[.K[.THRESHOLD]], with the threshold's own dot.
    let mut parts = name.splitn(4, '.');
    let model = format!("{}.{}", parts.next().unwrap(), parts.next().unwrap());
    let mut args: Vec<String> = vec![parts.next().unwrap().to_string()];
    if let Some(rest) = parts.next() {
        let (k, threshold) = match rest.split_once('.') {
            Some((k, t)) => (k, Some(t)),
            None => (rest, None),
        };
        args.push(k.to_string());
        args.extend(threshold.map(str::to_string));
    }
    (model, args)
}

#[test]
fn fasttext_predict_prints_what_fasttext_prints() {
    let expected = data().join("expected");
    let lid176 = lid176();
    let mut compared = 0;
    for entry in std::fs::read_dir(&expected).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".tsv") {
            continue;
        }
        let (model, args) = predict_args(&name);
        let model = match model.as_str() {
            "lid176.ftz" => match &lid176 {
                Some(path) => path.clone(),
                None => continue,
            },
            other => data().join("models").join(other),
        };
        let input = data().join("fasttext_input.txt");
        let mut argv = vec!["fasttext", &args[0], path_str(&model), path_str(&input)];
        argv.extend(args[1..].iter().map(String::as_str));
        let out = pairmetrics(&argv);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = std::fs::read(&path).unwrap();
        assert!(
            out.stdout == want,
            "{name}: pairmetrics prints differently from fastText"
        );
        compared += 1;
    }
    assert!(compared >= 42, "{compared} outputs compared");
}

#[test]
fn fasttext_reads_standard_input_and_refuses_bad_models() {
    let model = data().join("models/hs.ftz");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(["fasttext", "predict", path_str(&model), "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let input = std::fs::read(data().join("fasttext_input.txt")).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.stdout,
        std::fs::read(data().join("expected/hs.ftz.predict")).unwrap()
    );

    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(&model).unwrap();
    let truncated = dir.path().join("truncated.ftz");
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    for (bad, says) in [
        (root().join("Cargo.toml"), "not a fastText model"),
        (truncated, "truncated"),
    ] {
        let err = common::err(&["fasttext", "predict", path_str(&bad), "-"]);
        assert!(err.contains(says) && err.contains(path_str(&bad)), "{err}");
    }
    let err = common::err(&["fasttext", "predict", path_str(&model), "-", "0"]);
    assert!(err.contains("k needs to be 1 or higher"), "{err}");
}

fn texts() -> Vec<String> {
    let text = std::fs::read_to_string(data().join("texts.txt")).unwrap();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    assert_eq!(lines.pop().as_deref(), Some(""));
    lines
}

fn expected_langid(name: &str) -> Vec<(String, f64)> {
    std::fs::read_to_string(data().join("expected").join(name))
        .unwrap()
        .lines()
        .map(|l| {
            let (lang, prob) = l.split_once('\t').unwrap();
            (lang.to_string(), prob.parse().unwrap())
        })
        .collect()
}

/// py3langid sums through BLAS in float32: the probability's last bits depend on the CPU's
/// kernel. The bound: a few float32 units in the last place of the raw scores, scaled by the
/// softmax's temperature.
fn assert_close(text: &str, ours: f64, theirs: f64) {
    let tolerance = 1e-4 * theirs.max(1e-3) + 1e-6;
    assert!(
        (ours - theirs).abs() <= tolerance,
        "{text:?}: {ours} against py3langid's {theirs}"
    );
}

#[test]
fn langid_is_py3langid() {
    let model = Model::built_in();
    let mut scratch = Scratch::default();
    for (file, identifier) in [
        ("langid.tsv", Identifier::new(model)),
        (
            "langid.de_en_fr_ru.tsv",
            Identifier::restricted(model, &["de", "en", "fr", "ru"]).unwrap(),
        ),
    ] {
        same_guesses(file, |text| {
            let g = identifier.classify(text, &mut scratch);
            (g.lang.to_string(), g.prob)
        });
    }
}

/// OpusFilter 3.3.1's language-ID filters run py3langid 0.3.0 (scripts/make_langid_0_3_vectors.py).
#[test]
fn langid_legacy_is_py3langid_0_3() {
    use pairmetrics::lid::langid_legacy::{Identifier, Model, Scratch};
    let model = Model::built_in();
    let mut scratch = Scratch::default();
    for (file, identifier) in [
        ("langid-0.3.0.tsv", Identifier::new(model)),
        (
            "langid-0.3.0.de_en_fr_ru.tsv",
            Identifier::restricted(model, &["de", "en", "fr", "ru"]).unwrap(),
        ),
    ] {
        same_guesses(file, |text| {
            let g = identifier.classify(text, &mut scratch);
            (g.lang.to_string(), g.prob)
        });
    }
}

/// Every text's label as the expected file's, its probability within float32 noise.
fn same_guesses(file: &str, mut classify: impl FnMut(&str) -> (String, f64)) {
    let texts = texts();
    let expected = expected_langid(file);
    assert_eq!(expected.len(), texts.len());
    let mut worst = 0f64;
    for (text, (lang, prob)) in texts.iter().zip(&expected) {
        let (ours, p) = classify(text);
        assert_eq!(&ours, lang, "{file}: {text:?}");
        assert_close(text, p, *prob);
        worst = worst.max((p - prob).abs());
    }
    eprintln!(
        "{file}: {} texts, same labels, largest |Δp| {worst:e}",
        texts.len()
    );
}

#[tokio::test]
async fn langid_in_sql() {
    let texts = texts();
    let ctx = common::context();
    let batch = common::batch(vec![(
        "text",
        std::sync::Arc::new(StringArray::from(texts.clone())) as _,
    )]);
    common::register(&ctx, "t", batch);
    let expected = expected_langid("langid.tsv");
    let legacy = expected_langid("langid-0.3.0.tsv");
    let df = ctx
        .sql("SELECT langid(text)['lang'] AS lang, langid(text)['prob'] AS prob, language_id_score(text, 'en') AS en FROM t")
        .await
        .unwrap();
    let mut row = 0;
    for batch in df.collect().await.unwrap() {
        let langs = batch.column(0).as_string::<i32>();
        let probs = batch.column(1).as_primitive::<Float64Type>();
        let en = batch.column(2).as_primitive::<Float64Type>();
        for i in 0..batch.num_rows() {
            let (lang, prob) = &expected[row];
            assert_eq!(langs.value(i), lang);
            assert_close(&texts[row], probs.value(i), *prob);
            // OpusFilter (py3langid 0.3.0): 1 for an empty side, the rounded confidence for
            // English, else 0.
            let (legacy_lang, legacy_prob) = &legacy[row];
            let want = if texts[row].is_empty() {
                1.0
            } else if legacy_lang == "en" {
                (legacy_prob * 100.0).round() / 100.0
            } else {
                0.0
            };
            assert!((en.value(i) - want).abs() < 0.0051, "{:?}", texts[row]);
            row += 1;
        }
    }
    assert_eq!(row, texts.len());
}

#[test]
fn unknown_languages_are_named() {
    let err = common::err(&["sql", "SELECT langid('hello', ['en', 'xx'])"]);
    assert!(err.contains("xx"), "{err}");
    let err = common::err(&["sql", "SELECT fasttext_lid('hello')"]);
    assert!(err.contains("--fasttext-model"), "{err}");
}

#[test]
fn score_adds_language_columns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scored.parquet");
    let pairs = root().join("data/europarl-sample/pairs.parquet");
    let model = data().join("models/hs.ftz");
    let printed = common::ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out),
        "--metrics",
        "langid",
        "--lid",
        "fasttext",
        "--fasttext-model",
        path_str(&model),
    ]);
    assert!(printed.contains("langid:py3langid-0.4.0"), "{printed}");
    // Each side's label is langid() of its tokens joined by spaces.
    let rows = common::csv_rows(
        &[],
        &[("s", &out)],
        "SELECT count(*) FROM s WHERE src_langid = langid(array_to_string(src, ' '))['lang'] \
         AND tgt_fasttext_lid IS NOT NULL AND src_langid_prob > 0",
    );
    assert_eq!(rows, ["3000"]);
}

#[tokio::test]
async fn lingua_is_lingua_py() {
    let texts = texts();
    let ctx = common::context();
    let batch = common::batch(vec![(
        "text",
        std::sync::Arc::new(StringArray::from(texts.clone())) as _,
    )]);
    common::register(&ctx, "t", batch);
    for (file, query) in [
        ("lingua.tsv", "SELECT lingua_lid(text) AS g FROM t"),
        (
            "lingua.de_en_fr_ru.tsv",
            "SELECT lingua_lid(text, ['de', 'en', 'fr', 'ru']) AS g FROM t",
        ),
    ] {
        let expected = expected_langid(file);
        let mut row = 0;
        let df = ctx.sql(query).await.unwrap();
        for batch in df.collect().await.unwrap() {
            let guesses = batch.column(0).as_struct();
            let langs = guesses.column(0).as_string::<i32>();
            let probs = guesses.column(1).as_primitive::<Float64Type>();
            for i in 0..batch.num_rows() {
                let (lang, prob) = &expected[row];
                // The same Rust code as lingua-py: the same label and the same number, but for
                // the last bits, which vary from run to run in lingua-py too (its sums follow
                // hash-map order).
                if *prob == 0.0 {
                    // No language found: lingua-py lists them all at 0 in random order.
                    assert!(guesses.is_null(i), "{file}: {:?}", texts[row]);
                    row += 1;
                    continue;
                }
                assert_eq!(langs.value(i), lang, "{file}: {:?}", texts[row]);
                assert!(
                    (probs.value(i) - prob).abs() <= 1e-12,
                    "{file}: {:?}",
                    texts[row]
                );
                row += 1;
            }
        }
        assert_eq!(row, texts.len());
    }
}

#[test]
fn unsupervised_models_and_huge_texts() {
    // hs.bin with its `model` argument (the 8th int32 after the magic and the version) made 2,
    // skipgram.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(data().join("models/hs.bin")).unwrap();
    bytes[8 + 7 * 4..8 + 8 * 4].copy_from_slice(&2i32.to_le_bytes());
    let skipgram = dir.path().join("skipgram.bin");
    std::fs::write(&skipgram, bytes).unwrap();
    let err = common::err(&["fasttext", "predict", path_str(&skipgram), "-"]);
    assert!(err.contains("unsupervised model (skipgram)"), "{err}");
    let err = common::err(&[
        "sql",
        "--fasttext-model",
        path_str(&skipgram),
        "SELECT fasttext_lid('x')",
    ]);
    assert!(err.contains("unsupervised"), "{err}");
    // A text of 10 MB is one prediction, not a panic.
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "Das ist ein Satz. ".repeat(600_000) + "\n").unwrap();
    let model = data().join("models/hs.ftz");
    let out = common::ok(&["fasttext", "predict", path_str(&model), path_str(&big)]);
    assert_eq!(out.lines().count(), 1);
}
