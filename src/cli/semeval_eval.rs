//! `pairmetrics semeval-eval`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::semeval_eval;

use super::Stdout;

/// SemEval-2014 Task 5's official scorer: a run against the gold, as `evaluation.py` 2.1.
///
/// Prints `Accuracy Word-Accuracy Recall` and the three figures exactly as the official
/// scorer prints them (the published results were made with `-I`, and `-I -a` for
/// out-of-five). Its rules, some not in the task's description: fragments are compared as
/// their tokens joined without a separator; tokens that are substrings of `,;.?¿¡!` are
/// removed; for Spanish, `de el`/`a el` are contracted first; the best of the answer (and its
/// `<alt>`s, with -a) against the reference and its alternatives counts; sentences are
/// paired in file order, an output sentence whose id is not the reference's is skipped once,
/// and scoring stops when either file ends. See docs/semeval2014t5.md.
#[derive(clap::Args)]
pub struct Args {
    /// The gold file (e.g. `en-es.gold.tokenised.xml`).
    #[arg(long = "ref", value_name = "GOLD.xml")]
    reference: PathBuf,
    /// The system's run file.
    #[arg(long = "out", value_name = "RUN.xml")]
    run: PathBuf,
    /// Compare without regard to case.
    #[arg(short = 'i')]
    ignore_case: bool,
    /// Out of five: the answer and up to four `<alt>` alternatives; the best counts.
    #[arg(short = 'a')]
    out_of_five: bool,
    /// Score sentences whose input differs from the gold's (how the official results were made).
    #[arg(short = 'I')]
    ignore_input_mismatch: bool,
    /// Stem every token first with the Snowball stemmer of this language (english, german,
    /// spanish, dutch, ...), lowercased as NLTK's stemmer does.
    #[arg(short = 'S', value_name = "LANG")]
    stem: Option<String>,
    /// Write the figures after each fragment (the official `.persentence.score`) as Parquet.
    #[arg(long, value_name = "PATH")]
    per_sentence: Option<PathBuf>,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            reference,
            run,
            ignore_case,
            out_of_five,
            ignore_input_mismatch,
            stem,
            per_sentence,
        } = self;
        let options = semeval_eval::EvalOptions {
            ignore_case,
            out_of_five,
            ignore_input_mismatch,
            stem,
            per_sentence,
        };
        let evaluation = semeval_eval::evaluate(&reference, &run, &options)?;
        for warning in &evaluation.warnings {
            eprintln!("warning: {warning}");
        }
        write!(stdout, "{}", evaluation.summary())?;
        Ok(())
    }
}
