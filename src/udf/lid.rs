//! Language identification: `langid` (py3langid 0.4.0, its model built in), `fasttext_lid` and
//! `fasttext_predict` (the session's fastText model), and `language_id_score` (OpusFilter's
//! language-ID filter score). Thin adapters around `lid`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, Float64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, TextArg, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{Strings, TokenLists};
use crate::lid::fasttext::{self, text_tokens};
use crate::lid::filter;
use crate::lid::langid::{self, Identifier};
use crate::lid::langid_legacy;
use crate::lid::lingua::Lingua;
use crate::resources::{MissingResource, Resource, Shared};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Langid,
    Lingua,
    FasttextLid,
    FasttextPredict,
    Score,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LidUdf {
    kind: Kind,
    model: Shared<fasttext::Model>,
    signature: Signature,
}

impl LidUdf {
    pub fn new(kind: Kind, model: Shared<fasttext::Model>) -> Self {
        LidUdf {
            kind,
            model,
            signature: signature(shapes(kind)),
        }
    }
}

const TEXT: (&str, ColumnType) = ("text", ColumnType::Text);

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::Langid | Kind::Lingua => &[&[TEXT], &[TEXT, ("languages", ColumnType::Tokens)]],
        Kind::FasttextLid => &[&[TEXT]],
        Kind::FasttextPredict => &[&[TEXT], &[TEXT, ("k", ColumnType::Int)]],
        Kind::Score => &[
            &[TEXT, ("lang", ColumnType::Text)],
            &[
                TEXT,
                ("lang", ColumnType::Text),
                ("method", ColumnType::Text),
            ],
        ],
    }
}

/// `{lang, prob}`: a language and the identifier's probability.
pub fn guess_fields() -> Fields {
    Fields::from(vec![
        Field::new("lang", DataType::Utf8, false),
        Field::new("prob", DataType::Float64, false),
    ])
}

/// `{label, prob}`: one of fastText's predictions.
pub fn prediction_fields() -> Fields {
    Fields::from(vec![
        Field::new("label", DataType::Utf8, false),
        Field::new("prob", DataType::Float64, false),
    ])
}

fn prediction_list_type() -> DataType {
    DataType::List(Arc::new(Field::new_list_field(
        DataType::Struct(prediction_fields()),
        true,
    )))
}

const TEXT_DOC: &str = "The text: a string. NULL gives NULL.";

static LANGID_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The language of a text and its probability, as py3langid 0.4.0 gives them \
         (LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True).classify(text)), with \
         py3langid's model built in (BSD-3-Clause): Struct{lang (ISO 639 code), prob}. The label \
         is py3langid's; the probability agrees to float32 rounding (py3langid sums through \
         BLAS, whose last bits vary with the CPU). A text with no features (empty, emoji only) \
         gets py3langid's uniform answer. With languages, only those are considered \
         (py3langid's set_languages); an unknown code is an error naming it. NULL text gives \
         NULL.",
        "langid(text [, languages])",
    )
    .with_argument("text", TEXT_DOC)
    .with_argument(
        "languages",
        "Optional: the languages to choose from, a list of py3langid's codes, e.g. ['en', 'fr'].",
    )
    .with_sql_example(
        "SELECT langid(src_text)['lang'] AS lang, count(*) FROM pairs GROUP BY 1 ORDER BY 2 DESC;",
    )
    .with_related_udf(expr::LANGUAGE_ID_SCORE)
    .with_related_udf(expr::FASTTEXT_LID)
    .build()
});

static LINGUA_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The language of a text and lingua's confidence in it, as lingua-py 2.1.1 gives them \
         (LanguageDetectorBuilder.from_all_languages().build().compute_language_confidence_values(text)[0], \
         the same Rust code, lingua 1.7.2, its models built in): Struct{lang (ISO 639-1), prob}. \
         lingua's default high-accuracy mode, strongest on short texts; the confidence's last \
         bits vary from run to run, in lingua-py too (its sums follow hash-map order). NULL for a text in which \
         lingua finds no language (no words: lingua-py then lists every language at 0, in an \
         order that changes from run to run). With languages (ISO 639-1 codes, at \
         least two), only those are considered. NULL text gives NULL.",
        "lingua_lid(text [, languages])",
    )
    .with_argument("text", TEXT_DOC)
    .with_argument(
        "languages",
        "Optional: the languages to choose from, ISO 639-1 codes, e.g. ['en', 'fr'].",
    )
    .with_sql_example("SELECT lingua_lid('Das ist ein Satz.');")
    .with_related_udf(expr::LANGID)
    .build()
});

