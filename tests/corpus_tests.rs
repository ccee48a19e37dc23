//! Paired tests of corpus BLEU, chrF and TER in SQL, over rows of `*_stats`: `*_paired_bs` and
//! `*_paired_ar` give what sacrebleu 2.6.0's `--paired-bs` and `--paired-ar` print for real
//! WMT23 systems (tests/vectors/sacrebleu_cli, made by scripts/make_sacrebleu_cli_vectors.py),
//! number for number, nine systems against a baseline in one GROUP BY; the streaming
//! `*_paired_bootstrap` and `*_approx_randomization` score as the corpus aggregates do, give one
//! answer however rows are partitioned, and agree with sacrebleu on which systems differ.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::prelude::{SessionConfig, SessionContext};
use serde_json::Value;

use crate::common::*;

const BASELINE: &str = "he-en.hyp.GPT4-5shot.en";

/// The sacrebleu command line case whose arguments start with `first` and contain `with`.
fn case(first: &str, with: &[&str]) -> (Vec<String>, String) {
    let text =
        std::fs::read_to_string(root().join("tests/vectors/sacrebleu_cli/cases.json")).unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let case = vectors["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            let args: Vec<&str> = c["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            args[0] == first && with.iter().all(|w| args.contains(w))
        })
        .expect("the case is in the vectors");
    let args = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    (args, case["stdout"].as_str().unwrap().to_string())
}

/// The systems of a command line: the arguments after `-i` up to the next option.
fn systems(args: &[String]) -> Vec<String> {
    let at = args.iter().position(|a| a == "-i").unwrap();
    args[at + 1..]
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .cloned()
        .collect()
}

/// sacrebleu's JSON of a paired test, as (system, metric, field) -> the number's text read as
/// an f64 (read as Rust reads it: correctly rounded). Its lines are `"system": "NAME",`,
/// `"METRIC": {` and `"field": NUMBER,`.
fn printed(json: &str) -> Vec<(String, String, String, Option<f64>)> {
    let (mut system, mut metric, mut out) = (String::new(), String::new(), Vec::new());
    for line in json.lines().map(str::trim) {
        let Some((key, value)) = line.split_once(": ") else {
            continue;
        };
        let key = key.trim_matches('"').to_string();
        let value = value.trim_end_matches(',');
        if key == "system" {
            system = value
                .trim_matches('"')
                .trim_start_matches("Baseline: ")
                .to_string();
        } else if value == "{" {
            metric = key;
        } else {
            out.push((system.clone(), metric.clone(), key, value.parse().ok()));
        }
    }
    out
}

/// Every row of a query whose columns are a string and then Float64s.
async fn rows(ctx: &SessionContext, sql: &str) -> Vec<(String, Vec<Option<f64>>)> {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let mut rows = Vec::new();
    for batch in batches {
        for r in 0..batch.num_rows() {
            let name = batch.column(0).as_string::<i32>().value(r).to_string();
            let values = batch.columns()[1..]
                .iter()
                .map(|c| {
                    let c = c.as_primitive::<Float64Type>();
                    (!c.is_null(r)).then(|| c.value(r))
                })
                .collect();
            rows.push((name, values));
        }
    }
    rows.sort_by(|x, y| x.0.cmp(&y.0));
    rows
}

/// Statistics of every system as table `s` and the baseline's as `b`, on the `he_en` table.
fn with_stats(refs: &str) -> String {
    format!(
        "WITH s AS (SELECT system, segment, bleu_stats(hyp, {refs}) AS bleu, \
         chrf_stats(hyp, {refs}) AS chrf, ter_stats(hyp, {refs}) AS ter FROM he_en), \
         b AS (SELECT * FROM s WHERE system = '{BASELINE}') "
    )
}

