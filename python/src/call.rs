//! One pairmetrics function over Arrow columns, run as the SQL functions run: the columns
//! become an in-memory table (their buffers shared, not copied), the function is called in a
//! DataFusion plan over it, spread over every core, and the rows come back in input order.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::datasource::MemTable;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::Expr;
use datafusion::prelude::{SessionContext, col, lit};

/// An argument: a column (its chunks, in order) or a constant such as `punct`.
pub enum Arg {
    Column(Vec<ArrayRef>),
    Literal(ScalarValue),
}

/// Rows per batch handed to a function: large enough that a call's fixed cost vanishes, small
/// enough that every core gets many batches.
const BATCH_ROWS: usize = 32 * 1024;

/// `name(args...)` per row (a scalar function), or over all rows (an aggregate: one row).
/// Returns the result's batches in row order.
pub async fn call(
    ctx: &SessionContext,
    name: &str,
    args: Vec<Arg>,
    aggregate: bool,
    partitions: usize,
) -> Result<Vec<ArrayRef>> {
    let columns: Vec<&Vec<ArrayRef>> = args
        .iter()
        .filter_map(|a| {
            if let Arg::Column(c) = a {
                Some(c)
            } else {
                None
            }
        })
        .collect();
    if columns.is_empty() {
        return plan_err!("{name}: give at least one argument as an array (a column of rows)");
    }
    let batches = aligned_batches(&columns)?;
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, chunks)| Field::new(format!("c{i}"), chunks[0].data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batches = batches
        .into_iter()
        .map(|arrays| RecordBatch::try_new(schema.clone(), arrays))
        .collect::<Result<Vec<_>, _>>()?;
    // Contiguous runs of batches per partition, so reading the partitions in turn gives the
    // rows back in order.
    let per_partition = batches.len().div_ceil(partitions.max(1)).max(1);
    let mut parts: Vec<Vec<RecordBatch>> = batches
        .chunks(per_partition)
        .map(<[RecordBatch]>::to_vec)
        .collect();
    parts.resize(partitions.max(1), vec![]);
    let table = MemTable::try_new(schema, parts)?;
    let mut column = 0;
    let mut types = Vec::new();
    let exprs: Vec<Expr> = args
        .into_iter()
        .map(|arg| match arg {
            Arg::Column(chunks) => {
                types.push(chunks[0].data_type().clone());
                column += 1;
                col(format!("c{}", column - 1))
            }
            Arg::Literal(value) => {
                types.push(value.data_type());
                lit(value)
            }
        })
        .collect();
    let frame = ctx.read_table(Arc::new(table))?;
    let planned = match aggregate {
        false => frame.select(vec![ctx.udf(name)?.call(exprs).alias("value")]),
        true => frame.aggregate(vec![], vec![ctx.udaf(name)?.call(exprs).alias("value")]),
    };
    // DataFusion reports a type mismatch against every signature at once; the function's own
    // check names the argument that is wrong, so it is asked first.
    let frame = planned.map_err(|err| {
        let named = match aggregate {
            false => ctx.udf(name).and_then(|f| f.coerce_types(&types)).err(),
            true => ctx.udaf(name).and_then(|f| f.coerce_types(&types)).err(),
        };
        named.unwrap_or(err)
    })?;
    let partitions = frame.collect_partitioned().await?;
    Ok(partitions
        .into_iter()
        .flatten()
        .map(|batch| batch.column(0).clone())
        .collect())
}

/// The columns cut at every chunk boundary of any of them (zero-copy slices) and into batches
/// of at most [`BATCH_ROWS`] rows: the i-th slice of every column covers the same rows.
fn aligned_batches(columns: &[&Vec<ArrayRef>]) -> Result<Vec<Vec<ArrayRef>>> {
    let lengths: Vec<usize> = columns
        .iter()
        .map(|chunks| chunks.iter().map(|c| c.len()).sum())
        .collect();
    if let Some(i) = lengths.iter().position(|&n| n != lengths[0]) {
        return exec_err!(
            "the array arguments have different lengths: {} rows and {} rows (argument {})",
            lengths[0],
            lengths[i],
            i + 1
        );
    }
    let mut cuts: Vec<usize> = vec![0, lengths[0]];
    for chunks in columns {
        let mut end = 0;
        for chunk in chunks.iter() {
            end += chunk.len();
            cuts.push(end);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut bounds = Vec::new();
    for pair in cuts.windows(2) {
        let mut start = pair[0];
        while start < pair[1] {
            let end = (start + BATCH_ROWS).min(pair[1]);
            bounds.push((start, end));
            start = end;
        }
    }
    if bounds.is_empty() {
        // No rows: one empty batch, so the plan still has the columns' types.
        return Ok(vec![
            columns.iter().map(|chunks| chunks[0].slice(0, 0)).collect(),
        ]);
    }
    Ok(bounds
        .iter()
        .map(|&(start, end)| {
            columns
                .iter()
                .map(|chunks| slice(chunks, start, end))
                .collect()
        })
        .collect())
}

/// Rows `start..end` of a chunked column, which lie within one chunk (the cuts say so).
fn slice(chunks: &[ArrayRef], start: usize, end: usize) -> ArrayRef {
    let mut offset = 0;
    for chunk in chunks {
        if start < offset + chunk.len() {
            return chunk.slice(start - offset, end - start);
        }
        offset += chunk.len();
    }
    unreachable!("rows {start}..{end} outside the column")
}
