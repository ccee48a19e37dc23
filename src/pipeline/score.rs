//! `pairmetrics score`: join the input tables on `pair_id`, add a column per computable metric,
//! and stream the result into a Parquet file written atomically.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Float64Type, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use indicatif::{ProgressBar, ProgressStyle};

use super::lockstep;
use super::session::{self, Tuning};
use super::resources::ResourceOptions;
use super::copied::CopyFrom;
use super::write::{AtomicParquetWriter, Codec};
use crate::schema::Table;

#[derive(Debug, Clone)]
pub struct ScoreOptions {
    pub pairs: PathBuf,
    pub alignments: Option<PathBuf>,
    pub arcs: Option<PathBuf>,
    pub out: PathBuf,
    pub lowercase: bool,
    pub punct: String,
    /// A phrase table adds `true_score` (tgt as a paraphrase of src); a language model adds
    /// `src_lm_logprob` and `tgt_lm_logprob`; triple counts (with arcs) add `tgt_dep_fit`.
    pub resources: ResourceOptions,
    pub tuning: Tuning,
    /// How the output is compressed.
    pub compression: Codec,
    /// Stop at the first row a metric cannot score, naming it, instead of writing NULL.
    pub strict: bool,
    pub progress: bool,
}

impl ScoreOptions {
    /// The metric configuration, sacrebleu style, written into the output's metadata.
    pub fn signature(&self) -> String {
        let led = if self.alignments.is_some() { "links" } else { "multiset" };
        let case = if self.lowercase { "lc" } else { "mixed" };
        let mut sig = format!("pairmetrics:{}|led:{led}|case:{case}", crate::VERSION);
        if self.alignments.is_some() {
            sig += &format!("|pod:punct={:?}", self.punct);
        }
        if self.scores_derp() {
            sig += "|derp:mst";
        }
        if let Some(table) = &self.resources.phrase_table {
            sig += &format!("|{}", table.signature());
        }
        if self.scores_fit() {
            sig += "|dep_fit:paper,form,sentence";
        }
        if self.resources.lm.is_some() {
            sig += "|lm:log10,bos,eos";
        }
        sig
    }

    /// DERP needs both parses and the alignment.
    pub fn scores_derp(&self) -> bool {
        self.arcs.is_some() && self.alignments.is_some()
    }

    /// The dependency fitness of tgt needs its parse and triple counts.
    pub fn scores_fit(&self) -> bool {
        self.arcs.is_some() && self.resources.triples.is_some()
    }

    fn joins_arcs(&self) -> bool {
        self.scores_derp() || self.scores_fit()
    }
}

/// The metric columns `score` adds; input columns of the same name are replaced.
const METRICS: &[&str] = &[
    "led",
    "pod",
    "lepod_problem",
    "derp",
    "derp_problem",
    "true_score",
    "tgt_dep_fit",
    "tgt_dep_fit_problem",
    "src_lm_logprob",
    "tgt_lm_logprob",
];

/// The metric columns the summary averages, and those that say why a metric is NULL.
const SCORED: &[&str] = &["led", "pod", "derp", "true_score", "tgt_dep_fit", "src_lm_logprob", "tgt_lm_logprob"];
const PROBLEM_COLUMNS: &[&str] = &["lepod_problem", "derp_problem", "tgt_dep_fit_problem"];

/// Per-metric corpus figures, accumulated batch by batch.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MetricSummary {
    pub scored: u64,
    pub sum: f64,
}

