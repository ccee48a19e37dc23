//! `pairmetrics dedup`.

use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::dedup::{self, Method, Shingles, Side};

use super::args::{LayoutArgs, at_least_one, cores};

/// Mark the pairs that repeat an earlier pair, exactly or nearly, and write the table with a
/// `duplicate_of` column: the pair_id of the row kept (the first of its group in the input's
/// order: files in path order, or a Delta table's as its log lists them; rows in file order),
/// NULL for rows kept.
///
/// Exact (the default): rows whose OpusFilter segment hashes are equal (`pair_hash`,
/// `segment_hash`: xxh64 of the lines as OpusFilter's remove_duplicates keys them), over the
/// pair, one side, or either side. Near (--near T): rows sharing a MinHash LSH band, as
/// datasketch's MinHashLSH(T, num_perm) finds candidates, joined transitively into groups
/// (connected components). Either way the answer is the same whatever the threads and the
/// files' row groups. Memory is bounded: exact keys are held in memory while their distinct
/// values fit in --memory-limit (a billion rows of ten million distinct pairs take less than
/// 1 GiB), and are otherwise grouped on disk in --temp-dir (about 24 bytes per row and
/// key); near-duplicate keys are grouped on disk, and their groups take 9 bytes per row.
///
/// Example: pairmetrics dedup pairs.parquet deduped.parquet --exact either --only-kept
#[derive(clap::Args)]
pub struct Args {
    /// The table: Parquet (a file, a directory or prefix, a URL) or delta:PATH_OR_URL[@VERSION],
    /// with a pair_id column and the texts to compare.
    input: PathBuf,
    /// Where to write it (atomically; a Parquet file, a dataset directory, or delta:...).
    out: PathBuf,
    /// Exact duplicates: which text must be equal. `either`: a pair whose source or whose
    /// target appeared in an earlier pair repeats the earliest such pair.
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "near")]
    exact: Option<Side>,
    /// OpusFilter's preprocessing before exact hashing, comma-separated: lowercase,
    /// letters_only, letter_words_only.
    #[arg(
        long,
        value_name = "OPTIONS",
        default_value = "",
        conflicts_with = "near",
        value_parser = hash_options
    )]
    options: String,
    /// Near duplicates at this Jaccard threshold, in (0, 1): the bands and rows
    /// MinHashLSH(threshold, num_perm) chooses (`lsh_params`).
    #[arg(long, value_name = "THRESHOLD", value_parser = threshold)]
    near: Option<f64>,
    /// Near duplicates: which text is compared (pair: the shingles of both sides together).
    #[arg(long, value_enum, default_value = "pair", requires = "near")]
    side: Side,
    /// Near duplicates: MinHash permutations (datasketch's num_perm; 2 to 65536).
    #[arg(long, default_value_t = 128, requires = "near", value_parser = num_perm)]
    num_perm: usize,
    /// Near duplicates: the MinHash seed (datasketch's seed).
    #[arg(long, default_value_t = 1, requires = "near")]
    seed: u32,
    /// Near duplicates: the shingles, `words` (Python's str.split()) or `chars:N` (character
    /// N-grams, as char_ngrams).
    #[arg(long, default_value = "words", value_parser = Shingles::parse, requires = "near")]
    shingle: Shingles,
    /// Mark only the rows that repeat a row of this table (OpusFilter's `overlap`: a test set
    /// against training data); duplicate_of is then that table's pair_id.
    #[arg(long, value_name = "TABLE")]
    against: Option<PathBuf>,
    /// The source text column (default: src_text if present, else src). Text, or token lists
    /// (joined by single spaces).
    #[arg(long, value_name = "COLUMN")]
    src_column: Option<String>,
    /// The target text column (default: tgt_text if present, else tgt).
    #[arg(long, value_name = "COLUMN")]
    tgt_column: Option<String>,
    /// Write only the rows kept, without the duplicate_of column.
    #[arg(long)]
    only_kept: bool,
    /// Worker threads for the keys (default: the number of cores; the result is the same for
    /// any number).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
    /// Memory for the keys in MiB; beyond it they spill to --temp-dir.
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = at_least_one)]
    memory_limit: usize,
    /// Exact duplicates: group the keys on disk from the start. By default each key's first
    /// row is held in memory (up to 96 bytes a distinct key), and only when they pass
    /// --memory-limit are the keys grouped on disk, after a partial pass this flag saves.
    #[arg(long, conflicts_with = "near")]
    keys_on_disk: bool,
    /// Where the scratch directory is made (default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
    #[command(flatten)]
    layout: LayoutArgs,
}

fn threshold(value: &str) -> Result<f64, String> {
    let threshold = value.parse::<f64>().map_err(|e| e.to_string())?;
    dedup::check_threshold(threshold).map(|()| threshold)
}

fn num_perm(value: &str) -> Result<usize, String> {
    let n = value.parse::<usize>().map_err(|e| e.to_string())?;
    dedup::check_num_perm(n).map(|()| n)
}

fn hash_options(value: &str) -> Result<String, String> {
    pairmetrics::clean::segment_hash::SegmentHasher::with_options(value).map(|_| value.to_string())
}

impl Args {
    pub async fn run(self) -> Result<()> {
        let (method, side) = match self.near {
            Some(threshold) => (
                Method::Near {
                    threshold,
                    num_perm: self.num_perm,
                    seed: self.seed,
                    shingles: self.shingle,
                },
                self.side,
            ),
            None => (
                Method::Exact {
                    options: self.options,
                },
                self.exact.unwrap_or(Side::Pair),
            ),
        };
        let options = dedup::Options {
            input: self.input,
            out: self.out.clone(),
            against: self.against,
            method,
            side,
            src_column: self.src_column,
            tgt_column: self.tgt_column,
            only_kept: self.only_kept,
            threads: self.threads.unwrap_or_else(cores),
            memory: self.memory_limit << 20,
            keys_on_disk: self.keys_on_disk,
            temp_dir: self.temp_dir,
            layout: self.layout.into(),
        };
        let summary = dedup::run(&options).await?;
        if summary.keys_exceeded_memory {
            eprintln!(
                "the distinct keys exceeded --memory-limit: they were grouped on disk (--keys-on-disk saves the first attempt)"
            );
        }
        eprintln!(
            "{} rows: {} repeat an earlier row (or the other table's), {} are repeated, {} with a NULL text compared with nothing; wrote {} rows to {}",
            summary.rows,
            summary.duplicates,
            summary.groups,
            summary.not_compared,
            summary.written,
            self.out.display()
        );
        Ok(())
    }
}
