//! `pairmetrics score`: join the input tables on `pair_id`, add a column per computable metric,
//! and stream the result into a Parquet file written atomically.

mod columns;
mod summary;

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Int64Type, SchemaRef};
use datafusion::common::JoinType;
use datafusion::logical_expr::{Expr, SortExpr};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use indicatif::{ProgressBar, ProgressStyle};

use crate::align::{Aligner, AlignerOptions};
use crate::parquet::dataset::ExecutorDataset;
use crate::parquet::keys;
use crate::parquet::lockstep_table::{LockstepTable, RowSplit, in_dealt_order};
use crate::parquet::shares::CopiedColumns;
use crate::parquet::split::{row_group_shares, rows_of_row_groups};
use crate::parquet::{Codec, Encoding, KeyOrder, Layout, ParquetInput, TableWriter, lockstep};
use crate::resources::{self, ResourceOptions};
use crate::schema::{Table, with_dictionary_lists};
use crate::session::{self, Session, Tuning};
use crate::udf::opusfilter::{KEEP, REJECTED_BY};
pub use columns::{METRICS, Metric, Role, all_columns, selected as selected_metrics};
pub use summary::{Filtered, MetricSummary, Summary};

/// Where an input table comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A Parquet file or directory (or a store's URL): read as stored, streaming.
    Parquet(PathBuf),
    /// Arrow record batches in memory (from Python, say), used as they are: nothing is written
    /// to disk. They are joined on pair_id, never read in lockstep.
    Arrow {
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    },
}

impl Source {
    fn path(&self) -> Option<&PathBuf> {
        match self {
            Source::Parquet(path) => Some(path),
            Source::Arrow { .. } => None,
        }
    }

    /// How errors and notes name it.
    fn describe(&self) -> String {
        match self {
            Source::Parquet(path) => path.display().to_string(),
            Source::Arrow { .. } => "the Arrow data given".to_string(),
        }
    }
}

impl From<PathBuf> for Source {
    fn from(path: PathBuf) -> Self {
        Source::Parquet(path)
    }
}

#[derive(Debug, Clone)]
pub struct ScoreOptions {
    pub pairs: Source,
    pub alignments: Option<Source>,
    /// Align src and tgt with METEOR 1.5's aligner (`meteor_align`) when no alignments table is
    /// given.
    pub align: Option<AlignerOptions>,
    pub arcs: Option<Source>,
    /// Where [`score`] writes (a file, or a dataset directory as `layout` says);
    /// [`score_in_memory`] leaves it unused.
    pub out: PathBuf,
    /// One file, or a (partitioned) dataset.
    pub layout: Layout,
    pub lowercase: bool,
    pub punct: String,
    /// The metrics to compute, by name (see [`METRICS`]); None = every default metric whose
    /// inputs are given.
    pub metrics: Option<Vec<String>>,
    /// The languages of the pairs (source, target) for the `hardrules` metric.
    pub hardrules: Option<(String, String)>,
    /// OpusFilter's filters (`--filters`): a column per filter's score, `keep` and
    /// `rejected_by`.
    pub filters: Option<Filters>,
    /// A phrase table adds `true_score` (tgt as a paraphrase of src); a language model adds
    /// `src_lm_logprob` and `tgt_lm_logprob`; triple counts (with arcs) add `tgt_dep_fit`.
    pub resources: ResourceOptions,
    pub tuning: Tuning,
    /// How the output is compressed.
    pub compression: Codec,
    /// Stop at the first row a metric cannot score, naming it, instead of writing NULL.
    pub strict: bool,
    pub progress: bool,
    /// Run on the Ballista scheduler at this `df://HOST:PORT` (the `cluster` feature): the
    /// tables are joined there and the executors write `out`, a dataset directory.
    pub cluster: Option<String>,
}

/// The OpusFilter filters a job scores pairs with, as YAML (a list of filters or a whole
/// configuration: `formats::opusfilter_config::pair_filters`).
#[derive(Debug, Clone)]
pub struct Filters {
    /// Where the YAML comes from (a file name), for the signature.
    pub name: String,
    pub yaml: String,
}

