//! OpusFilter 3.3.1's deterministic filters as SQL functions, each giving the score OpusFilter
//! writes for a segment or a pair; its `accept` is a comparison a user writes in `WHERE` (each
//! function's documentation gives it). Thin adapters around `clean::opusfilter`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, BooleanBuilder, Float64Builder, Int64Builder,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{BoolArg, IntArg, Shapes, TextArg, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::clean::html;
use crate::clean::opusfilter::{self as of, Repetition, Unit};
use crate::clean::regexp::PyRegex;
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Length,
    LengthRatio,
    LongestWord,
    AverageWordLength,
    AlphabetRatio,
    CharacterScore,
    TerminalPunctuation,
    NonZeroNumerals,
    LongestCommonSubstring,
    Similarity,
    Repetitions,
    RegexSearch,
    HtmlTag,
}

pub const ALL: [Kind; 13] = [
    Kind::Length,
    Kind::LengthRatio,
    Kind::LongestWord,
    Kind::AverageWordLength,
    Kind::AlphabetRatio,
    Kind::CharacterScore,
    Kind::TerminalPunctuation,
    Kind::NonZeroNumerals,
    Kind::LongestCommonSubstring,
    Kind::Similarity,
    Kind::Repetitions,
    Kind::RegexSearch,
    Kind::HtmlTag,
];

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CleanUdf {
    kind: Kind,
    signature: Signature,
}

impl CleanUdf {
    pub fn new(kind: Kind) -> Self {
        CleanUdf {
            kind,
            signature: signature(shapes(kind)),
        }
    }
}

const TEXT: (&str, ColumnType) = ("text", ColumnType::Text);
const SRC: (&str, ColumnType) = ("src", ColumnType::Text);
const TGT: (&str, ColumnType) = ("tgt", ColumnType::Text);
const UNIT: (&str, ColumnType) = ("unit", ColumnType::Text);

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::Length => &[&[TEXT], &[TEXT, UNIT]],
        Kind::LengthRatio => &[&[SRC, TGT], &[SRC, TGT, UNIT]],
        Kind::LongestWord | Kind::AverageWordLength | Kind::HtmlTag => &[&[TEXT]],
        Kind::AlphabetRatio => &[&[TEXT], &[TEXT, ("exclude_whitespace", ColumnType::Bool)]],
        Kind::CharacterScore => &[&[TEXT, ("script", ColumnType::Text)]],
        Kind::TerminalPunctuation | Kind::NonZeroNumerals | Kind::LongestCommonSubstring => {
            &[&[SRC, TGT]]
        }
        Kind::Similarity => &[
            &[SRC, TGT],
            &[SRC, TGT, UNIT],
            &[SRC, TGT, UNIT, ("lowercase", ColumnType::Bool)],
            &[
                SRC,
                TGT,
                UNIT,
                ("lowercase", ColumnType::Bool),
                ("insertion", ColumnType::Int),
                ("deletion", ColumnType::Int),
                ("substitution", ColumnType::Int),
            ],
        ],
        Kind::RegexSearch => &[&[TEXT, ("pattern", ColumnType::Text)]],
        Kind::Repetitions => &[
            &[TEXT],
            &[TEXT, ("threshold", ColumnType::Int)],
            &[
                TEXT,
                ("threshold", ColumnType::Int),
                ("min_length", ColumnType::Int),
                ("max_length", ColumnType::Int),
            ],
        ],
    }
}

fn doc(
    description: &str,
    syntax: &str,
    arguments: &[(&str, &str)],
    example: &str,
) -> Documentation {
    let mut builder = Documentation::builder(DOC_SECTION, description, syntax);
    for (name, what) in arguments {
        builder = builder.with_argument(*name, *what);
    }
    builder.with_sql_example(example).build()
}

const TEXT_DOC: (&str, &str) = ("text", "A segment: a string. NULL gives NULL.");
const SRC_DOC: (&str, &str) = ("src", "The first segment of the pair. NULL gives NULL.");
const TGT_DOC: (&str, &str) = ("tgt", "The second segment. NULL gives NULL.");
const UNIT_DOC: (&str, &str) = (
    "unit",
    "'word' (the default: Python's str.split() words) or 'char' (code points).",
);

