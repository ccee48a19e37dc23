//! `pairmetrics dedup`: mark the rows of a table that repeat an earlier row, exactly (OpusFilter's
//! segment hash of the pair, of one side, or of either side) or nearly (MinHash LSH, as
//! datasketch's `MinHashLSH` finds candidates, joined into connected components).
//!
//! Two passes over the input in its order (files in path order, rows in file order), so that
//! "earlier" means the same whatever the threads: the first computes each row's keys on every
//! core and groups the rows sharing a key in bounded memory (`dedup::groups`, spilling by key);
//! the second reads the rows again and writes them with `duplicate_of`, the pair_id of the row
//! each repeats.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int64Array, Int64Builder, RecordBatch,
};
use datafusion::arrow::compute::{cast, filter_record_batch};
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::prelude::SessionContext;
use futures::{StreamExt, TryStreamExt};

use crate::arrow::read::{Strings, TokenLists};
use crate::clean::segment_hash::{Key, SegmentHasher};
use crate::dedup::groups::{Components, FirstSeen, Firsts, FirstsInOrder, Grouping, Role};
use crate::dedup::lsh;
use crate::dedup::minhash::{MAX_NUM_PERM, MinHasher, Scheme};
use crate::dedup::shingles::char_ngrams;
use crate::parallel::{Chunk, map_ordered_in_chunks};
use crate::parquet::{Encoding, Layout, ParquetInput, TableWriter, keys};
use crate::session::{Session, Tuning};
use crate::storage::spill::Scratch;
use crate::text::whitespace;

/// The column `dedup` adds.
pub const DUPLICATE_OF: &str = "duplicate_of";

/// Which text of a pair is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    /// Source and target together.
    Pair,
    /// The source alone.
    Src,
    /// The target alone.
    Tgt,
    /// The source or the target: a row repeats an earlier row with the same source, or with
    /// the same target.
    Either,
}

/// What a text is cut into for its MinHash signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shingles {
    /// Python's `text.split()`.
    Words,
    /// Character n-grams (`char_ngrams(text, n)`).
    Chars(usize),
}

impl Shingles {
    pub fn parse(value: &str) -> Result<Shingles, String> {
        match value {
            "words" => Ok(Shingles::Words),
            _ => match value.strip_prefix("chars:").map(str::parse::<usize>) {
                Some(Ok(n)) if n >= 1 => Ok(Shingles::Chars(n)),
                _ => Err(format!("expected words or chars:N (N ≥ 1), got `{value}`")),
            },
        }
    }
}

/// A near-duplicate threshold: in (0, 1).
pub fn check_threshold(threshold: f64) -> Result<(), String> {
    match threshold > 0.0 && threshold < 1.0 {
        true => Ok(()),
        false => Err(format!("must be in (0, 1), got {threshold}")),
    }
}

/// A number of MinHash permutations for MinHashLSH: 2 to 2^16 (datasketch refuses fewer than
/// two: "Too few permutation functions"; `lsh_params` takes the same).
pub fn check_num_perm(num_perm: usize) -> Result<(), String> {
    match (2..=MAX_NUM_PERM).contains(&num_perm) {
        true => Ok(()),
        false => Err(format!(
            "must be 2 to 65536 (MinHashLSH needs two permutations or more), got {num_perm}"
        )),
    }
}

/// How rows are compared.
#[derive(Debug, Clone)]
pub enum Method {
    /// Equal OpusFilter keys (`pair_hash`, `segment_hash`) with its options (comma-separated:
    /// lowercase, letters_only, letter_words_only).
    Exact { options: String },
    /// MinHash LSH candidates: rows sharing a band key, grouped transitively.
    Near {
        threshold: f64,
        num_perm: usize,
        seed: u32,
        shingles: Shingles,
    },
}

