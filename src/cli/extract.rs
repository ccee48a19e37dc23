//! `pairmetrics extract`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::extract;

use super::Stdout;
use super::args::TuningArgs;

/// Extract and score a phrase table from word-aligned bitext, as Moses' `extract` and
/// `score` do (the bilingual table `pivot` takes).
///
/// Phrase pairs: every target span of at most --max-phrase-length tokens with a link,
/// projected onto the source, kept when no word inside links outside, the source side
/// widened over unaligned source words at its edges (Koehn et al. 2003). Scores: p(f|e) and
/// p(e|f) by relative frequency; lex(f|e) and lex(e|f) from the word translation table of
/// the same links (unaligned words with NULL), under each phrase pair's most frequent
/// internal alignment. src is f, tgt is e. The output is a phrase_table (see
/// schemas/phrase_table.md) sorted by src, tgt, with the alignment and counts (c(e), c(f),
/// c(f,e)). The word translation table is held in memory; the phrase pairs go through
/// DataFusion plans that spill to disk (and a temporary file) under --memory-limit (512 MiB
/// is plenty; a very small limit can fail in the final merge). Pairs without an alignment
/// row, with a link outside the sentences or a NULL are skipped and counted.
#[derive(clap::Args)]
pub struct Args {
    /// Pairs table (pair_id, src, tgt).
    #[arg(long)]
    pairs: PathBuf,
    /// Alignments table (pair_id, links: src-tgt, 0-based), e.g. from `import pharaoh`.
    #[arg(long)]
    alignments: PathBuf,
    /// Output phrase_table.
    #[arg(long)]
    out: PathBuf,
    /// The longest phrase on either side, in tokens (Moses' default, 7; at most 255).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..=255))]
    max_phrase_length: u16,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            pairs,
            alignments,
            out,
            max_phrase_length,
            tuning,
        } = self;
        let options = extract::ExtractOptions {
            pairs,
            alignments,
            out,
            max_length: max_phrase_length.into(),
            tuning: tuning.into(),
        };
        let summary = extract::extract(&options).await?;
        writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        Ok(())
    }
}
