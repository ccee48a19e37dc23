//! `pairmetrics opusfilter CONFIG.yaml`: a drop-in for OpusFilter 3.3.1's `opusfilter`, running
//! the steps of its YAML configuration with the filters of `clean::opusfilter` and writing the
//! files it writes.
//!
//! Supported: the steps `filter` (with `filterfalse` and `limit`), `score`, `remove_duplicates`,
//! `concatenate`,
//! `head`, `tail` and `slice`; the filters of [`FILTERS`] (read by `formats::opusfilter_config`); `common` (`output_directory`,
//! `chunksize`, `constants`), step `variables` and `constants` with `!var` and `!varstr`. Every
//! step is checked before the first runs: an unsupported step or filter is an error naming it,
//! and nothing is written.
//!
//! Files are read as Python reads text files (UTF-8; universal newlines: `\r\n` and `\r` end a
//! line as `\n` does) and `.gz`, `.bz2` and `.xz` by their extension; every output appears
//! whole when its step ends, or not at all.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde_yaml::Value as Yaml;

use crate::clean::json::Value;
use crate::clean::segment_hash::{Key, Method, SegmentHasher};
pub use crate::formats::opusfilter_config::FILTERS;
use crate::formats::opusfilter_config::{NamedFilter, expand, step_filters, substeps};
use crate::storage::Output;
use crate::text::whitespace;

/// The steps it runs.
pub const STEPS: &[&str] = &[
    "filter",
    "score",
    "remove_duplicates",
    "concatenate",
    "head",
    "tail",
    "slice",
];

#[derive(Debug, Clone)]
pub struct Options {
    pub config: PathBuf,
    pub overwrite: bool,
    /// Run steps 1..=last only.
    pub last: Option<usize>,
    /// Run only this step (1-based; negative from the end).
    pub single: Option<i64>,
}

/// One step with its parameters expanded (one per substep when it has variables).
struct Step {
    number: usize,
    kind: String,
    parameters: serde_yaml::Mapping,
    /// A `filter` or `score` step's filters, parsed (and their models loaded) once, by the
    /// check before any step runs.
    filters: Vec<NamedFilter>,
}

