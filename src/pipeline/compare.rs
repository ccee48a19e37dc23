//! `pairmetrics compare`: scored outputs of systems over the same pairs, each against the first
//! (the baseline). Per metric: every system's mean with its bootstrap interval, and for the
//! others the delta to the baseline with its interval and the paired bootstrap and approximate
//! randomization p-values, all by the SQL aggregates of `udf::significance`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::common::JoinType;
use datafusion::execution::FunctionRegistry;
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_aggregate::expr_fn::{count, count_distinct};
use datafusion::logical_expr::{ident, lit};
use datafusion::prelude::{DataFrame, SessionContext};
use serde_json::{Value, json};

use super::score::{Role, all_columns};
use crate::Resources;
use crate::arrow::read::{first_float, interval};
use crate::parquet::ParquetInput;
use crate::parquet::keys;
use crate::session::{Tuning, column_of, context_with_tables_and, integers, join_on_pair_id};
use crate::stats::significance::Interval;
use crate::udf::expr;
use crate::udf::significance::{DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_TRIALS};

#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Columns to compare; None: every score column `score` writes that all files have.
    pub metrics: Option<Vec<String>>,
    pub resamples: u64,
    pub trials: u64,
    pub seed: u64,
    pub level: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            metrics: None,
            resamples: DEFAULT_RESAMPLES,
            trials: DEFAULT_TRIALS,
            seed: DEFAULT_SEED,
            level: DEFAULT_LEVEL,
        }
    }
}

impl CompareOptions {
    /// What the figures depend on besides the data.
    pub fn signature(&self) -> String {
        format!(
            "compare:bs={}:ar={}:seed={}:level={}",
            self.resamples, self.trials, self.seed, self.level
        )
    }
}

/// Against the baseline, on the pairs both scored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Versus {
    pub n: u64,
    pub delta: Interval,
    pub p_bootstrap: f64,
    pub p_randomization: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SystemResult {
    pub file: String,
    /// Pairs it scored.
    pub n: u64,
    pub mean: Option<Interval>,
    /// None for the baseline, or when no pair is scored by both.
    pub versus: Option<Versus>,
    /// How `score` computed the metric in this file; None when the file records nothing.
    pub signature: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MetricResult {
    pub metric: String,
    /// How `score` computed it, when every system that records a signature records this one.
    pub signature: Option<String>,
    pub systems: Vec<SystemResult>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub signature: String,
    pub pairs: u64,
    pub metrics: Vec<MetricResult>,
}

/// Compare `files` (the baseline first) as `options` say.
pub async fn compare(
    files: &[PathBuf],
    options: &CompareOptions,
    tuning: &Tuning,
) -> Result<Comparison> {
    if files.len() < 2 {
        bail!(
            "compare needs a baseline and at least one system: got {} file(s)",
            files.len()
        );
    }
    if !(options.level > 0.0 && options.level < 1.0) {
        bail!(
            "--level must be in (0, 1), e.g. 0.95; got {}",
            options.level
        );
    }
    let tables: Vec<(String, PathBuf)> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (format!("system{i}"), f.clone()))
        .collect();
    let ctx = context_with_tables_and(&tables, &[], &Resources::default(), tuning).await?;
    let metrics = metrics(&ctx, files, options).await?;
    let signatures = signatures(files, &metrics)?;
    let pairs = check_pairs(&ctx, files).await?;
    let CompareOptions {
        resamples: r,
        trials: t,
        seed: s,
        level: l,
        ..
    } = *options;
    let mut results: Vec<MetricResult> = metrics
        .iter()
        .zip(&signatures)
        .map(|(m, signatures)| MetricResult {
            metric: m.clone(),
            signature: shared(signatures),
            systems: Vec::with_capacity(files.len()),
        })
        .collect();
    let f: &dyn FunctionRegistry = &ctx;
    let (level, draws, trials, seed) = (lit(l), lit(r), lit(t), lit(s));
    // The baseline alone, then each system joined to it.
    let aggregates = metrics
        .iter()
        .map(|m| {
            expr::bootstrap_ci(
                f,
                column_of("system0", m),
                level.clone(),
                draws.clone(),
                seed.clone(),
            )
        })
        .collect::<datafusion::common::Result<Vec<_>>>()?;
    let batch = one_row(ctx.table("system0").await?.aggregate(vec![], aggregates)?).await?;
    for (k, result) in results.iter_mut().enumerate() {
        let (n, mean) = interval(batch.column(k).as_struct(), "mean");
        result.systems.push(SystemResult {
            file: files[0].display().to_string(),
            n,
            mean,
            versus: None,
            signature: signatures[k][0].clone(),
        });
    }
    for (i, file) in files.iter().enumerate().skip(1) {
        let system = format!("system{i}");
        let mut aggregates = Vec::new();
        for m in &metrics {
            let (b, s) = (column_of("system0", m), column_of(&system, m));
            aggregates.extend([
                expr::bootstrap_ci(f, s.clone(), level.clone(), draws.clone(), seed.clone())?,
                expr::paired_bootstrap(
                    f,
                    b.clone(),
                    s.clone(),
                    draws.clone(),
                    seed.clone(),
                    level.clone(),
                )?,
                expr::approx_randomization(f, b, s, trials.clone(), seed.clone())?,
            ]);
        }
        let both = join_on_pair_id(&ctx, "system0", &system, JoinType::Inner).await?;
        let batch = one_row(both.aggregate(vec![], aggregates)?).await?;
        for (k, result) in results.iter_mut().enumerate() {
            let (n, mean) = interval(batch.column(3 * k).as_struct(), "mean");
            let paired = batch.column(3 * k + 1).as_struct();
            let (n_both, delta) = interval(paired, "delta");
            let p_bootstrap = first_float(paired, "p_value");
            let p_randomization = batch.column(3 * k + 2).as_primitive::<Float64Type>();
            let versus = match (delta, p_bootstrap, p_randomization.is_valid(0)) {
                (Some(delta), Some(p_bootstrap), true) => Some(Versus {
                    n: n_both,
                    delta,
                    p_bootstrap,
                    p_randomization: p_randomization.value(0),
                }),
                _ => None,
            };
            result.systems.push(SystemResult {
                file: file.display().to_string(),
                n,
                mean,
                versus,
                signature: signatures[k][i].clone(),
            });
        }
    }
    Ok(Comparison {
        signature: options.signature(),
        pairs,
        metrics: results,
    })
}

