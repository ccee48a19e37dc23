//! `pairmetrics sql`.

use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::sql;
use pairmetrics::resources;

use super::Stdout;
use super::args::{LayoutArgs, ResourceArgs, TuningArgs};

/// Run a SQL query over Parquet tables, with every pairmetrics function available.
///
/// Example: pairmetrics sql --table p=pairs.parquet --table a=alignments.parquet
///   "SELECT avg(led(src, tgt, links)) FROM p JOIN a USING (pair_id)"
/// `SHOW FUNCTIONS LIKE 'led'` describes a function.
#[derive(clap::Args)]
pub struct Args {
    /// Register a table: NAME=PATH (repeatable). PATH is a Parquet file, a directory or
    /// prefix of them (Hive partitions become columns), or delta:PATH_OR_URL[@VERSION] for
    /// a Delta Lake table (at that version: time travel).
    #[arg(long = "table", value_name = "NAME=PATH", value_parser = parse_table)]
    tables: Vec<(String, PathBuf)>,
    /// Declare table NAME sorted by pair_id, ascending (repeatable). Files pairmetrics writes
    /// in pair_id order record it and need no flag, as do files whose Parquet sorting_columns
    /// say so. With a sorted table, joins are planned as merge joins, which stream in bounded
    /// memory; a table declared sorted that is not gives wrong join results.
    #[arg(long = "sorted", value_name = "NAME")]
    sorted: Vec<String>,
    /// How to print the result.
    #[arg(long, value_enum, default_value = "table")]
    format: sql::Format,
    /// Write the result to this Parquet file (atomically) instead of printing it; with
    /// --partition-by, --max-rows-per-file or a trailing `/`, to a dataset directory.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    layout: LayoutArgs,
    #[command(flatten)]
    resources: ResourceArgs,
    #[command(flatten)]
    tuning: TuningArgs,
    /// Run on a Ballista cluster: the scheduler at df://HOST:PORT (`pairmetrics cluster`,
    /// the `cluster` feature). Table paths must be readable by every executor at the same
    /// path, and --out is then a dataset directory the executors write on a shared file
    /// system, published (renamed into place, with _SUCCESS) only when complete.
    #[arg(long, value_name = "df://HOST:PORT")]
    cluster: Option<String>,
    /// The query.
    query: String,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            tables,
            sorted,
            format,
            out,
            layout,
            resources: wanted,
            tuning,
            cluster,
            query,
        } = self;
        let (resources, loaded) = resources::load(&wanted.options()?).await?;
        for line in loaded {
            eprintln!("{line}");
        }
        let ctx = pairmetrics::session::context_on(
            &tables,
            &sorted,
            &resources,
            &tuning.into(),
            cluster.as_deref(),
        )
        .await?;
        // Data formats are written as they are for programs; to a terminal, which would obey
        // their control characters, escaped as the table is.
        use std::io::IsTerminal;
        if format != sql::Format::Table && out.is_none() && std::io::stdout().is_terminal() {
            let mut safe = pairmetrics::formats::terminal::TerminalSafe::new(&mut *stdout);
            sql::run(&ctx, &query, format, None, &layout.into(), &mut safe).await?;
            std::io::Write::flush(&mut safe)?;
        } else {
            sql::run(&ctx, &query, format, out.as_deref(), &layout.into(), stdout).await?;
        }
        if let Some(out) = out {
            eprintln!("wrote {}", out.display());
        }
        Ok(())
    }
}
fn parse_table(value: &str) -> Result<(String, PathBuf), String> {
    match value.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH, got `{value}`")),
    }
}
