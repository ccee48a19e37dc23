//! The `pairmetrics` binary end to end: real Parquet files in, real processes.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tempfile::TempDir;

use crate::common::*;

fn read_parquet(path: &Path) -> (RecordBatch, Vec<(String, String)>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let metadata = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|e| (e.key.clone(), e.value.clone().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    (
        datafusion::arrow::compute::concat_batches(&schema, &batches).unwrap(),
        metadata,
    )
}

#[test]
fn sql_reads_a_pyarrow_file_and_matches_the_vectors() {
    let table = format!(
        "p={}",
        root().join("tests/data/pyarrow_edge.parquet").display()
    );
    // The query of the issue, as a user would first type it.
    let plain = pairmetrics(&[
        "sql",
        "--table",
        &table,
        "SELECT led(src, tgt, links), pod(src, tgt, links, ',') FROM p",
    ]);
    assert!(stdout(&plain).contains("led(p.src,p.tgt,p.links)"));

    let query = "SELECT round(led(lowercase_tokens(src), lowercase_tokens(tgt), links), 4) AS led, \
                 round(pod(lowercase_tokens(src), lowercase_tokens(tgt), links, ','), 4) AS pod \
                 FROM p ORDER BY pair_id";
    let csv = stdout(&pairmetrics(&[
        "sql", "--table", &table, "--format", "csv", query,
    ]));
    let got: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    let expected = |ext: &str| -> Vec<f64> {
        let text =
            std::fs::read_to_string(vectors().join(format!("lepod/edge.expected.{ext}"))).unwrap();
        text.lines()
            .map(|l| l.split('\t').next().unwrap().parse().unwrap())
            .collect()
    };
    let (led, pod): (Vec<f64>, Vec<f64>) = got.into_iter().unzip();
    assert_eq!(led, expected("led"));
    assert_eq!(pod, expected("pod"));

    let json = stdout(&pairmetrics(&[
        "sql",
        "--table",
        &table,
        "--format",
        "json",
        "SELECT pair_id FROM p ORDER BY pair_id LIMIT 2",
    ]));
    assert_eq!(json, "{\"pair_id\":0}\n{\"pair_id\":1}\n");
}

/// pyarrow puts up to a million rows in one row group, which DataFusion reads on one thread:
/// `sql` shares such a file's rows among its threads, and the answers stay the same.
#[test]
fn a_file_of_one_row_group_is_read_on_every_thread() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("one-row-group.parquet");
    let n = 120_000i64;
    let ids: Vec<i64> = (0..n).collect();
    let words: Vec<String> = ids.iter().map(|i| format!("w{}", i % 7)).collect();
    let tgt = token_lists(
        &words
            .iter()
            .map(|w| Some(vec![Some(w.as_str()), Some("x")]))
            .collect::<Vec<_>>(),
    );
    write_parquet(
        &path,
        vec![
            ("pair_id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("tgt", tgt),
        ],
    );
    let plan = csv_rows(
        &[],
        &[("s", &path)],
        "EXPLAIN SELECT count(*) FROM s WHERE cardinality(tgt) = 2",
    )
    .join("\n");
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        assert!(plan.contains("file_groups={2 groups"), "{plan}");
    }
    let rows = csv_rows(
        &[],
        &[("s", &path)],
        "SELECT count(*), count(DISTINCT pair_id), sum(pair_id), min(pair_id), max(pair_id), sum(cardinality(tgt)), \
         sum(CASE WHEN tgt[1] = concat('w', CAST(pair_id % 7 AS VARCHAR)) THEN 1 ELSE 0 END) FROM s",
    );
    assert_eq!(
        rows,
        [format!(
            "{n},{n},{},0,{},{},{n}",
            n * (n - 1) / 2,
            n - 1,
            2 * n
        )]
    );
    // The rows around the boundary between the two shares.
    let first = csv_rows(
        &[],
        &[("s", &path)],
        "SELECT pair_id FROM s ORDER BY pair_id LIMIT 3 OFFSET 59999",
    );
    assert_eq!(first, ["59999", "60000", "60001"]);
}

