//! `pairmetrics l2-assist` and `pairmetrics tune`: the IUCL system for SemEval-2014 Task 5 end
//! to end. A task file's fragments get candidates, each candidate its features in its sentence
//! (`metrics::l2_assist`); a log-linear model ranks them (`metrics::mert::loglinear`), with
//! weights that `tune` trains by MERT on a dev set's word accuracy; the best candidates (and,
//! out of five, the next four) are written as a run file for the official scorer.
//!
//! Task files are small (hundreds of sentences), so a file's candidates are held in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int32Builder, Int64Array, ListBuilder, RecordBatch,
    StringArray, StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema};
use datafusion::common::ScalarValue;
use datafusion::functions::core::expr_fn::coalesce;
use datafusion::logical_expr::{Expr, cast, ident, lit};
use futures::TryStreamExt;

use crate::arrow::read::TokenLists;
use crate::formats::conllu::Sentences;
use crate::formats::input::{self, Lines};
use crate::formats::semeval2014t5::{
    self as task, Answer, Fragment, FragmentRow, TaskFile, fragment_score,
};
use crate::lm::ngram;
use crate::pair::dep_fit::Formula;
use crate::pair::word_accuracy::Rules;
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::resources::{self, ResourceOptions};
use crate::schema::{head_list_type, token_list_type};
use crate::session;
use crate::smt::l2_assist::{
    Arcs, Candidate, Dictionary, FEATURE_NAMES, Features, Origin, Scorers, candidates, features,
    project, splice,
};
use crate::smt::mert::{self, CandidateList, MertOptions};
use crate::smt::synthetic::Limits;
use crate::udf::expr;

/// What candidates are made and scored with.
#[derive(Debug, Clone)]
pub struct AssistOptions {
    /// The task file (test data, or a trial or gold file with references).
    pub input: PathBuf,
    /// The phrase table, the LM and the triples (its aligner is not used).
    pub resources: ResourceOptions,
    /// A bilingual dictionary (src, tgt [, p]) for fragments the phrase table cannot translate.
    pub dictionary: Option<PathBuf>,
    /// CoNLL-U parses of the input sentences (for projection) and of spliced sentences.
    pub parses: Option<PathBuf>,
    /// Candidates per fragment and splits tried for synthetic phrases, at most.
    pub limits: Limits,
    /// The fitness formula (the paper's, or the IUCL code's).
    pub formula: Formula,
}

pub const DEFAULT_MAX_CANDIDATES: usize = 20;

/// Where a candidate's parse came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseSource {
    /// A parse of exactly its spliced sentence was given.
    Parsed,
    /// Projected from the input sentence's parse.
    Projected,
}

/// One candidate in its sentence.
#[derive(Debug, Clone)]
pub struct Scored {
    pub candidate: Candidate,
    pub sentence: Vec<String>,
    /// The candidate's tokens in `sentence`.
    pub span: (usize, usize),
    /// The sentence's parse and where it came from.
    pub parse: Option<(ParseSource, Arcs)>,
    pub features: Features,
    /// Its word accuracy against the reference (the official rules, best, case-sensitive);
    /// None without a reference.
    pub word_accuracy: Option<f64>,
}

/// A fragment and its candidates, in generation order.
#[derive(Debug, Clone)]
pub struct FragmentCandidates {
    pub row: FragmentRow,
    pub candidates: Vec<Scored>,
}

/// What was generated, for the user.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub fragments: Vec<FragmentCandidates>,
    /// What was loaded, a line each.
    pub loaded: Vec<String>,
    /// Candidates by origin (table, synthetic, dictionary, synthetic+dictionary, copy).
    pub origins: Vec<(&'static str, usize)>,
    /// Candidates by parse: given, projected, none.
    pub parses: [usize; 3],
}