static FASTTEXT_LID_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The most likely label of a text under the session's fastText model (--fasttext-model; \
         lid.176.ftz or .bin for languages) and its probability, exactly as fastText 0.9.2 \
         predicts it: Struct{lang (the label without __label__), prob}. Newlines in the text read \
         as spaces. NULL for NULL text, and for a text that gives the model no input (a pruned \
         model that knows none of its words and n-grams). Needs the session's fastText model.",
        "fasttext_lid(text)",
    )
    .with_argument("text", TEXT_DOC)
    .with_sql_example(
        "SELECT pair_id FROM pairs WHERE fasttext_lid(src_text)['lang'] <> 'fr' OR fasttext_lid(tgt_text)['prob'] < 0.5;",
    )
    .with_related_udf(expr::FASTTEXT_PREDICT)
    .with_related_udf(expr::LANGID)
    .build()
});

static FASTTEXT_PREDICT_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The k most likely labels of a text under the session's fastText model, best first, as \
         fastText 0.9.2's predict (k = -1: every label; labels under 1e-5 are not reached by \
         hierarchical softmax, as in fastText): List<Struct{label (with its __label__ prefix), \
         prob}>. Newlines in the text read as spaces. NULL for NULL text or k. Needs the \
         session's fastText model.",
        "fasttext_predict(text [, k])",
    )
    .with_argument("text", TEXT_DOC)
    .with_argument("k", "How many labels (default 1; -1 for every label).")
    .with_sql_example("SELECT fasttext_predict(src_text, 3) FROM pairs LIMIT 5;")
    .with_related_udf(expr::FASTTEXT_LID)
    .build()
});

static SCORE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "OpusFilter 3.3.1's language-ID filter score of one side (LanguageIDFilter, \
         LangidFilter, FastTextFilter, LinguaFilter): the identifier's confidence when it finds \
         lang, else 0; 1 for an empty text (OpusFilter keeps empty lines here). method 'langid' \
         (the default): py3langid 0.3.0, which OpusFilter 3.3.1 calls (not langid(), which is \
         0.4.0), its probability rounded to 2 decimals as OpusFilter rounds it; 'fasttext': \
         fasttext_lid(text), unrounded, needs the session's fastText model; 'lingua': lingua in \
         its low accuracy mode (OpusFilter's default lingua_mode), 'lingua_high' in its default \
         high accuracy mode (lingua_lid), both over every language; a text in which lingua finds \
         no language scores 0. OpusFilter accepts a pair when every side scores above its \
         threshold (default 0). NULL for NULL text, lang or method.",
        "language_id_score(text, lang [, method])",
    )
    .with_argument("text", TEXT_DOC)
    .with_argument("lang", "The language the text should be in (the identifier's code).")
    .with_argument(
        "method",
        "Optional: 'langid' (default), 'fasttext', 'lingua' or 'lingua_high'.",
    )
    .with_sql_example(
        "SELECT count(*) FILTER (WHERE language_id_score(src_text, 'fr') > 0 AND language_id_score(tgt_text, 'en') > 0) AS kept FROM pairs;",
    )
    .with_related_udf(expr::LANGID)
    .build()
});

