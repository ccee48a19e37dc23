//! `pairmetrics report`: one self-contained HTML page (inline SVG; no script, no network) about
//! scored tables. Per metric: its mean with a bootstrap interval and a histogram; LeD against
//! PoD (and PoD against DERP) as binned densities; why rows have no score; and the most
//! extreme pairs drawn as the LePoD paper draws them (the tokens LeD does not keep, the aligned
//! units, PoD's segments) with DERP's spanning tree. With several tables (the baseline first):
//! `compare`'s table, the histograms overlaid, and the pairs where each system differs most
//! from the baseline, side by side.
//!
//! Everything over all rows is an SQL aggregate (binned counts, the bootstrap), so the page's
//! size and the memory used do not grow with the tables; only the drawn pairs are read whole.

mod html;
mod svg;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type};
use datafusion::common::{JoinType, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::functions::core::expr_fn::{greatest, least};
use datafusion::functions::math::expr_fn::{abs, floor};
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_aggregate::expr_fn::{count, max, min};
use datafusion::logical_expr::cast as cast_expr;
use datafusion::logical_expr::{Expr, ident, lit};
use datafusion::prelude::{DataFrame, SessionContext};

use super::compare::{self, CompareOptions, Comparison, MetricResult};
use super::score::{Role, ScoredFrom, all_columns};
use crate::Resources;
use crate::arrow::read::{LinkLists, TokenLists};
use crate::kernels::Link;
use crate::pair::lepod::{self, Explanation, Punctuation};
use crate::parquet::ParquetInput;
use crate::parquet::keys;
use crate::session::context_with_tables_and;
use crate::session::{Tuning, column_of, join_on_pair_id};
use crate::stats::significance::Interval;
use crate::storage::{Location, Output, write_whole};
use crate::udf::expr;

#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Scored tables, the baseline first.
    pub tables: Vec<PathBuf>,
    /// Per table, in order: the alignments and arcs to draw its pairs with, instead of those
    /// its footer records (`score` records the paths it read).
    pub alignments: Vec<PathBuf>,
    pub arcs: Vec<PathBuf>,
    /// Pairs drawn per list.
    pub pairs: usize,
    pub compare: CompareOptions,
    pub out: PathBuf,
}

/// What was written, for the command to print.
#[derive(Debug)]
pub struct Written {
    pub bytes: usize,
    pub pairs_drawn: usize,
    pub notes: Vec<String>,
}

/// Bins of a histogram, and of each axis of a density.
const BINS: usize = 40;
const DENSITY_BINS: usize = 48;

/// The pair lists of a report: (metric, the worst end, what the list shows).
const EXTREMES: &[(&str, Worst, &str)] = &[
    ("pod", Worst::Highest, "most reordered (highest PoD)"),
    ("led", Worst::Highest, "most changed (highest LeD)"),
    (
        "derp",
        Worst::Lowest,
        "most reordered through the trees (lowest DERP)",
    ),
];

/// Densities drawn when both columns are there: (x, y).
const DENSITIES: &[(&str, &str)] = &[("led", "pod"), ("pod", "derp")];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Worst {
    Highest,
    Lowest,
}

struct System {
    file: String,
    rows: u64,
    signature: Option<String>,
    /// What its pairs are drawn with: its footer's record, overridden by the command line.
    inputs: ScoredFrom,
    /// Per problem column: (reason, rows), most frequent first.
    problems: Vec<(String, Vec<(String, u64)>)>,
}

/// One metric over every system, with histogram bins shared by all of them.
struct MetricView {
    name: String,
    low: f64,
    high: f64,
    per_system: Vec<Stats>,
}

struct Stats {
    n: u64,
    min: Option<f64>,
    max: Option<f64>,
    mean: Option<Interval>,
    counts: Vec<u64>,
}

struct Axis {
    name: String,
    low: f64,
    high: f64,
}

struct Density {
    system: usize,
    x: Axis,
    y: Axis,
    /// Row-major by y bin, then x bin.
    counts: Vec<u64>,
}

struct PairList {
    title: String,
    /// Per pair: its view in each system shown.
    pairs: Vec<Vec<PairView>>,
}