/// Run the configuration's steps, as `opusfilter CONFIG` does; warnings go to `log`.
pub fn run(options: &Options, log: &mut dyn Write) -> Result<()> {
    let text = std::fs::read_to_string(&options.config)
        .with_context(|| format!("reading {}", options.config.display()))?;
    let config: Yaml = serde_yaml::from_str(&text)
        .with_context(|| format!("{}: not a YAML configuration", options.config.display()))?;
    let where_ = |what: &str| format!("{}: {what}", options.config.display());
    let common = config.get("common").cloned().unwrap_or(Yaml::Null);
    let output_dir = match common.get("output_directory") {
        Some(Yaml::String(dir)) => PathBuf::from(dir),
        Some(Yaml::Null) | None => {
            writeln!(
                log,
                "warning: output directory not specified; writing files to the current directory"
            )?;
            PathBuf::from(".")
        }
        Some(other) => bail!(where_(&format!(
            "common.output_directory must be a path, not {other:?}"
        ))),
    };
    let chunksize = match common.get("chunksize") {
        None => 100_000,
        Some(v) => v
            .as_u64()
            .filter(|&n| n > 0)
            .ok_or_else(|| anyhow!(where_("common.chunksize must be a positive integer")))?
            as usize,
    };
    let constants = match common.get("constants") {
        Some(Yaml::Mapping(m)) => m.clone(),
        None | Some(Yaml::Null) => serde_yaml::Mapping::new(),
        Some(_) => bail!(where_("common.constants must be a mapping")),
    };
    let steps = config
        .get("steps")
        .and_then(Yaml::as_sequence)
        .ok_or_else(|| anyhow!(where_("no `steps` list")))?;
    let chosen: Vec<usize> = match (options.single, options.last) {
        (Some(n), _) => {
            let count = steps.len() as i64;
            let index = if n < 0 { count + n } else { n - 1 };
            if !(0..count).contains(&index) {
                bail!("--single {n}: the configuration has {count} steps");
            }
            vec![index as usize]
        }
        (None, Some(last)) => (0..steps.len().min(last)).collect(),
        (None, None) => (0..steps.len()).collect(),
    };
    // Expand and check every step before running any.
    let mut planned = Vec::new();
    for &index in &chosen {
        let step = &steps[index];
        let number = index + 1;
        let at = |what: &str| where_(&format!("step {number}: {what}"));
        let kind = step
            .get("type")
            .and_then(Yaml::as_str)
            .ok_or_else(|| anyhow!(at("no `type`")))?
            .to_string();
        if !STEPS.contains(&kind.as_str()) {
            bail!(at(&format!(
                "step type `{kind}` is not supported by pairmetrics opusfilter (it runs {}); \
                 nothing was written",
                STEPS.join(", ")
            )));
        }
        let parameters = step
            .get("parameters")
            .cloned()
            .ok_or_else(|| anyhow!(at("no `parameters`")))?;
        let mut namespace = constants.clone();
        if let Some(Yaml::Mapping(m)) = step.get("constants") {
            namespace.extend(m.clone());
        }
        for namespace in substeps(step, namespace).map_err(|e| anyhow!(at(&e)))? {
            let parameters = expand(&parameters, &namespace).map_err(|e| anyhow!(at(&e)))?;
            let Yaml::Mapping(parameters) = parameters else {
                bail!(at("`parameters` must be a mapping"));
            };
            let mut step = Step {
                number,
                kind: kind.clone(),
                parameters,
                filters: Vec::new(),
            };
            step.filters =
                check(&step, &output_dir, log).map_err(|e| anyhow!(at(&format!("{e:#}"))))?;
            planned.push(step);
        }
    }
    if !output_dir.is_dir() {
        writeln!(
            log,
            "warning: directory {} does not exist; it will be created",
            output_dir.display()
        )?;
        std::fs::create_dir(&output_dir)
            .with_context(|| format!("creating {}", output_dir.display()))?;
    }
    let context = StepContext {
        dir: output_dir,
        chunksize,
        overwrite: options.overwrite,
    };
    for step in &planned {
        writeln!(log, "running step {}: {}", step.number, step.kind)?;
        run_step(step, &context, log)
            .with_context(|| format!("step {} ({})", step.number, step.kind))?;
    }
    Ok(())
}

struct StepContext {
    dir: PathBuf,
    chunksize: usize,
    overwrite: bool,
}

/// Which parameters each step takes (others are an error, as OpusFilter's are).
fn known_parameters(kind: &str) -> &'static [&'static str] {
    match kind {
        "filter" => &[
            "inputs",
            "outputs",
            "filters",
            "filterfalse",
            "limit",
            "n_jobs",
        ],
        "score" => &["inputs", "output", "filters", "n_jobs"],
        "concatenate" => &["inputs", "output"],
        "head" | "tail" => &["inputs", "outputs", "n"],
        "slice" => &["inputs", "outputs", "start", "stop", "step"],
        "remove_duplicates" => &[
            "inputs",
            "outputs",
            "compare",
            "hash",
            "letters_only",
            "letter_words_only",
            "lowercase",
            "tokenizers",
            "overlap",
        ],
        _ => &[],
    }
}