#[test]
fn sql_errors_exit_non_zero_with_a_message() {
    let out = pairmetrics(&["sql", "SELECT led(1, 2)"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("led(List(Utf8), List(Utf8))"),
        "{err}"
    );
    let out = pairmetrics(&["sql", "--table", "t=/no/such/file.parquet", "SELECT 1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.parquet does not exist"));
    let out = pairmetrics(&["sql", "--table", "nameonly", "SELECT 1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected NAME=PATH"));
}

#[test]
fn schema_errors_fail_before_any_work() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("out.parquet");
    let missing = dir.path().join("missing_src.parquet");
    write_parquet(
        &missing,
        vec![("pair_id", ids(&[0])), ("tgt", sentences(&["a"]))],
    );
    let wrong = dir.path().join("int_src.parquet");
    write_parquet(
        &wrong,
        vec![
            ("pair_id", ids(&[0])),
            ("src", ids(&[1])),
            ("tgt", sentences(&["a"])),
        ],
    );
    for (file, problem) in [(&missing, "is missing"), (&wrong, "has type Int64")] {
        let out = pairmetrics(&[
            "score",
            "--pairs",
            path_str(file),
            "--out",
            path_str(&out_path),
        ]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        let want = format!(
            "pairs table {}: column `src` {problem}; expected List<Utf8>",
            file.display()
        );
        assert!(err.contains(&want), "{err}");
        assert!(!out_path.exists());
    }
    // A wrong alignments table is reported the same way, naming that file.
    let pairs = dir.path().join("pairs.parquet");
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids(&[0])),
            ("src", sentences(&["a"])),
            ("tgt", sentences(&["a"])),
        ],
    );
    let out = pairmetrics(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&wrong),
        "--out",
        path_str(&out_path),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("alignments table") && err.contains("column `links` is missing"),
        "{err}"
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".partial")
    }));
}

#[test]
fn score_enriches_the_bundled_sample() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("scored.parquet");
    let data = sample();
    let out = pairmetrics(&[
        "score",
        "--pairs",
        path_str(&data.join("pairs.parquet")),
        "--alignments",
        path_str(&data.join("alignments.parquet")),
        "--arcs",
        path_str(&data.join("arcs.parquet")),
        "--out",
        path_str(&out_path),
        "--lowercase",
        "--punct",
        ",.",
    ]);
    let text = stdout(&out);
    assert!(text.contains("rows: 3000"), "{text}");
    assert!(text.contains("empty sentence"), "{text}");

    let (batch, metadata) = read_parquet(&out_path);
    assert_eq!(batch.num_rows(), 3000);
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "pair_id",
            "src",
            "tgt",
            "src_text",
            "tgt_text",
            "led",
            "pod",
            "lepod_problem",
            "derp",
            "derp_problem"
        ]
    );
    let pair_ids: Vec<i64> = batch
        .column(0)
        .as_primitive::<Int64Type>()
        .values()
        .to_vec();
    assert_eq!(pair_ids, (0..3000).collect::<Vec<_>>());
    let signature = metadata
        .iter()
        .find(|(k, _)| k == "pairmetrics.signature")
        .unwrap();
    assert_eq!(
        signature.1,
        format!(
            "pairmetrics:{}|led:links|case:lc|pod:punct=\",.\"|derp:mst",
            pairmetrics::VERSION
        )
    );
    let led = batch
        .column_by_name("led")
        .unwrap()
        .as_primitive::<Float64Type>();
    let problems = batch.column_by_name("lepod_problem").unwrap();
    assert_eq!(led.null_count(), problems.len() - problems.null_count());
    assert!(led.iter().flatten().all(|v| (0.0..=1.0).contains(&v)));
    let derp = batch
        .column_by_name("derp")
        .unwrap()
        .as_primitive::<Float64Type>();
    let problems = batch.column_by_name("derp_problem").unwrap();
    assert_eq!(derp.null_count(), problems.len() - problems.null_count());
    assert!(
        derp.len() - derp.null_count() > 2900,
        "most pairs have a DERP"
    );
    assert!(derp.iter().flatten().all(|v| (0.0..=1.0).contains(&v)));
    assert!(text.contains("derp: mean"), "{text}");

    // The same figures as SQL over the inputs gives.
    let summary_led = text.lines().find(|l| l.starts_with("led: mean")).unwrap();
    let ctx_query = format!(
        "SELECT round(avg(led(lowercase_tokens(src), lowercase_tokens(tgt), links)), 4) FROM p JOIN a USING (pair_id)"
    );
    let sql = stdout(&pairmetrics(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("p={}", data.join("pairs.parquet").display()),
        "--table",
        &format!("a={}", data.join("alignments.parquet").display()),
        &ctx_query,
    ]));
    let mean: f64 = sql.lines().nth(1).unwrap().parse().unwrap();
    assert!(
        summary_led.starts_with(&format!("led: mean {mean:.4}")),
        "{summary_led} vs {mean}"
    );
}

