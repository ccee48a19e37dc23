//! `pairmetrics paraphrase`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::paraphrase;
use pairmetrics::smt::mcpg::{self, Mode};

use super::Stdout;
use super::args::{ModelArgs, at_least_one, cores};

/// Generate paraphrases with MCPG, the Monte-Carlo paraphrase generator (Chevelu et al.
/// 2009) as Chevelu et al. (Coling 2010, §4) run it.
///
/// Rules of the phrase table are applied to disjoint spans of each sentence, in place, as
/// moves of a one-player game searched by UCT (UCB1-tuned, RAVE, random roll-outs,
/// max-reward backup); after --episodes episodes the root moves to its best child. In
/// true-score mode any changed sentence may end the game and its reward is the paper's model
/// score: alpha_phi * true score (its best derivation) + alpha_lm * ln P(sentence). In
/// translator mode, as a decoder, the game ends only once every source word is rewritten
/// or may be kept for free, and the reward scores the derivation played. The source itself
/// is never a paraphrase. Seeded: the same sentence, table, model and options give the same
/// output, wherever the sentence is in the input. Sentences run in parallel. See
/// docs/mcpg.md for every choice the papers leave open.
///
/// Prints Moses n-best lines (`id ||| paraphrase ||| phrase= X lm= Y ||| reward`, ids
/// 0-based, best first), which `import moses-nbest` and `rerank` read; --out writes a
/// table instead (id, rank, paraphrase, tokens, reward, model_score, true_score, lm_log10,
/// rules; a sentence without a paraphrase gets one row with NULLs and a `problem`).
#[derive(clap::Args)]
pub struct Args {
    /// The sentences: a text file (one tokenised sentence per line; gzip or zstd too) or a
    /// Parquet file or directory (see --column; ids from its pair_id, else the row).
    input: PathBuf,
    /// The Parquet column holding the sentences: tokens (List<Utf8>) or text.
    #[arg(long, default_value = "src")]
    column: String,
    #[command(flatten)]
    model: ModelArgs,
    /// What the search maximises: true-score or translator.
    #[arg(long, default_value = "true-score", value_parser = clap::builder::PossibleValuesParser::new(Mode::NAMES))]
    mode: String,
    /// Episodes from each root before the root moves (eta).
    #[arg(long, default_value_t = mcpg::DEFAULT_EPISODES)]
    episodes: u64,
    /// Paraphrases per sentence, best first.
    #[arg(long, default_value_t = 1)]
    nbest: usize,
    /// Seed of the random roll-outs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// At most this many rules per source phrase, the most probable (Moses' table limit;
    /// 0 keeps all).
    #[arg(long, default_value_t = mcpg::DEFAULT_RULES_PER_PHRASE)]
    rules_per_phrase: usize,
    /// A task reward to maximise instead of the model score: an SQL expression of `src` and
    /// `tgt` (the sentence and a paraphrase, token lists) and `model_score` (the mode's reward),
    /// with any pairmetrics function, e.g. 'model_score - 0.5 * led(src, tgt)'. Evaluated once
    /// per distinct paraphrase; NULL, ±inf and NaN leave it unrewarded. Functions whose value
    /// changes from call to call or run to run (random(), now()) are refused: one seed gives
    /// one output. The output's reward is the task's.
    #[arg(long, value_name = "EXPR")]
    reward: Option<String>,
    /// Write a Parquet table (atomically) instead of n-best lines.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            input,
            column,
            model,
            mode,
            episodes,
            nbest,
            seed,
            rules_per_phrase,
            reward,
            out,
            threads,
        } = self;
        let options = paraphrase::ParaphraseOptions {
            input,
            column,
            phrase_table: model.phrase_table(),
            mcpg: mcpg::Options {
                mode: Mode::parse(&mode).expect("clap checked it"),
                episodes,
                nbest,
                seed,
                weights: model.weights(),
                rules_per_phrase,
            },
            lm: model.lm,
            reward,
            out,
            threads: threads.unwrap_or_else(cores),
            progress: std::io::stderr().is_terminal(),
        };
        let (summary, loaded) = paraphrase::paraphrase(&options, &mut *stdout).await?;
        for line in loaded {
            eprintln!("{line}");
        }
        match &options.out {
            Some(out) => writeln!(stdout, "wrote {}\n{summary}", out.display())?,
            None => eprintln!("{summary}"),
        }
        Ok(())
    }
}
