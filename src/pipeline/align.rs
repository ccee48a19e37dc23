//! `pairmetrics align`: METEOR 1.5's `Matcher` on two text files — its output byte for byte on
//! stdout, or an alignments table whose links name their module. Pairs are aligned on every
//! core and written in input order.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use datafusion::arrow::array::RecordBatch;
use indicatif::{ProgressBar, ProgressStyle};

use crate::align::module_links;
use crate::align::{self, Aligner, Scratch};
use crate::arrow::{module_links_array, pair_ids};
use crate::formats::input::{self, Lines, Paired};
use crate::formats::meteor;
use crate::kernels::Link;
use crate::parallel::{Chunk, map_ordered};
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::schema::module_alignments_schema;

#[derive(Debug, Clone, PartialEq)]
pub struct AlignSummary {
    pub pairs: u64,
    pub links: u64,
    pub seconds: f64,
}

/// Where the alignments go.
pub enum Output<'a> {
    /// Matcher's text.
    Matcher(&'a mut dyn Write),
    /// An alignments table (pair_id = 0-based line number), written atomically.
    Parquet(&'a Path),
}

/// Align line i of `test` with line i of `reference`, for every line; with `progress`, count
/// the pairs on stderr as they are written.
pub fn run(
    test: &Path,
    reference: &Path,
    aligner: &Aligner,
    threads: usize,
    output: Output,
    progress: bool,
) -> Result<AlignSummary> {
    let started = Instant::now();
    let bar = match progress {
        true => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template(
                "{spinner} {human_pos} pairs aligned ({per_sec}, {elapsed})",
            )
            .expect("a valid template"),
        ),
        false => ProgressBar::hidden(),
    };
    let open = |path: &Path| -> Result<_> { Ok(Lines::new(input::open(path)?, path)) };
    let pairs = Paired::new(open(test)?, open(reference)?, (test, reference), "line");
    let (mut count, mut links) = (0u64, 0u64);
    match output {
        Output::Matcher(out) => {
            let text = |scratch: &mut Scratch,
                        chunk: Chunk<(String, String)>|
             -> Result<(Vec<u8>, u64, u64)> {
                let mut text = Vec::with_capacity(chunk.records.len() * 256);
                let mut links = 0;
                for (i, pair) in chunk.records.iter().enumerate() {
                    let (words1, words2, matches) = align_pair(aligner, scratch, pair);
                    links += matches
                        .iter()
                        .map(|m| u64::from(m.s1_len * m.s2_len))
                        .sum::<u64>();
                    meteor::write_block(
                        &mut text,
                        chunk.first + i as u64 + 1,
                        &words1,
                        &words2,
                        &matches,
                    );
                }
                Ok((text, chunk.records.len() as u64, links))
            };
            map_ordered(
                pairs,
                threads,
                Scratch::default,
                text,
                |(text, pairs, n)| {
                    count += pairs;
                    links += n;
                    bar.inc(pairs);
                    Ok(out.write_all(&text)?)
                },
            )?;
            out.flush()?;
        }
        Output::Parquet(path) => {
            let schema = Arc::new(module_alignments_schema());
            let metadata = vec![
                (keys::VERSION.to_string(), crate::VERSION.to_string()),
                (keys::ALIGN.to_string(), aligner.options().describe()),
            ];
            let mut writer = AtomicParquetWriter::create(path, schema.clone(), metadata)?;
            let names: Vec<&str> = aligner.modules().iter().map(|m| m.name()).collect();
            let batch = |scratch: &mut Scratch,
                         chunk: Chunk<(String, String)>|
             -> Result<(RecordBatch, u64)> {
                let rows: Vec<Vec<(Link, &str)>> = chunk
                    .records
                    .iter()
                    .map(|pair| module_links(&align_pair(aligner, scratch, pair).2, &names))
                    .collect();
                let links = rows.iter().map(Vec::len).sum::<usize>() as u64;
                let columns = vec![
                    pair_ids(chunk.first, rows.len()),
                    module_links_array(rows.iter().map(Vec::as_slice), None),
                ];
                Ok((RecordBatch::try_new(schema.clone(), columns)?, links))
            };
            map_ordered(pairs, threads, Scratch::default, batch, |(batch, n)| {
                count += batch.num_rows() as u64;
                links += n;
                bar.inc(batch.num_rows() as u64);
                writer.write(&batch)
            })?;
            writer.finish()?;
        }
    }
    bar.finish_and_clear();
    Ok(AlignSummary {
        pairs: count,
        links,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A line pair's words, and their alignment.
fn align_pair<'a>(
    aligner: &Aligner,
    scratch: &mut Scratch,
    (line1, line2): &'a (String, String),
) -> (Vec<&'a str>, Vec<&'a str>, Vec<align::Match>) {
    let (words1, words2): (Vec<&str>, Vec<&str>) = (
        align::tokens(line1).collect(),
        align::tokens(line2).collect(),
    );
    let matches = aligner.align(&words1, &words2, scratch);
    (words1, words2, matches)
}
