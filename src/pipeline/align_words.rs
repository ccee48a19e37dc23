//! `pairmetrics align-words`: a pairs table's word alignments, trained on the table itself with
//! fast_align's model (`align::fast_align`) in both directions and symmetrised as atools does
//! (`align::symmetrize`), written as an alignments table: what `fast-align` and `atools` print
//! for the same pairs, without the text files between them.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use datafusion::arrow::array::{Int64Array, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;

use crate::align::fast_align::{self, Aligned, Corpus, Iteration};
use crate::align::symmetrize::{self, Grid};
use crate::arrow::links_array;
use crate::formats::pharaoh;
use crate::kernels::Link;
use crate::parquet::{AtomicParquetWriter, keys};
use crate::schema::Table;
use crate::storage::Output;
use crate::storage::spill::{Scratch, Spill};

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
    /// Where the scratch directory is made (default: the system's temporary directory).
    pub temp_dir: Option<PathBuf>,
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
    let scratch = Scratch::new(options.temp_dir.clone());
    let spilled = |e: io::Error| scratch.error(e);
    let mut corpus = Corpus::new(&scratch);
    // Each pair's id in the table's order, and the rows (0-based) with an empty side.
    let mut ids: Spill<u64> = Spill::new(&scratch, 1 << 22);
    let mut empty = Vec::new();
    crate::sentences::visit_columns(
        &options.pairs,
        &[&options.src, &options.tgt],
        "--src-column and --tgt-column",
        |id, sides| {
            if sides[0].is_empty() || sides[1].is_empty() {
                empty.push(ids.len());
            } else {
                corpus.push_pair(&sides[0], &sides[1]).map_err(spilled)?;
            }
            ids.push(id as u64).map_err(spilled)?;
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
    let mut table = open_table(options, schema.clone())?;
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
        .map_err(spilled)
    };
    let forward = (options.links != Links::Reverse)
        .then(|| train(false))
        .transpose()?;
    let reverse = (options.links != Links::Forward)
        .then(|| train(true))
        .transpose()?;
    // Each trained line's links, in order (none without iterations: fast_align never aligns).
    let mut forward = forward.as_ref().map(Aligned::links);
    let mut reverse = reverse.as_ref().map(Aligned::links);
    let next = |side: &mut Option<fast_align::Links>| -> Result<Vec<Link>> {
        let links = side.as_mut().and_then(Iterator::next).transpose();
        Ok(links.map_err(spilled)?.unwrap_or_default())
    };
    let mut trained = || -> Result<Vec<Link>> {
        Ok(match options.links {
            Links::Forward => next(&mut forward)?,
            Links::Reverse => next(&mut reverse)?,
            Links::Symmetrized(command) => {
                let grid = |links: &[Link]| {
                    Grid::from_links(links.iter().map(|&(i, j)| (i as usize, j as usize)))
                };
                let (f, r) = (next(&mut forward)?, next(&mut reverse)?);
                symmetrize::apply(command, &grid(&f), &grid(&r))
                    .links()
                    .map(|(i, j)| (i as u32, j as u32))
                    .collect()
            }
        })
    };
    // Both outputs are written whole before either is committed.
    let mut pharaoh = pharaoh_file
        .as_mut()
        .map(|file| std::io::BufWriter::with_capacity(1 << 16, file));
    let pharaoh_failed = |e: io::Error| {
        let path = options.pharaoh.as_deref().expect("a Pharaoh file");
        anyhow::Error::from(e).context(format!("writing {}", path.display()))
    };
    const ROWS: usize = 8192;
    let (mut links_written, mut empty_rows) = (0, empty.iter().peekable());
    let (mut ids_read, mut text) = (Vec::with_capacity(ROWS), String::new());
    for first in (0..ids.len()).step_by(ROWS) {
        ids_read.clear();
        ids.read_into(first..(first + ROWS).min(ids.len()), &mut ids_read)
            .map_err(spilled)?;
        let mut batch = Vec::with_capacity(ids_read.len());
        for row in first..first + ids_read.len() {
            let links = match empty_rows.next_if_eq(&&row) {
                Some(_) => Vec::new(),
                None => trained()?,
            };
            if let Some(out) = &mut pharaoh {
                text.clear();
                pharaoh::write_line(&mut text, &links);
                text.push('\n');
                out.write_all(text.as_bytes()).map_err(pharaoh_failed)?;
            }
            links_written += links.len() as u64;
            batch.push(links);
        }
        let ids = Int64Array::from_iter_values(ids_read.iter().map(|&id| id as i64));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(ids), links_array(&batch, None)],
        )?;
        table.write(&batch)?;
    }
    if let Some(out) = &mut pharaoh {
        out.flush().map_err(pharaoh_failed)?;
    }
    drop(pharaoh);
    table.finish()?;
    if let Some(file) = pharaoh_file {
        file.commit()?;
    }
    Ok(AlignWordsSummary {
        pairs: ids.len() as u64,
        empty: empty.len() as u64,
        links: links_written,
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
