//! `pairmetrics sacrebleu`: a drop-in for sacrebleu 2.6's command line on plain-text files
//! (`REF [REF ...] -i SYS [SYS ...] -m bleu chrf ter`), printing what it prints (JSON, text,
//! LaTeX; sentence scores; `--confidence`; `--paired-bs` and `--paired-ar` with its seed and
//! numpy's generator, so the p-values are its p-values). The numbers come from the kernels the
//! SQL functions use; the tests' arithmetic is sacrebleu's ([`sacrebleu_significance`]).
//! What it does not do: sacrebleu's test sets (`-t`, `-l`, downloads) and BLEU's tokenisers
//! that need MeCab or SentencePiece models.
//!
//! Where sacrebleu's JSON of a paired test crashes (numpy float32 values), this prints what its
//! code would print if they were serialisable: the float32 value as a Python float.

use std::fmt::Write as _;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::formats::tabulate::{self, Style};
use crate::parallel::{map_each, map_ordered_in_chunks};
use crate::sacrebleu::bleu::{BleuOptions, Smoothing, Tokenizer};
use crate::sacrebleu::chrf::ChrfOptions;
use crate::sacrebleu::corpus::{Py, SacreMetric, Scratch};
use crate::sacrebleu::paired::{
    Baseline, Stats, TestResult, bootstrap_indices, check_draws, estimate_ci, estimate_ci_exact,
    paired_bootstrap, paired_randomization, randomization_flips, resample_scores,
};
use crate::sacrebleu::ter::TerOptions;
use crate::text::python::fixed;
use crate::text::python::{json_float, json_string};
use crate::text::whitespace;

/// sacrebleu's `-f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Json,
    Text,
    Latex,
}

/// sacrebleu's BLEU arguments as given.
#[derive(Debug, Clone)]
pub struct BleuArgs {
    pub smooth_method: String,
    pub smooth_value: Option<f64>,
    pub tokenize: Option<String>,
    pub lowercase: bool,
}

/// The command line, in sacrebleu's terms.
#[derive(Debug, Clone)]
pub struct SacrebleuOptions {
    pub refs: Vec<PathBuf>,
    /// The systems' files; `None`: tab-separated systems on standard input.
    pub inputs: Option<Vec<PathBuf>>,
    pub num_refs: usize,
    /// `-m`, as given (lowercase names).
    pub metrics: Vec<String>,
    pub sentence_level: bool,
    pub bleu: BleuArgs,
    pub chrf: ChrfOptions,
    pub ter: TerOptions,
    pub confidence: bool,
    pub confidence_n: usize,
    pub paired_bs: bool,
    pub paired_ar: bool,
    pub paired_bs_n: i64,
    pub paired_ar_n: i64,
    pub short: bool,
    pub score_only: bool,
    pub width: usize,
    pub format: Format,
    /// `SACREBLEU_SEED` (sacrebleu's default: 12345).
    pub seed: String,
    pub threads: usize,
}

/// sacrebleu's seed: a number, or `none` (fresh entropy).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Seed {
    Fixed(u128),
    None,
}

impl Seed {
    fn parse(text: &str) -> Result<Seed> {
        if text.trim().eq_ignore_ascii_case("none") {
            return Ok(Seed::None);
        }
        let digits: String = text
            .trim()
            .trim_start_matches('+')
            .chars()
            .filter(|&c| c != '_')
            .collect();
        digits.parse::<u128>().map(Seed::Fixed).with_context(|| {
            format!("SACREBLEU_SEED={text:?}: expected a non-negative integer or 'none'")
        })
    }

    /// As signatures write it (`str(seed).lower()`).
    fn text(self) -> String {
        match self {
            Seed::Fixed(n) => n.to_string(),
            Seed::None => "none".to_string(),
        }
    }

    fn value(self) -> u128 {
        match self {
            Seed::Fixed(n) => n,
            Seed::None => {
                use std::hash::{BuildHasher, Hasher};
                let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
                hasher.write_u64(std::process::id().into());
                u128::from(hasher.finish())
            }
        }
    }
}

