//! `minhash` (datasketch 2.0's MinHash signature of a token list) and `char_ngrams` (the
//! character shingles it is often given). Thin adapters around `dedup::minhash`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    ArrayRef, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{IntArg, Shapes, checked_arguments, scalar_text, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{Strings, TokenLists};
use crate::dedup::minhash::{MinHasher, Scheme};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    MinHash,
    CharNgrams,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DedupUdf {
    kind: Kind,
    signature: Signature,
}

impl DedupUdf {
    pub fn new(kind: Kind) -> Self {
        DedupUdf {
            kind,
            signature: signature(shapes(kind)),
        }
    }
}

const TOKENS: (&str, ColumnType) = ("tokens", ColumnType::Tokens);
const NUM_PERM: (&str, ColumnType) = ("num_perm", ColumnType::Int);
const SEED: (&str, ColumnType) = ("seed", ColumnType::Int);

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::MinHash => &[
            &[TOKENS, NUM_PERM, SEED],
            &[TOKENS, NUM_PERM, SEED, ("scheme", ColumnType::Text)],
        ],
        Kind::CharNgrams => &[&[("text", ColumnType::Text), ("n", ColumnType::Int)]],
    }
}

static MINHASH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The MinHash signature of a token list, equal to datasketch 2.0's: \
         MinHash(num_perm, seed, scheme), update(token.encode('utf-8')) for each token in \
         order, hashvalues. scheme 'affine32' (datasketch's default) gives List<UInt32>, \
         'legacy' (datasketch before 2.0) and 'affine64' List<UInt64>. Shingling is yours: \
         tokenize(text) (Python's str.split() words) or char_ngrams(text, n). No tokens give \
         the scheme's maxima, as datasketch. NULL list gives NULL; a NULL token is an error.",
        "minhash(tokens, num_perm, seed [, scheme])",
    )
    .with_argument("tokens", "A token list (List<Utf8>).")
    .with_argument(
        "num_perm",
        "How many permutations (datasketch's default 128).",
    )
    .with_argument(
        "seed",
        "The permutations' seed, 0 to 2^32 - 1 (datasketch's default 1).",
    )
    .with_argument(
        "scheme",
        "Optional literal: 'affine32' (default), 'affine64' or 'legacy'.",
    )
    .with_sql_example("SELECT minhash(tokenize(src_text), 128, 1) FROM pairs LIMIT 3;")
    .with_related_udf(expr::CHAR_NGRAMS)
    .build()
});

static CHAR_NGRAMS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The character n-grams of a text, in order and with repeats: text[i:i+n] for every i \
         (Python slicing over code points); a non-empty text shorter than n is one n-gram, \
         itself; an empty text has none. NULL text or n gives NULL.",
        "char_ngrams(text, n)",
    )
    .with_argument("text", "A string.")
    .with_argument("n", "The n-gram length in characters, at least 1.")
    .with_sql_example("SELECT minhash(char_ngrams(src_text, 5), 128, 1) FROM pairs LIMIT 3;")
    .with_related_udf(expr::MINHASH)
    .build()
});

impl ScalarUDFImpl for DedupUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::MinHash => expr::MINHASH,
            Kind::CharNgrams => expr::CHAR_NGRAMS,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // `return_field_from_args` decides: minhash's type depends on its scheme.
        Ok(match self.kind {
            Kind::MinHash => list_of(DataType::UInt32),
            Kind::CharNgrams => list_of(DataType::Utf8),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = match self.kind {
            Kind::CharNgrams => list_of(DataType::Utf8),
            Kind::MinHash => match scheme_of(args.scalar_arguments.get(3).copied().flatten())? {
                Scheme::Affine64 | Scheme::Legacy => list_of(DataType::UInt64),
                Scheme::Affine32 => list_of(DataType::UInt32),
            },
        };
        Ok(Arc::new(Field::new(self.name(), data_type, true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out = match self.kind {
            Kind::CharNgrams => {
                let texts = Strings::new(arrays[0].as_ref())?;
                let n = IntArg::new(&args.args[1])?;
                char_ngrams(&texts, &n, rows)?
            }
            Kind::MinHash => {
                let scheme = match args.args.get(3) {
                    None => Scheme::Affine32,
                    Some(ColumnarValue::Scalar(s)) => scheme_of(Some(s))?,
                    Some(_) => return exec_err!("minhash: scheme must be a literal"),
                };
                let tokens = TokenLists::new("tokens", &arrays[0])?;
                let (num_perm, seed) = (IntArg::new(&args.args[1])?, IntArg::new(&args.args[2])?);
                minhash(&tokens, &num_perm, &seed, scheme, rows)?
            }
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::MinHash => &MINHASH_DOC,
            Kind::CharNgrams => &CHAR_NGRAMS_DOC,
        })
    }
}

fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(item, true)))
}

