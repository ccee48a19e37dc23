//! `pairmetrics score`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Result, bail};
use pairmetrics::align::{AlignerOptions, Module};
use pairmetrics::parquet::Codec;
use pairmetrics::pipeline::score;

use super::Stdout;
use super::args::{LayoutArgs, ResourceArgs, TuningArgs};

/// Join pairs with their alignments and add a column per metric computable from them.
///
/// Adds `led` (over the alignment's units when --alignments is given, as lepod-score.py
/// does; otherwise the alignment-free multiset LeD), `pod` (needs --alignments) and
/// `lepod_problem` (why led/pod are NULL for a row); with --arcs and --alignments also `derp`
/// (the dependency-path word-order score) and `derp_problem`. Every input column is kept; every pair
/// gives one output row, in pair_id order. The output is Parquet (snappy unless
/// --compression says otherwise), written under a
/// temporary name and renamed when complete; its key-value metadata holds the metric
/// signature (`pairmetrics.signature`).
#[derive(clap::Args)]
pub struct Args {
    /// Pairs table: Parquet file or directory (pair_id Int64, src and tgt token lists).
    #[arg(long)]
    pairs: PathBuf,
    /// Alignments table (pair_id, links List<Struct<src Int32, tgt Int32>>, 0-based).
    #[arg(long)]
    alignments: Option<PathBuf>,
    /// Without an alignments table, align src and tgt with METEOR 1.5's aligner in the same
    /// pass: `meteor`, or `meteor:MODULES` (e.g. meteor:exact+stem; default exact, stem,
    /// synonym). Tokens are aligned as compared (lowercased with --lowercase). The signature
    /// records the aligner, its modules and language.
    #[arg(long, value_name = "meteor[:MODULES]", conflicts_with = "alignments")]
    align: Option<String>,
    /// Dependency parses (arcs table: pair_id, src_head, src_deprel, tgt_head, tgt_deprel);
    /// with --alignments, adds `derp` and `derp_problem`.
    #[arg(long)]
    arcs: Option<PathBuf>,
    /// Output: a Parquet file, or with --partition-by, --max-rows-per-file or a trailing
    /// `/`, a dataset directory (see those options). A local path or a URL.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    layout: LayoutArgs,
    /// Compare tokens lowercased (lepod-score.py's -l).
    #[arg(long)]
    lowercase: bool,
    /// Characters whose single-character tokens PoD ignores, e.g. "," (lepod-score.py's -p).
    #[arg(long, default_value = "")]
    punct: String,
    /// The metrics to compute, comma-separated (default: every metric whose inputs are
    /// given, but not the opt-in ones); `none` with --filters: the filters' columns only.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...", long_help = metrics_help())]
    metrics: Option<Vec<String>>,
    /// Add each side's language and its probability: `langid` (py3langid 0.4.0, built in:
    /// src_langid, src_langid_prob, tgt_langid, tgt_langid_prob), `lingua` (lingua-py 2.1.1's
    /// detector, built in: src_lingua_lid, ...) or `fasttext` (the
    /// --fasttext-model's label: src_fasttext_lid, ...), over the side's tokens joined by
    /// spaces. Repeatable; added to the default metrics or to --metrics.
    #[arg(long, value_name = "METHOD", value_parser = ["langid", "lingua", "fasttext"])]
    lid: Vec<String>,
    /// Add bicleaner-hardrules 2.10.8's verdict for pairs in these languages (SRC-TGT, e.g.
    /// en-fr): `hardrules`, the failing rules in the tool's order and spelling (its -A list;
    /// empty keeps the pair), and `hardrules_keep`. The sides are src_text and tgt_text when
    /// the pairs table has them, else the tokens joined by spaces. Added to the default
    /// metrics or to --metrics.
    #[arg(long, value_name = "SRC-TGT", value_parser = language_pair)]
    hardrules: Option<(String, String)>,
    /// Add OpusFilter 3.3.1's filters from a YAML file: a list of filters as under a
    /// `filter` step's `filters:`, or a whole OpusFilter configuration (the filters of its
    /// `filter` steps, in order). Adds a column per filter, its score as OpusFilter's `score`
    /// step writes it (a list with a value per side where it writes one per input), named
    /// after the filter (`LengthRatioFilter` → `length_ratio_filter`, then its `name` and
    /// instance number if any); `keep`, whether every filter accepts the pair (what its
    /// `filter` step keeps); and `rejected_by`, the column of the first filter that rejects
    /// it. The sides are src_text and tgt_text when the pairs table has them, else the tokens
    /// joined by spaces, rstrip()ped as OpusFilter strips its lines. Besides the metrics.
    #[arg(long, value_name = "CONFIG.yaml")]
    filters: Option<PathBuf>,
    /// --phrase-table adds `true_score` (tgt as a paraphrase of src); --triples with --arcs adds
    /// `tgt_dep_fit` (the whole tgt sentence's fitness) and `tgt_dep_fit_problem`; --lm adds
    /// `src_lm_logprob` and `tgt_lm_logprob`.
    #[command(flatten)]
    resources: ResourceArgs,
    #[command(flatten)]
    tuning: TuningArgs,
    /// How the computed columns are compressed. Snappy, what pyarrow, Spark and DuckDB write
    /// by default, scores ~12 % faster than zstd; zstd files are ~1/3 smaller. The pairs
    /// table's own columns are copied as stored when --pairs is one Parquet file with an
    /// offset index read in lockstep (see docs/guide/scoring.md), and keep its compression.
    #[arg(long, value_enum, default_value = "snappy")]
    compression: Codec,
    /// Stop with an error at the first pair a metric cannot score (naming its pair_id and
    /// why), instead of writing NULL and counting it in the summary.
    #[arg(long)]
    strict: bool,
    /// Print the query and DataFusion's physical plan instead of running them.
    #[arg(long)]
    explain: bool,
    /// Run on a Ballista cluster: the scheduler at df://HOST:PORT (`pairmetrics cluster`,
    /// the `cluster` feature). Table paths must be readable by every executor at the same
    /// path, and --out is then a dataset directory the executors write on a shared file
    /// system, published (renamed into place, with _SUCCESS) only when complete. Tables in
    /// the same pair_id order are read side by side there too: each task scores one share
    /// of the rows and writes it to a file of its own (part-00000.parquet, ... in pair_id
    /// order); --partitions sets the shares (default: this machine's cores; give the
    /// cluster's task slots).
    #[arg(long, value_name = "df://HOST:PORT")]
    cluster: Option<String>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            pairs,
            alignments,
            align,
            arcs,
            out,
            layout,
            lowercase,
            punct,
            metrics,
            lid,
            hardrules,
            filters,
            resources,
            tuning,
            compression,
            strict,
            explain,
            cluster,
        } = self;
        let filters = filters
            .map(|path| -> Result<score::Filters> {
                let yaml = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow::anyhow!("--filters {}: {e}", path.display()))?;
                Ok(score::Filters {
                    name: path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into(),
                    yaml,
                })
            })
            .transpose()?;
        let resources = resources.options()?;
        let align = align
            .map(|spec| score_aligner(&spec, &resources.aligner))
            .transpose()?;
        let mut options = score::ScoreOptions {
            pairs: pairs.into(),
            alignments: alignments.map(Into::into),
            align,
            arcs: arcs.map(Into::into),
            out,
            layout: layout.into(),
            lowercase,
            punct,
            metrics,
            hardrules: hardrules.clone(),
            filters,
            resources,
            tuning: tuning.into(),
            compression,
            strict,
            progress: std::io::stderr().is_terminal() && cluster.is_none(),
            cluster,
        };
        if options.metrics.as_deref() == Some(&["none".to_string()]) {
            if options.filters.is_none() {
                bail!("--metrics none leaves nothing to compute: give --filters too");
            }
            options.metrics = Some(Vec::new());
        }
        let named_hardrules = options.metrics.iter().flatten().any(|m| m == "hardrules");
        if named_hardrules && hardrules.is_none() {
            bail!("--metrics hardrules needs the pairs' languages: --hardrules SRC-TGT");
        }
        let mut added: Vec<String> = lid
            .iter()
            .map(|method| match method.as_str() {
                "langid" => "langid".to_string(),
                "lingua" => "lingua_lid".to_string(),
                _ => "fasttext_lid".to_string(),
            })
            .collect();
        if hardrules.is_some() && !named_hardrules {
            added.push("hardrules".into());
        }
        if !added.is_empty() {
            let mut names = match options.metrics.take() {
                Some(names) => names,
                None => score::selected_metrics(&options)?
                    .iter()
                    .map(|m| m.name.to_string())
                    .collect(),
            };
            names.extend(added);
            options.metrics = Some(names);
        }
        if explain {
            writeln!(stdout, "{}", score::explain(&options).await?)?;
        } else {
            let summary = score::score(&options).await?;
            writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        }
        Ok(())
    }
}
/// SRC-TGT: two language codes.
fn language_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('-') {
        Some((src, tgt)) if !src.is_empty() && !tgt.is_empty() && !tgt.contains('-') => {
            Ok((src.to_string(), tgt.to_string()))
        }
        _ => Err(format!(
            "expected SRC-TGT, two language codes (en-fr), not {text:?}"
        )),
    }
}

/// `score --help`'s list of metrics, from the metric table.
fn metrics_help() -> String {
    let metrics: Vec<String> = score::METRICS
        .iter()
        .map(|m| {
            let opt_in = if m.by_default { "" } else { " (opt-in)" };
            format!("  {}{opt_in}: {}", m.name, m.about)
        })
        .collect();
    format!(
        "The metrics to compute, comma-separated. Default: every metric whose inputs are given, \
         except the opt-in ones. A metric named here without its inputs is an error. `none` \
         computes no metric: with --filters, the filters' columns alone.\n\n{}",
        metrics.join("\n")
    )
}

/// `score --align meteor[:MODULES]` on top of the aligner flags.
fn score_aligner(spec: &str, base: &AlignerOptions) -> Result<AlignerOptions> {
    let (name, modules) = spec.split_once(':').unwrap_or((spec, ""));
    if name != "meteor" {
        anyhow::bail!(
            "--align {spec}: the aligner is `meteor` (METEOR 1.5), as meteor or meteor:MODULES"
        );
    }
    let mut options = base.clone();
    if !modules.is_empty() {
        options.modules = Some(Module::parse_list(modules)?);
    }
    Ok(options)
}
