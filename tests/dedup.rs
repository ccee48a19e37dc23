//! MinHash against datasketch 2.0.0's own signatures (tests/data/minhash/expected.jsonl, made by
//! scripts/make_minhash_vectors.py): 150 real texts, the three schemes, word and character
//! shingles, in SQL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::datatypes::{DataType, UInt32Type, UInt64Type};

use crate::common::{self, root};

fn texts() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("tests/data/lid/texts.txt")).unwrap();
    text.split('\n').take(150).map(str::to_string).collect()
}

#[tokio::test]
async fn minhash_is_datasketch() {
    let texts = texts();
    let ctx = common::context();
    let batch = common::batch(vec![(
        "text",
        Arc::new(StringArray::from(texts.clone())) as _,
    )]);
    common::register(&ctx, "t", batch);
    let expected =
        std::fs::read_to_string(root().join("tests/data/minhash/expected.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = expected
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut compared = 0;
    for config in rows.chunks(texts.len()) {
        let c = &config[0];
        let shingles = match c["tokens"].as_str().unwrap() {
            "words" => "tokenize(text)",
            _ => "char_ngrams(text, 3)",
        };
        let sql = format!(
            "SELECT minhash({shingles}, {}, {}, '{}') AS m FROM t",
            c["num_perm"],
            c["seed"],
            c["scheme"].as_str().unwrap()
        );
        let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let mut row = 0;
        for batch in &batches {
            let lists = batch.column(0).as_list::<i32>();
            for i in 0..batch.num_rows() {
                let values = lists.value(i);
                let got: Vec<u64> = match values.data_type() {
                    DataType::UInt32 => values
                        .as_primitive::<UInt32Type>()
                        .values()
                        .iter()
                        .map(|&v| u64::from(v))
                        .collect(),
                    _ => values.as_primitive::<UInt64Type>().values().to_vec(),
                };
                let want: Vec<u64> = config[row]["signature"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                assert_eq!(got, want, "{sql}: text {row} {:?}", texts[row]);
                row += 1;
                compared += 1;
            }
        }
        assert_eq!(row, texts.len());
        // The list type follows the scheme, as datasketch's dtype.
        let wide = c["scheme"] != "affine32";
        assert_eq!(
            batches[0].schema().field(0).data_type()
                == &DataType::List(Arc::new(
                    datafusion::arrow::datatypes::Field::new_list_field(DataType::UInt64, true)
                )),
            wide
        );
    }
    assert_eq!(compared, 600);
}

#[test]
fn minhash_refuses_what_datasketch_refuses() {
    let err = common::err(&["sql", "SELECT minhash(tokenize('a b'), 4, 1, 'affine16')"]);
    assert!(err.contains("affine16"), "{err}");
    let err = common::err(&["sql", "SELECT minhash(tokenize('a b'), 4, -1)"]);
    assert!(err.contains("seed -1"), "{err}");
    let err = common::err(&["sql", "SELECT char_ngrams('abc', 0)"]);
    assert!(err.contains("n is 0"), "{err}");
}

/// `lsh_params` chooses datasketch's (b, r) on a grid of thresholds, signature sizes and
/// weights (tests/data/minhash/lsh_params.tsv, from scripts/make_lsh_vectors.py).
#[test]
fn lsh_params_are_datasketchs() {
    let grid = std::fs::read_to_string(root().join("tests/data/minhash/lsh_params.tsv")).unwrap();
    let mut compared = 0;
    for line in grid.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (threshold, num_perm): (f64, u32) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let (fp, fneg): (f64, f64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        let want: (u32, u32) = (f[4].parse().unwrap(), f[5].parse().unwrap());
        let got = pairmetrics::dedup::lsh::optimal_params(threshold, num_perm, fp, fneg);
        assert_eq!(got, want, "{line}");
        compared += 1;
    }
    assert_eq!(compared, 255);
    let out = common::ok(&[
        "sql",
        "--format",
        "csv",
        "SELECT lsh_params(0.5, 128)['b'] AS b, lsh_params(0.5, 128)['r'] AS r, \
         lsh_params(0.9, 256, 0.2, 0.8)['b'] AS b2",
    ]);
    let want_b2 = grid
        .lines()
        .find(|l| l.starts_with("0.9\t256\t0.2\t0.8\t"))
        .unwrap()
        .split('\t')
        .nth(4)
        .unwrap();
    assert_eq!(out, format!("b,r,b2\n25,5,{want_b2}\n"));
}

/// A self-join on (band position, band key) finds exactly the candidate pairs datasketch's
/// MinHashLSH returns when every text is inserted and queried, at thresholds 0.5, 0.8 and 0.9
/// (1,811 texts: real lines in nine languages and near copies of them; its
/// tests/data/minhash/lsh_candidates.jsonl, from scripts/make_lsh_vectors.py).
#[tokio::test]
async fn lsh_candidates_are_minhashlshs() {
    let text = std::fs::read_to_string(root().join("tests/data/minhash/texts.txt")).unwrap();
    let texts: Vec<&str> = text.split('\n').collect();
    let texts = &texts[..texts.len() - 1];
    let ctx = common::context();
    let ids: Vec<i64> = (0..texts.len() as i64).collect();
    let batch = common::batch(vec![
        ("id", common::ids(&ids)),
        ("text", Arc::new(StringArray::from(texts.to_vec())) as _),
    ]);
    common::register(&ctx, "t", batch);
    let expected =
        std::fs::read_to_string(root().join("tests/data/minhash/lsh_candidates.jsonl")).unwrap();
    for line in expected.lines() {
        let want: serde_json::Value = serde_json::from_str(line).unwrap();
        let sql = format!(
            "WITH p AS (SELECT lsh_params({t}, 128) AS p),
                  s AS (SELECT id, lsh_bands(minhash(tokenize(text), 128, 1), p['b'], p['r']) AS bands
                        FROM t CROSS JOIN p),
                  k AS (SELECT id, unnest(range(0, cardinality(bands))) AS band, unnest(bands) AS key
                        FROM s)
             SELECT DISTINCT x.id, y.id FROM k x JOIN k y
               ON x.band = y.band AND x.key = y.key AND x.id < y.id
             ORDER BY 1, 2",
            t = want["threshold"]
        );
        let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let mut got = Vec::new();
        for batch in &batches {
            let (a, b) = (
                batch
                    .column(0)
                    .as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
                batch
                    .column(1)
                    .as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
            );
            got.extend((0..batch.num_rows()).map(|i| serde_json::json!([a.value(i), b.value(i)])));
        }
        let want_pairs = want["pairs"].as_array().unwrap();
        assert!(want_pairs.len() > 1000, "{}", want_pairs.len());
        assert_eq!(&got, want_pairs, "threshold {}", want["threshold"]);
    }
}

/// `jaccard` is the sets' similarity; `minhash_jaccard` is datasketch's `MinHash.jaccard`,
/// checked on the signatures of tests/data/minhash/expected.jsonl against the agreement count.
#[test]
fn jaccards_and_lsh_refusals() {
    let out = common::ok(&[
        "sql",
        "--format",
        "csv",
        "SELECT jaccard(tokenize('a b b c'), tokenize('b c d')) AS j, \
                jaccard(tokenize(''), tokenize('')) IS NULL AS empty, \
                minhash_jaccard(minhash(tokenize('a'), 4, 1), minhash(tokenize('a'), 4, 1)) AS same, \
                minhash_jaccard(minhash(tokenize('a'), 4, 1), minhash(tokenize('a'), 8, 1)) IS NULL AS lengths",
    ]);
    assert_eq!(out, "j,empty,same,lengths\n0.5,true,1.0,true\n");
    for (sql, says) in [
        (
            "SELECT lsh_params(1.0, 128)",
            "threshold 1 is not in (0, 1)",
        ),
        ("SELECT lsh_params(0.5, 1)", "num_perm 1 is not 2 to 2^16"),
        ("SELECT lsh_params(0.5, 100000)", "num_perm 100000"),
        ("SELECT lsh_params(0.5, 128, 0.7, 0.7)", "not 1"),
        ("SELECT lsh_params(0.5, 128, -0.5, 1.5)", "fp_weight -0.5"),
        ("SELECT minhash(tokenize('a'), 0, 1)", "num_perm 0"),
        ("SELECT minhash(tokenize('a'), 70000, 1)", "num_perm 70000"),
        (
            "SELECT lsh_bands(minhash(tokenize('a'), 8, 1), 3, 3)",
            "b × r = 9 exceeds",
        ),
        (
            "SELECT jaccard(['a', NULL], ['a'])",
            "jaccard: row 0: a[1] is NULL",
        ),
        (
            "SELECT minhash([NULL, 'b'], 4, 1)",
            "minhash: row 0: tokens[0] is NULL",
        ),
    ] {
        let err = common::err(&["sql", sql]);
        assert!(err.contains(says), "{sql}: {err}");
    }
    let nulls = common::ok(&[
        "sql",
        "--format",
        "csv",
        "SELECT lsh_bands(CAST(NULL AS BIGINT UNSIGNED[]), 2, 2) IS NULL AS a, \
                lsh_params(NULL, 128) IS NULL AS b",
    ]);
    assert_eq!(nulls, "a,b\ntrue,true\n");
}

/// `pair_hash` and `segment_hash` are OpusFilter's duplicate keys (xxh64 of the preprocessed
/// lines), for every option and side, on 815 real and adversarial pairs
/// (tests/data/minhash/pair_hash.tsv, from scripts/make_pair_hash_vectors.py).
#[tokio::test]
async fn pair_hash_is_opusfilters() {
    let text = std::fs::read_to_string(root().join("tests/data/lid/texts.txt")).unwrap();
    let texts: Vec<&str> = text.split('\n').collect();
    let texts = &texts[..texts.len() - 1];
    let reversed: Vec<&str> = texts.iter().rev().copied().collect();
    let ctx = common::context();
    let batch = common::batch(vec![
        ("src", Arc::new(StringArray::from(texts.to_vec())) as _),
        ("tgt", Arc::new(StringArray::from(reversed)) as _),
    ]);
    common::register(&ctx, "t", batch);
    let expected =
        std::fs::read_to_string(root().join("tests/data/minhash/pair_hash.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = expected
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let mut compared = 0;
    for set in rows.chunks(texts.len()) {
        let (options, compare) = (set[0][1], set[0][2]);
        let call = match compare {
            "all" => format!("pair_hash(src, tgt, '{options}')"),
            "0" => format!("segment_hash(src, '{options}')"),
            _ => format!("segment_hash(tgt, '{options}')"),
        };
        let batches = ctx
            .sql(&format!("SELECT {call} FROM t"))
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let got: Vec<u64> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<UInt64Type>().values().to_vec())
            .collect();
        for (row, want) in set.iter().enumerate() {
            assert_eq!(got[row].to_string(), want[3], "{call}, line {row}");
            compared += 1;
        }
    }
    assert_eq!(compared, 815 * 15);
    let err = common::err(&["sql", "SELECT pair_hash('a', 'b', 'uppercase')"]);
    assert!(err.contains("unknown option 'uppercase'"), "{err}");
}

/// Signatures and band keys depend on the row alone: a table of two files of many row groups
/// gives the same output at 1 and 4 partitions and any batch size.
#[test]
fn minhash_and_bands_are_the_same_whatever_the_layout() {
    let text = std::fs::read_to_string(root().join("tests/data/minhash/texts.txt")).unwrap();
    let texts: Vec<&str> = text.split('\n').collect();
    let texts = &texts[..texts.len() - 1];
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("texts");
    common::write_two_parts(&table, texts.len(), 97, |range| {
        let ids: Vec<i64> = range.clone().map(|i| i as i64).collect();
        common::batch(vec![
            ("id", common::ids(&ids)),
            (
                "text",
                Arc::new(StringArray::from(texts[range].to_vec())) as _,
            ),
        ])
    });
    let run = |partitions: &str, batch_size: &str| {
        common::ok(&[
            "sql",
            "--format",
            "json",
            "--partitions",
            partitions,
            "--batch-size",
            batch_size,
            "--table",
            &format!("t={}", common::path_str(&table)),
            "SELECT id, minhash(tokenize(text), 128, 1) AS m, \
                    lsh_bands(minhash(char_ngrams(text, 5), 64, 7, 'legacy'), 8, 8) AS bands, \
                    pair_hash(text, text) AS h \
             FROM t ORDER BY id",
        ])
    };
    let one = run("1", "64");
    assert_eq!(one.lines().count(), texts.len());
    assert_eq!(run("4", "1000"), one);
    assert_eq!(run("2", "7"), one);
}

/// The rows of a Parquet file or directory in file order.
fn read_rows(path: &std::path::Path) -> Vec<datafusion::arrow::array::RecordBatch> {
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let mut files: Vec<std::path::PathBuf> = match path.is_dir() {
        true => std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect(),
        false => vec![path.to_path_buf()],
    };
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            let file = std::fs::File::open(f).unwrap();
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .unwrap()
                .build()
                .unwrap();
            reader.map(Result::unwrap).collect::<Vec<_>>()
        })
        .collect()
}

/// A column of the batches as optional integers.
fn int_column(batches: &[datafusion::arrow::array::RecordBatch], name: &str) -> Vec<Option<i64>> {
    use datafusion::arrow::datatypes::Int64Type;
    batches
        .iter()
        .flat_map(|b| {
            b.column_by_name(name)
                .unwrap_or_else(|| panic!("no column {name}"))
                .as_primitive::<Int64Type>()
                .iter()
                .collect::<Vec<_>>()
        })
        .collect()
}

fn dedup_data() -> std::path::PathBuf {
    root().join("tests/data/dedup")
}

/// Run `pairmetrics dedup` on the test pairs with `args` (a relative --against path is in
/// tests/data/dedup): each row's duplicate_of.
fn dedup(args: &[String], out: &std::path::Path) -> Vec<Option<i64>> {
    let pairs = dedup_data().join("pairs");
    let mut all = vec![
        "dedup".to_string(),
        pairs.display().to_string(),
        out.display().to_string(),
    ];
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        all.push(arg.clone());
        if arg == "--against" {
            let table = args.next().unwrap();
            all.push(dedup_data().join(table).display().to_string());
        }
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    common::ok(&all);
    int_column(&read_rows(out), "duplicate_of")
}

/// `pairmetrics dedup` marks the rows OpusFilter's remove_duplicates removes (pair, each side,
/// its options, `overlap`), the rows either side repeats, and the near duplicates MinHashLSH's
/// candidates joined into connected components give, each with the pair_id of the first row of
/// its group (tests/data/dedup, scripts/make_dedup_vectors.py).
#[test]
fn dedup_marks_what_opusfilter_and_datasketch_mark() {
    let expected = std::fs::read_to_string(dedup_data().join("expected.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = read_rows(&dedup_data().join("pairs"));
    let rows: usize = input.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 4870);
    let mut settings = 0;
    for (i, line) in expected.lines().enumerate() {
        let setting: serde_json::Value = serde_json::from_str(line).unwrap();
        let args: Vec<String> = setting["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let mut want = vec![None; rows];
        for marked in setting["marked"].as_array().unwrap() {
            want[marked[0].as_u64().unwrap() as usize] = marked[1].as_i64();
        }
        let name = setting["setting"].as_str().unwrap();
        // Exact keys in memory and on disk; near keys spilled into many partitions (1 MiB).
        let ways: &[&[&str]] = match name.starts_with("exact") {
            true => &[&[], &["--keys-on-disk", "--memory-limit", "1"]],
            false => &[&["--memory-limit", "1", "--threads", "1"]],
        };
        for (w, way) in ways.iter().enumerate() {
            let mut args = args.clone();
            args.extend(way.iter().map(|a| a.to_string()));
            let got = dedup(&args, &dir.path().join(format!("{i}-{w}.parquet")));
            assert_eq!(got.len(), rows, "{name} {way:?}");
            for (row, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{name} {way:?}: row {row}");
            }
        }
        settings += 1;
    }
    assert_eq!(settings, 15);
}

/// The table comes back whole and in its order, with duplicate_of; `--only-kept` writes the rows
/// whose duplicate_of is NULL, without the column. The result is the same at 1 and 2 threads
/// and whatever the input's row groups.
#[test]
fn dedup_keeps_rows_order_and_layout() {
    let dir = tempfile::tempdir().unwrap();
    let near = ["--near", "0.8", "--side", "either"].map(String::from);
    let out = dir.path().join("all.parquet");
    let marked = dedup(&near, &out);
    let input = read_rows(&dedup_data().join("pairs"));
    let written = read_rows(&out);
    assert_eq!(
        int_column(&written, "pair_id"),
        int_column(&input, "pair_id")
    );
    let texts = |batches: &[datafusion::arrow::array::RecordBatch]| -> Vec<String> {
        batches
            .iter()
            .flat_map(|b| {
                let s = b.column_by_name("src_text").unwrap().as_string::<i32>();
                s.iter().map(|v| v.unwrap().to_string()).collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(texts(&written), texts(&input));

    let kept_path = dir.path().join("kept.parquet");
    let mut args = near.to_vec();
    args.push("--only-kept".into());
    let pairs = dedup_data().join("pairs");
    let mut all = vec![
        "dedup",
        common::path_str(&pairs),
        common::path_str(&kept_path),
    ];
    all.extend(args.iter().map(String::as_str));
    common::ok(&all);
    let kept = read_rows(&kept_path);
    assert!(kept[0].column_by_name("duplicate_of").is_none());
    let want: Vec<Option<i64>> = int_column(&input, "pair_id")
        .into_iter()
        .zip(&marked)
        .filter(|(_, d)| d.is_none())
        .map(|(id, _)| id)
        .collect();
    assert_eq!(int_column(&kept, "pair_id"), want);

    // One file of 37-row row groups, one thread: the same marks.
    let regrouped = dir.path().join("regrouped.parquet");
    {
        use datafusion::parquet::arrow::ArrowWriter;
        use datafusion::parquet::file::properties::WriterProperties;
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(37))
            .build();
        let file = std::fs::File::create(&regrouped).unwrap();
        let mut w = ArrowWriter::try_new(file, input[0].schema(), Some(props)).unwrap();
        for batch in &input {
            w.write(batch).unwrap();
        }
        w.close().unwrap();
    }
    let again = dir.path().join("again.parquet");
    let mut all = vec![
        "dedup",
        common::path_str(&regrouped),
        common::path_str(&again),
    ];
    all.extend(near.iter().map(String::as_str));
    all.extend(["--threads", "1"]);
    common::ok(&all);
    assert_eq!(int_column(&read_rows(&again), "duplicate_of"), marked);
}

/// Bad settings and tables are refused before anything is written, naming what is wrong; a row
/// with a NULL text is compared with nothing and kept.
#[test]
fn dedup_refusals_and_null_texts() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = dedup_data().join("pairs");
    let pairs = common::path_str(&pairs);
    let out = dir.path().join("out.parquet");
    let out = common::path_str(&out);
    for (args, says) in [
        (
            vec!["--near", "0"],
            "'--near <THRESHOLD>': must be in (0, 1), got 0",
        ),
        (vec!["--near", "1"], "must be in (0, 1), got 1"),
        (
            vec!["--near", "0.8", "--num-perm", "0"],
            "'--num-perm <NUM_PERM>': must be 2 to 65536 (MinHashLSH needs two permutations or more), got 0",
        ),
        (vec!["--near", "0.8", "--num-perm", "1"], "got 1"),
        (vec!["--near", "0.8", "--num-perm", "65537"], "got 65537"),
        (
            vec!["--near", "0.8", "--shingle", "chars:0"],
            "expected words or chars:N",
        ),
        (
            vec!["--options", "uppercase"],
            "'--options <OPTIONS>': unknown option 'uppercase'",
        ),
        (
            vec!["--src-column", "nope"],
            "no column `nope` (the src column)",
        ),
        (
            vec!["--tgt-column", "pair_id"],
            "column `pair_id` is Int64, not text",
        ),
        (
            vec!["--exact", "src", "--near", "0.8"],
            "cannot be used with",
        ),
    ] {
        let mut all = vec!["dedup", pairs, out];
        all.extend(args);
        let err = common::err(&all);
        assert!(err.contains(says), "{all:?}: {err}");
        assert!(!std::path::Path::new(out).exists(), "{all:?} wrote {out}");
    }

    // No pair_id; a duplicate_of column already there; the input as the output.
    let no_id = dir.path().join("no_id.parquet");
    common::write_parquet(
        &no_id,
        vec![
            ("src_text", common::sentences(&["a"])),
            ("tgt_text", common::sentences(&["b"])),
        ],
    );
    let err = common::err(&["dedup", common::path_str(&no_id), out]);
    assert!(err.contains("no pair_id column"), "{err}");
    let marked = dir.path().join("marked.parquet");
    common::ok(&["dedup", pairs, common::path_str(&marked)]);
    let err = common::err(&["dedup", common::path_str(&marked), out]);
    assert!(err.contains("already has a duplicate_of column"), "{err}");
    let copy = dir.path().join("copy.parquet");
    std::fs::copy(dedup_data().join("pairs/part-0.parquet"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let err = common::err(&["dedup", common::path_str(&copy), common::path_str(&copy)]);
    assert!(err.contains("input"), "{err}");
    assert_eq!(std::fs::read(&copy).unwrap(), before);

    // NULL texts: compared with nothing (kept), and counted.
    let nulls = dir.path().join("nulls.parquet");
    let text = |v: Vec<Option<&str>>| Arc::new(StringArray::from(v)) as _;
    common::write_parquet(
        &nulls,
        vec![
            ("pair_id", common::ids(&[1, 2, 3, 4])),
            ("src_text", text(vec![Some("a"), None, Some("a"), None])),
            (
                "tgt_text",
                text(vec![Some("b"), Some("b"), Some("b"), None]),
            ),
        ],
    );
    for (args, want) in [
        (vec![], vec![None, None, Some(1), None]),
        (
            vec!["--exact", "either"],
            vec![None, Some(1), Some(1), None],
        ),
        (vec!["--near", "0.5"], vec![None, None, Some(1), None]),
    ] {
        let out = dir.path().join(format!("nulls-{}.parquet", args.len()));
        let mut all = vec!["dedup", common::path_str(&nulls), common::path_str(&out)];
        all.extend(args.iter().copied());
        let output = common::pairmetrics(&all);
        assert!(output.status.success(), "{all:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let not_compared = if args.first() == Some(&"--exact") {
            1
        } else {
            2
        };
        assert!(
            stderr.contains(&format!("{not_compared} with a NULL text")),
            "{all:?}: {stderr}"
        );
        assert_eq!(
            int_column(&read_rows(&out), "duplicate_of"),
            want,
            "{all:?}"
        );
    }
}

/// When the distinct keys pass --memory-limit, exact keys are grouped on disk instead, with the
/// same result (30,000 distinct sources do not fit in 1 MiB).
#[test]
fn dedup_groups_on_disk_when_the_keys_exceed_memory() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("many.parquet");
    let n = 30_000;
    let src: Vec<String> = (0..n).map(|i| format!("source {}", i % 29_000)).collect();
    let tgt: Vec<String> = (0..n).map(|i| format!("target {}", i % 997)).collect();
    let ids: Vec<i64> = (0..n as i64).collect();
    common::write_parquet(
        &table,
        vec![
            ("pair_id", common::ids(&ids)),
            ("src_text", Arc::new(StringArray::from(src)) as _),
            ("tgt_text", Arc::new(StringArray::from(tgt)) as _),
        ],
    );
    let run = |extra: &[&str], out: &str| {
        let out = dir.path().join(out);
        let mut args = vec!["dedup", common::path_str(&table), common::path_str(&out)];
        args.extend(["--exact", "either", "--memory-limit", "1"]);
        args.extend(extra);
        let output = common::pairmetrics(&args);
        assert!(output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        (int_column(&read_rows(&out), "duplicate_of"), stderr)
    };
    let (fell_back, stderr) = run(&[], "a.parquet");
    assert!(
        stderr.contains("the distinct keys exceeded --memory-limit"),
        "{stderr}"
    );
    let (on_disk, _) = run(&["--keys-on-disk"], "b.parquet");
    assert_eq!(fell_back, on_disk);
    // Rows 997.. repeat a target; the first 997 rows are kept.
    assert!(fell_back[..997].iter().all(Option::is_none));
    assert_eq!(fell_back[997], Some(0));
    // Row 29,500 repeats row 500 by its source and row 587 by its target: the earliest.
    assert_eq!(fell_back[29_500], Some(500));
}

/// A Delta table in, a Delta table out: the same marks as from the table's Parquet file read
/// as such (one file: the same order).
#[test]
fn dedup_reads_and_writes_delta_tables() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = dedup_data().join("pairs");
    let delta_dir = dir.path().join("in");
    let delta_in = format!("delta:{}", delta_dir.display());
    common::ok(&[
        "sql",
        "--table",
        &format!("p={}", pairs.display()),
        "--out",
        &delta_in,
        "SELECT * FROM p",
    ]);
    let files: Vec<_> = std::fs::read_dir(&delta_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    assert_eq!(files.len(), 1);
    let delta_out = format!("delta:{}", dir.path().join("out").display());
    common::ok(&["dedup", &delta_in, &delta_out, "--exact", "either"]);
    let parquet_out = dir.path().join("out.parquet");
    let file = common::path_str(&files[0]);
    common::ok(&[
        "dedup",
        file,
        common::path_str(&parquet_out),
        "--exact",
        "either",
    ]);
    let query = "SELECT pair_id, duplicate_of FROM t ORDER BY pair_id";
    let marks = |table: &std::path::Path| common::csv_rows(&[], &[("t", table)], query);
    let got = marks(std::path::Path::new(&delta_out));
    assert_eq!(got, marks(&parquet_out));
    assert_eq!(got.len(), 4870);
    assert!(got.iter().filter(|row| !row.ends_with(',')).count() > 1000);
}