/// Check a step's parameters before anything runs; a `filter` or `score` step's filters.
fn check(step: &Step, workdir: &Path, log: &mut dyn Write) -> Result<Vec<NamedFilter>> {
    let known = known_parameters(&step.kind);
    let unknown: Vec<String> = step
        .parameters
        .keys()
        .filter_map(|k| k.as_str())
        .filter(|k| !known.contains(k))
        .map(str::to_string)
        .collect();
    if !unknown.is_empty() {
        bail!("unknown parameter keys: {}", unknown.join(", "));
    }
    let inputs = files(&step.parameters, "inputs")?;
    if step.parameters.contains_key("outputs")
        && files(&step.parameters, "outputs")?.len() != inputs.len()
    {
        bail!("the numbers of input and output files differ");
    }
    match step.kind.as_str() {
        "score" | "concatenate" => {
            if !step.parameters.get("output").is_some_and(Yaml::is_string) {
                bail!("`output` (a file name) is required");
            }
        }
        _ => {
            files(&step.parameters, "outputs")?;
        }
    }
    let filters = match step.kind.as_str() {
        "filter" | "score" => step_filters(&step.parameters, inputs.len(), workdir, log)?,
        _ => Vec::new(),
    };
    match step.kind.as_str() {
        "head" | "tail" => {
            integer(&step.parameters, "n")?.ok_or_else(|| anyhow!("`n` is required"))?;
        }
        "slice" => {
            for key in ["start", "stop", "step"] {
                integer(&step.parameters, key)?;
            }
        }
        "filter" => {
            integer(&step.parameters, "limit")?;
        }
        "remove_duplicates" => {
            hasher(&step.parameters)?;
            if step.parameters.contains_key("overlap") {
                files(&step.parameters, "overlap")?;
            }
        }
        _ => {}
    }
    Ok(filters)
}

/// remove_duplicates' `SegmentHasher`.
fn hasher(p: &serde_yaml::Mapping) -> Result<SegmentHasher> {
    if p.get("tokenizers").is_some_and(|t| !t.is_null()) {
        bail!(
            "remove_duplicates: `tokenizers` (Moses, jieba, MeCab) are not supported by pairmetrics opusfilter"
        );
    }
    let compare = match p.get("compare") {
        None => None,
        Some(Yaml::String(all)) if all == "all" => None,
        Some(Yaml::Sequence(indices)) => {
            let mut indices = indices
                .iter()
                .map(|i| i.as_u64().map(|i| i as usize))
                .collect::<Option<Vec<usize>>>()
                .ok_or_else(|| anyhow!("The compare parameter for hashing has to be 'all' or a list of input file indices"))?;
            indices.sort_unstable();
            Some(indices)
        }
        Some(_) => bail!(
            "The compare parameter for hashing has to be 'all' or a list of input file indices"
        ),
    };
    let method = match p.get("hash") {
        None => Method::Xxh64,
        Some(Yaml::Null) => Method::None,
        Some(Yaml::String(name)) if name.is_empty() => Method::None,
        Some(Yaml::String(name)) => Method::parse(Some(name)).map_err(|e| anyhow!(e))?,
        Some(other) => bail!("`hash` must be the name of an xxhash function, not {other:?}"),
    };
    let flag = |key: &str| -> Result<bool> {
        p.get(key).map_or(Ok(false), |v| {
            v.as_bool()
                .ok_or_else(|| anyhow!("`{key}` must be true or false"))
        })
    };
    Ok(SegmentHasher {
        compare,
        method,
        lowercase: flag("lowercase")?,
        letters_only: flag("letters_only")?,
        letter_words_only: flag("letter_words_only")?,
    })
}

/// The lines of parallel files, a line of each at a time (with their ends), until the first
/// file ends (`zip(*files)`).
fn parallel_lines(files: &[PathBuf]) -> Result<impl FnMut() -> Result<Option<Vec<String>>>> {
    let mut readers = files
        .iter()
        .map(|f| Lines::open(f))
        .collect::<Result<Vec<_>>>()?;
    Ok(move || {
        let mut lines = Vec::with_capacity(readers.len());
        for reader in &mut readers {
            match reader.next_line()? {
                Some(line) => lines.push(line),
                None => return Ok(None),
            }
        }
        Ok(Some(lines))
    })
}

