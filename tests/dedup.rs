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
