//! `dep_fit`, `dep_fit_pos`, their IUCL-code variants, `dep_fit_problem` and `dep_triples`:
//! thin adapters from Arrow columns to `metrics::dep_fit`, over the session's triple counts.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, Float64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{IntArg, Problem, Shapes, checked_arguments, problem_column, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{HeadLists, RowProblem, TokenLists};
use crate::pair::dep_fit::{FitProblem, Formula, Parse, TripleCounts, TripleIndex, dep_fit};
use crate::resources::Shared;
use crate::resources::{MissingResource, Resource};
use crate::schema::ColumnType;

/// Which counts a fitness uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Form,
    Upos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Fit(Level, Formula),
    Problem,
    Triples,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DepFitUdf {
    kind: Kind,
    triples: Shared<TripleIndex>,
    signature: Signature,
}

impl DepFitUdf {
    pub fn new(kind: Kind, triples: Shared<TripleIndex>) -> Self {
        DepFitUdf {
            kind,
            triples,
            signature: signature(shapes(kind)),
        }
    }
}

const PHRASE_SHAPES: Shapes = &[
    &[
        ("tokens", ColumnType::Tokens),
        ("head", ColumnType::Heads),
        ("deprel", ColumnType::Labels),
        ("start", ColumnType::Int),
        ("len", ColumnType::Int),
    ],
    &[
        ("tokens", ColumnType::Tokens),
        ("head", ColumnType::Heads),
        ("deprel", ColumnType::Labels),
        ("positions", ColumnType::Positions),
    ],
];
const POS_SHAPES: Shapes = &[
    &[
        ("upos", ColumnType::Tokens),
        ("head", ColumnType::Heads),
        ("deprel", ColumnType::Labels),
        ("start", ColumnType::Int),
        ("len", ColumnType::Int),
    ],
    &[
        ("upos", ColumnType::Tokens),
        ("head", ColumnType::Heads),
        ("deprel", ColumnType::Labels),
        ("positions", ColumnType::Positions),
    ],
];
const TRIPLE_SHAPES: Shapes = &[&[
    ("tokens", ColumnType::Tokens),
    ("head", ColumnType::Heads),
    ("deprel", ColumnType::Labels),
]];

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::Fit(Level::Upos, _) => POS_SHAPES,
        Kind::Fit(Level::Form, _) | Kind::Problem => PHRASE_SHAPES,
        Kind::Triples => TRIPLE_SHAPES,
    }
}

const FORMULA: &str = "SIM(h,d,l) = 2 c(h,d,l) / (c(h,*,l) + c(*,d,l)); FIT(token) = mean SIM over \
    the token's arcs (its head arc unless it is a root, and its dependents' arcs); FIT(phrase) = \
    mean FIT over the phrase's tokens that have an arc";
const PHRASE: &str = "The phrase is tokens[start, start + len) (0-based) or the given positions, \
    which need not be contiguous.";
const IUCL: &str = "As the IUCL system's code computes it: no factor 2 in SIM, and the mean SIM over \
    the distinct (head, dep, deprel) arcs touching the phrase.";

fn fit_doc(name: &str, description: String, level: &str) -> Documentation {
    let syntax = format!(
        "{name}({level}, head, deprel, start, len) or {name}({level}, head, deprel, positions)"
    );
    let words = if level == "upos" {
        "UPOS tags"
    } else {
        "Word forms"
    };
    Documentation::builder(DOC_SECTION, description, syntax)
        .with_argument(level, format!("{words} of the sentence: a list of strings."))
        .with_argument("head", "Heads: List<Int32>, 1-based, 0 = root.")
        .with_argument("deprel", "Dependency relation of each token to its head.")
        .with_argument("start, len", "The phrase: first position (0-based) and length.")
        .with_argument("positions", "Or the phrase's positions: List<Int32>, 0-based.")
        .with_sql_example(format!(
            "SELECT {name}(src, a.src_head, a.src_deprel, 1, 2) FROM pairs p JOIN arcs a USING (pair_id);"
        ))
        .with_related_udf(expr::DEP_FIT_PROBLEM)
        .with_related_udf(expr::DEP_TRIPLES)
        .build()
}