impl ScalarUDFImpl for LidUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Langid => expr::LANGID,
            Kind::Lingua => expr::LINGUA_LID,
            Kind::FasttextLid => expr::FASTTEXT_LID,
            Kind::FasttextPredict => expr::FASTTEXT_PREDICT,
            Kind::Score => expr::LANGUAGE_ID_SCORE,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        let needs_model = matches!(self.kind, Kind::FasttextLid | Kind::FasttextPredict);
        if needs_model && self.model.is_missing() {
            return Err(MissingResource::error(self.name(), Resource::FastText));
        }
        Ok(match self.kind {
            Kind::Langid | Kind::Lingua | Kind::FasttextLid => DataType::Struct(guess_fields()),
            Kind::FasttextPredict => prediction_list_type(),
            Kind::Score => DataType::Float64,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let texts = Strings::new(arrays[0].as_ref())?;
        let rows = args.number_rows;
        let out: ArrayRef = match self.kind {
            Kind::Langid => {
                let languages = arrays
                    .get(1)
                    .map(|a| TokenLists::new("languages", a))
                    .transpose()?;
                langid_column(&texts, languages.as_ref(), rows)?
            }
            Kind::Lingua => {
                let languages = arrays
                    .get(1)
                    .map(|a| TokenLists::new("languages", a))
                    .transpose()?;
                lingua_column(&texts, languages.as_ref(), rows)?
            }
            Kind::FasttextLid => {
                let model = self.model()?;
                let (mut scratch, mut predictions) = (fasttext::Scratch::default(), Vec::new());
                let mut out = guess_builder(rows);
                for i in 0..rows {
                    let best = match texts.get(i) {
                        Some(text) => {
                            predict(model, text, 1, &mut scratch, &mut predictions)?;
                            predictions.first().copied()
                        }
                        None => None,
                    };
                    let label = best.map(|(prob, label)| (unprefixed(model.label(label)), prob));
                    append_guess(
                        &mut out,
                        label.as_ref().map(|(l, p)| (l.as_str(), f64::from(*p))),
                    );
                }
                Arc::new(out.finish())
            }
            Kind::FasttextPredict => {
                let model = self.model()?;
                let ks = arrays.get(1);
                let ks = ks
                    .map(|k| super::args::IntArg::new(&ColumnarValue::Array(k.clone())))
                    .transpose()?;
                let (mut scratch, mut predictions) = (fasttext::Scratch::default(), Vec::new());
                let mut out = ListBuilder::new(StructBuilder::from_fields(prediction_fields(), 0))
                    .with_field(Arc::new(Field::new_list_field(
                        DataType::Struct(prediction_fields()),
                        true,
                    )));
                for i in 0..rows {
                    let k = ks.as_ref().map_or(Some(1), |k| k.get(i));
                    let (Some(text), Some(k)) = (texts.get(i), k) else {
                        out.append(false);
                        continue;
                    };
                    let Ok(k) = i32::try_from(k) else {
                        return exec_err!("fasttext_predict: k {k} is out of range");
                    };
                    predict(model, text, k, &mut scratch, &mut predictions)?;
                    let entries = out.values();
                    for &(prob, label) in &predictions {
                        let label = String::from_utf8_lossy(model.label(label));
                        entries
                            .field_builder::<StringBuilder>(0)
                            .expect("label")
                            .append_value(label);
                        entries
                            .field_builder::<Float64Builder>(1)
                            .expect("prob")
                            .append_value(f64::from(prob));
                        entries.append(true);
                    }
                    out.append(true);
                }
                Arc::new(out.finish())
            }
            Kind::Score => {
                let langs = TextArg::new(&args.args[1], &arrays[1])?;
                let methods = match (args.args.get(2), arrays.get(2)) {
                    (Some(value), Some(array)) => Some(TextArg::new(value, array)?),
                    _ => None,
                };
                let langid = langid_legacy::Identifier::new(langid_legacy::Model::built_in());
                let mut out = Float64Builder::with_capacity(rows);
                for i in 0..rows {
                    let (Some(text), Some(lang)) = (texts.get(i), langs.get(i)) else {
                        out.append_null();
                        continue;
                    };
                    let method = match methods.as_ref().map(|m| m.get(i)) {
                        None => "langid",
                        Some(None) => {
                            out.append_null();
                            continue;
                        }
                        Some(Some(name)) => name,
                    };
                    let score = match method {
                        "langid" => filter::langid_confidence(&langid, text, lang),
                        "fasttext" => filter::fasttext_confidence(self.model()?, text, lang)
                            .or_else(|e| exec_err!("{}: fasttext: {e}", self.name()))?,
                        "lingua" => filter::lingua_confidence(lingua_low(), text, lang),
                        "lingua_high" => filter::lingua_confidence(Lingua::all(), text, lang),
                        other => {
                            return exec_err!(
                                "{}: unknown language identification method {other:?}: expected \
                                 langid, fasttext, lingua or lingua_high",
                                self.name()
                            );
                        }
                    };
                    out.append_value(score);
                }
                Arc::new(out.finish())
            }
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Langid => &LANGID_DOC,
            Kind::Lingua => &LINGUA_DOC,
            Kind::FasttextLid => &FASTTEXT_LID_DOC,
            Kind::FasttextPredict => &FASTTEXT_PREDICT_DOC,
            Kind::Score => &SCORE_DOC,
        })
    }
}

impl LidUdf {
    fn model(&self) -> Result<&fasttext::Model> {
        match self.model.get() {
            Some(model) => Ok(model),
            None => Err(MissingResource::error(self.name(), Resource::FastText)),
        }
    }
}

/// One text's predictions: the text read as one line, newlines as spaces.
fn predict(
    model: &fasttext::Model,
    text: &str,
    k: i32,
    scratch: &mut fasttext::Scratch,
    predictions: &mut Vec<(f32, usize)>,
) -> Result<()> {
    model
        .predict(text_tokens(text.as_bytes()), k, 0.0, scratch, predictions)
        .or_else(|e| exec_err!("fasttext: {e}"))
}

/// lingua over every language in its low accuracy mode (OpusFilter's default), built once.
fn lingua_low() -> &'static Lingua {
    static LOW: std::sync::OnceLock<Lingua> = std::sync::OnceLock::new();
    LOW.get_or_init(|| Lingua::new(None::<&[&str]>, true).expect("every language"))
}