/// Make and score every fragment's candidates.
pub async fn generate(options: &AssistOptions) -> Result<Generated> {
    let file = task::read(&options.input)?;
    let (resources, mut loaded) = resources::load(&options.resources).await?;
    let dictionary = match &options.dictionary {
        Some(path) => {
            let dictionary = load_dictionary(path).await?;
            loaded.push(format!(
                "dictionary {}: {} source phrases",
                path.display(),
                dictionary.len()
            ));
            Some(dictionary)
        }
        None => None,
    };
    let parses = match &options.parses {
        Some(path) => {
            let parses = load_parses(path)?;
            loaded.push(format!(
                "parses {}: {} sentences",
                path.display(),
                parses.len()
            ));
            parses
        }
        None => HashMap::new(),
    };
    let scorers = Scorers {
        lm: resources.lm.get(),
        triples: resources.triples.get(),
        formula: options.formula,
    };
    let spanish = file.l2.as_deref() == Some("es");
    let mut generated = Generated {
        loaded,
        ..Generated::default()
    };
    let mut origins: HashMap<&'static str, usize> = HashMap::new();
    let mut scratch = ngram::Scratch::default();
    for row in task::fragment_rows(&file) {
        let input: Vec<&str> = row.place.input.iter().map(String::as_str).collect();
        let fragment = &input[row.place.span.0..row.place.span.1];
        let context = parses.get(&row.place.input);
        let mut scored = Vec::new();
        for candidate in candidates(
            fragment,
            resources.phrase_index.get(),
            dictionary.as_ref(),
            options.limits,
        ) {
            let words: Vec<&str> = candidate.tokens.iter().map(String::as_str).collect();
            let sentence: Vec<String> = splice(&input, row.place.span, &words)
                .into_iter()
                .map(str::to_string)
                .collect();
            let span = (row.place.span.0, row.place.span.0 + words.len());
            let parse = match parses.get(&sentence) {
                Some(arcs) => Some((ParseSource::Parsed, arcs.clone())),
                None => context
                    .and_then(|c| project(c, row.place.span, words.len()))
                    .map(|arcs| (ParseSource::Projected, arcs)),
            };
            let sentence_words: Vec<&str> = sentence.iter().map(String::as_str).collect();
            let arcs = parse.as_ref().map(|(_, arcs)| arcs);
            let features = features(
                &scorers,
                &sentence_words,
                span,
                &candidate,
                arcs,
                &mut scratch,
            );
            let word_accuracy = row
                .reference_fragment
                .as_ref()
                .filter(|r| r.value.is_some())
                .map(|reference| {
                    let answer = Fragment {
                        id: None,
                        value: Some(candidate.tokens.clone()),
                        alternatives: Vec::new(),
                    };
                    fragment_score(
                        &answer,
                        reference,
                        false,
                        Rules {
                            ignore_case: false,
                            spanish,
                        },
                        None,
                    )
                });
            *origins.entry(candidate.origin.name()).or_default() += 1;
            generated.parses[match parse {
                Some((ParseSource::Parsed, _)) => 0,
                Some((ParseSource::Projected, _)) => 1,
                None => 2,
            }] += 1;
            scored.push(Scored {
                candidate,
                sentence,
                span,
                parse,
                features,
                word_accuracy,
            });
        }
        generated.fragments.push(FragmentCandidates {
            row,
            candidates: scored,
        });
    }
    generated.origins = Origin::ALL
        .map(|o| (o.name(), origins.get(o.name()).copied().unwrap_or(0)))
        .to_vec();
    Ok(generated)
}

/// A candidate's feature values, a missing one as 0 (it then counts nothing).
fn values(features: &Features) -> [f64; 5] {
    features.values().map(|v| v.unwrap_or(0.0))
}

/// Weights per feature of [`FEATURE_NAMES`].
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    pub values: [f64; 5],
    /// How they were made (written with them).
    pub signature: String,
}

impl Default for Weights {
    /// Untuned: every feature counts the same.
    fn default() -> Self {
        Weights {
            values: [1.0; 5],
            signature: "untuned: every weight 1".into(),
        }
    }
}

