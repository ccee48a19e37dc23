//! `pairmetrics import FORMAT`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::align::Module;
use pairmetrics::pipeline::import::{self, Source};

use super::Stdout;

/// Convert text, aligner and parser output into our Parquet tables (see schemas/).
///
/// Streaming (constant memory), plain, gzip or zstd input, errors that name the file and
/// line, output written atomically; pair_id is the 0-based line, block or sentence number.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    format: Format,
}

#[derive(clap::Subcommand)]
enum Format {
    /// Parallel line-aligned files (Moses style) into a pairs table; tokens split on whitespace.
    Text {
        /// First sentences (src), one per line.
        #[arg(long)]
        src: PathBuf,
        /// Second sentences (tgt), one per line; must have as many lines as --src.
        #[arg(long)]
        tgt: PathBuf,
        /// Output pairs table.
        #[arg(long)]
        out: PathBuf,
        /// Lowercase the tokens.
        #[arg(long)]
        lowercase: bool,
    },
    /// Pharaoh `i-j` links (fast_align, eflomal, awesome-align, Moses symmetrisation) into an
    /// alignments table; a malformed line is an error.
    Pharaoh {
        #[arg(long)]
        alignments: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// METEOR 1.5 Matcher output into an alignments table; a phrase match becomes the links of
    /// one unit (every token of one span linked to every token of the other), and each link
    /// names its module (Matcher prints the module's index in its -m list).
    Meteor {
        #[arg(long)]
        alignments: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// The -m list the file was aligned with, to name the modules by index.
        #[arg(
            long,
            value_name = "MODULES",
            default_value = "exact stem synonym paraphrase"
        )]
        modules: String,
    },
    /// Two CoNLL-U files (one sentence per pair, in order) into an arcs table. Multiword-token
    /// ranges and empty nodes are skipped; HEAD stays 1-based with 0 for the root.
    Conllu {
        #[arg(long)]
        src: PathBuf,
        #[arg(long)]
        tgt: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// A Moses phrase table (`src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f) [more] |||
    /// alignment ||| counts`) into a phrase_table (see schemas/phrase_table.md); a malformed
    /// line is an error naming it.
    MosesPhraseTable {
        /// The phrase-table file (plain, .gz or .zst).
        #[arg(long)]
        table: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Moses n-best lists (`id ||| hypothesis ||| features ||| total`) into an nbest table (see
    /// schemas/nbest.md) with each hypothesis' 0-based rank in its list.
    MosesNbest {
        /// The n-best file (plain, .gz or .zst).
        #[arg(long)]
        nbest: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// A SemEval-2014 Task 5 file (trial or test data, a gold file or a system's run) into a
    /// fragments table (see schemas/fragments.md): one row per fragment, with its sentence's
    /// input tokens and the fragment's span in them, and the reference's and the output's
    /// fragment of the same id (with their alternatives) when the file has them.
    Semeval2014t5 {
        /// The task's XML file (plain, .gz or .zst).
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// A bilingual dictionary, one entry per line: `source phrase<TAB>translation
    /// [<TAB>probability]`, into a dictionary table (see schemas/dictionary.md) for
    /// `l2-assist --dictionary`. A phrase may have several translations (several lines); a
    /// probability is in (0, 1], and where a line has none its phrase's k translations get
    /// 1/k each. Blank lines are skipped; any other malformed line is an error naming it.
    Dictionary {
        /// The dictionary file (plain, .gz or .zst), tab-separated.
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Google Books Syntactic N-grams `arcs` (or `extended-arcs`) files (`head<TAB>w/pos/label/
    /// head-index ...<TAB>total<TAB>year,count...`) into a triples table (see
    /// schemas/triples.md): per arc of each line a `form` row and a `upos` row (its Penn
    /// Treebank tags mapped to Universal POS tags, for dep_fit_pos), the line's total as their
    /// count, root arcs left out.
    SyntacticNgrams {
        /// The files (plain, .gz or .zst), read in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Lowercase the words.
        #[arg(long)]
        lowercase: bool,
    },
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let (source, out) = self.format.into_job()?;
        let summary = import::import(&source, &out)?;
        writeln!(
            stdout,
            "wrote {}: {} rows in {:.2} s ({:.0} rows/s)",
            out.display(),
            summary.rows,
            summary.seconds,
            summary.rows as f64 / summary.seconds.max(1e-9)
        )?;
        Ok(())
    }
}

impl Format {
    fn into_job(self) -> Result<(import::Source, PathBuf)> {
        Ok(match self {
            Format::Text {
                src,
                tgt,
                out,
                lowercase,
            } => (
                Source::Text {
                    src,
                    tgt,
                    lowercase,
                },
                out,
            ),
            Format::Pharaoh { alignments, out } => (Source::Pharaoh { alignments }, out),
            Format::Meteor {
                alignments,
                out,
                modules,
            } => (
                Source::Meteor {
                    alignments,
                    modules: Module::parse_list(&modules)?,
                },
                out,
            ),
            Format::Conllu { src, tgt, out } => (Source::Conllu { src, tgt }, out),
            Format::MosesPhraseTable { table, out } => (Source::MosesPhraseTable { table }, out),
            Format::MosesNbest { nbest, out } => (Source::MosesNbest { nbest }, out),
            Format::Semeval2014t5 { file, out } => (Source::Semeval2014t5 { file }, out),
            Format::Dictionary { file, out } => (Source::Dictionary { file }, out),
            Format::SyntacticNgrams {
                files,
                out,
                lowercase,
            } => (Source::SyntacticNgrams { files, lowercase }, out),
        })
    }
}