pub struct Options {
    pub input: PathBuf,
    pub out: PathBuf,
    /// Mark only the rows that repeat a row of this table (OpusFilter's `overlap`).
    pub against: Option<PathBuf>,
    pub method: Method,
    pub side: Side,
    /// The text columns; by default `src_text` and `tgt_text` when the table has them, else
    /// `src` and `tgt`. Text, or token lists (joined by spaces).
    pub src_column: Option<String>,
    pub tgt_column: Option<String>,
    /// Write only the rows kept (without the `duplicate_of` column).
    pub only_kept: bool,
    pub threads: usize,
    /// Memory for the groups in bytes; beyond it they spill to `temp_dir`.
    pub memory: usize,
    /// Group exact keys on disk from the start, instead of first trying to hold each key's
    /// first row in memory.
    pub keys_on_disk: bool,
    pub temp_dir: Option<PathBuf>,
    pub layout: Layout,
}

/// What a run found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub rows: u64,
    /// Rows that repeat an earlier one (or, with `against`, a row of that table).
    pub duplicates: u64,
    /// Rows that later rows repeat (or, with `against`, that table's rows the input repeats).
    pub groups: u64,
    /// Rows with a NULL text, compared with nothing (kept).
    pub not_compared: u64,
    /// The exact keys' first rows did not fit in the memory given: the keys were grouped on
    /// disk after all (after a partial pass in memory).
    pub keys_exceeded_memory: bool,
    pub written: u64,
}

/// A table read in its order: Parquet (a file, a directory, a URL) or `delta:PATH[@VERSION]`.
struct OrderedInput {
    path: PathBuf,
    schema: SchemaRef,
    rows: u64,
    source: Source,
}

enum Source {
    Parquet(Box<ParquetInput>),
    /// A session that reads the table (registered as the name) on one thread, so in the order
    /// of its files.
    #[cfg_attr(not(feature = "delta"), allow(dead_code))]
    Delta(SessionContext, String),
}

impl OrderedInput {
    async fn open(name: &str, path: &Path) -> Result<OrderedInput> {
        if let Some(spec) = path.to_str().and_then(|s| s.strip_prefix("delta:")) {
            #[cfg(feature = "delta")]
            {
                let tuning = Tuning {
                    partitions: Some(1),
                    ..Tuning::default()
                };
                let ctx = Session::tuned(tuning).build()?;
                crate::storage::delta::register(&ctx, name, spec).await?;
                let frame = ctx.table(name).await?;
                let schema = frame.schema().inner().clone();
                let rows = frame.clone().count().await? as u64;
                return Ok(OrderedInput {
                    path: path.to_path_buf(),
                    schema,
                    rows,
                    source: Source::Delta(ctx, name.to_string()),
                });
            }
            #[cfg(not(feature = "delta"))]
            bail!("delta:{spec}: this pairmetrics was built without the `delta` feature");
        }
        let input = ParquetInput::open(name, path)?;
        Ok(OrderedInput {
            path: path.to_path_buf(),
            schema: input.schema()?,
            rows: input.num_rows(),
            source: Source::Parquet(Box::new(input)),
        })
    }

    async fn stream(&self, columns: &[&str]) -> Result<SendableRecordBatchStream> {
        Ok(match &self.source {
            Source::Parquet(input) => input.scan(columns, &self.schema, 8192)?,
            Source::Delta(ctx, name) => {
                // Partition after partition, never interleaved: the files in the order the
                // Delta log's scan plans them, each in its order.
                let frame = ctx.table(name.as_str()).await?.select_columns(columns)?;
                let plan = frame.create_physical_plan().await?;
                let schema = plan.schema();
                let task = ctx.task_ctx();
                let partitions = plan.properties().output_partitioning().partition_count();
                let streams = (0..partitions)
                    .map(|i| plan.execute(i, task.clone()))
                    .collect::<datafusion::error::Result<Vec<_>>>()?;
                Box::pin(RecordBatchStreamAdapter::new(
                    schema,
                    futures::stream::iter(streams).flatten(),
                ))
            }
        })
    }

    fn what(&self) -> String {
        self.path.display().to_string()
    }