#[tokio::test]
async fn paired_bs_prints_sacrebleus_numbers_for_nine_systems_in_one_group_by() {
    let (args, stdout) = case("he-en.ref.refA.en", &["he-en.ref.refB.en", "--paired-bs"]);
    let names = systems(&args);
    assert_eq!((names.len(), names[0].as_str()), (10, BASELINE));
    let ctx = context();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    register_wmt23(
        &ctx,
        "he_en",
        &names,
        &["he-en.ref.refA.en", "he-en.ref.refB.en"],
    );
    let fields = ["a", "b", "p_value", "a_mean", "a_ci", "b_mean", "b_ci"];
    let columns: Vec<String> = ["bleu", "chrf", "ter"]
        .iter()
        .flat_map(|m| fields.iter().map(move |f| format!("{m}['{f}']")))
        .collect();
    let sql = format!(
        "{} SELECT system, {} FROM (SELECT s.system, \
         bleu_paired_bs(s.segment, b.bleu, s.bleu) AS bleu, \
         chrf_paired_bs(s.segment, b.chrf, s.chrf) AS chrf, \
         ter_paired_bs(s.segment, b.ter, s.ter) AS ter \
         FROM s JOIN b USING (segment) WHERE s.system <> b.system GROUP BY s.system)",
        with_stats("refs"),
        columns.join(", ")
    );
    let got = rows(&ctx, &sql).await;
    assert_eq!(got.len(), 9);
    let want = printed(&stdout);
    let mut checked = 0;
    for (system, values) in &got {
        for (m, metric) in ["BLEU", "chrF2", "TER"].iter().enumerate() {
            let value = |field: &str| {
                values[m * fields.len() + fields.iter().position(|f| *f == field).unwrap()]
            };
            let find = |name: &str, field: &str| {
                want.iter()
                    .find(|(s, m, f, _)| s == name && m == metric && f == field)
                    .unwrap_or_else(|| panic!("{name} {metric} {field} printed"))
                    .3
            };
            for (ours, theirs, field) in [
                ("a", BASELINE, "score"),
                ("a_mean", BASELINE, "mean"),
                ("a_ci", BASELINE, "ci"),
                ("b", system.as_str(), "score"),
                ("p_value", system.as_str(), "p_value"),
                ("b_mean", system.as_str(), "mean"),
                ("b_ci", system.as_str(), "ci"),
            ] {
                assert_eq!(
                    value(ours).map(f64::to_bits),
                    find(theirs, field).map(f64::to_bits),
                    "{system} {metric} {ours}: ours {:?}, sacrebleu's {:?}",
                    value(ours),
                    find(theirs, field)
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 9 * 3 * 7);
}

#[tokio::test]
async fn paired_ar_prints_sacrebleus_p_value() {
    let (args, stdout) = case("he-en.ref.refA.en", &["-m", "chrf", "--paired-ar", "-parn"]);
    let names = systems(&args);
    let ctx = context();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    register_wmt23(&ctx, "he_en", &names, &["he-en.ref.refA.en"]);
    let sql = format!(
        "{} SELECT system, t['a'], t['b'], t['p_value'] FROM (SELECT s.system, \
         chrf_paired_ar(s.segment, b.chrf, s.chrf, 500) AS t \
         FROM s JOIN b USING (segment) WHERE s.system <> b.system GROUP BY s.system)",
        with_stats("ref")
    );
    let got = rows(&ctx, &sql).await;
    let want = printed(&stdout);
    let find = |name: &str, field: &str| {
        want.iter()
            .find(|(s, _, f, _)| s == name && f == field)
            .unwrap()
            .3
    };
    assert_eq!(got.len(), 1);
    let (system, values) = &got[0];
    assert_eq!(
        values.clone(),
        vec![
            find(BASELINE, "score"),
            find(system, "score"),
            find(system, "p_value")
        ]
    );
}

/// The streaming tests' answers for every system against the baseline, by system: BLEU's
/// bootstrap struct then chrF's and TER's randomization p-values.
async fn streaming(ctx: &SessionContext) -> Vec<(String, Vec<Option<f64>>)> {
    let fields = ["a", "b", "delta", "low", "high", "p_value"];
    let bleu: Vec<String> = fields.iter().map(|f| format!("bleu['{f}']")).collect();
    let sql = format!(
        "{} SELECT system, {}, chrf['p_value'], ter['p_value'], ter['a'], ter['b'] FROM (SELECT s.system, \
         bleu_paired_bootstrap(segment, b.bleu, s.bleu, 300, 7) AS bleu, \
         chrf_approx_randomization(segment, b.chrf, s.chrf, 300) AS chrf, \
         ter_approx_randomization(segment, b.ter, s.ter, 300) AS ter \
         FROM s JOIN b USING (segment) GROUP BY s.system)",
        with_stats("refs"),
        bleu.join(", ")
    );
    rows(ctx, &sql).await
}

#[tokio::test]
async fn streaming_tests_score_as_the_corpus_aggregates_and_ignore_partitioning() {
    let names = [
        BASELINE,
        "he-en.hyp.ONLINE-A.en",
        "he-en.hyp.GTCOM_Peter.en",
        "he-en.hyp.Lan-BridgeMT.en",
    ];
    let refs = ["he-en.ref.refA.en", "he-en.ref.refB.en"];
    let one = context();
    register_wmt23(&one, "he_en", &names, &refs);
    let got = streaming(&one).await;
    // However the rows are split into partitions and batches, the same answer to the bit.
    let many = SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(7)
            .with_batch_size(13),
    );
    pairmetrics::udf::register_all(&mut many.clone()).unwrap();
    register_wmt23(&many, "he_en", &names, &refs);
    assert_eq!(streaming(&many).await, got);

    let corpus = rows(
        &one,
        "SELECT system, corpus_bleu(hyp, refs), corpus_ter(hyp, refs) FROM he_en GROUP BY system",
    )
    .await;
    let score = |system: &str, i: usize| corpus.iter().find(|(s, _)| s == system).unwrap().1[i];
    for (system, values) in &got {
        let [a, b, delta, low, high, p, chrf_p, ter_p, ter_a, ter_b] = values[..] else {
            panic!("ten columns")
        };
        // The scores are the corpus aggregates'.
        assert_eq!((a, b), (score(BASELINE, 0), score(system, 0)), "{system}");
        assert_eq!(
            (ter_a, ter_b),
            (score(BASELINE, 1), score(system, 1)),
            "{system}"
        );
        assert_eq!(delta, Some(b.unwrap() - a.unwrap()));
        let (low, high) = (low.unwrap(), high.unwrap());
        if system == BASELINE {
            // Against itself: nothing to find.
            assert_eq!(
                (delta, low, high, p, chrf_p, ter_p),
                (Some(0.0), 0.0, 0.0, Some(1.0), Some(1.0), Some(1.0))
            );
            continue;
        }
        assert!(low <= delta.unwrap() && delta.unwrap() <= high, "{system}");
        // sacrebleu (the vectors above): Lan-BridgeMT differs at p = 0.001 on every metric,
        // GTCOM_Peter does not (0.22, 0.14, 0.39).
        match system.as_str() {
            "he-en.hyp.Lan-BridgeMT.en" => {
                assert!(
                    p < Some(0.01) && chrf_p < Some(0.01) && ter_p < Some(0.01),
                    "{values:?}"
                );
                assert!(high < 0.0, "{system}: the interval excludes 0");
            }
            "he-en.hyp.GTCOM_Peter.en" => {
                assert!(
                    p > Some(0.05) && chrf_p > Some(0.05) && ter_p > Some(0.05),
                    "{values:?}"
                )
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn streaming_tests_give_one_answer_over_parquet_files_of_small_row_groups() {
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::properties::WriterProperties;
    use datafusion::prelude::ParquetReadOptions;
    let names = [
        BASELINE,
        "he-en.hyp.ONLINE-A.en",
        "he-en.hyp.Lan-BridgeMT.en",
    ];
    let one = context();
    register_wmt23(&one, "he_en", &names, &["he-en.ref.refA.en"]);
    let joined = format!(
        "{} SELECT s.system, segment, b.bleu AS a, s.bleu AS b, b.ter AS ter_a, s.ter AS ter_b \
         FROM s JOIN b USING (segment)",
        with_stats("ref")
    );
    let batches = one.sql(&joined).await.unwrap().collect().await.unwrap();
    let table = datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap();
    one.register_batch("joined", table.clone()).unwrap();
    // Three files, runs of 29 rows dealt to them from the end backwards, row groups of 37 rows.
    let dir = tempfile::TempDir::new().unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(37))
        .build();
    let mut files: Vec<_> = (0..3)
        .map(|i| {
            let file = std::fs::File::create(dir.path().join(format!("{i}.parquet"))).unwrap();
            ArrowWriter::try_new(file, table.schema(), Some(properties.clone())).unwrap()
        })
        .collect();
    let starts: Vec<usize> = (0..table.num_rows()).step_by(29).collect();
    for (k, &start) in starts.iter().rev().enumerate() {
        let rows = table.slice(start, 29.min(table.num_rows() - start));
        files[k % 3].write(&rows).unwrap();
    }
    for file in files {
        assert!(file.close().unwrap().row_groups().len() > 1);
    }
    let parquet = SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(3)
            .with_batch_size(13),
    );
    pairmetrics::udf::register_all(&mut parquet.clone()).unwrap();
    parquet
        .register_parquet(
            "joined",
            dir.path().to_str().unwrap(),
            ParquetReadOptions::default(),
        )
        .await
        .unwrap();
    // (Parquet gives the system names as Utf8View.)
    let query = "SELECT arrow_cast(system, 'Utf8'), \
         bleu_paired_bootstrap(segment, a, b, 300, 7)['low'], \
         bleu_paired_bootstrap(segment, a, b, 300, 7)['p_value'], \
         ter_approx_randomization(segment, ter_a, ter_b, 300)['p_value'] \
         FROM joined GROUP BY system";
    let in_memory = rows(&one, query).await;
    assert_eq!(in_memory.len(), 3);
    assert_eq!(rows(&parquet, query).await, in_memory);
}

#[tokio::test]
async fn corpus_tests_refuse_what_they_cannot_answer() {
    let ctx = context();
    register_wmt23(
        &ctx,
        "he_en",
        &[BASELINE, "he-en.hyp.ONLINE-A.en"],
        &["he-en.ref.refA.en"],
    );
    let error = |sql: String| {
        let ctx = ctx.clone();
        async move {
            match ctx.sql(&sql).await {
                Ok(df) => df.collect().await.unwrap_err().to_string(),
                Err(e) => e.to_string(),
            }
        }
    };
    // Statistics of order 2 tested as order 4 (the default).
    let e = error(format!(
        "SELECT bleu_paired_bootstrap(segment, bleu_stats(b.hyp, b.ref, 'order:2'), bleu_stats(s.hyp, s.ref, 'order:2')) \
         FROM he_en s JOIN he_en b USING (segment) WHERE b.system = '{BASELINE}'"
    ))
    .await;
    assert!(
        e.contains("bleu_paired_bootstrap: stats_a is [")
            && e.contains("bleu_stats with these options gives 10"),
        "{e}"
    );
    // sacrebleu's test needs each segment once: two systems in one group are not a test set.
    let e = error(format!(
        "{} SELECT bleu_paired_bs(s.segment, b.bleu, s.bleu) FROM s JOIN b USING (segment)",
        with_stats("ref")
    ))
    .await;
    assert!(e.contains("bleu_paired_bs: segment 0 appears twice"), "{e}");
    // sacrebleu's draws are held in memory: 200 segments x 2,000,000 resamples are too many.
    let e = error(format!(
        "{} SELECT bleu_paired_bs(s.segment, b.bleu, s.bleu, 2000000) FROM s JOIN b USING (segment) \
         WHERE s.system <> b.system",
        with_stats("ref")
    ))
    .await;
    assert!(
        e.contains("2^28") && e.contains("bleu_paired_bootstrap streams"),
        "{e}"
    );
    // Constants are checked when the query is planned.
    let e = error(format!(
        "{} SELECT ter_paired_bootstrap(segment, b.ter, s.ter, 0) FROM s JOIN b USING (segment)",
        with_stats("ref")
    ))
    .await;
    assert!(
        e.contains("`resamples` must be an integer in [1, 10000000], got 0"),
        "{e}"
    );
    let e = error(format!(
        "{} SELECT chrf_paired_ar(s.segment, b.chrf, s.chrf, 10, 1, 'nw:x') FROM s JOIN b USING (segment)",
        with_stats("ref")
    ))
    .await;
    assert!(
        e.starts_with("Error during planning: chrf_paired_ar:") || e.contains("chrf_paired_ar: "),
        "{e}"
    );
}
