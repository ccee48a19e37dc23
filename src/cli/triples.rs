//! `pairmetrics triples`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::triples;

use super::Stdout;
use super::args::TuningArgs;

/// Count dependency triples (head, dependent, deprel) over a parsed corpus, at the `form`
/// and `upos` levels, into a triples table (see schemas/triples.md) for dep_fit.
///
/// One DataFusion aggregation (spilling to disk under --memory-limit), output sorted by
/// level, head, dep, deprel. Root arcs are not counted; a parse whose lengths differ from
/// its sentence's, or with a head out of range, is skipped at the form level and counted in
/// the summary. The upos level reads the arcs table alone (its optional {side}_upos
/// column), so it needs the tags and the parse to agree, not the sentence.
#[derive(clap::Args)]
pub struct Args {
    /// Pairs table (pair_id, src, tgt): the word forms.
    #[arg(long)]
    pairs: PathBuf,
    /// Arcs table: the parses ({side}_head, {side}_deprel, {side}_upos).
    #[arg(long)]
    arcs: PathBuf,
    /// Which side of the pairs to count.
    #[arg(long, value_enum, default_value = "tgt")]
    side: triples::Side,
    /// Output triples table.
    #[arg(long)]
    out: PathBuf,
    /// Lowercase the word forms (then pass lowercased tokens to dep_fit).
    #[arg(long)]
    lowercase: bool,
    /// Leave out sentences of more tokens than this (the IUCL system: 25); all when not given.
    /// Not 25 by default: the IUCL system capped its Wikipedia sentences to keep parsing them
    /// affordable, not as part of the fitness measure, and a table counted from a treebank or
    /// a parsed corpus should hold every sentence unless asked; give --max-length 25 to count
    /// as IUCL did.
    #[arg(long, value_name = "TOKENS")]
    max_length: Option<usize>,
    #[command(flatten)]
    tuning: TuningArgs,
}

impl Args {
    pub async fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
            pairs,
            arcs,
            side,
            out,
            lowercase,
            max_length,
            tuning,
        } = self;
        let options = triples::TriplesOptions {
            pairs,
            arcs,
            side,
            out,
            lowercase,
            max_length,
            tuning: tuning.into(),
        };
        let summary = triples::triples(&options).await?;
        writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        Ok(())
    }
}