    /// The column to compare for one side: the one named, or `{side}_text`, or `{side}`.
    fn text_column(&self, side: &str, named: Option<&str>) -> Result<String> {
        let column = match named {
            Some(name) => name.to_string(),
            None => [format!("{side}_text"), side.to_string()]
                .into_iter()
                .find(|c| self.schema.field_with_name(c).is_ok())
                .ok_or_else(|| {
                    anyhow!(
                        "{}: no {side}_text or {side} column to compare (name the {side} column)",
                        self.what()
                    )
                })?,
        };
        let field = self
            .schema
            .field_with_name(&column)
            .map_err(|_| anyhow!("{}: no column `{column}` (the {side} column)", self.what()))?;
        match field.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {}
            DataType::List(item) | DataType::LargeList(item)
                if matches!(
                    item.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) => {}
            other => bail!(
                "{}: column `{column}` is {other}, not text or a list of tokens",
                self.what()
            ),
        }
        Ok(column)
    }

    fn check_id(&self) -> Result<()> {
        match self
            .schema
            .field_with_name("pair_id")
            .map(|f| f.data_type())
        {
            Ok(t) if t.is_integer() => Ok(()),
            Ok(other) => bail!("{}: pair_id is {other}, not an integer", self.what()),
            Err(_) => bail!(
                "{}: no pair_id column (duplicate_of names rows by their pair_id)",
                self.what()
            ),
        }
    }
}

/// A row's keys, computed the same way for the input and the table it is compared against.
struct KeyMaker {
    side: Side,
    kind: KeyKind,
}

enum KeyKind {
    Exact(SegmentHasher),
    Near {
        minhasher: MinHasher,
        shingles: Shingles,
        bands: usize,
        rows_per_band: usize,
    },
}

impl KeyMaker {
    fn new(method: &Method, side: Side) -> Result<KeyMaker> {
        let kind = match method {
            Method::Exact { options } => KeyKind::Exact(
                SegmentHasher::with_options(options).map_err(|e| anyhow!("options: {e}"))?,
            ),
            &Method::Near {
                threshold,
                num_perm,
                seed,
                shingles,
            } => {
                check_threshold(threshold).map_err(|e| anyhow!("threshold: {e}"))?;
                check_num_perm(num_perm).map_err(|e| anyhow!("num_perm: {e}"))?;
                let (b, r) = lsh::optimal_params(threshold, num_perm as u32, 0.5, 0.5);
                KeyKind::Near {
                    minhasher: MinHasher::new(num_perm, seed, Scheme::Affine32),
                    shingles,
                    bands: b as usize,
                    rows_per_band: r as usize,
                }
            }
        };
        Ok(KeyMaker { side, kind })
    }

    /// How many keys a row has at most.
    fn keys_per_row(&self) -> u64 {
        let sides = if self.side == Side::Either { 2 } else { 1 };
        match &self.kind {
            KeyKind::Exact(_) => sides,
            KeyKind::Near { bands, .. } => sides * *bands as u64,
        }
    }

    /// The keys of one row given its texts (None for a NULL text), appended to `keys`: none
    /// for a side whose text is NULL.
    fn keys(&self, src: Option<&str>, tgt: Option<&str>, keys: &mut Vec<u128>) {
        // (namespace, texts) per side compared: `either` keys each side apart.
        let (pair, one_src, one_tgt) = ([src, tgt], [src], [tgt]);
        let sides: &[(u64, &[Option<&str>])] = match self.side {
            Side::Pair => &[(0, &pair)],
            Side::Src => &[(0, &one_src)],
            Side::Tgt => &[(0, &one_tgt)],
            Side::Either => &[(0, &one_src), (1, &one_tgt)],
        };
        for &(namespace, texts) in sides {
            if texts.iter().any(Option::is_none) {
                continue;
            }
            let mut present = [""; 2];
            for (slot, text) in present.iter_mut().zip(texts.iter().flatten()) {
                *slot = text;
            }
            let texts = &present[..texts.len()];
            match &self.kind {
                KeyKind::Exact(hasher) => match hasher.key_of_texts(texts) {
                    // Each side's keys apart from the other's: the same text as a source and
                    // as a target is no repeat.
                    Ok(Key::Hash(h)) => keys.push(u128::from(namespace) << 64 | h),
                    _ => unreachable!("xxh64 keys every line"),
                },
                KeyKind::Near {
                    minhasher,
                    shingles,
                    bands,
                    rows_per_band,
                } => {
                    let mut pieces = Vec::new();
                    for text in texts {
                        match shingles {
                            Shingles::Words => pieces.extend(whitespace::split(text)),
                            Shingles::Chars(n) => char_ngrams(text, *n, &mut pieces),
                        }
                    }
                    let mut signature = Vec::new();
                    minhasher.signature(pieces.iter().map(|p| p.as_bytes()), &mut signature);
                    keys.extend(lsh::band_hashes(
                        &signature,
                        4,
                        *bands,
                        *rows_per_band,
                        namespace,
                    ));
                }
            }
        }
    }
}

