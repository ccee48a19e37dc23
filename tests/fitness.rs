//! SPEC §4: dependency fitness over triple counts (`tests/vectors/dep_fit`), counting triples
//! (`triples`, `import syntactic-ngrams`), synthetic phrases, `lm_logprob` against KenLM, and
//! word accuracy (`tests/vectors/word_accuracy`).

use std::io::Write;
use std::path::Path;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::prelude::SessionContext;
use pairmetrics::Resources;
use pairmetrics::pair::dep_fit::{Formula, Parse, TripleIndex, dep_fit};
use pairmetrics::pipeline::triples::{Side, TriplesOptions, triples};
use pairmetrics::resources::{load_lm, load_triples};
use pairmetrics::session::{Session, Tuning};
use serde_json::Value;
use tempfile::TempDir;

use crate::common::*;

fn json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(vectors().join(path)).unwrap()).unwrap()
}

fn ctx_with(resources: &Resources) -> SessionContext {
    Session {
        resources: resources.clone(),
        ..Default::default()
    }
    .build()
    .unwrap()
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn sql_list(items: impl IntoIterator<Item = String>) -> String {
    let quoted: Vec<String> = items.into_iter().map(|s| quote(&s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// The first row of a query, as floats.
async fn float_row(ctx: &SessionContext, sql: &str) -> Vec<Option<f64>> {
    let batches = collect(ctx, sql).await;
    batches[0]
        .columns()
        .iter()
        .map(|c| {
            let c = datafusion::arrow::compute::cast(
                c,
                &datafusion::arrow::datatypes::DataType::Float64,
            )
            .unwrap();
            let c = c.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
            c.is_valid(0).then(|| c.value(0))
        })
        .collect()
}

/// The vector's arcs, with filler triples that make c(h,*,l) and c(*,d,l) equal its marginals.
fn vector_triples(v: &Value) -> Vec<(String, String, String, u64)> {
    let mut rows = Vec::new();
    for (i, arc) in v["counts"].as_array().unwrap().iter().enumerate() {
        let [h, d, l] = ["head", "dep", "deprel"].map(|k| arc[k].as_str().unwrap().to_string());
        let [hdl, hl, dl] = ["c_hdl", "c_h_l", "c_d_l"].map(|k| arc[k].as_u64().unwrap());
        rows.push((h.clone(), d.clone(), l.clone(), hdl));
        rows.push((h, format!("<other dep {i}>"), l.clone(), hl - hdl));
        rows.push((format!("<other head {i}>"), d, l, dl - hdl));
    }
    rows
}

fn vector_index(v: &Value) -> TripleIndex {
    let mut index = TripleIndex::default();
    for (h, d, l, c) in vector_triples(v) {
        index.form.add(&h, &d, &l, c);
    }
    index
}

#[test]
fn dep_fit_vector_kernel() {
    let v = json("dep_fit/eat_with_chopsticks.json");
    let index = vector_index(&v);
    for arc in v["counts"].as_array().unwrap() {
        let [h, d, l] = ["head", "dep", "deprel"].map(|k| arc[k].as_str().unwrap());
        let got = index.form.sim(h, d, l, Formula::Paper);
        assert!(
            (got - arc["sim"].as_f64().unwrap()).abs() < 1e-6,
            "SIM({h}, {d}, {l}) = {got}"
        );
    }
    let words: Vec<&str> = v["sentence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let deprels: Vec<&str> = v["deprel"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let heads: Vec<i32> = v["head"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_i64().unwrap() as i32)
        .collect();
    let parse = Parse {
        words: &words,
        heads: &heads,
        deprels: &deprels,
    };
    for (word, fit) in v["fit_word"].as_object().unwrap() {
        let position = words.iter().position(|w| w == word).unwrap();
        let got = dep_fit(&index.form, &parse, &[position], Formula::Paper).unwrap();
        assert!(
            (got - fit.as_f64().unwrap()).abs() < 1e-6,
            "FIT({word}) = {got}"
        );
    }
    let phrase: Vec<usize> = v["phrase_positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap() as usize)
        .collect();
    let paper = dep_fit(&index.form, &parse, &phrase, Formula::Paper).unwrap();
    assert!(
        (paper - v["fit_phrase"].as_f64().unwrap()).abs() < 1e-6,
        "{paper}"
    );
    let iucl = dep_fit(&index.form, &parse, &phrase, Formula::Iucl).unwrap();
    assert!(
        (iucl - v["iucl_code_compatible_value"].as_f64().unwrap()).abs() < 1e-6,
        "{iucl}"
    );
}

/// The vector through SQL, with the counts read back from a triples Parquet file.
#[tokio::test]
async fn dep_fit_vector_through_sql_and_parquet() {
    let v = json("dep_fit/eat_with_chopsticks.json");
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("triples.parquet");
    let rows = vector_triples(&v);
    let column = |f: fn(&(String, String, String, u64)) -> &str| strings_array(rows.iter().map(f));
    write_parquet(
        &path,
        vec![
            ("level", strings_array(rows.iter().map(|_| "form"))),
            ("head", column(|r| &r.0)),
            ("dep", column(|r| &r.1)),
            ("deprel", column(|r| &r.2)),
            (
                "count",
                std::sync::Arc::new(datafusion::arrow::array::Int64Array::from_iter_values(
                    rows.iter().map(|r| r.3 as i64),
                )),
            ),
        ],
    );
    let ctx = ctx_with(&Resources::default().with_triples(load_triples(&path).await.unwrap()));
    let words = sql_list(
        v["sentence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string()),
    );
    let deprels = sql_list(
        v["deprel"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string()),
    );
    let args = format!("{words}, [2, 0, 2, 2, 4], {deprels}");
    let query = format!(
        "SELECT dep_fit({args}, [1, 3, 4]), dep_fit_iucl({args}, [1, 3, 4]), dep_fit({args}, 3, 2), \
         dep_fit({args}, 0, 5), dep_fit({args}, 1, 0), dep_fit({args}, 4, 2), dep_fit_pos({args}, 1, 1)"
    );
    let got = float_row(&ctx, &query).await;
    let close = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() < 1e-6);
    assert!(close(got[0], 0.071764), "{got:?}");
    assert!(close(got[1], 0.066552), "{got:?}");
    assert!(close(got[2], (0.030495 + 0.010989) / 2.0), "{got:?}");
    // The whole sentence: I, eat, rice, with, chopsticks.
    assert!(
        close(
            got[3],
            (0.071429 + 0.173810 + 0.4 + 0.030495 + 0.010989) / 5.0
        ),
        "{got:?}"
    );
    assert_eq!(
        (got[4], got[5]),
        (None, None),
        "an empty phrase, a phrase past the end"
    );
    assert_eq!(got[6], Some(0.0), "no UPOS counts: every SIM is 0");
    let past = strings(&ctx, &format!("SELECT dep_fit_problem({args}, 4, 2)"), 0).await;
    assert_eq!(
        past,
        [Some(
            "phrase position 5 is outside the sentence (0..5)".to_string()
        )]
    );
    let empty = strings(&ctx, &format!("SELECT dep_fit_problem({args}, 1, 0)"), 0).await;
    assert_eq!(empty, [Some("the phrase is empty".to_string())]);
    let fine = strings(&ctx, &format!("SELECT dep_fit_problem({args}, 0, 1)"), 0).await;
    assert_eq!(fine, [None]);
}

fn strings_array<'a>(values: impl Iterator<Item = &'a str>) -> datafusion::arrow::array::ArrayRef {
    std::sync::Arc::new(datafusion::arrow::array::StringArray::from_iter_values(
        values,
    ))
}

#[tokio::test]
async fn malformed_parses_give_null_and_a_reason() {
    let ctx = ctx_with(&Resources::default().with_triples(TripleIndex::default()));
    // (tokens, heads, deprels, why dep_fit is NULL)
    let cases = [
        (
            "['a', 'b']",
            "[2]",
            "['x', 'root']",
            "the sentence has 2 tokens but 1 heads and 2 deprels",
        ),
        (
            "['a', 'b']",
            "[3, 0]",
            "['x', 'root']",
            "head[0] = 3 is not a position of the sentence (0 = root) nor another token",
        ),
        (
            "['a', 'b']",
            "[1, 0]",
            "['x', 'root']",
            "head[0] = 1 is not a position of the sentence (0 = root) nor another token",
        ),
        (
            "['a', 'b']",
            "[-1, 0]",
            "['x', 'root']",
            "head[0] = -1 is not a position of the sentence (0 = root) nor another token",
        ),
        (
            "['a']",
            "[0]",
            "['root']",
            "no token of the phrase has a dependency arc",
        ),
        (
            "['a', NULL]",
            "[2, 0]",
            "['x', 'root']",
            "tokens[1] is NULL",
        ),
        ("['a', 'b']", "NULL", "['x', 'root']", "head is NULL"),
    ];
    for (tokens, heads, deprels, reason) in cases {
        let args = format!("{tokens}, {heads}, {deprels}, [0]");
        let value = floats(&ctx, &format!("SELECT dep_fit({args})"), 0).await;
        assert_eq!(value, [None], "{args}");
        let why = strings(&ctx, &format!("SELECT dep_fit_problem({args})"), 0).await;
        assert_eq!(why, [Some(reason.to_string())], "{args}");
        // dep_triples has no reason column: NULL for a malformed parse, no arcs for a lone root.
        let triples = floats(
            &ctx,
            &format!(
                "SELECT CAST(cardinality(dep_triples({tokens}, {heads}, {deprels})) AS DOUBLE)"
            ),
            0,
        )
        .await;
        let want = if tokens == "['a']" { Some(0.0) } else { None };
        assert_eq!(triples, [want], "{args}");
    }
    // The library names the resource and how to bind it; the command line names its flag.
    let error = ctx_with(&Resources::default())
        .sql("SELECT dep_fit(['a'], [0], ['root'], 0, 1)")
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("dep_fit needs triple counts: bind one with Resources::with_triples"),
        "{error}"
    );
    let error = err(&["sql", "SELECT dep_fit(['a'], [0], ['root'], 0, 1)"]);
    assert!(
        error.contains("needs triple counts: pass --triples PATH"),
        "{error}"
    );
}

/// A tiny corpus whose counts are known: `b -x-> a` twice, `c -x-> a` once, one bad parse.
fn tiny_corpus(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (pairs, arcs) = (dir.join("pairs.parquet"), dir.join("arcs.parquet"));
    let tgt = sentences(&["A b", "a B", "a c", "a b c"]);
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids(&[0, 1, 2, 3])),
            ("src", tgt.clone()),
            ("tgt", tgt),
        ],
    );
    let heads = head_lists(&[
        Some(vec![2, 0]),
        Some(vec![2, 0]),
        Some(vec![2, 0]),
        Some(vec![2, 0]),
    ]);
    let deprels = sentences(&["x root", "x root", "x root", "x root"]);
    let upos = sentences(&["DET NOUN", "DET NOUN", "DET VERB", "DET NOUN"]);
    write_parquet(
        &arcs,
        vec![
            ("pair_id", ids(&[0, 1, 2, 3])),
            ("src_head", heads.clone()),
            ("tgt_head", heads),
            ("src_deprel", deprels.clone()),
            ("tgt_deprel", deprels),
            ("src_upos", upos.clone()),
            ("tgt_upos", upos),
        ],
    );
    (pairs, arcs)
}

async fn triple_rows(path: &Path) -> Vec<String> {
    let ctx = SessionContext::new();
    ctx.register_parquet("t", path.to_str().unwrap(), Default::default())
        .await
        .unwrap();
    let query = "SELECT concat_ws(' ', level, head, dep, deprel, CAST(count AS VARCHAR)) FROM t";
    strings(&ctx, query, 0)
        .await
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

#[tokio::test]
async fn triples_counts_a_tiny_corpus() {
    let dir = TempDir::new().unwrap();
    let (pairs, arcs) = tiny_corpus(dir.path());
    let out = dir.path().join("triples.parquet");
    let options = TriplesOptions {
        pairs,
        arcs,
        side: Side::Tgt,
        out: out.clone(),
        lowercase: true,
        max_length: None,
        tuning: Tuning::default(),
    };
    let summary = triples(&options).await.unwrap();
    // `a b c` has 3 tokens and 2 heads: its forms are skipped, but its tags and parse agree.
    assert_eq!(summary.skipped, 1);
    assert_eq!((summary.arcs, summary.distinct), ([3, 4], [2, 2]));
    assert_eq!(
        triple_rows(&out).await,
        [
            "form b a x 2",
            "form c a x 1",
            "upos NOUN DET x 3",
            "upos VERB DET x 1"
        ],
        "lowercased forms, sorted by level, head, dep, deprel"
    );
    let mut index = load_triples(&out).await.unwrap();
    assert_eq!(index.form.counts("b", "a", "x"), (2, 2, 3));
    // A second row with the same key adds up.
    index.form.add("b", "a", "x", 1);
    assert_eq!(index.form.counts("b", "a", "x"), (3, 3, 4));
}

#[test]
fn triples_cli_on_the_bundled_sample_then_dep_fit_in_sql() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("triples.parquet");
    let sample = sample();
    let summary = ok(&[
        "triples",
        "--pairs",
        path_str(&sample.join("pairs.parquet")),
        "--arcs",
        path_str(&sample.join("arcs.parquet")),
        "--side",
        "tgt",
        "--lowercase",
        "--memory-limit",
        "64",
        "--out",
        path_str(&out),
    ]);
    assert!(
        summary.contains("form: ") && summary.contains("upos: ") && summary.contains("arcs/s"),
        "{summary}"
    );
    // Every non-root arc of a well-formed parse is counted once, at each level.
    let arcs = sample.join("arcs.parquet");
    let pairs = sample.join("pairs.parquet");
    let expected = csv_rows(
        &[],
        &[("p", &pairs), ("r", &arcs)],
        "SELECT count(*) FROM (SELECT unnest(tgt_head) AS h FROM p JOIN r USING (pair_id) \
         WHERE cardinality(p.tgt) = cardinality(r.tgt_head)) WHERE h > 0",
    );
    let counted = csv_rows(
        &[],
        &[("t", &out)],
        "SELECT level, sum(count) FROM t GROUP BY level ORDER BY level",
    );
    assert_eq!(
        counted,
        [
            format!("form,{}", expected[0]),
            format!("upos,{}", expected[0])
        ]
    );
    // --max-length 25: the IUCL system's sentences of at most 25 words, at both levels.
    let short = dir.path().join("short.parquet");
    let summary = ok(&[
        "triples",
        "--pairs",
        path_str(&pairs),
        "--arcs",
        path_str(&arcs),
        "--max-length",
        "25",
        "--out",
        path_str(&short),
    ]);
    let long = csv_rows(
        &[],
        &[("p", &pairs)],
        "SELECT count(*) FROM p WHERE cardinality(tgt) > 25",
    );
    assert!(
        summary.contains(&format!("longer than --max-length left out: {}", long[0])),
        "{summary}"
    );
    let expected = csv_rows(
        &[],
        &[("p", &pairs), ("r", &arcs)],
        "SELECT count(*) FROM (SELECT unnest(tgt_head) AS h FROM p JOIN r USING (pair_id) \
         WHERE cardinality(p.tgt) = cardinality(r.tgt_head) AND cardinality(p.tgt) <= 25) WHERE h > 0",
    );
    let counted = csv_rows(
        &[],
        &[("t", &short)],
        "SELECT level, sum(count) FROM t GROUP BY level ORDER BY level",
    );
    assert_eq!(
        counted,
        [
            format!("form,{}", expected[0]),
            format!("upos,{}", expected[0])
        ]
    );
    // The fitness guide's query (docs/guide/fitness-lm-semeval.md): a phrase's fitness against the corpus it came from is positive.
    let fit = csv_rows(
        &["--triples", path_str(&out)],
        &[("p", &pairs), ("r", &arcs)],
        "SELECT count(*), min(fit) > 0, max(fit) <= 1 FROM (SELECT dep_fit(lowercase_tokens(p.tgt), \
         r.tgt_head, r.tgt_deprel, 0, 3) AS fit FROM p JOIN r USING (pair_id) WHERE cardinality(p.tgt) >= 3 \
         AND cardinality(p.tgt) = cardinality(r.tgt_head))",
    );
    let row: Vec<&str> = fit[0].split(',').collect();
    assert!(row[0].parse::<u64>().unwrap() > 2900, "{fit:?}");
    assert_eq!(&row[1..], ["true", "true"], "{fit:?}");
}

#[test]
fn import_syntactic_ngrams() {
    let dir = TempDir::new().unwrap();
    let gz = dir.path().join("arcs.00-of-99.gz");
    let mut enc =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    enc.write_all(
        b"ceased\tceased/VBD/ccomp/0 operations/NNS/dobj/1\t12\t1995,3\t2000,9\n\
          Ceased\tCeased/VBD/ccomp/0 Operations/NNS/dobj/1\t3\t1990,3\n\
          this\tand/or/CC/cc/2 this/DT/det/0 in/IN/prep/2\t7\t2001,7\n",
    )
    .unwrap();
    enc.finish().unwrap();
    let plain = dir.path().join("arcs.01-of-99");
    std::fs::write(&plain, "made\tmade/VBD/root/0 of/IN/prep/1\t5\t1999,5").unwrap();
    let out = dir.path().join("triples.parquet");
    let printed = ok(&[
        "import",
        "syntactic-ngrams",
        path_str(&gz),
        path_str(&plain),
        "--lowercase",
        "--out",
        path_str(&out),
    ]);
    assert!(printed.contains("10 rows"), "{printed}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let rows = rt.block_on(triple_rows(&out));
    assert_eq!(
        rows,
        [
            "form ceased operations dobj 12",
            "upos VERB NOUN dobj 12",
            "form ceased operations dobj 3",
            "upos VERB NOUN dobj 3",
            "form this and/or cc 7",
            "upos DET CCONJ cc 7",
            "form this in prep 7",
            "upos DET ADP prep 7",
            "form made of prep 5",
            "upos VERB ADP prep 5"
        ]
    );
    let index = rt.block_on(load_triples(&out)).unwrap();
    assert_eq!(
        index.form.counts("ceased", "operations", "dobj"),
        (15, 15, 15)
    );
    // The Treebank tags, as Universal POS tags: the level dep_fit_pos counts.
    assert_eq!(index.upos.counts("VERB", "NOUN", "dobj"), (15, 15, 15));
    assert_eq!(index.upos.counts("DET", "ADP", "prep"), (7, 7, 12));
    std::fs::write(&plain, "made\tmade/VBD/root/0 of/IN/prep/3\t5\n").unwrap();
    let error = err(&[
        "import",
        "syntactic-ngrams",
        path_str(&plain),
        "--out",
        path_str(&out),
    ]);
    assert!(
        error.contains("arcs.01-of-99:1: token `of` has head index 3 but the n-gram has 2 tokens"),
        "{error}"
    );
}

#[tokio::test]
async fn lm_functions_equal_kenlm_on_every_test_sentence() {
    let data = root().join("tests/data/lm");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("kenlm_scores.json")).unwrap())
            .unwrap();
    let model = load_lm(&data.join("europarl.en.3gram.arpa.gz")).unwrap();
    assert_eq!(
        (model.order(), model.counts()),
        (3, &[3666u64, 16006, 24857][..])
    );
    let ctx = ctx_with(&Resources::default().with_lm(model));
    let cases = expected["cases"].as_array().unwrap();
    let values: Vec<String> = cases
        .iter()
        .map(|c| format!("({})", quote(c["sentence"].as_str().unwrap())))
        .collect();
    let values = values.join(", ");
    // Each of KenLM's scores of a sentence, and the lm_* call that should equal it.
    for (key, call) in [
        ("log10", "lm_logprob(t)"),
        ("log10_no_bos", "lm_logprob(t, false)"),
        ("log10_no_eos", "lm_logprob(t, true, false)"),
        ("log10_bare", "lm_logprob(t, false, false)"),
        ("perplexity", "lm_perplexity(t)"),
    ] {
        let query =
            format!("SELECT {call} FROM (SELECT tokenize(column1) AS t FROM (VALUES {values}))");
        let got = floats(&ctx, &query, 0).await;
        assert_eq!(got.len(), cases.len());
        for (case, got) in cases.iter().zip(got) {
            let (want, got) = (case[key].as_f64().unwrap(), got.unwrap());
            // Relative for perplexity: it is 10^(-log10 / n), so its error scales with it.
            assert!(
                (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                "{call} of {:?}: {got} vs KenLM {want}",
                case["sentence"]
            );
        }
    }
    for (key, call) in [
        ("full_scores", "lm_full_scores(t)"),
        ("full_scores_bare", "lm_full_scores(t, false, false)"),
    ] {
        let query = format!(
            "SELECT {call}, lm_oov_count(t) FROM (SELECT tokenize(column1) AS t FROM (VALUES {values}))"
        );
        let batches = collect(&ctx, &query).await;
        let rows = batches.iter().flat_map(|b| {
            let (lists, oovs) = (
                b.column(0).as_list::<i32>(),
                b.column(1)
                    .as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
            );
            (0..b.num_rows())
                .map(|i| (lists.value(i), oovs.value(i)))
                .collect::<Vec<_>>()
        });
        let mut seen = 0;
        for (case, (words, oov_count)) in cases.iter().zip(rows) {
            seen += 1;
            let words = words.as_struct();
            let (log10, length, oov) = (
                words
                    .column(0)
                    .as_primitive::<datafusion::arrow::datatypes::Float64Type>(),
                words
                    .column(1)
                    .as_primitive::<datafusion::arrow::datatypes::Int32Type>(),
                words.column(2).as_boolean(),
            );
            let want = case[key].as_array().unwrap();
            assert_eq!(words.len(), want.len(), "{call} of {:?}", case["sentence"]);
            for (k, w) in want.iter().enumerate() {
                let (p, n, o) = (
                    w[0].as_f64().unwrap(),
                    w[1].as_i64().unwrap(),
                    w[2].as_bool().unwrap(),
                );
                assert!(
                    (log10.value(k) - p).abs() < 1e-4,
                    "{call} of {:?}, word {k}: {} vs {p}",
                    case["sentence"],
                    log10.value(k)
                );
                assert_eq!(
                    (length.value(k) as i64, oov.value(k)),
                    (n, o),
                    "{call} of {:?}, word {k}",
                    case["sentence"]
                );
            }
            let oovs = want.iter().filter(|w| w[2].as_bool().unwrap()).count() as i64;
            assert_eq!(oov_count, oovs, "lm_oov_count of {:?}", case["sentence"]);
        }
        assert_eq!(seen, cases.len());
    }
    assert_eq!(
        floats(&ctx, "SELECT lm_logprob(['a'], NULL)", 0).await,
        [None]
    );
    let nulls = collect(
        &ctx,
        "SELECT lm_full_scores(NULL), lm_full_scores(['a'], true, NULL), lm_oov_count(NULL)",
    )
    .await;
    assert!(nulls[0].columns().iter().all(|c| c.is_null(0)));
    let error = ctx.sql("SELECT lm_logprob(['a'], 1)").await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("lm_logprob(List(Utf8), Boolean, Boolean)"),
        "{error}"
    );
    assert_eq!(
        floats(&ctx, "SELECT lm_logprob(NULL), lm_logprob(['a', NULL])", 0).await,
        [None]
    );
    let error = ctx_with(&Resources::default())
        .sql("SELECT lm_logprob(['a'])")
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("lm_logprob needs a language model: bind one with Resources::with_lm"),
        "{error}"
    );
    for function in ["lm_full_scores", "lm_perplexity", "lm_oov_count"] {
        let error = ctx_with(&Resources::default())
            .sql(&format!("SELECT {function}(['a'])"))
            .await
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("{function} needs a language model")),
            "{error}"
        );
    }
    let error = err(&["sql", "SELECT lm_logprob(['a'])"]);
    assert!(
        error.contains("needs a language model: pass --lm PATH"),
        "{error}"
    );
}

