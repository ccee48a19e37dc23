//! `extract_phrases(src, tgt, links [, max_length])`: the consistent phrase pairs of an aligned
//! sentence pair, as Moses' `extract` finds them; and the two functions `pairmetrics extract`
//! scores them with (not in the catalog: they are bound to the corpus' word translation table).

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, BinaryBuilder, Float64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{IntArg, Problem, Shapes, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{LinkLists, Strings, TokenLists};
use crate::formats::pharaoh;
use crate::kernels::Link;
use crate::schema::ColumnType;
use crate::smt::phrases::{
    Aligned, Direction, ExtractError, Lexicon, MAX_PHRASE_LENGTH, PhraseSpan, alignment_key,
    phrase_alignment,
};
use crate::text::whitespace;

pub const NAME: &str = expr::EXTRACT_PHRASES;
/// Moses' default maximum phrase length.
pub const DEFAULT_MAX_LENGTH: usize = 7;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ExtractPhrasesUdf {
    signature: Signature,
}

impl Default for ExtractPhrasesUdf {
    fn default() -> Self {
        ExtractPhrasesUdf {
            signature: signature(SHAPES),
        }
    }
}

const SHAPES: Shapes = &[
    &[
        ("src", ColumnType::Tokens),
        ("tgt", ColumnType::Tokens),
        ("links", ColumnType::Links),
    ],
    &[
        ("src", ColumnType::Tokens),
        ("tgt", ColumnType::Tokens),
        ("links", ColumnType::Links),
        ("max_length", ColumnType::Int),
    ],
];

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The phrase pairs consistent with a word alignment, as Moses' `extract` finds them \
         (Koehn et al. 2003): every tgt span of at most max_length tokens with a link, projected \
         onto src; kept when no word inside links outside; the src side then widened over \
         unaligned src words at its edges. Each as {src, tgt, alignment}: the phrases (tokens \
         joined by spaces) and their internal links as Pharaoh text relative to the phrases' \
         starts, ordered by tgt then src as Moses prints them. NULL when an argument is NULL, a \
         link is outside the sentences or a token is empty or holds whitespace. `pairmetrics \
         extract` counts and scores them into a phrase table.",
        "extract_phrases(src, tgt, links [, max_length])",
    )
    .with_argument("src", "Source sentence (Moses' f): a token list.")
    .with_argument("tgt", "Target sentence (Moses' e): a token list.")
    .with_argument("links", "Their alignment: List<Struct<src, tgt>>, 0-based.")
    .with_argument("max_length", "Longest phrase, in tokens, on either side (default 7, at most 255).")
    .with_sql_example(
        "SELECT unnest(extract_phrases(['la', 'maison'], ['the', 'house'], pharaoh('0-0 1-1')));\n\
         -- {src: la, tgt: the, alignment: 0-0}, {src: la maison, tgt: the house, alignment: 0-0 1-1},\n\
         -- {src: maison, tgt: house, alignment: 0-0}",
    )
    .build()
});

/// The fields of one extracted phrase pair.
pub fn phrase_pair_fields() -> Fields {
    Fields::from(vec![
        Field::new("src", DataType::Utf8, false),
        Field::new("tgt", DataType::Utf8, false),
        Field::new("alignment", DataType::Utf8, false),
    ])
}

/// Why a token cannot be part of a phrase table, whose phrases are tokens joined by spaces and
/// split again (by `tokenize` and `import moses-phrase-table`) as Python's `str.split()` does.
fn check_tokens(side: &'static str, tokens: &[&str]) -> std::result::Result<(), ExtractError> {
    match tokens
        .iter()
        .position(|t| t.is_empty() || t.contains(whitespace::is_space))
    {
        Some(index) => Err(ExtractError::BadToken { side, index }),
        None => Ok(()),
    }
}