fn small_pairs(dir: &Path, order: &[i64]) -> PathBuf {
    let path = dir.join("pairs.parquet");
    let text: Vec<String> = order.iter().map(|i| format!("w{i} x y")).collect();
    let tokens: Vec<&str> = text.iter().map(String::as_str).collect();
    write_parquet(
        &path,
        vec![
            ("pair_id", ids(order)),
            ("src", sentences(&tokens)),
            ("tgt", sentences(&tokens)),
        ],
    );
    path
}

#[test]
fn every_pair_gets_a_row_with_or_without_alignment() {
    let dir = TempDir::new().unwrap();
    for order in [[0i64, 1, 2, 3], [3, 1, 0, 2]] {
        let pairs = small_pairs(dir.path(), &order);
        let alignments = dir.path().join("alignments.parquet");
        // Pair 0 has no alignment; alignment 7 has no pair.
        write_parquet(
            &alignments,
            vec![
                ("pair_id", ids(&[2, 1, 7, 3])),
                (
                    "links",
                    link_lists(&[
                        Some(vec![(0, 0)]),
                        Some(vec![(0, 1), (1, 0)]),
                        Some(vec![]),
                        Some(vec![(0, 0), (1, 1), (2, 2)]),
                    ]),
                ),
            ],
        );
        let out_path = dir.path().join("out.parquet");
        let text = stdout(&pairmetrics(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--alignments",
            path_str(&alignments),
            "--out",
            path_str(&out_path),
        ]));
        assert!(
            text.contains("rows of alignments with no pair (not in the output): 1"),
            "{text}"
        );
        let note = format!("{} is not sorted by pair_id", pairs.display());
        assert_eq!(text.contains(&note), order[0] == 3, "{text}");
        let (batch, _) = read_parquet(&out_path);
        let pair_ids: Vec<i64> = batch
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec();
        assert_eq!(pair_ids, [0, 1, 2, 3]);
        let led: Vec<Option<f64>> = batch
            .column_by_name("led")
            .unwrap()
            .as_primitive::<Float64Type>()
            .iter()
            .collect();
        assert_eq!(led, [None, Some(1.0), Some(2.0 / 3.0), Some(0.0)]);
        let why = batch
            .column_by_name("lepod_problem")
            .unwrap()
            .as_string::<i32>()
            .value(0)
            .to_string();
        assert_eq!(why, "links is NULL (no alignment row)");
    }
}

