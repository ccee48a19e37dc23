//! `pairmetrics import`: external formats into our Parquet tables, streaming through a bounded
//! read → build-batches → write pipeline (three threads joined by `crossbeam` channels), so that
//! parsing, Arrow building and Parquet compression overlap and memory stays flat.
//!
//! The formats' iterators read, pair and check the records (`formats/`); each table's module
//! here builds its record batches.

mod alignments;
mod arcs;
mod dictionary;
mod nbest;
mod pairs;
mod phrase_table;
mod semeval;
mod triples;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use crossbeam_channel::bounded;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;

use crate::align::Module;
use crate::formats::conllu::Sentences;
use crate::formats::input::{self, Concatenated, InputError, Lines, Paired};
use crate::formats::{meteor, pharaoh};
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::schema::Table;

/// Rows per record batch (and per chunk handed between the threads).
const CHUNK_ROWS: usize = 8192;
/// Chunks in flight between two stages: bounds memory whatever the input size.
const CHANNEL_CHUNKS: usize = 4;

#[derive(Debug, Clone)]
pub enum Source {
    /// Parallel line-aligned files of whitespace-separated tokens.
    Text {
        src: PathBuf,
        tgt: PathBuf,
        lowercase: bool,
    },
    /// Pharaoh `i-j` links, one line per pair.
    Pharaoh { alignments: PathBuf },
    /// METEOR 1.5 Matcher output, one block per pair, aligned with these modules (its module
    /// column indexes them).
    Meteor {
        alignments: PathBuf,
        modules: Vec<Module>,
    },
    /// Two CoNLL-U files, one sentence per pair.
    Conllu { src: PathBuf, tgt: PathBuf },
    /// A Moses phrase table, one rule per line.
    MosesPhraseTable { table: PathBuf },
    /// Moses n-best lists, one hypothesis per line.
    MosesNbest { nbest: PathBuf },
    /// Google Books Syntactic N-grams `arcs` files, read in order.
    SyntacticNgrams {
        files: Vec<PathBuf>,
        lowercase: bool,
    },
    /// A SemEval-2014 Task 5 file (task data, gold or run), one row per fragment.
    Semeval2014t5 { file: PathBuf },
    /// A tab-separated bilingual dictionary, one entry per line.
    Dictionary { file: PathBuf },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportSummary {
    pub rows: u64,
    pub seconds: f64,
}

impl Source {
    /// The schema written: a table's, with module-naming links for METEOR's.
    fn schema(&self) -> datafusion::arrow::datatypes::Schema {
        match self {
            Source::Meteor { .. } => crate::schema::module_alignments_schema(),
            _ => self.table().schema(),
        }
    }

    pub fn table(&self) -> Table {
        match self {
            Source::Text { .. } => Table::Pairs,
            Source::Pharaoh { .. } | Source::Meteor { .. } => Table::Alignments,
            Source::Conllu { .. } => Table::Arcs,
            Source::MosesPhraseTable { .. } => Table::PhraseTable,
            Source::MosesNbest { .. } => Table::Nbest,
            Source::SyntacticNgrams { .. } => Table::Triples,
            Source::Semeval2014t5 { .. } => Table::Fragments,
            Source::Dictionary { .. } => Table::Dictionary,
        }
    }

