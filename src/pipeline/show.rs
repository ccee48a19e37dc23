//! `pairmetrics show`: one pair of a table, for a quick look in a terminal: its sentences with
//! numbered tokens, its alignment drawn as word pairs (and the words left unaligned), and every
//! other column's value.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{DataType, Field, Int32Type};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::common::JoinType;
use datafusion::functions_aggregate::expr_fn::{max, min};
use datafusion::logical_expr::{Expr, ident, lit};

use crate::formats::terminal::terminal_safe;
use crate::schema::{is_link_list, is_token_list};
use crate::session::context_with_tables;
use crate::session::{column_of, integers};

/// The pair `pair_id` of `table`, with the links of `alignments` when given, as text.
pub async fn show(table: &PathBuf, pair_id: i64, alignments: Option<&PathBuf>) -> Result<String> {
    let mut tables = vec![("scored".to_string(), table.clone())];
    if let Some(path) = alignments {
        tables.push(("alignments".to_string(), path.clone()));
    }
    let ctx = context_with_tables(&tables).await?;
    let key = ident("pair_id");
    let mut frame = ctx
        .table("scored")
        .await?
        .filter(key.clone().eq(lit(pair_id)))?;
    if alignments.is_some() {
        let mut columns: Vec<Expr> = frame
            .schema()
            .columns()
            .into_iter()
            .map(Expr::Column)
            .collect();
        columns.push(column_of("alignments", "links").alias("alignment"));
        let links = ctx.table("alignments").await?;
        frame = frame
            .join(links, JoinType::Left, &["pair_id"], &["pair_id"], None)?
            .select(columns)?;
    }
    let batches = frame.collect().await?;
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if rows == 0 {
        let scored = ctx.table("scored").await?;
        let range = integers(scored.aggregate(vec![], vec![min(key.clone()), max(key)])?).await?;
        let (first, last) = (range[0], range[1]);
        bail!(
            "{}: no pair_id {pair_id} (its pair_ids run from {first} to {last})",
            table.display()
        );
    }
    Ok(terminal_safe(&render(&concat_batches(&batches[0].schema(), &batches)?)).into_owned())
}

/// The tokens of a token-list column in row 0.
fn tokens(column: &ArrayRef) -> Option<Vec<String>> {
    let list = cast(
        column,
        &DataType::List(Field::new_list_field(DataType::Utf8, true).into()),
    )
    .ok()?;
    let list = list.as_list::<i32>();
    if list.is_null(0) {
        return None;
    }
    let values = list.value(0);
    let strings = values.as_string::<i32>();
    Some(
        (0..strings.len())
            .map(|i| {
                if strings.is_null(i) {
                    "<NULL>".to_string()
                } else {
                    strings.value(i).to_string()
                }
            })
            .collect(),
    )
}

/// The (src, tgt) links of a link-list column in row 0.
fn links(column: &ArrayRef) -> Option<Vec<(i32, i32)>> {
    let list = column.as_list_opt::<i32>()?;
    if list.is_null(0) {
        return None;
    }
    let values = list.value(0);
    let links = values.as_struct();
    let side = |name: &str| cast(links.column_by_name(name)?, &DataType::Int32).ok();
    let (src, tgt) = (side("src")?, side("tgt")?);
    let (src, tgt) = (
        src.as_primitive::<Int32Type>(),
        tgt.as_primitive::<Int32Type>(),
    );
    Some(
        (0..src.len())
            .filter(|&i| src.is_valid(i) && tgt.is_valid(i))
            .map(|i| (src.value(i), tgt.value(i)))
            .collect(),
    )
}

fn render(batch: &RecordBatch) -> String {
    let schema = batch.schema();
    let mut out = String::new();
    let column = |name: &str| {
        batch
            .column_by_name(name)
            .filter(|c| is_token_list(c.data_type()))
    };
    let (src, tgt) = (
        column("src").and_then(tokens),
        column("tgt").and_then(tokens),
    );
    for (name, words) in [("src", &src), ("tgt", &tgt)] {
        if let Some(words) = words {
            let numbered: Vec<String> = words
                .iter()
                .enumerate()
                .map(|(i, w)| format!("{i}:{w}"))
                .collect();
            let _ = writeln!(
                out,
                "{name} ({} tokens): {}",
                words.len(),
                numbered.join(" ")
            );
        }
    }
    let options = FormatOptions::default().with_null("NULL");
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        let name = field.name();
        if (name == "src" || name == "tgt") && is_token_list(array.data_type()) {
            continue;
        }
        if is_link_list(array.data_type()) {
            let _ = writeln!(out, "{name}:");
            match (links(array), &src, &tgt) {
                (Some(links), Some(src), Some(tgt)) => out.push_str(&draw(&links, src, tgt)),
                (Some(links), _, _) => {
                    let pairs: Vec<String> =
                        links.iter().map(|(s, t)| format!("{s}-{t}")).collect();
                    let _ = writeln!(out, "  {}", pairs.join(" "));
                }
                (None, _, _) => out.push_str("  NULL\n"),
            }
            continue;
        }
        let value = ArrayFormatter::try_new(array.as_ref(), &options)
            .map(|f| f.value(0).to_string())
            .unwrap_or_default();
        let _ = writeln!(out, "{name}: {value}");
    }
    out
}

/// Each link as `i:word - j:word`, then the words no link touches.
fn draw(links: &[(i32, i32)], src: &[String], tgt: &[String]) -> String {
    fn word(words: &[String], i: i32) -> &str {
        usize::try_from(i)
            .ok()
            .and_then(|i| words.get(i))
            .map_or("<out of range>", String::as_str)
    }
    let mut out = String::new();
    for &(s, t) in links {
        let _ = writeln!(out, "  {s}:{} - {t}:{}", word(src, s), word(tgt, t));
    }
    let unaligned = |words: &[String], side: fn(&(i32, i32)) -> i32| -> Vec<String> {
        (0..words.len())
            .filter(|&i| !links.iter().any(|l| side(l) == i as i32))
            .map(|i| format!("{i}:{}", words[i]))
            .collect()
    };
    let (src_left, tgt_left) = (unaligned(src, |l| l.0), unaligned(tgt, |l| l.1));
    let _ = writeln!(
        out,
        "  not aligned in src: {}",
        if src_left.is_empty() {
            "-".to_string()
        } else {
            src_left.join(" ")
        }
    );
    let _ = writeln!(
        out,
        "  not aligned in tgt: {}",
        if tgt_left.is_empty() {
            "-".to_string()
        } else {
            tgt_left.join(" ")
        }
    );
    out
}