/// The lines of a file as sacrebleu reads them: split at `\n` only, each stripped of trailing
/// whitespace (Python's `str.rstrip()`). The file is opened as every input is (a local path or
/// a URL, gzip and zstd decompressed, recorded as an input).
fn read_lines(path: &Path) -> Result<Vec<String>> {
    let mut bytes = Vec::new();
    crate::formats::input::open(path)?
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    split_lines(&bytes, &path.display().to_string())
}

fn split_lines(bytes: &[u8], name: &str) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let text = std::str::from_utf8(line)
            .map_err(|e| anyhow::anyhow!("{name}, line {}: not UTF-8 ({e})", i + 1))?;
        lines.push(whitespace::rstrip(text).to_string());
    }
    Ok(lines)
}

/// The references: one stream per reference.
fn read_references(options: &SacrebleuOptions) -> Result<Vec<Vec<String>>> {
    if options.refs.is_empty() {
        bail!(
            "no references: give the reference files before -i/--input (sacrebleu's test sets, -t, are not available here)"
        );
    }
    if options.num_refs == 1 {
        return options.refs.iter().map(|path| read_lines(path)).collect();
    }
    if options.refs.len() > 1 {
        bail!(
            "--num-refs reads several tab-separated references from one file: give one reference file, not {}",
            options.refs.len()
        );
    }
    let mut streams = vec![Vec::new(); options.num_refs];
    for (i, line) in read_lines(&options.refs[0])?.into_iter().enumerate() {
        let fields: Vec<&str> = line.splitn(options.num_refs, '\t').collect();
        if fields.len() != options.num_refs {
            bail!(
                "{}, line {}: expected {} tab-separated references, found {}",
                options.refs[0].display(),
                i + 1,
                options.num_refs,
                fields.len()
            );
        }
        for (stream, field) in streams.iter_mut().zip(fields) {
            stream.push(field.to_string());
        }
    }
    Ok(streams)
}

/// The systems, named as sacrebleu names them.
fn read_systems(
    options: &SacrebleuOptions,
    stdin: &mut dyn BufRead,
    paired: bool,
) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let (mut names, mut systems) = (Vec::new(), Vec::new());
    match &options.inputs {
        Some(inputs) => {
            for path in inputs {
                let name = path.display().to_string();
                if names.contains(&name) {
                    if paired && names[0] == name {
                        continue;
                    }
                    bail!("{name:?} names two systems: give each system file once");
                }
                systems.push(read_lines(path)?);
                names.push(name);
            }
        }
        None => {
            let mut bytes = Vec::new();
            stdin
                .read_to_end(&mut bytes)
                .context("reading standard input")?;
            for (i, line) in split_lines(&bytes, "standard input")?
                .into_iter()
                .enumerate()
            {
                let fields: Vec<&str> = line.split('\t').collect();
                if i == 0 {
                    systems = vec![Vec::new(); fields.len()];
                } else if fields.len() != systems.len() {
                    bail!(
                        "standard input, line {}: {} tab-separated systems, but line 1 has {}",
                        i + 1,
                        fields.len(),
                        systems.len()
                    );
                }
                for (system, field) in systems.iter_mut().zip(fields) {
                    system.push(whitespace::rstrip(field).to_string());
                }
            }
            if systems.is_empty() {
                // Empty input is one system of no lines, as sacrebleu reads it, so that
                // `decoder | sacrebleu REF` fails when the decoder printed nothing.
                systems.push(Vec::new());
            }
            names = (1..=systems.len()).map(|i| format!("System {i}")).collect();
            if paired {
                names = std::iter::once("Baseline".to_string())
                    .chain((1..systems.len()).map(|i| format!("System {i}")))
                    .collect();
            }
        }
    }
    if paired && options.inputs.is_some() && !names.is_empty() {
        names[0] = format!("Baseline: {}", names[0]);
    }
    Ok((names, systems))
}

