//! `pairmetrics tune`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::l2_assist;
use pairmetrics::smt::l2_assist::FEATURE_NAMES;
use pairmetrics::smt::mert;

use super::Stdout;
use super::args::{AssistArgs, report_generated};

/// Train l2-assist's weights by MERT (Och 2003): the weights whose first-ranked candidates
/// have the highest mean word accuracy on a dev set (or the highest mean of any metric column
/// of a candidates table).
///
/// Exact line search along each feature's axis (and --random-directions), from every weight
/// 1 and from --restarts random starting points, seeded. Writes the weights as JSON with
/// their signature; prints the dev figure before and after.
#[derive(clap::Args)]
pub struct Args {
    /// A dev task file with references (a trial or gold file): its candidates are made as
    /// l2-assist makes them, with the same resource options.
    #[arg(
        long,
        value_name = "DEV.xml",
        required_unless_present = "candidates",
        conflicts_with = "candidates"
    )]
    dev: Option<PathBuf>,
    #[command(flatten)]
    assist: AssistArgs,
    /// Tune on a candidates table instead (`l2-assist --table`, or any table with pair_id,
    /// the feature columns and the --metric column; a pair_id's rows are one list).
    #[arg(long, value_name = "PATH")]
    candidates: Option<PathBuf>,
    /// The metric column maximised (with --candidates; --dev tunes word_accuracy).
    #[arg(long, default_value = "word_accuracy", requires = "candidates")]
    metric: String,
    /// The features tuned, comma-separated; the others weigh 0.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "lm,direct,inverse,pmi_lex,pmi_pos"
    )]
    features: Vec<String>,
    /// Random starting points besides all-ones.
    #[arg(long, default_value_t = mert::MertOptions::default().restarts)]
    restarts: usize,
    /// Random directions per iteration besides the feature axes.
    #[arg(long, default_value_t = 0)]
    random_directions: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the weights (JSON).
    #[arg(long, value_name = "W.json")]
    out: PathBuf,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            dev,
            assist,
            candidates,
            metric,
            features,
            restarts,
            random_directions,
            seed,
            out,
        } = self;
        let options = l2_assist::TuneOptions {
            features,
            mert: mert::MertOptions {
                restarts,
                random_directions,
                seed,
                ..Default::default()
            },
        };
        if let Some(input) = &assist.input {
            anyhow::bail!(
                "tune reads a dev set (--dev DEV.xml) or a candidates table (--candidates), not --input {}",
                input.display()
            );
        }
        let result = match (dev, candidates) {
            (Some(dev), _) => {
                let generated = l2_assist::generate(&assist.options(dev.clone())).await?;
                report_generated(&generated);
                l2_assist::tune_generated(&generated, &options, &dev.display().to_string())?
            }
            (None, Some(table)) => l2_assist::tune_table(&table, &metric, &options).await?,
            (None, None) => unreachable!("clap requires --dev or --candidates"),
        };
        result.write(&out)?;
        let weights: Vec<String> = FEATURE_NAMES
            .iter()
            .zip(result.weights.values)
            .map(|(n, w)| format!("{n}={w:.6}"))
            .collect();
        writeln!(stdout, "wrote {}: {}", out.display(), weights.join(" "))?;
        writeln!(
            stdout,
            "mean metric over {} lists: {:.6} with every weight 1, {:.6} tuned ({} skipped: no reference or no candidate)",
            result.lists, result.initial, result.tuned, result.skipped
        )?;
        Ok(())
    }
}