/// A text column, as text or as token lists joined by spaces.
enum TextColumn<'a> {
    Text(Strings<'a>),
    Tokens(TokenLists<'a>),
}

impl<'a> TextColumn<'a> {
    fn new(array: &'a ArrayRef) -> Result<TextColumn<'a>> {
        Ok(match array.data_type() {
            DataType::List(_) | DataType::LargeList(_) => {
                TextColumn::Tokens(TokenLists::new("text", array)?)
            }
            _ => TextColumn::Text(Strings::new(array.as_ref())?),
        })
    }

    /// Row `row`'s text: None when NULL (or a token is NULL).
    fn get(&self, row: usize) -> Option<std::borrow::Cow<'a, str>> {
        match self {
            TextColumn::Text(strings) => strings.get(row).map(Into::into),
            TextColumn::Tokens(lists) => {
                let tokens: Option<Vec<&str>> = lists.items(row)?.collect();
                Some(tokens?.join(" ").into())
            }
        }
    }
}

/// The keys of one batch's rows: (row in the batch, key).
struct BatchKeys {
    rows: usize,
    keys: Vec<(u32, u128)>,
    not_compared: u64,
}

/// The columns compared: source and target, when the side needs them.
struct TextColumns {
    src: Option<String>,
    tgt: Option<String>,
}

impl TextColumns {
    fn of(table: &OrderedInput, options: &Options) -> Result<TextColumns> {
        let (src, tgt) = match options.side {
            Side::Pair | Side::Either => (true, true),
            Side::Src => (true, false),
            Side::Tgt => (false, true),
        };
        Ok(TextColumns {
            src: src
                .then(|| table.text_column("src", options.src_column.as_deref()))
                .transpose()?,
            tgt: tgt
                .then(|| table.text_column("tgt", options.tgt_column.as_deref()))
                .transpose()?,
        })
    }

    fn names(&self) -> Vec<&str> {
        [&self.src, &self.tgt]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }
}

/// Where the batch's text columns are: source and target, when compared.
#[derive(Clone, Copy)]
struct TextAt {
    src: Option<usize>,
    tgt: Option<usize>,
}

impl TextAt {
    fn of(schema: &Schema, columns: &TextColumns) -> Result<TextAt> {
        let at = |c: &Option<String>| c.as_ref().map(|c| schema.index_of(c)).transpose();
        Ok(TextAt {
            src: at(&columns.src)?,
            tgt: at(&columns.tgt)?,
        })
    }
}

/// The keys of a batch's rows.
fn batch_keys(batch: &RecordBatch, at: TextAt, maker: &KeyMaker) -> Result<BatchKeys> {
    let read = |at: Option<usize>| at.map(|i| TextColumn::new(batch.column(i))).transpose();
    let (src, tgt) = (read(at.src)?, read(at.tgt)?);
    let mut out = BatchKeys {
        rows: batch.num_rows(),
        keys: Vec::new(),
        not_compared: 0,
    };
    let mut keys = Vec::new();
    for row in 0..batch.num_rows() {
        let s = src.as_ref().and_then(|c| c.get(row));
        let t = tgt.as_ref().and_then(|c| c.get(row));
        keys.clear();
        maker.keys(s.as_deref(), t.as_deref(), &mut keys);
        if keys.is_empty() {
            out.not_compared += 1;
        }
        out.keys.extend(keys.iter().map(|&k| (row as u32, k)));
    }
    Ok(out)
}

/// `push` found no room for another key: they are grouped on disk instead.
#[derive(Debug)]
struct KeysExceedMemory;

impl std::fmt::Display for KeysExceedMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the distinct keys exceed the memory given")
    }
}

