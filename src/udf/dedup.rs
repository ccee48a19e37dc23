//! `minhash` (datasketch 2.0's MinHash signature of a token list), `char_ngrams` (the
//! character shingles it is often given), `lsh_params` and `lsh_bands` (MinHashLSH's b and r,
//! and its band keys, so candidate pairs are a join), `jaccard` and `minhash_jaccard` (to verify
//! them). Thin adapters around `dedup::minhash` and `dedup::lsh`.

use std::sync::{Arc, LazyLock};

use std::collections::HashMap;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, Float64Builder, Int64Builder, ListArray, ListBuilder,
    StringBuilder, StructArray, UInt32Builder, UInt64Builder,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, UInt32Type, UInt64Type};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::args::{FloatArg, IntArg, Shapes, TextArg, checked_arguments, scalar_text, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{RowProblem, Strings, TokenLists};
use crate::clean::segment_hash::{Key, SegmentHasher};
use crate::dedup::lsh;
use crate::dedup::minhash::{MAX_NUM_PERM, MinHasher, Scheme};
use crate::dedup::shingles::char_ngrams as char_ngrams_of;
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    MinHash,
    CharNgrams,
    LshParams,
    LshBands,
    Jaccard,
    MinhashJaccard,
    PairHash,
    SegmentHash,
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
const THRESHOLD: (&str, ColumnType) = ("threshold", ColumnType::Float);
const SIGNATURE: (&str, ColumnType) = ("signature", ColumnType::Signature);
const SRC: (&str, ColumnType) = ("src", ColumnType::Text);
const TGT: (&str, ColumnType) = ("tgt", ColumnType::Text);
const OPTIONS: (&str, ColumnType) = ("options", ColumnType::Text);

/// The largest num_perm `minhash` and `lsh_params` take.
const MAX_PERM: i64 = MAX_NUM_PERM as i64;

fn shapes(kind: Kind) -> Shapes {
    match kind {
        Kind::MinHash => &[
            &[TOKENS, NUM_PERM, SEED],
            &[TOKENS, NUM_PERM, SEED, ("scheme", ColumnType::Text)],
        ],
        Kind::CharNgrams => &[&[("text", ColumnType::Text), ("n", ColumnType::Int)]],
        Kind::LshParams => &[
            &[THRESHOLD, NUM_PERM],
            &[
                THRESHOLD,
                NUM_PERM,
                ("fp_weight", ColumnType::Float),
                ("fn_weight", ColumnType::Float),
            ],
        ],
        Kind::LshBands => &[&[SIGNATURE, ("b", ColumnType::Int), ("r", ColumnType::Int)]],
        Kind::Jaccard => &[&[("a", ColumnType::Tokens), ("b", ColumnType::Tokens)]],
        Kind::MinhashJaccard => &[&[("a", ColumnType::Signature), ("b", ColumnType::Signature)]],
        Kind::PairHash => &[&[SRC, TGT], &[SRC, TGT, OPTIONS]],
        Kind::SegmentHash => &[
            &[("text", ColumnType::Text)],
            &[("text", ColumnType::Text), OPTIONS],
        ],
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

static LSH_PARAMS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The bands b and rows per band r that datasketch 2.0's MinHashLSH(threshold, num_perm, \
         weights=(fp_weight, fn_weight)) chooses: the b·r ≤ num_perm minimising the weighted \
         probabilities of a false positive and a false negative (its _optimal_param, searched in \
         its order). Struct {b, r}. threshold in (0, 1), num_perm 2 to 2^16, weights in [0, 1] \
         summing to 1 (default 0.5, 0.5); otherwise an error naming the argument. NULL gives NULL.",
        "lsh_params(threshold, num_perm [, fp_weight, fn_weight])",
    )
    .with_argument(
        "threshold",
        "The Jaccard similarity the index is for, in (0, 1).",
    )
    .with_argument("num_perm", "The signatures' length.")
    .with_argument("fp_weight", "Weight of false positives (default 0.5).")
    .with_argument("fn_weight", "Weight of false negatives (default 0.5).")
    .with_sql_example("SELECT lsh_params(0.8, 128);  -- {b: 9, r: 13}")
    .with_related_udf(expr::LSH_BANDS)
    .build()
});