#[derive(Clone)]
struct PairView {
    system: usize,
    pair_id: i64,
    src: Vec<String>,
    tgt: Vec<String>,
    values: Vec<(String, Option<f64>)>,
    links: Option<Vec<Link>>,
    /// LeD and PoD as the pair's table computed them, or why the pair is not drawn so.
    lepod: Result<Explanation, String>,
    derp: Option<DerpTree>,
}

/// `derp_detail`'s spanning tree: the side whose words it joins, and its edges (a, b, l, lmax).
#[derive(Clone)]
struct DerpTree {
    on_src: bool,
    edges: Vec<[i32; 4]>,
}

struct Report {
    /// How the intervals and p-values were drawn.
    significance: CompareOptions,
    systems: Vec<System>,
    metrics: Vec<MetricView>,
    densities: Vec<Density>,
    comparison: Option<Comparison>,
    lists: Vec<PairList>,
    notes: Vec<String>,
}

/// Write the report `options` ask for.
pub async fn report(options: &ReportOptions, tuning: &Tuning) -> Result<Written> {
    let n = options.tables.len();
    if n == 0 {
        bail!("report needs at least one scored table");
    }
    for (flag, given) in [
        ("--alignments", options.alignments.len()),
        ("--arcs", options.arcs.len()),
    ] {
        if given > n {
            bail!(
                "{flag} given {given} times for {n} table(s): give it at most once per table, in the tables' order"
            );
        }
    }
    // Fail before the work when the page cannot be written.
    Output::check(&options.out)?;
    let mut notes = Vec::new();
    let mut systems = Vec::new();
    let mut tables = Vec::new();
    for (i, path) in options.tables.iter().enumerate() {
        let input = ParquetInput::open(&system_table(i), path)?;
        // A table `score` did not write records nothing: draw with what is given, no punctuation.
        let mut inputs = input
            .key_value(keys::INPUTS)
            .and_then(ScoredFrom::parse)
            .unwrap_or_default();
        // What the file records is followed only where the file itself is (local, or the same
        // store and bucket): a received file must not make us read, or send requests, elsewhere.
        for (what, slot, given) in [
            (
                "alignments",
                &mut inputs.alignments,
                options.alignments.get(i),
            ),
            ("arcs", &mut inputs.arcs, options.arcs.get(i)),
        ] {
            if let Some(given) = given {
                *slot = Some(given.clone());
            } else if let Some(recorded) = slot.clone().filter(|p| !same_place(path, p)) {
                notes.push(format!(
                    "{}: its {what} were recorded as {}, which is not where the table is; pass \
                     --{what} to draw with them",
                    path.display(),
                    recorded.display()
                ));
                *slot = None;
            }
        }
        for (what, slot) in [
            ("alignments", &mut inputs.alignments),
            ("arcs", &mut inputs.arcs),
        ] {
            if let Some(p) = slot
                .clone()
                .filter(|p| !crate::storage::exists(p).unwrap_or(true))
            {
                notes.push(format!(
                    "{}: its {what} {} are gone; pass --{what} to draw with them",
                    path.display(),
                    p.display()
                ));
                *slot = None;
            }
        }
        tables.push((system_table(i), path.clone()));
        if let Some(p) = &inputs.alignments {
            tables.push((format!("alignments{i}"), p.clone()));
        }
        if let Some(p) = &inputs.arcs {
            tables.push((format!("arcs{i}"), p.clone()));
        }
        let signature = input.key_value(keys::SIGNATURE).map(str::to_string);
        systems.push(System {
            file: path.display().to_string(),
            rows: 0,
            signature,
            inputs,
            problems: vec![],
        });
    }
    let ctx = context_with_tables_and(&tables, &[], &Resources::default(), tuning).await?;
    let (metrics, problem_columns) = columns(&ctx, &options.tables).await?;
    for (i, system) in systems.iter_mut().enumerate() {
        system.rows = ctx.table(system_table(i).as_str()).await?.count().await? as u64;
        for column in &problem_columns {
            let reasons = reasons(&ctx, i, column).await?;
            system.problems.push((column.clone(), reasons));
        }
    }
    let comparison = match n {
        1 => None,
        _ => {
            let compare_options = CompareOptions {
                metrics: Some(metrics.clone()),
                ..options.compare.clone()
            };
            Some(compare::compare(&options.tables, &compare_options, tuning).await?)
        }
    };
    let mut views = Vec::new();
    for (k, metric) in metrics.iter().enumerate() {
        let compared = comparison.as_ref().map(|c| &c.metrics[k]);
        views.push(metric_view(&ctx, systems.len(), metric, &options.compare, compared).await?);
    }
    let mut densities = Vec::new();
    for &(x, y) in DENSITIES {
        let (Some(xv), Some(yv)) = (
            views.iter().find(|v| v.name == x),
            views.iter().find(|v| v.name == y),
        ) else {
            continue;
        };
        for i in 0..systems.len() {
            densities.push(density(&ctx, i, xv, yv).await?);
        }
    }
    let lists = pair_lists(&ctx, &systems, &metrics, options.pairs).await?;
    if systems.iter().any(|s| s.inputs.alignments.is_none()) && !lists.is_empty() {
        notes.push(
            "pairs of a table without alignments are drawn without links (give --alignments)"
                .into(),
        );
    }
    let pairs_drawn = lists.iter().flat_map(|l| &l.pairs).map(Vec::len).sum();
    let report = Report {
        significance: options.compare.clone(),
        systems,
        metrics: views,
        densities,
        comparison,
        lists,
        notes,
    };
    let page = html::page(&report);
    write_whole(&options.out, page.as_bytes())?;
    Ok(Written {
        bytes: page.len(),
        pairs_drawn,
        notes: report.notes,
    })
}

