//! `pairmetrics triples`: count (head, dependent, deprel) arcs over a parsed corpus, at the
//! word-form and UPOS levels, as one DataFusion aggregation written into a triples table.

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use futures::TryStreamExt;

use crate::arrow::read::Strings;
use crate::parquet::AtomicParquetWriter;
use crate::parquet::keys;
use crate::schema::Table;
use crate::session::{self, Session, Tuning};

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

/// The query, for a side and whether the upos level is counted.
pub fn query(options: &TriplesOptions, upos: bool) -> String {
    let side = options.side.name();
    let forms = if options.lowercase {
        format!("lowercase_tokens(p.{side})")
    } else {
        format!("p.{side}")
    };
    let level = |name: &str, triples: String, from: &str, length: &str| {
        let filter = match options.max_length {
            Some(max) => format!(" WHERE cardinality({length}) <= {max}"),
            None => String::new(),
        };
        format!(
            "SELECT '{name}' AS level, t['head'] AS head, t['dep'] AS dep, t['deprel'] AS deprel, \
             count(*) AS count FROM (SELECT unnest({triples}) AS t FROM {from}{filter}) GROUP BY 2, 3, 4"
        )
    };
    let mut levels = vec![level(
        "form",
        format!("dep_triples({forms}, r.{side}_head, r.{side}_deprel)"),
        "pairs p JOIN arcs r ON p.pair_id = r.pair_id",
        &format!("p.{side}"),
    )];
    if upos {
        levels.push(level(
            "upos",
            format!("dep_triples(r.{side}_upos, r.{side}_head, r.{side}_deprel)"),
            "arcs r",
            &format!("r.{side}_head"),
        ));
    }
    format!(
        "{} ORDER BY level, head, dep, deprel",
        levels.join(" UNION ALL ")
    )
}

pub async fn triples(options: &TriplesOptions) -> Result<TriplesSummary> {
    let started = Instant::now();
    let ctx = Session {
        tuning: options.tuning,
        ..Default::default()
    }
    .build()?;
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

    let skipped = format!(
        "SELECT count(*) FROM pairs p JOIN arcs r ON p.pair_id = r.pair_id \
         WHERE dep_triples(p.{side}, r.{side}_head, r.{side}_deprel) IS NULL"
    );
    summary.skipped = session::count(&ctx, &skipped).await?;
    if let Some(max) = options.max_length {
        summary.too_long = session::count(
            &ctx,
            &format!("SELECT count(*) FROM pairs WHERE cardinality({side}) > {max}"),
        )
        .await?;
    }

    let query = query(options, upos);
    let frame = ctx.sql(&query).await?;
    let metadata = vec![
        (keys::VERSION.to_string(), crate::VERSION.to_string()),
        (keys::QUERY.to_string(), query.clone()),
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