static LSH_BANDS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The b band keys MinHashLSH files a signature under, as Binary: band i holds values \
         [i·r, (i+1)·r), each big-endian at the signature's width (4 bytes for List<UInt32>, 8 \
         for List<UInt64>), as datasketch's bytes(hs.byteswap().data). Two rows are candidates \
         (MinHashLSH.query returns one for the other) when they share a key at the same band \
         position: a self-join on (position, key) after unnest. NULL signature gives NULL; b·r \
         beyond the signature is an error.",
        "lsh_bands(signature, b, r)",
    )
    .with_argument("signature", "A minhash(...) signature.")
    .with_argument("b", "Bands (lsh_params(...)['b']).")
    .with_argument("r", "Values per band (lsh_params(...)['r']).")
    .with_sql_example(
        "SELECT pair_id, lsh_bands(minhash(tokenize(src_text), 128, 1), 9, 13) FROM pairs;",
    )
    .with_related_udf(expr::LSH_PARAMS)
    .build()
});

static JACCARD_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The Jaccard similarity of two token lists as sets, |A ∩ B| / |A ∪ B| (repeats count \
         once): the exact figure a MinHash estimates. NULL when both are empty or either is \
         NULL; a NULL token is an error.",
        "jaccard(a, b)",
    )
    .with_argument("a", "A token list.")
    .with_argument("b", "A token list.")
    .with_sql_example("SELECT jaccard(tokenize('a b c'), tokenize('b c d'));  -- 0.5")
    .with_related_udf(expr::MINHASH_JACCARD)
    .build()
});

static MINHASH_JACCARD_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The Jaccard similarity two MinHash signatures estimate, as datasketch's \
         MinHash.jaccard: the share of positions where they agree. NULL when either is NULL \
         or their lengths differ (where datasketch raises).",
        "minhash_jaccard(a, b)",
    )
    .with_argument("a", "A minhash(...) signature.")
    .with_argument("b", "A signature of the same length and scheme.")
    .with_sql_example(
        "SELECT minhash_jaccard(minhash(tokenize('a b c'), 128, 1), minhash(tokenize('b c d'), 128, 1));",
    )
    .with_related_udf(expr::JACCARD)
    .build()
});

static PAIR_HASH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "OpusFilter 3.3.1's key for exact duplicates (its SegmentHasher, the remove_duplicates \
         step's default xxh64, seed 0) of a pair of lines: each text is taken as the line of a \
         file it would be there (with its newline), preprocessed as the options say, the two \
         joined by a newline and hashed as UTF-16-LE. Equal keys are duplicates: \
         SELECT * FROM pairs WHERE pair_id IN (SELECT min(pair_id) FROM pairs GROUP BY \
         pair_hash(src_text, tgt_text)) keeps what remove_duplicates keeps. NULL text gives NULL.",
        "pair_hash(src, tgt [, options])",
    )
    .with_argument("src", "The source text.")
    .with_argument("tgt", "The target text.")
    .with_argument(
        "options",
        "Optional literal, comma-separated: 'lowercase', 'letters_only' (non-letters removed), \
         'letter_words_only' (whitespace tokens with a non-letter removed), as OpusFilter's \
         parameters of those names.",
    )
    .with_sql_example("SELECT pair_hash(src_text, tgt_text, 'lowercase') FROM pairs;")
    .with_related_udf(expr::SEGMENT_HASH)
    .build()
});

