//! Scans of one Parquet file with fewer row groups than the session has threads. DataFusion
//! reads a row group on one thread, and pyarrow puts up to a million rows in one, so such a
//! file would be decoded, and every function over it evaluated, on one core. This table
//! provider gives each partition a contiguous share of the file's rows instead (a Parquet
//! access plan per share: whole row groups, or a row selection within one), so the shares are
//! decoded and computed on threads of their own, each in file order.

use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::parquet::{ParquetAccessPlan, RowGroupAccess};
use datafusion::datasource::physical_plan::{FileGroup, FileScanConfig, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use datafusion::physical_plan::ExecutionPlan;

/// Fewer rows than this per share are not worth a thread of their own.
const MIN_ROWS_PER_SHARE: u64 = 50_000;

/// A one-file table whose scans are split by rows (see the module).
#[derive(Debug)]
pub struct SplitRowGroups {
    inner: Arc<dyn TableProvider>,
    /// Rows of each row group of the file.
    rows: Vec<u64>,
}

impl SplitRowGroups {
    /// `inner` (a listing table of one file) with this split, or None when it would not help:
    /// the file has as many row groups as `partitions`, or too few rows to share.
    pub fn wrap(
        inner: Arc<dyn TableProvider>,
        rows: Vec<u64>,
        partitions: usize,
    ) -> Option<SplitRowGroups> {
        (shares(&rows, partitions) > rows.len()).then_some(SplitRowGroups { inner, rows })
    }
}

/// How many shares `partitions` threads should get of a file with these row groups.
fn shares(rows: &[u64], partitions: usize) -> usize {
    row_shares(rows.iter().sum(), partitions).len()
}

/// Rows `[0, total)` in contiguous shares, in order: one per partition, but none smaller than
/// [`MIN_ROWS_PER_SHARE`] unless there is only one.
pub fn row_shares(total: u64, partitions: usize) -> Vec<Range<u64>> {
    let n = (partitions as u64).min(total / MIN_ROWS_PER_SHARE).max(1);
    (0..n).map(|k| total * k / n..total * (k + 1) / n).collect()
}

/// Whole row groups of a file with these row groups' rows in contiguous shares, in order: the
/// row groups `[a, b)` of each share, each cut at the row-group boundary nearest the even cut.
/// A task whose share is whole row groups can copy their column chunks as stored (`score` on a
/// cluster), which saves encoding them, often the largest part of its work. None unless there
/// are as many shares as [`row_shares`] makes and none holds more than [`MAX_UNEVEN`] times an
/// even share's rows: a file of fewer or larger row groups is better shared by rows.
pub fn row_group_shares(group_rows: &[u64], partitions: usize) -> Option<Vec<Range<usize>>> {
    let total: u64 = group_rows.iter().sum();
    let n = row_shares(total, partitions).len();
    if n > group_rows.len().max(1) {
        return None;
    }
    if n <= 1 {
        return Some(vec![0..group_rows.len()]);
    }
    // ends[b - 1]: the rows of row groups [0, b).
    let ends: Vec<u64> = group_rows
        .iter()
        .scan(0, |sum, &rows| {
            *sum += rows;
            Some(*sum)
        })
        .collect();
    let mut cuts = vec![0];
    for k in 1..n {
        let even = total * k as u64 / n as u64;
        // Leave at least one row group for each share before and after this cut.
        let (lowest, highest) = (cuts[k - 1] + 1, group_rows.len() - (n - k));
        let cut = (lowest..=highest)
            .min_by_key(|&b| ends[b - 1].abs_diff(even))
            .expect("lowest <= highest");
        cuts.push(cut);
    }
    cuts.push(group_rows.len());
    let shares: Vec<Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
    let even = total as f64 / n as f64;
    let largest = rows_of_row_groups(group_rows, &shares)
        .iter()
        .map(|rows| rows.end - rows.start)
        .max()
        .unwrap_or(0);
    (largest as f64 <= MAX_UNEVEN * even).then_some(shares)
}

/// How much larger than an even share a share of whole row groups may be: copying its columns
/// instead of encoding them saves more than the wait for the largest share costs.
const MAX_UNEVEN: f64 = 1.5;

/// The rows of each share of [`row_group_shares`].
pub fn rows_of_row_groups(group_rows: &[u64], shares: &[Range<usize>]) -> Vec<Range<u64>> {
    let before = |b: usize| group_rows[..b].iter().sum::<u64>();
    shares
        .iter()
        .map(|s| before(s.start)..before(s.end))
        .collect()
}

/// The access plan reading rows `[from, to)` of a file with these row groups.
pub fn access_plan(rows: &[u64], from: u64, to: u64) -> ParquetAccessPlan {
    let mut start = 0;
    let groups = rows
        .iter()
        .map(|&n| {
            let (lo, hi) = (from.max(start), to.min(start + n));
            let access = if lo >= hi {
                RowGroupAccess::Skip
            } else if hi - lo == n {
                RowGroupAccess::Scan
            } else {
                let selectors = [
                    RowSelector::skip((lo - start) as usize),
                    RowSelector::select((hi - lo) as usize),
                    RowSelector::skip((start + n - hi) as usize),
                ];
                RowGroupAccess::Selection(RowSelection::from(
                    selectors
                        .into_iter()
                        .filter(|s| s.row_count > 0)
                        .collect::<Vec<_>>(),
                ))
            };
            start += n;
            access
        })
        .collect();
    ParquetAccessPlan::new(groups)
}

/// `plan` (a scan of the one file) with its partitions replaced by the row shares; None when
/// the plan is not a plain Parquet scan.
fn split(
    plan: &Arc<dyn ExecutionPlan>,
    rows: &[u64],
    partitions: usize,
) -> Option<Arc<dyn ExecutionPlan>> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let config = exec.data_source().downcast_ref::<FileScanConfig>()?;
    let file = config.file_groups.iter().flat_map(|g| g.files()).next()?;
    let groups = row_shares(rows.iter().sum(), partitions)
        .into_iter()
        .map(|rows_of_share| {
            let mut share: PartitionedFile = file.clone();
            share.range = None;
            // Statistics of the whole file would count it once per share.
            share.statistics = None;
            share
                .extensions
                .insert(access_plan(rows, rows_of_share.start, rows_of_share.end));
            FileGroup::new(vec![share])
        })
        .collect();
    let config = FileScanConfigBuilder::from(config.clone())
        .with_file_groups(groups)
        .build();
    Some(DataSourceExec::from_data_source(config))
}

