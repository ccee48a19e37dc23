//! What `score` reports: rows, corpus means, NULL rows by reason, the signature.

use std::collections::BTreeMap;
use std::fmt;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;

use super::columns::{Role, all_columns};
use crate::udf::opusfilter::{KEEP, REJECTED_BY};

/// Per-metric corpus figures, accumulated batch by batch.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MetricSummary {
    pub scored: u64,
    pub sum: f64,
}

impl MetricSummary {
    pub fn mean(&self) -> Option<f64> {
        (self.scored > 0).then(|| self.sum / self.scored as f64)
    }
}

/// What `--filters` kept and rejected.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Filtered {
    pub kept: u64,
    /// By the first filter that rejects the pair (`rejected_by`).
    pub rejected: BTreeMap<String, u64>,
    /// Pairs with a NULL side: keep is NULL.
    pub unfiltered: u64,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Summary {
    pub rows: u64,
    pub metrics: BTreeMap<String, MetricSummary>,
    /// Rows with NULL metrics, by problem column and reason.
    pub problems: BTreeMap<(String, String), u64>,
    /// Rows of the alignments and arcs tables whose pair_id is not in the pairs table (they are
    /// not in the output), by table.
    pub orphans: BTreeMap<&'static str, u64>,
    /// With `--filters`: the pairs kept and rejected; None without filters.
    pub filtered: Option<Filtered>,
    pub signature: String,
    /// Each score column's part of the signature: its metric's.
    pub column_signatures: BTreeMap<String, String>,
    pub notes: Vec<String>,
}

impl Summary {
    pub(super) fn add(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows() as u64;
        for name in columns(Role::Score) {
            let Some(column) = batch.column_by_name(name) else {
                continue;
            };
            let values = column.as_primitive::<Float64Type>();
            let entry = self.metrics.entry(name.to_string()).or_default();
            entry.scored += (values.len() - values.null_count()) as u64;
            // Sequential sum in row order: the corpus mean is reproducible to the last bit.
            for v in values.iter().flatten() {
                entry.sum += v;
            }
        }
        if let (Some(filtered), Some(keep), Some(rejected_by)) = (
            &mut self.filtered,
            batch.column_by_name(KEEP),
            batch.column_by_name(REJECTED_BY),
        ) {
            let keep = keep.as_boolean();
            filtered.kept += keep.true_count() as u64;
            filtered.unfiltered += keep.null_count() as u64;
            for filter in rejected_by.as_string::<i32>().iter().flatten() {
                *filtered.rejected.entry(filter.to_string()).or_default() += 1;
            }
        }
        for name in columns(Role::Problem) {
            let Some(column) = batch.column_by_name(name) else {
                continue;
            };
            for reason in column.as_string::<i32>().iter().flatten() {
                *self
                    .problems
                    .entry((name.to_string(), reason.to_string()))
                    .or_default() += 1;
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rows: {}", self.rows)?;
        let metrics = columns(Role::Score).filter_map(|name| Some((name, self.metrics.get(name)?)));
        for (name, m) in metrics {
            match m.mean() {
                Some(mean) => writeln!(
                    f,
                    "{name}: mean {mean:.4} over {} pairs ({} NULL)",
                    m.scored,
                    self.rows - m.scored
                )?,
                None => writeln!(f, "{name}: no pair could be scored")?,
            }
        }
        let mut column = None;
        for ((name, reason), count) in &self.problems {
            if column != Some(name) {
                writeln!(f, "rows with NULL metrics, by reason (column {name}):")?;
                column = Some(name);
            }
            writeln!(f, "  {count:>8}  {reason}")?;
        }
        if let Some(filtered) = &self.filtered {
            let rejected: u64 = filtered.rejected.values().sum();
            writeln!(
                f,
                "filters: {} pairs kept, {rejected} rejected, by the first filter that rejects them:",
                filtered.kept
            )?;
            if filtered.unfiltered > 0 {
                writeln!(
                    f,
                    "  {:>8}  (not filtered: src or tgt is NULL)",
                    filtered.unfiltered
                )?;
            }
            let mut by_count: Vec<_> = filtered.rejected.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (filter, count) in by_count {
                writeln!(f, "  {count:>8}  {filter}")?;
            }
        }
        for (table, count) in self.orphans.iter().filter(|&(_, &count)| count > 0) {
            writeln!(
                f,
                "rows of {table} with no pair (not in the output): {count}"
            )?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        write!(f, "signature: {}", self.signature)
    }
}

/// The names of the columns that play `role`, in output order.
pub(super) fn columns(role: Role) -> impl Iterator<Item = &'static str> {
    all_columns()
        .filter(move |c| c.role == role)
        .map(|c| c.name)
}
