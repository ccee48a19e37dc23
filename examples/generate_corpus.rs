//! Generate a Europarl-like corpus for benchmarks: N pairs written as our three Parquet tables
//! (pairs, alignments, arcs), with the shape of the bundled sample.
//!
//!     cargo run --release --example generate_corpus -- N OUT_DIR [SEED]
//!
//! Each pair copies the lengths, alignment (so its reordering and unaligned words) and parses
//! (real spaCy trees, labels included) of a random pair of `data/europarl-sample`; its words
//! are drawn from a Zipfian vocabulary of 100,000 types (s = 1), and a tgt word linked to a src
//! word repeats it 70 % of the time, as in a paraphrase. Deterministic for a seed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{
    ArrayRef, Int32Builder, Int64Array, ListBuilder, RecordBatch, StringBuilder, new_null_array,
};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pairmetrics::arrow::links_array;
use pairmetrics::arrow::read::{HeadLists, LinkLists, TokenLists};
use pairmetrics::kernels::Link;
use pairmetrics::parquet::AtomicParquetWriter;
use pairmetrics::schema::Table;
use pairmetrics::schema::token_list_type;
use pairmetrics::stats::random::SplitMix64;

const VOCABULARY: usize = 100_000;
const BATCH: usize = 8192;

/// One sample pair's shape.
struct Template {
    src_len: usize,
    links: Vec<Link>,
    /// Per tgt token, a src token linked to it.
    source_of: Vec<Option<u32>>,
    heads: [Vec<i32>; 2],
    deprels: [Vec<u32>; 2],
}

/// Zipf(s = 1) over ranks 0..n by inverse transform on the cumulative weights.
struct Zipf(Vec<f64>);

impl Zipf {
    fn new(n: usize) -> Self {
        let mut cumulative = Vec::with_capacity(n);
        let mut total = 0.0;
        for rank in 1..=n {
            total += 1.0 / rank as f64;
            cumulative.push(total);
        }
        Zipf(cumulative)
    }

    fn sample(&self, rng: &mut SplitMix64) -> usize {
        let x = rng.next_f64() * self.0[self.0.len() - 1];
        self.0.partition_point(|&c| c < x).min(self.0.len() - 1)
    }
}

fn read_all(path: &Path) -> Result<Vec<RecordBatch>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(ParquetRecordBatchReaderBuilder::try_new(file)?
        .build()?
        .collect::<Result<_, _>>()?)
}