static DOCS: LazyLock<[Documentation; 6]> = LazyLock::new(|| {
    let null = "NULL for a malformed parse or phrase (dep_fit_problem says why). Needs the session's triples table.";
    [
        fit_doc(
            "dep_fit",
            format!(
                "Dependency fitness of a phrase in its sentence (IUCL, SemEval-2014 Task 5) from \
                 the session's word-form triple counts: {FORMULA}. {PHRASE} {null}"
            ),
            "tokens",
        ),
        fit_doc(
            "dep_fit_pos",
            format!("As dep_fit over the UPOS-level counts (the paper's back-off): {FORMULA}. {PHRASE} {null}"),
            "upos",
        ),
        fit_doc("dep_fit_iucl", format!("dep_fit {IUCL} {PHRASE} {null}"), "tokens"),
        fit_doc("dep_fit_pos_iucl", format!("dep_fit_pos {IUCL} {PHRASE} {null}"), "upos"),
        Documentation::builder(
            DOC_SECTION,
            "Why dep_fit (and its variants) give NULL for a row, or NULL when they give a value: a \
             NULL argument, lists of different lengths, a head out of range, a phrase outside the \
             sentence or empty, or no arc on the phrase. Needs no triple counts.",
            "dep_fit_problem(tokens, head, deprel, start, len) or dep_fit_problem(tokens, head, deprel, positions)",
        )
        .with_argument("tokens, head, deprel", "As for dep_fit.")
        .with_argument("start, len | positions", "As for dep_fit.")
        .with_related_udf(expr::DEP_FIT)
        .build(),
        Documentation::builder(
            DOC_SECTION,
            "The dependency arcs of a parsed sentence as (head, dep, deprel) triples of strings, \
             root arcs left out: List<Struct<head Utf8, dep Utf8, deprel Utf8>>. NULL for a \
             malformed parse. `pairmetrics triples` counts them over a corpus.",
            "dep_triples(tokens, head, deprel)",
        )
        .with_argument("tokens", "Forms (or UPOS tags) of the sentence.")
        .with_argument("head", "Heads: List<Int32>, 1-based, 0 = root.")
        .with_argument("deprel", "Dependency relation of each token.")
        .with_sql_example(
            "SELECT t['head'], t['dep'], t['deprel'], count(*) FROM (SELECT unnest(dep_triples(src, \
             a.src_head, a.src_deprel)) AS t FROM pairs p JOIN arcs a USING (pair_id)) GROUP BY 1, 2, 3;",
        )
        .build(),
    ]
});

pub fn triple_fields() -> Fields {
    Fields::from(vec![
        Field::new("head", DataType::Utf8, false),
        Field::new("dep", DataType::Utf8, false),
        Field::new("deprel", DataType::Utf8, false),
    ])
}

impl ScalarUDFImpl for DepFitUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Fit(Level::Form, Formula::Paper) => expr::DEP_FIT,
            Kind::Fit(Level::Upos, Formula::Paper) => expr::DEP_FIT_POS,
            Kind::Fit(Level::Form, Formula::Iucl) => expr::DEP_FIT_IUCL,
            Kind::Fit(Level::Upos, Formula::Iucl) => expr::DEP_FIT_POS_IUCL,
            Kind::Problem => expr::DEP_FIT_PROBLEM,
            Kind::Triples => expr::DEP_TRIPLES,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Fit(..) if self.triples.is_missing() => {
                return Err(MissingResource::error(self.name(), Resource::Triples));
            }
            Kind::Fit(..) => DataType::Float64,
            Kind::Problem => DataType::Utf8,
            Kind::Triples => DataType::List(
                Field::new_list_field(DataType::Struct(triple_fields()), true).into(),
            ),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let sentences = Sentences::new(&arrays)?;
        let output: ArrayRef = match self.kind {
            Kind::Fit(level, formula) => {
                let triples = self
                    .triples
                    .get()
                    .expect("return_type refuses a session without triples");
                let counts = match level {
                    Level::Form => &triples.form,
                    Level::Upos => &triples.upos,
                };
                let phrase = PhraseArg::new(&args.args, &arrays)?;
                let mut out = Float64Builder::with_capacity(rows);
                let mut scratch = RowScratch::default();
                for row in 0..rows {
                    out.append_option(
                        fit_row(&sentences, &phrase, row, counts, formula, &mut scratch).ok(),
                    );
                }
                Arc::new(out.finish())
            }
            Kind::Problem => {
                let phrase = PhraseArg::new(&args.args, &arrays)?;
                let empty = TripleCounts::default();
                let mut scratch = RowScratch::default();
                problem_column(rows, |row| {
                    fit_row(
                        &sentences,
                        &phrase,
                        row,
                        &empty,
                        Formula::Paper,
                        &mut scratch,
                    )
                })
            }
            Kind::Triples => triples_array(&sentences, rows),
        };
        Ok(ColumnarValue::Array(output))
    }

    fn documentation(&self) -> Option<&Documentation> {
        let i = match self.kind {
            Kind::Fit(Level::Form, Formula::Paper) => 0,
            Kind::Fit(Level::Upos, Formula::Paper) => 1,
            Kind::Fit(Level::Form, Formula::Iucl) => 2,
            Kind::Fit(Level::Upos, Formula::Iucl) => 3,
            Kind::Problem => 4,
            Kind::Triples => 5,
        };
        Some(&DOCS[i])
    }
}

