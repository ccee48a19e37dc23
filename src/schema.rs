//! The Arrow types of our columns and arguments, the schemas of our Parquet tables (documented in `schemas/*.md`) and the checks that
//! fail fast, before any work, when an input does not have them.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema};

/// `List<Utf8>`: a token list, as our writers store it and as a NULL literal is typed.
pub fn token_list_type() -> DataType {
    DataType::List(Field::new_list_field(DataType::Utf8, true).into())
}

/// `Struct<src Int32, tgt Int32>`: one alignment link.
pub fn link_fields() -> Fields {
    Fields::from(vec![
        Field::new("src", DataType::Int32, false),
        Field::new("tgt", DataType::Int32, false),
    ])
}

/// `Struct<src Int32, tgt Int32, module Utf8>`: a link found by an aligner that says which
/// matcher found it (`exact`, `stem`, `synonym`, `paraphrase` for METEOR; NULL when a Matcher
/// file has no module column). Every function taking links accepts it.
pub fn module_link_fields() -> Fields {
    let mut fields: Vec<Field> = link_fields().iter().map(|f| f.as_ref().clone()).collect();
    // NULL when a Matcher file has no module column.
    fields.push(Field::new("module", DataType::Utf8, true));
    Fields::from(fields)
}

/// `List<Struct<src Int32, tgt Int32, module Utf8>>`.
pub fn module_link_list_type() -> DataType {
    DataType::List(Field::new_list_field(DataType::Struct(module_link_fields()), true).into())
}

/// The alignments table whose links name their module (`align --out`, `import meteor`).
pub fn module_alignments_schema() -> Schema {
    Schema::new(vec![
        Field::new("pair_id", DataType::Int64, false),
        Field::new("links", module_link_list_type(), true),
    ])
}

/// `List<Struct<src Int32, tgt Int32>>`: a pair's alignment.
pub fn link_list_type() -> DataType {
    DataType::List(Field::new_list_field(DataType::Struct(link_fields()), true).into())
}

/// `List<Int32>`: a parse's heads, or token positions.
pub fn head_list_type() -> DataType {
    DataType::List(Field::new_list_field(DataType::Int32, true).into())
}