#[test]
fn word_accuracy_vectors_as_text_and_as_tokens() {
    let v = json("word_accuracy/semeval2014_task5.json");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ctx = context();
    for case in v["cases"].as_array().unwrap() {
        let out = case["out"].as_str().unwrap();
        let refs: Vec<String> = case["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        let want = case["word_accuracy"].as_f64().unwrap();
        let as_text = format!("SELECT word_accuracy('{out}', {})", sql_list(refs.clone()));
        let token_lists: Vec<String> = refs
            .iter()
            .map(|r| sql_list(r.split(' ').map(str::to_string)))
            .collect();
        let as_tokens = format!(
            "SELECT word_accuracy({}, [{}])",
            sql_list(out.split(' ').map(str::to_string)),
            token_lists.join(", ")
        );
        for query in [as_text, as_tokens] {
            let got = rt.block_on(floats(&ctx, &query, 0));
            assert_eq!(got, [Some(want)], "{query}");
        }
    }
    let edge = rt.block_on(floats(
        &ctx,
        "SELECT word_accuracy('a', []), word_accuracy(NULL, ['a'])",
        0,
    ));
    assert_eq!(edge, [None]);
    let mismatch = rt
        .block_on(ctx.sql("SELECT word_accuracy(['a'], ['a'])"))
        .unwrap_err();
    assert!(
        mismatch
            .to_string()
            .contains("argument `refs` must be a list of token lists"),
        "{mismatch}"
    );
}

#[test]
fn synthetic_phrases_from_an_imported_phrase_table() {
    let dir = TempDir::new().unwrap();
    let moses = dir.path().join("phrase-table");
    std::fs::write(
        &moses,
        "la ||| the ||| 0.4 0.3 0.7 0.6\n\
         la ||| it ||| 0.1 0.1 0.2 0.1\n\
         maison ||| house ||| 0.8 0.7 0.9 0.8\n\
         bleue ||| blue ||| 0.9 0.8 0.8 0.7\n\
         maison bleue ||| blue house ||| 0.5 0.4 0.6 0.5\n",
    )
    .unwrap();
    let table = dir.path().join("pt.parquet");
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&moses),
        "--out",
        path_str(&table),
    ]);
    let query = "SELECT rank, candidate, p_e_f, p_f_e, pieces, array_to_string(split, '|') \
                 FROM synthetic_phrases('la maison bleue') ORDER BY rank";
    let with_table = ["--phrase-table", path_str(&table)];
    let rows = csv_rows(&with_table, &[], query);
    let product = |a: f64, b: f64| a * b;
    assert_eq!(
        rows,
        [
            format!(
                "1,the blue house,{},{},2,la|maison bleue",
                product(0.7, 0.6),
                product(0.4, 0.5)
            ),
            format!(
                "2,it blue house,{},{},2,la|maison bleue",
                product(0.2, 0.6),
                product(0.1, 0.5)
            ),
            format!(
                "3,the house blue,{},{},3,la|maison|bleue",
                product(0.7, 0.9) * 0.8,
                product(0.4, 0.8) * 0.9
            ),
            format!(
                "4,it house blue,{},{},3,la|maison|bleue",
                product(0.2, 0.9) * 0.8,
                product(0.1, 0.8) * 0.9
            ),
        ]
    );
    assert_eq!(
        csv_rows(
            &with_table,
            &[],
            "SELECT count(*) FROM synthetic_phrases('la maison bleue', 2)"
        ),
        ["2"]
    );
    assert_eq!(
        csv_rows(
            &with_table,
            &[],
            "SELECT count(*) FROM synthetic_phrases('la voiture')"
        ),
        ["0"]
    );
    let error = err(&["sql", "SELECT * FROM synthetic_phrases('la')"]);
    assert!(
        error.contains("synthetic_phrases needs a phrase table"),
        "{error}"
    );
    let error = err(&[
        "sql",
        "--phrase-table",
        path_str(&table),
        "SELECT * FROM synthetic_phrases(1)",
    ]);
    assert!(
        error.contains("the phrase must be a string literal"),
        "{error}"
    );
}

