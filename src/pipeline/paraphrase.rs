//! `pairmetrics paraphrase`: MCPG (`metrics::mcpg`) over every sentence of a text file or a
//! Parquet column, on every core, in input order: Moses n-best text on stdout or a Parquet
//! table.

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int64Array, RecordBatch, StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Schema, SchemaRef};
use datafusion::common::DFSchema;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::{Expr, Volatility, cast};
use datafusion::physical_expr::PhysicalExpr;

use crate::arrow::{append_tokens, token_list_builder};
use crate::parallel::{Chunk, map_ordered_in_chunks};
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::resources::{self, PhraseTableOptions, ResourceOptions};
use crate::schema::token_list_type;
use crate::sentences::{self, Sentence};
use crate::session::Session;
use crate::smt::mcpg::{self, Outcome, TaskReward};
use crate::udf::mcpg::{ParaphraseColumns, fields};

#[derive(Debug, Clone)]
pub struct ParaphraseOptions {
    /// Sentences: a text file (one tokenised sentence per line, id = 0-based line number) or a
    /// Parquet file or directory (`column`, id = `pair_id` or the 0-based row).
    pub input: PathBuf,
    /// The Parquet column: tokens (List<Utf8>) or text (split on whitespace).
    pub column: String,
    pub phrase_table: PhraseTableOptions,
    pub lm: Option<PathBuf>,
    pub mcpg: mcpg::Options,
    /// A task reward to maximise instead of the model score: an SQL expression of `src`,
    /// `tgt` (token lists) and `model_score` (see [`SqlReward`]).
    pub reward: Option<String>,
    /// A Parquet table; None prints Moses n-best lines.
    pub out: Option<PathBuf>,
    pub threads: usize,
    /// Count the sentences on stderr as they are done.
    pub progress: bool,
}

impl ParaphraseOptions {
    pub fn signature(&self) -> String {
        let o = &self.mcpg;
        let lm = if self.lm.is_some() {
            format!("alpha_lm={},lm:ln", o.weights.lm)
        } else {
            "no-lm".into()
        };
        let reward = match &self.reward {
            Some(expr) => format!("|reward={expr}"),
            None => String::new(),
        };
        format!(
            "pairmetrics:{}|mcpg|mode={}|episodes={}|seed={}|rules-per-phrase={}|{}|alpha_phi={},{lm}{reward}",
            crate::VERSION,
            o.mode.name(),
            o.episodes,
            o.seed,
            o.rules_per_phrase,
            self.phrase_table.signature(),
            o.weights.phrase
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParaphraseSummary {
    pub sentences: u64,
    /// Sentences with no paraphrase (no rule changes them), each a row with its reason.
    pub without: u64,
    pub episodes: u64,
    pub signature: String,
    pub seconds: f64,
}

impl fmt::Display for ParaphraseSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "sentences: {} ({} without a paraphrase: no rule of the table changes them)",
            self.sentences, self.without
        )?;
        writeln!(f, "episodes: {}", self.episodes)?;
        writeln!(f, "signature: {}", self.signature)?;
        write!(f, "{}", sentences::timing(self.sentences, self.seconds))
    }
}

/// Why a sentence has no paraphrase.
fn problem(tokens: &[String], outcome: &Outcome) -> &'static str {
    match (tokens.is_empty(), outcome.actions) {
        (true, _) => "empty sentence",
        (false, 0) => "no rule of the phrase table applies",
        _ => "no rule of the phrase table changes it",
    }
}

/// The table `paraphrase --out` writes: one row per paraphrase (rank 1 = best), or one row
/// with NULLs and a `problem` for a sentence without any.
pub fn schema() -> Schema {
    let mut columns = vec![Field::new("id", DataType::Int64, false)];
    columns.extend(fields());
    columns.push(Field::new("problem", DataType::Utf8, true));
    Schema::new(columns)
}

