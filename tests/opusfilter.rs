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
        other => panic!("no SQL for {other}"),
    }
}

/// A score as JSON writes it: a number, or "inf".
fn number(value: &serde_json::Value) -> f64 {
    match value {
        serde_json::Value::String(s) => s.parse().unwrap(),
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
    assert_eq!(filters, 19);
}