/// The three sentence columns every function here takes first.
struct Sentences<'a> {
    words: TokenLists<'a>,
    heads: HeadLists,
    deprels: TokenLists<'a>,
}

impl<'a> Sentences<'a> {
    fn new(arrays: &'a [ArrayRef]) -> Result<Self> {
        Ok(Sentences {
            words: TokenLists::new("tokens", &arrays[0])?,
            heads: HeadLists::new("head", &arrays[1])?,
            deprels: TokenLists::new("deprel", &arrays[2])?,
        })
    }
}

/// The phrase: (start, len) or a positions column.
enum PhraseArg {
    Span(IntArg, IntArg),
    Positions(HeadLists),
}

impl PhraseArg {
    fn new(values: &[ColumnarValue], arrays: &[ArrayRef]) -> Result<Self> {
        Ok(if values.len() == 5 {
            PhraseArg::Span(IntArg::new(&values[3])?, IntArg::new(&values[4])?)
        } else {
            PhraseArg::Positions(HeadLists::new("positions", &arrays[3])?)
        })
    }
}

#[derive(Default)]
struct RowScratch<'a> {
    words: Vec<&'a str>,
    deprels: Vec<&'a str>,
    phrase: Vec<usize>,
}

type RowResult = std::result::Result<f64, Problem<FitProblem>>;

fn fit_row<'a>(
    sentences: &Sentences<'a>,
    phrase_arg: &PhraseArg,
    row: usize,
    counts: &TripleCounts,
    formula: Formula,
    s: &mut RowScratch<'a>,
) -> RowResult {
    sentences.words.row(row, &mut s.words)?;
    let heads = sentences.heads.row(row)?;
    sentences.deprels.row(row, &mut s.deprels)?;
    let parse = Parse {
        words: &s.words,
        heads,
        deprels: &s.deprels,
    };
    parse.check().map_err(Problem::Metric)?;
    match phrase_arg {
        PhraseArg::Span(start, len) => {
            let start = start.get(row).ok_or(RowProblem::NullArgument("start"))?;
            let len = len.get(row).ok_or(RowProblem::NullArgument("len"))?;
            let end = start.saturating_add(len.max(0));
            parse
                .phrase(start..end, &mut s.phrase)
                .map_err(Problem::Metric)?;
        }
        PhraseArg::Positions(positions) => {
            let positions = positions.row(row)?;
            parse
                .phrase(positions.iter().map(|&p| p as i64), &mut s.phrase)
                .map_err(Problem::Metric)?;
        }
    }
    dep_fit(counts, &parse, &s.phrase, formula).map_err(Problem::Metric)
}

fn triples_array(sentences: &Sentences, rows: usize) -> ArrayRef {
    let fields = triple_fields();
    let builders: Vec<Box<dyn datafusion::arrow::array::ArrayBuilder>> = (0..3)
        .map(|_| Box::new(StringBuilder::new()) as _)
        .collect();
    let mut out =
        ListBuilder::with_capacity(StructBuilder::new(fields.clone(), builders), rows).with_field(
            Arc::new(Field::new_list_field(DataType::Struct(fields), true)),
        );
    let (mut words, mut deprels) = (Vec::new(), Vec::new());
    for row in 0..rows {
        let parse = (|| -> Option<&[i32]> {
            sentences.words.row(row, &mut words).ok()?;
            sentences.deprels.row(row, &mut deprels).ok()?;
            sentences.heads.row(row).ok()
        })();
        let Some(heads) = parse else {
            out.append(false);
            continue;
        };
        if (Parse {
            words: &words,
            heads,
            deprels: &deprels,
        })
        .check()
        .is_err()
        {
            out.append(false);
            continue;
        }
        let values = out.values();
        for (dep, &head) in heads.iter().enumerate().filter(|&(_, &h)| h > 0) {
            for (field, text) in [words[head as usize - 1], words[dep], deprels[dep]]
                .into_iter()
                .enumerate()
            {
                values
                    .field_builder::<StringBuilder>(field)
                    .expect("string field")
                    .append_value(text);
            }
            values.append(true);
        }
        out.append(true);
    }
    Arc::new(out.finish())
}