#[test]
fn score_adds_fitness_and_lm_columns() {
    let dir = TempDir::new().unwrap();
    let (pairs, arcs) = tiny_corpus(dir.path());
    let triples_path = dir.path().join("triples.parquet");
    ok(&[
        "triples",
        "--pairs",
        path_str(&pairs),
        "--arcs",
        path_str(&arcs),
        "--out",
        path_str(&triples_path),
    ]);
    let lm = root().join("tests/data/lm/europarl.en.3gram.arpa.gz");
    let out = dir.path().join("scored.parquet");
    let summary = ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--arcs",
        path_str(&arcs),
        "--triples",
        path_str(&triples_path),
        "--lm",
        path_str(&lm),
        "--out",
        path_str(&out),
    ]);
    assert!(summary.contains("tgt_dep_fit: mean"), "{summary}");
    assert!(
        summary.contains("the sentence has 3 tokens but 2 heads and 2 deprels"),
        "{summary}"
    );
    assert!(
        summary.contains("|dep_fit:paper,form,sentence|lm:log10,bos,eos"),
        "{summary}"
    );
    let rows = csv_rows(
        &[],
        &[("s", &out)],
        "SELECT pair_id, round(tgt_dep_fit, 6), tgt_lm_logprob < 0 FROM s ORDER BY pair_id",
    );
    // Cased counts (no --lowercase): (b,A,x), (B,a,x) and (c,a,x) once each. The whole sentence's
    // fitness is its one arc's SIM: 2*1/(1+1) for `A b`, 2*1/(1+2) for `a B` and `a c`.
    assert_eq!(
        rows,
        [
            "0,1.0,true",
            "1,0.666667,true",
            "2,0.666667,true",
            "3,,true"
        ]
    );
}