impl Weights {
    /// Read a weights file written by `tune`: `{"weights": {"lm": .., ...}, ...}`; a feature it
    /// does not name weighs 0.
    pub fn read(path: &Path) -> Result<Weights> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        let Some(map) = json.get("weights").and_then(|w| w.as_object()) else {
            bail!(
                "{}: expected an object with a \"weights\" object (feature name: number), as `tune` writes",
                path.display()
            );
        };
        let mut values = [0.0; 5];
        for (name, value) in map {
            let Some(i) = FEATURE_NAMES.iter().position(|f| f == name) else {
                bail!(
                    "{}: unknown feature {name:?} (expected one of {})",
                    path.display(),
                    FEATURE_NAMES.join(", ")
                );
            };
            values[i] = value.as_f64().with_context(|| {
                format!("{}: the weight of {name} is not a number", path.display())
            })?;
        }
        let signature = json
            .get("signature")
            .and_then(|s| s.as_str())
            .unwrap_or("")
            .to_string();
        Ok(Weights { values, signature })
    }
}

/// The candidates of `fragment` ranked by `weights`, best first (the first generated of equals).
pub fn ranked<'a>(fragment: &'a FragmentCandidates, weights: &Weights) -> Vec<&'a Scored> {
    let mut ranked: Vec<(f64, &Scored)> = fragment
        .candidates
        .iter()
        .map(|c| (mert::loglinear(&weights.values, &values(&c.features)), c))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.into_iter().map(|(_, c)| c).collect()
}

/// The run: each fragment's best candidate, and with `alternatives` the next ones as `<alt>`s.
pub fn run(generated: &Generated, weights: &Weights, alternatives: usize) -> Result<TaskFile> {
    let answers: Vec<Answer> = generated
        .fragments
        .iter()
        .map(|f| {
            let ranked = ranked(f, weights);
            Answer {
                place: f.row.place.clone(),
                answer: ranked.first().map(|c| c.candidate.tokens.clone()),
                alternatives: ranked
                    .iter()
                    .skip(1)
                    .take(alternatives)
                    .map(|c| c.candidate.tokens.clone())
                    .collect(),
            }
        })
        .collect();
    TaskFile::run(&answers).map_err(anyhow::Error::msg)
}

/// `l2-assist`: rank, write the run, and optionally every candidate as a table.
pub fn assist(
    generated: &Generated,
    weights: &Weights,
    out_of_five: bool,
    out: &Path,
    table: Option<&Path>,
) -> Result<()> {
    let run = run(generated, weights, if out_of_five { 4 } else { 0 })?;
    if let Some(table) = table {
        write_candidates(generated, weights, table)?;
    }
    task::write_file(&run, out)
}