static SEGMENT_HASH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "pair_hash of one side: OpusFilter's key with `compare: [0]` (or [1]) over that side's \
         line, for duplicates by source or by target alone.",
        "segment_hash(text [, options])",
    )
    .with_argument("text", "The text.")
    .with_argument("options", "As pair_hash's.")
    .with_sql_example("SELECT count(DISTINCT segment_hash(src_text)) FROM pairs;")
    .with_related_udf(expr::PAIR_HASH)
    .build()
});

impl ScalarUDFImpl for DedupUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::MinHash => expr::MINHASH,
            Kind::CharNgrams => expr::CHAR_NGRAMS,
            Kind::LshParams => expr::LSH_PARAMS,
            Kind::LshBands => expr::LSH_BANDS,
            Kind::Jaccard => expr::JACCARD,
            Kind::MinhashJaccard => expr::MINHASH_JACCARD,
            Kind::PairHash => expr::PAIR_HASH,
            Kind::SegmentHash => expr::SEGMENT_HASH,
        }
    }

    checked_arguments!(|udf| shapes(udf.kind));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // `return_field_from_args` decides: minhash's type depends on its scheme.
        Ok(match self.kind {
            Kind::MinHash => list_of(DataType::UInt32),
            Kind::CharNgrams => list_of(DataType::Utf8),
            Kind::LshParams => DataType::Struct(params_fields()),
            Kind::LshBands => list_of(DataType::Binary),
            Kind::Jaccard | Kind::MinhashJaccard => DataType::Float64,
            Kind::PairHash | Kind::SegmentHash => DataType::UInt64,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = match self.kind {
            Kind::CharNgrams
            | Kind::LshParams
            | Kind::LshBands
            | Kind::Jaccard
            | Kind::MinhashJaccard
            | Kind::PairHash
            | Kind::SegmentHash => self.return_type(&[])?,
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
            Kind::LshParams => {
                let weight = |i: usize| args.args.get(i).map(FloatArg::new).transpose();
                lsh_params(
                    &FloatArg::new(&args.args[0])?,
                    &IntArg::new(&args.args[1])?,
                    (weight(2)?, weight(3)?),
                    rows,
                )?
            }
            Kind::LshBands => {
                let (b, r) = (IntArg::new(&args.args[1])?, IntArg::new(&args.args[2])?);
                lsh_bands(&Signatures::new(&arrays[0])?, &b, &r, rows)?
            }
            Kind::Jaccard => {
                let (a, b) = (
                    TokenLists::new("a", &arrays[0])?,
                    TokenLists::new("b", &arrays[1])?,
                );
                jaccard(&a, &b, rows)?
            }
            Kind::MinhashJaccard => {
                let (a, b) = (Signatures::new(&arrays[0])?, Signatures::new(&arrays[1])?);
                let mut out = Float64Builder::with_capacity(rows);
                for row in 0..rows {
                    out.append_option(match (a.get(row), b.get(row)) {
                        (Some(a), Some(b)) => lsh::signature_jaccard(&a, &b),
                        _ => None,
                    });
                }
                Arc::new(out.finish())
            }
            Kind::PairHash | Kind::SegmentHash => {
                let sides = if self.kind == Kind::PairHash { 2 } else { 1 };
                let hasher = match args.args.get(sides) {
                    None => segment_hasher(None)?,
                    Some(ColumnarValue::Scalar(s)) => segment_hasher(scalar_text(s)?.as_deref())?,
                    Some(_) => return exec_err!("{}: options must be a literal", self.name()),
                };
                let texts = (0..sides)
                    .map(|k| TextArg::new(&args.args[k], &arrays[k]))
                    .collect::<Result<Vec<_>>>()?;
                segment_hashes(&hasher, &texts, rows)
            }
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::MinHash => &MINHASH_DOC,
            Kind::CharNgrams => &CHAR_NGRAMS_DOC,
            Kind::LshParams => &LSH_PARAMS_DOC,
            Kind::LshBands => &LSH_BANDS_DOC,
            Kind::Jaccard => &JACCARD_DOC,
            Kind::MinhashJaccard => &MINHASH_JACCARD_DOC,
            Kind::PairHash => &PAIR_HASH_DOC,
            Kind::SegmentHash => &SEGMENT_HASH_DOC,
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
        let (Some(n), Some(s)) = (num_perm.get(row), seed.get(row)) else {
            narrow.append(false);
            wide.append(false);
            continue;
        };
        if !read_tokens(expr::MINHASH, tokens, row, &mut items)? {
            narrow.append(false);
            wide.append(false);
            continue;
        }
        if hasher.as_ref().is_none_or(|(key, _)| *key != (n, s)) {
            let perms = usize::try_from(n)
                .ok()
                .filter(|&n| (1..=MAX_PERM as usize).contains(&n))
                .map_or_else(|| exec_err!("minhash: num_perm {n} is not 1 to 2^16"), Ok)?;
            let seed = u32::try_from(s)
                .map_or_else(|_| exec_err!("minhash: seed {s} is not 0 to 2^32 - 1"), Ok)?;
            hasher = Some(((n, s), MinHasher::new(perms, seed, scheme)));
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
    let mut grams = Vec::new();
    for row in 0..rows {
        let (Some(text), Some(n)) = (texts.get(row), n.get(row)) else {
            out.append(false);
            continue;
        };
        if n < 1 {
            return exec_err!("char_ngrams: n is {n}, not at least 1");
        }
        grams.clear();
        char_ngrams_of(text, n as usize, &mut grams);
        for gram in &grams {
            out.values().append_value(gram);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

fn params_fields() -> Fields {
    Fields::from(vec![
        Field::new("b", DataType::Int64, false),
        Field::new("r", DataType::Int64, false),
    ])
}

fn lsh_params(
    threshold: &FloatArg,
    num_perm: &IntArg,
    (fp_weight, fn_weight): (Option<FloatArg>, Option<FloatArg>),
    rows: usize,
) -> Result<ArrayRef> {
    let (mut b_out, mut r_out) = (Int64Builder::new(), Int64Builder::new());
    let mut nulls = Vec::with_capacity(rows);
    // Usually one set of literals: each distinct set is searched once.
    let mut known: HashMap<[u64; 4], (u32, u32)> = HashMap::new();
    for row in 0..rows {
        let weight = |w: &Option<FloatArg>| w.as_ref().map_or(Some(0.5), |w| w.get(row));
        let (Some(t), Some(n), Some(fp), Some(fneg)) = (
            threshold.get(row),
            num_perm.get(row),
            weight(&fp_weight),
            weight(&fn_weight),
        ) else {
            b_out.append_value(0);
            r_out.append_value(0);
            nulls.push(false);
            continue;
        };
        if !(t > 0.0 && t < 1.0) {
            return exec_err!("lsh_params: threshold {t} is not in (0, 1)");
        }
        if !(2..=MAX_PERM).contains(&n) {
            return exec_err!("lsh_params: num_perm {n} is not 2 to 2^16");
        }
        for (name, w) in [("fp_weight", fp), ("fn_weight", fneg)] {
            if !(0.0..=1.0).contains(&w) {
                return exec_err!("lsh_params: {name} {w} is not in [0, 1]");
            }
        }
        if fp + fneg != 1.0 {
            return exec_err!("lsh_params: fp_weight + fn_weight is {}, not 1", fp + fneg);
        }
        let key = [t.to_bits(), n as u64, fp.to_bits(), fneg.to_bits()];
        let (b, r) = *known
            .entry(key)
            .or_insert_with(|| lsh::optimal_params(t, n as u32, fp, fneg));
        b_out.append_value(b.into());
        r_out.append_value(r.into());
        nulls.push(true);
    }
    let columns: Vec<ArrayRef> = vec![Arc::new(b_out.finish()), Arc::new(r_out.finish())];
    Ok(Arc::new(StructArray::try_new(
        params_fields(),
        columns,
        Some(NullBuffer::from(nulls)),
    )?))
}

/// A column of MinHash signatures, each row's values widened to u64, and their width in bytes.
struct Signatures<'a> {
    list: &'a ListArray,
    width: usize,
}

impl<'a> Signatures<'a> {
    fn new(array: &'a ArrayRef) -> Result<Self> {
        let list = array.as_list::<i32>();
        let width = match list.value_type() {
            DataType::UInt32 => 4,
            DataType::UInt64 => 8,
            other => {
                return exec_err!("a MinHash signature is a list of UInt32 or UInt64, not {other}");
            }
        };
        Ok(Signatures { list, width })
    }

    fn get(&self, row: usize) -> Option<Vec<u64>> {
        if self.list.is_null(row) {
            return None;
        }
        let values = self.list.value(row);
        Some(match self.width {
            4 => values
                .as_primitive::<UInt32Type>()
                .values()
                .iter()
                .map(|&v| u64::from(v))
                .collect(),
            _ => values.as_primitive::<UInt64Type>().values().to_vec(),
        })
    }
}

fn lsh_bands(signatures: &Signatures, b: &IntArg, r: &IntArg, rows: usize) -> Result<ArrayRef> {
    let mut out = ListBuilder::new(BinaryBuilder::new());
    for row in 0..rows {
        let (Some(signature), Some(b), Some(r)) = (signatures.get(row), b.get(row), r.get(row))
        else {
            out.append(false);
            continue;
        };
        if b < 1 || r < 1 {
            return exec_err!("lsh_bands: b {b} and r {r} must be at least 1");
        }
        let (b, r) = (b as usize, r as usize);
        if b.saturating_mul(r) > signature.len() {
            return exec_err!(
                "lsh_bands: b × r = {} exceeds row {row}'s signature of {} values",
                b.saturating_mul(r),
                signature.len()
            );
        }
        for key in lsh::band_keys(&signature, signatures.width, b, r) {
            out.values().append_value(key);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

fn jaccard(a: &TokenLists, b: &TokenLists, rows: usize) -> Result<ArrayRef> {
    let mut out = Float64Builder::with_capacity(rows);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for row in 0..rows {
        let both = read_tokens(expr::JACCARD, a, row, &mut left)?
            && read_tokens(expr::JACCARD, b, row, &mut right)?;
        out.append_option(both.then(|| lsh::set_jaccard(&left, &right)).flatten());
    }
    Ok(Arc::new(out.finish()))
}

/// Row `row`'s tokens into `out`: false for a NULL list (the function gives NULL), an error
/// naming the row and position for a NULL token.
fn read_tokens<'a>(
    function: &str,
    tokens: &TokenLists<'a>,
    row: usize,
    out: &mut Vec<&'a str>,
) -> Result<bool> {
    match tokens.row(row, out) {
        Ok(()) => Ok(true),
        Err(RowProblem::NullArgument(_)) => Ok(false),
        Err(problem) => exec_err!("{function}: row {row}: {problem}"),
    }
}

fn segment_hasher(options: Option<&str>) -> Result<SegmentHasher> {
    SegmentHasher::with_options(options.unwrap_or("")).or_else(|e| plan_err!("pair_hash: {e}"))
}

/// Each row's key over its texts, each taken as a file's line (with its newline) as OpusFilter
/// reads them; NULL when a text is NULL.
fn segment_hashes(hasher: &SegmentHasher, texts: &[TextArg], rows: usize) -> ArrayRef {
    let mut out = UInt64Builder::with_capacity(rows);
    for row in 0..rows {
        let line: Option<Vec<&str>> = texts.iter().map(|t| t.get(row)).collect();
        match line.map(|texts| hasher.key_of_texts(&texts)) {
            Some(Ok(Key::Hash(h))) => out.append_value(h as u64),
            _ => out.append_null(),
        }
    }
    Arc::new(out.finish())
}