    fn describe(&self) -> String {
        match self {
            Source::Text {
                src,
                tgt,
                lowercase,
            } => {
                format!(
                    "text src={} tgt={} lowercase={lowercase}",
                    src.display(),
                    tgt.display()
                )
            }
            Source::Pharaoh { alignments } => format!("pharaoh {}", alignments.display()),
            Source::Meteor {
                alignments,
                modules,
            } => {
                let modules: Vec<&str> = modules.iter().map(|m| m.name()).collect();
                format!(
                    "meteor {} modules={}",
                    alignments.display(),
                    modules.join("+")
                )
            }
            Source::Conllu { src, tgt } => {
                format!("conllu src={} tgt={}", src.display(), tgt.display())
            }
            Source::MosesPhraseTable { table } => format!("moses-phrase-table {}", table.display()),
            Source::MosesNbest { nbest } => format!("moses-nbest {}", nbest.display()),
            Source::SyntacticNgrams { files, lowercase } => {
                let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                format!("syntactic-ngrams {} lowercase={lowercase}", files.join(" "))
            }
            Source::Semeval2014t5 { file } => format!("semeval2014t5 {}", file.display()),
            Source::Dictionary { file } => format!("dictionary {}", file.display()),
        }
    }
}

/// Import `source` into `out` (written atomically), in pair order from `pair_id` 0.
pub fn import(source: &Source, out: &Path) -> Result<ImportSummary> {
    let started = Instant::now();
    let schema: SchemaRef = Arc::new(source.schema());
    let metadata = vec![
        (keys::VERSION.to_string(), crate::VERSION.to_string()),
        (keys::IMPORT.to_string(), source.describe()),
    ];
    let writer = AtomicParquetWriter::create(out, schema.clone(), metadata)?;
    let rows = match source {
        Source::Text {
            src,
            tgt,
            lowercase,
        } => {
            let lowercase = *lowercase;
            let lines = Paired::new(open(src)?, open(tgt)?, (src, tgt), "line");
            run(writer, lines, move |chunk| {
                pairs::build(&schema, chunk, lowercase)
            })?
        }
        Source::Pharaoh { alignments: path } => run(
            writer,
            pharaoh::Alignments::new(open(path)?),
            move |chunk| alignments::build(&schema, chunk),
        )?,
        Source::Meteor {
            alignments: path,
            modules,
        } => {
            let (names, path) = (
                modules.iter().map(|m| m.name()).collect::<Vec<_>>(),
                path.clone(),
            );
            run(
                writer,
                meteor::Alignments::new(open(&path)?),
                move |chunk| alignments::build_named(&schema, &path, chunk, &names),
            )?
        }
        Source::Conllu { src, tgt } => {
            let sentences = Paired::new(
                Sentences::new(open(src)?),
                Sentences::new(open(tgt)?),
                (src, tgt),
                "sentence",
            );
            run(writer, sentences, move |chunk| arcs::build(&schema, chunk))?
        }
        Source::MosesPhraseTable { table } => {
            let path = table.clone();
            run(writer, open(table)?.numbered(), move |chunk| {
                phrase_table::build(&schema, &path, chunk)
            })?
        }
        Source::MosesNbest { nbest: path } => {
            let (path, mut ranks) = (path.clone(), nbest::Ranks::default());
            run(writer, open(&path)?.numbered(), move |chunk| {
                nbest::build(&schema, &path, chunk, &mut ranks)
            })?
        }
        Source::SyntacticNgrams { files, lowercase } => {
            let (paths, lowercase) = (files.clone(), *lowercase);
            run(writer, Concatenated::new(files.clone()), move |chunk| {
                triples::build(&schema, &paths, chunk, lowercase)
            })?
        }
        Source::Semeval2014t5 { file } => {
            // Task files are small (a few hundred sentences): read whole, as XML must be.
            let rows = crate::formats::semeval2014t5::fragment_rows(
                &crate::formats::semeval2014t5::read(file)?,
            );
            run(
                writer,
                rows.into_iter().map(Ok::<_, anyhow::Error>),
                move |chunk| semeval::build(&schema, chunk),
            )?
        }
        Source::Dictionary { file } => {
            let path = file.clone();
            run(writer, open(file)?.numbered(), move |chunk| {
                dictionary::build(&schema, &path, chunk)
            })?
        }
    };
    Ok(ImportSummary {
        rows,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Append `phrase` with its words (as Python's `str.split()` finds them) joined by single
/// spaces; `joined` is the caller's buffer, reused from row to row.
fn append_words(
    column: &mut datafusion::arrow::array::StringBuilder,
    phrase: &str,
    joined: &mut String,
) {
    joined.clear();
    for (i, word) in crate::text::whitespace::split(phrase).enumerate() {
        if i > 0 {
            joined.push(' ');
        }
        joined.push_str(word);
    }
    column.append_value(joined.as_str());
}

type Reader = Lines<Box<dyn std::io::BufRead + Send>>;

fn open(path: &Path) -> Result<Reader, InputError> {
    Ok(Lines::new(input::open(path)?, path))
}

/// Up to `CHUNK_ROWS` rows of one stage's records; `first` is the pair_id of the first.
#[derive(Debug)]
struct Chunk<T> {
    first: u64,
    rows: Vec<T>,
}

impl<T> Default for Chunk<T> {
    fn default() -> Self {
        Chunk {
            first: 0,
            rows: Vec::with_capacity(CHUNK_ROWS),
        }
    }
}

/// Run read → build → write on three threads: the read thread takes `records` (a format's
/// iterator, which pairs and checks them) in chunks of `CHUNK_ROWS`. The first error of any
/// stage stops the others and is returned (the output, never renamed, is removed).
fn run<T: Send, E: Into<anyhow::Error>>(
    mut writer: AtomicParquetWriter,
    records: impl Iterator<Item = Result<T, E>> + Send,
    mut build: impl FnMut(Chunk<T>) -> Result<RecordBatch> + Send,
) -> Result<u64> {
    let mut records = records.fuse();
    let mut read = move || -> Result<Chunk<T>> {
        let mut chunk = Chunk::default();
        for record in records.by_ref().take(CHUNK_ROWS) {
            chunk.rows.push(record.map_err(Into::into)?);
        }
        Ok(chunk)
    };
    let (chunk_tx, chunk_rx) = bounded::<Result<Chunk<T>>>(CHANNEL_CHUNKS);
    let (batch_tx, batch_rx) = bounded::<Result<RecordBatch>>(CHANNEL_CHUNKS);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut next_id = 0u64;
            loop {
                let chunk = read().map(|mut c| {
                    c.first = next_id;
                    next_id += c.rows.len() as u64;
                    c
                });
                let done = !matches!(&chunk, Ok(c) if !c.rows.is_empty());
                if chunk_tx.send(chunk).is_err() || done {
                    return;
                }
            }
        });
        scope.spawn(move || {
            for chunk in chunk_rx {
                let batch = chunk.and_then(|c| {
                    if c.rows.is_empty() {
                        Ok(None)
                    } else {
                        build(c).map(Some)
                    }
                });
                let stop = !matches!(batch, Ok(Some(_)));
                if let Some(batch) = batch.transpose() {
                    if batch_tx.send(batch).is_err() {
                        return;
                    }
                }
                if stop {
                    return;
                }
            }
        });
        let mut rows = 0u64;
        for batch in batch_rx {
            let batch = batch?;
            rows += batch.num_rows() as u64;
            writer.write(&batch)?;
        }
        writer.finish()?;
        Ok(rows)
    })
}