/// Every candidate as a row (schema in docs/l2-assist.md), with its rank and score under
/// `weights`.
fn write_candidates(generated: &Generated, weights: &Weights, path: &Path) -> Result<()> {
    let text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
    let number = |name: &str| Field::new(name, DataType::Float64, true);
    let integer = |name: &str| Field::new(name, DataType::Int64, false);
    let mut fields = vec![
        integer("pair_id"),
        text("sentence_id", false),
        text("fragment_id", false),
        integer("rank"),
        text("origin", false),
        Field::new("candidate", token_list_type(), false),
        Field::new("sentence", token_list_type(), false),
        integer("candidate_start"),
        integer("candidate_end"),
        text("parse", true),
        Field::new("head", head_list_type(), true),
        Field::new("deprel", token_list_type(), true),
        Field::new("upos", token_list_type(), true),
    ];
    fields.extend(FEATURE_NAMES.iter().map(|n| number(n)));
    fields.extend([number("score"), number("word_accuracy")]);
    let schema = Arc::new(Schema::new(fields));
    let mut writer = AtomicParquetWriter::create(
        path,
        schema.clone(),
        vec![(keys::WEIGHTS.into(), weights.signature.clone())],
    )?;
    let (mut ids, mut sentence_ids, mut fragment_ids, mut ranks, mut origins) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut candidate, mut sentence) = (
        ListBuilder::new(StringBuilder::new()),
        ListBuilder::new(StringBuilder::new()),
    );
    let (mut starts, mut ends, mut parses, mut scores, mut accuracy) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut heads = ListBuilder::new(Int32Builder::new());
    let (mut deprels, mut upos) = (
        ListBuilder::new(StringBuilder::new()),
        ListBuilder::new(StringBuilder::new()),
    );
    let mut feature_columns: [Vec<Option<f64>>; 5] = Default::default();
    for (pair_id, fragment) in generated.fragments.iter().enumerate() {
        for (rank, c) in ranked(fragment, weights).into_iter().enumerate() {
            ids.push(pair_id as i64);
            sentence_ids.push(fragment.row.place.sentence_id.clone());
            fragment_ids.push(fragment.row.place.fragment_id.clone());
            ranks.push(rank as i64 + 1);
            origins.push(c.candidate.origin.name());
            for (builder, words) in [
                (&mut candidate, &c.candidate.tokens),
                (&mut sentence, &c.sentence),
            ] {
                builder.values().extend(words.iter().map(Some));
                builder.append(true);
            }
            starts.push(c.span.0 as i64);
            ends.push(c.span.1 as i64);
            parses.push(c.parse.as_ref().map(|(source, _)| {
                if *source == ParseSource::Parsed {
                    "parsed"
                } else {
                    "projected"
                }
            }));
            let arcs = c.parse.as_ref().map(|(_, arcs)| arcs);
            heads
                .values()
                .extend(arcs.iter().flat_map(|a| a.heads.iter().map(|&h| Some(h))));
            heads.append(arcs.is_some());
            for (builder, labels) in [
                (&mut deprels, arcs.map(|a| &a.deprels)),
                (&mut upos, arcs.map(|a| &a.upos)),
            ] {
                builder
                    .values()
                    .extend(labels.into_iter().flatten().map(Some));
                builder.append(labels.is_some());
            }
            for (column, value) in feature_columns.iter_mut().zip(c.features.values()) {
                column.push(value);
            }
            scores.push(mert::loglinear(&weights.values, &values(&c.features)));
            accuracy.push(c.word_accuracy);
        }
    }
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(StringArray::from(sentence_ids)),
        Arc::new(StringArray::from(fragment_ids)),
        Arc::new(Int64Array::from(ranks)),
        Arc::new(StringArray::from(origins)),
        Arc::new(candidate.finish()),
        Arc::new(sentence.finish()),
        Arc::new(Int64Array::from(starts)),
        Arc::new(Int64Array::from(ends)),
        Arc::new(StringArray::from(parses)),
        Arc::new(heads.finish()),
        Arc::new(deprels.finish()),
        Arc::new(upos.finish()),
    ];
    columns.extend(
        feature_columns
            .into_iter()
            .map(|c| Arc::new(Float64Array::from(c)) as ArrayRef),
    );
    columns.push(Arc::new(Float64Array::from(scores)));
    columns.push(Arc::new(Float64Array::from(accuracy)));
    writer.write(&RecordBatch::try_new(schema, columns)?)?;
    writer.finish()
}

/// How `tune` searches.
#[derive(Debug, Clone)]
pub struct TuneOptions {
    /// The features tuned; the others weigh 0.
    pub features: Vec<String>,
    pub mert: MertOptions,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            features: FEATURE_NAMES.iter().map(|f| f.to_string()).collect(),
            mert: MertOptions::default(),
        }
    }
}

/// What `tune` found.
#[derive(Debug, Clone)]
pub struct TuneResult {
    pub weights: Weights,
    /// The metric's mean over the lists, with the starting and the tuned weights.
    pub initial: f64,
    pub tuned: f64,
    pub lists: usize,
    /// Fragments left out: no reference (or no metric value), or no candidate.
    pub skipped: usize,
}

/// The indices in [`FEATURE_NAMES`] of `names`.
fn feature_indices(names: &[String]) -> Result<Vec<usize>> {
    names
        .iter()
        .map(|n| {
            FEATURE_NAMES.iter().position(|f| f == n).with_context(|| {
                format!(
                    "unknown feature {n:?}: expected one of {}",
                    FEATURE_NAMES.join(", ")
                )
            })
        })
        .collect()
}