static DOCS: LazyLock<Vec<(Kind, Documentation)>> = LazyLock::new(|| {
    vec![
        (
            Kind::Length,
            doc(
                "OpusFilter's LengthFilter score of one segment: its length in words (Python's \
             str.split()) or characters. OpusFilter accepts a pair when every side is within \
             [min_length, max_length] (defaults 1 and 100).",
                "segment_length(text [, unit])",
                &[TEXT_DOC, UNIT_DOC],
                "SELECT count(*) FROM pairs WHERE segment_length(src_text) BETWEEN 1 AND 100 AND segment_length(tgt_text) BETWEEN 1 AND 100;",
            ),
        ),
        (
            Kind::LengthRatio,
            doc(
                "OpusFilter's LengthRatioFilter score: the longer side's length over the shorter's, in \
             words or characters; 0 when both are empty, Infinity when one is. OpusFilter accepts \
             a pair when the score is below its threshold (default 3).",
                "length_ratio(src, tgt [, unit])",
                &[SRC_DOC, TGT_DOC, UNIT_DOC],
                "SELECT count(*) FROM pairs WHERE length_ratio(src_text, tgt_text, 'word') < 3;",
            ),
        ),
        (
            Kind::LongestWord,
            doc(
                "OpusFilter's LongWordFilter score of one segment: its longest word's length in code \
             points (0 without words). OpusFilter accepts when every side is below its threshold \
             (default 40).",
                "longest_word(text)",
                &[TEXT_DOC],
                "SELECT max(longest_word(src_text)) FROM pairs;",
            ),
        ),
        (
            Kind::AverageWordLength,
            doc(
                "OpusFilter's AverageWordLengthFilter score of one segment: code points of its words \
             over their number (0 without words). Accepted within [min_length, max_length] \
             (defaults 2 and 20) on every side, or with pass_empty when all sides score 0.",
                "average_word_length(text)",
                &[TEXT_DOC],
                "SELECT avg(average_word_length(tgt_text)) FROM pairs;",
            ),
        ),
        (
            Kind::AlphabetRatio,
            doc(
                "OpusFilter's AlphabetRatioFilter score of one segment: the share of its characters \
             that are Alphabetic (the Unicode property), whitespace left out when asked; 1 for an \
             empty segment. Accepted when every side is at least its threshold (default 0.75).",
                "alphabet_ratio(text [, exclude_whitespace])",
                &[
                    TEXT_DOC,
                    (
                        "exclude_whitespace",
                        "Leave out whitespace (the regex module's \\s) first (default false).",
                    ),
                ],
                "SELECT count(*) FROM pairs WHERE alphabet_ratio(src_text) >= 0.75 AND alphabet_ratio(tgt_text) >= 0.75;",
            ),
        ),
        (
            Kind::CharacterScore,
            doc(
                "OpusFilter's CharacterScoreFilter score of one segment: the share of its alphabetic \
             characters in the script (the Script property, not Script_Extensions); 1 without \
             alphabetic characters. Accepted when every side is at least its threshold (default \
             1).",
                "character_score(text, script)",
                &[
                    TEXT_DOC,
                    (
                        "script",
                        "A Unicode script: Latin, Cyrillic, Han, Arabic, ... (long or short name).",
                    ),
                ],
                "SELECT count(*) FROM pairs WHERE character_score(src_text, 'Latin') >= 1 AND character_score(tgt_text, 'Latin') >= 1;",
            ),
        ),
        (
            Kind::TerminalPunctuation,
            doc(
                "OpusFilter's TerminalPunctuationFilter score of a pair: -ln(1 + |s - t| + (s - 1 if \
             s > 1) + (t - 1 if t > 1)) for the counts s and t of . ? ! and … on each side. \
             Accepted when at least the threshold (default -2).",
                "terminal_punctuation(src, tgt)",
                &[SRC_DOC, TGT_DOC],
                "SELECT count(*) FROM pairs WHERE terminal_punctuation(src_text, tgt_text) >= -2;",
            ),
        ),
        (
            Kind::NonZeroNumerals,
            doc(
                "OpusFilter's NonZeroNumeralsFilter score of a pair: difflib.SequenceMatcher's ratio \
             between the two sides' sequences of the digits 1-9 (ASCII digits only, as \
             string.digits; autojunk as difflib); 1 when neither has any. Accepted when at least \
             the threshold (default 0.5).",
                "non_zero_numerals(src, tgt)",
                &[SRC_DOC, TGT_DOC],
                "SELECT count(*) FROM pairs WHERE non_zero_numerals(src_text, tgt_text) >= 0.5;",
            ),
        ),
        (
            Kind::LongestCommonSubstring,
            doc(
                "OpusFilter's LongestCommonSubstringFilter score of a pair: the longest common \
             substring difflib.SequenceMatcher finds (find_longest_match, autojunk and all) over \
             the shorter side's length in code points; 0 when a side is empty. Accepted when \
             below the threshold (default 0.9).",
                "longest_common_substring(src, tgt)",
                &[SRC_DOC, TGT_DOC],
                "SELECT count(*) FROM pairs WHERE longest_common_substring(src_text, tgt_text) < 0.9;",
            ),
        ),
        (
            Kind::Similarity,
            doc(
                "OpusFilter's SimilarityFilter score of a pair: rapidfuzz's \
             Levenshtein.normalized_similarity over characters or words, with weights \
             (insertion, deletion, substitution), both sides lowercased first when asked \
             (Python's str.lower()). Accepted when below the threshold (default 0.9).",
                "levenshtein_similarity(src, tgt [, unit [, lowercase [, insertion, deletion, substitution]]])",
                &[
                    SRC_DOC,
                    TGT_DOC,
                    ("unit", "'char' (the default: code points) or 'word'."),
                    ("lowercase", "Lowercase both sides first (default false)."),
                    ("insertion", "The cost of an insertion (default 1)."),
                    ("deletion", "The cost of a deletion (default 1)."),
                    ("substitution", "The cost of a substitution (default 1)."),
                ],
                "SELECT count(*) FROM pairs WHERE levenshtein_similarity(src_text, tgt_text) < 0.9;",
            ),
        ),
        (
            Kind::Repetitions,
            doc(
                "OpusFilter's RepetitionFilter count for one segment: the first substring of \
             min_length to max_length + 1 characters (not starting with whitespace) repeated at \
             least threshold more times with only spaces between, as its regex \
             (\\S.{min-1,max}?)(?: *\\1){threshold,} finds it, and how many times it repeats \
             (non-overlapping occurrences in the match, minus one); 0 without one. OpusFilter's \
             score is the larger of the two sides', accepted when below the threshold.",
                "repetitions(text [, threshold [, min_length, max_length]])",
                &[
                    TEXT_DOC,
                    ("threshold", "Repeats needed after the first (default 2)."),
                    (
                        "min_length",
                        "The shortest repeated substring, in characters (default 3).",
                    ),
                    ("max_length", "The longest, minus one (default 100)."),
                ],
                "SELECT count(*) FROM pairs WHERE greatest(repetitions(src_text), repetitions(tgt_text)) < 2;",
            ),
        ),
        (
            Kind::HtmlTag,
            doc(
                "Whether BeautifulSoup finds an HTML tag in the segment, as OpusFilter's \
             HtmlTagFilter asks it (bool(BeautifulSoup(text, 'html.parser').find()), bs4 4.15 \
             on CPython 3.11's html.parser): a start or self-closing tag the tokenizer accepts, \
             broken ones included as it reads them (<a href='x'>broken is a tag, x < y is not, \
             a tag inside a comment is not); markup html.parser rejects (an unknown <![keyword \
             section) counts as no tag, as OpusFilter counts it. OpusFilter rejects a pair when \
             any side has one.",
                "has_html_tag(text)",
                &[TEXT_DOC],
                "SELECT count(*) FROM pairs WHERE NOT has_html_tag(src_text) AND NOT has_html_tag(tgt_text);",
            ),
        ),
        (
            Kind::RegexSearch,
            doc(
                "Whether the pattern matches anywhere in the segment, as Python's regex module \
             finds it (regex.search(pattern, text)): OpusFilter's RegExpFilter score for one \
             side. Backreferences and lookaround work; POSIX classes are the regex module's \
             Unicode ones ([[:alpha:]] Alphabetic, [[:upper:]] Uppercase, [[:lower:]] \
             Lowercase, [[:space:]] White_Space; [[:digit:]] ASCII); \\Z is the end of the \
             text. A pattern whose meaning would differ from the regex module's (other POSIX \
             classes, the ASCII and locale flags) is an error naming it. OpusFilter rejects a \
             pair when any side matches (accept_match false, its default), or keeps it only \
             when every side matches (accept_match true).",
                "regex_search(text, pattern)",
                &[
                    TEXT_DOC,
                    ("pattern", "A pattern in the regex module's syntax."),
                ],
                "SELECT count(*) FROM pairs WHERE NOT regex_search(src_text, '<[^>]+>') AND NOT regex_search(tgt_text, '<[^>]+>');",
            ),
        ),
    ]
});