#[async_trait]
impl TableProvider for SplitRowGroups {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.inner.scan(state, projection, filters, limit).await?;
        Ok(split(&plan, &self.rows, state.config().target_partitions()).unwrap_or(plan))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_group_shares_cut_at_the_nearest_boundary() {
        let groups = [131_072; 7]
            .into_iter()
            .chain([82_496])
            .collect::<Vec<u64>>();
        let shares = |groups: &[u64], partitions| row_group_shares(groups, partitions);
        assert_eq!(shares(&groups, 2).unwrap(), [0..4, 4..8]);
        assert_eq!(shares(&groups, 3).unwrap(), [0..3, 3..5, 5..8]);
        assert_eq!(
            shares(&[200_000, 10, 10, 200_000], 2).unwrap(),
            [0..2, 2..4]
        );
        // Too few rows to share in two, an empty file: one share.
        assert_eq!(shares(&[30_000, 30_000], 2).unwrap(), [0..2]);
        assert_eq!(shares(&[], 4).unwrap(), [0..0]);
        // Fewer row groups than row shares (20 of 50,000 rows or more), or too uneven: none.
        assert_eq!(shares(&groups, 32), None);
        assert_eq!(shares(&[1_000_000], 4), None);
        assert_eq!(shares(&[350_000, 50_000], 2), None);
        assert_eq!(shares(&[250_000, 150_000], 2).unwrap(), [0..1, 1..2]);
        let shares = shares(&groups, 3).unwrap();
        assert_eq!(
            rows_of_row_groups(&groups, &shares),
            [0..393_216, 393_216..655_360, 655_360..1_000_000]
        );
    }

    #[test]
    fn shares_cover_every_row_once() {
        let rows = [120_000, 30_000];
        assert_eq!(shares(&rows, 4), 3);
        assert_eq!(shares(&rows, 1), 1);
        assert_eq!(shares(&[60_000], 8), 1);
        let plan = access_plan(&rows, 50_000, 100_000);
        let selection = RowSelection::from(vec![
            RowSelector::skip(50_000),
            RowSelector::select(50_000),
            RowSelector::skip(20_000),
        ]);
        assert_eq!(
            plan.inner(),
            &[RowGroupAccess::Selection(selection), RowGroupAccess::Skip]
        );
        let plan = access_plan(&rows, 100_000, 150_000);
        let selection = RowSelection::from(vec![
            RowSelector::skip(100_000),
            RowSelector::select(20_000),
        ]);
        assert_eq!(
            plan.inner(),
            &[RowGroupAccess::Selection(selection), RowGroupAccess::Scan]
        );
    }
}
