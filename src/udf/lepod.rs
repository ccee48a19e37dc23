//! `led`, `pod`, `lepod_problem` and `lepod` (all three at once): thin adapters from Arrow columns to the LePoD kernels.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, Float64Builder, StringBuilder, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, TextArg, checked_arguments, problem_column, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{LinkLists, RowProblem, TokenLists};
use crate::kernels::Link;
use crate::pair::lepod::{self, LepodError, Punctuation, Scratch};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Led,
    Pod,
    Problem,
    /// All three at once, the alignment's units computed once.
    Both,
}

/// One UDF type for the four LePoD functions: they decode the same arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LepodUdf {
    kind: Kind,
    signature: Signature,
}

impl LepodUdf {
    pub fn new(kind: Kind) -> Self {
        LepodUdf {
            kind,
            signature: signature(shapes(kind)),
        }
    }
}

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::Led | Kind::Problem => &[&[SRC, TGT], &[SRC, TGT, LINKS]],
        Kind::Pod | Kind::Both => &[&[SRC, TGT, LINKS], &[SRC, TGT, LINKS, PUNCT]],
    }
}

const SRC: (&str, ColumnType) = ("src", ColumnType::Tokens);
const TGT: (&str, ColumnType) = ("tgt", ColumnType::Tokens);
const LINKS: (&str, ColumnType) = ("links", ColumnType::Links);
const PUNCT: (&str, ColumnType) = ("punct", ColumnType::Text);

static LED_DOC: LazyLock<Documentation> =
    LazyLock::new(|| {
        Documentation::builder(
        DOC_SECTION,
        "LeD, the lexical difference of LePoD (Niu & Carpuat 2020): the mean over both sentences \
         of the share of tokens that are not kept unchanged. With links, a token is kept when its \
         unit (a connected component of the alignment) has the same tokens on both sides; \
         without, the exact-match alignment of maximum coverage is used (a multiset difference). \
         0 = same words, 1 = nothing in common. NULL for an empty sentence, a NULL argument or \
         element, or a link outside a sentence (see lepod_problem).",
        "led(src, tgt [, links])",
    )
    .with_argument("src", "First sentence: a list of tokens.")
    .with_argument("tgt", "Second sentence: a list of tokens.")
    .with_argument("links", "Optional alignment: List<Struct<src Int32, tgt Int32>>, 0-based.")
    .with_sql_example("SELECT led(tokenize('the cat sat'), tokenize('the cat slept')); -- 0.3333")
    .with_related_udf(expr::POD)
    .with_related_udf(expr::LEPOD_PROBLEM)
    .build()
    });

static POD_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "PoD, the positional difference of LePoD (Niu & Carpuat 2020): how far aligned units \
         move, as the sum over closed segments of the largest rank displacement, divided by the \
         number of units. Units whose first token on either side is punctuation (a token equal \
         to one character of `punct`) are ignored. 0 = same order; 0 when nothing is aligned. \
         NULL for an empty sentence, a NULL argument or element, or a link outside a sentence.",
        "pod(src, tgt, links [, punct])",
    )
    .with_argument("src", "First sentence: a list of tokens.")
    .with_argument("tgt", "Second sentence: a list of tokens.")
    .with_argument(
        "links",
        "Alignment: List<Struct<src Int32, tgt Int32>>, 0-based.",
    )
    .with_argument(
        "punct",
        "Punctuation characters, as lepod-score.py's -p (default: none).",
    )
    .with_sql_example(
        "SELECT pod(src, tgt, links, ',') FROM pairs JOIN alignments USING (pair_id);",
    )
    .with_related_udf(expr::LED)
    .build()
});

static PROBLEM_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Why led/pod are NULL for a row: 'empty sentence (src)', 'links is NULL (no alignment \
         row)', 'tgt[3] is NULL', 'link position 9 outside the tgt sentence of 7 tokens', ...; \
         NULL when the row can be scored.",
        "lepod_problem(src, tgt [, links])",
    )
    .with_argument("src", "First sentence: a list of tokens.")
    .with_argument("tgt", "Second sentence: a list of tokens.")
    .with_argument("links", "Optional alignment, as for led.")
    .with_sql_example(
        "SELECT lepod_problem(src, tgt, links) AS why, count(*) FROM scored GROUP BY why;",
    )
    .build()
});

static BOTH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "LeD, PoD and the reason they are NULL, as one struct {led, pod, problem}: the same values \
         as led, pod and lepod_problem, for the cost of one (the alignment's units are computed \
         once). What `score` uses.",
        "lepod(src, tgt, links [, punct])",
    )
    .with_argument("src", "First sentence: a list of tokens.")
    .with_argument("tgt", "Second sentence: a list of tokens.")
    .with_argument("links", "Alignment: List<Struct<src Int32, tgt Int32>>, 0-based.")
    .with_argument("punct", "Punctuation characters, as for pod.")
    .with_sql_example("SELECT s['led'], s['pod'] FROM (SELECT lepod(src, tgt, links) AS s FROM pairs JOIN alignments USING (pair_id));")
    .with_related_udf(expr::LED)
    .with_related_udf(expr::POD)
    .build()
});

/// The fields of `lepod`'s struct.
pub fn lepod_fields() -> Fields {
    Fields::from(vec![
        Field::new("led", DataType::Float64, true),
        Field::new("pod", DataType::Float64, true),
        Field::new("problem", DataType::Utf8, true),
    ])
}

