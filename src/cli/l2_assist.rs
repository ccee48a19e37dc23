//! `pairmetrics l2-assist`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pair::dep_fit::Formula;
use pairmetrics::pipeline::l2_assist;
use pairmetrics::resources;
use pairmetrics::smt::synthetic;

use super::Stdout;

/// The IUCL L2 writing assistant (SemEval-2014 Task 5): translate each L1 fragment of a task
/// file in its L2 sentence and write a run file for the official scorer.
///
/// Candidates per fragment, in back-off order: the phrase table's translations; synthetic
/// phrases built from its pieces; the --dictionary's entries; the fragment itself. Each
/// candidate is spliced into its sentence and gets the features lm (log10 of the whole
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

/// What l2-assist and tune make candidates and features with.
#[derive(clap::Args)]
pub struct AssistArgs {
    /// The task file (test data, or trial/gold data: then each candidate's word accuracy
    /// against the reference is known).
    #[arg(long, value_name = "FILE.xml", required = false)]
    pub input: Option<PathBuf>,
    /// The phrase table translating L1 fragments (src = L1, tgt = L2).
    #[arg(long, value_name = "PATH")]
    phrase_table: Option<PathBuf>,
    /// A bilingual dictionary (Parquet: src, tgt as text or token lists, optional p) for
    /// fragments the phrase table cannot translate; uniform probabilities where p is absent.
    #[arg(long, value_name = "PATH")]
    dictionary: Option<PathBuf>,
    /// An ARPA language model of the L2 (the lm feature).
    #[arg(long, value_name = "PATH")]
    lm: Option<PathBuf>,
    /// A triples table of the L2 (the pmi_lex and pmi_pos features; needs --parses).
    #[arg(long, value_name = "PATH")]
    triples: Option<PathBuf>,
    /// CoNLL-U parses: of the input sentences (tokens as in the task file, the L1 fragment in
    /// place), projected onto each candidate's sentence, and/or of spliced candidate sentences
    /// (used as they are). Matched by tokens.
    #[arg(long, value_name = "FILE.conllu")]
    parses: Option<PathBuf>,
    /// Candidates per fragment, at most.
    #[arg(long, default_value_t = l2_assist::DEFAULT_MAX_CANDIDATES)]
    max_candidates: usize,
    /// Splits of a fragment tried for synthetic phrases, at most (the IUCL system's first 100),
    /// longer pieces first.
    #[arg(long, default_value_t = synthetic::DEFAULT_DECOMPOSITIONS)]
    max_decompositions: usize,
    /// Fitness as the IUCL code computes it (no factor 2, mean over distinct arcs).
    #[arg(long)]
    iucl_formula: bool,
}

impl AssistArgs {
    pub fn options(self, input: PathBuf) -> l2_assist::AssistOptions {
        let phrase_table = self.phrase_table.map(|path| {
            resources::PhraseTableOptions::new(path, resources::DEFAULT_PROB_COLUMN.into(), false)
        });
        l2_assist::AssistOptions {
            input,
            resources: resources::ResourceOptions {
                phrase_table,
                triples: self.triples,
                lm: self.lm,
                ..Default::default()
            },
            dictionary: self.dictionary,
            parses: self.parses,
            limits: synthetic::Limits {
                candidates: self.max_candidates,
                decompositions: self.max_decompositions,
            },
            formula: if self.iucl_formula {
                Formula::Iucl
            } else {
                Formula::Paper
            },
        }
    }
}

/// What l2-assist and tune loaded and made, on stderr.
pub fn report_generated(generated: &l2_assist::Generated) {
    for line in &generated.loaded {
        eprintln!("{line}");
    }
    let origins: Vec<String> = generated
        .origins
        .iter()
        .map(|(o, n)| format!("{n} {o}"))
        .collect();
    let [parsed, projected, none] = generated.parses;
    eprintln!(
        "{} fragments; candidates: {}; parses: {parsed} given, {projected} projected, {none} none",
        generated.fragments.len(),
        origins.join(", ")
    );
}
