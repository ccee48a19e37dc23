//! `pairmetrics pivot`: a paraphrase table from a bilingual one (Bannard & Callison-Burch 2005,
//! as used by Chevelu et al. 2010; SPEC §3), as one DataFusion plan — a self-join on the pivot
//! phrase, a GROUP BY and a window — so sorts and aggregations spill to disk under a memory
//! limit instead of holding the table in memory.

use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::schema::Table;
use crate::session::{self, Session, Tuning};

#[derive(Debug, Clone)]
pub struct PivotOptions {
    /// The bilingual phrase_table: src = f, tgt = e (the pivot language).
    pub table: PathBuf,
    pub out: PathBuf,
    /// E: per-pivot products p(f2|e) p(e|f1) below this are dropped.
    pub min_product: f64,
    /// tau: pivot phrases e with more source phrases than this are dropped.
    pub max_cluster: u64,
    /// kappa: the most probable paraphrases kept per source phrase.
    pub keep: u64,
    /// Keep (f, f) pairs.
    pub self_pairs: bool,
    pub tuning: Tuning,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PivotSummary {
    pub rows: u64,
    pub signature: String,
}

impl PivotOptions {
    pub fn signature(&self) -> String {
        format!(
            "pairmetrics:{}|pivot|E={}|tau={}|kappa={}|self={}",
            crate::VERSION,
            self.min_product,
            self.max_cluster,
            self.keep,
            self.self_pairs
        )
    }

    /// The plan, over the bilingual table, registered as `phrase_table`. In the output, as in any phrase_table, p_e_f is
    /// P(tgt|src) = p(f2|f1) = sum over e of p(f2|e) p(e|f1), and p_f_e is the reverse
    /// p(f1|f2), summed over the same kept pivots.
    pub fn query(&self) -> String {
        let (e, tau, kappa) = (self.min_product, self.max_cluster, self.keep);
        let no_self = if self.self_pairs {
            ""
        } else {
            "AND a.src <> b.src"
        };
        format!(
            "WITH t AS (SELECT src, tgt, p_f_e, p_e_f FROM phrase_table WHERE p_f_e > 0 AND p_e_f > 0), \
             kept AS (SELECT tgt FROM t GROUP BY tgt HAVING count(*) <= {tau}), \
             pivots AS (SELECT t.* FROM t JOIN kept USING (tgt)), \
             products AS ( \
               SELECT a.src AS src, b.src AS para, a.p_e_f * b.p_f_e AS forward, \
                      b.p_e_f * a.p_f_e AS backward \
               FROM pivots a JOIN pivots b ON a.tgt = b.tgt \
               WHERE a.p_e_f * b.p_f_e >= {e:e} {no_self}), \
             sums AS (SELECT src, para, {forward} AS p, {backward} AS p_back \
                      FROM products GROUP BY src, para), \
             summed AS (SELECT src, para, {p} AS p, {p_back} AS p_back FROM sums), \
             ranked AS (SELECT *, row_number() OVER (PARTITION BY src ORDER BY p DESC, para) AS r \
                        FROM summed) \
             SELECT src, para AS tgt, string_to_array(src, ' ') AS src_tokens, \
                    string_to_array(para, ' ') AS tgt_tokens, \
                    p_back AS p_f_e, CAST(NULL AS DOUBLE) AS lex_f_e, \
                    p AS p_e_f, CAST(NULL AS DOUBLE) AS lex_e_f \
             FROM ranked WHERE r <= {kappa} ORDER BY src, p_e_f DESC, tgt",
            forward = exact_sum("forward"),
            backward = exact_sum("backward"),
            p = rounded_to_one("p"),
            p_back = rounded_to_one("p_back"),
        )
    }
}

/// The sum of a Float64 column, the same whatever order its values come in: a float sum's last
/// bits depend on the order the partitions deliver them in, which varies from run to run (and
/// can move a rule across the `keep` cut). Each value, scaled by 2^120 (exactly: a power of
/// two), is an integer at Decimal256 for any value from 2^-68 up (smaller ones lose their
/// digits past 2^-120); integers add exactly, and the sum is rounded to a float once.
fn exact_sum(column: &str) -> String {
    const SCALE: &str = "1.329227995784916e36"; // 2^120
    format!("CAST(sum(CAST({column} * {SCALE} AS DECIMAL(76, 0))) AS DOUBLE) / {SCALE}")
}

/// `sum`, a sum of probabilities that cannot exceed 1, as 1 where rounding took it just past
/// (1 + 2^-52 is common): the true score would leave such a rule out. A sum past 1 by more is
/// kept, for the loader to report.
fn rounded_to_one(sum: &str) -> String {
    format!("CASE WHEN {sum} > 1.0 AND {sum} <= 1.0 + 1e-9 THEN 1.0 ELSE {sum} END")
}

/// Build the paraphrase table and write it atomically.
pub async fn pivot(options: &PivotOptions) -> Result<PivotSummary> {
    let ctx = Session::tuned(options.tuning).build()?;
    session::register_checked(&ctx, Table::PhraseTable, &options.table).await?;
    let schema = ctx
        .table_provider(Table::PhraseTable.name())
        .await?
        .schema();
    for column in ["src", "tgt"] {
        if schema.field_with_name(column).is_err() {
            bail!(
                "phrase_table {}: pivot needs the `{column}` column (Utf8, tokens joined by spaces)",
                options.table.display()
            );
        }
    }
    let rows =
        crate::session::write_query(&ctx, &options.query(), &options.out, &options.signature())
            .await?;
    Ok(PivotSummary {
        rows,
        signature: options.signature(),
    })
}