/// A label without fastText's `__label__`.
fn unprefixed(label: &[u8]) -> String {
    let label = label.strip_prefix(fasttext::LABEL_PREFIX).unwrap_or(label);
    String::from_utf8_lossy(label).into_owned()
}

fn guess_builder(rows: usize) -> StructBuilder {
    StructBuilder::from_fields(guess_fields(), rows)
}

fn append_guess(out: &mut StructBuilder, guess: Option<(&str, f64)>) {
    let (lang, prob) = guess.unwrap_or(("", 0.0));
    out.field_builder::<StringBuilder>(0)
        .expect("lang")
        .append_value(lang);
    out.field_builder::<Float64Builder>(1)
        .expect("prob")
        .append_value(prob);
    out.append(guess.is_some());
}

fn langid_column(texts: &Strings, languages: Option<&TokenLists>, rows: usize) -> Result<ArrayRef> {
    let model = langid::Model::built_in();
    let all = Identifier::new(model);
    let (mut scratch, mut restricted) = (langid::Scratch::default(), ByLanguages::default());
    let mut out = guess_builder(rows);
    let Some(languages) = languages else {
        // Every language: the texts go to the identifier together, which interleaves them.
        let present: Vec<(usize, &str)> = (0..rows)
            .filter_map(|i| texts.get(i).map(|t| (i, t)))
            .collect();
        let list: Vec<&str> = present.iter().map(|&(_, t)| t).collect();
        let mut guesses = vec![None; rows];
        all.classify_all(&list, &mut scratch, |k, g| {
            guesses[present[k].0] = Some((g.lang, g.prob))
        });
        for guess in guesses {
            append_guess(&mut out, guess);
        }
        return Ok(Arc::new(out.finish()));
    };
    for i in 0..rows {
        let Some(text) = texts.get(i) else {
            append_guess(&mut out, None);
            continue;
        };
        let Ok(identifier) = restricted.for_row(languages, i, |wanted| {
            Identifier::restricted(model, wanted).or_else(|e| exec_err!("{}: {e}", expr::LANGID))
        })?
        else {
            append_guess(&mut out, None);
            continue;
        };
        let guess = identifier.classify(text, &mut scratch);
        append_guess(&mut out, Some((guess.lang, guess.prob)));
    }
    Ok(Arc::new(out.finish()))
}

/// An identifier restricted to the languages a row asks for, rebuilt only when they change
/// (consecutive rows usually ask for the same ones).
struct ByLanguages<'a, T> {
    wanted: Vec<&'a str>,
    built: Option<(Vec<String>, T)>,
}

impl<T> Default for ByLanguages<'_, T> {
    fn default() -> Self {
        ByLanguages {
            wanted: Vec::new(),
            built: None,
        }
    }
}

impl<'a, T> ByLanguages<'a, T> {
    /// The identifier for row `i`'s languages; `Ok(Err(()))` when the row's list is unreadable
    /// (its answer is NULL).
    fn for_row(
        &mut self,
        lists: &TokenLists<'a>,
        i: usize,
        build: impl FnOnce(&[&str]) -> Result<T>,
    ) -> Result<std::result::Result<&T, ()>> {
        if lists.row(i, &mut self.wanted).is_err() {
            return Ok(Err(()));
        }
        let same = self
            .built
            .as_ref()
            .is_some_and(|(langs, _)| langs.iter().eq(self.wanted.iter()));
        if !same {
            let built = build(&self.wanted)?;
            self.built = Some((self.wanted.iter().map(|s| s.to_string()).collect(), built));
        }
        Ok(Ok(&self.built.as_ref().expect("built above").1))
    }
}

fn lingua_column(texts: &Strings, languages: Option<&TokenLists>, rows: usize) -> Result<ArrayRef> {
    let mut restricted = ByLanguages::default();
    let mut out = guess_builder(rows);
    for i in 0..rows {
        let Some(text) = texts.get(i) else {
            append_guess(&mut out, None);
            continue;
        };
        let detector = match languages {
            None => Lingua::all(),
            Some(lists) => {
                let Ok(detector) = restricted.for_row(lists, i, |wanted| {
                    Lingua::restricted(wanted).or_else(|e| exec_err!("{}: {e}", expr::LINGUA_LID))
                })?
                else {
                    append_guess(&mut out, None);
                    continue;
                };
                detector
            }
        };
        let guess = detector.identify(text);
        append_guess(
            &mut out,
            guess.as_ref().map(|(lang, prob)| (lang.as_str(), *prob)),
        );
    }
    Ok(Arc::new(out.finish()))
}
