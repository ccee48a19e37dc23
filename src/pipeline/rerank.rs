//! `pairmetrics rerank`: the n-best study of Chevelu et al. (Coling 2010, §3.3 and Figure 1).
//! Every hypothesis of a decoder's n-best lists gets its true model score (the best derivation's
//! score, where the decoder gave the score of the one it found), the lists are re-ranked by it,
//! and for each n-best size n the agreement of the two orders is measured over the lists'
//! first n hypotheses.
//!
//! Two plans: one scores the hypotheses (streaming; written as `hypotheses.parquet`), one
//! summarises that file per size (a cross join with the sizes, window functions and
//! aggregates, among them `kendall_tau_a`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::JoinType;
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_aggregate::expr_fn::{count, count_distinct, min};
use datafusion::logical_expr::ident;
use datafusion::prelude::SessionContext;

use crate::pair::true_score::ModelWeights;
use crate::resources::{self, PhraseTableOptions, ResourceOptions};
use crate::schema::Table;
use crate::session::{self, Session, Tuning};
use crate::udf::expr::{KENDALL_TAU_A, MODEL_SCORE, TRUE_SCORE};

/// The paper's sizes: 5, 10, ..., 100.
pub fn default_sizes() -> Vec<usize> {
    (1..=20).map(|k| 5 * k).collect()
}

#[derive(Debug, Clone)]
pub struct RerankOptions {
    /// An nbest table (`import moses-nbest`).
    pub nbest: PathBuf,
    /// A pairs table whose pair_id is the n-best id and src the source sentence.
    pub sources: PathBuf,
    pub phrase_table: PhraseTableOptions,
    /// With a model, the true model score adds α_LM · ln P(hypothesis).
    pub lm: Option<PathBuf>,
    pub weights: ModelWeights,
    /// n-best sizes, each at least 2.
    pub sizes: Vec<usize>,
    /// Every size over the same lists, those with at least the largest size's hypotheses (the
    /// paper's choice), instead of each size over the lists at least that long.
    pub full_lists_only: bool,
    /// |true model score − decoder score| above this counts as a changed score (Moses prints
    /// totals rounded).
    pub tolerance: f64,
    /// The decoder's features the true model replaces, compared feature by feature; None
    /// compares the decoder's total.
    pub decoder_features: Option<DecoderFeatures>,
    /// Other systems' paraphrases of the same sentences (`paraphrase --out` tables), compared
    /// with the decoder's re-ranked 1-best as Figure 3 compares MCPG's.
    pub versus: Vec<Versus>,
    /// A new local directory: hypotheses.parquet, sizes.parquet, and the plots tau_a.svg
    /// (Figure 1), changed.svg, ranks.svg and gap.svg; with `versus`, figure3.parquet and
    /// figure3.svg.
    pub out: PathBuf,
    pub tuning: Tuning,
}

/// The n-best features holding the decoder's own phrase score (and LM score), each named as in
/// the lines (`phrase=`, `tm:`; its first value is taken): the decoder's score of the parts the
/// true model scores is alpha_phi · phrase (+ alpha_lm · lm), whatever else its total adds
/// (distortion, word penalty).
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderFeatures {
    pub phrase: String,
    pub lm: Option<String>,
}

impl DecoderFeatures {
    /// A feature name as n-best lines write it: letters, digits or `_`, then `=` or `:`.
    pub fn check_name(name: &str) -> Result<()> {
        let (word, mark) = name.split_at(name.len().saturating_sub(1));
        if word.is_empty()
            || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            || !matches!(mark, "=" | ":")
        {
            bail!(
                "feature `{name}`: expected a name as n-best lines write it, such as phrase= or tm:"
            );
        }
        Ok(())
    }
}

/// A system Figure 3 compares with the decoder: its name (a column of figure3.parquet) and a
/// table with `id`, `rank` (1 = its best) and `model_score` per paraphrase, as `paraphrase
/// --out` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    pub name: String,
    pub table: PathBuf,
}