#[test]
fn score_adds_derp_from_arcs_and_says_why_it_is_null() {
    let dir = TempDir::new().unwrap();
    let pairs = small_pairs(dir.path(), &[0, 1, 2, 3]); // every sentence "wI x y"
    let alignments = dir.path().join("alignments.parquet");
    let identity = Some(vec![(0, 0), (1, 1), (2, 2)]);
    write_parquet(
        &alignments,
        vec![
            ("pair_id", ids(&[0, 1, 2, 3])),
            (
                "links",
                link_lists(&[
                    identity.clone(),
                    identity.clone(),
                    identity.clone(),
                    Some(vec![(0, 1), (1, 0)]),
                ]),
            ),
        ],
    );
    // Pair 1's src parse has 2 entries for 3 tokens; pair 2 has no arcs row; arcs 9 has no pair.
    let arcs = dir.path().join("arcs.parquet");
    let tree = Some(vec![2, 0, 2]);
    let labels = |rows: &[&str]| sentences(rows);
    write_parquet(
        &arcs,
        vec![
            ("pair_id", ids(&[0, 1, 3, 9])),
            (
                "src_head",
                head_lists(&[tree.clone(), Some(vec![2, 0]), tree.clone(), tree.clone()]),
            ),
            (
                "tgt_head",
                head_lists(&[
                    tree.clone(),
                    tree.clone(),
                    Some(vec![0, 1, 2]),
                    tree.clone(),
                ]),
            ),
            (
                "src_deprel",
                labels(&["a root b", "a root", "a root b", "a root b"]),
            ),
            (
                "tgt_deprel",
                labels(&["a root b", "a root b", "root a b", "a root b"]),
            ),
        ],
    );
    let out_path = dir.path().join("out.parquet");
    let text = stdout(&pairmetrics(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--arcs",
        path_str(&arcs),
        "--out",
        path_str(&out_path),
    ]));
    assert!(
        text.contains("rows of arcs with no pair (not in the output): 1"),
        "{text}"
    );
    assert!(
        text.contains("rows with NULL metrics, by reason (column derp_problem):"),
        "{text}"
    );
    let (batch, metadata) = read_parquet(&out_path);
    let derp: Vec<Option<f64>> = batch
        .column_by_name("derp")
        .unwrap()
        .as_primitive::<Float64Type>()
        .iter()
        .collect();
    // Pair 3: src "w3 x y" (a <- root -> b) against tgt chain root -> a -> b, links 0-1 and 1-0:
    // src path 0 -> 1 is ([a], alpha, []), tgt path 1 -> 0 is ([a], beta, []): L = 1, Lmax = 2.
    assert_eq!(derp, [Some(1.0), None, None, Some(0.5)]);
    let why: Vec<Option<&str>> = batch
        .column_by_name("derp_problem")
        .unwrap()
        .as_string::<i32>()
        .iter()
        .collect();
    assert_eq!(
        why,
        [
            None,
            Some("src has 3 tokens but its parse 2"),
            Some("src_head is NULL"),
            None
        ]
    );
    assert!(
        metadata
            .iter()
            .any(|(k, v)| k == "pairmetrics.signature" && v.ends_with("|derp:mst"))
    );

    // --strict stops at the first such row, names it, and writes nothing.
    let strict_out = dir.path().join("strict.parquet");
    let out = pairmetrics(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--arcs",
        path_str(&arcs),
        "--out",
        path_str(&strict_out),
        "--strict",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("pair_id 1: src has 3 tokens but its parse 2 (column derp_problem); --strict"),
        "{err}"
    );
    assert!(!strict_out.exists());
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".partial")
    }));
}