mod properties {
    use std::collections::HashMap;

    use pairmetrics::lm::ngram::{NgramModel, NgramModelBuilder};
    use pairmetrics::pair::dep_fit::{Formula, Parse, TripleCounts, dep_fit};
    use pairmetrics::pair::word_accuracy::{Scratch, word_accuracy};
    use proptest::prelude::*;

    /// A random tree over n tokens (each token's head is an earlier token or the root).
    fn tree() -> impl Strategy<Value = Vec<i32>> {
        (1usize..12).prop_flat_map(|n| {
            (0..n)
                .map(|i| (0..=i as i32).prop_map(move |h| if h == 0 || i == 0 { 0 } else { h }))
                .collect::<Vec<_>>()
        })
    }

    proptest! {
        #[test]
        fn dep_fit_is_bounded(heads in tree(), words in prop::collection::vec(0u8..4, 12), counts in prop::collection::vec(0u64..5, 64)) {
            let n = heads.len();
            let names = ["a", "b", "c", "d"];
            let words: Vec<&str> = words[..n].iter().map(|&w| names[w as usize]).collect();
            let deprels: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "x" } else { "y" }).collect();
            let mut table = TripleCounts::default();
            for (k, &c) in counts.iter().enumerate() {
                let (h, d, l) = (names[k % 4], names[(k / 4) % 4], ["x", "y"][(k / 16) % 2]);
                table.add(h, d, l, c);
            }
            let parse = Parse { words: &words, heads: &heads, deprels: &deprels };
            prop_assert!(parse.check().is_ok());
            let phrase: Vec<usize> = (0..n).collect();
            for (formula, top) in [(Formula::Paper, 1.0), (Formula::Iucl, 0.5)] {
                if let Ok(fit) = dep_fit(&table, &parse, &phrase, formula) {
                    prop_assert!((0.0..=top + 1e-12).contains(&fit), "{formula:?} {fit}");
                }
            }
        }

        /// Counts made from the sentence (a tree or a forest) alone, with words and labels that
        /// never repeat: every count and marginal is 1, so every SIM, FIT and the phrase's
        /// fitness are 1.
        #[test]
        fn a_sentence_fits_its_own_counts_perfectly(heads in tree(), start in 0usize..12, len in 1usize..12) {
            let n = heads.len();
            let names: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
            let words: Vec<&str> = names.iter().map(String::as_str).collect();
            let labels: Vec<String> = (0..n).map(|i| format!("l{i}")).collect();
            let deprels: Vec<&str> = labels.iter().map(String::as_str).collect();
            let mut table = TripleCounts::default();
            for (d, &h) in heads.iter().enumerate().filter(|&(_, &h)| h > 0) {
                table.add(words[h as usize - 1], words[d], deprels[d], 1);
            }
            let parse = Parse { words: &words, heads: &heads, deprels: &deprels };
            let start = start % n;
            let phrase: Vec<usize> = (start..(start + len).min(n)).collect();
            let has_arc = |t: usize| heads[t] > 0 || heads.contains(&(t as i32 + 1));
            match dep_fit(&table, &parse, &phrase, Formula::Paper) {
                Ok(fit) => prop_assert_eq!(fit, 1.0),
                Err(_) => prop_assert!(!phrase.iter().any(|&t| has_arc(t)), "only lone roots have no arc"),
            }
        }

        #[test]
        fn word_accuracy_is_symmetric_bounded_and_one_on_identity(
            a in prop::collection::vec(prop::sample::select(vec!["x", "y", "z", ",", "."]), 0..8),
            b in prop::collection::vec(prop::sample::select(vec!["x", "y", "z", ",", "."]), 0..8),
        ) {
            let s = &mut Scratch::default();
            let ab = word_accuracy(&a, [b.as_slice()], s).unwrap();
            let ba = word_accuracy(&b, [a.as_slice()], s).unwrap();
            prop_assert_eq!(ab, ba);
            prop_assert!((0.0..=1.0).contains(&ab));
            prop_assert_eq!(word_accuracy(&a, [a.as_slice()], s), Some(1.0));
            // More references never lower the score.
            prop_assert!(word_accuracy(&a, [b.as_slice(), a.as_slice()], s).unwrap() >= ab);
        }

        /// The trie's two walks against the textbook recursion over a map of n-grams.
        #[test]
        fn lm_matches_the_back_off_recursion(
            entries in prop::collection::vec((prop::collection::vec(0usize..5, 1..4), -3.0f32..0.0, -1.0f32..0.5), 1..40),
            sentence in prop::collection::vec(0usize..6, 0..10),
        ) {
            let vocab = ["<s>", "</s>", "a", "b", "c", "zzz"];
            // Close the n-grams under prefixes and suffixes, as an ARPA file is.
            let mut grams: HashMap<Vec<&str>, (f32, f32)> = HashMap::new();
            for w in &vocab[..5] {
                grams.insert(vec![*w], (-2.0, -0.1));
            }
            for (ids, p, bo) in &entries {
                let words: Vec<&str> = ids.iter().map(|&i| vocab[i]).collect();
                for k in 1..words.len() {
                    grams.entry(words[..k].to_vec()).or_insert((-1.5, -0.2));
                    grams.entry(words[k..].to_vec()).or_insert((-1.5, -0.2));
                }
                grams.insert(words, (*p, *bo));
            }
            let mut orders = [0u64; 3];
            for g in grams.keys() {
                orders[g.len() - 1] += 1;
            }
            let mut builder = NgramModelBuilder::new(&orders);
            let mut sorted: Vec<_> = grams.iter().collect();
            sorted.sort_by_key(|(g, _)| (g.len(), (*g).clone()));
            for &(g, &(p, bo)) in &sorted {
                if g.len() == 1 {
                    builder.add_unigram(g[0], p, bo).unwrap();
                } else {
                    builder.add(g, p, bo).unwrap();
                }
            }
            let model: NgramModel = builder.build();
            let words: Vec<&str> = sentence.iter().map(|&i| vocab[i]).filter(|w| *w != "<s>" && *w != "</s>").collect();
            let got = model.sentence_log10(&words, &mut Default::default());

            fn log_p(grams: &HashMap<Vec<&str>, (f32, f32)>, context: &[&str], word: &str) -> f64 {
                let mut gram = context.to_vec();
                gram.push(word);
                match grams.get(&gram) {
                    Some(&(p, _)) => p as f64,
                    None if context.is_empty() => grams.get(&vec!["<unk>"]).map_or(-100.0, |e| e.0 as f64),
                    None => grams.get(context).map_or(0.0, |e| e.1 as f64) + log_p(grams, &context[1..], word),
                }
            }
            let mut padded = vec!["<s>"];
            padded.extend(words.iter().map(|w| if grams.contains_key(&vec![*w]) { *w } else { "<unk>" }));
            padded.push("</s>");
            let want: f64 = (1..padded.len()).map(|i| log_p(&grams, &padded[i.saturating_sub(2)..i], padded[i])).sum();
            prop_assert!((got - want).abs() < 1e-3, "{got} vs {want}");
        }
    }
}