impl Versus {
    /// `NAME=PATH`, NAME in lowercase letters, digits and `_`, not `id` or `decoder`.
    pub fn parse(text: &str) -> Result<Versus> {
        let Some((name, table)) = text.split_once('=') else {
            bail!("`{text}`: expected NAME=TABLE, such as mcpg=mcpg.parquet");
        };
        let lowercase = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
        if name.is_empty()
            || !name.bytes().all(lowercase)
            || name.starts_with(|c: char| c.is_ascii_digit())
            || matches!(name, "id" | "decoder")
        {
            bail!(
                "`{name}`: a system's name is lowercase letters, digits and _, not id or decoder \
                 (it names a column of figure3.parquet)"
            );
        }
        Ok(Versus {
            name: name.into(),
            table: table.into(),
        })
    }
}

/// Figure 3: the true model score of each system's best paraphrase of each sentence against
/// the decoder's re-ranked best, the source itself left out of the decoder's list (MCPG never
/// returns it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figure3 {
    /// The systems, in the order given.
    pub systems: Vec<String>,
    /// Sentences with a score from the decoder and from every system.
    pub sentences: u64,
    /// Lists whose hypotheses are only the source, or whose other ones no derivation reaches.
    pub no_decoder_paraphrase: u64,
    /// For each system, the sentences it has no paraphrase of.
    pub no_paraphrase: Vec<u64>,
    /// (label, mean, sample std) of each difference: each system − decoder, then each system
    /// − each later one.
    pub differences: Vec<(String, Option<f64>, Option<f64>)>,
}

/// SQL for the first value after feature `name` in an n-best line's features.
fn feature_value(name: &str) -> String {
    format!("CAST(regexp_match(n.features, '(?:^|\\s){name}\\s*(\\S+)')[1] AS DOUBLE)")
}

/// The statistics of one n-best size (one row of sizes.parquet).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SizeStats {
    pub n: i64,
    /// Lists with at least n hypotheses.
    pub lists: i64,
    pub mean_tau_a: Option<f64>,
    pub std_tau_a: Option<f64>,
    pub score_changed_share: Option<f64>,
    pub top_changed_share: Option<f64>,
    pub old_top_new_rank: (Option<f64>, Option<f64>),
    pub new_top_old_rank: (Option<f64>, Option<f64>),
    pub old_top_new_rank_changed: (Option<f64>, Option<f64>),
    pub new_top_old_rank_changed: (Option<f64>, Option<f64>),
    /// The worst rank the old top fell to, and the worst the new top came from.
    pub old_top_worst_rank: Option<f64>,
    pub new_top_worst_rank: Option<f64>,
    /// Decoder total of the 1-best minus that of the n-th: mean and std over the lists.
    pub gap: (Option<f64>, Option<f64>),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RerankSummary {
    pub lists: u64,
    pub hypotheses: u64,
    /// Hypotheses no derivation of the phrase table reaches (NULL true score): left out.
    pub unscored: u64,
    /// Lists holding one hypothesis more than once, and the first of them: a repeat is the
    /// same paraphrase under a worse derivation, whose score then counts as changed and ties.
    pub repeating: (u64, i64),
    /// With `full_lists_only`: the lists with at least the largest size's hypotheses, over
    /// which every size is measured.
    pub full_lists: Option<(u64, usize)>,
    pub sizes: Vec<SizeStats>,
    pub figure3: Option<Figure3>,
    pub signature: String,
    pub seconds: f64,
}

fn mean_std((mean, std): (Option<f64>, Option<f64>)) -> String {
    match (mean, std) {
        (Some(m), Some(s)) => format!("{m:.2} ± {s:.2}"),
        (Some(m), None) => format!("{m:.2}"),
        _ => "-".into(),
    }
}

fn worst(old: Option<f64>, new: Option<f64>) -> String {
    match (old, new) {
        (Some(old), Some(new)) => format!("{old}/{new}"),
        _ => "-".into(),
    }
}

fn share(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1} %", 100.0 * x))
}