/// Labels written dictionary-encoded (as pyarrow can) score as plain ones, whether `score` reads
/// the tables side by side (the same pairs in the same order) or joins them; and `score` reads
/// plain labels dictionary-encoded side by side.
#[test]
fn score_reads_dictionary_encoded_labels_as_plain_ones() {
    let dir = TempDir::new().unwrap();
    let pairs = small_pairs(dir.path(), &[0, 1, 2]);
    let alignments = dir.path().join("alignments.parquet");
    let links = [
        Some(vec![(0, 0), (1, 2), (2, 1)]),
        None,
        Some(vec![(0, 1), (1, 0)]),
    ];
    write_parquet(
        &alignments,
        vec![("pair_id", ids(&[0, 1, 2])), ("links", link_lists(&links))],
    );
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let labelled = DataType::List(Field::new("item", dictionary, true).into());
    let mut derp = Vec::new();
    for (name, keys, encode) in [
        ("plain", [0, 1, 2], false),
        ("encoded", [0, 1, 2], true),
        ("encoded_joined", [2, 0, 1], true),
    ] {
        let rows = |all: [&'static str; 3]| keys.map(|k| all[k as usize]);
        let column = |all| {
            let plain = sentences(&rows(all));
            match encode {
                true => datafusion::arrow::compute::cast(&plain, &labelled).unwrap(),
                false => plain,
            }
        };
        let heads = |all: [Vec<i32>; 3]| head_lists(&keys.map(|k| Some(all[k as usize].clone())));
        let arcs = dir.path().join(format!("{name}.parquet"));
        write_parquet(
            &arcs,
            vec![
                ("pair_id", ids(&keys)),
                (
                    "src_head",
                    heads([vec![2, 0, 2], vec![0, 1, 2], vec![2, 0, 1]]),
                ),
                ("src_deprel", column(["a root b", "root a b", "a root a"])),
                (
                    "tgt_head",
                    heads([vec![0, 1, 1], vec![2, 0, 2], vec![0, 1, 2]]),
                ),
                ("tgt_deprel", column(["root a b", "a root b", "root b a"])),
            ],
        );
        let out_path = dir.path().join(format!("{name}_out.parquet"));
        ok(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--alignments",
            path_str(&alignments),
            "--arcs",
            path_str(&arcs),
            "--out",
            path_str(&out_path),
        ]);
        let (batch, _) = read_parquet(&out_path);
        let column = |name| batch.column_by_name(name).unwrap().clone();
        derp.push((column("derp"), column("derp_problem")));
    }
    assert_eq!(derp[0].0.null_count(), 1, "{:?}", derp[0]);
    assert!(derp.iter().all(|d| d == &derp[0]), "{derp:?}");
}

#[test]
fn duplicate_and_null_pair_ids_are_errors() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("out.parquet");
    for (order, want) in [
        (vec![0i64, 1, 1], "pair_id 1 appears twice (rows 1 and 2)"),
        (vec![2, 1, 2], "pair_id values repeat"),
    ] {
        let pairs = small_pairs(dir.path(), &order);
        let out = pairmetrics(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--out",
            path_str(&out_path),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{err}");
    }
    let pairs = dir.path().join("null_id.parquet");
    let null_ids: ArrayRef = Arc::new(Int64Array::from(vec![Some(0), None]));
    write_parquet(
        &pairs,
        vec![
            ("pair_id", null_ids),
            ("src", sentences(&["a", "b"])),
            ("tgt", sentences(&["a", "b"])),
        ],
    );
    let out = pairmetrics(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out_path),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("pair_id is NULL at row 1"));
    assert!(!out_path.exists());
}

#[test]
fn score_without_alignments_uses_the_multiset_led() {
    let dir = TempDir::new().unwrap();
    let pairs = dir.path().join("pairs.parquet");
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids(&[5, 9])),
            ("src", sentences(&["the cat sat on the mat", "A b"])),
            ("tgt", sentences(&["the mat", "b a"])),
        ],
    );
    let out_path = dir.path().join("out.parquet");
    let text = stdout(&pairmetrics(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        path_str(&out_path),
        "--lowercase",
    ]));
    assert!(text.contains("led:multiset|case:lc"), "{text}");
    let (batch, _) = read_parquet(&out_path);
    let led: Vec<Option<f64>> = batch
        .column_by_name("led")
        .unwrap()
        .as_primitive::<Float64Type>()
        .iter()
        .collect();
    assert_eq!(led, [Some((4.0 / 6.0) / 2.0), Some(0.0)]);
    assert!(batch.column_by_name("pod").is_none());
}

