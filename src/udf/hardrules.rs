//! `hardrules(src, tgt, src_lang, tgt_lang [, config])`: bicleaner-hardrules' model-free rules
//! (`clean::hardrules`), every failing rule of a pair as a list in the tool's order and spelling.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, ListBuilder, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, TextArg, checked_arguments, optional_tail, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::clean::hardrules::{Config, Hardrules, ignored_as_too_long};
use crate::formats::hardrules_config;
use crate::schema::ColumnType;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct HardrulesUdf {
    signature: Signature,
}

impl HardrulesUdf {
    pub fn new() -> Self {
        HardrulesUdf {
            signature: signature(SHAPES),
        }
    }
}

impl Default for HardrulesUdf {
    fn default() -> Self {
        Self::new()
    }
}

const ALL: &[(&str, ColumnType)] = &[
    ("src", ColumnType::Text),
    ("tgt", ColumnType::Text),
    ("src_lang", ColumnType::Text),
    ("tgt_lang", ColumnType::Text),
    ("config", ColumnType::Text),
];
const SHAPES: Shapes = &optional_tail::<2>(ALL, 4);

static DOC: LazyLock<Documentation> =
    LazyLock::new(|| {
        Documentation::builder(
        DOC_SECTION,
        "bicleaner-hardrules 2.10.8's rules (without its models: no_wrong_language, no_porn and \
         lm_filter keep every pair): the failing rules of a pair, in the tool's order and \
         spelling (`not_too_short(left)`, `length_ratio(left,right)`), as its `-A` lists them; an \
         empty list keeps the pair. An empty sentence gives `no_empty` alone, and a side over \
         10,000 characters `not_too_long` alone (the tool's command line skips the rules for \
         it, unless --dont_ignore_long). Languages change \
         rules as in the tool (CJK lengths, the languages `no_repeated_words` matches whole \
         words in, Latin-1 and `Ã`/`Â` exceptions). `pairmetrics hardrules` is the tool's \
         command line.",
        "hardrules(src, tgt, src_lang, tgt_lang [, config])",
    )
    .with_argument("src", "The source sentence (the tool's left side). NULL gives NULL.")
    .with_argument("tgt", "The target sentence (right side). NULL gives NULL.")
    .with_argument("src_lang", "The source language code (`en`, `zh`, ...): a string or a column.")
    .with_argument("tgt_lang", "The target language code.")
    .with_argument(
        "config",
        "The tool's rules configuration as YAML, a literal: `'{no_urls: true, length_ratio: 2}'` \
         (default: the tool's defaults).",
    )
    .with_sql_example(
        "SELECT r.rule, count(*) FROM (SELECT unnest(hardrules(src_text, tgt_text, 'en', 'fr')) \
         AS rule FROM pairs) r GROUP BY r.rule ORDER BY 2 DESC;",
    )
    .build()
    });

impl ScalarUDFImpl for HardrulesUdf {
    fn name(&self) -> &str {
        expr::HARDRULES
    }

    checked_arguments!(|_udf| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::List(Arc::new(Field::new(
            "item",
            DataType::Utf8,
            true,
        ))))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = |k: usize| TextArg::new(&args.args[k], &arrays[k]);
        let (src, tgt, src_lang, tgt_lang) = (text(0)?, text(1)?, text(2)?, text(3)?);
        let bad = |e: String| DataFusionError::Execution(format!("{}: {e}", expr::HARDRULES));
        let config = match args.args.get(4) {
            None => Config::default(),
            Some(ColumnarValue::Scalar(value)) => match super::args::scalar_text(value)? {
                Some(text) => {
                    hardrules_config::parse(&text).map_err(|e| bad(format!("config: {e:#}")))?
                }
                None => Config::default(),
            },
            Some(ColumnarValue::Array(_)) => {
                return Err(bad(
                    "config must be a literal, the same for every row".into()
                ));
            }
        };
        let mut rules: HashMap<(String, String), Hardrules> = HashMap::new();
        let mut out = ListBuilder::new(StringBuilder::new());
        for i in 0..rows {
            let (Some(s), Some(t), Some(sl), Some(tl)) =
                (src.get(i), tgt.get(i), src_lang.get(i), tgt_lang.get(i))
            else {
                out.append_null();
                continue;
            };
            let key = (sl.to_string(), tl.to_string());
            let rules = rules
                .entry(key)
                .or_insert_with(|| Hardrules::new(config.clone(), sl, tl, false));
            if ignored_as_too_long(s, t) {
                out.values().append_value("not_too_long");
            } else {
                for failure in rules.check(s, t, true) {
                    out.values().append_value(failure.to_string());
                }
            }
            out.append(true);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