impl fmt::Display for RerankSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "lists: {}, hypotheses: {} ({} unscored: no derivation reaches them)",
            self.lists, self.hypotheses, self.unscored
        )?;
        if let Some((lists, size)) = self.full_lists {
            writeln!(
                f,
                "full lists: {lists} of {} have at least {size} hypotheses; every size is measured over them",
                self.lists
            )?;
        }
        writeln!(
            f,
            "ranks are 1-based; \"lost\": lists whose decoder 1-best is not the best by true model score"
        )?;
        let header = [
            "n",
            "lists",
            "tau_A",
            "scores changed",
            "1-best lost",
            "old 1-best now",
            "new 1-best was",
            "(lost) old now",
            "(lost) new was",
            "worst old/new",
            "total 1st - nth",
        ];
        writeln!(
            f,
            "{:>5} {:>6} {:>15} {:>14} {:>11} {:>14} {:>14} {:>14} {:>14} {:>13} {:>15}",
            header[0],
            header[1],
            header[2],
            header[3],
            header[4],
            header[5],
            header[6],
            header[7],
            header[8],
            header[9],
            header[10]
        )?;
        for s in &self.sizes {
            writeln!(
                f,
                "{:>5} {:>6} {:>15} {:>14} {:>11} {:>14} {:>14} {:>14} {:>14} {:>13} {:>15}",
                s.n,
                s.lists,
                mean_std((s.mean_tau_a, s.std_tau_a)),
                share(s.score_changed_share),
                share(s.top_changed_share),
                mean_std(s.old_top_new_rank),
                mean_std(s.new_top_old_rank),
                mean_std(s.old_top_new_rank_changed),
                mean_std(s.new_top_old_rank_changed),
                worst(s.old_top_worst_rank, s.new_top_worst_rank),
                mean_std(s.gap),
            )?;
        }
        if let Some(figure) = &self.figure3 {
            write!(f, "{figure}")?;
        }
        writeln!(f, "signature: {}", self.signature)?;
        write!(f, "{:.2} s", self.seconds)
    }
}

impl RerankSummary {
    /// The warning a list with a repeated hypothesis deserves, if any list has one.
    pub fn repeating_warning(&self) -> Option<String> {
        let (lists, first) = self.repeating;
        (lists > 0).then(|| {
            format!(
                "warning: {lists} of {} lists hold a hypothesis more than once (the first: list {first}): \
                 each repeat is the same paraphrase under a worse derivation, so its score counts as \
                 changed and it ties with itself; n-best lists of distinct paraphrases (decode \
                 --distinct) avoid both",
                self.lists
            )
        })
    }
}

impl fmt::Display for Figure3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut left_out = vec![];
        if self.no_decoder_paraphrase > 0 {
            left_out.push(format!(
                "{} whose list has no scored hypothesis but the source",
                self.no_decoder_paraphrase
            ));
        }
        for (system, &missing) in self.systems.iter().zip(&self.no_paraphrase) {
            if missing > 0 {
                left_out.push(format!("{missing} without a paraphrase from {system}"));
            }
        }
        let left_out = match left_out.is_empty() {
            true => "none left out".to_string(),
            false => format!("left out: {}", left_out.join(", ")),
        };
        writeln!(
            f,
            "Figure 3: true model scores of the best paraphrases, {} sentences ({left_out})",
            self.sentences
        )?;
        let width = self
            .differences
            .iter()
            .map(|d| d.0.len())
            .max()
            .unwrap_or(0);
        for (label, mean, std) in &self.differences {
            writeln!(f, "  {label:<width$} {:>15}", mean_std((*mean, *std)))?;
        }
        Ok(())
    }
}

impl RerankOptions {
    pub fn signature(&self) -> String {
        let lm = if self.lm.is_some() {
            format!("alpha_lm={},lm:ln", self.weights.lm)
        } else {
            "no-lm".into()
        };
        let compared = match &self.decoder_features {
            None => "total".to_string(),
            Some(DecoderFeatures { phrase, lm }) => {
                format!("{phrase}{}", lm.as_deref().unwrap_or_default())
            }
        };
        let names: Vec<&str> = self.versus.iter().map(|v| v.name.as_str()).collect();
        let versus = match names.is_empty() {
            true => String::new(),
            false => format!("|versus={}", names.join(",")),
        };
        format!(
            "pairmetrics:{}|rerank|{}|alpha_phi={},{lm}|tolerance={}|compared={compared}|lists={}{versus}",
            crate::VERSION,
            self.phrase_table.signature(),
            self.weights.phrase,
            self.tolerance,
            if self.full_lists_only {
                "full"
            } else {
                "per-size"
            }
        )
    }

