//! `sentence_bleu`, `bleu_stats` and the aggregate `corpus_bleu`: thin adapters from Arrow
//! columns to sacrebleu's BLEU ([`crate::metrics::bleu`]).

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Builder, Int64Builder, ListBuilder};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args::{Shapes, TextArg, checked_arguments, constant, scalar_text};
use super::docs::DOC_SECTION;
use crate::arrow::read::{Strings, TokenLists};
use crate::metrics::bleu::{self, BleuOptions, Scratch};
use crate::schema::{ColumnType, is_string};

const SHAPES: Shapes = &[
    &[("hyp", ColumnType::Text), ("ref", ColumnType::Text)],
    &[("hyp", ColumnType::Text), ("refs", ColumnType::Tokens)],
    &[("hyp", ColumnType::Text), ("ref", ColumnType::Text), ("options", ColumnType::Text)],
    &[("hyp", ColumnType::Text), ("refs", ColumnType::Tokens), ("options", ColumnType::Text)],
];

/// DataFusion would cast a list of references to a string (or back) to fit one of the exact
/// shapes: coerce() alone checks that the arguments fit one shape, as for `chrf`.
fn strings_or_lists() -> Signature {
    Signature::user_defined(Volatility::Immutable)
}

const OPTIONS_DOC: &str = "sacrebleu's options in the words of its signature, '|'-separated: \
    tok:13a|char|none, case:mixed|lc, eff:yes|no, smooth:exp|none|floor[V]|add-k[V], order:N; \
    e.g. 'tok:char|smooth:floor[0.1]'. A whole signature reads as its options.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Sentence,
    Stats,
}

/// One UDF type for the two scalar BLEU functions: they decode the same arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BleuUdf {
    kind: Kind,
    signature: Signature,
}

impl BleuUdf {
    pub fn new(kind: Kind) -> Self {
        BleuUdf { kind, signature: strings_or_lists() }
    }
}

static SENTENCE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Sentence-level BLEU (0-100), equal to sacrebleu 2.6's sentence_bleu: by default its \
         options (13a tokens, exp smoothing, effective order: 'eff:yes'). Several references \
         as a list of strings: n-gram counts clipped by the reference that has the n-gram most, \
         the reference length closest to the hypothesis'. NULL when hyp is NULL or there is no \
         reference (NULL references in a list are left out, as sacrebleu leaves out None).",
        "sentence_bleu(hyp, ref [, options])",
    )
    .with_argument("hyp", "The hypothesis: a string.")
    .with_argument("ref", "The reference: a string, or a list of strings for several.")
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT sentence_bleu('the cat sat on the mat', 'the cat sat on a mat'); -- 53.7285")
    .build()
});

static STATS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "BLEU's sufficient statistics of a segment, as sacrebleu computes them: [hyp_len, \
         ref_len, matched n-grams of orders 1..N, hypothesis n-grams of orders 1..N] (N = 4 \
         unless 'order:N'). Summed over a corpus they give its BLEU (corpus_bleu sums them).",
        "bleu_stats(hyp, ref [, options])",
    )
    .with_argument("hyp", "The hypothesis: a string.")
    .with_argument("ref", "The reference: a string, or a list of strings for several.")
    .with_argument("options", OPTIONS_DOC)
    .with_sql_example("SELECT bleu_stats('the cat sat', 'the cat sat down'); -- [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]")
    .build()
});

static CORPUS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Corpus BLEU (0-100), equal to sacrebleu 2.6's corpus_score: the BLEU of the summed \
         statistics of the rows (not a mean of sentence scores), by default with sacrebleu's \
         corpus options (13a, exp smoothing, 'eff:no'). Rows whose hyp is NULL or that have no \
         reference are left out; NULL when none is left. One score per group: GROUP BY system compares systems.",
        "corpus_bleu(hyp, ref [, options])",
    )
    .with_argument("hyp", "The hypothesis: a string.")
    .with_argument("ref", "The reference: a string, or a list of strings for several.")
    .with_argument("options", "A constant: ".to_string() + OPTIONS_DOC)
    .with_sql_example("SELECT system, corpus_bleu(hyp, ref) FROM outputs GROUP BY system;")
    .build()
});

/// The references of each row: one string, or a list of them.
enum References<'a> {
    One(Strings<'a>),
    Many(TokenLists<'a>),
}

/// The argument columns of one batch.
struct Input<'a> {
    hyps: Strings<'a>,
    refs: References<'a>,
}

impl<'a> Input<'a> {
    fn new(arrays: &'a [ArrayRef]) -> Result<Self> {
        let refs = match is_string(arrays[1].data_type()) {
            true => References::One(Strings::new(arrays[1].as_ref())?),
            false => References::Many(TokenLists::new("refs", &arrays[1])?),
        };
        Ok(Input { hyps: Strings::new(arrays[0].as_ref())?, refs })
    }

    /// The row's statistics into `stats`; false when it has none (NULL hyp, no reference).
    fn stats(&self, row: usize, options: &BleuOptions, refs: &mut Vec<&'a str>, scratch: &mut Scratch, stats: &mut [u64]) -> bool {
        let Some(hyp) = self.hyps.get(row) else { return false };
        refs.clear();
        match &self.refs {
            References::One(strings) => refs.extend(strings.get(row)),
            References::Many(lists) => refs.extend(lists.items(row).into_iter().flatten().flatten()),
        }
        bleu::segment_stats(hyp, refs, options, scratch, stats).is_ok()
    }
}