/// A checked, planned job: the session with its tables and the query to stream.
pub struct Prepared {
    pub ctx: SessionContext,
    /// The query, built from expressions; its SQL text (or plan) goes into the metadata.
    pub frame: DataFrame,
    pub query: String,
    pub rows: u64,
    /// Set when every table lists the same pair_ids in the same order: the tables are then
    /// read side by side and the query runs over the zipped batches, with no join.
    lockstep: Option<Vec<lockstep::Source>>,
    summary: Summary,
    /// The columns `--filters` adds (input columns of these names are replaced).
    filter_columns: Vec<String>,
    /// On a cluster, in lockstep: the pairs file's row groups of each share, when the shares
    /// are whole row groups (their columns are then copied as stored).
    share_row_groups: Option<Vec<Range<usize>>>,
}

/// What a scored file records of how it was made: the tables it was scored from (absolute
/// paths) and how LeD and PoD saw the tokens. `report` reads it to draw the pairs again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoredFrom {
    pub pairs: Option<PathBuf>,
    pub alignments: Option<PathBuf>,
    pub arcs: Option<PathBuf>,
    pub lowercase: bool,
    pub punct: String,
}

impl ScoredFrom {
    fn of(options: &ScoreOptions) -> Self {
        // A URL stays a URL (made absolute, `s3://b/k` became `<cwd>/s3:/b/k`).
        let path = |source: &Source| {
            let p = source.path()?;
            Some(crate::storage::absolute(p).unwrap_or_else(|_| p.clone()))
        };
        ScoredFrom {
            pairs: path(&options.pairs),
            alignments: options.alignments.as_ref().and_then(path),
            arcs: options.arcs.as_ref().and_then(path),
            lowercase: options.lowercase,
            punct: options.punct.clone(),
        }
    }

    fn to_json(&self) -> String {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        serde_json::json!({
            "pairs": path(&self.pairs),
            "alignments": path(&self.alignments),
            "arcs": path(&self.arcs),
            "lowercase": self.lowercase,
            "punct": self.punct,
        })
        .to_string()
    }

    /// The record of a file's footer entry; None when it is not one.
    pub fn parse(json: &str) -> Option<Self> {
        let record: serde_json::Value = serde_json::from_str(json).ok()?;
        let path = |key: &str| {
            record
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(PathBuf::from)
        };
        Some(ScoredFrom {
            pairs: path("pairs"),
            alignments: path("alignments"),
            arcs: path("arcs"),
            lowercase: record.get("lowercase")?.as_bool()?,
            punct: record.get("punct")?.as_str()?.to_string(),
        })
    }
}

/// The name of the zipped tables in a lockstep query.
const LOCKSTEP: &str = "lockstep";

