//! `pairmetrics align-words`: a pairs table's word alignments, trained on the table itself with
//! fast_align's model (`align::fast_align`) in both directions and symmetrised as atools does
//! (`align::symmetrize`), written as an alignments table: what `fast-align` and `atools` print
//! for the same pairs, without the text files between them.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use datafusion::arrow::array::{Int64Array, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;

use crate::align::fast_align::{self, Corpus, Iteration};
use crate::align::symmetrize::{self, Grid};
use crate::arrow::links_array;
use crate::formats::pharaoh;
use crate::metrics::Link;
use crate::parquet::{AtomicParquetWriter, keys};
use crate::schema::Table;
use crate::storage::Output;

/// Which links are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// The forward model's (fast_align), unsymmetrised.
    Forward,
    /// The reverse model's (fast_align -r), unsymmetrised.
    Reverse,
    /// Both models', combined by this atools command of two operands.
    Symmetrized(symmetrize::Command),
}

impl Links {
    /// `forward`, `reverse`, or an atools command of two operands (`grow-diag-final-and`, ...).
    pub fn parse(name: &str) -> Option<Links> {
        match name {
            "forward" => Some(Links::Forward),
            "reverse" => Some(Links::Reverse),
            _ => symmetrize::Command::parse(name)
                .filter(|c| c.operands() == 2)
                .map(Links::Symmetrized),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Links::Forward => "forward",
            Links::Reverse => "reverse",
            Links::Symmetrized(command) => command.name(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct AlignWordsOptions {
    /// The pairs table (file, directory or URL) and its two token columns.
    pub pairs: PathBuf,
    pub src: String,
    pub tgt: String,
    /// The alignments table to write, atomically.
    pub out: PathBuf,
    /// The same links as Pharaoh lines, one per pair in the table's order, atomically.
    pub pharaoh: Option<PathBuf>,
    /// The model's options (`reverse` is set for each direction).
    pub model: fast_align::Options,
    pub links: Links,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AlignWordsSummary {
    pub pairs: u64,
    /// Pairs with an empty (or NULL) side: left out of training, written with no links.
    pub empty: u64,
    pub links: u64,
    pub seconds: f64,
}

/// Read the pairs, train the direction(s) `options.links` needs, write the links.
pub async fn run(options: &AlignWordsOptions, log: &mut dyn Write) -> Result<AlignWordsSummary> {
    let started = Instant::now();
    let mut corpus = Corpus::new();
    // Each pair's id and its line in `corpus` (None: a side is empty).
    let mut rows: Vec<(i64, Option<usize>)> = Vec::new();
    crate::sentences::visit_columns(
        &options.pairs,
        &[&options.src, &options.tgt],
        "--src-column and --tgt-column",
        |id, sides| {
            let line = match sides[0].is_empty() || sides[1].is_empty() {
                true => None,
                false => {
                    corpus.push_pair(&sides[0], &sides[1]);
                    Some(corpus.len() - 1)
                }
            };
            rows.push((id, line));
            Ok(())
        },
    )
    .await?;
    anyhow::ensure!(
        !corpus.is_empty(),
        "{}: no pair has words on both sides: nothing to train on",
        options.pairs.display()
    );
    // The outputs are opened before the training: one that would replace the input is refused
    // before the work, not after it.
    let schema = Arc::new(Table::Alignments.schema());
    let table = open_table(options, schema.clone())?;
    let mut pharaoh_file = options.pharaoh.as_deref().map(Output::create).transpose()?;
    let mut train = |reverse: bool| {
        let direction = if reverse { "reverse" } else { "forward" };
        let model = fast_align::Options {
            reverse,
            ..options.model.clone()
        };
        fast_align::align(&corpus, &model, |n, it: &Iteration| {
            let _ = writeln!(
                log,
                "{direction} iteration {}: log_e likelihood {}, perplexity {}, tension {}",
                n + 1,
                it.log_likelihood,
                (-it.log_likelihood / std::f64::consts::LN_2 / it.target_tokens).exp2(),
                it.tension
            );
        })
        .links
    };
    let trained: Vec<Vec<Link>> = match options.links {
        Links::Forward => train(false),
        Links::Reverse => train(true),
        Links::Symmetrized(command) => {
            let (forward, reverse) = (train(false), train(true));
            let grid = |links: &[Link]| {
                Grid::from_links(links.iter().map(|&(i, j)| (i as usize, j as usize)))
            };
            forward
                .iter()
                .zip(&reverse)
                .map(|(f, r)| {
                    symmetrize::apply(command, &grid(f), &grid(r))
                        .links()
                        .map(|(i, j)| (i as u32, j as u32))
                        .collect()
                })
                .collect()
        }
    };
    // Without iterations fast_align never aligns: every pair has no links.
    let no_links = Vec::new();
    let links_of = |line: Option<usize>| line.and_then(|l| trained.get(l)).unwrap_or(&no_links);
    // Both outputs are written whole before either is committed.
    if let (Some(path), Some(file)) = (&options.pharaoh, &mut pharaoh_file) {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let mut text = String::new();
        for &(_, line) in &rows {
            text.clear();
            pharaoh::write_line(&mut text, links_of(line));
            text.push('\n');
            out.write_all(text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        out.flush()
            .with_context(|| format!("writing {}", path.display()))?;
    }
    write_table(table, schema, &rows, links_of)?;
    if let Some(file) = pharaoh_file {
        file.commit()?;
    }
    Ok(AlignWordsSummary {
        pairs: rows.len() as u64,
        empty: rows.iter().filter(|(_, line)| line.is_none()).count() as u64,
        links: trained.iter().map(|l| l.len() as u64).sum(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The alignments table's writer, its options in the footer.
fn open_table(options: &AlignWordsOptions, schema: SchemaRef) -> Result<AtomicParquetWriter> {
    let model = &options.model;
    let describe = format!(
        "align-words links={} iterations={} favor_diagonal={} optimize_tension={} variational_bayes={} alpha={} tension={} p0={} null_word={}",
        options.links.name(),
        model.iterations,
        model.favor_diagonal,
        model.optimize_tension,
        model.variational_bayes,
        model.alpha,
        model.diagonal_tension,
        model.prob_align_null,
        !model.no_null_word
    );
    let metadata = vec![
        (keys::VERSION.to_string(), crate::VERSION.to_string()),
        (keys::ALIGN.to_string(), describe),
    ];
    AtomicParquetWriter::create(&options.out, schema, metadata)
}

/// The alignments table: each pair's id and links, in the pairs table's order.
fn write_table<'a>(
    mut writer: AtomicParquetWriter,
    schema: SchemaRef,
    rows: &[(i64, Option<usize>)],
    links_of: impl Fn(Option<usize>) -> &'a Vec<Link>,
) -> Result<()> {
    const BATCH: usize = 8192;
    for chunk in rows.chunks(BATCH) {
        let ids = Int64Array::from_iter_values(chunk.iter().map(|&(id, _)| id));
        let links: Vec<Vec<Link>> = chunk.iter().map(|&(_, l)| links_of(l).clone()).collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(ids), links_array(&links, None)],
        )?;
        writer.write(&batch)?;
    }
    writer.finish()
}