/// Each metric's signature in each file as `score` recorded it in its footer (None when the
/// file records none), by metric then file.
fn signatures(files: &[PathBuf], metrics: &[String]) -> Result<Vec<Vec<Option<String>>>> {
    let mut recorded = Vec::with_capacity(files.len());
    for (i, path) in files.iter().enumerate() {
        let input = ParquetInput::open(&format!("system{i}"), path)?;
        let signatures: BTreeMap<String, String> = input
            .key_value(keys::COLUMN_SIGNATURES)
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default();
        recorded.push(signatures);
    }
    Ok(metrics
        .iter()
        .map(|metric| recorded.iter().map(|r| r.get(metric).cloned()).collect())
        .collect())
}

/// The signature every file that records one records; None when none does, or two differ.
fn shared(signatures: &[Option<String>]) -> Option<String> {
    let mut recorded = signatures.iter().flatten();
    let first = recorded.next()?;
    recorded.all(|s| s == first).then(|| first.clone())
}

/// The metrics asked for, checked to be numeric columns of every file; by default the score
/// columns every file has.
async fn metrics(
    ctx: &SessionContext,
    files: &[PathBuf],
    options: &CompareOptions,
) -> Result<Vec<String>> {
    let mut schemas = Vec::new();
    for i in 0..files.len() {
        schemas.push(
            ctx.table_provider(format!("system{i}").as_str())
                .await?
                .schema(),
        );
    }
    let numeric = |i: usize, name: &str| {
        schemas[i]
            .field_with_name(name)
            .ok()
            .map(|f| f.data_type().is_numeric())
    };
    match &options.metrics {
        Some(wanted) => {
            for name in wanted {
                for (i, file) in files.iter().enumerate() {
                    match numeric(i, name) {
                        Some(true) => {}
                        Some(false) => bail!("{}: column `{name}` is not numeric", file.display()),
                        None => bail!("{}: no column `{name}` to compare", file.display()),
                    }
                }
            }
            Ok(wanted.clone())
        }
        None => {
            let found: Vec<String> = all_columns()
                .filter(|c| c.role == Role::Score)
                .filter(|c| (0..files.len()).all(|i| numeric(i, c.name) == Some(true)))
                .map(|c| c.name.to_string())
                .collect();
            if found.is_empty() {
                bail!(
                    "no score column (led, pod, derp, ...) is in every file: name the columns with --metrics"
                );
            }
            Ok(found)
        }
    }
}

/// Every file must hold the same pairs, each once: the baseline's count.
async fn check_pairs(ctx: &SessionContext, files: &[PathBuf]) -> Result<u64> {
    let mut rows = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let table = format!("system{i}");
        if !ctx
            .table_provider(table.as_str())
            .await?
            .schema()
            .field_with_name("pair_id")
            .is_ok_and(|f| f.data_type().is_integer())
        {
            bail!(
                "{}: no integer pair_id column; compare pairs systems' scores by pair_id",
                file.display()
            );
        }
        let pair_id = ident("pair_id");
        let figures = integers(ctx.table(table.as_str()).await?.aggregate(
            vec![],
            vec![count_all(), count_distinct(pair_id.clone()), count(pair_id)],
        )?)
        .await?;
        let [all, distinct, set] = [0, 1, 2].map(|i| figures[i] as u64);
        if set != all {
            bail!("{}: {} rows have no pair_id", file.display(), all - set);
        }
        if distinct != all {
            bail!(
                "{}: pair_id values repeat ({all} rows, {distinct} distinct pair_ids)",
                file.display()
            );
        }
        rows.push(all);
    }
    for (i, file) in files.iter().enumerate().skip(1) {
        let both = join_on_pair_id(ctx, "system0", &format!("system{i}"), JoinType::Inner).await?;
        let common = both.count().await? as u64;
        if common != rows[0] || common != rows[i] {
            bail!(
                "{} and the baseline {} do not hold the same pairs: {} and {} rows, {common} pair_ids in common",
                file.display(),
                files[0].display(),
                rows[i],
                rows[0]
            );
        }
    }
    Ok(rows[0])
}