    /// Scores every hypothesis. `true_rank` is its 1-based place in its whole list ordered by
    /// the true model score, ties kept in decoder order.
    pub fn hypotheses_query(&self) -> String {
        let ModelWeights { phrase, lm } = self.weights;
        let model = if self.lm.is_some() {
            format!("{MODEL_SCORE}(s.src, n.hyp_tokens, {phrase:?}, {lm:?})")
        } else {
            format!("{phrase:?} * {TRUE_SCORE}(s.src, n.hyp_tokens)")
        };
        let decoder = self.decoder_score(self.lm.is_some());
        format!(
            "WITH scored AS ( \
               SELECT n.id, n.rank, n.hyp, n.total, {TRUE_SCORE}(s.src, n.hyp_tokens) AS true_score, {model} AS model_score, \
                      {decoder} AS decoder_score \
               FROM nbest n JOIN pairs s ON n.id = s.pair_id) \
             SELECT id, rank, hyp, total, true_score, model_score, \
                    abs(model_score - decoder_score) > {tolerance:?} AS score_changed, \
                    CASE WHEN model_score IS NOT NULL THEN \
                      row_number() OVER (PARTITION BY id ORDER BY model_score DESC NULLS LAST, rank) END AS true_rank \
             FROM scored ORDER BY id, rank",
            tolerance = self.tolerance
        )
    }

    /// The decoder's score of what the true model scores, per n-best row `n`: its total, or
    /// its own phrase (and LM) features, weighted as the true model weighs them.
    fn decoder_score(&self, with_lm: bool) -> String {
        let Some(features) = &self.decoder_features else {
            return "n.total".into();
        };
        let ModelWeights { phrase, lm } = self.weights;
        let mut score = format!("{phrase:?} * {}", feature_value(&features.phrase));
        if let (true, Some(name)) = (with_lm, &features.lm) {
            score += &format!(" + {lm:?} * {}", feature_value(name));
        }
        score
    }

    /// The statistics per size, over `hypotheses`: for each n, the lists with at least n
    /// hypotheses (with `full_lists_only`, at least the largest n), each cut to its first n
    /// (decoder order). The old top is the decoder's 1-best, the new top the best true model
    /// score (ties to the decoder's earlier one); ranks are 1-based, within the first n.
    pub fn sizes_query(&self) -> String {
        let sizes = self
            .sizes
            .iter()
            .map(|n| format!("({n})"))
            .collect::<Vec<_>>()
            .join(", ");
        let stats = |column: &str, suffix: &str, filter: &str| {
            format!(
                "avg({column}){filter} AS {column}{suffix}_mean, stddev({column}){filter} AS {column}{suffix}_std"
            )
        };
        let changed = " FILTER (WHERE old_top_new_rank > 1)";
        let long_enough = match self.full_lists_only {
            true => self.sizes.iter().max().copied().unwrap_or(0).to_string(),
            false => "k.n".into(),
        };
        format!(
            "WITH lengths AS (SELECT id, count(*) AS length FROM hypotheses GROUP BY id), \
             prefixes AS ( \
               SELECT k.n, h.id, h.rank, h.total, h.model_score, h.score_changed, \
                      first_value(h.model_score) OVER (PARTITION BY k.n, h.id ORDER BY h.rank) AS old_top_score \
               FROM hypotheses h JOIN lengths l ON h.id = l.id CROSS JOIN (VALUES {sizes}) AS k(n) \
               WHERE l.length >= {long_enough} AND h.rank < k.n), \
             lists AS ( \
               SELECT n, id, {KENDALL_TAU_A}(rank, -model_score) AS tau_a, \
                      count(model_score) AS scored, sum(CAST(score_changed AS BIGINT)) AS changed, \
                      CASE WHEN max(old_top_score) IS NOT NULL THEN \
                        1 + count(*) FILTER (WHERE model_score > old_top_score) END AS old_top_new_rank, \
                      CASE WHEN count(model_score) > 0 THEN \
                        1 + first_value(rank ORDER BY model_score DESC NULLS LAST, rank) END AS new_top_old_rank, \
                      first_value(total ORDER BY rank) - first_value(total ORDER BY rank DESC) AS gap \
               FROM prefixes GROUP BY n, id) \
             SELECT n, count(*) AS lists, avg(tau_a) AS tau_a_mean, stddev(tau_a) AS tau_a_std, \
                    CAST(sum(changed) AS DOUBLE) / NULLIF(sum(scored), 0) AS score_changed_share, \
                    avg(CAST(old_top_new_rank > 1 AS DOUBLE)) AS top_changed_share, \
                    {}, {}, {}, {}, \
                    max(old_top_new_rank) AS old_top_worst_rank, max(new_top_old_rank) AS new_top_worst_rank, \
                    avg(gap) AS gap_mean, stddev(gap) AS gap_std \
             FROM lists GROUP BY n ORDER BY n",
            stats("old_top_new_rank", "", ""),
            stats("new_top_old_rank", "", ""),
            stats("old_top_new_rank", "_changed", changed),
            stats("new_top_old_rank", "_changed", changed),
        )
    }
}

