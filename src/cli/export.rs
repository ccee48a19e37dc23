//! `pairmetrics export FORMAT`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::export;

use super::Stdout;

/// Write our tables in other tools' text formats.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    format: Format,
}

#[derive(clap::Subcommand)]
enum Format {
    /// A phrase_table (from `extract`, `pivot` or `import moses-phrase-table`) as a Moses phrase
    /// table: `src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f) [more] ||| alignment ||| counts`,
    /// one rule per line in table order, numbers in shortest round-trip form, so `import
    /// moses-phrase-table` reads back the same table. Missing lexical weights (a pivoted table
    /// has none) are written as 1, which Moses' log-linear model ignores (log 1 = 0), and
    /// counted.
    MosesPhraseTable {
        /// The phrase_table (Parquet file or directory).
        #[arg(long)]
        table: PathBuf,
        /// Output text file (written under a temporary name, renamed when complete).
        #[arg(long)]
        out: PathBuf,
    },
    /// A fragments table as a SemEval-2014 Task 5 run file for the official scorer (and
    /// `semeval-eval`): per sentence its `<input>` and an `<output>` where each fragment holds
    /// the row's answer and up to four `<alt>`s (out-of-five). Rows in pair_id order; rows of
    /// one sentence (same sentence_id and input) become one sentence's fragments. Words are
    /// joined by single spaces: a gold file whose text has other spacing compares equal only
    /// under the scorer's -I (how the task's official results were computed).
    Semeval2014t5 {
        /// A fragments table (`import semeval2014t5`, or a table with its columns and an answer
        /// column, like `l2-assist --table`'s).
        #[arg(long)]
        table: PathBuf,
        /// Output XML file (written under a temporary name, renamed when complete).
        #[arg(long)]
        out: PathBuf,
        /// The answer column (a token list; NULL leaves a fragment unanswered).
        #[arg(long, default_value = "output_fragment")]
        answer: String,
        /// The alternatives column (a list of token lists). Defaults to output_alternatives
        /// when --answer is output_fragment, else none.
        #[arg(long)]
        alternatives: Option<String>,
        /// Write no alternatives (a best run), whatever the table holds.
        #[arg(long, conflicts_with = "alternatives")]
        best_only: bool,
    },
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        match self.format {
            Format::MosesPhraseTable { table, out } => {
                let summary = export::moses_phrase_table(&table, &out).await?;
                writeln!(stdout, "wrote {}: {} rules", out.display(), summary.rows)?;
                if summary.missing_lexical_weights > 0 {
                    eprintln!(
                        "note: {} rules had no lexical weights (a pivoted table has none): written as 1, which Moses' log-linear model ignores (log 1 = 0)",
                        summary.missing_lexical_weights
                    );
                }
            }
            Format::Semeval2014t5 {
                table,
                out,
                answer,
                alternatives,
                best_only,
            } => {
                let alternatives = match (alternatives, best_only) {
                    (_, true) => None,
                    (Some(column), false) => Some(column),
                    (None, false) => (answer == export::RunColumns::default().answer)
                        .then(|| "output_alternatives".to_string()),
                };
                let written = export::semeval2014t5(
                    &table,
                    &out,
                    &export::RunColumns {
                        answer,
                        alternatives,
                    },
                )
                .await?;
                writeln!(stdout, "wrote {}: {written} fragments", out.display())?;
            }
        }
        Ok(())
    }
}