pub fn is_string(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

/// The item type of a List or LargeList.
pub fn list_item(dt: &DataType) -> Option<&DataType> {
    match dt {
        DataType::List(f) | DataType::LargeList(f) => Some(f.data_type()),
        _ => None,
    }
}

pub fn is_token_list(dt: &DataType) -> bool {
    list_item(dt).is_some_and(is_string)
}

/// A token list, or a list of dictionary-encoded strings: how Parquet's dictionary pages of a
/// label column are read without copying each label.
pub fn is_label_list(dt: &DataType) -> bool {
    is_token_list(dt)
        || matches!(list_item(dt), Some(DataType::Dictionary(key, value))
            if key.is_integer() && is_string(value))
}

/// `list_type`, a list of Utf8 or LargeUtf8, with its strings dictionary-encoded (Int32 keys),
/// the type Parquet's dictionary pages can be read as; other types as they are.
pub fn with_dictionary_items(list_type: &DataType) -> DataType {
    let dictionary = |item: &FieldRef| {
        let value = Box::new(item.data_type().clone());
        let item = item.as_ref().clone();
        Arc::new(item.with_data_type(DataType::Dictionary(Box::new(DataType::Int32), value)))
    };
    match list_type {
        DataType::List(item)
            if matches!(item.data_type(), DataType::Utf8 | DataType::LargeUtf8) =>
        {
            DataType::List(dictionary(item))
        }
        DataType::LargeList(item)
            if matches!(item.data_type(), DataType::Utf8 | DataType::LargeUtf8) =>
        {
            DataType::LargeList(dictionary(item))
        }
        other => other.clone(),
    }
}

/// `schema` with the columns `dictionary_encoded` picks given [`with_dictionary_items`]' type:
/// read so, each Parquet column chunk's strings are decoded once, not copied out per item.
pub fn with_dictionary_lists(
    schema: &Schema,
    dictionary_encoded: impl Fn(&Field) -> bool,
) -> Schema {
    let fields: Vec<Field> = (schema.fields().iter())
        .map(|f| match dictionary_encoded(f) {
            true => (f.as_ref().clone()).with_data_type(with_dictionary_items(f.data_type())),
            false => f.as_ref().clone(),
        })
        .collect();
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

pub fn is_head_list(dt: &DataType) -> bool {
    list_item(dt).is_some_and(DataType::is_integer)
}

pub fn is_link_list(dt: &DataType) -> bool {
    match list_item(dt) {
        Some(DataType::Struct(fields)) => ["src", "tgt"].iter().all(|name| {
            fields
                .find(name)
                .is_some_and(|(_, f)| f.data_type().is_integer())
        }),
        _ => false,
    }
}

/// What a table column or a function argument holds: the type our writers produce (and a NULL
/// literal takes), and the variants accepted on input (List or LargeList, any string type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// `pair_id`: Int64, exactly.
    Id,
    Tokens,
    /// Dependency labels: a token list, its strings plain or dictionary-encoded.
    Labels,
    /// Several token lists per row: List<List<Utf8>>.
    TokenLists,
    Links,
    /// Dependency heads: 1-based, 0 for a root.
    Heads,
    /// 0-based token positions.
    Positions,
    Text,
    /// A number, stored as Float64.
    Float,
    /// A list of numbers, stored as List<Float64>.
    Floats,
    /// An n-best rank: Int32.
    Rank,
    /// An integer, stored as Int64.
    Int,
    Bool,
    /// A MinHash signature: List<UInt32> (datasketch's affine32) or List<UInt64>, kept at its
    /// width (LSH band keys are written at it).
    Signature,
}

impl ColumnType {
    pub fn canonical(self) -> DataType {
        match self {
            ColumnType::Id | ColumnType::Int => DataType::Int64,
            ColumnType::Tokens | ColumnType::Labels => token_list_type(),
            ColumnType::TokenLists => {
                DataType::List(Field::new_list_field(token_list_type(), true).into())
            }
            ColumnType::Links => link_list_type(),
            ColumnType::Heads | ColumnType::Positions => head_list_type(),
            ColumnType::Text => DataType::Utf8,
            ColumnType::Float => DataType::Float64,
            ColumnType::Floats => {
                DataType::List(Field::new_list_field(DataType::Float64, true).into())
            }
            ColumnType::Rank => DataType::Int32,
            ColumnType::Bool => DataType::Boolean,
            ColumnType::Signature => {
                DataType::List(Field::new_list_field(DataType::UInt64, true).into())
            }
        }
    }

    pub fn accepts(self, dt: &DataType) -> bool {
        match self {
            ColumnType::Id => dt == &DataType::Int64,
            ColumnType::Tokens => is_token_list(dt),
            ColumnType::Labels => is_label_list(dt),
            ColumnType::TokenLists => list_item(dt).is_some_and(is_token_list),
            ColumnType::Links => is_link_list(dt),
            ColumnType::Heads | ColumnType::Positions => is_head_list(dt),
            ColumnType::Text => is_string(dt),
            ColumnType::Float => dt.is_numeric(),
            ColumnType::Floats => list_item(dt).is_some_and(DataType::is_numeric),
            ColumnType::Rank | ColumnType::Int => dt.is_integer(),
            ColumnType::Bool => dt == &DataType::Boolean,
            ColumnType::Signature => matches!(
                dt,
                DataType::List(item) if matches!(item.data_type(), DataType::UInt32 | DataType::UInt64)
            ),
        }
    }

    /// What to pass, for messages about function arguments.
    pub fn describe(self) -> &'static str {
        match self {
            ColumnType::Id => "an id: Int64",
            ColumnType::Tokens => "a token list: List or LargeList of Utf8, LargeUtf8 or Utf8View",
            ColumnType::Labels => {
                "labels: List or LargeList of Utf8, LargeUtf8 or Utf8View, or of Dictionary of them"
            }
            ColumnType::TokenLists => "a list of token lists: List<List<Utf8>>",
            ColumnType::Links => "alignment links: List<Struct<src Int32, tgt Int32>> (0-based)",
            ColumnType::Heads => "dependency heads: List<Int32>, 1-based, 0 for a root",
            ColumnType::Positions => "token positions: List<Int32>, 0-based",
            ColumnType::Text => "a string: Utf8, LargeUtf8 or Utf8View",
            ColumnType::Float => "a number",
            ColumnType::Floats => "a list of numbers: List<Float64>",
            ColumnType::Rank | ColumnType::Int => "an integer",
            ColumnType::Bool => "a boolean",
            ColumnType::Signature => "a MinHash signature: List<UInt32> or List<UInt64>",
        }
    }
}

