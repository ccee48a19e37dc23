//! The pairmetrics command line: parse arguments, call the pipeline, print.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use pairmetrics::pipeline::{demo, score, sql};

#[derive(Parser)]
#[command(
    name = "pairmetrics",
    version,
    about = "Score sentence pairs at corpus scale: Parquet in, metrics as SQL functions, Parquet out.",
    long_about = "Score sentence pairs at corpus scale.\n\n\
        Inputs are Parquet tables (see schemas/ in the source): `pairs` (pair_id, src, tgt token \
        lists), `alignments` (pair_id, links) and `arcs` (dependency parses). Every metric is a \
        DataFusion SQL function (led, pod, lepod_problem, tokenize, lowercase_tokens, pharaoh): \
        `score` adds them as columns, `sql` lets you call them yourself.\n\n\
        Start with `pairmetrics demo`."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Join pairs with their alignments and add a column per metric computable from them.
    ///
    /// Adds `led` (over the alignment's units when --alignments is given, as lepod-score.py
    /// does; otherwise the alignment-free multiset LeD), `pod` (needs --alignments) and
    /// `lepod_problem` (why led/pod are NULL for a row). Every input column is kept; every pair
    /// gives one output row, in pair_id order. The output is zstd Parquet, written under a
    /// temporary name and renamed when complete; its key-value metadata holds the metric
    /// signature (`pairmetrics.signature`).
    Score {
        /// Pairs table: Parquet file or directory (pair_id Int64, src and tgt token lists).
        #[arg(long)]
        pairs: PathBuf,
        /// Alignments table (pair_id, links List<Struct<src Int32, tgt Int32>>, 0-based).
        #[arg(long)]
        alignments: Option<PathBuf>,
        /// Dependency arcs table; checked now, used by the word-order metrics.
        #[arg(long)]
        arcs: Option<PathBuf>,
        /// Output Parquet file.
        #[arg(long)]
        out: PathBuf,
        /// Compare tokens lowercased (lepod-score.py's -l).
        #[arg(long)]
        lowercase: bool,
        /// Characters whose single-character tokens PoD ignores, e.g. "," (lepod-score.py's -p).
        #[arg(long, default_value = "")]
        punct: String,
    },
    /// Run a SQL query over Parquet tables, with every pairmetrics function available.
    ///
    /// Example: pairmetrics sql --table p=pairs.parquet --table a=alignments.parquet
    ///   "SELECT avg(led(src, tgt, links)) FROM p JOIN a USING (pair_id)"
    /// `SHOW FUNCTIONS LIKE 'led'` describes a function.
    Sql {
        /// Register a Parquet file or directory as a table: NAME=PATH (repeatable).
        #[arg(long = "table", value_name = "NAME=PATH", value_parser = parse_table)]
        tables: Vec<(String, PathBuf)>,
        /// How to print the result.
        #[arg(long, value_enum, default_value = "table")]
        format: sql::Format,
        /// Write the result to this Parquet file (atomically) instead of printing it.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The query.
        query: String,
    },
    /// Score the bundled Europarl sample (3,000 fr-en pairs) and print a short SQL tour.
    Demo {
        /// Directory with pairs.parquet and alignments.parquet.
        #[arg(long, default_value_os_t = demo::default_data_dir())]
        data: PathBuf,
        /// Where to write the scored table (default: a file in the system's temp directory).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn parse_table(value: &str) -> Result<(String, PathBuf), String> {
    match value.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH, got `{value}`")),
    }
}

async fn run(cli: Cli) -> Result<()> {
    let stdout = &mut std::io::stdout().lock();
    match cli.command {
        Command::Score { pairs, alignments, arcs, out, lowercase, punct } => {
            let options = score::ScoreOptions {
                pairs,
                alignments,
                arcs,
                out,
                lowercase,
                punct,
                progress: std::io::stderr().is_terminal(),
            };
            let summary = score::score(&options).await?;
            writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        }
        Command::Sql { tables, format, out, query } => {
            let ctx = sql::context_with_tables(&tables).await?;
            sql::run(&ctx, &query, format, out.as_deref(), stdout).await?;
            if let Some(out) = out {
                eprintln!("wrote {}", out.display());
            }
        }
        Command::Demo { data, out } => {
            let out = out.unwrap_or_else(|| std::env::temp_dir().join("pairmetrics-demo.parquet"));
            demo::run(&data, &out, stdout).await?;
        }
    }
    stdout.flush().context("writing to stdout")?;
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build();
    let result = runtime.context("starting the runtime").and_then(|rt| rt.block_on(run(cli)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