/// Check the inputs (schemas, then pair_id: present, unique, and whether sorted) and plan.
/// Tables that list the same sorted pair_ids are read in lockstep; otherwise tables sorted by
/// pair_id are declared so, which lets the join stream (a merge join of two scans, no sort, no
/// hash table of a whole side).
pub async fn prepare(options: &ScoreOptions) -> Result<Prepared> {
    let metrics = columns::selected(options)?;
    let reads = |input| columns::reads(options, &metrics, input);
    let mut config = SessionConfig::new();
    config.options_mut().optimizer.prefer_hash_join = false;
    // Left on, it copies `lepod(...)` into each of its three field accesses (DataFusion 55
    // pushes get_field towards the scan), and LePoD would run three times per pair.
    config
        .options_mut()
        .optimizer
        .enable_leaf_expression_pushdown = false;
    // Built now, to fail before any work on a bad module, language or resource file; the
    // session's meteor_align then uses it.
    let aligner = match &options.align {
        Some(_) if options.alignments.is_some() => {
            bail!(
                "aligning (METEOR's aligner) computes the alignment when no alignments table is given: ask for one or give the other"
            )
        }
        Some(align) => Some(Aligner::new(
            align.clone(),
            &crate::formats::input::open_resource,
        )?),
        None => None,
    };
    let (mut resources, loaded) = resources::load(&options.resources).await?;
    if let Some(aligner) = aligner {
        resources = resources.with_built_aligner(aligner);
    }
    let ctx = Session {
        config,
        resources,
        tuning: options.tuning,
        cluster: options.cluster.clone(),
    }
    .build()?;
    let mut summary = Summary {
        signature: columns::signature(options, &metrics),
        column_signatures: columns::column_signatures(options, &metrics),
        filtered: options.filters.as_ref().map(|_| Default::default()),
        ..Default::default()
    };
    summary.notes.extend(loaded);
    let mut sources = vec![(Table::Pairs, &options.pairs)];
    sources.extend(
        options
            .alignments
            .as_ref()
            .filter(|_| reads(columns::Input::Alignments))
            .map(|source| (Table::Alignments, source)),
    );
    sources.extend(
        options
            .arcs
            .as_ref()
            .filter(|_| reads(columns::Input::Arcs))
            .map(|source| (Table::Arcs, source)),
    );
    let mut inputs = Vec::new();
    for (table, source) in sources {
        let (input, order) = match source {
            Source::Parquet(path) => {
                let path = shared_path(options, path)?;
                let (input, order) = session::register_keyed(&ctx, table, &path).await?;
                (Some(input), order)
            }
            Source::Arrow { schema, batches } => {
                if options.cluster.is_some() {
                    bail!(
                        "{}: a cluster reads Parquet files, not Arrow data in this process; write it to Parquet first",
                        table.name()
                    );
                }
                let (what, schema) = (source.describe(), schema.clone());
                let order =
                    session::register_batches(&ctx, table, &what, schema, batches.clone()).await?;
                (None, order)
            }
        };
        inputs.push(Keyed {
            table,
            source: source.describe(),
            input,
            order,
        });
    }
    let rows = inputs[0].order.rows;
    for (table, source, input) in [
        (
            Table::Alignments,
            &options.alignments,
            columns::Input::Alignments,
        ),
        (Table::Arcs, &options.arcs, columns::Input::Arcs),
    ] {
        if let (Some(source), false) = (source, reads(input)) {
            match source {
                Source::Parquet(path) => {
                    session::register_checked(&ctx, table, &shared_path(options, path)?).await?;
                }
                Source::Arrow { schema, .. } => table.check(&source.describe(), schema)?,
            }
            let why = columns::unused(options, input);
            summary
                .notes
                .push(format!("{} checked but not used: {why}", table.name()));
        }
    }
    let same_order = inputs
        .iter()
        .all(|k| k.input.is_some() && k.order.ascending && k.order.same_sequence(&inputs[0].order));
    let lockstep = match same_order {
        true => lockstep_sources(&ctx, &inputs).await?,
        false => None,
    };
    let mut share_row_groups = None;
    if let Some(sources) = &lockstep {
        for keyed in &inputs[1..] {
            summary.orphans.insert(keyed.table.name(), 0);
        }
        // In one process the batches are dealt to every core and taken back in order, so the
        // pairs file's columns can be copied as stored; a cluster's tasks read shares.
        let split = match &options.cluster {
            None => RowSplit::Dealt,
            Some(_) => RowSplit::Shares,
        };
        let mut table = LockstepTable::new(sources.clone(), rows, split)?;
        if split == RowSplit::Shares
            && let Some((_, metadata)) = sources[0].input.single_file()
        {
            let group_rows: Vec<u64> = metadata
                .row_groups()
                .iter()
                .map(|rg| rg.num_rows() as u64)
                .collect();
            let partitions = ctx.copied_config().target_partitions();
            share_row_groups = row_group_shares(&group_rows, partitions);
            if let Some(shares) = &share_row_groups {
                table = table.with_shares(rows_of_row_groups(&group_rows, shares));
            }
        }
        ctx.register_table(LOCKSTEP, Arc::new(table))?;
        if options.cluster.is_some() && sources.len() > 1 {
            summary.notes.push(
                "the tables list the same pair_ids in the same order: each task of the cluster \
                 reads one share of the rows of every table side by side (no join, no shuffle \
                 before the metrics)"
                    .to_string(),
            );
        }
    } else {
        for Keyed {
            table,
            source,
            order,
            ..
        } in &inputs
        {
            if !order.ascending {
                summary.notes.push(format!(
                    "{source} is not sorted by pair_id, so it was sorted (spilling to disk if \
                     needed); sort it once to stream",
                ));
            }
            if *table != Table::Pairs {
                let name = table.name();
                let pairs = Table::Pairs.name();
                let orphans =
                    session::join_on_pair_id(&ctx, name, pairs, JoinType::LeftAnti).await?;
                summary.orphans.insert(name, orphans.count().await? as u64);
            }
        }
    }
    let (frame, filter_columns) =
        score_frame(&ctx, options, &metrics, &inputs, lockstep.is_some()).await?;
    let query = crate::session::query_text(&frame);
    Ok(Prepared {
        ctx,
        frame,
        query,
        rows,
        lockstep,
        summary,
        filter_columns,
        share_row_groups,
    })
}

