//! `pairmetrics triples`: count (head, dependent, deprel) arcs over a parsed corpus, at the
//! word-form and UPOS levels, as one DataFusion aggregation written into a triples table.

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use datafusion::common::{JoinType, UnnestOptions};
use datafusion::functions::core::expr_fn::get_field;
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_nested::expr_fn::cardinality;
use datafusion::logical_expr::{Expr, ident, lit};
use datafusion::prelude::{DataFrame, SessionContext};
use futures::TryStreamExt;

use crate::arrow::read::Strings;
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::schema::Table;
use crate::session::{self, Session, Tuning, column_of};
use crate::udf::expr;

/// Which sentence of each pair to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    Src,
    Tgt,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Src => "src",
            Side::Tgt => "tgt",
        }
    }
}

#[derive(Debug, Clone)]
pub struct TriplesOptions {
    pub pairs: PathBuf,
    pub arcs: PathBuf,
    pub side: Side,
    pub out: PathBuf,
    pub lowercase: bool,
    /// Leave out sentences of more tokens than this (the IUCL system counted Wikipedia
    /// sentences of at most 25 words).
    pub max_length: Option<usize>,
    pub tuning: Tuning,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TriplesSummary {
    /// Distinct triples written, per level.
    pub distinct: [u64; 2],
    /// Arcs counted, per level.
    pub arcs: [u64; 2],
    /// Parses left out of the form level: lengths differ from the sentence's, a head out of
    /// range, or NULL.
    pub skipped: u64,
    /// Sentences longer than `max_length`, left out of both levels.
    pub too_long: u64,
    pub levels: Vec<&'static str>,
    pub seconds: f64,
}

impl fmt::Display for TriplesSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, level) in ["form", "upos"].iter().enumerate() {
            if self.levels.contains(level) {
                writeln!(
                    f,
                    "{level}: {} arcs, {} distinct triples",
                    self.arcs[i], self.distinct[i]
                )?;
            } else {
                writeln!(
                    f,
                    "{level}: not counted (the arcs table has no upos column)"
                )?;
            }
        }
        writeln!(
            f,
            "parses skipped at the form level (malformed, NULL, or not the sentence's length): {}",
            self.skipped
        )?;
        if self.too_long > 0 {
            writeln!(
                f,
                "sentences longer than --max-length left out: {}",
                self.too_long
            )?;
        }
        let arcs = self.arcs.iter().sum::<u64>() as f64;
        write!(
            f,
            "{:.2} s ({:.0} arcs/s)",
            self.seconds,
            arcs / self.seconds.max(1e-9)
        )
    }
}

/// The triples table: every level's (head, dep, deprel) counts, one level after the other,
/// sorted. The form level reads pairs joined to arcs; the upos level reads the arcs alone.
async fn triples_frame(
    ctx: &SessionContext,
    options: &TriplesOptions,
    upos: bool,
) -> Result<DataFrame> {
    let side = options.side.name();
    let (head, deprel) = (format!("{side}_head"), format!("{side}_deprel"));
    let arc = |c: &str| column_of(Table::Arcs.name(), c);
    let forms = column_of(Table::Pairs.name(), side);
    let compared = match options.lowercase {
        true => expr::lowercase_tokens(ctx, forms.clone())?,
        false => forms.clone(),
    };
    let forms_triples = expr::dep_triples(ctx, compared, arc(&head), arc(&deprel))?;
    let mut frame = level(
        pairs_with_arcs(ctx).await?,
        "form",
        forms_triples,
        forms,
        options.max_length,
    )?;
    if upos {
        let upos_triples = expr::dep_triples(
            ctx,
            ident(format!("{side}_upos")),
            ident(&head),
            ident(&deprel),
        )?;
        let arcs = ctx.table(Table::Arcs.name()).await?;
        frame = frame.union(level(
            arcs,
            "upos",
            upos_triples,
            ident(&head),
            options.max_length,
        )?)?;
    }
    let order = ["level", "head", "dep", "deprel"].map(|c| ident(c).sort(true, false));
    Ok(frame.sort(order.to_vec())?)
}