async fn one_row(frame: DataFrame) -> Result<RecordBatch> {
    let batches = frame.collect().await?;
    let batch = datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches)?;
    if batch.num_rows() != 1 {
        bail!(
            "internal: an aggregate gave {} rows, not 1",
            batch.num_rows()
        );
    }
    Ok(batch)
}

impl Comparison {
    /// A table like sacrebleu's `--paired-bs`: a row per metric and system.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} pairs; signature {}", self.pairs, self.signature);
        let _ = writeln!(
            out,
            "baseline: {}; * p < 0.05",
            self.metrics
                .first()
                .map_or("", |m| m.systems[0].file.as_str())
        );
        for metric in &self.metrics {
            if let Some(signature) = &metric.signature {
                let _ = writeln!(out, "{}: {signature}", metric.metric);
            } else if metric.systems.iter().any(|s| s.signature.is_some()) {
                // Two systems record different signatures.
                // Worth seeing before reading the table: a difference may be the options'.
                let each: Vec<String> = (metric.systems.iter())
                    .map(|s| format!("{} `{}`", s.file, s.signature.as_deref().unwrap_or("?")))
                    .collect();
                let _ = writeln!(
                    out,
                    "{}: scored differently: {}",
                    metric.metric,
                    each.join(", ")
                );
            }
        }
        let width = |names: &mut dyn Iterator<Item = usize>, header: &str| {
            names.chain([header.len()]).max().unwrap_or(0)
        };
        let metric_width = width(&mut self.metrics.iter().map(|m| m.metric.len()), "metric");
        let system_width = width(
            &mut self
                .metrics
                .iter()
                .flat_map(|m| m.systems.iter().map(|s| s.file.len())),
            "system",
        );
        let row = |cells: [&str; 7]| {
            format!(
                "{:<mw$}  {:<sw$}  {:>8}  {:>26}  {:>29}  {:>7}  {:>7}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                cells[4],
                cells[5],
                cells[6],
                mw = metric_width,
                sw = system_width
            )
            .trim_end()
            .to_string()
        };
        let _ = writeln!(
            out,
            "{}",
            row([
                "metric",
                "system",
                "n",
                "mean [interval]",
                "delta [interval]",
                "p (bs)",
                "p (ar)"
            ])
        );
        let p = |p: f64| format!("{p:.4}{}", if p < 0.05 { "*" } else { "" });
        for metric in &self.metrics {
            for system in &metric.systems {
                let (delta, p_bs, p_ar) = match &system.versus {
                    Some(v) => (
                        Interval::text(Some(&v.delta), true),
                        p(v.p_bootstrap),
                        p(v.p_randomization),
                    ),
                    None => (String::new(), String::new(), String::new()),
                };
                let (n, mean) = (
                    system.n.to_string(),
                    Interval::text(system.mean.as_ref(), false),
                );
                let _ = writeln!(
                    out,
                    "{}",
                    row([
                        &metric.metric,
                        &system.file,
                        &n,
                        &mean,
                        &delta,
                        &p_bs,
                        &p_ar
                    ])
                );
            }
        }
        out
    }

    pub fn json(&self) -> Value {
        let estimate = |e: &Option<Interval>| {
            e.map(|e| json!({"value": e.estimate, "low": e.low, "high": e.high}))
        };
        let metrics: Vec<Value> = self
            .metrics
            .iter()
            .map(|m| {
                let systems: Vec<Value> = m
                    .systems
                    .iter()
                    .map(|s| {
                        let versus = s.versus.map(|v| {
                            json!({"n": v.n, "delta": estimate(&Some(v.delta)), "p_bootstrap": v.p_bootstrap, "p_randomization": v.p_randomization})
                        });
                        json!({"file": s.file, "n": s.n, "mean": estimate(&s.mean), "versus_baseline": versus, "signature": s.signature})
                    })
                    .collect();
                json!({"metric": m.metric, "signature": m.signature, "systems": systems})
            })
            .collect();
        json!({"signature": self.signature, "pairs": self.pairs, "metrics": metrics})
    }
}