/// The finite values of a column (NaN and the infinities have no bin).
fn finite(column: &Expr) -> Expr {
    let (low, high) = (lit(-1.0e308), lit(1.0e308));
    column.clone().gt(low).and(column.clone().lt(high))
}

/// Whether `recorded`, a path a table's footer names, is where `table` is: both local, or both
/// in the same store and bucket.
fn same_place(table: &Path, recorded: &Path) -> bool {
    match (Location::parse(table), Location::parse(recorded)) {
        (Ok(Location::Local(_)), Ok(Location::Local(_))) => true,
        (Ok(Location::Remote(a)), Ok(Location::Remote(b))) => a.root == b.root,
        _ => false,
    }
}

/// The name table `i` (the baseline is 0) is registered under.
fn system_table(i: usize) -> String {
    format!("system{i}")
}

/// The metrics every table has (score columns, or else every Float64 column but pair_id) and
/// the problem columns any has.
async fn columns(ctx: &SessionContext, files: &[PathBuf]) -> Result<(Vec<String>, Vec<String>)> {
    let mut schemas = Vec::new();
    for i in 0..files.len() {
        schemas.push(ctx.table_provider(system_table(i).as_str()).await?.schema());
    }
    let all_have = |name: &str, numeric: bool| {
        schemas.iter().all(|s| {
            s.field_with_name(name).is_ok_and(|f| {
                if numeric {
                    f.data_type().is_numeric()
                } else {
                    f.data_type() == &DataType::Utf8
                }
            })
        })
    };
    let mut metrics: Vec<String> = all_columns()
        .filter(|c| c.role == Role::Score && all_have(c.name, true))
        .map(|c| c.name.to_string())
        .collect();
    if metrics.is_empty() {
        metrics = schemas[0]
            .fields()
            .iter()
            .filter(|f| f.data_type() == &DataType::Float64 && all_have(f.name(), true))
            .map(|f| f.name().clone())
            .collect();
    }
    if metrics.is_empty() {
        bail!(
            "{}: no score column (led, pod, derp, ... or any Float64 column) to report on",
            files[0].display()
        );
    }
    let problems = all_columns()
        .filter(|c| c.role == Role::Problem && all_have(c.name, false))
        .map(|c| c.name.to_string())
        .collect();
    Ok((metrics, problems))
}

async fn collect(frame: DataFrame) -> Result<RecordBatch> {
    let schema = frame.schema().inner().clone();
    let batches = frame.collect().await?;
    Ok(concat_batches(&schema, &batches)?)
}