/// One row's arguments read and checked, indexed into `aligned`: what both `extract_phrases`
/// and `pairmetrics extract`'s word counts read a pair through.
pub fn read_pair<'a>(
    srcs: &TokenLists<'a>,
    tgts: &TokenLists<'a>,
    links: &LinkLists,
    row: usize,
    scratch: &mut PairScratch<'a>,
) -> std::result::Result<(), Problem<ExtractError>> {
    srcs.row(row, &mut scratch.src)?;
    tgts.row(row, &mut scratch.tgt)?;
    links.row(row, &mut scratch.links)?;
    check_tokens("src", &scratch.src).map_err(Problem::Metric)?;
    check_tokens("tgt", &scratch.tgt).map_err(Problem::Metric)?;
    scratch
        .aligned
        .reset(scratch.src.len(), scratch.tgt.len(), &scratch.links)
        .map_err(Problem::Metric)
}

#[derive(Default)]
pub struct PairScratch<'a> {
    pub src: Vec<&'a str>,
    pub tgt: Vec<&'a str>,
    links: Vec<Link>,
    pub aligned: Aligned,
}

impl ScalarUDFImpl for ExtractPhrasesUdf {
    fn name(&self) -> &str {
        NAME
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::List(
            Field::new_list_field(DataType::Struct(phrase_pair_fields()), true).into(),
        ))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let max_length = args.args.get(3).map(IntArg::new).transpose()?;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (srcs, tgts) = (
            TokenLists::new("src", &arrays[0])?,
            TokenLists::new("tgt", &arrays[1])?,
        );
        let links = LinkLists::new(&arrays[2])?;
        let fields = phrase_pair_fields();
        let builders: Vec<Box<dyn datafusion::arrow::array::ArrayBuilder>> = (0..3)
            .map(|_| Box::new(StringBuilder::new()) as _)
            .collect();
        let mut out =
            ListBuilder::with_capacity(StructBuilder::new(fields.clone(), builders), rows)
                .with_field(Arc::new(Field::new_list_field(
                    DataType::Struct(fields),
                    true,
                )));
        let mut scratch = PairScratch::default();
        let (mut spans, mut internal, mut text) =
            (Vec::<PhraseSpan>::new(), Vec::<Link>::new(), String::new());
        for row in 0..rows {
            // No argument: the default; a NULL argument: a NULL row.
            let max = match max_length
                .as_ref()
                .map_or(Some(DEFAULT_MAX_LENGTH as i64), |m| m.get(row))
            {
                None => None,
                Some(m) if (1..=MAX_PHRASE_LENGTH as i64).contains(&m) => Some(m as usize),
                Some(m) => {
                    return exec_err!(
                        "{NAME}: max_length must be 1 to {MAX_PHRASE_LENGTH}, not {m}"
                    );
                }
            };
            let Some(max) =
                max.filter(|_| read_pair(&srcs, &tgts, &links, row, &mut scratch).is_ok())
            else {
                out.append(false);
                continue;
            };
            scratch.aligned.extract(max, &mut spans);
            let values = out.values();
            for span in &spans {
                for (field, (tokens, range)) in
                    [(&scratch.src, &span.src), (&scratch.tgt, &span.tgt)]
                        .into_iter()
                        .enumerate()
                {
                    text.clear();
                    for (i, token) in tokens[range.start as usize..range.end as usize]
                        .iter()
                        .enumerate()
                    {
                        if i > 0 {
                            text.push(' ');
                        }
                        text.push_str(token);
                    }
                    values
                        .field_builder::<StringBuilder>(field)
                        .expect("string field")
                        .append_value(&text);
                }
                phrase_alignment(&scratch.aligned, span, &mut internal);
                text.clear();
                pharaoh::write_line(&mut text, &internal);
                values
                    .field_builder::<StringBuilder>(2)
                    .expect("string field")
                    .append_value(&text);
                values.append(true);
            }
            out.append(true);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

/// What `pairmetrics extract` asks of one distinct phrase pair, in one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreKind {
    /// `alignment_order(src, tgt, alignment)`: a Binary key that orders alignments as Moses'
    /// `score` compares them, to pick one where counts tie.
    AlignmentOrder,
    /// `lexical_weight(src, tgt, alignment)`: lex(e|f) or lex(f|e).
    LexicalWeight,
}

/// Both functions over phrases (tokens joined by spaces) and Pharaoh alignment text, for one
/// direction, bound to the corpus' word translation table.
#[derive(Debug)]
pub struct PhraseScoreUdf {
    kind: ScoreKind,
    direction: Direction,
    name: String,
    lexicon: Arc<Lexicon>,
    signature: Signature,
}

impl ScoreKind {
    /// The SQL name of the function of this kind and direction, as `extract`'s queries call
    /// it (the job registers it; it is not one of the session's functions).
    pub fn name(self, direction: Direction) -> &'static str {
        match (self, direction) {
            (ScoreKind::AlignmentOrder, Direction::TgtGivenSrc) => "alignment_order_tgt_given_src",
            (ScoreKind::AlignmentOrder, Direction::SrcGivenTgt) => "alignment_order_src_given_tgt",
            (ScoreKind::LexicalWeight, Direction::TgtGivenSrc) => "lexical_weight_tgt_given_src",
            (ScoreKind::LexicalWeight, Direction::SrcGivenTgt) => "lexical_weight_src_given_tgt",
        }
    }
}