/// MERT over the candidates' word accuracy (fragments with a reference).
pub fn tune_generated(
    generated: &Generated,
    options: &TuneOptions,
    source: &str,
) -> Result<TuneResult> {
    let chosen = feature_indices(&options.features)?;
    let mut lists = Vec::new();
    let mut skipped = 0;
    for fragment in &generated.fragments {
        let usable: Vec<&Scored> = fragment
            .candidates
            .iter()
            .filter(|c| c.word_accuracy.is_some())
            .collect();
        if usable.is_empty() {
            skipped += 1;
            continue;
        }
        let features = usable.iter().flat_map(|c| {
            let all = values(&c.features);
            chosen.iter().map(move |&i| all[i])
        });
        lists.push(CandidateList {
            features: features.collect(),
            metric: usable.iter().map(|c| c.word_accuracy.unwrap()).collect(),
        });
    }
    finish_tuning(
        &lists,
        &chosen,
        options,
        skipped,
        &format!("dev:{source}|metric:word_accuracy"),
    )
}

/// MERT over a candidates table (`l2-assist --table`, or any table with `pair_id`, the feature
/// columns and a metric column): the candidates of a pair_id form one list.
pub async fn tune_table(table: &Path, metric: &str, options: &TuneOptions) -> Result<TuneResult> {
    let chosen = feature_indices(&options.features)?;
    let ctx = session::context()?;
    let input = crate::parquet::ParquetInput::open("candidates", table)?;
    input.register(&ctx, false).await?;
    let number = |name: &str| cast(ident(name), DataType::Float64);
    let mut selected = vec![
        cast(ident("pair_id"), DataType::Int64).alias("list"),
        number(metric).alias("metric"),
    ];
    selected.extend(
        chosen.iter().enumerate().map(|(k, &i)| {
            coalesce(vec![number(FEATURE_NAMES[i]), lit(0.0)]).alias(format!("f{k}"))
        }),
    );
    let frame = ctx
        .table("candidates")
        .await?
        .sort(vec![ident("pair_id").sort(true, false)])
        .and_then(|sorted| sorted.select(selected))
        .with_context(|| {
            format!(
                "{}: reading pair_id, {metric} and the features",
                table.display()
            )
        })?;
    let mut stream = frame.execute_stream().await?;
    let (mut lists, mut skipped): (Vec<CandidateList>, usize) = (Vec::new(), 0);
    let mut current: Option<i64> = None;
    while let Some(batch) = stream.try_next().await? {
        let ids = batch.column(0).as_primitive::<Int64Type>();
        let metric_values = batch.column(1).as_primitive::<Float64Type>();
        for row in 0..batch.num_rows() {
            let id = ids.value(row);
            if current != Some(id) {
                current = Some(id);
                lists.push(CandidateList {
                    features: Vec::new(),
                    metric: Vec::new(),
                });
            }
            if metric_values.is_null(row) {
                continue;
            }
            let list = lists.last_mut().expect("pushed above");
            list.metric.push(metric_values.value(row));
            list.features.extend(
                (2..batch.num_columns())
                    .map(|c| batch.column(c).as_primitive::<Float64Type>().value(row)),
            );
        }
    }
    let before = lists.len();
    lists.retain(|l| !l.is_empty());
    skipped += before - lists.len();
    finish_tuning(
        &lists,
        &chosen,
        options,
        skipped,
        &format!("candidates:{}|metric:{metric}", table.display()),
    )
}

fn finish_tuning(
    lists: &[CandidateList],
    chosen: &[usize],
    options: &TuneOptions,
    skipped: usize,
    source: &str,
) -> Result<TuneResult> {
    if lists.is_empty() {
        bail!(
            "nothing to tune on: no fragment has both a reference (a metric value) and a candidate"
        );
    }
    let tuned = mert::tune(lists, &vec![1.0; chosen.len()], options.mert);
    let mut values = [0.0; 5];
    for (&i, w) in chosen.iter().zip(&tuned.weights) {
        values[i] = *w + 0.0; // -0.0 prints as "-0"
    }
    let m = options.mert;
    let signature = format!(
        "pairmetrics {}|mert|{source}|features:{}|restarts:{}|random-directions:{}|seed:{}",
        env!("CARGO_PKG_VERSION"),
        options.features.join(","),
        m.restarts,
        m.random_directions,
        m.seed
    );
    let n = lists.len() as f64;
    Ok(TuneResult {
        weights: Weights { values, signature },
        initial: tuned.initial_total / n,
        tuned: tuned.total / n,
        lists: lists.len(),
        skipped,
    })
}