impl MetricSummary {
    pub fn mean(&self) -> Option<f64> {
        (self.scored > 0).then(|| self.sum / self.scored as f64)
    }
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Summary {
    pub rows: u64,
    pub metrics: BTreeMap<String, MetricSummary>,
    /// Rows with NULL metrics, by problem column and reason.
    pub problems: BTreeMap<(String, String), u64>,
    /// Rows of the alignments and arcs tables whose pair_id is not in the pairs table (they are
    /// not in the output), by table.
    pub orphans: BTreeMap<&'static str, u64>,
    pub signature: String,
    pub notes: Vec<String>,
}

impl Summary {
    fn add(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
        for &name in SCORED {
            let Some(column) = batch.column_by_name(name) else { continue };
            let values = column.as_primitive::<Float64Type>();
            let entry = self.metrics.entry(name.to_string()).or_default();
            entry.scored += (values.len() - values.null_count()) as u64;
            // Sequential sum in row order: the corpus mean is reproducible to the last bit.
            for v in values.iter().flatten() {
                entry.sum += v;
            }
        }
        for &name in PROBLEM_COLUMNS {
            let Some(column) = batch.column_by_name(name) else { continue };
            for reason in column.as_string::<i32>().iter().flatten() {
                *self.problems.entry((name.to_string(), reason.to_string())).or_default() += 1;
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rows: {}", self.rows)?;
        let metrics = SCORED.iter().filter_map(|&name| Some((name, self.metrics.get(name)?)));
        for (name, m) in metrics {
            match m.mean() {
                Some(mean) => writeln!(
                    f,
                    "{name}: mean {mean:.4} over {} pairs ({} NULL)",
                    m.scored,
                    self.rows - m.scored
                )?,
                None => writeln!(f, "{name}: no pair could be scored")?,
            }
        }
        let mut column = None;
        for ((name, reason), count) in &self.problems {
            if column != Some(name) {
                writeln!(f, "rows with NULL metrics, by reason (column {name}):")?;
                column = Some(name);
            }
            writeln!(f, "  {count:>8}  {reason}")?;
        }
        for (table, count) in self.orphans.iter().filter(|&(_, &count)| count > 0) {
            writeln!(f, "rows of {table} with no pair (not in the output): {count}")?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        write!(f, "signature: {}", self.signature)
    }
}

/// A checked, planned job: the session with its tables and the query to stream.
pub struct Prepared {
    pub ctx: SessionContext,
    pub query: String,
    pub rows: u64,
    /// Set when every table lists the same pair_ids in the same order: the tables are then
    /// read side by side and the query runs over the zipped batches, with no join.
    lockstep: Option<Vec<lockstep::Source>>,
    summary: Summary,
}

/// The name of the zipped tables in a lockstep query.
const LOCKSTEP: &str = "lockstep";

/// Check the inputs (schemas, then pair_id: present, unique, and whether sorted) and plan.
/// Tables that list the same sorted pair_ids are read in lockstep; otherwise tables sorted by
/// pair_id are declared so, which lets the join stream (a merge join of two scans, no sort, no
/// hash table of a whole side).
pub async fn prepare(options: &ScoreOptions) -> Result<Prepared> {
    let mut config = SessionConfig::new();
    config.options_mut().optimizer.prefer_hash_join = false;
    // Left on, it copies `lepod(...)` into each of its three field accesses (DataFusion 55
    // pushes get_field towards the scan), and LePoD would run three times per pair.
    config.options_mut().optimizer.enable_leaf_expression_pushdown = false;
    let (resources, loaded) = super::resources::load(&options.resources).await?;
    let ctx = session::context_with_resources(config, &resources, &options.tuning)?;
    let mut summary = Summary { signature: options.signature(), ..Default::default() };
    summary.notes.extend(loaded);
    let mut inputs = vec![(Table::Pairs, &options.pairs)];
    inputs.extend(options.alignments.as_ref().map(|path| (Table::Alignments, path)));
    inputs.extend(options.arcs.as_ref().filter(|_| options.joins_arcs()).map(|path| (Table::Arcs, path)));
    let mut orders = Vec::new();
    for &(table, path) in &inputs {
        orders.push(session::register_keyed(&ctx, table, path).await?);
    }
    let rows = orders[0].rows;
    if let (Some(path), false) = (&options.arcs, options.joins_arcs()) {
        session::register_checked(&ctx, Table::Arcs, path).await?;
        summary.notes.push("arcs checked; DERP needs --alignments too and dep_fit --triples, so neither was scored".into());
    }
    let lockstep = match orders.iter().all(|o| o.ascending && o.same_sequence(&orders[0])) {
        true => lockstep_sources(&ctx, &inputs).await?,
        false => None,
    };
    if let Some(sources) = &lockstep {
        for source in &sources[1..] {
            summary.orphans.insert(source.name, 0);
        }
        let zipped = lockstep::zipped_schema(&lockstep_schemas(&ctx, sources).await?)?;
        ctx.register_table(LOCKSTEP, Arc::new(MemTable::try_new(zipped, vec![vec![]])?))?;
    } else {
        for ((table, path), order) in inputs.iter().zip(&orders) {
            if !order.ascending {
                summary.notes.push(format!(
                    "{} is not sorted by pair_id, so it was sorted (spilling to disk if needed); \
                     sort it once to stream",
                    path.display()
                ));
            }
            if *table != Table::Pairs {
                let name = table.name();
                let orphans = format!("SELECT count(*) FROM {name} x LEFT ANTI JOIN pairs p ON x.pair_id = p.pair_id");
                summary.orphans.insert(name, session::count(&ctx, &orphans).await?);
            }
        }
    }
    let query = score_query(&ctx, options, lockstep.is_some()).await?;
    Ok(Prepared { ctx, query, rows, lockstep, summary })
}

/// The tables to read in lockstep: pairs whole, and the columns the metrics use of the others.
/// None when a pairs column would clash with their names in the zipped batch.
async fn lockstep_sources(ctx: &SessionContext, inputs: &[(Table, &PathBuf)]) -> Result<Option<Vec<lockstep::Source>>> {
    let pairs_schema = ctx.table_provider("pairs").await?.schema();
    let mut sources = Vec::new();
    for &(table, path) in inputs {
        let (alias, columns): (_, &[&str]) = match table {
            Table::Pairs => (None, &[]),
            Table::Alignments => (Some("a"), &["links"]),
            Table::Arcs => (Some("r"), &["src_head", "src_deprel", "tgt_head", "tgt_deprel"]),
            _ => unreachable!("score reads pairs, alignments and arcs"),
        };
        let columns: Vec<String> = match alias {
            None => pairs_schema.fields().iter().map(|f| f.name().clone()).collect(),
            Some(alias) => {
                if columns.iter().any(|c| pairs_schema.index_of(&lockstep::renamed(alias, c)).is_ok()) {
                    return Ok(None);
                }
                columns.iter().map(|c| c.to_string()).collect()
            }
        };
        sources.push(lockstep::Source { name: table.name(), path: path.clone(), alias, columns });
    }
    Ok(Some(sources))
}

async fn lockstep_schemas(ctx: &SessionContext, sources: &[lockstep::Source]) -> Result<Vec<(lockstep::Source, SchemaRef)>> {
    let mut schemas = Vec::new();
    for source in sources {
        schemas.push((source.clone(), ctx.table_provider(source.name).await?.schema()));
    }
    Ok(schemas)
}

/// The plan `score` would run (inputs are checked, nothing is written).
pub async fn explain(options: &ScoreOptions) -> Result<String> {
    let Prepared { ctx, query, lockstep, .. } = prepare(options).await?;
    let plan = ctx.sql(&query).await?.create_physical_plan().await?;
    let shown = datafusion::physical_plan::displayable(plan.as_ref()).indent(true).to_string();
    let how = match lockstep {
        Some(sources) => {
            let names: Vec<_> = sources.iter().map(|s| s.name).collect();
            format!(
                "-- lockstep: {} list the same pair_ids in the same order, so they are read side by \
                 side (no join) and the projections below run per batch on every core\n",
                names.join(", ")
            )
        }
        None => String::new(),
    };
    Ok(format!("{how}{query}\n\n{shown}"))
}

/// Run the whole job: check inputs, plan, stream, write atomically, summarise.
pub async fn score(options: &ScoreOptions) -> Result<Summary> {
    let Prepared { ctx, query, rows, lockstep, mut summary } = prepare(options).await?;
    let frame = ctx.sql(&query).await?;
    let mut copy = None;
    let (schema, mut stream): (SchemaRef, BoxStream<'static, Result<RecordBatch>>) = match lockstep {
        Some(sources) => {
            // Rows come in the pairs file's order, so its columns can be copied as stored.
            if options.pairs.is_file() {
                let columns = sources[0].columns.iter().filter(|c| !METRICS.contains(&c.as_str())).cloned().collect();
                copy = Some(CopyFrom { path: options.pairs.clone(), columns });
            }
            let plan = frame.create_physical_plan().await?;
            let zipped = ctx.table_provider(LOCKSTEP).await?.schema();
            let projection = Arc::new(lockstep::Projection::from_plan(&plan, &zipped)?);
            let config = ctx.copied_config();
            let zip = lockstep::Zip::open(sources, zipped, config.batch_size()).await?;
            let parallel = 2 * config.target_partitions();
            (projection.schema(), lockstep::evaluate(zip, projection, parallel).boxed())
        }
        None => {
            let schema = frame.schema().inner().clone();
            (schema, frame.execute_stream().await?.map_err(anyhow::Error::from).boxed())
        }
    };
    let metadata = vec![
        ("pairmetrics.signature".to_string(), summary.signature.clone()),
        ("pairmetrics.query".to_string(), query.clone()),
    ];
    let mut writer = AtomicParquetWriter::create_fast(&options.out, schema, metadata, options.compression, copy.as_ref())?;
    let copied = writer.copied_columns();
    if !copied.is_empty() {
        summary.notes.push(format!(
            "{} copied from {} as stored (its encoding and compression; --compression applies to the computed columns)",
            copied.join(", "),
            options.pairs.display()
        ));
    }
    let bar = progress_bar(options.progress, rows);
    while let Some(batch) = stream.try_next().await? {
        if options.strict {
            check_strict(&batch)?;
        }
        summary.add(&batch);
        bar.inc(batch.num_rows() as u64);
        writer.write(&batch)?;
    }
    bar.finish_and_clear();
    if summary.rows != rows {
        bail!("internal error: {rows} input pairs but {} output rows; nothing was written", summary.rows);
    }
    writer.finish()?;
    Ok(summary)
}

/// Under --strict, the first row with a problem is an error (and the output is never written).
fn check_strict(batch: &RecordBatch) -> Result<()> {
    for &name in PROBLEM_COLUMNS {
        let Some(column) = batch.column_by_name(name) else { continue };
        let reasons = column.as_string::<i32>();
        if let Some(row) = (0..reasons.len()).find(|&i| reasons.is_valid(i)) {
            let ids = batch.column_by_name("pair_id").expect("score keeps pair_id");
            let id = ids.as_primitive::<datafusion::arrow::datatypes::Int64Type>().value(row);
            bail!(
                "pair_id {id}: {} (column {name}); --strict stops at the first row that cannot \
                 be scored, nothing was written",
                reasons.value(row)
            );
        }
    }
    Ok(())
}


/// `SELECT <pairs columns>, <metrics> FROM pairs LEFT JOIN alignments ... ORDER BY pair_id`, or
/// in lockstep `SELECT <pairs columns>, <metrics> FROM lockstep p` over the zipped batches.
async fn score_query(ctx: &SessionContext, options: &ScoreOptions, lockstep: bool) -> Result<String> {
    let pairs_schema = ctx.table_provider("pairs").await?.schema();
    let mut select: Vec<String> = pairs_schema
        .fields()
        .iter()
        .filter(|f| !METRICS.contains(&f.name().as_str()))
        .map(|f| format!("p.{}", session::quote(f.name())))
        .collect();
    let tokens = |side: &str| {
        if options.lowercase {
            format!("lowercase_tokens(p.{side})")
        } else {
            format!("p.{side}")
        }
    };
    // A column of the alignments (alias a) or arcs (alias r) table.
    let joined = |alias: &str, column: &str| match lockstep {
        true => format!("p.{}", lockstep::renamed(alias, column)),
        false => format!("{alias}.{column}"),
    };
    let links = joined("a", "links");
    let arcs = |column: &str| joined("r", column);
    let (src, tgt) = (tokens("src"), tokens("tgt"));
    let mut from = match lockstep {
        true => format!("{LOCKSTEP} p"),
        false => "pairs p".to_string(),
    };
    // Each metric is written once, unconditionally; its problem column repeats it first in a
    // CASE, so DataFusion computes it once (common subexpression) and the problem only for the
    // rows it leaves NULL.
    if options.alignments.is_some() {
        let punct = options.punct.replace('\'', "''");
        // One call for all three: the alignment's units are computed once per pair.
        let lepod = format!("lepod({src}, {tgt}, {links}, '{punct}')");
        for (field, name) in [("led", "led"), ("pod", "pod"), ("problem", "lepod_problem")] {
            select.push(format!("{lepod}['{field}'] AS {name}"));
        }
        if !lockstep {
            from += " LEFT JOIN alignments a ON p.pair_id = a.pair_id";
        }
    } else {
        let led = format!("led({src}, {tgt})");
        select.push(format!("{led} AS led"));
        select.push(format!("CASE WHEN {led} IS NULL THEN lepod_problem({src}, {tgt}) END AS lepod_problem"));
    }
    if options.scores_derp() {
        let heads = |side: &str| arcs(&format!("{side}_head"));
        let args = format!(
            "{}, {}, {}, {}, {links}",
            heads("src"),
            arcs("src_deprel"),
            heads("tgt"),
            arcs("tgt_deprel")
        );
        let derp = format!("derp({args})");
        // A parse of other tokens than the pair's would score silently wrong: say so instead.
        let differs = |side: &str| format!("cardinality(p.{side}) <> cardinality({})", heads(side));
        let mismatch = |side: &str| {
            format!(
                "WHEN {} THEN concat('{side} has ', cardinality(p.{side}), ' tokens but its parse ', \
                 cardinality({}))",
                differs(side),
                heads(side)
            )
        };
        let any_differs = format!("{} OR {}", differs("src"), differs("tgt"));
        select.push(format!("CASE WHEN {derp} IS NULL OR {any_differs} THEN NULL ELSE {derp} END AS derp"));
        select.push(format!(
            "CASE WHEN {derp} IS NOT NULL AND NOT ({any_differs}) THEN NULL {} {} \
             ELSE derp_problem({args}) END AS derp_problem",
            mismatch("src"),
            mismatch("tgt")
        ));
    }
    if options.scores_fit() {
        let args = format!("{tgt}, {}, {}, 0, cardinality(p.tgt)", arcs("tgt_head"), arcs("tgt_deprel"));
        let fit = format!("dep_fit({args})");
        select.push(format!("{fit} AS tgt_dep_fit"));
        // In lockstep every pair has its arcs row.
        let no_arcs = match lockstep {
            true => "",
            false => "WHEN r.pair_id IS NULL THEN 'no parse (no arcs row)' ",
        };
        select.push(format!(
            "CASE WHEN {fit} IS NOT NULL THEN NULL {no_arcs}ELSE dep_fit_problem({args}) END AS tgt_dep_fit_problem"
        ));
    }
    if options.joins_arcs() && !lockstep {
        from += " LEFT JOIN arcs r ON p.pair_id = r.pair_id";
    }
    if options.resources.phrase_table.is_some() {
        select.push(format!("true_score({src}, {tgt}) AS true_score"));
    }
    if options.resources.lm.is_some() {
        select.push(format!("lm_logprob({src}) AS src_lm_logprob"));
        select.push(format!("lm_logprob({tgt}) AS tgt_lm_logprob"));
    }
    // Lockstep batches come in pair_id order. Otherwise NULLS FIRST matches the declared order
    // of sorted inputs, so no sort is planned.
    let order = if lockstep { "" } else { " ORDER BY p.pair_id NULLS FIRST" };
    Ok(format!("SELECT {} FROM {from}{order}", select.join(", ")))
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    // Draws to stderr, and only when it is a terminal.
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} pairs, {per_sec}, eta {eta}")
            .expect("valid template"),
    );
    bar
}