fn files(parameters: &serde_yaml::Mapping, key: &str) -> Result<Vec<String>> {
    let value = parameters
        .get(key)
        .ok_or_else(|| anyhow!("`{key}` is required"))?;
    let list = value
        .as_sequence()
        .ok_or_else(|| anyhow!("`{key}` must be a list of file names"))?;
    list.iter()
        .map(|f| {
            f.as_str()
                .map(str::to_string)
                .ok_or_else(|| anyhow!("`{key}`: {f:?} is not a file name"))
        })
        .collect()
}

fn integer(parameters: &serde_yaml::Mapping, key: &str) -> Result<Option<i64>> {
    match parameters.get(key) {
        None | Some(Yaml::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| anyhow!("`{key}` must be an integer, not {v:?}")),
    }
}

fn run_step(step: &Step, context: &StepContext, log: &mut dyn Write) -> Result<()> {
    let p = &step.parameters;
    let path = |name: &String| context.dir.join(name);
    let inputs: Vec<PathBuf> = files(p, "inputs")?.iter().map(path).collect();
    let outputs: Vec<PathBuf> = match step.kind.as_str() {
        "score" | "concatenate" => vec![path(
            &p.get("output")
                .and_then(Yaml::as_str)
                .ok_or_else(|| anyhow!("`output` is required"))?
                .to_string(),
        )],
        _ => files(p, "outputs")?.iter().map(path).collect(),
    };
    if !context.overwrite && outputs.iter().all(|o| o.is_file()) {
        writeln!(log, "output files exist, skipping step {}", step.number)?;
        return Ok(());
    }
    let mut writers = outputs
        .iter()
        .map(|o| Writer::create(o))
        .collect::<Result<Vec<_>>>()?;
    match step.kind.as_str() {
        "filter" | "score" => filter_or_score(step, context, &inputs, &mut writers, log)?,
        "remove_duplicates" => remove_duplicates(p, &inputs, &mut writers, log)?,
        "concatenate" => concatenate(&inputs, &mut writers[0])?,
        kind => line_step(kind, p, &inputs, &mut writers)?,
    }
    for writer in writers {
        writer.commit()?;
    }
    Ok(())
}

/// `filter` (with `filterfalse` and `limit`) and `score`: the pairs read in chunks, each chunk
/// scored on every core and written in order.
fn filter_or_score(
    step: &Step,
    context: &StepContext,
    inputs: &[PathBuf],
    writers: &mut [Writer],
    log: &mut dyn Write,
) -> Result<()> {
    let p = &step.parameters;
    let filters = &step.filters;
    let mut readers = inputs
        .iter()
        .map(|i| Lines::open(i))
        .collect::<Result<Vec<_>>>()?;
    let mut pairs = Pairs {
        readers: &mut readers,
        longer: Vec::new(),
        ended: false,
    };
    if step.kind == "score" {
        score_pairs(filters, &mut pairs, &mut writers[0])?;
        return pairs.warn_if_longer(log);
    }
    let limit = integer(p, "limit")?.filter(|&l| l > 0).map(|l| l as usize);
    let filterfalse = p
        .get("filterfalse")
        .and_then(Yaml::as_bool)
        .unwrap_or(false);
    let mut written = 0usize;
    let mut chunk: Vec<Vec<String>> = Vec::new();
    loop {
        let pair = pairs.next().transpose()?;
        let done = pair.is_none();
        chunk.extend(pair);
        if chunk.len() == context.chunksize || (done && !chunk.is_empty()) {
            let batch = std::mem::take(&mut chunk);
            // Each pair's first rejecting filter (None: every filter accepts it).
            let rejected_by = on_cores(&batch, |pair| {
                for (k, NamedFilter { filter, .. }) in filters.iter().enumerate() {
                    let score = filter.score(&segments(pair)).map_err(|e| anyhow!(e))?;
                    if !filter.accept(&score) {
                        return Ok(Some(k));
                    }
                }
                Ok(None)
            })?;
            // filter: the accepted pairs in order; filterfalse: each filter's rejects in
            // turn, over what the filters before it kept (OpusFilter's order within a chunk).
            let order: Vec<usize> = match filterfalse {
                false => (0..batch.len())
                    .filter(|&i| rejected_by[i].is_none())
                    .collect(),
                true => {
                    let rejected_by = &rejected_by;
                    (0..filters.len())
                        .flat_map(|k| (0..batch.len()).filter(move |&i| rejected_by[i] == Some(k)))
                        .collect()
                }
            };
            for i in order {
                if limit.is_some_and(|l| written >= l) {
                    break;
                }
                for (w, item) in writers.iter_mut().zip(&batch[i]) {
                    w.write_line(item)?;
                }
                written += 1;
            }
            if limit.is_some_and(|l| written >= l) {
                break;
            }
        }
        if done {
            break;
        }
    }
    pairs.warn_if_longer(log)
}