/// Run the study and write its directory: staged as a hidden sibling, renamed when complete.
pub async fn rerank(options: &RerankOptions) -> Result<(RerankSummary, Vec<String>)> {
    let started = Instant::now();
    if let Some(n) = options.sizes.iter().find(|&&n| n < 2) {
        bail!("--sizes: {n} is too small: tau_A needs at least 2 hypotheses per list");
    }
    if options.out.exists() {
        bail!(
            "{}: already exists; rerank writes a new directory",
            options.out.display()
        );
    }
    let (resources, loaded) = resources::load(&ResourceOptions {
        phrase_table: Some(options.phrase_table.clone()),
        lm: options.lm.clone(),
        ..Default::default()
    })
    .await?;
    let ctx = Session {
        resources,
        tuning: options.tuning,
        ..Default::default()
    }
    .build()?;
    session::register_checked(&ctx, Table::Nbest, &options.nbest).await?;
    session::register_keyed(&ctx, Table::Pairs, &options.sources).await?;
    let ids = ctx
        .table(Table::Nbest.name())
        .await?
        .select(vec![ident("id")])?
        .distinct()?;
    let orphans = ids.join(
        ctx.table(Table::Pairs.name()).await?,
        JoinType::LeftAnti,
        &["id"],
        &["pair_id"],
        None,
    )?;
    let missing =
        session::integers(orphans.aggregate(vec![], vec![count_all(), min(ident("id"))])?).await?;
    if missing[0] > 0 {
        bail!(
            "{}: {} n-best ids have no source sentence in {} (no pair_id equal to id), the first {}",
            options.nbest.display(),
            missing[0],
            options.sources.display(),
            missing[1]
        );
    }

    if let Some(features) = &options.decoder_features {
        let names = std::iter::once(&features.phrase).chain(&features.lm);
        for name in names {
            DecoderFeatures::check_name(name)?;
            let value = feature_value(name);
            let unset = format!("SELECT count(*), min(id) FROM nbest n WHERE {value} IS NULL");
            let missing = session::integers(ctx.sql(&unset).await?).await?;
            if missing[0] > 0 {
                bail!(
                    "{}: {} n-best lines have no number after feature `{name}` (the first of list {})",
                    options.nbest.display(),
                    missing[0],
                    missing[1]
                );
            }
        }
    }
    for (k, versus) in options.versus.iter().enumerate() {
        register_versus(&ctx, k, versus).await?;
    }
    let staging = crate::storage::partial_path(&options.out)?;
    std::fs::create_dir(&staging).with_context(|| format!("creating {}", staging.display()))?;
    let result = write_study(&ctx, options, &staging).await;
    let summary = match result {
        Ok(summary) => summary,
        Err(err) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(err);
        }
    };
    std::fs::rename(&staging, &options.out).with_context(|| {
        format!(
            "renaming {} to {}",
            staging.display(),
            options.out.display()
        )
    })?;
    Ok((
        RerankSummary {
            seconds: started.elapsed().as_secs_f64(),
            ..summary
        },
        loaded,
    ))
}

