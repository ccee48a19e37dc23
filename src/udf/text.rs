//! `tokenize`, `lowercase_tokens` and `pharaoh`: turning text columns into our list types.

use std::fmt::Write;
use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, Int32Builder, ListBuilder, StringBuilder, StructBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{Shapes, checked_arguments, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{Strings, TokenLists};
use crate::formats::pharaoh;
use crate::schema::{ColumnType, link_fields, link_list_type, token_list_type};
use crate::text::whitespace;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Tokenize,
    LowercaseTokens,
    Pharaoh,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TextUdf {
    kind: Kind,
    signature: Signature,
}

impl TextUdf {
    pub fn new(kind: Kind) -> Self {
        TextUdf {
            kind,
            signature: signature(shapes(kind)),
        }
    }
}

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::Tokenize | Kind::Pharaoh => &[&[("text", ColumnType::Text)]],
        Kind::LowercaseTokens => &[&[("tokens", ColumnType::Tokens)]],
    }
}

static TOKENIZE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Split text on whitespace into a token list (Moses-style pre-tokenised text). \
         NULL text gives a NULL list; an empty or blank string gives an empty list.",
        "tokenize(text)",
    )
    .with_argument("text", "A string column or literal.")
    .with_sql_example("SELECT tokenize('the cat  sat'); -- [the, cat, sat]")
    .build()
});

static LOWERCASE_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Lowercase every token of a list (Unicode lowercasing, as Python's str.lower() and \
         lepod-score.py's -l). NULL lists and NULL elements stay NULL.",
        "lowercase_tokens(tokens)",
    )
    .with_argument("tokens", "A token list.")
    .with_sql_example("SELECT led(lowercase_tokens(src), lowercase_tokens(tgt)) FROM pairs;")
    .build()
});

static PHARAOH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Parse a Pharaoh alignment line (`0-0 1-2 2-1`: 0-based src-tgt positions) into links \
         of type List<Struct<src Int32, tgt Int32>>. A malformed entry makes the row NULL.",
        "pharaoh(text)",
    )
    .with_argument("text", "One line of Pharaoh links.")
    .with_sql_example("SELECT pod(tokenize('a b'), tokenize('b a'), pharaoh('0-1 1-0')); -- 0.5")
    .build()
});

impl ScalarUDFImpl for TextUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Tokenize => expr::TOKENIZE,
            Kind::LowercaseTokens => expr::LOWERCASE_TOKENS,
            Kind::Pharaoh => expr::PHARAOH,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Tokenize | Kind::LowercaseTokens => token_list_type(),
            Kind::Pharaoh => link_list_type(),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let output = match self.kind {
            Kind::Tokenize => tokenize(&Strings::new(arrays[0].as_ref())?, rows),
            Kind::LowercaseTokens => lowercase(&arrays[0], rows)?,
            Kind::Pharaoh => parse_pharaoh(&Strings::new(arrays[0].as_ref())?, rows),
        };
        Ok(ColumnarValue::Array(output))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Tokenize => &TOKENIZE_DOC,
            Kind::LowercaseTokens => &LOWERCASE_DOC,
            Kind::Pharaoh => &PHARAOH_DOC,
        })
    }
}

fn tokenize(text: &Strings, rows: usize) -> ArrayRef {
    let mut out = ListBuilder::with_capacity(StringBuilder::new(), rows);
    for row in 0..rows {
        match text.get(row) {
            Some(line) => {
                for token in whitespace::split(line) {
                    out.values().append_value(token);
                }
                out.append(true);
            }
            None => out.append(false),
        }
    }
    Arc::new(out.finish())
}

fn lowercase(lists: &ArrayRef, rows: usize) -> Result<ArrayRef> {
    let tokens = TokenLists::new("tokens", lists)?;
    let mut out = ListBuilder::with_capacity(StringBuilder::new(), rows);
    for row in 0..rows {
        let Some(items) = tokens.items(row) else {
            out.append(false);
            continue;
        };
        for token in items {
            let values = out.values();
            match token {
                None => values.append_null(),
                Some(t) if !t.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) => {
                    values.append_value(t)
                }
                Some(t) if t.is_ascii() => {
                    for b in t.bytes() {
                        values
                            .write_char(b.to_ascii_lowercase() as char)
                            .expect("in-memory write");
                    }
                    values.append_value("");
                }
                // Full Unicode rules (final sigma) need the whole string.
                Some(t) => values.append_value(t.to_lowercase()),
            }
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

fn parse_pharaoh(text: &Strings, rows: usize) -> ArrayRef {
    let fields = link_fields();
    let mut out = ListBuilder::with_capacity(
        StructBuilder::new(
            fields.clone(),
            vec![Box::new(Int32Builder::new()), Box::new(Int32Builder::new())],
        ),
        rows,
    )
    .with_field(Arc::new(
        datafusion::arrow::datatypes::Field::new_list_field(DataType::Struct(fields), true),
    ));
    let mut links = Vec::new();
    for row in 0..rows {
        let parsed = text
            .get(row)
            .map(|line| pharaoh::parse_line(line, &mut links));
        if !matches!(parsed, Some(Ok(()))) || links.iter().any(|&(a, b)| a.max(b) > i32::MAX as u32)
        {
            out.append(false);
            continue;
        }
        let values = out.values();
        for &(a, b) in &links {
            values
                .field_builder::<Int32Builder>(0)
                .expect("src")
                .append_value(a as i32);
            values
                .field_builder::<Int32Builder>(1)
                .expect("tgt")
                .append_value(b as i32);
            values.append(true);
        }
        out.append(true);
    }
    Arc::new(out.finish())
}