/// Our tables, each documented in `schemas/<name>.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Pairs,
    Alignments,
    Arcs,
    PhraseTable,
    Nbest,
    Triples,
    Fragments,
    Dictionary,
}

struct Column {
    name: &'static str,
    kind: ColumnType,
    required: bool,
}

const fn col(name: &'static str, kind: ColumnType) -> Column {
    Column {
        name,
        kind,
        required: true,
    }
}

const PAIRS: &[Column] = &[
    col("pair_id", ColumnType::Id),
    col("src", ColumnType::Tokens),
    col("tgt", ColumnType::Tokens),
];
const ALIGNMENTS: &[Column] = &[
    col("pair_id", ColumnType::Id),
    col("links", ColumnType::Links),
];
const ARCS: &[Column] = &[
    col("pair_id", ColumnType::Id),
    col("src_head", ColumnType::Heads),
    col("tgt_head", ColumnType::Heads),
    col("src_deprel", ColumnType::Labels),
    col("tgt_deprel", ColumnType::Labels),
    Column {
        name: "src_upos",
        kind: ColumnType::Tokens,
        required: false,
    },
    Column {
        name: "tgt_upos",
        kind: ColumnType::Tokens,
        required: false,
    },
];
const PHRASE_TABLE: &[Column] = &[
    Column {
        name: "src",
        kind: ColumnType::Text,
        required: false,
    },
    Column {
        name: "tgt",
        kind: ColumnType::Text,
        required: false,
    },
    col("src_tokens", ColumnType::Tokens),
    col("tgt_tokens", ColumnType::Tokens),
    col("p_f_e", ColumnType::Float),
    col("lex_f_e", ColumnType::Float),
    col("p_e_f", ColumnType::Float),
    col("lex_e_f", ColumnType::Float),
    Column {
        name: "extra_scores",
        kind: ColumnType::Floats,
        required: false,
    },
    Column {
        name: "alignment",
        kind: ColumnType::Links,
        required: false,
    },
    Column {
        name: "counts",
        kind: ColumnType::Floats,
        required: false,
    },
];
const NBEST: &[Column] = &[
    col("id", ColumnType::Id),
    col("rank", ColumnType::Rank),
    col("hyp", ColumnType::Text),
    col("hyp_tokens", ColumnType::Tokens),
    col("features", ColumnType::Text),
    col("scores", ColumnType::Floats),
    col("total", ColumnType::Float),
];

const FRAGMENTS: &[Column] = &[
    col("pair_id", ColumnType::Id),
    col("sentence_id", ColumnType::Text),
    col("fragment_id", ColumnType::Text),
    col("l1", ColumnType::Text),
    col("l2", ColumnType::Text),
    col("input", ColumnType::Tokens),
    col("fragment_start", ColumnType::Int),
    col("fragment_end", ColumnType::Int),
    col("fragment", ColumnType::Tokens),
    col("reference", ColumnType::Tokens),
    col("reference_fragment", ColumnType::Tokens),
    col("reference_alternatives", ColumnType::TokenLists),
    col("output_fragment", ColumnType::Tokens),
    col("output_alternatives", ColumnType::TokenLists),
];

const DICTIONARY: &[Column] = &[
    col("src", ColumnType::Text),
    col("tgt", ColumnType::Text),
    Column {
        name: "p",
        kind: ColumnType::Float,
        required: false,
    },
];

const TRIPLES: &[Column] = &[
    col("level", ColumnType::Text),
    col("head", ColumnType::Text),
    col("dep", ColumnType::Text),
    col("deprel", ColumnType::Text),
    col("count", ColumnType::Int),
];