async fn write_study(
    ctx: &SessionContext,
    options: &RerankOptions,
    dir: &Path,
) -> Result<RerankSummary> {
    let signature = options.signature();
    let hypotheses = dir.join("hypotheses.parquet");
    let query = options.hypotheses_query();
    let rows = crate::session::write_query(ctx, &query, &hypotheses, &signature).await?;
    ctx.register_parquet(
        "hypotheses",
        hypotheses.to_str().context("a non-UTF-8 path")?,
        Default::default(),
    )
    .await?;
    let unscored = count_all() - count(ident("model_score"));
    let figures = vec![count_distinct(ident("id")), unscored];
    let counts =
        session::integers(ctx.table("hypotheses").await?.aggregate(vec![], figures)?).await?;

    let query = options.sizes_query();
    crate::session::write_query(ctx, &query, &dir.join("sizes.parquet"), &signature).await?;
    ctx.register_parquet(
        "sizes",
        dir.join("sizes.parquet")
            .to_str()
            .context("a non-UTF-8 path")?,
        Default::default(),
    )
    .await?;
    let sizes = ctx.table("sizes").await?;
    let batches = sizes
        .sort(vec![ident("n").sort(true, false)])?
        .collect()
        .await?;
    let sizes = batches
        .iter()
        .map(size_stats)
        .collect::<Result<Vec<_>>>()?
        .concat();

    for (file, svg) in plots(&sizes) {
        crate::storage::write_whole(&dir.join(file), svg.as_bytes())?;
    }
    let repeating = "SELECT count(DISTINCT id), min(id) FROM \
                     (SELECT id FROM hypotheses GROUP BY id, hyp HAVING count(*) > 1)";
    let repeating = session::integers(ctx.sql(repeating).await?).await?;
    let figure3 = match options.versus.is_empty() {
        true => None,
        false => Some(figure3(ctx, options, dir, &signature).await?),
    };
    Ok(RerankSummary {
        lists: counts[0] as u64,
        hypotheses: rows,
        unscored: counts[1] as u64,
        repeating: (repeating[0] as u64, repeating[1]),
        full_lists: (options.full_lists_only).then(|| {
            let largest = options.sizes.iter().max().copied().unwrap_or(0);
            let lists = sizes.first().map_or(0, |s| s.lists as u64);
            (lists, largest)
        }),
        sizes,
        figure3,
        signature,
        seconds: 0.0,
    })
}

/// The table of system `k`, checked for the columns Figure 3 reads.
async fn register_versus(ctx: &SessionContext, k: usize, versus: &Versus) -> Result<()> {
    let path = &versus.table;
    if !path.is_file() {
        bail!("--versus {}: {}: no such file", versus.name, path.display());
    }
    let table = format!("versus_{k}");
    ctx.register_parquet(
        &table,
        path.to_str().context("a non-UTF-8 path")?,
        Default::default(),
    )
    .await
    .with_context(|| format!("reading {}", path.display()))?;
    let schema = ctx.table(&table).await?.schema().clone();
    for (column, integer) in [("id", true), ("rank", true), ("model_score", false)] {
        let fits = schema
            .field_with_unqualified_name(column)
            .is_ok_and(|field| {
                let kind = field.data_type();
                if integer {
                    kind.is_integer()
                } else {
                    kind.is_numeric()
                }
            });
        if !fits {
            bail!(
                "{}: expected a column {column} ({}), as `paraphrase --out` writes",
                path.display(),
                if integer { "integer" } else { "number" }
            );
        }
    }
    Ok(())
}

