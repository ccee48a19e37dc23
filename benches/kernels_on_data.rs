//! Criterion benches of kernels fed by the main crate's readers: DERP on the real parses and
//! alignments of `data/europarl-sample` (Parquet), and the language model of `tests/data/lm`
//! (ARPA). The kernels' own benches are `crates/kernels/benches/kernels.rs`. Run: `cargo bench
//! --bench kernels_on_data [-- FILTER]`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use datafusion::arrow::array::RecordBatch;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pairmetrics::kernels::Link;
use pairmetrics::pair::derp::{self, Parse};

fn derp(c: &mut Criterion) {
    // The bundled Europarl sample's real parses (spaCy) and alignments, as `score --arcs` sees
    // them: sentences of every length, so the long ones weigh as they do in a corpus.
    let sample = europarl_sample();
    let mut group = c.benchmark_group("derp/europarl_sample");
    group.throughput(Throughput::Elements(sample.len() as u64));
    let labels: Vec<[Vec<&str>; 2]> = sample
        .iter()
        .map(|((_, sd), (_, td), _)| [sd, td].map(|d| d.iter().map(String::as_str).collect()))
        .collect();
    let mut scratch = derp::Scratch::default();
    group.bench_function(BenchmarkId::new("pairs", sample.len()), |b| {
        b.iter(|| {
            sample
                .iter()
                .zip(&labels)
                .map(|(((sh, _), (th, _), links), [sd, td])| {
                    let src = Parse {
                        head: sh,
                        deprel: sd,
                    };
                    let tgt = Parse {
                        head: th,
                        deprel: td,
                    };
                    derp::derp(src, tgt, links, &mut scratch).map_or(0.0, |d| d.score)
                })
                .sum::<f64>()
        })
    });
    group.finish();
}

/// Every pair of `data/europarl-sample` with its two parses and its links.
fn europarl_sample() -> Vec<((Vec<i32>, Vec<String>), (Vec<i32>, Vec<String>), Vec<Link>)> {
    use pairmetrics::arrow::read::{HeadLists, LinkLists, TokenLists};
    let read = |name: &str| -> Vec<RecordBatch> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/europarl-sample")
            .join(name);
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let mut out = Vec::new();
    // Both tables are in pair_id order, one row per pair, as `import` writes them.
    for (arcs, alignments) in read("arcs.parquet").iter().zip(&read("alignments.parquet")) {
        let column = |name: &str| arcs.column_by_name(name).unwrap();
        let heads = [
            HeadLists::new("src_head", column("src_head")).unwrap(),
            HeadLists::new("tgt_head", column("tgt_head")).unwrap(),
        ];
        let deprels = [
            TokenLists::new("src_deprel", column("src_deprel")).unwrap(),
            TokenLists::new("tgt_deprel", column("tgt_deprel")).unwrap(),
        ];
        let links = LinkLists::new(alignments.column_by_name("links").unwrap()).unwrap();
        for row in 0..arcs.num_rows() {
            let (mut d, mut l) = (Vec::new(), Vec::new());
            let mut side = |s: usize| -> Option<(Vec<i32>, Vec<String>)> {
                deprels[s].row(row, &mut d).ok()?;
                Some((
                    heads[s].row(row).ok()?.to_vec(),
                    d.iter().map(|x| x.to_string()).collect(),
                ))
            };
            if let (Some(src), Some(tgt), Ok(())) = (side(0), side(1), links.row(row, &mut l)) {
                out.push((src, tgt, l));
            }
        }
    }
    out
}

/// The test trigram model (3,666 words, 44,529 n-grams) on its 105 test sentences.
fn lm_logprob(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lm");
    let model = pairmetrics::formats::arpa::read(&root.join("europarl.en.3gram.arpa.gz")).unwrap();
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("kenlm_scores.json")).unwrap())
            .unwrap();
    let sentences: Vec<String> = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sentence"].as_str().unwrap().to_string())
        .collect();
    let tokens: Vec<Vec<&str>> = sentences
        .iter()
        .map(|s| s.split_whitespace().collect())
        .collect();
    let words: usize = tokens.iter().map(|t| t.len() + 1).sum();
    let mut group = c.benchmark_group("lm_logprob");
    group.throughput(Throughput::Elements(words as u64));
    let mut ids = pairmetrics::lm::ngram::Scratch::default();
    group.bench_function("words", |b| {
        b.iter(|| {
            tokens
                .iter()
                .map(|t| model.sentence_log10(t, &mut ids))
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, derp, lm_logprob);
criterion_main!(benches);