pub async fn paraphrase(
    options: &ParaphraseOptions,
    stdout: &mut dyn Write,
) -> Result<(ParaphraseSummary, Vec<String>)> {
    let started = Instant::now();
    if options.mcpg.episodes == 0 || options.mcpg.nbest == 0 {
        bail!("--episodes and --nbest must be at least 1");
    }
    if let Some(out) = &options.out
        && out.exists()
    {
        bail!(
            "{}: already exists; paraphrase writes a new table",
            out.display()
        );
    }
    let (resources, loaded) = resources::load(&ResourceOptions::decoder(
        &options.phrase_table,
        &options.lm,
    ))
    .await?;
    let index = resources.phrase_index.get().expect("loaded");
    let lm = resources.lm.get();
    let task = match &options.reward {
        Some(expr) => Some(SqlReward::new(expr, resources.clone()).await?),
        None => None,
    };
    let sentences = sentences::read(&options.input, &options.column).await?;
    sentences::check_lengths(&sentences, crate::smt::decode::MAX_WORDS, "paraphrase")?;
    let bar = sentences::progress_bar(sentences.len(), options.progress);
    let mut summary = ParaphraseSummary {
        signature: options.signature(),
        ..Default::default()
    };
    let generate = |_: &mut (), chunk: Chunk<Sentence>| -> Result<Vec<(Sentence, Outcome)>> {
        Ok(chunk
            .records
            .into_iter()
            .map(|(id, tokens)| {
                let words: Vec<&str> = tokens.iter().map(String::as_str).collect();
                let reward = task.as_ref().map(|t| t as &dyn TaskReward);
                let outcome = mcpg::mcpg_for(index, lm, &words, &options.mcpg, reward);
                // A failed evaluation ends the run before its sentence is written.
                match task.as_ref().and_then(SqlReward::error) {
                    Some(error) => bail!("--reward: {error}"),
                    None => Ok(((id, tokens), outcome)),
                }
            })
            .collect::<Result<_>>()?)
    };
    let records = sentences.into_iter().map(Ok::<_, anyhow::Error>);
    // The finished sentences go to the table, or to stdout as n-best lines.
    let mut table = match &options.out {
        Some(path) => {
            let schema = Arc::new(schema());
            let metadata = vec![
                (keys::VERSION.to_string(), crate::VERSION.to_string()),
                (keys::SIGNATURE.to_string(), summary.signature.clone()),
            ];
            let writer = AtomicParquetWriter::create(path, schema.clone(), metadata)?;
            Some((schema, writer))
        }
        None => None,
    };
    // One sentence per chunk: each takes long enough to keep a worker busy.
    map_ordered_in_chunks(
        1,
        records,
        options.threads,
        || (),
        generate,
        |done| {
            match &mut table {
                Some((schema, writer)) => writer.write(&rows(schema, &done, &mut summary)?)?,
                None => {
                    for ((id, _), outcome) in &done {
                        count(&mut summary, outcome);
                        for p in &outcome.paraphrases {
                            write_nbest_line(stdout, *id, p)?;
                        }
                    }
                }
            }
            bar.inc(done.len() as u64);
            Ok(())
        },
    )?;
    match table {
        Some((_, writer)) => writer.finish()?,
        None => stdout.flush()?,
    }
    bar.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok((summary, loaded))
}

/// `--reward EXPR`: an SQL expression over one row of `src` and `tgt` (the sentence and a
/// paraphrase, token lists) and `model_score` (what the mode would maximise), with every
/// pairmetrics function and the session's resources (so `true_score` and `lm_logprob` too),
/// evaluated once per distinct paraphrase the search reaches. NULL, ±inf and NaN leave the
/// paraphrase unrewarded; the first error ends the run; functions whose value changes from call
/// to call or run to run (random(), now()) are refused.
pub struct SqlReward {
    schema: SchemaRef,
    expr: Arc<dyn PhysicalExpr>,
    error: Mutex<Option<String>>,
}