/// One level's counts: the `triples` of each row of `from` whose `length` (a list) is within
/// the limit, unnested and counted.
fn level(
    from: DataFrame,
    name: &str,
    triples: Expr,
    length: Expr,
    max_length: Option<usize>,
) -> Result<DataFrame> {
    let from = match max_length {
        Some(max) => from.filter(cardinality(length).lt_eq(lit(max as i64)))?,
        None => from,
    };
    let field = |f: &str| get_field(ident("t"), f).alias(f);
    let counted = from
        .select(vec![triples.alias("t")])?
        // A NULL list (a sentence whose parse does not fit) gives no arc, as SQL's unnest.
        .unnest_columns_with_options(&["t"], UnnestOptions::new().with_preserve_nulls(false))?
        .aggregate(
            vec![field("head"), field("dep"), field("deprel")],
            vec![count_all().alias("count")],
        )?;
    let columns = ["head", "dep", "deprel", "count"].map(ident);
    Ok(counted.select(
        std::iter::once(lit(name).alias("level"))
            .chain(columns)
            .collect::<Vec<_>>(),
    )?)
}

async fn pairs_with_arcs(ctx: &SessionContext) -> Result<DataFrame> {
    let (pairs, arcs) = (Table::Pairs.name(), Table::Arcs.name());
    session::join_on_pair_id(ctx, pairs, arcs, JoinType::Inner).await
}

pub async fn triples(options: &TriplesOptions) -> Result<TriplesSummary> {
    let started = Instant::now();
    let ctx = Session::tuned(options.tuning).build()?;
    session::register_keyed(&ctx, Table::Pairs, &options.pairs).await?;
    session::register_keyed(&ctx, Table::Arcs, &options.arcs).await?;
    let side = options.side.name();
    let arcs_schema = ctx.table_provider("arcs").await?.schema();
    let upos = arcs_schema.field_with_name(&format!("{side}_upos")).is_ok();
    let mut summary = TriplesSummary {
        levels: if upos {
            vec!["form", "upos"]
        } else {
            vec!["form"]
        },
        ..Default::default()
    };

    let arc = |c: &str| column_of(Table::Arcs.name(), c);
    let forms = column_of(Table::Pairs.name(), side);
    let triples = expr::dep_triples(
        &ctx,
        forms,
        arc(&format!("{side}_head")),
        arc(&format!("{side}_deprel")),
    )?;
    let skipped = pairs_with_arcs(&ctx).await?.filter(triples.is_null())?;
    summary.skipped = skipped.count().await? as u64;
    if let Some(max) = options.max_length {
        let pairs = ctx.table(Table::Pairs.name()).await?;
        let too_long = pairs.filter(cardinality(ident(side)).gt(lit(max as i64)))?;
        summary.too_long = too_long.count().await? as u64;
    }

    let frame = triples_frame(&ctx, options, upos).await?;
    let metadata = vec![
        (keys::VERSION.to_string(), crate::VERSION.to_string()),
        (keys::QUERY.to_string(), crate::session::query_text(&frame)),
    ];
    let mut writer =
        AtomicParquetWriter::create(&options.out, frame.schema().inner().clone(), metadata)?;
    let mut stream = frame.execute_stream().await?;
    while let Some(batch) = stream.try_next().await? {
        let (levels, counts) = (
            Strings::new(batch.column(0).as_ref())?,
            batch.column(4).as_primitive::<Int64Type>(),
        );
        for row in 0..batch.num_rows() {
            let i = usize::from(levels.get(row) == Some("upos"));
            summary.distinct[i] += 1;
            summary.arcs[i] += counts.value(row) as u64;
        }
        writer.write(&batch)?;
    }
    writer.finish()?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}