impl std::error::Error for KeysExceedMemory {}

/// Pass 1 over one table: every row's keys, on `threads` workers, given to `push` with the
/// row's ordinal (`first` + its position) and pair_id, in input order. The rows with no key (a
/// NULL text); None when `push` had no room (it returned false).
async fn push_keys(
    table: &OrderedInput,
    columns: &TextColumns,
    maker: &KeyMaker,
    threads: usize,
    first: u64,
    mut push: impl FnMut(u128, u64, i64) -> std::io::Result<bool>,
) -> Result<Option<u64>> {
    let mut names = vec!["pair_id"];
    names.extend(columns.names());
    let stream = table.stream(&names).await?;
    let at = TextAt::of(stream.schema().as_ref(), columns)?;
    let what = table.what();
    let keys_of = |_: &mut (), mut chunk: Chunk<RecordBatch>| -> Result<(BatchKeys, Int64Array)> {
        let batch = chunk.records.pop().expect("one batch per chunk");
        Ok((batch_keys(&batch, at, maker)?, ids(&batch, &what)?))
    };
    let mut ordinal = first;
    let mut not_compared = 0;
    let pushed = tokio::task::block_in_place(|| {
        map_ordered_in_chunks(
            1,
            blocking(stream),
            threads,
            || (),
            keys_of,
            |(batch, ids): (BatchKeys, Int64Array)| {
                for (row, key) in batch.keys {
                    let id = ids.value(row as usize);
                    if !push(key, ordinal + u64::from(row), id)? {
                        return Err(KeysExceedMemory.into());
                    }
                }
                ordinal += batch.rows as u64;
                not_compared += batch.not_compared;
                Ok(())
            },
        )
    });
    match pushed {
        Err(e) if e.is::<KeysExceedMemory>() => return Ok(None),
        other => other.with_context(|| format!("reading {}", table.what()))?,
    }
    if ordinal - first != table.rows {
        bail!(
            "{}: read {} rows where its footers count {}",
            table.what(),
            ordinal - first,
            table.rows
        );
    }
    Ok(Some(not_compared))
}

/// `stream`'s batches for a thread outside the runtime: a task of the runtime polls the stream
/// (its readers may need the runtime's reactor and blocking pool) and hands the batches over.
fn blocking(
    mut stream: SendableRecordBatchStream,
) -> impl Iterator<Item = datafusion::error::Result<RecordBatch>> + Send {
    let (tx, mut rx) = tokio::sync::mpsc::channel(2);
    tokio::spawn(async move {
        while let Some(batch) = stream.next().await {
            if tx.send(batch).await.is_err() {
                break; // the reader stopped
            }
        }
    });
    std::iter::from_fn(move || rx.blocking_recv())
}

/// What the groups say of each row, asked in input order.
enum Roles {
    /// Exact keys, each key's first row in memory with its pair_id: a row's role from its keys.
    InMemory(FirstSeen),
    /// Exact keys grouped on disk.
    Spilled(FirstsInOrder),
    Near(Components),
}

/// Each row's duplicate_of, from the roles, asked in input order: the rows of the table
/// compared against (ordinals below `against_rows`), then the input's.
struct DuplicateOf {
    roles: Roles,
    against_rows: u64,
    /// The pair_ids of the rows later rows repeat, until then (not needed in memory, where each
    /// key keeps its first row's).
    repeated: HashMap<u64, i64>,
    /// The rows of the table compared against that the input repeats.
    against_repeated: std::collections::HashSet<u64>,
}

