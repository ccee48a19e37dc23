//! The SQL face shared by sacrebleu's metrics (BLEU, chrF, TER): for each, a sentence score, the
//! sufficient statistics of a segment, and a corpus aggregate over summed statistics. A metric
//! gives its names, default options and documentation ([`Metric`]); [`SacreMetric`] computes;
//! everything Arrow is here, once.
//!
//! Arguments: `(hyp, ref [, options])`, where hyp is a string and ref a string or a list of
//! strings (several references); or hyp and ref are token lists, each joined with spaces into
//! one text (one reference). `options` are in the words of the metric's sacrebleu signature.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, ListBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl,
    Signature, Volatility,
};

use super::args::{Shapes, TextArg, checked_arguments, constant, scalar_text};
use super::docs::DOC_SECTION;
use crate::arrow::read::{Strings, TokenLists};
use crate::sacrebleu::corpus::{SacreMetric, Scratch};
use crate::schema::{ColumnType, is_string};

/// One of sacrebleu's metrics, as its SQL functions need it: their names, the options they take
/// when none are given, and their documentation. The computing is [`SacreMetric`]'s.
pub trait Metric: fmt::Debug + PartialEq + Eq + std::hash::Hash + Send + Sync + 'static {
    /// The names of the sentence, statistics and corpus functions.
    const NAMES: [&'static str; 3];

    /// The names of the paired tests of corpus scores (`udf::paired_corpus`): the streaming
    /// bootstrap and randomization, then sacrebleu's own (`--paired-bs`, `--paired-ar`).
    const TEST_NAMES: [&'static str; 4];

    /// The options of the sentence and statistics functions, and of the corpus aggregate, when
    /// none are given (sacrebleu's `sentence_*` and `corpus_*` defaults).
    fn sentence_options() -> SacreMetric;
    fn corpus_options() -> SacreMetric;

    /// The metric's options in the words of its signature, as the `options` argument takes them.
    const OPTIONS_DOC: &'static str;

    /// The description and an SQL example of the sentence, statistics and corpus functions.
    const DESCRIPTIONS: [(&'static str, &'static str); 3];

    /// The documentation of the sentence, statistics and corpus functions: the metric's
    /// [`documentation`] kept in a static of its own.
    fn documentation(kind: Kind) -> &'static Documentation;
}

/// The documentation of `M`'s sentence, statistics and corpus functions, from its
/// `DESCRIPTIONS` and `OPTIONS_DOC`: their arguments are the same for all.
pub fn documentation<M: Metric>() -> [Documentation; 3] {
    [Kind::Sentence, Kind::Stats, Kind::Corpus].map(|kind| {
        let (description, example) = M::DESCRIPTIONS[kind as usize];
        let options = match kind {
            Kind::Corpus => format!("A constant: {}", M::OPTIONS_DOC),
            _ => M::OPTIONS_DOC.to_string(),
        };
        Documentation::builder(
            DOC_SECTION,
            description,
            format!("{}(hyp, ref [, options])", M::NAMES[kind as usize]),
        )
        .with_argument(
            "hyp",
            "The hypothesis: a string, or a token list (joined with spaces).",
        )
        .with_argument(
            "ref",
            "The reference: a string, or a list of strings for several; a token list when hyp \
             is one.",
        )
        .with_argument("options", options)
        .with_sql_example(example)
        .build()
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Sentence,
    Stats,
    Corpus,
}

const SHAPES: Shapes = &[
    &[("hyp", ColumnType::Text), ("ref", ColumnType::Text)],
    &[("hyp", ColumnType::Text), ("refs", ColumnType::Tokens)],
    &[("hyp", ColumnType::Tokens), ("ref", ColumnType::Tokens)],
    &[
        ("hyp", ColumnType::Text),
        ("ref", ColumnType::Text),
        ("options", ColumnType::Text),
    ],
    &[
        ("hyp", ColumnType::Text),
        ("refs", ColumnType::Tokens),
        ("options", ColumnType::Text),
    ],
    &[
        ("hyp", ColumnType::Tokens),
        ("ref", ColumnType::Tokens),
        ("options", ColumnType::Text),
    ],
];

/// DataFusion would cast a list of references to a string (or back) to fit one of the exact
/// shapes: coerce() alone checks that the arguments fit one shape.
fn strings_or_lists() -> Signature {
    Signature::user_defined(Volatility::Immutable)
}

/// The hypotheses of a batch: text, or token lists to join.
enum Hyps<'a> {
    Text(Strings<'a>),
    Tokens(TokenLists<'a>),
}

/// The references of a batch: one string per row, a list of them, or one token list to join.
enum Refs<'a> {
    One(Strings<'a>),
    Many(TokenLists<'a>),
    Tokens(TokenLists<'a>),
}

/// The argument columns of one batch, and buffers for one row.
struct Input<'a> {
    hyps: Hyps<'a>,
    refs: Refs<'a>,
    row_refs: Vec<&'a str>,
    joined: (String, String),
    tokens: Vec<&'a str>,
}

impl<'a> Input<'a> {
    fn new(arrays: &'a [ArrayRef]) -> Result<Self> {
        let (hyps, refs) = match (
            is_string(arrays[0].data_type()),
            is_string(arrays[1].data_type()),
        ) {
            (true, true) => (
                Hyps::Text(Strings::new(arrays[0].as_ref())?),
                Refs::One(Strings::new(arrays[1].as_ref())?),
            ),
            (true, false) => (
                Hyps::Text(Strings::new(arrays[0].as_ref())?),
                Refs::Many(TokenLists::new("refs", &arrays[1])?),
            ),
            _ => (
                Hyps::Tokens(TokenLists::new("hyp", &arrays[0])?),
                Refs::Tokens(TokenLists::new("ref", &arrays[1])?),
            ),
        };
        Ok(Input {
            hyps,
            refs,
            row_refs: Vec::new(),
            joined: Default::default(),
            tokens: Vec::new(),
        })
    }

    /// The row's statistics into `stats`; false when it has none (a NULL hypothesis or token,
    /// no reference).
    fn stats(
        &mut self,
        row: usize,
        metric: &SacreMetric,
        scratch: &mut Scratch,
        stats: &mut Vec<u64>,
    ) -> bool {
        let Input {
            hyps,
            refs,
            row_refs,
            joined,
            tokens,
        } = self;
        let join = |lists: &TokenLists<'a>, tokens: &mut Vec<&'a str>, out: &mut String| {
            lists.row(row, tokens).is_ok().then(|| {
                out.clear();
                for (i, token) in tokens.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { " " });
                    out.push_str(token);
                }
            })
        };
        match (hyps, refs) {
            (Hyps::Tokens(hyp), Refs::Tokens(reference)) => {
                let readable = join(hyp, tokens, &mut joined.0).is_some()
                    && join(reference, tokens, &mut joined.1).is_some();
                readable && (metric.counts(&joined.0, &[joined.1.as_str()], scratch, stats)).is_ok()
            }
            (Hyps::Text(hyps), refs) => {
                let Some(hyp) = hyps.get(row) else {
                    return false;
                };
                row_refs.clear();
                match refs {
                    Refs::One(strings) => row_refs.extend(strings.get(row)),
                    Refs::Many(lists) | Refs::Tokens(lists) => {
                        row_refs.extend(lists.items(row).into_iter().flatten().flatten())
                    }
                }
                metric.counts(hyp, row_refs, scratch, stats).is_ok()
            }
            (Hyps::Tokens(_), _) => {
                unreachable!("coerce() pairs token-list hypotheses with token-list references")
            }
        }
    }
}

fn stats_type() -> DataType {
    DataType::List(Arc::new(Field::new_list_field(DataType::Int64, false)))
}

/// The sentence-score and statistics functions of metric `M`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SegmentUdf<M> {
    kind: Kind,
    signature: Signature,
    metric: PhantomData<M>,
}

impl<M: Metric> SegmentUdf<M> {
    /// `kind` is [`Kind::Sentence`] or [`Kind::Stats`].
    pub fn new(kind: Kind) -> Self {
        assert_ne!(
            kind,
            Kind::Corpus,
            "the corpus score is an aggregate: CorpusUdf"
        );
        SegmentUdf {
            kind,
            signature: strings_or_lists(),
            metric: PhantomData,
        }
    }

    fn name_of(kind: Kind) -> &'static str {
        match kind {
            Kind::Sentence => M::NAMES[0],
            _ => M::NAMES[1],
        }
    }
}

/// Options parsed once per distinct text over `defaults`.
struct Options {
    /// The function's name, for errors.
    name: &'static str,
    defaults: SacreMetric,
    last: Option<(String, SacreMetric)>,
}

impl Options {
    fn get(&mut self, text: Option<&str>) -> Result<&SacreMetric> {
        let Some(text) = text else {
            return Ok(&self.defaults);
        };
        if self.last.as_ref().is_none_or(|(last, _)| last != text) {
            match self.defaults.parse_over(text) {
                Ok(options) => self.last = Some((text.to_string(), options)),
                Err(e) => return exec_err!("{}: {e}", self.name),
            }
        }
        Ok(&self.last.as_ref().expect("parsed").1)
    }
}

impl<M: Metric> ScalarUDFImpl for SegmentUdf<M> {
    fn name(&self) -> &str {
        Self::name_of(self.kind)
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Sentence => DataType::Float64,
            _ => stats_type(),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let mut input = Input::new(&arrays)?;
        let text = match args.args.get(2) {
            Some(value) => Some(TextArg::new(value, &arrays[2])?),
            None => None,
        };
        let mut options = Options {
            name: Self::name_of(self.kind),
            defaults: M::sentence_options(),
            last: None,
        };
        let (mut scratch, mut stats) = (Scratch::default(), Vec::new());
        let mut scores = Float64Builder::with_capacity(rows);
        let mut lists = ListBuilder::new(Int64Builder::new())
            .with_field(Field::new_list_field(DataType::Int64, false));
        for row in 0..rows {
            let options = options.get(text.as_ref().and_then(|t| t.get(row)))?;
            let ok = input.stats(row, options, &mut scratch, &mut stats);
            match (self.kind, ok) {
                (Kind::Sentence, true) => scores.append_value(options.sentence_score(&stats)),
                (Kind::Sentence, false) => scores.append_null(),
                (_, true) => lists.append_value(stats.iter().map(|&x| Some(x as i64))),
                (_, false) => lists.append_null(),
            }
        }
        let array: ArrayRef = match self.kind {
            Kind::Sentence => Arc::new(scores.finish()),
            _ => Arc::new(lists.finish()),
        };
        Ok(ColumnarValue::Array(array))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(M::documentation(self.kind))
    }
}

/// The corpus aggregate of metric `M`: the score of the rows' summed statistics.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CorpusUdf<M> {
    signature: Signature,
    metric: PhantomData<M>,
}

