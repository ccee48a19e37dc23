//! `pairmetrics export`: our tables back into the text formats other tools read.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, Float64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::cast as cast_expr;
use datafusion::logical_expr::{ident, lit};
use futures::TryStreamExt;

use crate::arrow::read::{LinkLists, RowProblem, Strings, TokenListLists, TokenLists};
use crate::formats::moses::{self, PhraseEntry, write_phrase_line};
use crate::formats::semeval2014t5::{self as task, Answer, Place, TaskFile};
use crate::schema::{ColumnType, Table};
use crate::session::{self, Session};
use crate::storage::Output;

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    pub rows: u64,
    /// Rules whose lexical weights were NULL (a pivoted table has none), written as 1.
    pub missing_lexical_weights: u64,
}

/// A phrase_table as a Moses phrase table: `src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f)
/// [extra scores] ||| alignment ||| counts`, one rule per line, in table order.
pub async fn moses_phrase_table(table: &Path, out: &Path) -> Result<ExportSummary> {
    Output::check(out)?;
    let ctx = Session::default().build()?;
    session::register_checked(&ctx, Table::PhraseTable, table).await?;
    let schema = ctx
        .table_provider(Table::PhraseTable.name())
        .await?
        .schema();
    let optional = |name: &str| match schema.field_with_name(name) {
        Ok(_) => ident(name),
        Err(_) => lit(ScalarValue::Null).alias(name),
    };
    let number = |name: &str| cast_expr(ident(name), DataType::Float64);
    let mut selected = vec![ident("src_tokens"), ident("tgt_tokens")];
    selected.extend(["p_f_e", "lex_f_e", "p_e_f", "lex_e_f"].map(number));
    selected.extend(["extra_scores", "alignment", "counts"].map(optional));
    let rules = ctx.table(Table::PhraseTable.name()).await?;
    let mut stream = rules.select(selected)?.execute_stream().await?;
    let mut output = Output::create(out)?;
    let mut summary = ExportSummary::default();
    let floats = ColumnType::Floats.canonical();
    let mut line = String::new();
    let mut links = Vec::new();
    while let Some(batch) = stream.try_next().await? {
        let (srcs, tgts) = (
            TokenLists::new("src_tokens", batch.column(0))?,
            TokenLists::new("tgt_tokens", batch.column(1))?,
        );
        let (mut src_tokens, mut tgt_tokens) = (Vec::new(), Vec::new());
        let scores: Vec<Float64Array> = (2..6)
            .map(|i| batch.column(i).as_primitive::<Float64Type>().clone())
            .collect();
        let list = |i: usize| -> Result<Option<ListArray>> {
            let column = batch.column(i);
            Ok((*column.data_type() != DataType::Null)
                .then(|| cast(column, &floats))
                .transpose()?
                .map(|c| c.as_list::<i32>().clone()))
        };
        let (extra, counts) = (list(6)?, list(8)?);
        let alignments = (*batch.column(7).data_type() != DataType::Null)
            .then(|| LinkLists::new(batch.column(7)))
            .transpose()?;
        line.clear();
        for row in 0..batch.num_rows() {
            let rule = summary.rows + 1;
            let said = |why: String| anyhow::anyhow!("{}: rule {rule}{why}", table.display());
            let src = moses_phrase(&srcs, row, &mut src_tokens, "source").map_err(said)?;
            let tgt = moses_phrase(&tgts, row, &mut tgt_tokens, "target").map_err(said)?;
            let (src, tgt) = (src.as_str(), tgt.as_str());
            let mut values = Vec::with_capacity(4);
            for (column, name) in scores.iter().zip(["p_f_e", "lex_f_e", "p_e_f", "lex_e_f"]) {
                match (column.is_valid(row), name) {
                    (true, _) => values.push(column.value(row)),
                    (false, "lex_f_e" | "lex_e_f") => values.push(1.0),
                    (false, _) => {
                        bail!(
                            "{}: rule {rule} ({src} ||| {tgt}) has no {name}",
                            table.display()
                        )
                    }
                }
            }
            if scores[1].is_null(row) || scores[3].is_null(row) {
                summary.missing_lexical_weights += 1;
            }
            // A NULL list is an absent field; a NULL inside one has no text form in Moses.
            let numbers = |lists: &Option<ListArray>, name: &str| -> Result<Option<Vec<f64>>> {
                let Some(list) = lists.as_ref().filter(|l| l.is_valid(row)) else {
                    return Ok(None);
                };
                let values = list.value(row);
                let values = values.as_primitive::<Float64Type>();
                if values.null_count() > 0 {
                    bail!(
                        "{}: rule {rule} ({src} ||| {tgt}) has a NULL in {name}",
                        table.display()
                    );
                }
                Ok(Some(values.values().to_vec()))
            };
            values.extend(numbers(&extra, "extra_scores")?.unwrap_or_default());
            let alignment = match alignments.as_ref().map(|a| a.row(row, &mut links)) {
                Some(Ok(())) => Some(links.clone()),
                None | Some(Err(RowProblem::NullArgument(_))) => None,
                Some(Err(why)) => {
                    bail!("{}: rule {rule} ({src} ||| {tgt}): {why}", table.display())
                }
            };
            let entry = PhraseEntry {
                src,
                tgt,
                scores: values,
                alignment,
                counts: numbers(&counts, "counts")?,
            };
            write_phrase_line(&mut line, &entry);
            summary.rows += 1;
        }
        output
            .write_all(line.as_bytes())
            .with_context(|| format!("writing {}", out.display()))?;
    }
    output.commit()?;
    Ok(summary)
}