/// The scheme a literal names (affine32 when absent).
fn scheme_of(value: Option<&ScalarValue>) -> Result<Scheme> {
    let Some(value) = value else {
        return Ok(Scheme::Affine32);
    };
    match scalar_text(value)? {
        Some(name) => Scheme::parse(&name).or_else(|e| plan_err!("minhash: {e}")),
        None => plan_err!("minhash: the scheme is NULL"),
    }
}

fn minhash(
    tokens: &TokenLists,
    num_perm: &IntArg,
    seed: &IntArg,
    scheme: Scheme,
    rows: usize,
) -> Result<ArrayRef> {
    let mut hasher: Option<((i64, i64), MinHasher)> = None;
    let (mut signature, mut items) = (Vec::new(), Vec::new());
    let mut narrow = ListBuilder::new(UInt32Builder::new());
    let mut wide = ListBuilder::new(UInt64Builder::new());
    for row in 0..rows {
        let (Some(list), Some(n), Some(s)) = (tokens.items(row), num_perm.get(row), seed.get(row))
        else {
            narrow.append(false);
            wide.append(false);
            continue;
        };
        if hasher.as_ref().is_none_or(|(key, _)| *key != (n, s)) {
            let perms = usize::try_from(n)
                .ok()
                .filter(|&n| (1..=1 << 20).contains(&n))
                .map_or_else(|| exec_err!("minhash: num_perm {n} is not 1 to 2^20"), Ok)?;
            let seed = u32::try_from(s)
                .map_or_else(|_| exec_err!("minhash: seed {s} is not 0 to 2^32 - 1"), Ok)?;
            hasher = Some(((n, s), MinHasher::new(perms, seed, scheme)));
        }
        items.clear();
        for token in list {
            match token {
                Some(t) => items.push(t),
                None => return exec_err!("minhash: row {row} has a NULL token"),
            }
        }
        let minhasher = &hasher.as_ref().expect("built above").1;
        minhasher.signature(items.iter().map(|t| t.as_bytes()), &mut signature);
        match scheme {
            Scheme::Affine32 => {
                narrow
                    .values()
                    .extend(signature.iter().map(|&v| Some(v as u32)));
                narrow.append(true);
            }
            _ => {
                wide.values().append_slice(&signature);
                wide.append(true);
            }
        }
    }
    Ok(match scheme {
        Scheme::Affine32 => Arc::new(narrow.finish()),
        _ => Arc::new(wide.finish()),
    })
}

fn char_ngrams(texts: &Strings, n: &IntArg, rows: usize) -> Result<ArrayRef> {
    let mut out = ListBuilder::new(StringBuilder::new());
    let mut starts = Vec::new();
    for row in 0..rows {
        let (Some(text), Some(n)) = (texts.get(row), n.get(row)) else {
            out.append(false);
            continue;
        };
        if n < 1 {
            return exec_err!("char_ngrams: n is {n}, not at least 1");
        }
        let n = n as usize;
        starts.clear();
        starts.extend(text.char_indices().map(|(i, _)| i));
        starts.push(text.len());
        let chars = starts.len() - 1;
        if chars > 0 {
            // Python's text[i:i+n] for i in range(max(len - n + 1, 1)).
            for i in 0..chars.saturating_sub(n - 1).max(1) {
                out.values()
                    .append_value(&text[starts[i]..starts[(i + n).min(chars)]]);
            }
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}
