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
