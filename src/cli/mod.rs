//! The command line: one module per command, each holding its clap arguments, their conversion
//! into the library's options, and what it prints; the argument groups several commands share
//! are in [`args`].

mod align;
mod align_words;
mod args;
mod atools;
mod cluster;
mod compare;
mod decode;
mod dedup;
mod demo;
mod export;
mod extract;
mod fast_align;
mod fasttext;
mod hardrules;
mod import;
mod l2_assist;
mod lepod;
mod lm;
mod lmplz;
mod opusfilter;
mod paraphrase;
mod pivot;
mod report;
mod rerank;
mod sacrebleu;
mod score;
mod semeval_eval;
mod show;
mod sql;
mod triples;
mod tune;

use std::io::Write;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use pairmetrics::resources::MissingResource;

/// Where commands print their results.
type Stdout = std::io::StdoutLock<'static>;

#[derive(Parser)]
#[command(
    name = "pairmetrics",
    version,
    about = "Score sentence pairs at corpus scale: Parquet in, metrics as SQL functions, Parquet out.",
    long_about = "Score sentence pairs at corpus scale.\n\n\
        Inputs are Parquet tables (see schemas/ in the source): `pairs` (pair_id, src, tgt token \
        lists), `alignments` (pair_id, links) and `arcs` (dependency parses). Every metric is a \
        DataFusion SQL function (led, pod, derp, true_score, kendall_tau_a, dep_fit, lm_logprob, \
        word_accuracy and more; `pairmetrics sql \"SHOW FUNCTIONS\"` lists them): \
        `score` adds them as columns, `sql` lets you call them yourself.\n\n\
        Every input and output path may also be a URL: s3://bucket/key, gs://, az:// or \
        abfss://, http(s):// (read only), file://. A directory or prefix of *.parquet files is \
        one table; key=value directories in it (Hive partitions) become string columns. \
        Credentials come from the environment as the stores' own tools read them (AWS_*, \
        including AWS_ENDPOINT_URL and AWS_ALLOW_HTTP; GOOGLE_APPLICATION_CREDENTIALS; \
        AZURE_STORAGE_*), or from --storage-option.\n\n\
        Start with `pairmetrics demo`."
)]
pub struct Cli {
    /// A setting of the object stores, over the environment's: e.g. aws_endpoint_url=http://
    /// 127.0.0.1:8333, aws_allow_http=true, aws_region=eu-west-1 (object_store's key names).
    #[arg(long = "storage-option", value_name = "KEY=VALUE", global = true, value_parser = key_value)]
    storage_options: Vec<(String, String)>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Score(score::Args),
    Sql(sql::Args),
    Cluster(cluster::Args),
    Import(import::Args),
    Align(align::Args),
    AlignWords(align_words::Args),
    Atools(atools::Args),
    Sacrebleu(sacrebleu::Args),
    Lepod(lepod::Args),
    Extract(extract::Args),
    FastAlign(fast_align::Args),
    Fasttext(fasttext::Args),
    Lmplz(lmplz::Args),
    Opusfilter(opusfilter::Args),
    Dedup(dedup::Args),
    Hardrules(hardrules::Args),
    Lm(lm::Args),
    Export(export::Args),
    Rerank(rerank::Args),
    Paraphrase(paraphrase::Args),
    Decode(decode::Args),
    Pivot(pivot::Args),
    Triples(triples::Args),
    Compare(compare::Args),
    Show(show::Args),
    Report(report::Args),
    SemevalEval(semeval_eval::Args),
    L2Assist(l2_assist::Args),
    Tune(tune::Args),
    Demo(demo::Args),
}

impl Cli {
    /// The command line of this process (sacrebleu's short options of several letters read as
    /// their long forms).
    pub fn from_env() -> Cli {
        Cli::parse_from(sacrebleu::long_options(std::env::args_os()))
    }

    pub fn storage_options(&self) -> Vec<(String, String)> {
        self.storage_options.clone()
    }

