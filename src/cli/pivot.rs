//! `pairmetrics pivot`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::pivot;

use super::Stdout;
use super::args::TuningArgs;

/// Build a paraphrase table from a bilingual phrase_table by pivoting (Bannard &
/// Callison-Burch 2005): p(f2|f1) = sum over pivot phrases e of p(f2|e) p(e|f1).
///
/// The input's src is f and tgt the pivot e (p_f_e = p(f|e), p_e_f = p(e|f), as Moses
/// writes them). The output is a phrase_table of f -> f paraphrases with p_e_f = p(f2|f1)
/// and p_f_e = p(f1|f2), lexical weights NULL, sorted by src then probability. It runs as one
/// DataFusion plan (self-join, GROUP BY, window), spilling to disk under --memory-limit.
#[derive(clap::Args)]
pub struct Args {
    /// The bilingual phrase_table (Parquet file or directory).
    #[arg(long)]
    table: PathBuf,
    /// Output paraphrase phrase_table.
    #[arg(long)]
    out: PathBuf,
    /// E: drop per-pivot products p(f2|e) p(e|f1) below this.
    #[arg(long, default_value_t = 1e-5)]
    min_product: f64,
    /// tau: drop pivot phrases shared by more source phrases than this.
    #[arg(long, default_value_t = 200)]
    max_cluster: u64,
    /// kappa: keep this many most probable paraphrases per source phrase.
    #[arg(long, default_value_t = 20)]
    keep: u64,
    /// Leave out (f, f) pairs (kept by default).
    #[arg(long)]
    no_self_pairs: bool,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            table,
            out,
            min_product,
            max_cluster,
            keep,
            no_self_pairs,
            tuning,
        } = self;
        let options = pivot::PivotOptions {
            table,
            out,
            min_product,
            max_cluster,
            keep,
            self_pairs: !no_self_pairs,
            tuning: tuning.into(),
        };
        let summary = pivot::pivot(&options).await?;
        writeln!(
            stdout,
            "wrote {}: {} paraphrase rules\nsignature: {}",
            options.out.display(),
            summary.rows,
            summary.signature
        )?;
        Ok(())
    }
}