fn build_metric(name: &str, options: &SacrebleuOptions) -> Result<SacreMetric> {
    match name {
        "bleu" => {
            let args = &options.bleu;
            let tokenizer: Tokenizer = args
                .tokenize
                .as_deref()
                .unwrap_or("13a")
                .parse()
                .map_err(|e| anyhow::anyhow!("--tokenize: {e}"))?;
            let smoothing = Smoothing::new(&args.smooth_method, args.smooth_value)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let bleu = BleuOptions {
                tokenizer,
                lowercase: args.lowercase,
                smoothing,
                effective_order: options.sentence_level,
                ..BleuOptions::default()
            };
            Ok(SacreMetric::Bleu(bleu))
        }
        "chrf" => {
            let chrf = options.chrf;
            if chrf.char_order + chrf.word_order == 0
                || chrf.char_order > 16
                || chrf.word_order > 16
            {
                bail!(
                    "chrF orders {} (characters) and {} (words): each must be 0..=16, not both 0",
                    chrf.char_order,
                    chrf.word_order
                );
            }
            Ok(SacreMetric::Chrf(chrf))
        }
        "ter" => Ok(SacreMetric::Ter(options.ter)),
        other => bail!("unknown metric {other:?}: expected bleu, chrf or ter"),
    }
}