impl<M: Metric> Default for CorpusUdf<M> {
    fn default() -> Self {
        CorpusUdf {
            signature: strings_or_lists(),
            metric: PhantomData,
        }
    }
}

impl<M: Metric> AggregateUDFImpl for CorpusUdf<M> {
    fn name(&self) -> &str {
        M::NAMES[2]
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let name = M::NAMES[2];
        let options = match args.exprs.get(2) {
            None => M::corpus_options(),
            Some(expr) => {
                match constant(expr.as_ref()).and_then(|value| scalar_text(&value).ok().flatten()) {
                    Some(text) => match M::corpus_options().parse_over(&text) {
                        Ok(options) => options,
                        Err(e) => return plan_err!("{name}: {e}"),
                    },
                    None => {
                        return plan_err!(
                            "{name}: `options` must be a constant string, got {expr}"
                        );
                    }
                }
            }
        };
        Ok(Box::new(CorpusAccumulator {
            metric: options,
            rows: 0,
            total: Vec::new(),
            scratch: Default::default(),
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let list = DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true)));
        Ok(vec![
            Arc::new(Field::new(
                format_state_name(args.name, "rows"),
                DataType::Int64,
                false,
            )),
            Arc::new(Field::new(
                format_state_name(args.name, "total"),
                list,
                true,
            )),
        ])
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(M::documentation(Kind::Corpus))
    }
}