/// An input path as the cluster's processes, in other directories, see it.
fn shared_path(options: &ScoreOptions, path: &PathBuf) -> Result<PathBuf> {
    match &options.cluster {
        Some(_) => crate::storage::absolute(path),
        None => Ok(path.clone()),
    }
}

/// An input table of `score`: opened, registered, its pair_id order known.
struct Keyed {
    table: Table,
    /// Where it comes from, for notes.
    source: String,
    /// The file, when it is one.
    input: Option<ParquetInput>,
    order: KeyOrder,
}

/// The tables to read in lockstep: pairs whole, and the columns the metrics use of the others.
/// None when a pairs column would clash with their names in the zipped batch.
async fn lockstep_sources(
    ctx: &SessionContext,
    inputs: &[Keyed],
) -> Result<Option<Vec<lockstep::Source>>> {
    let pairs_schema = ctx.table_provider(Table::Pairs.name()).await?.schema();
    let mut sources = Vec::new();
    for Keyed { table, input, .. } in inputs {
        let (table, input) = (*table, input.as_ref().expect("lockstep reads files only"));
        let alias = (table != Table::Pairs).then(|| columns::alias(table).to_string());
        let columns: Vec<String> = match &alias {
            None => pairs_schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect(),
            // The columns the metrics read: what the table must have.
            Some(alias) => {
                let wanted: Vec<&str> = table
                    .required_columns()
                    .filter(|&c| c != "pair_id")
                    .collect();
                if wanted
                    .iter()
                    .any(|c| pairs_schema.index_of(&lockstep::renamed(alias, c)).is_ok())
                {
                    return Ok(None);
                }
                wanted.iter().map(|c| c.to_string()).collect()
            }
        };
        // Labels read dictionary-encoded: each column chunk's labels are decoded once, as
        // Parquet stores them, not copied out for every token.
        let schema =
            with_dictionary_lists(&ctx.table_provider(table.name()).await?.schema(), |f| {
                table.label_columns().any(|c| c == f.name())
            });
        sources.push(lockstep::Source {
            input: input.clone(),
            schema: Arc::new(schema),
            alias,
            columns,
        });
    }
    Ok(Some(sources))
}

/// The plan `score` would run (inputs are checked, nothing is written).
pub async fn explain(options: &ScoreOptions) -> Result<String> {
    let Prepared {
        frame,
        query,
        lockstep,
        ..
    } = prepare(options).await?;
    let plan = frame.create_physical_plan().await?;
    let shown = datafusion::physical_plan::displayable(plan.as_ref())
        .indent(true)
        .to_string();
    let how = match lockstep {
        Some(sources) => {
            let names: Vec<_> = sources.iter().map(|s| s.input.name()).collect();
            let how = match writes_shares(options, true) {
                true => {
                    "each task of the cluster reads one share of their rows side by side (no join), \
                         computes the projections below and writes its share to a file of its own"
                }
                false => {
                    "they are read side by side (no join), their batches dealt to every core for the projections below and taken back in order"
                }
            };
            format!(
                "-- lockstep: {} list the same pair_ids in the same order, so {how}\n",
                names.join(", ")
            )
        }
        None => String::new(),
    };
    Ok(format!("{how}{query}\n\n{shown}"))
}

/// Run the whole job: check inputs, plan, stream, write atomically, summarise.
pub async fn score(options: &ScoreOptions) -> Result<Summary> {
    let prepared = prepare(options).await?;
    let metadata = metadata(options, &prepared)?;
    if options.cluster.is_some() {
        let Prepared {
            frame,
            rows,
            lockstep,
            mut summary,
            filter_columns,
            share_row_groups,
            ..
        } = prepared;
        let copy = match (&lockstep, share_row_groups) {
            (Some(sources), Some(shares)) if writes_shares(options, true) => {
                let pairs = &sources[0].input;
                let columns = copied_columns(sources, &filter_columns);
                summary.notes.push(format!(
                    "{} copied from {} as stored by each task of the cluster (its encoding and \
                     compression; the compression asked for applies to the computed columns): \
                     the shares are whole row groups of it",
                    columns.join(", "),
                    options.pairs.describe()
                ));
                Some(CopiedColumns {
                    name: pairs.name().to_string(),
                    path: pairs.path().to_string_lossy().into_owned(),
                    columns,
                    shares,
                })
            }
            _ => None,
        };
        let lockstep = lockstep.is_some();
        return score_on_cluster(options, frame, metadata, rows, lockstep, copy, summary).await;
    }
    let Scoring {
        ctx,
        schema,
        mut stream,
        copy,
        rows,
        mut summary,
    } = Scoring::start(prepared).await?;
    let mut writer = TableWriter::create(
        &ctx,
        &options.out,
        &options.layout,
        schema,
        metadata,
        Encoding::fast(options.compression),
    )
    .await?;
    let copied = match (&copy, &mut writer) {
        (Some((input, columns)), TableWriter::File(writer)) => {
            writer.copy_columns(input, columns, None)?
        }
        _ => vec![],
    };
    if !copied.is_empty() {
        summary.notes.push(format!(
            "{} copied from {} as stored (its encoding and compression; the compression asked for applies to the computed columns)",
            copied.join(", "),
            options.pairs.describe()
        ));
    }
    let bar = progress_bar(options.progress, rows);
    while let Some(batch) = stream.try_next().await? {
        take(options, &mut summary, &batch)?;
        bar.inc(batch.num_rows() as u64);
        writer.write(&batch).await?;
    }
    bar.finish_and_clear();
    check_rows(rows, &summary)?;
    writer.finish().await?;
    Ok(summary)
}