/// Column `column` of `batch` cast once to `T` (Float64 or Int64 here), NULL as None.
fn values<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(
    batch: &RecordBatch,
    column: usize,
) -> Result<Vec<Option<T::Native>>> {
    let array = cast(batch.column(column), &T::DATA_TYPE)?;
    Ok(array.as_primitive::<T>().iter().collect())
}

/// Why rows of table `i` have no score, by `column`: (reason, rows), most frequent first.
async fn reasons(ctx: &SessionContext, i: usize, column: &str) -> Result<Vec<(String, u64)>> {
    let c = ident(column);
    let frame = ctx
        .table(system_table(i).as_str())
        .await?
        .filter(c.clone().is_not_null())?
        .aggregate(vec![c.clone()], vec![count_all().alias("rows")])?
        .sort(vec![ident("rows").sort(false, true), c.sort(true, false)])?
        .limit(0, Some(20))?;
    let batch = collect(frame).await?;
    let (reasons, rows) = (
        batch.column(0).as_string::<i32>(),
        values::<Int64Type>(&batch, 1)?,
    );
    Ok(rows
        .iter()
        .enumerate()
        .map(|(r, n)| (reasons.value(r).to_string(), n.unwrap_or(0) as u64))
        .collect())
}

/// A metric in every table: its figures, then a histogram over bins shared by all tables (over
/// [0, 1] when every value is in it). Each mean's interval is `compare`'s when it compared the
/// tables (the same bootstrap: the same figures), else drawn here.
async fn metric_view(
    ctx: &SessionContext,
    systems: usize,
    metric: &str,
    options: &CompareOptions,
    compared: Option<&MetricResult>,
) -> Result<MetricView> {
    let m = ident(metric);
    let f: &dyn FunctionRegistry = ctx;
    let CompareOptions {
        resamples,
        seed,
        level,
        ..
    } = options;
    let mut per_system = Vec::new();
    for i in 0..systems {
        let mut aggregates = vec![count(m.clone()), min(m.clone()), max(m.clone())];
        if compared.is_none() {
            let (level, resamples, seed) = (lit(*level), lit(*resamples), lit(*seed));
            aggregates.push(expr::bootstrap_ci(f, m.clone(), level, resamples, seed)?);
        }
        let table = ctx.table(system_table(i).as_str()).await?;
        let batch = collect(table.filter(finite(&m))?.aggregate(vec![], aggregates)?).await?;
        let (n, mean) = match compared {
            Some(result) => (result.systems[i].n, result.systems[i].mean),
            None => crate::arrow::read::interval(batch.column(3).as_struct(), "mean"),
        };
        let (min, max) = (
            values::<Float64Type>(&batch, 1)?[0],
            values::<Float64Type>(&batch, 2)?[0],
        );
        per_system.push(Stats {
            n,
            min,
            max,
            mean,
            counts: vec![0; BINS],
        });
    }
    let low = per_system
        .iter()
        .filter_map(|s| s.min)
        .fold(f64::INFINITY, f64::min);
    let high = per_system
        .iter()
        .filter_map(|s| s.max)
        .fold(f64::NEG_INFINITY, f64::max);
    let (low, high) = match (low, high) {
        (l, h) if l > h => (0.0, 1.0),
        (l, h) if l >= 0.0 && h <= 1.0 => (0.0, 1.0),
        (l, h) if l == h => (l - 0.5, h + 0.5),
        range => range,
    };
    for (i, stats) in per_system.iter_mut().enumerate() {
        let bin = bin_expr(m.clone(), low, high, BINS);
        let table = ctx.table(system_table(i).as_str()).await?;
        let batch = collect(
            table
                .filter(finite(&m))?
                .aggregate(vec![bin], vec![count_all()])?,
        )
        .await?;
        for (b, c) in values::<Int64Type>(&batch, 0)?
            .into_iter()
            .zip(values::<Int64Type>(&batch, 1)?)
        {
            stats.counts[(b.unwrap_or(0) as usize).min(BINS - 1)] += c.unwrap_or(0) as u64;
        }
    }
    Ok(MetricView {
        name: metric.to_string(),
        low,
        high,
        per_system,
    })
}