/// The sample's pairs whose sentences are non-empty and whose parses match their lengths.
fn templates(sample: &Path, labels: &mut Vec<String>) -> Result<Vec<Template>> {
    let (pairs, alignments, arcs) = (
        read_all(&sample.join("pairs.parquet"))?,
        read_all(&sample.join("alignments.parquet"))?,
        read_all(&sample.join("arcs.parquet"))?,
    );
    let label_id =
        |label: &str, labels: &mut Vec<String>| match labels.iter().position(|l| l == label) {
            Some(i) => i as u32,
            None => {
                labels.push(label.to_string());
                labels.len() as u32 - 1
            }
        };
    let mut out = Vec::new();
    // All three tables are in pair_id order, one row per pair, as `import` writes them.
    for ((p, a), r) in pairs.iter().zip(&alignments).zip(&arcs) {
        let (src, tgt) = (
            TokenLists::new("src", p.column_by_name("src").context("src")?)?,
            TokenLists::new("tgt", p.column_by_name("tgt").context("tgt")?)?,
        );
        let links = LinkLists::new(a.column_by_name("links").context("links")?)?;
        let heads = [
            HeadLists::new(
                "src_head",
                r.column_by_name("src_head").context("src_head")?,
            )?,
            HeadLists::new(
                "tgt_head",
                r.column_by_name("tgt_head").context("tgt_head")?,
            )?,
        ];
        let deprels = [
            TokenLists::new(
                "src_deprel",
                r.column_by_name("src_deprel").context("src_deprel")?,
            )?,
            TokenLists::new(
                "tgt_deprel",
                r.column_by_name("tgt_deprel").context("tgt_deprel")?,
            )?,
        ];
        let (mut s, mut t, mut l, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for row in 0..p.num_rows() {
            if src.row(row, &mut s).is_err()
                || tgt.row(row, &mut t).is_err()
                || links.row(row, &mut l).is_err()
            {
                continue;
            }
            let (Ok(h0), Ok(h1)) = (heads[0].row(row), heads[1].row(row)) else {
                continue;
            };
            if s.is_empty() || t.is_empty() || h0.len() != s.len() || h1.len() != t.len() {
                continue;
            }
            if l.iter()
                .any(|&(i, j)| i as usize >= s.len() || j as usize >= t.len())
            {
                continue;
            }
            let mut ids = [Vec::new(), Vec::new()];
            for side in 0..2 {
                if deprels[side].row(row, &mut d).is_err() {
                    continue;
                }
                ids[side] = d.iter().map(|label| label_id(label, labels)).collect();
            }
            if ids[0].len() != s.len() || ids[1].len() != t.len() {
                continue;
            }
            let mut source_of = vec![None; t.len()];
            for &(i, j) in &l {
                source_of[j as usize].get_or_insert(i);
            }
            out.push(Template {
                src_len: s.len(),
                links: l.clone(),
                source_of,
                heads: [h0.to_vec(), h1.to_vec()],
                deprels: ids,
            });
        }
    }
    Ok(out)
}

struct Writers {
    pairs: (AtomicParquetWriter, SchemaRef),
    alignments: (AtomicParquetWriter, SchemaRef),
    arcs: (AtomicParquetWriter, SchemaRef),
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        bail!("usage: generate_corpus N OUT_DIR [SEED]");
    }
    let n: u64 = args[1]
        .replace('_', "")
        .parse()
        .context("N: a number of pairs")?;
    let out = PathBuf::from(&args[2]);
    let seed: u64 = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(7);
    std::fs::create_dir_all(&out)?;
    let started = Instant::now();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/europarl-sample");
    let mut labels = Vec::new();
    let templates = templates(&sample, &mut labels)?;
    let vocabulary: Vec<String> = (0..VOCABULARY).map(|i| format!("w{i}")).collect();
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = SplitMix64::new(seed);
    let metadata = || {
        vec![(
            "pairmetrics.generator".to_string(),
            format!("generate_corpus n={n} seed={seed}"),
        )]
    };
    let writer = |table: Table| -> Result<(AtomicParquetWriter, SchemaRef)> {
        let schema: SchemaRef = Arc::new(table.schema());
        Ok((
            AtomicParquetWriter::create(
                &out.join(format!("{}.parquet", table.name())),
                schema.clone(),
                metadata(),
            )?,
            schema,
        ))
    };
    let mut writers = Writers {
        pairs: writer(Table::Pairs)?,
        alignments: writer(Table::Alignments)?,
        arcs: writer(Table::Arcs)?,
    };
    let (mut src_ids, mut tgt_ids) = (Vec::new(), Vec::new());
    let mut first = 0u64;
    while first < n {
        let rows = BATCH.min((n - first) as usize);
        let tokens = || {
            ListBuilder::with_capacity(StringBuilder::with_capacity(rows * 30, rows * 200), rows)
        };
        let (mut src, mut tgt) = (tokens(), tokens());
        let mut links: Vec<Vec<Link>> = Vec::with_capacity(rows);
        let mut heads = [
            ListBuilder::new(Int32Builder::new()),
            ListBuilder::new(Int32Builder::new()),
        ];
        let mut deprels = [tokens(), tokens()];
        for _ in 0..rows {
            let t = &templates[rng.below(templates.len())];
            src_ids.clear();
            src_ids.extend((0..t.src_len).map(|_| zipf.sample(&mut rng)));
            tgt_ids.clear();
            for source in &t.source_of {
                let id = match source {
                    Some(i) if rng.next_f64() < 0.7 => src_ids[*i as usize],
                    _ => zipf.sample(&mut rng),
                };
                tgt_ids.push(id);
            }
            for (builder, ids) in [(&mut src, &src_ids), (&mut tgt, &tgt_ids)] {
                for &id in ids.iter() {
                    builder.values().append_value(&vocabulary[id]);
                }
                builder.append(true);
            }
            links.push(t.links.clone());
            for side in 0..2 {
                heads[side].values().append_slice(&t.heads[side]);
                heads[side].append(true);
                for &label in &t.deprels[side] {
                    deprels[side].values().append_value(&labels[label as usize]);
                }
                deprels[side].append(true);
            }
        }
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
            first as i64..(first + rows as u64) as i64,
        ));
        let batch = |schema: &SchemaRef, columns: Vec<ArrayRef>| {
            RecordBatch::try_new(schema.clone(), columns)
        };
        let [h0, h1] = heads.map(|mut b| Arc::new(b.finish()) as ArrayRef);
        let [d0, d1] = deprels.map(|mut b| Arc::new(b.finish()) as ArrayRef);
        let (w, s) = &mut writers.pairs;
        w.write(&batch(
            s,
            vec![ids.clone(), Arc::new(src.finish()), Arc::new(tgt.finish())],
        )?)?;
        let (w, s) = &mut writers.alignments;
        w.write(&batch(s, vec![ids.clone(), links_array(&links, None)])?)?;
        let (w, s) = &mut writers.arcs;
        let no_upos = new_null_array(&token_list_type(), rows);
        w.write(&batch(
            s,
            vec![ids, h0, h1, d0, d1, no_upos.clone(), no_upos],
        )?)?;
        first += rows as u64;
    }
    writers.pairs.0.finish()?;
    writers.alignments.0.finish()?;
    writers.arcs.0.finish()?;
    println!(
        "wrote {n} pairs to {} in {:.1} s ({} templates from the sample)",
        out.display(),
        started.elapsed().as_secs_f64(),
        templates.len()
    );
    Ok(())
}