/// Row `row`'s `side` phrase as Moses text, its tokens read into `tokens`. A phrase the
/// importer would reject or read as other tokens is refused, not written: Err is the end of
/// the message that names the rule.
fn moses_phrase<'a>(
    lists: &TokenLists<'a>,
    row: usize,
    tokens: &mut Vec<&'a str>,
    side: &str,
) -> Result<String, String> {
    match lists.row(row, tokens) {
        Err(RowProblem::NullArgument(_)) => Err(" has a NULL phrase".into()),
        Err(why) => Err(format!(": {why}")),
        Ok(()) => moses::phrase_text(tokens)
            .map_err(|why| format!(": its {side} phrase cannot be written as Moses text: {why}")),
    }
}

/// The columns a SemEval run is written from: the answer, and its out-of-five alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunColumns {
    pub answer: String,
    pub alternatives: Option<String>,
}

impl Default for RunColumns {
    /// A fragments table's own answer: a run imported with `import semeval2014t5`.
    fn default() -> Self {
        RunColumns {
            answer: "output_fragment".into(),
            alternatives: Some("output_alternatives".into()),
        }
    }
}

/// A fragments table (`import semeval2014t5`, or any table with its columns and an answer
/// column) as a SemEval-2014 Task 5 run file, in pair_id order: each sentence's input, and its
/// output with every fragment replaced by the row's answer (a NULL answer leaves the fragment
/// unanswered) and alternatives. Returns the number of fragments written.
pub async fn semeval2014t5(table: &Path, out: &Path, columns: &RunColumns) -> Result<u64> {
    Output::check(out)?;
    let ctx = Session::default().build()?;
    session::register_checked(&ctx, Table::Fragments, table).await?;
    let mut selected = [
        "sentence_id",
        "fragment_id",
        "l1",
        "l2",
        "input",
        "fragment_start",
        "fragment_end",
    ]
    .map(ident)
    .to_vec();
    selected.push(ident(&columns.answer));
    selected.extend(columns.alternatives.as_deref().map(ident));
    let frame = ctx
        .table(Table::Fragments.name())
        .await?
        .sort(vec![ident("pair_id").sort(true, false)])
        .and_then(|sorted| sorted.select(selected))
        .with_context(|| format!("{}: reading the answers", table.display()))?;
    let mut stream = frame.execute_stream().await?;
    let mut answers = Vec::new();
    while let Some(batch) = stream.try_next().await? {
        let (mut tokens, mut lists) = (Vec::new(), Vec::new());
        let texts: Vec<Strings> = (0..4)
            .map(|i| Strings::new(batch.column(i).as_ref()))
            .collect::<datafusion::common::Result<_>>()?;
        let input = TokenLists::new("input", batch.column(4))?;
        let (starts, ends) = (
            cast(batch.column(5), &DataType::Int64)?,
            cast(batch.column(6), &DataType::Int64)?,
        );
        let (starts, ends) = (
            starts.as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
            ends.as_primitive::<datafusion::arrow::datatypes::Int64Type>(),
        );
        let answer = TokenLists::new("answer", batch.column(7))?;
        let alternatives = columns
            .alternatives
            .is_some()
            .then(|| TokenListLists::new("alternatives", batch.column(8)))
            .transpose()?;
        for row in 0..batch.num_rows() {
            let at = answers.len() + 1;
            let what =
                |e: RowProblem| anyhow::anyhow!("{}: row {at} (1-based): {e}", table.display());
            let (Some(sentence_id), Some(fragment_id)) = (texts[0].get(row), texts[1].get(row))
            else {
                bail!(
                    "{}: row {at} (1-based) has no sentence_id or fragment_id",
                    table.display()
                );
            };
            input.row(row, &mut tokens).map_err(what)?;
            let input_words: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
            if starts.is_null(row)
                || ends.is_null(row)
                || starts.value(row) < 0
                || ends.value(row) < 0
            {
                bail!(
                    "{}: row {at} (1-based) has no fragment span (fragment_start, fragment_end)",
                    table.display()
                );
            }
            let answer_words = match answer.row(row, &mut tokens) {
                Ok(()) => Some(tokens.iter().map(|t| t.to_string()).collect()),
                Err(RowProblem::NullArgument(_)) => None,
                Err(e) => return Err(what(e)),
            };
            let mut alternative_words = Vec::new();
            if let Some(alternatives) = &alternatives {
                match alternatives.row(row, &mut tokens, &mut lists) {
                    Ok(()) => {
                        alternative_words = lists
                            .iter()
                            .map(|r| tokens[r.clone()].iter().map(|t| t.to_string()).collect())
                            .collect()
                    }
                    Err(RowProblem::NullArgument(_)) => {}
                    Err(e) => return Err(what(e)),
                }
            }
            answers.push(Answer {
                place: Place {
                    sentence_id: sentence_id.to_string(),
                    fragment_id: fragment_id.to_string(),
                    l1: texts[2].get(row).map(str::to_string),
                    l2: texts[3].get(row).map(str::to_string),
                    input: input_words,
                    span: (starts.value(row) as usize, ends.value(row) as usize),
                },
                answer: answer_words,
                alternatives: alternative_words,
            });
        }
    }
    let run = TaskFile::run(&answers).map_err(|e| anyhow::anyhow!("{}: {e}", table.display()))?;
    task::write_file(&run, out)?;
    Ok(answers.len() as u64)
}
