//! `pairmetrics export`: our tables back into the text formats other tools read.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use datafusion::arrow::array::{Array, AsArray, Float64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use futures::TryStreamExt;

use crate::formats::moses::{PhraseEntry, write_phrase_line};
use crate::schema::{ColumnType, Table};
use crate::session::{self, Session};
use crate::storage::Output;
use crate::udf::args::{LinkLists, RowProblem, Strings};

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
    let schema = ctx.table_provider(Table::PhraseTable.name()).await?.schema();
    let optional = |name: &str| {
        if schema.field_with_name(name).is_ok() {
            name.to_string()
        } else {
            format!("NULL AS {name}")
        }
    };
    let query = format!(
        "SELECT array_to_string(src_tokens, ' ') AS src, array_to_string(tgt_tokens, ' ') AS tgt, \
         CAST(p_f_e AS DOUBLE), CAST(lex_f_e AS DOUBLE), CAST(p_e_f AS DOUBLE), CAST(lex_e_f AS DOUBLE), \
         {}, {}, {} FROM phrase_table",
        optional("extra_scores"),
        optional("alignment"),
        optional("counts")
    );
    let mut stream = ctx.sql(&query).await?.execute_stream().await?;
    let mut output = Output::create(out)?;
    let mut summary = ExportSummary::default();
    let floats = ColumnType::Floats.canonical();
    let mut line = String::new();
    let mut links = Vec::new();
    while let Some(batch) = stream.try_next().await? {
        let (srcs, tgts) =
            (Strings::new(batch.column(0).as_ref())?, Strings::new(batch.column(1).as_ref())?);
        let scores: Vec<Float64Array> =
            (2..6).map(|i| batch.column(i).as_primitive::<Float64Type>().clone()).collect();
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
            let (Some(src), Some(tgt)) = (srcs.get(row), tgts.get(row)) else {
                bail!("{}: rule {rule} has a NULL phrase", table.display());
            };
            let mut values = Vec::with_capacity(4);
            for (column, name) in scores.iter().zip(["p_f_e", "lex_f_e", "p_e_f", "lex_e_f"]) {
                match (column.is_valid(row), name) {
                    (true, _) => values.push(column.value(row)),
                    (false, "lex_f_e" | "lex_e_f") => values.push(1.0),
                    (false, _) => {
                        bail!("{}: rule {rule} ({src} ||| {tgt}) has no {name}", table.display())
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
        output.write_all(line.as_bytes()).with_context(|| format!("writing {}", out.display()))?;
    }
    output.commit()?;
    Ok(summary)
}