/// Writes figure3.parquet (a row per list: id, decoder, a column per system; ordered by the
/// decoder's score) and figure3.svg, and returns its summary.
async fn figure3(
    ctx: &SessionContext,
    options: &RerankOptions,
    dir: &Path,
    signature: &str,
) -> Result<Figure3> {
    let mut columns = String::new();
    let mut joins = String::new();
    for (k, versus) in options.versus.iter().enumerate() {
        columns += &format!(", v{k}.model_score AS {}", versus.name);
        joins += &format!(
            " LEFT JOIN (SELECT id, min(model_score) AS model_score FROM versus_{k} \
               WHERE rank = 1 GROUP BY id) v{k} ON v{k}.id = l.id"
        );
    }
    // The decoder's re-ranked best: its best true model score, the source left out.
    let query = format!(
        "WITH lists AS (SELECT DISTINCT id FROM hypotheses), \
         decoder AS ( \
           SELECT h.id, max(h.model_score) AS decoder \
           FROM hypotheses h JOIN pairs s ON h.id = s.pair_id \
           WHERE h.hyp <> array_to_string(s.src, ' ') GROUP BY h.id) \
         SELECT l.id, d.decoder{columns} \
         FROM lists l LEFT JOIN decoder d ON d.id = l.id{joins} \
         ORDER BY d.decoder NULLS FIRST, l.id"
    );
    let file = dir.join("figure3.parquet");
    crate::session::write_query(ctx, &query, &file, signature).await?;
    let batches = ctx
        .read_parquet(
            file.to_str().context("a non-UTF-8 path")?,
            Default::default(),
        )
        .await?
        .sort(vec![
            ident("decoder").sort(true, true),
            ident("id").sort(true, false),
        ])?
        .collect()
        .await?;
    let column = |name: &str| -> Result<Vec<Option<f64>>> {
        let mut values = vec![];
        for batch in &batches {
            let array = batch
                .column_by_name(name)
                .with_context(|| format!("figure3 has no column {name}"))?;
            let array = cast(array, &DataType::Float64)?;
            let array = array.as_primitive::<Float64Type>();
            values.extend((0..array.len()).map(|i| array.is_valid(i).then(|| array.value(i))));
        }
        Ok(values)
    };
    let names: Vec<&str> = options.versus.iter().map(|v| v.name.as_str()).collect();
    let decoder = column("decoder")?;
    let systems = (names.iter())
        .map(|name| column(name))
        .collect::<Result<Vec<_>>>()?;
    let complete: Vec<usize> = (0..decoder.len())
        .filter(|&i| decoder[i].is_some() && systems.iter().all(|s| s[i].is_some()))
        .collect();
    let value = |values: &[Option<f64>], i: usize| values[i].unwrap_or_default();
    let mut differences = vec![];
    let mut difference = |label: String, a: &[Option<f64>], b: &[Option<f64>]| {
        let d: Vec<f64> = (complete.iter())
            .map(|&i| value(a, i) - value(b, i))
            .collect();
        let (mean, std) = mean_and_sample_std(&d);
        differences.push((label, mean, std));
    };
    for (name, system) in names.iter().zip(&systems) {
        difference(format!("{name} - decoder"), system, &decoder);
    }
    for (a, (name_a, system_a)) in names.iter().zip(&systems).enumerate() {
        for (name_b, system_b) in names.iter().zip(&systems).skip(a + 1) {
            difference(format!("{name_a} - {name_b}"), system_a, system_b);
        }
    }
    let line = |name, values: &[Option<f64>]| crate::formats::svg::SizeLine {
        name,
        points: (complete.iter().enumerate())
            .map(|(x, &i)| ((x + 1) as f64, value(values, i), None))
            .collect(),
    };
    let lines: Vec<_> = std::iter::once(line("decoder (re-ranked)", &decoder))
        .chain(names.iter().zip(&systems).map(|(name, s)| line(name, s)))
        .collect();
    let svg = crate::formats::svg::lines(
        "true model score of each system's best paraphrase, sentences ordered by the decoder's re-ranked best (Figure 3)",
        ("sentence, by the decoder's score", "sentence"),
        "true model score",
        None,
        &lines,
    );
    crate::storage::write_whole(&dir.join("figure3.svg"), svg.as_bytes())?;
    Ok(Figure3 {
        systems: names.iter().map(|n| n.to_string()).collect(),
        sentences: complete.len() as u64,
        no_decoder_paraphrase: decoder.iter().filter(|d| d.is_none()).count() as u64,
        no_paraphrase: (systems.iter())
            .map(|s| s.iter().filter(|v| v.is_none()).count() as u64)
            .collect(),
        differences,
    })
}

/// The mean and the sample standard deviation (n − 1), as SQL's avg and stddev give them.
fn mean_and_sample_std(values: &[f64]) -> (Option<f64>, Option<f64>) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (None, None);
    }
    let mean = values.iter().sum::<f64>() / n;
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    (
        Some(mean),
        (values.len() > 1).then(|| (squares / (n - 1.0)).sqrt()),
    )
}