/// The bin (0 to bins - 1) of `column` over [low, high]; `high` itself is in the last bin.
fn bin_expr(column: Expr, low: f64, high: f64, bins: usize) -> Expr {
    let width = (high - low) / bins as f64;
    let bin = floor((column - lit(low)) / lit(width));
    let last = lit((bins - 1) as f64);
    cast_expr(
        least(vec![greatest(vec![bin, lit(0.0)]), last]),
        DataType::Int64,
    )
}

async fn density(
    ctx: &SessionContext,
    i: usize,
    x: &MetricView,
    y: &MetricView,
) -> Result<Density> {
    let (cx, cy) = (ident(&x.name), ident(&y.name));
    let (bx, by) = (
        bin_expr(cx.clone(), x.low, x.high, DENSITY_BINS).alias("bx"),
        bin_expr(cy.clone(), y.low, y.high, DENSITY_BINS).alias("by"),
    );
    let table = ctx.table(system_table(i).as_str()).await?;
    let cells = table
        .filter(finite(&cx).and(finite(&cy)))?
        .aggregate(vec![bx, by], vec![count_all()])?;
    let batch = collect(cells).await?;
    let mut counts = vec![0; DENSITY_BINS * DENSITY_BINS];
    let [xs, ys, cells] = [0, 1, 2].map(|c| values::<Int64Type>(&batch, c));
    for ((bx, by), c) in xs?.into_iter().zip(ys?).zip(cells?) {
        let (bx, by) = (
            (bx.unwrap_or(0) as usize).min(DENSITY_BINS - 1),
            (by.unwrap_or(0) as usize).min(DENSITY_BINS - 1),
        );
        counts[by * DENSITY_BINS + bx] += c.unwrap_or(0) as u64;
    }
    let axis = |v: &MetricView| Axis {
        name: v.name.clone(),
        low: v.low,
        high: v.high,
    };
    Ok(Density {
        system: i,
        x: axis(x),
        y: axis(y),
        counts,
    })
}

/// One table: the `k` most extreme pairs of each metric of [`EXTREMES`] it has. Several: for
/// each system and metric, the `k` pairs where it differs most from the baseline (and differs),
/// drawn in both.
async fn pair_lists(
    ctx: &SessionContext,
    systems: &[System],
    metrics: &[String],
    k: usize,
) -> Result<Vec<PairList>> {
    let mut lists: Vec<(String, Vec<(usize, i64)>)> = Vec::new();
    if k == 0 {
        return Ok(vec![]);
    }
    for &(metric, worst, what) in EXTREMES
        .iter()
        .filter(|(m, _, _)| metrics.iter().any(|x| x == m))
    {
        if systems.len() == 1 {
            let m = ident(metric);
            let ascending = worst != Worst::Highest;
            let frame = ctx
                .table(system_table(0).as_str())
                .await?
                .filter(finite(&m))?
                .sort(vec![
                    m.sort(ascending, !ascending),
                    ident("pair_id").sort(true, false),
                ])?
                .limit(0, Some(k))?
                .select(vec![ident("pair_id")])?;
            let batch = collect(frame).await?;
            let ids = values::<Int64Type>(&batch, 0)?
                .into_iter()
                .flatten()
                .map(|id| (0, id))
                .collect();
            lists.push((format!("The {k} {what}"), ids));
            continue;
        }
        for (i, system) in systems.iter().enumerate().skip(1) {
            let (baseline, other) = (system_table(0), system_table(i));
            let (b, s) = (column_of(&baseline, metric), column_of(&other, metric));
            let pair_id = column_of(&baseline, "pair_id");
            let both = join_on_pair_id(ctx, &baseline, &other, JoinType::Inner).await?;
            let frame = both
                .filter(finite(&b).and(finite(&s)).and(s.clone().not_eq(b.clone())))?
                .sort(vec![
                    abs(s - b).sort(false, true),
                    pair_id.clone().sort(true, false),
                ])?
                .limit(0, Some(k))?
                .select(vec![pair_id])?;
            let batch = collect(frame).await?;
            let ids = values::<Int64Type>(&batch, 0)?
                .into_iter()
                .flatten()
                .map(|id| (i, id))
                .collect();
            lists.push((
                format!(
                    "Where {} differs most from the baseline in {metric}",
                    system.file
                ),
                ids,
            ));
        }
    }
    // Read every pair a table shows in one query per table.
    let mut wanted: Vec<Vec<i64>> = vec![vec![]; systems.len()];
    for (_, ids) in &lists {
        for &(i, id) in ids {
            for s in [0, i] {
                if !wanted[s].contains(&id) {
                    wanted[s].push(id);
                }
            }
        }
    }
    let mut views: HashMap<(usize, i64), PairView> = HashMap::new();
    for (i, ids) in wanted.iter().enumerate() {
        if !ids.is_empty() {
            views.extend(
                pair_views(ctx, i, &systems[i].inputs, metrics, ids)
                    .await?
                    .into_iter()
                    .map(|v| ((i, v.pair_id), v)),
            );
        }
    }
    Ok(lists
        .into_iter()
        .map(|(title, ids)| {
            let pairs = ids
                .into_iter()
                .map(|(i, id)| {
                    let shown = if i == 0 { vec![0] } else { vec![0, i] };
                    shown
                        .into_iter()
                        .filter_map(|s| views.get(&(s, id)).cloned())
                        .collect()
                })
                .collect();
            PairList { title, pairs }
        })
        .collect())
}

