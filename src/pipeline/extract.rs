//! `pairmetrics extract`: a phrase table from word-aligned bitext, as Moses' `extract` and
//! `score` build one (SPEC §3's bilingual table, the input of `pivot`).
//!
//! Two passes. The first counts the word translation table (`train-model.perl`'s lexical
//! step) in memory: its size is the number of distinct aligned word pairs, far below the phrase
//! pairs'. The second is two DataFusion plans, GROUP BYs, joins and a sort that spill to disk
//! under a memory limit: `extract_phrases` per pair grouped into the distinct phrase pairs
//! (written to a temporary file), then their marginal counts joined back and the scores.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use datafusion::common::JoinType;
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::SessionContext;
use futures::TryStreamExt;

use crate::arrow::read::{LinkLists, TokenLists};
use crate::schema::Table;
use crate::session::{self, Session, Tuning, column_of};
use crate::smt::phrases::{Direction, Lexicon};
use crate::udf::expr::{PHARAOH, TOKENIZE};
use crate::udf::phrases::{NAME as EXTRACT, PairScratch, PhraseScoreUdf, ScoreKind, read_pair};

#[derive(Debug, Clone)]
pub struct ExtractOptions {
    pub pairs: PathBuf,
    pub alignments: PathBuf,
    pub out: PathBuf,
    /// The longest phrase on either side, in tokens (Moses' -max-phrase-length, default 7).
    pub max_length: usize,
    pub tuning: Tuning,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExtractSummary {
    pub pairs: u64,
    /// Pairs left out: no alignment row, a NULL, a link outside the sentences, a bad token.
    pub skipped: u64,
    /// The first few skipped pairs: (pair_id, why).
    pub examples: Vec<(i64, String)>,
    /// Distinct word pairs of the word translation table (with the empty word).
    pub word_pairs: u64,
    /// Phrase pairs written (distinct).
    pub phrase_pairs: u64,
    pub signature: String,
    pub seconds: f64,
}

impl fmt::Display for ExtractSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pairs: {} read, {} skipped", self.pairs, self.skipped)?;
        for (pair_id, why) in &self.examples {
            writeln!(f, "  skipped pair_id {pair_id}: {why}")?;
        }
        writeln!(f, "word translation table: {} word pairs", self.word_pairs)?;
        writeln!(f, "phrase pairs: {}", self.phrase_pairs)?;
        writeln!(f, "signature: {}", self.signature)?;
        write!(f, "{:.2} s", self.seconds)
    }
}

impl ExtractOptions {
    pub fn signature(&self) -> String {
        format!(
            "pairmetrics:{}|extract|max-phrase-length={}",
            crate::VERSION,
            self.max_length
        )
    }

    /// The second pass, part one, over `pairs` and `alignments`: the distinct phrase pairs with
    /// their counts and alignments. Moses' choices, in SQL: a phrase pair's count is summed
    /// over its alignments; the alignment printed and used for lex(e|f) is the most frequent,
    /// ties to the greatest as Moses orders target-to-source alignments
    /// (`alignment_order_tgt_given_src`), and lex(f|e) takes its own most frequent
    /// (source-to-target order), as Moses' inverse pass does.
    pub fn phrase_pairs_query(&self) -> String {
        let max = self.max_length;
        let direct_order = ScoreKind::AlignmentOrder.name(Direction::TgtGivenSrc);
        let inverse_order = ScoreKind::AlignmentOrder.name(Direction::SrcGivenTgt);
        format!(
            "WITH occurrences AS ( \
               SELECT o['src'] AS src, o['tgt'] AS tgt, o['alignment'] AS alignment \
               FROM (SELECT unnest({EXTRACT}(p.src, p.tgt, a.links, {max})) AS o \
                     FROM pairs p JOIN alignments a ON p.pair_id = a.pair_id)), \
             by_alignment AS ( \
               SELECT src, tgt, alignment, count(*) AS n, \
                      {direct_order}(src, tgt, alignment) AS direct_order, \
                      {inverse_order}(src, tgt, alignment) AS inverse_order \
               FROM occurrences GROUP BY src, tgt, alignment) \
             SELECT src, tgt, CAST(sum(n) AS DOUBLE) AS c_fe, \
                    first_value(alignment ORDER BY n DESC, direct_order DESC) AS direct_alignment, \
                    first_value(alignment ORDER BY n DESC, inverse_order DESC) AS inverse_alignment \
             FROM by_alignment GROUP BY src, tgt"
        )
    }

