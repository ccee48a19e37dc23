//! `pairmetrics demo`.

use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::demo;

use super::Stdout;

/// Score the bundled Europarl sample (3,000 fr-en pairs) and print a short SQL tour.
#[derive(clap::Args)]
pub struct Args {
    /// Directory with pairs.parquet and alignments.parquet.
    #[arg(long, default_value_os_t = demo::default_data_dir())]
    data: PathBuf,
    /// Where to write the scored table (default: a file in the system's temp directory).
    #[arg(long)]
    out: Option<PathBuf>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args { data, out } = self;
        let out = out.unwrap_or_else(|| std::env::temp_dir().join("pairmetrics-demo.parquet"));
        demo::run(&data, &out, stdout).await?;
        Ok(())
    }
}