#[test]
fn sql_writes_parquet_atomically() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("q.parquet");
    let table = format!("p={}", sample().join("pairs.parquet").display());
    let out = pairmetrics(&[
        "sql",
        "--table",
        &table,
        "--out",
        path_str(&out_path),
        "SELECT pair_id, tokenize(src_text) AS raw FROM p WHERE pair_id < 10",
    ]);
    stdout(&out);
    let (batch, metadata) = read_parquet(&out_path);
    assert_eq!(batch.num_rows(), 10);
    assert_eq!(
        batch.column(1).data_type(),
        &DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true)))
    );
    assert!(metadata.iter().any(|(k, _)| k == "pairmetrics.query"));
    // A failing query leaves nothing behind.
    let bad = dir.path().join("bad.parquet");
    let out = pairmetrics(&[
        "sql",
        "--table",
        &table,
        "--out",
        path_str(&bad),
        "SELECT no_such_column FROM p",
    ]);
    assert!(!out.status.success() && !bad.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn demo_prints_real_corpus_figures() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("demo.parquet");
    let text = stdout(&pairmetrics(&["demo", "--out", path_str(&out_path)]));
    assert!(text.contains("rows: 3000"), "{text}");
    let mean_led = text
        .lines()
        .find_map(|l| l.strip_prefix("led: mean "))
        .unwrap();
    let mean_led: f64 = mean_led.split_whitespace().next().unwrap().parse().unwrap();
    assert!(
        (0.5..1.0).contains(&mean_led),
        "cross-lingual LeD is high: {mean_led}"
    );
    assert!(text.contains("A histogram of PoD"));
    assert!(text.contains("pooled_derp"), "{text}");
    assert!(out_path.exists());
}

#[test]
fn help_explains_the_commands() {
    let text = stdout(&pairmetrics(&["score", "--help"]));
    for needle in [
        "--alignments",
        "--arcs",
        "--lowercase",
        "--punct",
        "signature",
        "lepod_problem",
        "derp",
    ] {
        assert!(text.contains(needle), "{needle} missing from score --help");
    }
    let text = stdout(&pairmetrics(&["--help"]));
    assert!(text.contains("demo") && text.contains("sql"));
}

/// Each command's help opens with what it does, and `--help` lists it beside the command:
/// a command without its own doc comment once showed the next command's.
#[test]
fn every_command_says_what_it_does() {
    let text = stdout(&pairmetrics(&["--help"]));
    let commands = text
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("--help lists the commands");
    let mut seen = 0;
    for line in commands.lines() {
        let (name, about) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
        let about = about.trim();
        assert!(!about.is_empty(), "`{name}` has no description in --help");
        if name == "help" {
            continue;
        }
        let own = stdout(&pairmetrics(&[name, "-h"]));
        assert!(
            own.starts_with(about),
            "`{name} -h` opens with {:?}, --help lists {about:?}",
            own.lines().next()
        );
        seen += 1;
    }
    assert!(seen >= 20, "{commands}");
    assert!(stdout(&pairmetrics(&["lepod", "-h"])).contains("lepod-score.py"));
    assert!(stdout(&pairmetrics(&["sacrebleu", "-h"])).contains("sacrebleu 2.6"));
}

#[test]
fn score_writes_snappy_unless_told_otherwise() {
    use datafusion::parquet::basic::Compression;
    let dir = TempDir::new().unwrap();
    let data = sample();
    let (pairs, alignments) = (data.join("pairs.parquet"), data.join("alignments.parquet"));
    let mut outputs = Vec::new();
    for codec in [None, Some("zstd"), Some("lz4"), Some("none")] {
        let out = dir.path().join(format!("{codec:?}.parquet"));
        let mut args = vec![
            "score",
            "--pairs",
            path_str(&pairs),
            "--alignments",
            path_str(&alignments),
            "--out",
            path_str(&out),
        ];
        args.extend(codec.iter().flat_map(|c| ["--compression", *c]));
        ok(&args);
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&out).unwrap()).unwrap();
        // A computed column: the pairs' own columns are copied as the input stores them.
        let group = reader.metadata().row_group(0);
        let led = group
            .columns()
            .iter()
            .find(|c| c.column_path().string() == "led")
            .unwrap();
        let compression = led.compression();
        let want = match codec {
            None => Compression::SNAPPY,
            Some("zstd") => Compression::ZSTD(Default::default()),
            Some("lz4") => Compression::LZ4_RAW,
            _ => Compression::UNCOMPRESSED,
        };
        assert_eq!(
            std::mem::discriminant(&compression),
            std::mem::discriminant(&want),
            "{codec:?}"
        );
        outputs.push(read_parquet(&out).0);
    }
    assert!(
        outputs.windows(2).all(|w| w[0] == w[1]),
        "the codec changes the bytes, not the values"
    );
    assert!(
        err(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--out",
            "x.parquet",
            "--compression",
            "gzip"
        ])
        .contains("possible values")
    );
}