impl TuneResult {
    /// Write the weights as JSON (what `l2-assist --weights` reads), atomically.
    pub fn write(&self, out: &Path) -> Result<()> {
        let weights: serde_json::Map<String, serde_json::Value> = FEATURE_NAMES
            .iter()
            .zip(self.weights.values)
            .map(|(n, w)| (n.to_string(), serde_json::json!(w)))
            .collect();
        let json = serde_json::json!({
            "weights": weights,
            "signature": self.weights.signature,
            "lists": self.lists,
            "skipped": self.skipped,
            "initial_metric": self.initial,
            "tuned_metric": self.tuned,
        });
        let mut output = crate::storage::Output::create(out)?;
        std::io::Write::write_all(
            &mut output,
            format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes(),
        )?;
        output.commit()
    }
}

/// A dictionary table: `src`, `tgt` (strings, split on whitespace, or token lists) and an
/// optional probability `p`.
async fn load_dictionary(path: &Path) -> Result<Dictionary> {
    let ctx = session::context()?;
    let input = crate::parquet::ParquetInput::open("dictionary", path)?;
    input.register(&ctx, false).await?;
    let schema = ctx.table_provider("dictionary").await?.schema();
    // Text is split into tokens as `tokenize` splits it.
    let tokens = |column: &str| -> Result<Expr> {
        let Ok(field) = schema.field_with_name(column) else {
            bail!(
                "dictionary {}: no column {column} (expected src, tgt and optionally p)",
                path.display()
            );
        };
        match expr::as_tokens(&ctx, column, field.data_type())? {
            Some(tokens) => Ok(tokens),
            None => bail!(
                "dictionary {}: column {column} is {}; expected text (Utf8) or tokens (List<Utf8>)",
                path.display(),
                field.data_type()
            ),
        }
    };
    let p = match schema.field_with_name("p") {
        Ok(_) => cast(ident("p"), DataType::Float64),
        Err(_) => lit(ScalarValue::Float64(None)),
    };
    let dictionary = ctx.table("dictionary").await?;
    let selected = dictionary.select(vec![tokens("src")?, tokens("tgt")?, p])?;
    let mut stream = selected.execute_stream().await?;
    let mut dictionary = Dictionary::default();
    let mut row_number = 0;
    while let Some(batch) = stream.try_next().await? {
        let (mut source, mut target) = (Vec::new(), Vec::new());
        let (sources, targets) = (
            TokenLists::new("src", batch.column(0))?,
            TokenLists::new("tgt", batch.column(1))?,
        );
        let probabilities = batch.column(2).as_primitive::<Float64Type>();
        for row in 0..batch.num_rows() {
            row_number += 1;
            let (Ok(()), Ok(())) = (sources.row(row, &mut source), targets.row(row, &mut target))
            else {
                bail!(
                    "dictionary {}: row {row_number} (1-based): src and tgt must be non-empty",
                    path.display()
                );
            };
            if source.is_empty() || target.is_empty() {
                bail!(
                    "dictionary {}: row {row_number} (1-based): src and tgt must be non-empty",
                    path.display()
                );
            }
            let p = probabilities
                .is_valid(row)
                .then(|| probabilities.value(row));
            if let Some(p) = p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
                bail!(
                    "dictionary {}: row {row_number} (1-based): p = {p} is not a probability in (0, 1]",
                    path.display()
                );
            }
            let owned = |words: &[&str]| words.iter().map(|w| w.to_string()).collect();
            dictionary.add(owned(&source), owned(&target), p);
        }
    }
    Ok(dictionary)
}

/// Parses by their tokens: the first of equal sentences wins.
fn load_parses(path: &Path) -> Result<HashMap<Vec<String>, Arcs>> {
    let lines = Lines::new(input::open(path)?, path);
    let mut parses = HashMap::new();
    for sentence in Sentences::new(lines) {
        let sentence = sentence.with_context(|| format!("{}", path.display()))?;
        let arcs = Arcs {
            heads: sentence.heads,
            deprels: sentence.deprels,
            upos: sentence.upos,
        };
        parses.entry(sentence.forms).or_insert(arcs);
    }
    Ok(parses)
}