/// The scored table in memory, as [`score`] would write it.
pub struct Scored {
    pub summary: Summary,
    /// With the metadata [`score`] writes into the file's footer.
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

/// [`score`] without a file: the scored rows are returned (`out`, `layout` and `compression`
/// are not used).
pub async fn score_in_memory(options: &ScoreOptions) -> Result<Scored> {
    if options.cluster.is_some() {
        bail!("a cluster writes its output as files: score to a directory instead");
    }
    let prepared = prepare(options).await?;
    let metadata = metadata(options, &prepared)?;
    let Scoring {
        schema,
        mut stream,
        rows,
        mut summary,
        ..
    } = Scoring::start(prepared).await?;
    let mut batches = Vec::new();
    while let Some(batch) = stream.try_next().await? {
        take(options, &mut summary, &batch)?;
        batches.push(batch);
    }
    check_rows(rows, &summary)?;
    let schema = Arc::new(
        schema
            .as_ref()
            .clone()
            .with_metadata(metadata.into_iter().collect()),
    );
    let batches = batches
        .into_iter()
        .map(|b| b.with_schema(schema.clone()))
        .collect::<Result<_, _>>()?;
    Ok(Scored {
        summary,
        schema,
        batches,
    })
}

/// What the output records of how it was made.
fn metadata(options: &ScoreOptions, prepared: &Prepared) -> Result<Vec<(String, String)>> {
    let summary = &prepared.summary;
    Ok(vec![
        (keys::SIGNATURE.to_string(), summary.signature.clone()),
        (
            keys::COLUMN_SIGNATURES.to_string(),
            serde_json::to_string(&summary.column_signatures)?,
        ),
        (keys::QUERY.to_string(), prepared.query.clone()),
        (keys::INPUTS.to_string(), ScoredFrom::of(options).to_json()),
    ])
}

/// The pairs file's columns that go to the output unchanged, which a writer may copy as stored
/// when it writes the file's rows in order: those not computed or replaced by a filter's.
fn copied_columns(sources: &[lockstep::Source], filter_columns: &[String]) -> Vec<String> {
    sources[0]
        .columns
        .iter()
        .filter(|c| !columns::is_computed(c) && !filter_columns.contains(c))
        .cloned()
        .collect()
}

/// A planned job, running: its batches in pair_id order.
struct Scoring {
    ctx: SessionContext,
    schema: SchemaRef,
    stream: BoxStream<'static, Result<RecordBatch>>,
    /// In lockstep, the pairs file and its columns, which a file writer may copy as stored.
    copy: Option<(ParquetInput, Vec<String>)>,
    rows: u64,
    summary: Summary,
}

impl Scoring {
    async fn start(prepared: Prepared) -> Result<Scoring> {
        let Prepared {
            ctx,
            frame,
            rows,
            lockstep,
            summary,
            filter_columns,
            ..
        } = prepared;
        let mut copy = None;
        let (schema, stream): (SchemaRef, BoxStream<'static, Result<RecordBatch>>) = match lockstep
        {
            Some(sources) => {
                // Rows come in the pairs file's order, so its columns can be copied as stored.
                let columns = copied_columns(&sources, &filter_columns);
                copy = Some((sources[0].input.clone(), columns));
                let plan = frame.create_physical_plan().await?;
                (plan.schema(), in_dealt_order(plan, ctx.task_ctx())?.boxed())
            }
            None => {
                let schema = frame.schema().inner().clone();
                (
                    schema,
                    frame
                        .execute_stream()
                        .await?
                        .map_err(anyhow::Error::from)
                        .boxed(),
                )
            }
        };
        Ok(Scoring {
            ctx,
            schema,
            stream,
            copy,
            rows,
            summary,
        })
    }
}

/// A scored batch into the summary (under --strict, its first problem is the error).
fn take(options: &ScoreOptions, summary: &mut Summary, batch: &RecordBatch) -> Result<()> {
    if options.strict {
        check_strict(batch)?;
    }
    summary.add(batch);
    Ok(())
}

fn check_rows(rows: u64, summary: &Summary) -> Result<()> {
    if summary.rows != rows {
        bail!(
            "internal error: {rows} input pairs but {} output rows; nothing was written",
            summary.rows
        );
    }
    Ok(())
}

/// On a cluster the executors write the output; the summary (and --strict's check) then reads
/// the computed columns back, in pair_id order, before the output is published.
async fn score_on_cluster(
    options: &ScoreOptions,
    frame: DataFrame,
    metadata: Vec<(String, String)>,
    rows: u64,
    lockstep: bool,
    copy: Option<CopiedColumns>,
    mut summary: Summary,
) -> Result<Summary> {
    let dataset = ExecutorDataset::create(&options.out, &options.layout)?;
    let shares = writes_shares(options, lockstep);
    let written = match shares {
        true => {
            let encoding = Encoding::fast(options.compression);
            dataset
                .write_shares(frame, metadata, encoding, copy)
                .await?
        }
        false => {
            dataset
                .write(
                    frame,
                    &options.layout,
                    metadata,
                    Encoding::fast(options.compression),
                )
                .await?
        }
    };
    let local = Session::default().build()?;
    dataset.register(&local, "scored").await?;
    let scored = local.table("scored").await?;
    let filtered = summary.filtered.is_some().then_some([KEEP, REJECTED_BY]);
    let wanted = std::iter::once("pair_id")
        .chain(summary::columns(Role::Score))
        .chain(summary::columns(Role::Problem))
        .chain(filtered.into_iter().flatten());
    let present: Vec<&str> = wanted
        .filter(|c| scored.schema().has_column_with_unqualified_name(c))
        .collect();
    let mut stream = match shares {
        // The shares' files, in name order, hold the rows in pair_id order: read so, with no
        // sort (at a billion pairs, sorting even these columns would spill tens of GB).
        true => dataset.input()?.scan(
            &present,
            scored.schema().inner(),
            local.copied_config().batch_size(),
        )?,
        false => {
            let order = SortExpr::new(datafusion::prelude::col("pair_id"), true, true);
            scored
                .select_columns(&present)?
                .sort(vec![order])?
                .execute_stream()
                .await?
        }
    };
    while let Some(batch) = stream.try_next().await? {
        take(options, &mut summary, &batch)?;
    }
    if summary.rows != rows || written != rows {
        bail!("internal error: {rows} input pairs but {written} output rows; nothing was written");
    }
    dataset.publish()?;
    Ok(summary)
}

/// Whether a cluster's tasks write the output where they compute it, a file per share of the
/// rows (`part-00000.parquet`, ... in pair_id order): when the tables are read in lockstep and
/// no `--partition-by` splits the rows otherwise. Else one task writes the whole result.
fn writes_shares(options: &ScoreOptions, lockstep: bool) -> bool {
    options.cluster.is_some() && lockstep && options.layout.partition_by.is_empty()
}

/// The first row a strict job could not score: the job stops there and writes nothing. Each
/// front end names the option its own way ([`StrictStop::explain`]); `Display` is the command
/// line's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictStop {
    pub pair_id: i64,
    pub reason: String,
    /// The problem column that gives the reason.
    pub column: String,
}

impl StrictStop {
    /// The message, with the option as `option` (`--strict`, `strict=True`).
    pub fn explain(&self, option: &str) -> String {
        let StrictStop {
            pair_id,
            reason,
            column,
        } = self;
        format!(
            "pair_id {pair_id}: {reason} (column {column}); {option} stops at the first row that \
             cannot be scored, nothing was written"
        )
    }
}

impl std::fmt::Display for StrictStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explain("--strict"))
    }
}