impl ScalarUDFImpl for CleanUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Length => expr::SEGMENT_LENGTH,
            Kind::LengthRatio => expr::LENGTH_RATIO,
            Kind::LongestWord => expr::LONGEST_WORD,
            Kind::AverageWordLength => expr::AVERAGE_WORD_LENGTH,
            Kind::AlphabetRatio => expr::ALPHABET_RATIO,
            Kind::CharacterScore => expr::CHARACTER_SCORE,
            Kind::TerminalPunctuation => expr::TERMINAL_PUNCTUATION,
            Kind::NonZeroNumerals => expr::NON_ZERO_NUMERALS,
            Kind::LongestCommonSubstring => expr::LONGEST_COMMON_SUBSTRING,
            Kind::Similarity => expr::LEVENSHTEIN_SIMILARITY,
            Kind::Repetitions => expr::REPETITIONS,
            Kind::RegexSearch => expr::REGEX_SEARCH,
            Kind::HtmlTag => expr::HAS_HTML_TAG,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Length | Kind::LongestWord | Kind::Repetitions => DataType::Int64,
            Kind::RegexSearch | Kind::HtmlTag => DataType::Boolean,
            _ => DataType::Float64,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = |k: usize| TextArg::new(&args.args[k], &arrays[k]);
        let first = text(0)?;
        let second = match self.kind {
            Kind::LengthRatio
            | Kind::TerminalPunctuation
            | Kind::NonZeroNumerals
            | Kind::LongestCommonSubstring
            | Kind::Similarity => Some(text(1)?),
            _ => None,
        };
        let bad = |e: String| DataFusionError::Execution(format!("{}: {e}", self.name()));
        let out: ArrayRef = match self.kind {
            Kind::RegexSearch => {
                let patterns = text(1)?;
                let mut compiled: Option<(String, PyRegex)> = None;
                let mut out = BooleanBuilder::with_capacity(rows);
                for i in 0..rows {
                    let (Some(s), Some(pattern)) = (first.get(i), patterns.get(i)) else {
                        out.append_null();
                        continue;
                    };
                    if compiled.as_ref().is_none_or(|(p, _)| p != pattern) {
                        compiled = Some((pattern.to_string(), PyRegex::new(pattern).map_err(bad)?));
                    }
                    let regex = &compiled.as_ref().expect("compiled").1;
                    out.append_value(regex.search(s).map_err(bad)?);
                }
                Arc::new(out.finish())
            }
            Kind::HtmlTag => Arc::new(
                (0..rows)
                    .map(|i| first.get(i).map(html::has_tag))
                    .collect::<BooleanArray>(),
            ),
            Kind::Length | Kind::LongestWord | Kind::Repetitions => {
                let units = match self.kind {
                    Kind::Length => args.args.get(1).map(|_| text(1)).transpose()?,
                    _ => None,
                };
                let ints: Vec<IntArg> = match self.kind {
                    Kind::Repetitions => args.args[1..]
                        .iter()
                        .map(IntArg::new)
                        .collect::<Result<_>>()?,
                    _ => Vec::new(),
                };
                let mut out = Int64Builder::with_capacity(rows);
                for i in 0..rows {
                    let Some(segment) = first.get(i) else {
                        out.append_null();
                        continue;
                    };
                    let value = match self.kind {
                        Kind::Length => {
                            let unit = match units.as_ref().map(|u| u.get(i)) {
                                None => Unit::Word,
                                Some(None) => {
                                    out.append_null();
                                    continue;
                                }
                                Some(Some(name)) => Unit::parse(name).map_err(bad)?,
                            };
                            of::length(segment, unit)
                        }
                        Kind::LongestWord => of::longest_word(segment),
                        _ => {
                            let defaults = Repetition::default();
                            let get = |k: usize, default: usize| -> Result<Option<usize>> {
                                match ints.get(k) {
                                    None => Ok(Some(default)),
                                    Some(arg) => arg
                                        .get(i)
                                        .map(|v| {
                                            usize::try_from(v)
                                                .map_err(|_| bad(format!("{v} is negative")))
                                        })
                                        .transpose(),
                                }
                            };
                            let (Some(threshold), Some(min_length), Some(max_length)) = (
                                get(0, defaults.threshold)?,
                                get(1, defaults.min_length)?,
                                get(2, defaults.max_length)?,
                            ) else {
                                out.append_null();
                                continue;
                            };
                            if min_length < 1 || threshold < 1 {
                                return Err(bad(
                                    "threshold and min_length must be at least 1, as in OpusFilter"
                                        .into(),
                                ));
                            }
                            Repetition {
                                threshold,
                                min_length,
                                max_length,
                            }
                            .repetitions(segment)
                        }
                    };
                    out.append_value(value as i64);
                }
                Arc::new(out.finish())
            }
            _ => {
                let extra_text = |k: usize| args.args.get(k).map(|_| text(k)).transpose();
                let mut out = Float64Builder::with_capacity(rows);
                match self.kind {
                    Kind::LengthRatio => {
                        let (second, units) = (second.expect("a pair"), extra_text(2)?);
                        for i in 0..rows {
                            let unit = match units.as_ref().map(|u| u.get(i)) {
                                None => Some(Unit::Word),
                                Some(None) => None,
                                Some(Some(name)) => Some(Unit::parse(name).map_err(bad)?),
                            };
                            out.append_option(match (first.get(i), second.get(i), unit) {
                                (Some(a), Some(b), Some(unit)) => {
                                    Some(of::length_ratio(&[unit.length(a), unit.length(b)]))
                                }
                                _ => None,
                            });
                        }
                    }
                    Kind::AverageWordLength => {
                        for i in 0..rows {
                            out.append_option(first.get(i).map(of::average_word_length));
                        }
                    }
                    Kind::AlphabetRatio => {
                        let exclude = args.args.get(1).map(BoolArg::new).transpose()?;
                        for i in 0..rows {
                            let flag = exclude.as_ref().map_or(Some(false), |e| e.get(i));
                            out.append_option(match (first.get(i), flag) {
                                (Some(s), Some(flag)) => Some(of::alphabet_ratio(s, flag)),
                                _ => None,
                            });
                        }
                    }
                    Kind::CharacterScore => {
                        let scripts = text(1)?;
                        let mut parsed: Option<(String, of::Script)> = None;
                        for i in 0..rows {
                            let (Some(s), Some(name)) = (first.get(i), scripts.get(i)) else {
                                out.append_null();
                                continue;
                            };
                            if parsed.as_ref().is_none_or(|(n, _)| n != name) {
                                parsed =
                                    Some((name.to_string(), of::parse_script(name).map_err(bad)?));
                            }
                            let script = parsed.as_ref().expect("parsed").1;
                            out.append_value(of::character_score(s, script));
                        }
                    }
                    Kind::Similarity => {
                        let second = second.expect("a pair");
                        let units = extra_text(2)?;
                        let lowercase = args.args.get(3).map(BoolArg::new).transpose()?;
                        let weights: Vec<IntArg> = args
                            .args
                            .iter()
                            .skip(4)
                            .map(IntArg::new)
                            .collect::<Result<_>>()?;
                        for i in 0..rows {
                            let unit = match units.as_ref().map(|u| u.get(i)) {
                                None => Some(Unit::Char),
                                Some(None) => None,
                                Some(Some(name)) => Some(Unit::parse(name).map_err(bad)?),
                            };
                            let lower = lowercase.as_ref().map_or(Some(false), |l| l.get(i));
                            let mut w = [1u64; 3];
                            let mut null = false;
                            for (k, arg) in weights.iter().enumerate() {
                                match arg.get(i) {
                                    Some(v) if v >= 0 => w[k] = v as u64,
                                    Some(v) => return Err(bad(format!("weight {v} is negative"))),
                                    None => null = true,
                                }
                            }
                            out.append_option(
                                match (first.get(i), second.get(i), unit, lower, null) {
                                    (Some(a), Some(b), Some(unit), Some(lower), false) => {
                                        Some(of::similarity(a, b, unit, lower, (w[0], w[1], w[2])))
                                    }
                                    _ => None,
                                },
                            );
                        }
                    }
                    _ => {
                        let second = second.expect("a pair");
                        let score = match self.kind {
                            Kind::TerminalPunctuation => of::terminal_punctuation,
                            Kind::NonZeroNumerals => of::non_zero_numerals,
                            _ => of::longest_common_substring,
                        };
                        for i in 0..rows {
                            out.append_option(match (first.get(i), second.get(i)) {
                                (Some(a), Some(b)) => Some(score(a, b)),
                                _ => None,
                            });
                        }
                    }
                }
                Arc::new(out.finish())
            }
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        DOCS.iter().find(|(k, _)| *k == self.kind).map(|(_, d)| d)
    }
}