/// OpusFilter's `pair_generator`: a line of every file, each rstripped; the shortest file ends
/// it (the longer ones are named in a warning).
struct Pairs<'a> {
    readers: &'a mut [Lines],
    /// The files that had lines left when another ended.
    longer: Vec<String>,
    ended: bool,
}

impl Iterator for Pairs<'_> {
    type Item = Result<Vec<String>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        let mut pair = Vec::with_capacity(self.readers.len());
        for reader in self.readers.iter_mut() {
            match reader.next_line() {
                Ok(Some(line)) => pair.push(whitespace::rstrip(&line).to_string()),
                Ok(None) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        if pair.len() == self.readers.len() {
            return Some(Ok(pair));
        }
        // The files before the one that ended gave a line; those after it are read once more.
        self.ended = true;
        let (before, after) = self.readers.split_at_mut(pair.len());
        let after = (after.iter_mut().skip(1))
            .filter_map(|r| matches!(r.next_line(), Ok(Some(_))).then_some(&*r));
        self.longer = (before.iter().chain(after))
            .map(|r| r.file.display().to_string())
            .collect();
        None
    }
}

impl Pairs<'_> {
    fn warn_if_longer(&self, log: &mut dyn Write) -> Result<()> {
        if !self.longer.is_empty() {
            writeln!(
                log,
                "warning: the inputs have different numbers of lines; stopped at the \
                 shortest, as OpusFilter does (longer: {})",
                self.longer.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The `score` step: a score line per pair, computed on every core while the pairs are read
/// and the lines written, in input order (chunks of OpusFilter's `chunksize` change nothing
/// in its score file).
fn score_pairs(filters: &[NamedFilter], pairs: &mut Pairs, writer: &mut Writer) -> Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    crate::parallel::map_ordered(
        pairs,
        threads,
        || (),
        |(), chunk| {
            (chunk.records.iter())
                .map(|pair| {
                    let mut object = BTreeMap::new();
                    for NamedFilter { names, filter } in filters {
                        let score = filter.score(&segments(pair)).map_err(|e| anyhow!(e))?;
                        insert(&mut object, names, score);
                    }
                    Ok(Value::Object(object).dumps())
                })
                .collect::<Result<Vec<String>>>()
        },
        |lines| {
            for line in lines {
                writer.write_line(&line)?;
            }
            Ok(())
        },
    )
}

/// `remove_duplicates`: the first of each key kept, or with `overlap` the lines whose key is in
/// no overlap file.
fn remove_duplicates(
    p: &serde_yaml::Mapping,
    inputs: &[PathBuf],
    writers: &mut [Writer],
    log: &mut dyn Write,
) -> Result<()> {
    let hasher = hasher(p)?;
    let key = |lines: &[String]| -> Result<Key> {
        let segments: Vec<&str> = lines.iter().map(String::as_str).collect();
        hasher.key(&segments).map_err(|e| anyhow!(e))
    };
    let overlap: Option<std::collections::HashSet<Key>> = match p.get("overlap") {
        None | Some(Yaml::Null) => None,
        Some(_) => {
            // As OpusFilter reads them: relative to the working directory, not to
            // output_directory.
            let others: Vec<PathBuf> = files(p, "overlap")?.iter().map(PathBuf::from).collect();
            let mut next = parallel_lines(&others)?;
            let mut keys = std::collections::HashSet::new();
            while let Some(lines) = next()? {
                keys.insert(key(&lines)?);
            }
            Some(keys)
        }
    };
    let mut seen = std::collections::HashSet::new();
    let (mut total, mut removed) = (0u64, 0u64);
    let mut next = parallel_lines(&inputs)?;
    while let Some(lines) = next()? {
        total += 1;
        let k = key(&lines)?;
        let duplicate = match &overlap {
            Some(keys) => keys.contains(&k),
            None => !seen.insert(k),
        };
        if duplicate {
            removed += 1;
            continue;
        }
        for (writer, line) in writers.iter_mut().zip(&lines) {
            writer.write_raw(line)?;
        }
    }
    writeln!(
        log,
        "removed {removed} / {total} = {:.2}% duplicate lines",
        if total > 0 {
            100.0 * removed as f64 / total as f64
        } else {
            0.0
        }
    )?;
    Ok(())
}

/// `concatenate`: the inputs' lines, rstripped, one after the other.
fn concatenate(inputs: &[PathBuf], writer: &mut Writer) -> Result<()> {
    for input in inputs {
        let mut lines = Lines::open(input)?;
        while let Some(line) = lines.next_line()? {
            writer.write_line(whitespace::rstrip(&line))?;
        }
    }
    Ok(())
}

/// `head`, `tail` and `slice`, file by file.
fn line_step(
    kind: &str,
    p: &serde_yaml::Mapping,
    inputs: &[PathBuf],
    writers: &mut [Writer],
) -> Result<()> {
    let n = integer(p, "n")?.unwrap_or(0);
    for (input, writer) in inputs.iter().zip(writers.iter_mut()) {
        let mut lines = Lines::open(input)?;
        match kind {
            "head" => {
                for _ in 0..n.max(0) {
                    let Some(line) = lines.next_line()? else {
                        break;
                    };
                    writer.write_raw(&line)?;
                }
            }
            "tail" => {
                let mut last = std::collections::VecDeque::new();
                while let Some(line) = lines.next_line()? {
                    last.push_back(line);
                    if last.len() as i64 > n {
                        last.pop_front();
                    }
                }
                for line in last {
                    writer.write_raw(&line)?;
                }
            }
            _ => {
                // itertools.islice(inf, start, stop, step)
                let start = integer(p, "start")?.unwrap_or(0);
                let stop = integer(p, "stop")?;
                let every = integer(p, "step")?.unwrap_or(1);
                if start < 0 || stop.is_some_and(|s| s < 0) || every < 1 {
                    bail!(
                        "slice: start and stop must be non-negative and step positive (itertools.islice)"
                    );
                }
                let mut index = 0i64;
                while let Some(line) = lines.next_line()? {
                    if stop.is_some_and(|s| index >= s) {
                        break;
                    }
                    if index >= start && (index - start) % every == 0 {
                        writer.write_raw(&line)?;
                    }
                    index += 1;
                }
            }
        }
    }
    Ok(())
}

/// `f` of every pair, in order, computed on every core.
fn on_cores<R: Send>(
    batch: &[Vec<String>],
    f: impl Fn(&[String]) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = batch.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(per_thread)
            .map(|part| scope.spawn(|| part.iter().map(|pair| f(pair)).collect::<Result<Vec<R>>>()))
            .collect();
        let mut all = Vec::with_capacity(batch.len());
        for handle in handles {
            all.extend(handle.join().expect("a filter thread panicked")?);
        }
        Ok(all)
    })
}