impl std::error::Error for StrictStop {}

/// When strict, the first row with a problem is an error (and the output is never written).
fn check_strict(batch: &RecordBatch) -> Result<()> {
    for name in summary::columns(columns::Role::Problem) {
        let Some(column) = batch.column_by_name(name) else {
            continue;
        };
        let reasons = column.as_string::<i32>();
        if let Some(row) = (0..reasons.len()).find(|&i| reasons.is_valid(i)) {
            let ids = batch
                .column_by_name("pair_id")
                .expect("score keeps pair_id");
            return Err(StrictStop {
                pair_id: ids.as_primitive::<Int64Type>().value(row),
                reason: reasons.value(row).to_string(),
                column: name.to_string(),
            }
            .into());
        }
    }
    Ok(())
}

/// `SELECT <pairs columns>, <metrics> FROM pairs p LEFT JOIN alignments a ... LEFT JOIN arcs r
/// ... ORDER BY p.pair_id`, or in lockstep the same projection over the zipped batches
/// (`lockstep p`), built as expressions: option values travel typed, never as SQL text. With it,
/// the columns `--filters` adds.
async fn score_frame(
    ctx: &SessionContext,
    options: &ScoreOptions,
    metrics: &[&Metric],
    inputs: &[Keyed],
    lockstep: bool,
) -> Result<(DataFrame, Vec<String>)> {
    let pairs_schema = ctx.table_provider(Table::Pairs.name()).await?.schema();
    let builder = columns::Inputs {
        options,
        functions: ctx,
        lockstep,
        texts: pairs_schema
            .fields()
            .iter()
            .filter(|f| ["src_text", "tgt_text"].contains(&f.name().as_str()))
            .filter(|f| crate::schema::is_string(f.data_type()))
            .map(|f| f.name().clone())
            .collect(),
    };
    let filters = match &options.filters {
        Some(filters) => columns::filter_columns(&builder, &filters.yaml, &pairs_schema)
            .with_context(|| format!("filters {}", filters.name))?,
        None => Vec::new(),
    };
    let filter_columns: Vec<String> = filters.iter().map(|(name, _)| name.clone()).collect();
    let mut select: Vec<Expr> = pairs_schema
        .fields()
        .iter()
        .filter(|f| !columns::is_computed(f.name()) && !filter_columns.contains(f.name()))
        .map(|f| builder.pairs(f.name()))
        .collect();
    select.extend(columns::exprs(&builder, metrics)?);
    select.extend(filters.into_iter().map(|(name, expr)| expr.alias(name)));
    let frame = plan_frame(ctx, options, &builder, inputs, lockstep, select).await?;
    Ok((frame, filter_columns))
}