/// The pairs `ids` of table `i`, with their links, LeD and PoD explained, and DERP's tree.
async fn pair_views(
    ctx: &SessionContext,
    i: usize,
    inputs: &ScoredFrom,
    metrics: &[String],
    ids: &[i64],
) -> Result<Vec<PairView>> {
    let f: &dyn FunctionRegistry = ctx;
    let wanted = |key: Expr| key.in_list(ids.iter().map(|&id| lit(id)).collect(), false);
    let table = ctx.table(system_table(i).as_str()).await?;
    let schema = table.schema().inner().clone();
    let tokens = ["src", "tgt"].iter().all(|c| {
        schema
            .field_with_name(c)
            .is_ok_and(|f| crate::schema::is_token_list(f.data_type()))
    });
    // LeD compares the tokens as `score` did: lowercased by the same function when it was asked.
    let compared = |c: &str| match inputs.lowercase {
        true => expr::lowercase_tokens(f, ident(c)),
        false => Ok(ident(c)),
    };
    let mut selected = vec![ident("pair_id")];
    match tokens {
        true => selected.extend([
            ident("src"),
            ident("tgt"),
            compared("src")?.alias("src_compared"),
            compared("tgt")?.alias("tgt_compared"),
        ]),
        false => selected.extend(
            ["src", "tgt", "src_compared", "tgt_compared"].map(|c| lit(ScalarValue::Null).alias(c)),
        ),
    }
    selected.extend(
        metrics
            .iter()
            .enumerate()
            .map(|(k, m)| cast_expr(ident(m), DataType::Float64).alias(format!("value{k}"))),
    );
    let batch = collect(table.filter(wanted(ident("pair_id")))?.select(selected)?).await?;
    let links = match &inputs.alignments {
        Some(_) => {
            let alignments = ctx.table(format!("alignments{i}").as_str()).await?;
            let frame = alignments
                .filter(wanted(ident("pair_id")))?
                .select(vec![ident("pair_id"), ident("links")])?;
            let batch = collect(frame).await?;
            let lists = LinkLists::new(batch.column(1))?;
            let mut by_id = HashMap::new();
            for (r, id) in values::<Int64Type>(&batch, 0)?.into_iter().enumerate() {
                let mut links = Vec::new();
                if let (Some(id), Ok(())) = (id, lists.row(r, &mut links)) {
                    by_id.insert(id, links);
                }
            }
            by_id
        }
        None => HashMap::new(),
    };
    let trees = match (&inputs.alignments, &inputs.arcs) {
        (Some(_), Some(_)) => derp_trees(ctx, i, wanted).await?,
        _ => HashMap::new(),
    };
    let punct = Punctuation::new(&inputs.punct);
    let mut views = Vec::new();
    let strings = |c: usize| TokenLists::new("tokens", batch.column(c));
    let (src, tgt, src_cmp, tgt_cmp) = match tokens {
        true => (
            Some(strings(1)?),
            Some(strings(2)?),
            Some(strings(3)?),
            Some(strings(4)?),
        ),
        false => (None, None, None, None),
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut scratch = lepod::Scratch::default();
    let metric_values: Vec<Vec<Option<f64>>> = (0..metrics.len())
        .map(|k| values::<Float64Type>(&batch, 5 + k))
        .collect::<Result<_>>()?;
    for (r, pair_id) in values::<Int64Type>(&batch, 0)?.into_iter().enumerate() {
        let Some(pair_id) = pair_id else { continue };
        let words = |lists: &Option<TokenLists>| -> Vec<String> {
            let mut out = Vec::new();
            if let Some(items) = lists.as_ref().and_then(|l| l.items(r)) {
                out.extend(items.map(|t| t.unwrap_or("<NULL>").to_string()));
            }
            out
        };
        let links = links.get(&pair_id).cloned();
        let lepod = match (&src_cmp, &tgt_cmp, &links) {
            (None, _, _) | (_, None, _) => {
                Err("the table has no src and tgt token lists".to_string())
            }
            (_, _, None) => Err("no alignment to draw with".to_string()),
            (Some(s), Some(t), Some(links)) => match (s.row(r, &mut a), t.row(r, &mut b)) {
                (Ok(()), Ok(())) => {
                    lepod::explain(&a, &b, links, &punct, &mut scratch).map_err(|e| e.to_string())
                }
                (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
            },
        };
        views.push(PairView {
            system: i,
            pair_id,
            src: words(&src),
            tgt: words(&tgt),
            values: metrics
                .iter()
                .zip(&metric_values)
                .map(|(m, v)| (m.clone(), v[r]))
                .collect(),
            links,
            lepod,
            derp: trees.get(&pair_id).cloned(),
        });
    }
    Ok(views)
}

/// `derp_detail`'s spanning tree of the `wanted` pairs of table `i`, by pair_id.
async fn derp_trees(
    ctx: &SessionContext,
    i: usize,
    wanted: impl Fn(Expr) -> Expr,
) -> Result<HashMap<i64, DerpTree>> {
    let (arcs, alignments) = (format!("arcs{i}"), format!("alignments{i}"));
    let r = |c: &str| column_of(&arcs, c);
    let detail = expr::derp_detail(
        ctx,
        r("src_head"),
        r("src_deprel"),
        r("tgt_head"),
        r("tgt_deprel"),
        column_of(&alignments, "links"),
    )?;
    let pair_id = column_of(&alignments, "pair_id");
    let frame = join_on_pair_id(ctx, &arcs, &alignments, JoinType::Inner)
        .await?
        .filter(wanted(pair_id.clone()))?
        .select(vec![pair_id, detail])?;
    let batch = collect(frame).await?;
    let detail = batch.column(1).as_struct();
    let side = detail
        .column_by_name("side")
        .expect("derp_detail has a side")
        .as_string::<i32>();
    let mst = detail
        .column_by_name("mst")
        .expect("derp_detail has an mst")
        .as_list::<i32>();
    let mut trees = HashMap::new();
    for (r, id) in values::<Int64Type>(&batch, 0)?.into_iter().enumerate() {
        let Some(id) = id else { continue };
        if side.is_null(r) || mst.is_null(r) {
            continue;
        }
        let edges = mst.value(r);
        let edges = edges.as_struct();
        let field = |name: &str| {
            edges
                .column_by_name(name)
                .expect("an edge field")
                .as_primitive::<Int32Type>()
                .clone()
        };
        let [fa, fb, fl, fm] = ["a", "b", "l", "lmax"].map(field);
        let edges = (0..edges.len())
            .map(|e| [fa.value(e), fb.value(e), fl.value(e), fm.value(e)])
            .collect();
        trees.insert(
            id,
            DerpTree {
                on_src: side.value(r) == "src",
                edges,
            },
        );
    }
    Ok(trees)
}
