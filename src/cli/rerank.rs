//! `pairmetrics rerank`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::rerank;

use super::Stdout;
use super::args::{ModelArgs, TuningArgs};

/// The n-best study of Chevelu et al. (2010, §3.3, Figure 1): does the decoder rank its
/// n-best paraphrases as their true model scores do?
///
/// Every hypothesis gets its true model score: alpha_phi * true_score (the best derivation
/// under --phrase-table) + alpha_lm * ln P(hypothesis) (with --lm; its log10 times ln 10).
/// Each list is re-ranked by it (ties keep decoder order). For each n of --sizes, the lists
/// with at least n hypotheses (shorter ones are dropped, as in the paper) are cut to their
/// first n, and over them: mean and sample standard deviation of Kendall tau_A between
/// decoder order and true order; the share of hypotheses whose score changed (true model
/// score and decoder total differ by more than --tolerance; with --phrase-feature, the
/// decoder's own phrase score, and LM score with --lm-feature, weighted as the true model
/// weighs them, in place of its total); the share of lists whose
/// decoder 1-best is no longer the best; the mean ± std 1-based rank of the old top after
/// re-ranking and of the new top before it, over all lists and over the changed ones only;
/// the worst of each (how far the old top fell, where the new top came from); the mean ± std
/// gap between the decoder totals of the 1st and the n-th hypothesis. Hypotheses no
/// derivation reaches (NULL true score) are left out and counted.
///
/// A list that holds a hypothesis more than once (n-best lists of derivations, not of
/// distinct sentences) gets a warning: each repeat counts as a changed score and ties.
///
/// With --versus (Figure 3, §4): the true model score of each other system's best paraphrase
/// of each sentence against the decoder's re-ranked best (its best true model score, the
/// source itself left out), the mean ± std of each difference, and how many sentences were
/// left out and why.
///
/// Writes a new directory: hypotheses.parquet (id, rank, hyp, total, true_score,
/// model_score, score_changed, true_rank), sizes.parquet (one row per n) and a plot of each
/// statistic against n: tau_a.svg (Figure 1: mean tau_A ± std), changed.svg (the two
/// shares), ranks.svg (the old and new tops' ranks, mean ± std and worst) and gap.svg; with
/// --versus, figure3.parquet (id, decoder, a column per system, ordered by decoder) and
/// figure3.svg. Staged and renamed when complete.
#[derive(clap::Args)]
pub struct Args {
    /// The n-best lists: an nbest table (see schemas/nbest.md; `import moses-nbest`).
    #[arg(long)]
    nbest: PathBuf,
    /// The source sentences: a pairs table whose pair_id is the n-best id and src the
    /// sentence (e.g. `import text --src input.txt --tgt input.txt`).
    #[arg(long)]
    sources: PathBuf,
    /// The decoder's paraphrase table and language model.
    #[command(flatten)]
    model: ModelArgs,
    /// n-best sizes, comma-separated, each at least 2 (default 5, 10, ..., 100).
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    sizes: Vec<usize>,
    /// Every size over the same lists: those with at least the largest size's hypotheses
    /// (the paper's fixed set), instead of each size over the lists at least that long.
    #[arg(long)]
    full_lists_only: bool,
    /// A score counts as changed when |true model score - decoder total| exceeds this
    /// (Moses prints totals rounded).
    #[arg(long, default_value_t = 1e-4)]
    tolerance: f64,
    /// Compare the true score with this feature of the n-best lines, as they name it
    /// (`phrase=` for `decode`'s lines, `tm:` for old Moses ones; its first value), instead
    /// of comparing the true model score with the decoder's total, which may add distortion
    /// and word penalties the true model does not have.
    #[arg(long, value_name = "NAME")]
    phrase_feature: Option<String>,
    /// With --phrase-feature and --lm: the feature holding the decoder's ln P (`lm=`).
    #[arg(long, value_name = "NAME", requires_all = ["phrase_feature", "lm"])]
    lm_feature: Option<String>,
    /// Figure 3: another system's paraphrases of the same sentences, as NAME=TABLE (a table
    /// with id, rank and model_score, as `paraphrase --out` writes; its rank 1 is compared).
    /// Repeat for several systems, e.g. --versus mcpg=mcpg.parquet.
    #[arg(long, value_name = "NAME=TABLE", value_parser = rerank::Versus::parse)]
    versus: Vec<rerank::Versus>,
    /// Output directory (must not exist).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            nbest,
            sources,
            model,
            sizes,
            full_lists_only,
            tolerance,
            phrase_feature,
            lm_feature,
            versus,
            out,
            tuning,
        } = self;
        let options = rerank::RerankOptions {
            nbest,
            sources,
            phrase_table: model.phrase_table(),
            weights: model.weights(),
            lm: model.lm,
            sizes: if sizes.is_empty() {
                rerank::default_sizes()
            } else {
                sizes
            },
            full_lists_only,
            tolerance,
            decoder_features: phrase_feature.map(|phrase| rerank::DecoderFeatures {
                phrase,
                lm: lm_feature,
            }),
            versus,
            out,
            tuning: tuning.into(),
        };
        let (summary, loaded) = rerank::rerank(&options).await?;
        for line in loaded.into_iter().chain(summary.repeating_warning()) {
            eprintln!("{line}");
        }
        writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        Ok(())
    }
}