fn segments(pair: &[String]) -> Vec<&str> {
    pair.iter().map(String::as_str).collect()
}

/// `_update_score_dict`: a score under its names, nested.
fn insert(object: &mut BTreeMap<String, Value>, names: &[String], score: Value) {
    match names {
        [last] => {
            object.insert(last.clone(), score);
        }
        [first, rest @ ..] => {
            let entry = object
                .entry(first.clone())
                .or_insert_with(|| Value::Object(BTreeMap::new()));
            if let Value::Object(inner) = entry {
                insert(inner, rest, score);
            }
        }
        [] => {}
    }
}

/// A text file read as Python reads it in text mode: UTF-8, universal newlines; compressed by
/// its extension.
struct Lines {
    reader: Box<dyn BufRead + Send>,
    file: PathBuf,
    line: u64,
    /// A `\r` ended the last line: a `\n` right after it belongs to it.
    after_cr: bool,
}

impl Lines {
    fn open(file: &Path) -> Result<Lines> {
        let raw =
            std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?;
        crate::storage::note_input(file);
        let name = file.to_string_lossy();
        let reader: Box<dyn Read + Send> = if name.ends_with(".gz") {
            Box::new(flate2::read::MultiGzDecoder::new(raw))
        } else if name.ends_with(".bz2") {
            Box::new(bzip2::read::MultiBzDecoder::new(raw))
        } else if name.ends_with(".xz") {
            Box::new(liblzma::read::XzDecoder::new_multi_decoder(raw))
        } else {
            Box::new(raw)
        };
        Ok(Lines {
            reader: Box::new(BufReader::with_capacity(1 << 16, reader)),
            file: file.to_path_buf(),
            line: 0,
            after_cr: false,
        })
    }