/// Every statistic of §3.3 against n, as (file, SVG): Figure 1 (tau_A) and the others.
fn plots(sizes: &[SizeStats]) -> [(&'static str, String); 4] {
    use crate::formats::svg::{SizeLine, by_size as by_size_svg};
    let line = |name, stat: fn(&SizeStats) -> (Option<f64>, Option<f64>)| SizeLine {
        name,
        points: (sizes.iter())
            .filter_map(|s| {
                let (mean, std) = stat(s);
                Some((s.n as f64, mean?, std))
            })
            .collect(),
    };
    let tau = line("tau_A", |s| (s.mean_tau_a, s.std_tau_a));
    let shares = [
        line("scores changed", |s| (s.score_changed_share, None)),
        line("1-best not optimal", |s| (s.top_changed_share, None)),
    ];
    let ranks = [
        line("old top's new rank", |s| s.old_top_new_rank),
        line("new top's old rank", |s| s.new_top_old_rank),
        line("old top's worst", |s| (s.old_top_worst_rank, None)),
        line("new top's worst", |s| (s.new_top_worst_rank, None)),
    ];
    let gap = line("1st - nth", |s| s.gap);
    [
        (
            "tau_a.svg",
            by_size_svg(
                "mean Kendall tau_A between decoder order and true order, by n-best size",
                "tau_A",
                Some((-1.0, 1.0)),
                &[tau],
            ),
        ),
        (
            "changed.svg",
            by_size_svg(
                "share of hypotheses whose score changed and of lists whose 1-best is not the true optimum, by n-best size",
                "share",
                Some((0.0, 1.0)),
                &shares,
            ),
        ),
        (
            "ranks.svg",
            by_size_svg(
                "rank of the old top in the true order and of the new top in the decoder's, mean and worst, by n-best size",
                "rank",
                None,
                &ranks,
            ),
        ),
        (
            "gap.svg",
            by_size_svg(
                "decoder total of the 1-best minus that of the n-th, by n-best size",
                "score gap",
                None,
                &[gap],
            ),
        ),
    ]
}

/// The rows of a sizes.parquet batch.
fn size_stats(batch: &RecordBatch) -> Result<Vec<SizeStats>> {
    let column = |name: &str| -> Result<Vec<Option<f64>>> {
        let array = batch
            .column_by_name(name)
            .with_context(|| format!("sizes has no column {name}"))?;
        let array = cast(array, &DataType::Float64)?;
        let values = array.as_primitive::<Float64Type>();
        Ok((0..values.len())
            .map(|i| values.is_valid(i).then(|| values.value(i)))
            .collect())
    };
    let pair = |name: &str| -> Result<Vec<(Option<f64>, Option<f64>)>> {
        Ok(column(&format!("{name}_mean"))?
            .into_iter()
            .zip(column(&format!("{name}_std"))?)
            .collect())
    };
    let (n, lists, tau) = (column("n")?, column("lists")?, pair("tau_a")?);
    let (changed, top) = (column("score_changed_share")?, column("top_changed_share")?);
    let (old, new) = (pair("old_top_new_rank")?, pair("new_top_old_rank")?);
    let (old_c, new_c) = (
        pair("old_top_new_rank_changed")?,
        pair("new_top_old_rank_changed")?,
    );
    let (old_worst, new_worst, gap) = (
        column("old_top_worst_rank")?,
        column("new_top_worst_rank")?,
        pair("gap")?,
    );
    Ok((0..batch.num_rows())
        .map(|i| SizeStats {
            n: n[i].unwrap_or_default() as i64,
            lists: lists[i].unwrap_or_default() as i64,
            mean_tau_a: tau[i].0,
            std_tau_a: tau[i].1,
            score_changed_share: changed[i],
            top_changed_share: top[i],
            old_top_new_rank: old[i],
            new_top_old_rank: new[i],
            old_top_new_rank_changed: old_c[i],
            new_top_old_rank_changed: new_c[i],
            old_top_worst_rank: old_worst[i],
            new_top_worst_rank: new_worst[i],
            gap: gap[i],
        })
        .collect())
}