impl Table {
    pub fn name(self) -> &'static str {
        match self {
            Table::Pairs => "pairs",
            Table::Alignments => "alignments",
            Table::Arcs => "arcs",
            Table::PhraseTable => "phrase_table",
            Table::Nbest => "nbest",
            Table::Triples => "triples",
            Table::Fragments => "fragments",
            Table::Dictionary => "dictionary",
        }
    }

    fn columns(self) -> &'static [Column] {
        match self {
            Table::Pairs => PAIRS,
            Table::Alignments => ALIGNMENTS,
            Table::Arcs => ARCS,
            Table::PhraseTable => PHRASE_TABLE,
            Table::Nbest => NBEST,
            Table::Triples => TRIPLES,
            Table::Fragments => FRAGMENTS,
            Table::Dictionary => DICTIONARY,
        }
    }

    /// Its columns of dependency labels ([`ColumnType::Labels`]): few distinct strings, which
    /// the functions that read them take dictionary-encoded too.
    pub fn label_columns(self) -> impl Iterator<Item = &'static str> {
        (self.columns().iter())
            .filter(|c| c.kind == ColumnType::Labels)
            .map(|c| c.name)
    }

    /// The columns a table of this kind must have.
    pub fn required_columns(self) -> impl Iterator<Item = &'static str> {
        self.columns().iter().filter(|c| c.required).map(|c| c.name)
    }

    /// The schema our writers produce. `pair_id` is never NULL; lists and items may be.
    pub fn schema(self) -> Schema {
        Schema::new(
            self.columns()
                .iter()
                .map(|c| Field::new(c.name, c.kind.canonical(), c.kind != ColumnType::Id))
                .collect::<Vec<_>>(),
        )
    }

    /// Check that `schema`, read from `file`, has every column this table needs with a type we
    /// accept (List or LargeList, any string type). Other columns are allowed and carried along.
    pub fn check(self, file: &str, schema: &Schema) -> Result<(), SchemaError> {
        for column in self.columns() {
            let problem = match schema.field_with_name(column.name) {
                Ok(field) if column.kind.accepts(field.data_type()) => continue,
                Ok(field) => Mismatch::Type(field.data_type().clone()),
                Err(_) if !column.required => continue,
                Err(_) => Mismatch::Missing,
            };
            return Err(SchemaError {
                table: self.name(),
                file: file.to_string(),
                column: column.name,
                expected: render_type(&column.kind.canonical()),
                problem,
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    Missing,
    Type(DataType),
}

/// An input that is not of the table's schema: names the file, the column and the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub table: &'static str,
    pub file: String,
    pub column: &'static str,
    pub expected: String,
    pub problem: Mismatch,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SchemaError {
            table,
            file,
            column,
            expected,
            ..
        } = self;
        match &self.problem {
            Mismatch::Missing => write!(f, "{table} table {file}: column `{column}` is missing"),
            Mismatch::Type(found) => write!(
                f,
                "{table} table {file}: column `{column}` has type {}",
                render_type(found)
            ),
        }?;
        write!(f, "; expected {expected} (see schemas/{table}.md)")
    }
}

impl std::error::Error for SchemaError {}

/// A type as `schemas/*.md` writes it: `Int64`, `List<Utf8>`, `List<Struct<src Int32, tgt Int32>>`.
pub fn render_type(dt: &DataType) -> String {
    match dt {
        DataType::List(f) => format!("List<{}>", render_type(f.data_type())),
        DataType::LargeList(f) => format!("LargeList<{}>", render_type(f.data_type())),
        DataType::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("{} {}", f.name(), render_type(f.data_type())))
                .collect();
            format!("Struct<{}>", inner.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_variants_and_extra_columns() {
        let large = DataType::LargeList(Field::new("element", DataType::Utf8View, true).into());
        let schema = Schema::new(vec![
            Field::new("pair_id", DataType::Int64, true),
            Field::new("src", large.clone(), true),
            Field::new("tgt", large, true),
            Field::new("domain", DataType::Utf8, true),
        ]);
        assert_eq!(Table::Pairs.check("p.parquet", &schema), Ok(()));
    }

    #[test]
    fn names_file_column_and_expected_type() {
        let schema = Schema::new(vec![
            Field::new("pair_id", DataType::Int64, false),
            Field::new("src", DataType::Int64, true),
        ]);
        let err = Table::Pairs.check("p.parquet", &schema).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pairs table p.parquet: column `src` has type Int64; expected List<Utf8> \
             (see schemas/pairs.md)"
        );
    }
}
