//! `pairmetrics sql`: run a query over Parquet tables with every UDF registered.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use anyhow::{Context, Result};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, FieldRef, Float32Type, Float64Type};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::json::writer::{
    Encoder, EncoderFactory, EncoderOptions, NullableEncoder, make_encoder,
};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::arrow::{csv, json};
use datafusion::prelude::SessionContext;
use futures::TryStreamExt;

use crate::formats::terminal::terminal_safe;
use crate::parquet::dataset::ExecutorDataset;
use crate::parquet::keys;
use crate::parquet::{Encoding, Layout, TableWriter};
use crate::session;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned text table.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    Json,
}

/// Run `query`; print it in `format` to `sink`, or write it to `out` as Parquet, laid out as
/// `layout` says.
pub async fn run(
    ctx: &SessionContext,
    query: &str,
    format: Format,
    out: Option<&Path>,
    layout: &Layout,
    sink: &mut dyn Write,
) -> Result<()> {
    let frame = ctx.sql(query).await?;
    if let Some(path) = out {
        let schema = frame.schema().inner().clone();
        let metadata = vec![
            (keys::VERSION.to_string(), crate::VERSION.to_string()),
            (keys::QUERY.to_string(), query.to_string()),
        ];
        if session::on_cluster(ctx) {
            let dataset = ExecutorDataset::create(path, layout)?;
            dataset
                .write(frame, layout, metadata, Encoding::COMPACT)
                .await?;
            return dataset.publish();
        }
        let mut writer =
            TableWriter::create(ctx, path, layout, schema, metadata, Encoding::COMPACT).await?;
        let mut stream = frame.execute_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            writer.write(&batch).await?;
        }
        return writer.finish().await;
    }
    match format {
        Format::Table => {
            let batches: Vec<RecordBatch> = frame.collect().await?;
            writeln!(
                sink,
                "{}",
                pretty_format_batches(&terminal_safe_text(&batches)?)?
            )?;
        }
        Format::Csv => {
            let mut stream = frame.execute_stream().await?;
            let mut writer = csv::WriterBuilder::new().with_header(true).build(sink);
            while let Some(batch) = stream.try_next().await? {
                writer.write(&batch).context("writing CSV")?;
            }
        }
        Format::Json => {
            let mut stream = frame.execute_stream().await?;
            let mut writer = json::WriterBuilder::new()
                .with_encoder_factory(Arc::new(NonFiniteAsStrings))
                .build::<_, json::writer::LineDelimited>(sink);
            while let Some(batch) = stream.try_next().await? {
                writer.write(&batch).context("writing JSON")?;
            }
            writer.finish()?;
        }
    }
    Ok(())
}

/// JSON has no NaN or infinity, and arrow writes them as `null`, which a reader cannot tell
/// from NULL: they are written as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` instead
/// (as JavaScript and Python name them); finite values as arrow writes them.
#[derive(Debug)]
struct NonFiniteAsStrings;

/// Options without our factory, for the encoders of finite values.
static PLAIN: LazyLock<EncoderOptions> = LazyLock::new(EncoderOptions::default);

impl EncoderFactory for NonFiniteAsStrings {
    fn make_default_encoder<'a>(
        &self,
        field: &'a FieldRef,
        array: &'a dyn Array,
        _options: &'a EncoderOptions,
    ) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        let value: Box<dyn Fn(usize) -> f64 + 'a> = match array.data_type() {
            DataType::Float64 => Box::new(|i| array.as_primitive::<Float64Type>().value(i)),
            DataType::Float32 => Box::new(|i| array.as_primitive::<Float32Type>().value(i) as f64),
            _ => return Ok(None),
        };
        let finite = make_encoder(field, array, &PLAIN)?;
        Ok(Some(NullableEncoder::new(
            Box::new(FloatEncoder { value, finite }),
            array.logical_nulls(),
        )))
    }
}

struct FloatEncoder<'a> {
    value: Box<dyn Fn(usize) -> f64 + 'a>,
    finite: NullableEncoder<'a>,
}

impl Encoder for FloatEncoder<'_> {
    fn encode(&mut self, i: usize, out: &mut Vec<u8>) {
        match (self.value)(i) {
            v if v.is_nan() => out.extend_from_slice(b"\"NaN\""),
            v if v == f64::INFINITY => out.extend_from_slice(b"\"Infinity\""),
            v if v == f64::NEG_INFINITY => out.extend_from_slice(b"\"-Infinity\""),
            _ => self.finite.encode(i, out),
        }
    }
}

/// Every column as the text the table shows, control characters escaped (`terminal_safe`)
/// before the table measures its columns: escaped after, `\u{1b}` widened a cell past its
/// border.
fn terminal_safe_text(batches: &[RecordBatch]) -> Result<Vec<RecordBatch>> {
    use datafusion::arrow::array::{ArrayRef, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let options = FormatOptions::default().with_display_error(true);
    batches
        .iter()
        .map(|batch| {
            let schema = batch.schema();
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .map(|f| Field::new(f.name(), DataType::Utf8, true))
                .collect();
            let columns = batch
                .columns()
                .iter()
                .map(|column| {
                    let formatter = ArrayFormatter::try_new(column.as_ref(), &options)?;
                    let text: StringArray = (0..column.len())
                        .map(|row| {
                            column.is_valid(row).then(|| {
                                terminal_safe(&formatter.value(row).to_string()).into_owned()
                            })
                        })
                        .collect();
                    Ok(Arc::new(text) as ArrayRef)
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(RecordBatch::try_new(
                Arc::new(Schema::new(fields)),
                columns,
            )?)
        })
        .collect()
}