/// Every (system, metric) pair's segment statistics, computed on `threads` threads.
fn all_stats(
    metrics: &[SacreMetric],
    systems: &[Vec<String>],
    refs: &[Vec<String>],
    threads: usize,
) -> Result<Vec<Vec<Stats>>> {
    let jobs = (0..systems.len()).flat_map(|s| (0..metrics.len()).map(move |m| (s, m)));
    let mut out: Vec<Vec<Stats>> = vec![Vec::new(); systems.len()];
    // A job (a system's statistics for a metric) per chunk: each is a whole file's work.
    map_ordered_in_chunks(
        1,
        jobs.map(Ok::<_, anyhow::Error>),
        threads,
        || (Scratch::default(), Vec::new()),
        |(scratch, row_refs), chunk| {
            let mut done = Vec::new();
            for (s, m) in chunk.records {
                let metric = &metrics[m];
                let mut stats = Stats {
                    width: metric.stats_len(),
                    values: Vec::with_capacity(systems[s].len() * metric.stats_len()),
                };
                for (row, hyp) in systems[s].iter().enumerate() {
                    row_refs.clear();
                    row_refs.extend(refs.iter().map(|stream| stream[row].as_str()));
                    metric
                        .segment_stats(hyp, row_refs, scratch, &mut stats.values)
                        .map_err(|e| anyhow::anyhow!("line {}: {e}", row + 1))?;
                }
                done.push((s, stats));
            }
            Ok(done)
        },
        |done| {
            for (s, stats) in done {
                out[s].push(stats);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// `Score.format`: `NAME|SIGNATURE = SCORE (μ = MEAN ± CI) VERBOSE`, the score alone, or JSON.
struct ScoreLine<'a> {
    name: String,
    score: f64,
    signature: &'a str,
    confidence: Option<(Py, Py)>,
    verbose: Option<String>,
}

impl ScoreLine<'_> {
    fn format(&self, width: usize, score_only: bool, json: bool) -> String {
        let score = fixed(self.score, width);
        let mut shown = score.clone();
        let mut fields: Vec<(String, String)> = vec![
            ("name".into(), json_string(&self.name, false)),
            (
                "score".into(),
                json_float(score.parse().expect("a formatted float")),
            ),
            ("signature".into(), json_string(self.signature, false)),
        ];
        if let Some((mean, ci)) = self.confidence.filter(|(mean, _)| mean.value() > 0.0) {
            let (mean, ci) = (fixed(mean.value(), width), fixed(ci.value(), width));
            let text = format!("μ = {mean} ± {ci}");
            shown.push_str(&format!(" ({text})"));
            fields.push((
                "confidence_mean".into(),
                json_float(mean.parse().expect("a formatted float")),
            ));
            fields.push((
                "confidence_var".into(),
                json_float(ci.parse().expect("a formatted float")),
            ));
            fields.push(("confidence".into(), json_string(&text, false)));
        }
        let mut line = if self.signature.is_empty() {
            self.name.clone()
        } else {
            format!("{}|{}", self.name, self.signature)
        };
        line = format!("{line} = {shown}");
        if let Some(verbose) = &self.verbose {
            line.push_str(&format!(" {verbose}"));
            fields.push(("verbose_score".into(), json_string(verbose, false)));
        }
        if score_only {
            return shown;
        }
        if json {
            for item in self.signature.split('|') {
                let (key, value) = item.split_once(':').unwrap_or((item, ""));
                match fields.iter_mut().find(|(k, _)| k == key) {
                    Some(field) => field.1 = json_string(value, false),
                    None => fields.push((key.to_string(), json_string(value, false))),
                }
            }
            let body: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!(" {}: {v}", json_string(k, false)))
                .collect();
            return format!("{{\n{}\n}}", body.join(",\n"));
        }
        line
    }
}

/// The checked inputs of a run: the references, the systems with their names, the metrics.
struct Inputs {
    refs: Vec<Vec<String>>,
    names: Vec<String>,
    systems: Vec<Vec<String>>,
    metrics: Vec<SacreMetric>,
}

/// Run the command, writing what sacrebleu writes to standard output to `out`.
pub fn run(options: &SacrebleuOptions, stdin: &mut dyn BufRead, out: &mut dyn Write) -> Result<()> {
    let paired = options.paired_bs || options.paired_ar;
    let Inputs {
        refs,
        names,
        systems,
        mut metrics,
    } = read_inputs(options, stdin, paired)?;
    if options.sentence_level {
        return sentence_scores(options, &metrics[0], &systems[0], &refs, out);
    }
    // sacrebleu reports each system's metrics in name order, except in paired tests (-m order).
    if !paired {
        metrics.sort_by_key(|m| match m {
            SacreMetric::Bleu(_) => 0,
            SacreMetric::Chrf(_) => 1,
            SacreMetric::Ter(_) => 2,
        });
    }
    let stats = all_stats(&metrics, &systems, &refs, options.threads)?;
    let nrefs = refs.len();
    if systems.len() == 1 {
        return single_system(options, &metrics, &stats[0], nrefs, out);
    }
    let (columns, signatures) = match paired {
        false => scores_by_system(options, &metrics, &stats, nrefs),
        true => paired_tests(options, &metrics, &stats, nrefs)?,
    };
    print_results_table(&names, &columns, &signatures, options, out)
}

/// The references, systems and metrics, checked as sacrebleu checks them.
fn read_inputs(
    options: &SacrebleuOptions,
    stdin: &mut dyn BufRead,
    paired: bool,
) -> Result<Inputs> {
    if options.paired_bs && options.paired_ar {
        bail!("--paired-bs and --paired-ar exclude each other");
    }
    if options.sentence_level && options.metrics.len() > 1 {
        bail!("only one metric can be used in sentence-level mode");
    }
    let refs = read_references(options)?;
    let (names, systems) = read_systems(options, stdin, paired)?;
    if options.sentence_level && (systems.len() > 1 || options.confidence || paired) {
        bail!("sentence-level mode takes one system and no statistical test");
    }
    if paired && systems.len() < 2 {
        bail!("paired tests need several systems given to -i/--input");
    }
    if systems.len() > 1 && options.confidence {
        bail!("--confidence is for one system: use --paired-bs or --paired-ar for several");
    }
    for (name, system) in names.iter().zip(&systems) {
        for (path, stream) in options.refs.iter().cycle().zip(&refs) {
            if stream.len() != system.len() {
                bail!(
                    "system and reference streams have different lengths: {name} has {} lines, reference {} has {}",
                    system.len(),
                    path.display(),
                    stream.len()
                );
            }
        }
        if system.is_empty() {
            bail!("{name} has no lines");
        }
    }
    let mut names_seen = Vec::new();
    let mut metrics = Vec::new();
    for name in &options.metrics {
        if !names_seen.contains(name) {
            names_seen.push(name.clone());
            metrics.push(build_metric(name, options)?);
        }
    }
    Ok(Inputs {
        refs,
        names,
        systems,
        metrics,
    })
}

/// `--sentence-level`: a score line per segment.
fn sentence_scores(
    options: &SacrebleuOptions,
    metric: &SacreMetric,
    system: &[String],
    refs: &[Vec<String>],
    out: &mut dyn Write,
) -> Result<()> {
    let signature = metric.signature(refs.len(), &[], options.short);
    let (mut scratch, mut stats, mut row_refs) = (Scratch::default(), Vec::new(), Vec::new());
    for (row, hyp) in system.iter().enumerate() {
        row_refs.clear();
        row_refs.extend(refs.iter().map(|stream| stream[row].as_str()));
        stats.clear();
        metric
            .segment_stats(hyp, &row_refs, &mut scratch, &mut stats)
            .map_err(|e| anyhow::anyhow!("line {}: {e}", row + 1))?;
        let line = ScoreLine {
            name: metric.name(),
            score: metric.score(&stats),
            signature: &signature,
            confidence: None,
            verbose: metric.verbose(&stats),
        };
        writeln!(
            out,
            "{}",
            line.format(options.width, options.score_only, false)
        )?;
    }
    Ok(())
}

/// One system: a score line per metric, with its bootstrap interval under `--confidence`.
fn single_system(
    options: &SacrebleuOptions,
    metrics: &[SacreMetric],
    stats: &[Stats],
    nrefs: usize,
    out: &mut dyn Write,
) -> Result<()> {
    let json = options.format == Format::Json;
    let mut results = Vec::new();
    for (metric, stats) in metrics.iter().zip(stats) {
        let sums = stats.sums();
        let mut test = Vec::new();
        let mut confidence = None;
        if options.confidence && options.confidence_n > 1 {
            check_draws(stats.rows(), options.confidence_n as u64).map_err(anyhow::Error::msg)?;
            // Only the tests read the seed, as in sacrebleu.
            let seed = Seed::parse(&options.seed)?;
            let indices = bootstrap_indices(seed.value(), stats.rows(), options.confidence_n);
            confidence = Some(estimate_ci_exact(&resample_scores(metric, stats, &indices)));
            test = vec![
                ("bs", options.confidence_n.to_string()),
                ("seed", options.seed.to_lowercase()),
            ];
        }
        let signature = metric.signature(nrefs, &test, options.short && !json);
        let line = ScoreLine {
            name: metric.name(),
            score: metric.score(&sums),
            signature: &signature,
            confidence,
            verbose: metric.verbose(&sums),
        };
        results.push(line.format(options.width, options.score_only, json));
    }
    print_single_results(&results, json, out)
}

/// The columns of the systems' table and the metrics' signatures.
type Columns = (Vec<(String, Vec<Cell>)>, Vec<(String, String)>);

/// Several systems, no test: each metric's score per system.
fn scores_by_system(
    options: &SacrebleuOptions,
    metrics: &[SacreMetric],
    stats: &[Vec<Stats>],
    nrefs: usize,
) -> Columns {
    let mut columns = Vec::new();
    let mut signatures = Vec::new();
    for (m, metric) in metrics.iter().enumerate() {
        let cells = stats
            .iter()
            .map(|system| Cell::Text(fixed(metric.score(&system[m].sums()), options.width)))
            .collect();
        columns.push((metric.name(), cells));
        signatures.push((metric.name(), metric.signature(nrefs, &[], options.short)));
    }
    (columns, signatures)
}
/// Paired tests (`--paired-bs`, `--paired-ar`): the baseline's score and each other system's
/// test against it, per metric.
fn paired_tests(
    options: &SacrebleuOptions,
    metrics: &[SacreMetric],
    stats: &[Vec<Stats>],
    nrefs: usize,
) -> Result<Columns> {
    let mut columns = Vec::new();
    let mut signatures = Vec::new();
    let rows = stats[0][0].rows();
    let samples = match (options.paired_bs, options.paired_bs_n, options.paired_ar_n) {
        (true, n, _) if n > 0 => n as usize,
        (true, _, _) => 1000,
        (false, _, n) if n > 0 => n as usize,
        (false, _, _) => 10000,
    };
    check_draws(rows, samples as u64).map_err(anyhow::Error::msg)?;
    // The systems' tests draw from the seed unless it is 0 or none; the baseline's
    // interval from the seed as given.
    let seed = Seed::parse(&options.seed)?;
    let test_seed = match seed {
        Seed::Fixed(0) => Seed::None,
        other => other,
    };
    for (m, metric) in metrics.iter().enumerate() {
        let mut cells = Vec::new();
        let test_kind;
        if options.paired_bs {
            test_kind = "bs";
            let baseline_indices = bootstrap_indices(seed.value(), rows, samples);
            let indices = if test_seed == seed {
                baseline_indices.clone()
            } else {
                bootstrap_indices(test_seed.value(), rows, samples)
            };
            let baseline_stats = &stats[0][m];
            let baseline = Baseline::new(metric, baseline_stats, &baseline_indices);
            let (mean, ci) = estimate_ci(&baseline.resampled);
            cells.push(Cell::Result(TestResult {
                score: baseline.score,
                p_value: None,
                mean: Some(mean),
                ci: Some(ci),
            }));
            let tested_baseline = if test_seed == seed {
                baseline
            } else {
                Baseline::new(metric, baseline_stats, &indices)
            };
            let results = map_each(&stats[1..], options.threads, |system| {
                paired_bootstrap(metric, &tested_baseline, &system[m], &indices)
            });
            cells.extend(results.into_iter().map(Cell::Result));
        } else {
            test_kind = "ar";
            let flips = randomization_flips(test_seed.value(), rows, samples);
            cells.push(Cell::Result(TestResult {
                score: metric.score(&stats[0][m].sums()),
                p_value: None,
                mean: None,
                ci: None,
            }));
            let results = map_each(&stats[1..], options.threads, |system| {
                paired_randomization(metric, &stats[0][m], &system[m], &flips)
            });
            cells.extend(results.into_iter().map(Cell::Result));
        }
        columns.push((metric.name(), cells));
        let test = [(test_kind, samples.to_string()), ("seed", seed.text())];
        signatures.push((metric.name(), metric.signature(nrefs, &test, options.short)));
    }
    Ok((columns, signatures))
}

/// A table cell: a formatted score, or a test's figures.
enum Cell {
    Text(String),
    Result(TestResult),
}

/// `print_single_results`: JSON objects in a list, or text lines aligned at their `=`.
fn print_single_results(results: &[String], json: bool, out: &mut dyn Write) -> Result<()> {
    if json {
        match results {
            [one] => writeln!(out, "{one}")?,
            _ => writeln!(out, "[\n{}\n]", results.join(",\n"))?,
        }
        return Ok(());
    }
    if let [one] = results {
        writeln!(out, "{one}")?;
        return Ok(());
    }
    // Lines are aligned at the space before their '=' (sacrebleu counts characters).
    let left = |line: &str| {
        line.find('=')
            .map(|at| line[..at].chars().count().saturating_sub(1))
    };
    let width = results
        .iter()
        .filter_map(|line| left(line))
        .max()
        .unwrap_or(0);
    for line in results.iter().filter(|line| left(line).is_none()) {
        writeln!(out, "{line}")?;
    }
    for line in results {
        if let Some(chars) = left(line) {
            writeln!(out, "{}{line}", " ".repeat(width - chars))?;
        }
    }
    Ok(())
}

/// `print_results_table`: JSON, or the table, the paired test's explanation and the
/// signatures.
fn print_results_table(
    names: &[String],
    columns: &[(String, Vec<Cell>)],
    signatures: &[(String, String)],
    options: &SacrebleuOptions,
    out: &mut dyn Write,
) -> Result<()> {
    let width = options.width;
    if options.format == Format::Json {
        let mut systems = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let mut fields = vec![format!("        \"system\": {}", json_string(name, true))];
            for (metric, cells) in columns {
                let value = match &cells[i] {
                    Cell::Text(text) => json_string(text, true),
                    Cell::Result(result) => {
                        let optional = |x: Option<f64>| x.map_or("null".to_string(), json_float);
                        format!(
                            "{{\n            \"score\": {},\n            \"p_value\": {},\n            \"mean\": {},\n            \"ci\": {}\n        }}",
                            json_float(result.score),
                            optional(result.p_value),
                            optional(result.mean.map(Py::value)),
                            optional(result.ci.map(Py::value))
                        )
                    }
                };
                fields.push(format!("        {}: {value}", json_string(metric, true)));
            }
            systems.push(format!("    {{\n{}\n    }}", fields.join(",\n")));
        }
        writeln!(out, "[\n{}\n]", systems.join(",\n"))?;
        return Ok(());
    }
    let multiline = options.format == Format::Text;
    let mut is_bootstrap = false;
    let mut headers = vec!["System".to_string()];
    let mut table_columns = Vec::new();
    for (metric, cells) in columns {
        let mut texts = Vec::new();
        for cell in cells {
            texts.push(match cell {
                Cell::Text(text) => text.clone(),
                Cell::Result(result) => {
                    let mut text = fixed(result.score, width);
                    if let (Some(mean), Some(ci)) = (result.mean, result.ci) {
                        is_bootstrap = true;
                        let _ = write!(
                            text,
                            " ({} ± {})",
                            fixed(mean.value(), width),
                            fixed(ci.value(), width)
                        );
                    }
                    if let Some(p) = result.p_value {
                        text.push(if multiline { '\n' } else { ' ' });
                        let _ = write!(text, "(p = {})", fixed(p, 4));
                        if p <= 0.05 {
                            text.push('*');
                        }
                    }
                    text
                }
            });
        }
        headers.push(if is_bootstrap {
            format!("{metric} (μ ± 95% CI)")
        } else {
            metric.clone()
        });
        table_columns.push(texts);
    }
    let rows: Vec<Vec<String>> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            std::iter::once(name.clone())
                .chain(table_columns.iter().map(|c| c[i].clone()))
                .collect()
        })
        .collect();
    let style = if multiline {
        Style::FancyGrid
    } else {
        Style::LatexBooktabs
    };
    writeln!(out, "{}\n", tabulate::render(&headers, &rows, style))?;
    if options.paired_bs || options.paired_ar {
        let (kind, n, unit) = match options.paired_bs {
            true => (
                "bootstrap resampling",
                options.paired_bs_n,
                "resampling trials",
            ),
            false => ("approximate randomization", options.paired_ar_n, "trials"),
        };
        let message = format!("Paired {kind} test with {n} {unit}");
        let rule = "-".repeat(message.chars().count());
        writeln!(out, "{rule}\n{message}\n{rule}")?;
        writeln!(out, " - Each system is pairwise compared to {}.", names[0])?;
        match options.paired_bs {
            true => writeln!(
                out,
                "   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
            )?,
            false => writeln!(out, "   Actual system score is provided for each metric.")?,
        }
        out.write_all(PAIRED_EXPLANATION.as_bytes())?;
    }
    writeln!(
        out,
        "-----------------\nMetric signatures\n-----------------"
    )?;
    for (name, signature) in signatures {
        writeln!(out, " - {name:<10} {signature}")?;
    }
    Ok(())
}

const PAIRED_EXPLANATION: &str = "
 - Null hypothesis: the system and the baseline translations are essentially
   generated by the same underlying process. For a given system and the baseline,
   the p-value is roughly the probability of the absolute score difference (delta)
   or higher occurring due to chance, under the assumption that the null hypothesis is correct.

 - Assuming a significance threshold of 0.05, the null hypothesis can be rejected
   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be attributed
   to chance, hence the system is significantly \"different\" than the baseline.
   Otherwise, the p-values are highlighted in red.

 - NOTE: Significance does not tell whether a system is \"better\" than the baseline but rather
   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.

";