    /// Part two, over part one's result written as `phrase_pairs`: the marginal counts c(f) and
    /// c(e) as GROUP BYs joined back (window functions would hold the whole table in one
    /// batch), the four scores, sorted.
    pub fn table_query(&self) -> String {
        let lex_f_e = ScoreKind::LexicalWeight.name(Direction::SrcGivenTgt);
        let lex_e_f = ScoreKind::LexicalWeight.name(Direction::TgtGivenSrc);
        format!(
            "WITH c_f AS (SELECT src, sum(c_fe) AS c_f FROM phrase_pairs GROUP BY src), \
              c_e AS (SELECT tgt, sum(c_fe) AS c_e FROM phrase_pairs GROUP BY tgt) \
         SELECT p.src, p.tgt, {TOKENIZE}(p.src) AS src_tokens, {TOKENIZE}(p.tgt) AS tgt_tokens, \
                p.c_fe / c_e.c_e AS p_f_e, {lex_f_e}(p.src, p.tgt, p.inverse_alignment) AS lex_f_e, \
                p.c_fe / c_f.c_f AS p_e_f, {lex_e_f}(p.src, p.tgt, p.direct_alignment) AS lex_e_f, \
                {PHARAOH}(p.direct_alignment) AS alignment, make_array(c_e.c_e, c_f.c_f, p.c_fe) AS counts \
         FROM phrase_pairs p JOIN c_f ON p.src = c_f.src JOIN c_e ON p.tgt = c_e.tgt \
         ORDER BY p.src, p.tgt"
        )
    }
}

/// The first pass: the word translation table, and the pairs that cannot be read.
async fn count_words(ctx: &SessionContext, summary: &mut ExtractSummary) -> Result<Lexicon> {
    let (pairs, alignments) = (Table::Pairs.name(), Table::Alignments.name());
    let frame = session::join_on_pair_id(ctx, pairs, alignments, JoinType::Left)
        .await?
        .select(vec![
            column_of(pairs, "pair_id"),
            column_of(pairs, "src"),
            column_of(pairs, "tgt"),
            column_of(alignments, "links"),
        ])?;
    let mut stream = frame.execute_stream().await?;
    let mut lexicon = Lexicon::new();
    while let Some(batch) = stream.try_next().await? {
        let ids = batch.column(0).as_primitive::<Int64Type>();
        let (srcs, tgts) = (
            TokenLists::new("src", batch.column(1))?,
            TokenLists::new("tgt", batch.column(2))?,
        );
        let links = LinkLists::new(batch.column(3))?;
        let mut scratch = PairScratch::default();
        for row in 0..batch.num_rows() {
            summary.pairs += 1;
            if let Err(why) = read_pair(&srcs, &tgts, &links, row, &mut scratch) {
                summary.skipped += 1;
                if summary.examples.len() < 5 {
                    summary.examples.push((ids.value(row), why.to_string()));
                }
                continue;
            }
            let (src, tgt) = (&scratch.src, &scratch.tgt);
            scratch.aligned.word_pairs(|s, t| {
                lexicon.add(s.map(|i| src[i as usize]), t.map(|i| tgt[i as usize]))
            });
        }
    }
    Ok(lexicon)
}

/// Extract and score the phrase table, and write it atomically.
pub async fn extract(options: &ExtractOptions) -> Result<ExtractSummary> {
    let started = Instant::now();
    let ctx = Session::tuned(options.tuning).build()?;
    session::register_keyed(&ctx, Table::Pairs, &options.pairs).await?;
    session::register_keyed(&ctx, Table::Alignments, &options.alignments).await?;
    let mut summary = ExtractSummary {
        signature: options.signature(),
        ..Default::default()
    };

    let lexicon = Arc::new(count_words(&ctx, &mut summary).await?);
    summary.word_pairs = lexicon.len() as u64;
    for kind in [ScoreKind::AlignmentOrder, ScoreKind::LexicalWeight] {
        for direction in [Direction::TgtGivenSrc, Direction::SrcGivenTgt] {
            ctx.register_udf(ScalarUDF::from(PhraseScoreUdf::new(
                kind,
                direction,
                lexicon.clone(),
            )));
        }
    }

    // Part one goes to a temporary file (removed afterwards) that part two reads three times:
    // the phrase pairs are computed once and never held whole in memory.
    let staged = staging_path()?;
    let result = async {
        crate::session::write_query(
            &ctx,
            &options.phrase_pairs_query(),
            &staged,
            &options.signature(),
        )
        .await?;
        let partial = datafusion::prelude::ParquetReadOptions {
            file_extension: ".partial",
            ..Default::default()
        };
        ctx.register_parquet(
            "phrase_pairs",
            staged.to_str().context("a non-UTF-8 path")?,
            partial,
        )
        .await?;
        crate::session::write_query(
            &ctx,
            &options.table_query(),
            &options.out,
            &options.signature(),
        )
        .await
    }
    .await;
    let _ = std::fs::remove_file(&staged);
    summary.phrase_pairs = result?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// A file in the temporary directory (where DataFusion spills too) for the distinct phrase
/// pairs, named as a partial output so that a later run removes it if this one is killed.
fn staging_path() -> Result<PathBuf> {
    crate::storage::partial_path(
        &std::env::temp_dir().join("pairmetrics-extract.phrase-pairs.parquet"),
    )
}