impl DuplicateOf {
    /// Whether the rows need their keys (in memory, roles come from them).
    fn needs_keys(&self) -> bool {
        matches!(self.roles, Roles::InMemory(_))
    }

    /// Whether the rows of the table compared against must be read (for their pair_ids).
    fn needs_against_ids(&self) -> bool {
        !self.needs_keys() && self.against_rows > 0
    }

    /// A row of the table compared against, `ordinal`, with `id`.
    fn against_row(&mut self, ordinal: u64, id: i64) -> Result<()> {
        if self.role(ordinal, &[])?.0.repeated {
            self.repeated.insert(ordinal, id);
        }
        Ok(())
    }

    /// An input row, `ordinal`, with `keys` (when needed) and `id`: the pair_id it repeats, and
    /// whether later rows repeat it.
    fn input_row(&mut self, ordinal: u64, keys: &[u128], id: i64) -> Result<(Option<i64>, bool)> {
        let (mut role, known) = self.role(ordinal, keys)?;
        if self.against_rows > 0 {
            // Against a table, rows repeat its rows only.
            role.repeats = role.repeats.filter(|&first| first < self.against_rows);
            role.repeated = false;
            self.against_repeated.extend(role.repeats);
        }
        if role.repeated && !self.needs_keys() {
            self.repeated.insert(ordinal, id);
        }
        let repeats = match (role.repeats, known) {
            (None, _) => None,
            (Some(_), Some(id)) => Some(id),
            (Some(first), None) => Some(*self.repeated.get(&first).ok_or_else(|| {
                anyhow!("row {ordinal} repeats row {first}, which no group starts with")
            })?),
        };
        Ok((repeats, role.repeated))
    }

    /// A row's role, and in memory the pair_id of the row it repeats.
    fn role(&mut self, ordinal: u64, keys: &[u128]) -> Result<(Role, Option<i64>)> {
        Ok(match &mut self.roles {
            Roles::InMemory(seen) => seen.role(ordinal, keys),
            Roles::Spilled(firsts) => (firsts.role(ordinal)?, None),
            Roles::Near(components) => (components.role(ordinal), None),
        })
    }
}

/// Each row's keys, from a batch's (row, key) list, handed out row by row.
struct KeysByRow {
    keys: Vec<(u32, u128)>,
    /// Rows without keys (a NULL text).
    not_compared: u64,
    next: usize,
    row: Vec<u128>,
}

impl KeysByRow {
    fn of(batch: &RecordBatch, at: Option<TextAt>, maker: &KeyMaker) -> Result<KeysByRow> {
        let (keys, not_compared) = match at {
            Some(at) => {
                let keys = batch_keys(batch, at, maker)?;
                (keys.keys, keys.not_compared)
            }
            None => (Vec::new(), 0),
        };
        Ok(KeysByRow {
            keys,
            not_compared,
            next: 0,
            row: Vec::new(),
        })
    }

    /// Row `row`'s keys; rows are asked in ascending order.
    fn of_row(&mut self, row: usize) -> &[u128] {
        self.row.clear();
        while let Some(&(_, key)) = self.keys.get(self.next).filter(|(r, _)| *r as usize == row) {
            self.row.push(key);
            self.next += 1;
        }
        &self.row
    }
}

/// A row's pair_id, as Int64.
fn ids(batch: &RecordBatch, what: &str) -> Result<Int64Array> {
    let column = batch
        .column_by_name("pair_id")
        .ok_or_else(|| anyhow!("{what}: no pair_id column"))?;
    Ok(cast(column, &DataType::Int64)?
        .as_primitive::<Int64Type>()
        .clone())
}