/// The projection `select` over the pairs (joined to the other tables, or zipped in lockstep),
/// in pair_id order.
async fn plan_frame(
    ctx: &SessionContext,
    options: &ScoreOptions,
    builder: &columns::Inputs<'_>,
    inputs: &[Keyed],
    lockstep: bool,
    select: Vec<Expr>,
) -> Result<DataFrame> {
    if lockstep {
        let frame = ctx.table(LOCKSTEP).await?.alias("p")?.select(select)?;
        // Lockstep batches come in pair_id order. A cluster's shares are each in that order:
        // written one file per share, or merged (not sorted) for a single writer.
        let merged = options.cluster.is_some() && !writes_shares(options, true);
        return Ok(match merged {
            true => frame.sort(vec![SortExpr::new(builder.pairs("pair_id"), true, true)])?,
            false => frame,
        });
    }
    let mut frame = ctx.table(Table::Pairs.name()).await?.alias("p")?;
    for &Keyed { table, .. } in &inputs[1..] {
        let alias = columns::alias(table);
        let right = ctx.table(table.name()).await?.alias(alias)?;
        let on = builder
            .pairs("pair_id")
            .eq(Expr::Column(datafusion::common::Column::new(
                Some(alias),
                "pair_id",
            )));
        frame = frame.join_on(right, JoinType::Left, [on])?;
    }
    // NULLS FIRST matches the declared order of sorted inputs, so no sort is planned.
    let order = SortExpr::new(builder.pairs("pair_id"), true, true);
    Ok(frame.select(select)?.sort(vec![order])?)
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    // Draws to stderr, and only when it is a terminal.
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {human_pos}/{human_len} pairs, {per_sec}, eta {eta}",
        )
        .expect("valid template"),
    );
    bar
}