/// Without the `cluster` feature, the cluster options say what is missing.
#[cfg(not(feature = "cluster"))]
#[test]
fn cluster_options_name_the_missing_feature() {
    let error = err(&["sql", "--cluster", "df://127.0.0.1:50050", "SELECT 1"]);
    assert!(
        error.contains("built without the `cluster` feature"),
        "{error}"
    );
    let error = err(&["cluster", "scheduler"]);
    assert!(
        error.contains("built without the `cluster` feature"),
        "{error}"
    );
}

/// A printing command whose reader stops early (`… | head -1`) ends quietly, as Unix tools do
/// (killed by SIGPIPE), and soon: it neither prints an error nor waits on its own threads.
#[test]
fn printing_commands_end_quietly_when_their_reader_leaves() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    europarl_pairs(d, None);
    let bitext = d.join("europarl.fr-en");
    std::fs::write(
        &bitext,
        gunzip(&root().join("tests/data/fast_align/europarl.fr-en.gz")),
    )
    .unwrap();
    let align = d.join("meteor.align");
    let out = pairmetrics(&[
        "align",
        path_str(&d.join("europarl.fr")),
        path_str(&d.join("europarl.en")),
    ]);
    std::fs::write(&align, stdout(&out)).unwrap();
    let pairs = d.join("pairs.parquet");
    let fast_align = root().join("tests/data/fast_align");
    let commands: Vec<Vec<String>> = [
        vec![
            "sql",
            "--format",
            "csv",
            "SELECT value FROM generate_series(1, 2000000)",
        ],
        vec![
            "sql",
            "--table",
            &format!("p={}", path_str(&pairs)),
            "SELECT * FROM p",
        ],
        vec!["align", "europarl.fr", "europarl.en"],
        vec![
            "lepod",
            "-v",
            "-a",
            "meteor.align",
            "-f",
            "europarl.fr",
            "europarl.en",
        ],
        vec!["fast-align", "-i", "europarl.fr-en", "-d", "-o", "-v"],
        vec![
            "lmplz",
            "-o",
            "3",
            "--text",
            "europarl.en",
            "--discount_fallback",
        ],
        vec!["sacrebleu", "europarl.en", "-i", "europarl.fr", "-sl"],
        vec![
            "atools",
            "-i",
            path_str(&fast_align.join("dov.align.gz")),
            "-j",
            path_str(&fast_align.join("dov-r.align.gz")),
            "-c",
            "grow-diag-final-and",
        ],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    for args in commands {
        // The pipe's reader is `head`; the test waits for the whole pipeline.
        let out = output_within(
            Command::new("bash")
                .args(["-c", r#""$@" | head -1 > /dev/null"#, "bash"])
                .arg(env!("CARGO_BIN_EXE_pairmetrics"))
                .args(&args)
                .current_dir(d),
            Duration::from_secs(300),
        )
        .unwrap_or_else(|| panic!("{args:?}: still running after 300 s"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        // fast_align and lmplz log their progress on stderr, as the originals do.
        if ["fast-align", "lmplz"].contains(&args[0].as_str()) {
            assert!(
                !stderr.contains("rror") && !stderr.contains("pipe"),
                "{args:?}: {stderr}"
            );
        } else {
            assert_eq!(stderr, "", "{args:?}");
        }
    }
}