/// Options parsed once per distinct text over `defaults`.
struct Options {
    defaults: BleuOptions,
    last: Option<(String, BleuOptions)>,
}

impl Options {
    fn get(&mut self, text: Option<&str>) -> Result<&BleuOptions> {
        let Some(text) = text else { return Ok(&self.defaults) };
        if self.last.as_ref().is_none_or(|(last, _)| last != text) {
            match self.defaults.parse(text) {
                Ok(options) => self.last = Some((text.to_string(), options)),
                Err(e) => return exec_err!("{e}"),
            }
        }
        Ok(&self.last.as_ref().expect("parsed").1)
    }
}

impl ScalarUDFImpl for BleuUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Sentence => "sentence_bleu",
            Kind::Stats => "bleu_stats",
        }
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Sentence => DataType::Float64,
            Kind::Stats => DataType::List(Arc::new(Field::new_list_field(DataType::Int64, false))),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let input = Input::new(&arrays)?;
        let text = match args.args.get(2) {
            Some(value) => Some(TextArg::new(value, &arrays[2])?),
            None => None,
        };
        let mut options = Options { defaults: BleuOptions::sentence(), last: None };
        let (mut refs, mut scratch, mut stats) = (Vec::new(), Scratch::default(), Vec::new());
        let mut scores = Float64Builder::with_capacity(rows);
        let mut lists = ListBuilder::new(Int64Builder::new()).with_field(Field::new_list_field(DataType::Int64, false));
        for row in 0..rows {
            let options = options.get(text.as_ref().and_then(|t| t.get(row)))?;
            stats.resize(options.stats_len(), 0);
            let ok = input.stats(row, options, &mut refs, &mut scratch, &mut stats);
            match (self.kind, ok) {
                (Kind::Sentence, true) => scores.append_value(bleu::bleu(&stats, options).score),
                (Kind::Sentence, false) => scores.append_null(),
                (Kind::Stats, true) => lists.append_value(stats.iter().map(|&x| Some(x as i64))),
                (Kind::Stats, false) => lists.append_null(),
            }
        }
        let array: ArrayRef = match self.kind {
            Kind::Sentence => Arc::new(scores.finish()),
            Kind::Stats => Arc::new(lists.finish()),
        };
        Ok(ColumnarValue::Array(array))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Sentence => &SENTENCE_DOC,
            Kind::Stats => &STATS_DOC,
        })
    }
}

/// `corpus_bleu(hyp, ref [, options])`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CorpusBleu {
    signature: Signature,
}

impl Default for CorpusBleu {
    fn default() -> Self {
        CorpusBleu { signature: strings_or_lists() }
    }
}

impl AggregateUDFImpl for CorpusBleu {
    fn name(&self) -> &str {
        "corpus_bleu"
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let options = match args.exprs.get(2) {
            None => BleuOptions::default(),
            Some(expr) => match constant(expr.as_ref()).and_then(|value| scalar_text(&value).ok().flatten()) {
                Some(text) => match BleuOptions::default().parse(&text) {
                    Ok(options) => options,
                    Err(e) => return plan_err!("corpus_bleu: {e}"),
                },
                None => return plan_err!("corpus_bleu: `options` must be a constant string, got {expr}"),
            },
        };
        let total = vec![0; options.stats_len()];
        Ok(Box::new(CorpusAccumulator { options, rows: 0, total, scratch: Scratch::default() }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let list = DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true)));
        Ok(vec![
            Arc::new(Field::new(format_state_name(args.name, "rows"), DataType::Int64, false)),
            Arc::new(Field::new(format_state_name(args.name, "stats"), list, true)),
        ])
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&CORPUS_DOC)
    }
}

#[derive(Debug)]
struct CorpusAccumulator {
    options: BleuOptions,
    /// The rows with statistics so far, and their sum.
    rows: u64,
    total: Vec<u64>,
    scratch: Scratch,
}

impl Accumulator for CorpusAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let input = Input::new(values)?;
        let (mut refs, mut stats) = (Vec::new(), vec![0; self.options.stats_len()]);
        for row in 0..values[0].len() {
            if input.stats(row, &self.options, &mut refs, &mut self.scratch, &mut stats) {
                self.rows += 1;
                bleu::add_stats(&mut self.total, &stats);
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.rows += states[0].as_primitive::<Int64Type>().values().iter().sum::<i64>() as u64;
        for partial in states[1].as_list::<i32>().iter().flatten() {
            let partial: Vec<u64> = partial.as_primitive::<Int64Type>().values().iter().map(|&x| x as u64).collect();
            bleu::add_stats(&mut self.total, &partial);
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values = self.total.iter().map(|&x| ScalarValue::Int64(Some(x as i64))).collect::<Vec<_>>();
        let stats = ScalarValue::List(ScalarValue::new_list_nullable(&values, &DataType::Int64));
        Ok(vec![ScalarValue::Int64(Some(self.rows as i64)), stats])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let score = (self.rows > 0).then(|| bleu::bleu(&self.total, &self.options).score);
        Ok(ScalarValue::Float64(score))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.total.capacity() * 8
    }
}