/// Mark the rows of `options.input` that repeat an earlier row (or a row of
/// `options.against`), and write them with `duplicate_of` (or only those kept) to
/// `options.out`.
pub async fn run(options: &Options) -> Result<Summary> {
    let input = OrderedInput::open("input", &options.input).await?;
    input.check_id()?;
    if input.schema.field_with_name(DUPLICATE_OF).is_ok() {
        bail!(
            "{}: already has a {DUPLICATE_OF} column (a dedup output?); select the columns without it first",
            input.what()
        );
    }
    let against = match &options.against {
        Some(path) => {
            let table = OrderedInput::open("against", path).await?;
            table.check_id()?;
            Some(table)
        }
        None => None,
    };
    let maker = KeyMaker::new(&options.method, options.side)?;
    let columns = TextColumns::of(&input, options)?;
    let against_columns = against
        .as_ref()
        .map(|a| TextColumns::of(a, options))
        .transpose()?;

    // The output is created first: a target that may not be written fails before any work.
    let mut fields: Vec<_> = input.schema.fields().iter().cloned().collect();
    if !options.only_kept {
        fields.push(Arc::new(Field::new(DUPLICATE_OF, DataType::Int64, true)));
    }
    let out_schema = Arc::new(Schema::new(fields));
    let metadata = vec![
        (keys::VERSION.to_string(), crate::VERSION.to_string()),
        (keys::DEDUP.to_string(), describe(options)),
    ];
    let ctx = Session::default().build()?;
    let mut writer = TableWriter::create(
        &ctx,
        &options.out,
        &options.layout,
        out_schema.clone(),
        metadata,
        Encoding::COMPACT,
    )
    .await?;

    // Pass 1: the keys, grouped. The rows of `against` come first (ordinals 0..M).
    let scratch = Scratch::new(options.temp_dir.clone());
    let m = against.as_ref().map_or(0, |a| a.rows);
    let total = m + input.rows;
    let mut summary = Summary {
        rows: input.rows,
        ..Summary::default()
    };
    let threads = options.threads;
    let mut roles = None;
    if matches!(maker.kind, KeyKind::Exact(_)) && !options.keys_on_disk {
        // First in memory: the first row of each key. Against a table, only its keys.
        let mut seen = FirstSeen::new(options.memory);
        let mut push = |key, ordinal, id| Ok(seen.insert(key, ordinal, id));
        let fits = match (&against, &against_columns) {
            (Some(table), Some(columns)) => {
                // The input's NULL texts are counted in pass 2, which computes its keys.
                let fits = push_keys(table, columns, &maker, threads, 0, &mut push).await?;
                fits.is_some()
            }
            _ => match push_keys(&input, &columns, &maker, threads, 0, &mut push).await? {
                Some(nulls) => {
                    summary.not_compared = nulls;
                    true
                }
                None => false,
            },
        };
        match fits {
            true => roles = Some(Roles::InMemory(seen)),
            false => summary.keys_exceeded_memory = true,
        }
    }
    let roles = match roles {
        Some(roles) => roles,
        None => {
            let mut grouping =
                Grouping::new(&scratch, total * maker.keys_per_row(), options.memory / 2);
            let mut push = |key, ordinal, _| grouping.push(key, ordinal).map(|()| true);
            if let (Some(table), Some(columns)) = (&against, &against_columns) {
                push_keys(table, columns, &maker, threads, 0, &mut push).await?;
            }
            let pushed = push_keys(&input, &columns, &maker, threads, m, &mut push).await?;
            summary.not_compared = pushed.expect("a grouping has room for every key");
            group(grouping, &maker, &scratch, total, m, options.memory / 2)?
        }
    };

    // Pass 2: each row's duplicate_of, in input order.
    let mut duplicates = DuplicateOf {
        roles,
        against_rows: m,
        repeated: HashMap::new(),
        against_repeated: Default::default(),
    };
    if let (Some(table), true) = (&against, duplicates.needs_against_ids()) {
        let mut stream = table.stream(&["pair_id"]).await?;
        let mut ordinal = 0;
        while let Some(batch) = stream.try_next().await? {
            for id in ids(&batch, &table.what())?.values() {
                duplicates.against_row(ordinal, *id)?;
                ordinal += 1;
            }
        }
    }
    let names: Vec<&str> = input
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    // The keys (in memory, what roles come from) are computed on every core; the roles are
    // asked and the rows written in order, on this thread.
    let stream = input.stream(&names).await?;
    let at = TextAt::of(stream.schema().as_ref(), &columns)?;
    let at = duplicates.needs_keys().then_some(at);
    let keyed = |_: &mut (), mut chunk: Chunk<RecordBatch>| -> Result<(RecordBatch, KeysByRow)> {
        let batch = chunk.records.pop().expect("one batch per chunk");
        let keys = KeysByRow::of(&batch, at, &maker)?;
        Ok((batch, keys))
    };
    let runtime = tokio::runtime::Handle::current();
    let mut ordinal = m;
    let write = |(batch, mut keys): (RecordBatch, KeysByRow)| -> Result<()> {
        let ids = ids(&batch, &input.what())?;
        if against.is_some() && duplicates.needs_keys() {
            // Not counted in pass 1, which read the other table's keys alone.
            summary.not_compared += keys.not_compared;
        }
        let mut duplicate_of = Int64Builder::with_capacity(batch.num_rows());
        for (row, &id) in ids.values().iter().enumerate() {
            let (repeats, repeated) = duplicates.input_row(ordinal, keys.of_row(row), id)?;
            duplicate_of.append_option(repeats);
            summary.duplicates += u64::from(repeats.is_some());
            summary.groups += u64::from(repeated);
            ordinal += 1;
        }
        let duplicate_of = duplicate_of.finish();
        let batch = if options.only_kept {
            let keep: BooleanArray = duplicate_of.iter().map(|d| Some(d.is_none())).collect();
            filter_record_batch(&batch, &keep)?
        } else {
            let mut columns = batch.columns().to_vec();
            columns.push(Arc::new(duplicate_of));
            RecordBatch::try_new(out_schema.clone(), columns)?
        };
        summary.written += batch.num_rows() as u64;
        runtime.block_on(writer.write(&batch))
    };
    tokio::task::block_in_place(|| {
        map_ordered_in_chunks(1, blocking(stream), options.threads, || (), keyed, write)
    })?;
    summary.groups += duplicates.against_repeated.len() as u64;
    writer.finish().await?;
    Ok(summary)
}

