//! `pairmetrics l2-assist`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::l2_assist;

use super::Stdout;
use super::args::{AssistArgs, report_generated};

/// The IUCL L2 writing assistant (SemEval-2014 Task 5): translate each L1 fragment of a task
/// file in its L2 sentence and write a run file for the official scorer.
///
/// Candidates per fragment, in back-off order, each step only when the one before gives none:
/// the phrase table's translations (best direct probability first); synthetic phrases built
/// from its pieces; the --dictionary's entries for the whole fragment; synthetic phrases whose
/// pieces the table lacks are the dictionary's (`le chat noir` -> `the cat black` with `noir`
/// only in the dictionary); the fragment itself, untranslated. Each step tries the fragment as
/// written, then lowercased. Each candidate is spliced into its sentence and gets the features lm (log10 of the whole
/// sentence), direct and inverse (log10 p(tgt|src), p(src|tgt)), pmi_lex and pmi_pos (its
/// dependency fitness at form and UPOS level in a parse of the sentence: from --parses when
/// they hold that sentence, else projected from the input's parse). A missing feature counts
/// 0. Candidates are ranked by loglinear(weights, features): --weights from `tune`, or every
/// weight 1. See docs/l2-assist.md.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    assist: AssistArgs,
    /// Weights from `pairmetrics tune` (JSON); default: every weight 1.
    #[arg(long, value_name = "W.json")]
    weights: Option<PathBuf>,
    /// The run file to write (XML, written under a temporary name, renamed when complete).
    #[arg(long, value_name = "RUN.xml")]
    out: PathBuf,
    /// Out of five: also write the next four candidates as `<alt>`s (score with -a).
    #[arg(long)]
    out_of_five: bool,
    /// Also write every candidate, its features, score, rank and (with references) word
    /// accuracy as a Parquet table, for SQL and for `tune --candidates`.
    #[arg(long, value_name = "PATH")]
    table: Option<PathBuf>,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            mut assist,
            weights,
            out,
            out_of_five,
            table,
        } = self;
        let Some(input) = assist.input.take() else {
            anyhow::bail!("l2-assist needs --input FILE.xml")
        };
        let options = assist.options(input);
        let weights = match &weights {
            Some(path) => l2_assist::Weights::read(path)?,
            None => l2_assist::Weights::default(),
        };
        let generated = l2_assist::generate(&options).await?;
        report_generated(&generated);
        l2_assist::assist(&generated, &weights, out_of_five, &out, table.as_deref())?;
        writeln!(
            stdout,
            "wrote {}: {} fragments",
            out.display(),
            generated.fragments.len()
        )?;
        Ok(())
    }
}