impl ScalarUDFImpl for LepodUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Led => expr::LED,
            Kind::Pod => expr::POD,
            Kind::Problem => expr::LEPOD_PROBLEM,
            Kind::Both => expr::LEPOD,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Led | Kind::Pod => DataType::Float64,
            Kind::Problem => DataType::Utf8,
            Kind::Both => DataType::Struct(lepod_fields()),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let input = Input::new(&args.args, &arrays)?;
        let mut buffers = Buffers::default();
        let output: ArrayRef = match self.kind {
            Kind::Problem => problem_column(rows, |row| input.score(Kind::Led, row, &mut buffers)),
            Kind::Both => {
                let (mut led, mut pod) = (
                    Float64Builder::with_capacity(rows),
                    Float64Builder::with_capacity(rows),
                );
                let mut problem = StringBuilder::with_capacity(rows, 0);
                for row in 0..rows {
                    match input.led_and_pod(row, &mut buffers) {
                        Ok((l, p)) => {
                            led.append_value(l);
                            pod.append_value(p);
                            problem.append_null();
                        }
                        Err(why) => {
                            led.append_null();
                            pod.append_null();
                            problem.append_value(why.to_string());
                        }
                    }
                }
                let columns: Vec<ArrayRef> = vec![
                    Arc::new(led.finish()),
                    Arc::new(pod.finish()),
                    Arc::new(problem.finish()),
                ];
                Arc::new(StructArray::try_new(lepod_fields(), columns, None)?)
            }
            kind => {
                let mut out = Float64Builder::with_capacity(rows);
                for row in 0..rows {
                    out.append_option(input.score(kind, row, &mut buffers).ok());
                }
                Arc::new(out.finish())
            }
        };
        Ok(ColumnarValue::Array(output))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Led => &LED_DOC,
            Kind::Pod => &POD_DOC,
            Kind::Problem => &PROBLEM_DOC,
            Kind::Both => &BOTH_DOC,
        })
    }
}

type Problem = super::args::Problem<LepodError>;

impl From<LepodError> for Problem {
    fn from(p: LepodError) -> Self {
        Problem::Metric(p)
    }
}

struct Input<'a> {
    src: TokenLists<'a>,
    tgt: TokenLists<'a>,
    links: Option<LinkLists<'a>>,
    punct: Option<TextArg<'a>>,
    /// A literal `punct`, parsed once.
    constant_punct: Option<Punctuation>,
}

#[derive(Default)]
struct Buffers<'a> {
    s1: Vec<&'a str>,
    s2: Vec<&'a str>,
    links: Vec<Link>,
    sorted: (Vec<&'a str>, Vec<&'a str>),
    scratch: Scratch,
}

impl<'a> Input<'a> {
    fn new(values: &'a [ColumnarValue], arrays: &'a [ArrayRef]) -> Result<Self> {
        let punct = match arrays.get(3) {
            Some(array) => Some(TextArg::new(&values[3], array)?),
            None => None,
        };
        let constant_punct = match &punct {
            None => Some(Punctuation::default()),
            Some(TextArg::Constant(Some(chars))) => Some(Punctuation::new(chars)),
            Some(_) => None,
        };
        Ok(Input {
            src: TokenLists::new("src", &arrays[0])?,
            tgt: TokenLists::new("tgt", &arrays[1])?,
            links: arrays.get(2).map(LinkLists::new).transpose()?,
            punct,
            constant_punct,
        })
    }

    /// Decode row `row` into the buffers; false when the call has no links.
    fn decode(&self, row: usize, b: &mut Buffers<'a>) -> Result<bool, Problem> {
        self.src.row(row, &mut b.s1)?;
        self.tgt.row(row, &mut b.s2)?;
        let Some(links) = &self.links else {
            return Ok(false);
        };
        links.row(row, &mut b.links)?;
        Ok(true)
    }

    fn score(&self, kind: Kind, row: usize, b: &mut Buffers<'a>) -> Result<f64, Problem> {
        if !self.decode(row, b)? {
            return Ok(lepod::led_unaligned(&b.s1, &b.s2, &mut b.sorted)?);
        }
        Ok(match kind {
            Kind::Pod => {
                let punct = self.punct(row)?;
                lepod::pod(&b.s1, &b.s2, &b.links, &punct, &mut b.scratch)?
            }
            Kind::Led | Kind::Problem => {
                lepod::led_aligned(&b.s1, &b.s2, &b.links, &mut b.scratch)?
            }
            Kind::Both => unreachable!("lepod is scored by led_and_pod"),
        })
    }

    fn led_and_pod(&self, row: usize, b: &mut Buffers<'a>) -> Result<(f64, f64), Problem> {
        let linked = self.decode(row, b)?;
        debug_assert!(linked, "lepod's signature requires links");
        let punct = self.punct(row)?;
        Ok(lepod::led_and_pod(
            &b.s1,
            &b.s2,
            &b.links,
            &punct,
            &mut b.scratch,
        )?)
    }

    /// The punctuation set of `row`: the literal's, parsed once, or the row's own.
    fn punct(&self, row: usize) -> Result<Cow<'_, Punctuation>, Problem> {
        match (&self.constant_punct, &self.punct) {
            (Some(p), _) => Ok(Cow::Borrowed(p)),
            (None, Some(arg)) => {
                let chars = arg.get(row).ok_or(RowProblem::NullArgument("punct"))?;
                Ok(Cow::Owned(Punctuation::new(chars)))
            }
            (None, None) => unreachable!("punct is constant when absent"),
        }
    }
}