/// The groups of the keys on disk, as roles: exact keys' first rows, or near keys' components.
fn group(
    grouping: Grouping<u128>,
    maker: &KeyMaker,
    scratch: &std::sync::Arc<Scratch>,
    total: u64,
    m: u64,
    memory: usize,
) -> Result<Roles> {
    Ok(match maker.kind {
        KeyKind::Exact(_) => {
            let mut firsts = Firsts::new(scratch, total, maker.keys_per_row(), memory);
            grouping.for_each_group(|members| {
                // Against a table, only its rows are repeated.
                let in_input = members.partition_point(|&o| o < m);
                match (m, in_input) {
                    (0, _) => firsts.group(members),
                    (_, 0) => Ok(()),
                    _ => firsts.repeat(members[0], &members[in_input..]),
                }
            })?;
            Roles::Spilled(firsts.in_order())
        }
        KeyKind::Near { .. } => {
            let mut components = Components::new(total);
            grouping.for_each_group(|members| {
                components.join(members);
                Ok(())
            })?;
            Roles::Near(components)
        }
    })
}

/// The settings, for the output's footer.
fn describe(options: &Options) -> String {
    let side = format!("{:?}", options.side).to_lowercase();
    let against = options
        .against
        .as_ref()
        .map(|a| format!(" against {}", a.display()))
        .unwrap_or_default();
    match &options.method {
        Method::Exact { options } => format!("exact {side} options={options}{against}"),
        Method::Near {
            threshold,
            num_perm,
            seed,
            shingles,
        } => {
            let shingles = match shingles {
                Shingles::Words => "words".to_string(),
                Shingles::Chars(n) => format!("chars:{n}"),
            };
            format!(
                "near {threshold} {side} num_perm={num_perm} seed={seed} shingles={shingles}{against}"
            )
        }
    }
}
