//! `pairmetrics import`: external formats into our Parquet tables, streaming through a bounded
//! read → build-batches → write pipeline (three threads joined by `crossbeam` channels), so that
//! parsing, Arrow building and Parquet compression overlap and memory stays flat.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use crossbeam_channel::bounded;
use datafusion::arrow::array::{
    ArrayRef, Float64Array, Float64Builder, Int32Array, Int32Builder, Int64Array, ListBuilder, RecordBatch,
    StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};

use crate::parquet::AtomicParquetWriter;
use crate::formats::conllu::{Sentence, Sentences};
use crate::formats::input::{self, InputError, Lines};
use crate::formats::meteor::Blocks;
use crate::formats::{moses, pharaoh, syntactic_ngrams, tokens};
use crate::metrics::Link;
use crate::schema::Table;
use crate::schema::link_fields;

/// Rows per record batch (and per chunk handed between the threads).
const CHUNK_ROWS: usize = 8192;
/// Chunks in flight between two stages: bounds memory whatever the input size.
const CHANNEL_CHUNKS: usize = 4;

#[derive(Debug, Clone)]
pub enum Source {
    /// Parallel line-aligned files of whitespace-separated tokens.
    Text { src: PathBuf, tgt: PathBuf, lowercase: bool },
    /// Pharaoh `i-j` links, one line per pair.
    Pharaoh { alignments: PathBuf },
    /// METEOR 1.5 Matcher output, one block per pair.
    Meteor { alignments: PathBuf },
    /// Two CoNLL-U files, one sentence per pair.
    Conllu { src: PathBuf, tgt: PathBuf },
    /// A Moses phrase table, one rule per line.
    MosesPhraseTable { table: PathBuf },
    /// Moses n-best lists, one hypothesis per line.
    MosesNbest { nbest: PathBuf },
    /// Google Books Syntactic N-grams `arcs` files, read in order.
    SyntacticNgrams { files: Vec<PathBuf>, lowercase: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportSummary {
    pub rows: u64,
    pub seconds: f64,
}

impl Source {
    pub fn table(&self) -> Table {
        match self {
            Source::Text { .. } => Table::Pairs,
            Source::Pharaoh { .. } | Source::Meteor { .. } => Table::Alignments,
            Source::Conllu { .. } => Table::Arcs,
            Source::MosesPhraseTable { .. } => Table::PhraseTable,
            Source::MosesNbest { .. } => Table::Nbest,
            Source::SyntacticNgrams { .. } => Table::Triples,
        }
    }

    fn describe(&self) -> String {
        match self {
            Source::Text { src, tgt, lowercase } => {
                format!("text src={} tgt={} lowercase={lowercase}", src.display(), tgt.display())
            }
            Source::Pharaoh { alignments } => format!("pharaoh {}", alignments.display()),
            Source::Meteor { alignments } => format!("meteor {}", alignments.display()),
            Source::Conllu { src, tgt } => format!("conllu src={} tgt={}", src.display(), tgt.display()),
            Source::MosesPhraseTable { table } => format!("moses-phrase-table {}", table.display()),
            Source::MosesNbest { nbest } => format!("moses-nbest {}", nbest.display()),
            Source::SyntacticNgrams { files, lowercase } => {
                let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                format!("syntactic-ngrams {} lowercase={lowercase}", files.join(" "))
            }
        }
    }
}

/// Import `source` into `out` (written atomically), in pair order from `pair_id` 0.
pub fn import(source: &Source, out: &Path) -> Result<ImportSummary> {
    let started = Instant::now();
    let schema: SchemaRef = Arc::new(source.table().schema());
    let metadata = vec![
        ("pairmetrics.version".to_string(), crate::VERSION.to_string()),
        ("pairmetrics.import".to_string(), source.describe()),
    ];
    let writer = AtomicParquetWriter::create(out, schema.clone(), metadata)?;
    let rows = match source {
        Source::Text { src, tgt, lowercase } => {
            let (mut a, mut b) = (open(src)?, open(tgt)?);
            let lowercase = *lowercase;
            run(writer, move || read_text_chunk(&mut a, &mut b), move |chunk| build_pairs(&schema, chunk, lowercase))?
        }
        Source::Pharaoh { alignments } => {
            let mut lines = open(alignments)?;
            run(writer, move || read_pharaoh_chunk(&mut lines), move |chunk| build_links(&schema, chunk))?
        }
        Source::Meteor { alignments } => {
            let mut blocks = Blocks::new(open(alignments)?);
            let path = alignments.clone();
            run(
                writer,
                move || {
                    let mut chunk = Chunk::default();
                    for block in blocks.by_ref().take(CHUNK_ROWS) {
                        let block = block?;
                        let (n1, n2) = block.sentence_lengths();
                        if let Some((side, position, n)) = block.span_past_end(n1, n2) {
                            bail!(InputError::at(
                                &path,
                                block.line,
                                format!("block {}: a match reaches position {position}, past the {side} sentence of {n} tokens", block.number)
                            ));
                        }
                        chunk.rows.push(block.links());
                    }
                    Ok(chunk)
                },
                move |chunk| build_links(&schema, chunk),
            )?
        }
        Source::Conllu { src, tgt } => {
            let (mut a, mut b) = (Sentences::new(open(src)?), Sentences::new(open(tgt)?));
            let (src, tgt) = (src.clone(), tgt.clone());
            run(
                writer,
                move || {
                    let mut chunk = Chunk::default();
                    while chunk.rows.len() < CHUNK_ROWS {
                        match (a.next().transpose()?, b.next().transpose()?) {
                            (Some(s), Some(t)) => chunk.rows.push((s, t)),
                            (None, None) => break,
                            (s, _) => {
                                let (longer, shorter) = if s.is_some() { (&src, &tgt) } else { (&tgt, &src) };
                                bail!(
                                    "{} has more sentences than {}; the files must have one sentence per pair",
                                    longer.display(),
                                    shorter.display()
                                )
                            }
                        }
                    }
                    Ok(chunk)
                },
                move |chunk| build_arcs(&schema, chunk),
            )?
        }
        Source::MosesPhraseTable { table } => {
            let mut lines = open(table)?;
            let path = table.clone();
            run(writer, move || read_numbered_lines(&mut lines), move |chunk| build_phrase_table(&schema, &path, chunk))?
        }
        Source::MosesNbest { nbest } => {
            let mut lines = open(nbest)?;
            let path = nbest.clone();
            let mut ranks = NbestRanks::default();
            run(
                writer,
                move || read_numbered_lines(&mut lines),
                move |chunk| build_nbest(&schema, &path, chunk, &mut ranks),
            )?
        }
        Source::SyntacticNgrams { files, lowercase } => {
            let (paths, lowercase) = (files.clone(), *lowercase);
            let mut next_file = 0;
            let mut current: Option<Reader> = None;
            run(
                writer,
                move || {
                    // Lines of the files one after the other, each with its file's index and its
                    // line number.
                    let mut chunk = Chunk::default();
                    let mut line = String::new();
                    while chunk.rows.len() < CHUNK_ROWS {
                        let Some(lines) = current.as_mut() else {
                            match files.get(next_file) {
                                Some(path) => current = Some(open(path)?),
                                None => break,
                            }
                            next_file += 1;
                            continue;
                        };
                        if lines.next_into(&mut line)? {
                            chunk.rows.push((next_file - 1, lines.line_number(), std::mem::take(&mut line)));
                        } else {
                            current = None;
                        }
                    }
                    Ok(chunk)
                },
                move |chunk| build_triples(&schema, &paths, chunk, lowercase),
            )?
        }
    };
    Ok(ImportSummary { rows, seconds: started.elapsed().as_secs_f64() })
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
        Chunk { first: 0, rows: Vec::with_capacity(CHUNK_ROWS) }
    }
}

/// Run read → build → write on three threads. `read` returns an empty chunk at the end of the
/// input; the first error of any stage stops the others and is returned (the output, never
/// renamed, is removed).
fn run<T: Send>(
    mut writer: AtomicParquetWriter,
    mut read: impl FnMut() -> Result<Chunk<T>> + Send,
    mut build: impl FnMut(Chunk<T>) -> Result<RecordBatch> + Send,
) -> Result<u64> {
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
                let batch = chunk.and_then(|c| if c.rows.is_empty() { Ok(None) } else { build(c).map(Some) });
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

fn pair_ids(chunk_first: u64, rows: usize) -> ArrayRef {
    let first = chunk_first as i64;
    Arc::new(Int64Array::from_iter_values(first..first + rows as i64))
}

fn read_text_chunk(src: &mut Reader, tgt: &mut Reader) -> Result<Chunk<(String, String)>> {
    let mut chunk = Chunk::default();
    let (mut a, mut b) = (String::new(), String::new());
    while chunk.rows.len() < CHUNK_ROWS {
        match (src.next_into(&mut a)?, tgt.next_into(&mut b)?) {
            (true, true) => chunk.rows.push((std::mem::take(&mut a), std::mem::take(&mut b))),
            (false, false) => break,
            (more_src, _) => {
                let (longer, shorter) = if more_src { (&*src, &*tgt) } else { (&*tgt, &*src) };
                bail!(
                    "{} has more lines than {} ({} lines); parallel files must have one line per pair",
                    longer.file().display(),
                    shorter.file().display(),
                    shorter.line_number()
                );
            }
        }
    }
    Ok(chunk)
}

fn token_list_builder(rows: usize) -> ListBuilder<StringBuilder> {
    ListBuilder::with_capacity(StringBuilder::with_capacity(rows * 24, rows * 160), rows)
}

fn append_tokens<'a>(b: &mut ListBuilder<StringBuilder>, toks: impl Iterator<Item = &'a str>, lowercase: bool) {
    for t in toks {
        if lowercase && t.chars().any(char::is_uppercase) {
            b.values().append_value(t.to_lowercase());
        } else {
            b.values().append_value(t);
        }
    }
    b.append(true);
}

fn build_pairs(schema: &SchemaRef, chunk: Chunk<(String, String)>, lowercase: bool) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let (mut src, mut tgt) = (token_list_builder(n), token_list_builder(n));
    for (a, b) in &chunk.rows {
        append_tokens(&mut src, tokens::split(a), lowercase);
        append_tokens(&mut tgt, tokens::split(b), lowercase);
    }
    let columns: Vec<ArrayRef> =
        vec![pair_ids(chunk.first, n), Arc::new(src.finish()), Arc::new(tgt.finish())];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

fn read_pharaoh_chunk(lines: &mut Reader) -> Result<Chunk<Vec<Link>>> {
    let mut chunk = Chunk::default();
    let mut line = String::new();
    while chunk.rows.len() < CHUNK_ROWS && lines.next_into(&mut line)? {
        let mut links = Vec::new();
        pharaoh::parse_line(&line, &mut links)
            .map_err(|e| anyhow!(InputError::at(lines.file(), lines.line_number(), e.to_string())))?;
        if let Some(&(a, b)) = links.iter().find(|&&(a, b)| a.max(b) > i32::MAX as u32) {
            bail!(InputError::at(lines.file(), lines.line_number(), format!("link {a}-{b} is past Int32")));
        }
        chunk.rows.push(links);
    }
    Ok(chunk)
}

fn build_links(schema: &SchemaRef, chunk: Chunk<Vec<Link>>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    Ok(RecordBatch::try_new(schema.clone(), vec![pair_ids(chunk.first, n), links_array(&chunk.rows, None)])?)
}

/// A links column; `valid[i] == false` makes row i NULL.
pub fn links_array(rows: &[Vec<Link>], valid: Option<Vec<bool>>) -> ArrayRef {
    let n = rows.len();
    let fields = link_fields();
    let total: usize = rows.iter().map(Vec::len).sum();
    let values = StructBuilder::new(
        fields.clone(),
        vec![Box::new(Int32Builder::with_capacity(total)), Box::new(Int32Builder::with_capacity(total))],
    );
    let mut b = ListBuilder::with_capacity(values, n)
        .with_field(Arc::new(Field::new_list_field(DataType::Struct(fields), true)));
    for (i, links) in rows.iter().enumerate() {
        let v = b.values();
        for &(s, t) in links {
            v.field_builder::<Int32Builder>(0).expect("src").append_value(s as i32);
            v.field_builder::<Int32Builder>(1).expect("tgt").append_value(t as i32);
            v.append(true);
        }
        b.append(valid.as_ref().is_none_or(|v| v[i]));
    }
    Arc::new(b.finish())
}

fn build_arcs(schema: &SchemaRef, chunk: Chunk<(Sentence, Sentence)>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let heads = |pick: fn(&(Sentence, Sentence)) -> &Sentence| -> ArrayRef {
        let mut b = ListBuilder::with_capacity(Int32Builder::new(), n);
        for pair in &chunk.rows {
            b.values().append_slice(&pick(pair).heads);
            b.append(true);
        }
        Arc::new(b.finish())
    };
    let strings = |pick: fn(&(Sentence, Sentence)) -> &Vec<String>| -> ArrayRef {
        let mut b = token_list_builder(n);
        for pair in &chunk.rows {
            append_tokens(&mut b, pick(pair).iter().map(String::as_str), false);
        }
        Arc::new(b.finish())
    };
    let columns = vec![
        pair_ids(chunk.first, n),
        heads(|p| &p.0),
        heads(|p| &p.1),
        strings(|p| &p.0.deprels),
        strings(|p| &p.1.deprels),
        strings(|p| &p.0.upos),
        strings(|p| &p.1.upos),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// Parse a chunk of phrase-table lines (with their line numbers) into `phrase_table` rows.
fn build_phrase_table(schema: &SchemaRef, path: &Path, chunk: Chunk<(u64, String)>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let text = || StringBuilder::with_capacity(n, n * 16);
    let (mut src, mut tgt) = (text(), text());
    let (mut src_tokens, mut tgt_tokens) = (token_list_builder(n), token_list_builder(n));
    let mut scores: [Vec<f64>; 4] = Default::default();
    let mut extra = ListBuilder::with_capacity(Float64Builder::new(), n);
    let mut counts = ListBuilder::with_capacity(Float64Builder::new(), n);
    let mut alignments = Vec::with_capacity(n);
    let mut has_alignment = Vec::with_capacity(n);
    let mut joined = String::new();
    for (line_number, line) in &chunk.rows {
        let entry = moses::parse_phrase_line(line)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        for (phrase, text, tokens) in [(entry.src, &mut src, &mut src_tokens), (entry.tgt, &mut tgt, &mut tgt_tokens)] {
            joined.clear();
            for (i, token) in tokens::split(phrase).enumerate() {
                if i > 0 {
                    joined.push(' ');
                }
                joined.push_str(token);
            }
            text.append_value(&joined);
            append_tokens(tokens, tokens::split(phrase), false);
        }
        for (column, value) in scores.iter_mut().zip(&entry.scores) {
            column.push(*value);
        }
        extra.values().append_slice(&entry.scores[4..]);
        extra.append(true);
        match &entry.counts {
            Some(c) => {
                counts.values().append_slice(c);
                counts.append(true);
            }
            None => counts.append(false),
        }
        has_alignment.push(entry.alignment.is_some());
        alignments.push(entry.alignment.unwrap_or_default());
    }
    let alignment = links_array(&alignments, Some(has_alignment));
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(src.finish()),
        Arc::new(tgt.finish()),
        Arc::new(src_tokens.finish()),
        Arc::new(tgt_tokens.finish()),
    ];
    columns.extend(scores.into_iter().map(|v| Arc::new(Float64Array::from(v)) as ArrayRef));
    columns.extend([Arc::new(extra.finish()) as ArrayRef, alignment, Arc::new(counts.finish())]);
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// One `form` row per arc of each syntactic n-gram line, the line's total as its count.
fn build_triples(schema: &SchemaRef, paths: &[PathBuf], chunk: Chunk<(usize, u64, String)>, lowercase: bool) -> Result<RecordBatch> {
    let n = chunk.rows.len() * 2;
    let text = || StringBuilder::with_capacity(n, n * 8);
    let (mut level, mut head, mut dep, mut deprel) = (text(), text(), text(), text());
    let mut counts = Vec::with_capacity(n);
    let mut arcs = Vec::new();
    let word = |b: &mut StringBuilder, w: &str| {
        if lowercase && w.chars().any(char::is_uppercase) {
            b.append_value(w.to_lowercase())
        } else {
            b.append_value(w)
        }
    };
    for (file, line_number, line) in &chunk.rows {
        let path = &paths[*file];
        let total = syntactic_ngrams::parse_line(line, &mut arcs)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        let total = i64::try_from(total).map_err(|_| anyhow!(InputError::at(path, *line_number, "count past Int64")))?;
        for &(h, d, l) in &arcs {
            level.append_value("form");
            word(&mut head, h);
            word(&mut dep, d);
            deprel.append_value(l);
            counts.push(total);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(level.finish()),
        Arc::new(head.finish()),
        Arc::new(dep.finish()),
        Arc::new(deprel.finish()),
        Arc::new(Int64Array::from(counts)),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// Up to `CHUNK_ROWS` lines with their 1-based line numbers, for a parser on the build thread.
fn read_numbered_lines(lines: &mut Reader) -> Result<Chunk<(u64, String)>> {
    let mut chunk = Chunk::default();
    let mut line = String::new();
    while chunk.rows.len() < CHUNK_ROWS && lines.next_into(&mut line)? {
        chunk.rows.push((lines.line_number(), std::mem::take(&mut line)));
    }
    Ok(chunk)
}

/// The next rank of each n-best id (lists are usually contiguous; interleaved ones work too).
#[derive(Default)]
struct NbestRanks(std::collections::HashMap<i64, i32>);

fn build_nbest(
    schema: &SchemaRef,
    path: &Path,
    chunk: Chunk<(u64, String)>,
    ranks: &mut NbestRanks,
) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let (mut ids, mut rank, mut totals) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut hyp, mut features) = (StringBuilder::with_capacity(n, n * 64), StringBuilder::with_capacity(n, n * 64));
    let mut tokens = token_list_builder(n);
    let mut scores = ListBuilder::with_capacity(Float64Builder::new(), n);
    for (line_number, line) in &chunk.rows {
        let entry = moses::parse_nbest_line(line)
            .map_err(|e| anyhow!(InputError::at(path, *line_number, e.to_string())))?;
        let next = ranks.0.entry(entry.id).or_insert(0);
        ids.push(entry.id);
        rank.push(*next);
        *next += 1;
        hyp.append_value(entry.hyp);
        append_tokens(&mut tokens, tokens::split(entry.hyp), false);
        features.append_value(entry.features);
        scores.values().append_slice(&entry.scores);
        scores.append(true);
        totals.push(entry.total);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(Int32Array::from(rank)),
        Arc::new(hyp.finish()),
        Arc::new(tokens.finish()),
        Arc::new(features.finish()),
        Arc::new(scores.finish()),
        Arc::new(Float64Array::from(totals)),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