#[derive(Debug)]
struct CorpusAccumulator {
    metric: SacreMetric,
    /// The rows with statistics so far, and their total.
    rows: u64,
    total: Vec<u64>,
    scratch: Scratch,
}

impl Accumulator for CorpusAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let mut input = Input::new(values)?;
        let mut stats = Vec::new();
        for row in 0..values[0].len() {
            if input.stats(row, &self.metric, &mut self.scratch, &mut stats) {
                self.rows += 1;
                self.metric.add_counts(&mut self.total, &stats);
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.rows += states[0]
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .sum::<i64>() as u64;
        for partial in states[1].as_list::<i32>().iter().flatten() {
            let partial: Vec<u64> = partial
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .map(|&x| x as u64)
                .collect();
            crate::kernels::add_stats(&mut self.total, &partial);
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values = self
            .total
            .iter()
            .map(|&x| ScalarValue::Int64(Some(x as i64)))
            .collect::<Vec<_>>();
        let total = ScalarValue::List(ScalarValue::new_list_nullable(&values, &DataType::Int64));
        Ok(vec![ScalarValue::Int64(Some(self.rows as i64)), total])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let score = (self.rows > 0).then(|| self.metric.corpus_score(&self.total));
        Ok(ScalarValue::Float64(score))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.total.capacity() * 8
    }
}