impl SqlReward {
    pub async fn new(text: &str, resources: resources::Resources) -> Result<SqlReward> {
        let ctx = Session {
            resources,
            ..Default::default()
        }
        .build()?;
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("src", token_list_type(), false),
            Field::new("tgt", token_list_type(), false),
            Field::new("model_score", DataType::Float64, false),
        ]));
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let parsed = ctx
            .parse_sql_expr(text, &df_schema)
            .with_context(|| format!("--reward {text:?}"))?;
        // One seed must give one output: a function whose value changes from call to call
        // (random()) or with the time of the run (now()) has no place in a reward.
        let mut changing = Vec::new();
        parsed.apply(|e| {
            if let Expr::ScalarFunction(f) = e
                && f.func.signature().volatility != Volatility::Immutable
            {
                changing.push(format!("{}()", f.name()));
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        if !changing.is_empty() {
            bail!(
                "--reward {text:?}: {} can give another value at each call or run, so one seed \
                 would not give one output; use a value of src, tgt and model_score only",
                changing.join(", ")
            );
        }
        let expr = ctx
            .create_physical_expr(cast(parsed, DataType::Float64), &df_schema)
            .with_context(|| {
                format!("--reward {text:?}: a number of src, tgt (token lists) and model_score")
            })?;
        let reward = SqlReward {
            schema,
            expr,
            error: Mutex::new(None),
        };
        // Its errors of types and arguments show before the search, not after it.
        if let Err(e) = reward.evaluate(&["a"], &["b"], 0.0) {
            bail!("--reward {text:?}: {e}");
        }
        Ok(reward)
    }

    fn evaluate(
        &self,
        source: &[&str],
        paraphrase: &[&str],
        model_score: f64,
    ) -> Result<Option<f64>> {
        let tokens = |words: &[&str]| -> ArrayRef {
            let mut b = token_list_builder(1);
            append_tokens(&mut b, words.iter().copied(), false);
            Arc::new(b.finish())
        };
        let batch = RecordBatch::try_new(
            self.schema.clone(),
            vec![
                tokens(source),
                tokens(paraphrase),
                Arc::new(Float64Array::from(vec![model_score])),
            ],
        )?;
        let value = self.expr.evaluate(&batch)?.into_array(1)?;
        let value = value.as_primitive::<Float64Type>();
        Ok(value.is_valid(0).then(|| value.value(0)))
    }

    /// The first error met while evaluating, if any.
    fn error(&self) -> Option<String> {
        let error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        error.clone()
    }
}

impl TaskReward for SqlReward {
    fn reward(&self, source: &[&str], paraphrase: &[&str], model_score: f64) -> Option<f64> {
        match self.evaluate(source, paraphrase, model_score) {
            Ok(value) => value,
            Err(e) => {
                let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
                error.get_or_insert_with(|| format!("{e:#}"));
                None
            }
        }
    }
}

fn count(summary: &mut ParaphraseSummary, outcome: &Outcome) {
    summary.sentences += 1;
    summary.without += u64::from(outcome.paraphrases.is_empty());
    summary.episodes += outcome.episodes;
}

/// The output rows of some sentences.
fn rows(
    schema: &Arc<Schema>,
    done: &[(Sentence, Outcome)],
    summary: &mut ParaphraseSummary,
) -> Result<RecordBatch> {
    let (mut ids, mut columns, mut problems) = (
        Vec::new(),
        ParaphraseColumns::default(),
        StringBuilder::new(),
    );
    for ((id, tokens), outcome) in done {
        count(summary, outcome);
        if outcome.paraphrases.is_empty() {
            ids.push(*id);
            columns.append_null();
            problems.append_value(problem(tokens, outcome));
        }
        for (rank, p) in (1..).zip(&outcome.paraphrases) {
            ids.push(*id);
            columns.append(rank, p);
            problems.append_null();
        }
    }
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(ids))];
    arrays.extend(columns.finish());
    arrays.push(Arc::new(problems.finish()));
    Ok(RecordBatch::try_new(schema.clone(), arrays)?)
}

/// A Moses n-best line, `id ||| paraphrase ||| phrase= X lm= Y ||| reward`, so `import
/// moses-nbest` and `rerank` read MCPG's output as a decoder's: X is the phrase part of the
/// reward (the true score, or in translator mode the played derivation's ln p), Y ln P.
fn write_nbest_line(out: &mut dyn Write, id: i64, p: &mcpg::Paraphrase) -> Result<()> {
    write!(
        out,
        "{id} ||| {} ||| phrase= {}",
        super::decode::nbest_text(id, &p.tokens)?,
        p.phrase_score
    )?;
    if let Some(log10) = p.lm_log10 {
        write!(out, " lm= {}", log10 * std::f64::consts::LN_10)?;
    }
    writeln!(out, " ||| {}", p.reward)?;
    Ok(())
}