    /// The next line with its end as `\n` (none on a last line without one).
    fn next_line(&mut self) -> Result<Option<String>> {
        let mut bytes = Vec::new();
        loop {
            let buffer = self
                .reader
                .fill_buf()
                .with_context(|| format!("reading {}", self.file.display()))?;
            if buffer.is_empty() {
                break;
            }
            if self.after_cr {
                self.after_cr = false;
                if buffer[0] == b'\n' {
                    self.reader.consume(1);
                    continue;
                }
            }
            match buffer.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    let cr = buffer[end] == b'\r';
                    bytes.extend_from_slice(&buffer[..end]);
                    bytes.push(b'\n');
                    self.reader.consume(end + 1);
                    self.after_cr = cr;
                    break;
                }
                None => {
                    let n = buffer.len();
                    bytes.extend_from_slice(buffer);
                    self.reader.consume(n);
                }
            }
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        String::from_utf8(bytes).map(Some).map_err(|e| {
            anyhow!(
                "{}:{}: not UTF-8 (byte {} of the line); OpusFilter reads its files as UTF-8",
                self.file.display(),
                self.line,
                e.utf8_error().valid_up_to() + 1
            )
        })
    }
}

/// An output file, compressed by its extension, appearing whole on commit.
struct Writer {
    sink: Box<dyn Finish>,
}

trait Finish: Write {
    fn finish(self: Box<Self>) -> Result<()>;
}

impl Finish for Output {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).commit()
    }
}

impl Finish for flate2::write::GzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Finish for bzip2::write::BzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Finish for liblzma::write::XzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Writer {
    fn create(file: &Path) -> Result<Writer> {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let output = Output::create(file)?;
        let name = file.to_string_lossy();
        let sink: Box<dyn Finish> = if name.ends_with(".gz") {
            Box::new(flate2::write::GzEncoder::new(
                output,
                flate2::Compression::new(9),
            ))
        } else if name.ends_with(".bz2") {
            Box::new(bzip2::write::BzEncoder::new(
                output,
                bzip2::Compression::new(9),
            ))
        } else if name.ends_with(".xz") {
            Box::new(liblzma::write::XzEncoder::new(output, 6))
        } else {
            Box::new(output)
        };
        Ok(Writer { sink })
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        self.sink.write_all(line.as_bytes())?;
        self.sink.write_all(b"\n")?;
        Ok(())
    }

    fn write_raw(&mut self, line: &str) -> Result<()> {
        self.sink.write_all(line.as_bytes())?;
        Ok(())
    }

    fn commit(self) -> Result<()> {
        self.sink.finish()
    }
}