impl PhraseScoreUdf {
    pub fn new(kind: ScoreKind, direction: Direction, lexicon: Arc<Lexicon>) -> Self {
        PhraseScoreUdf {
            kind,
            direction,
            name: kind.name(direction).to_string(),
            lexicon,
            signature: signature(SCORE_SHAPES),
        }
    }
}

impl PartialEq for PhraseScoreUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.lexicon, &other.lexicon)
    }
}

impl Eq for PhraseScoreUdf {}

impl std::hash::Hash for PhraseScoreUdf {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

const SCORE_SHAPES: Shapes = &[&[
    ("src", ColumnType::Text),
    ("tgt", ColumnType::Text),
    ("alignment", ColumnType::Text),
]];

impl ScalarUDFImpl for PhraseScoreUdf {
    fn name(&self) -> &str {
        &self.name
    }

    checked_arguments!(|_| SCORE_SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            ScoreKind::AlignmentOrder => DataType::Binary,
            ScoreKind::LexicalWeight => DataType::Float64,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (srcs, tgts, alignments) = (
            Strings::new(arrays[0].as_ref())?,
            Strings::new(arrays[1].as_ref())?,
            Strings::new(arrays[2].as_ref())?,
        );
        let (mut links, mut key) = (Vec::new(), Vec::new());
        let mut orders = BinaryBuilder::new();
        let mut weights = Float64Builder::with_capacity(rows);
        for row in 0..rows {
            let parsed = (|| {
                let (src, tgt, alignment) = (srcs.get(row)?, tgts.get(row)?, alignments.get(row)?);
                pharaoh::parse_line(alignment, &mut links).ok()?;
                Some((
                    src.split(' ').collect::<Vec<_>>(),
                    tgt.split(' ').collect::<Vec<_>>(),
                ))
            })();
            let Some((src, tgt)) = parsed else {
                orders.append_null();
                weights.append_null();
                continue;
            };
            // Pharaoh text from extract_phrases is sorted by (tgt, src) already; sort anyway.
            links.sort_unstable_by_key(|&(s, t)| (t, s));
            match self.kind {
                ScoreKind::AlignmentOrder => {
                    alignment_key(&links, (src.len(), tgt.len()), self.direction, &mut key);
                    orders.append_value(&key);
                }
                ScoreKind::LexicalWeight => {
                    weights.append_value(self.lexicon.weight(self.direction, &src, &tgt, &links))
                }
            }
        }
        Ok(ColumnarValue::Array(match self.kind {
            ScoreKind::AlignmentOrder => Arc::new(orders.finish()) as ArrayRef,
            ScoreKind::LexicalWeight => Arc::new(weights.finish()) as ArrayRef,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_refused_wherever_tokenize_would_split_it() {
        assert_eq!(check_tokens("src", &["a", "b"]), Ok(()));
        for bad in ["", "a b", "a\u{a0}b", "a\u{1c}b"] {
            assert_eq!(
                check_tokens("tgt", &["a", bad]),
                Err(ExtractError::BadToken {
                    side: "tgt",
                    index: 1
                }),
                "{bad:?}"
            );
        }
    }
}