    pub async fn run(self) -> Result<()> {
        let stdout = &mut std::io::stdout().lock();
        match self.command {
            Command::Score(args) => args.run(stdout).await?,
            Command::Sql(args) => args.run(stdout).await?,
            Command::Cluster(args) => args.run().await?,
            Command::Import(args) => args.run(stdout)?,
            Command::Align(args) => args.run(stdout)?,
            Command::AlignWords(args) => args.run(stdout).await?,
            Command::Atools(args) => args.run(stdout)?,
            Command::Sacrebleu(args) => args.run(stdout)?,
            Command::Lepod(args) => args.run(stdout)?,
            Command::Extract(args) => args.run(stdout).await?,
            Command::FastAlign(args) => args.run(stdout)?,
            Command::Fasttext(args) => args.run(stdout)?,
            Command::Lmplz(args) => args.run(stdout)?,
            Command::Opusfilter(args) => args.run()?,
            Command::Dedup(args) => args.run().await?,
            Command::Hardrules(args) => args.run()?,
            Command::Lm(args) => args.run(stdout).await?,
            Command::Export(args) => args.run(stdout).await?,
            Command::Rerank(args) => args.run(stdout).await?,
            Command::Paraphrase(args) => args.run(stdout).await?,
            Command::Decode(args) => args.run(stdout).await?,
            Command::Pivot(args) => args.run(stdout).await?,
            Command::Triples(args) => args.run(stdout).await?,
            Command::Compare(args) => args.run(stdout).await?,
            Command::Show(args) => args.run(stdout).await?,
            Command::Report(args) => args.run(stdout).await?,
            Command::SemevalEval(args) => args.run(stdout)?,
            Command::L2Assist(args) => args.run(stdout).await?,
            Command::Tune(args) => args.run(stdout).await?,
            Command::Demo(args) => args.run(stdout).await?,
        }
        stdout.flush().context("writing to stdout")
    }
}

fn key_value(arg: &str) -> Result<(String, String), String> {
    match arg.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("`{arg}` is not KEY=VALUE")),
    }
}

/// An error as the command line says it: a function without its resource names the flag that
/// gives it, and DataFusion out of memory names --memory-limit.
pub fn error_message(err: &anyhow::Error) -> String {
    match err
        .chain()
        .find_map(|e| e.downcast_ref::<MissingResource>())
    {
        Some(missing) => resource_hint(missing),
        None if format!("{err:#}").contains("Resources exhausted") => memory_hint(err),
        None => pairmetrics::session::without_engine_prefixes(&chain_text(err)),
    }
}

/// The error and its causes, each said once: DataFusion's and object_store's errors repeat
/// their causes' words in their own (an S3 error read three times over), and an SQL parse error
/// shows the parser's message in Debug form before the parser says it plainly.
fn chain_text(err: &anyhow::Error) -> String {
    use datafusion::error::DataFusionError;
    let mut out = String::new();
    for cause in err.chain() {
        if let Some(DataFusionError::SQL(..)) = cause.downcast_ref::<DataFusionError>() {
            continue;
        }
        let text = cause.to_string();
        if out.contains(text.as_str()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// DataFusion out of the memory pool --memory-limit made (without the flag there is no limit),
/// said in the command line's terms: DataFusion's own message names its operators and keys.
fn memory_hint(err: &anyhow::Error) -> String {
    let said = err.root_cause().to_string();
    // DataFusion repeats its message once per layer: the first is enough.
    let said = said
        .splitn(3, "Resources exhausted: ")
        .nth(1)
        .map_or(said.as_str(), |s| s.trim_end_matches(": "))
        .to_string();
    format!(
        "the job needed more memory than --memory-limit gives it (sorts and most aggregations spill beyond \
         the limit, but not every buffer can): give it more, e.g. --memory-limit 512, or leave the flag out \
         (DataFusion: {said})"
    )
}

/// A function used without its resource, said in the command line's terms.
fn resource_hint(missing: &MissingResource) -> String {
    let option = missing.resource.option();
    let value = option.value.placeholder().unwrap_or_default();
    format!(
        "{} needs {}: pass --{} {value} to pairmetrics sql or score. {}",
        missing.function,
        missing.resource.what(),
        option.flag,
        option.help
    )
}
