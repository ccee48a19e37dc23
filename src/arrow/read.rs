//! Row views of Arrow columns: each hands a row's tokens, links or heads to a kernel as plain
//! slices, without allocating per row, and says why a row cannot be read ([`RowProblem`]).
//! Used by the functions, the resources and the jobs alike.

use std::fmt;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, GenericListArray, Int32Array, Int64Array, LargeStringArray,
    OffsetSizeTrait, StringArray, StringViewArray, StructArray, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, UInt64Type};
use datafusion::common::{Result, exec_err};

use crate::kernels::Link;
use crate::schema::{head_list_type, is_string};
use crate::stats::significance::Interval;

/// Why one row's arguments cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowProblem {
    NullArgument(&'static str),
    NullElement {
        arg: &'static str,
        index: usize,
    },
    /// A link position outside 0..=u32::MAX (the value as stored, which any integer type holds).
    LinkPosition {
        index: usize,
        value: i128,
    },
}

impl fmt::Display for RowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowProblem::NullArgument("links") => f.write_str("links is NULL (no alignment row)"),
            RowProblem::NullArgument(arg) => write!(f, "{arg} is NULL"),
            RowProblem::NullElement { arg, index } => write!(f, "{arg}[{index}] is NULL"),
            RowProblem::LinkPosition { index, value } if *value < 0 => {
                write!(f, "links[{index}] has a negative position")
            }
            RowProblem::LinkPosition { index, value } => {
                write!(
                    f,
                    "links[{index}] has position {value}, past any sentence (at most {})",
                    u32::MAX
                )
            }
        }
    }
}

/// A column of strings (`Utf8`, `LargeUtf8` or `Utf8View`), or of dictionary-encoded strings.
pub enum Strings<'a> {
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    Dictionary(Box<DictionaryStrings<'a>>),
}

/// Dictionary-encoded strings: each item's key into `values`, for the items from `first` on.
pub struct DictionaryStrings<'a> {
    first: usize,
    keys: Vec<usize>,
    nulls: Option<NullBuffer>,
    values: Strings<'a>,
}

impl DictionaryStrings<'_> {
    /// Item `i`'s key into the values, None for a NULL item.
    fn key(&self, i: usize) -> Option<usize> {
        let i = i - self.first;
        match &self.nulls {
            Some(nulls) if nulls.is_null(i) => None,
            _ => Some(self.keys[i]),
        }
    }
}

impl<'a> Strings<'a> {
    pub fn new(array: &'a dyn Array) -> Result<Self> {
        Self::within(array, 0..array.len())
    }

    /// `array`'s strings, of which only `items` will be read: a dictionary's keys are decoded
    /// for those alone (a list column sliced from a larger batch shares all its items).
    fn within(array: &'a dyn Array, items: std::ops::Range<usize>) -> Result<Self> {
        Ok(match array.data_type() {
            DataType::Utf8 => Strings::Utf8(array.as_string()),
            DataType::LargeUtf8 => Strings::Large(array.as_string()),
            DataType::Utf8View => Strings::View(array.as_string_view()),
            DataType::Dictionary(_, value) if is_string(value) => {
                let own = array.slice(items.start, items.len());
                let own = own.as_any_dictionary();
                Strings::Dictionary(Box::new(DictionaryStrings {
                    first: items.start,
                    keys: own.normalized_keys(),
                    nulls: own.logical_nulls(),
                    values: Strings::new(array.as_any_dictionary().values().as_ref())?,
                }))
            }
            other => return exec_err!("expected a string array, got {other}"),
        })
    }

    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Dictionary(d) => d.values.get(d.key(i)?),
        }
    }

    fn len(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.len(),
            Strings::Large(a) => a.len(),
            Strings::View(a) => a.len(),
            Strings::Dictionary(d) => d.keys.len(),
        }
    }
}

/// Row ranges of a List or LargeList, whatever its items.
struct Lists<'a> {
    offsets: Offsets<'a>,
    nulls: Option<&'a NullBuffer>,
}

enum Offsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
}

impl<'a> Lists<'a> {
    fn new(array: &'a dyn Array) -> Result<(Self, &'a ArrayRef)> {
        fn parts<O: OffsetSizeTrait>(a: &GenericListArray<O>) -> (&[O], &ArrayRef) {
            (a.value_offsets(), a.values())
        }
        let (offsets, values) = match array.data_type() {
            DataType::List(_) => {
                let (o, v) = parts(array.as_list::<i32>());
                (Offsets::Small(o), v)
            }
            DataType::LargeList(_) => {
                let (o, v) = parts(array.as_list::<i64>());
                (Offsets::Large(o), v)
            }
            other => return exec_err!("expected a list array, got {other}"),
        };
        Ok((
            Lists {
                offsets,
                nulls: array.nulls(),
            },
            values,
        ))
    }

    /// The items of all rows.
    fn items(&self) -> std::ops::Range<usize> {
        match self.offsets {
            Offsets::Small(o) => o[0] as usize..o[o.len() - 1] as usize,
            Offsets::Large(o) => o[0] as usize..o[o.len() - 1] as usize,
        }
    }

    /// The item range of row `i`, or None for a NULL list.
    fn range(&self, i: usize) -> Option<std::ops::Range<usize>> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return None;
        }
        Some(match self.offsets {
            Offsets::Small(o) => o[i] as usize..o[i + 1] as usize,
            Offsets::Large(o) => o[i] as usize..o[i + 1] as usize,
        })
    }
}

/// A column of token lists, read row by row into a reused `Vec<&str>`.
pub struct TokenLists<'a> {
    name: &'static str,
    lists: Lists<'a>,
    strings: Strings<'a>,
}

impl<'a> TokenLists<'a> {
    pub fn new(name: &'static str, array: &'a ArrayRef) -> Result<Self> {
        let (lists, values) = Lists::new(array.as_ref())?;
        Ok(TokenLists {
            name,
            strings: Strings::within(values.as_ref(), lists.items())?,
            lists,
        })
    }

    /// Row `i`'s tokens, NULL elements as None; None for a NULL list.
    pub fn items(&self, i: usize) -> Option<impl Iterator<Item = Option<&'a str>> + '_> {
        Some(self.lists.range(i)?.map(|item| self.strings.get(item)))
    }

    /// Fill `out` with row `i`'s tokens.
    pub fn row(&self, i: usize, out: &mut Vec<&'a str>) -> Result<(), RowProblem> {
        out.clear();
        let range = self
            .lists
            .range(i)
            .ok_or(RowProblem::NullArgument(self.name))?;
        // Tokens are read once per metric and row: the string type is matched once per row,
        // and validity looked at only when the column has NULL tokens.
        match self.strings {
            Strings::Utf8(a) if a.null_count() == 0 => {
                // The row's offsets are sliced once, not looked up and checked per token.
                let (offsets, bytes) =
                    (&a.value_offsets()[range.start..=range.end], a.value_data());
                out.extend(offsets.windows(2).map(|w| {
                    let token = &bytes[w[0] as usize..w[1] as usize];
                    // SAFETY: a StringArray's values are valid UTF-8 between consecutive offsets
                    // (checked when it was built); `StringArray::value` relies on the same.
                    unsafe { std::str::from_utf8_unchecked(token) }
                }))
            }
            Strings::View(a) if a.null_count() == 0 => out.extend(range.map(|item| a.value(item))),
            _ => {
                for (index, item) in range.enumerate() {
                    out.push(self.strings.get(item).ok_or(RowProblem::NullElement {
                        arg: self.name,
                        index,
                    })?);
                }
            }
        }
        Ok(())
    }
}

/// A column of token lists read as ids of an interner (dependency labels, say): every item is
/// given its id when the batch is opened, so a row is a slice. A dictionary-encoded column (as
/// Parquet's dictionary pages are read) interns each distinct string once, not once per token.
pub struct TokenIds<'a> {
    name: &'static str,
    lists: Lists<'a>,
    /// The first item of the lists: `ids[0]` is its id.
    first: usize,
    /// Each item's id; [`TokenIds::NULL`] for a NULL item.
    ids: Vec<u32>,
    has_nulls: bool,
}

impl<'a> TokenIds<'a> {
    /// The id of a NULL item: no interner gets this far.
    const NULL: u32 = u32::MAX;

    /// Read `array`, a List or LargeList of strings or of dictionary-encoded strings, giving
    /// each string the id `intern` returns.
    pub fn new(
        name: &'static str,
        array: &'a ArrayRef,
        mut intern: impl FnMut(&str) -> u32,
    ) -> Result<Self> {
        let (lists, values) = Lists::new(array.as_ref())?;
        let items = lists.items();
        let ids: Vec<u32> = match Strings::within(values.as_ref(), items.clone())? {
            Strings::Dictionary(dictionary) => {
                // A string is interned when first used: a dictionary may be shared by many
                // batches and hold more strings than one batch uses.
                const UNSEEN: u32 = u32::MAX - 1;
                let mut of_value = vec![UNSEEN; dictionary.values.len()];
                (items.clone())
                    .map(|item| match dictionary.key(item) {
                        None => Self::NULL,
                        Some(key) => {
                            if of_value[key] == UNSEEN {
                                of_value[key] =
                                    dictionary.values.get(key).map_or(Self::NULL, &mut intern);
                            }
                            of_value[key]
                        }
                    })
                    .collect()
            }
            strings => (items.clone())
                .map(|item| strings.get(item).map_or(Self::NULL, &mut intern))
                .collect(),
        };
        let has_nulls = ids.contains(&Self::NULL);
        Ok(TokenIds {
            name,
            lists,
            first: items.start,
            ids,
            has_nulls,
        })
    }

    /// Row `i`'s ids.
    pub fn row(&self, i: usize) -> Result<&[u32], RowProblem> {
        let range = self
            .lists
            .range(i)
            .ok_or(RowProblem::NullArgument(self.name))?;
        let ids = &self.ids[range.start - self.first..range.end - self.first];
        let null = || ids.iter().position(|&id| id == Self::NULL);
        match self.has_nulls.then(null).flatten() {
            Some(index) => Err(RowProblem::NullElement {
                arg: self.name,
                index,
            }),
            None => Ok(ids),
        }
    }
}

/// A column of lists of token lists (a reference and its alternatives, say), read row by row
/// into reused buffers: all tokens of the row, and the range of each list.
pub struct TokenListLists<'a> {
    name: &'static str,
    outer: Lists<'a>,
    inner: TokenLists<'a>,
}

impl<'a> TokenListLists<'a> {
    pub fn new(name: &'static str, array: &'a ArrayRef) -> Result<Self> {
        let (outer, values) = Lists::new(array.as_ref())?;
        Ok(TokenListLists {
            name,
            outer,
            inner: TokenLists::new(name, values)?,
        })
    }

    pub fn row(
        &self,
        i: usize,
        tokens: &mut Vec<&'a str>,
        lists: &mut Vec<std::ops::Range<usize>>,
    ) -> Result<(), RowProblem> {
        tokens.clear();
        lists.clear();
        let range = self
            .outer
            .range(i)
            .ok_or(RowProblem::NullArgument(self.name))?;
        for (index, list) in range.enumerate() {
            let items = self.inner.items(list).ok_or(RowProblem::NullElement {
                arg: self.name,
                index,
            })?;
            let start = tokens.len();
            for token in items {
                tokens.push(token.ok_or(RowProblem::NullElement {
                    arg: self.name,
                    index,
                })?);
            }
            lists.push(start..tokens.len());
        }
        Ok(())
    }
}

/// A column of alignments, read row by row into a reused `Vec<Link>`.
pub struct LinkLists<'a> {
    lists: Lists<'a>,
    positions: Positions,
    /// Which links are NULL or have a NULL position; None when none has.
    nulls: Option<NullBuffer>,
}

/// The links' `src` and `tgt` positions: as stored when Int32 (the schema's type) or 64-bit,
/// other integer types cast to Int64, which holds them all. (Casting every batch copied each
/// position into a new array: about 400 MB allocated and written per million Europarl-sized
/// pairs. UInt64 is kept as it is: a cast would make its values past i64 NULL.)
enum Positions {
    Narrow(Int32Array, Int32Array),
    Wide(Int64Array, Int64Array),
    Unsigned(UInt64Array, UInt64Array),
}

impl Positions {
    /// The links of `range`, into `out`; Err with the index and value of the first position
    /// outside 0..=u32::MAX.
    fn extend(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<Link>,
    ) -> Result<(), (usize, i128)> {
        match self {
            Positions::Narrow(src, tgt) => {
                links_of(&src.values()[range.clone()], &tgt.values()[range], out)
            }
            Positions::Wide(src, tgt) => {
                links_of(&src.values()[range.clone()], &tgt.values()[range], out)
            }
            Positions::Unsigned(src, tgt) => {
                links_of(&src.values()[range.clone()], &tgt.values()[range], out)
            }
        }
    }
}

/// A stored integer type of link positions.
trait Position: Copy + Into<i128> {
    /// Whether `a` and `b` are both in 0..=u32::MAX, as one test of their bits.
    fn both_fit(a: Self, b: Self) -> bool;
}

impl Position for i32 {
    fn both_fit(a: i32, b: i32) -> bool {
        (a | b) >= 0
    }
}

impl Position for i64 {
    fn both_fit(a: i64, b: i64) -> bool {
        // A negative value has its high bits set too.
        ((a | b) as u64) >> 32 == 0
    }
}

impl Position for u64 {
    fn both_fit(a: u64, b: u64) -> bool {
        (a | b) >> 32 == 0
    }
}

/// [`Positions::extend`] over one integer type.
fn links_of<T: Position>(src: &[T], tgt: &[T], out: &mut Vec<Link>) -> Result<(), (usize, i128)> {
    let mut fit = true;
    out.extend(src.iter().zip(tgt).map(|(&a, &b)| {
        fit &= T::both_fit(a, b);
        // Truncated when out of range, and then not used: the row is reported instead.
        (a.into() as u32, b.into() as u32)
    }));
    if fit {
        return Ok(());
    }
    let out_of_range = |v: i128| !(0..=u32::MAX as i128).contains(&v);
    let bad = src.iter().zip(tgt).enumerate().find_map(|(i, (&a, &b))| {
        [a.into(), b.into()]
            .into_iter()
            .find(|&v| out_of_range(v))
            .map(|v| (i, v))
    });
    Err(bad.expect("one is out of range"))
}

impl<'a> LinkLists<'a> {
    pub fn new(array: &'a ArrayRef) -> Result<Self> {
        let (lists, values) = Lists::new(array.as_ref())?;
        let links = values.as_struct();
        let position = |name: &str| -> Result<&ArrayRef> {
            match links.column_by_name(name) {
                Some(column) => Ok(column),
                None => exec_err!("alignment links have no `{name}` field"),
            }
        };
        let (src, tgt) = (position("src")?, position("tgt")?);
        let nulls = NullBuffer::union(
            NullBuffer::union(links.nulls(), src.nulls()).as_ref(),
            tgt.nulls(),
        );
        let positions = match (src.data_type(), tgt.data_type()) {
            (DataType::Int32, DataType::Int32) => {
                Positions::Narrow(src.as_primitive().clone(), tgt.as_primitive().clone())
            }
            (DataType::UInt64, DataType::UInt64) => {
                Positions::Unsigned(src.as_primitive().clone(), tgt.as_primitive().clone())
            }
            (a, b)
                if [a, b]
                    .iter()
                    .all(|t| t.is_integer() && **t != DataType::UInt64) =>
            {
                let wide = |column: &ArrayRef| -> Result<Int64Array> {
                    Ok(cast(column, &DataType::Int64)?.as_primitive().clone())
                };
                Positions::Wide(wide(src)?, wide(tgt)?)
            }
            (a, b) => {
                // Mixed UInt64 with another type, or not integers: both as UInt64 would lose
                // negatives, both as Int64 the values past i64, so refuse.
                return exec_err!(
                    "alignment link positions must be integers of one type (src is {a}, tgt is {b})"
                );
            }
        };
        Ok(LinkLists {
            lists,
            positions,
            nulls: nulls.filter(|nulls| nulls.null_count() > 0),
        })
    }

    pub fn row(&self, i: usize, out: &mut Vec<Link>) -> Result<(), RowProblem> {
        out.clear();
        let range = self
            .lists
            .range(i)
            .ok_or(RowProblem::NullArgument("links"))?;
        let Some(nulls) = &self.nulls else {
            // Most columns: the row's positions sliced at once.
            return self
                .positions
                .extend(range, out)
                .map_err(|(index, value)| RowProblem::LinkPosition { index, value });
        };
        // The first problem in link order is the one reported.
        for (index, item) in range.enumerate() {
            if nulls.is_null(item) {
                return Err(RowProblem::NullElement {
                    arg: "links",
                    index,
                });
            }
            self.positions
                .extend(item..item + 1, out)
                .map_err(|(_, value)| RowProblem::LinkPosition { index, value })?;
        }
        Ok(())
    }
}

/// A column of integer lists (dependency heads), read row by row as `&[i32]` without copying.
pub struct HeadLists {
    name: &'static str,
    offsets: OffsetBuffer<i32>,
    nulls: Option<NullBuffer>,
    values: Int32Array,
}

impl HeadLists {
    /// Any List or LargeList of integers; values outside Int32 become NULL elements.
    pub fn new(name: &'static str, array: &ArrayRef) -> Result<Self> {
        let list = cast(array, &head_list_type())?;
        let list = list.as_list::<i32>();
        Ok(HeadLists {
            name,
            offsets: list.offsets().clone(),
            nulls: list.nulls().cloned(),
            values: list.values().as_primitive::<Int32Type>().clone(),
        })
    }

    pub fn row(&self, i: usize) -> Result<&[i32], RowProblem> {
        if self.nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            return Err(RowProblem::NullArgument(self.name));
        }
        let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        if let Some(nulls) = self.values.nulls()
            && let Some(index) = range.clone().position(|item| nulls.is_null(item))
        {
            return Err(RowProblem::NullElement {
                arg: self.name,
                index,
            });
        }
        Ok(&self.values.values()[range])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ListArray, StringViewArray, StructArray};
    use datafusion::arrow::datatypes::{Field, Fields};
    use std::sync::Arc;

    fn token_lists(items: ArrayRef, offsets: &[i32], nulls: Option<NullBuffer>) -> ArrayRef {
        let field = Arc::new(Field::new("item", items.data_type().clone(), true));
        Arc::new(ListArray::new(
            field,
            OffsetBuffer::new(offsets.to_vec().into()),
            items,
            nulls,
        ))
    }

    #[test]
    fn token_rows_read_alike_with_and_without_null_tokens() {
        let words = ["a", "long token past twelve bytes", "", "b"];
        let plain: [ArrayRef; 2] = [
            Arc::new(StringArray::from(words.to_vec())),
            Arc::new(StringViewArray::from(words.to_vec())),
        ];
        for items in plain {
            let lists = token_lists(
                items,
                &[0, 2, 2, 4],
                Some(NullBuffer::from(vec![true, false, true])),
            );
            let tokens = TokenLists::new("src", &lists).unwrap();
            let mut out = Vec::new();
            tokens.row(0, &mut out).unwrap();
            assert_eq!(out, ["a", "long token past twelve bytes"]);
            assert_eq!(
                tokens.row(1, &mut out),
                Err(RowProblem::NullArgument("src"))
            );
            tokens.row(2, &mut out).unwrap();
            assert_eq!(out, ["", "b"]);
        }
        let with_null: [ArrayRef; 2] = [
            Arc::new(StringArray::from(vec![Some("a"), None, Some("b")])),
            Arc::new(StringViewArray::from(vec![Some("a"), None, Some("b")])),
        ];
        for items in with_null {
            let lists = token_lists(items, &[0, 1, 3], None);
            let tokens = TokenLists::new("tgt", &lists).unwrap();
            let mut out = Vec::new();
            tokens.row(0, &mut out).unwrap();
            assert_eq!(out, ["a"]);
            assert_eq!(
                tokens.row(1, &mut out),
                Err(RowProblem::NullElement {
                    arg: "tgt",
                    index: 0
                })
            );
        }
    }

    #[test]
    fn token_ids_read_alike_plain_viewed_and_dictionary_encoded() {
        use datafusion::arrow::array::DictionaryArray;
        let words = [Some("nsubj"), Some("obj"), None, Some("nsubj"), Some("det")];
        let dictionary: DictionaryArray<Int32Type> = words.iter().copied().collect();
        let items: [ArrayRef; 3] = [
            Arc::new(StringArray::from(words.to_vec())),
            Arc::new(StringViewArray::from(words.to_vec())),
            Arc::new(dictionary),
        ];
        for items in items {
            let kind = items.data_type().clone();
            let nulls = Some(NullBuffer::from(vec![true, false, true, true]));
            let whole = token_lists(items, &[0, 2, 2, 4, 5], nulls);
            // A batch sliced from a larger one, as the lockstep reader hands them over.
            for (lists, first_row) in [(whole.clone(), 0usize), (whole.slice(2, 2), 2)] {
                let mut interned = Vec::new();
                let ids = TokenIds::new("deprel", &lists, |label| {
                    let id = interned.iter().position(|l| l == label);
                    id.unwrap_or_else(|| {
                        interned.push(label.to_string());
                        interned.len() - 1
                    }) as u32
                })
                .unwrap();
                let labels = |row: usize| -> Result<Vec<&str>, RowProblem> {
                    let ids = ids.row(row - first_row)?;
                    Ok(ids
                        .iter()
                        .map(|&id| interned[id as usize].as_str())
                        .collect())
                };
                if first_row == 0 {
                    assert_eq!(labels(0), Ok(vec!["nsubj", "obj"]), "{kind}");
                    assert_eq!(labels(1), Err(RowProblem::NullArgument("deprel")));
                }
                let null = RowProblem::NullElement {
                    arg: "deprel",
                    index: 0,
                };
                assert_eq!(labels(2), Err(null), "{kind}");
                assert_eq!(labels(3), Ok(vec!["det"]), "{kind}");
            }
            let tokens = TokenLists::new("deprel", &whole).unwrap();
            let mut out = Vec::new();
            tokens.row(0, &mut out).unwrap();
            assert_eq!(out, ["nsubj", "obj"], "{kind}");
        }
    }

    #[test]
    fn link_rows_read_alike_with_and_without_nulls() {
        let position = |name| Field::new(name, DataType::Int32, true);
        let fields = Fields::from(vec![position("src"), position("tgt")]);
        let links =
            |src: Vec<Option<i32>>, tgt: Vec<Option<i32>>, nulls: Option<NullBuffer>| -> ArrayRef {
                let columns: Vec<ArrayRef> = vec![
                    Arc::new(Int32Array::from(src)),
                    Arc::new(Int32Array::from(tgt)),
                ];
                let items: ArrayRef = Arc::new(StructArray::new(fields.clone(), columns, nulls));
                token_lists(items, &[0, 1, 3], None)
            };
        let mut out = Vec::new();
        let valid = links(
            vec![Some(0), Some(1), Some(2)],
            vec![Some(0), Some(2), Some(1)],
            None,
        );
        let rows = LinkLists::new(&valid).unwrap();
        rows.row(1, &mut out).unwrap();
        assert_eq!(out, [(1, 2), (2, 1)]);
        // Row 1's second link has a NULL position; then its first link is NULL.
        let null_position = links(
            vec![Some(0), Some(1), None],
            vec![Some(0), Some(2), Some(1)],
            None,
        );
        let link_nulls = Some(NullBuffer::from(vec![true, false, true]));
        let null_link = links(
            vec![Some(0), Some(1), Some(2)],
            vec![Some(0), Some(2), Some(1)],
            link_nulls,
        );
        for (array, index) in [(null_position, 1), (null_link, 0)] {
            let rows = LinkLists::new(&array).unwrap();
            rows.row(0, &mut out).unwrap();
            assert_eq!(out, [(0, 0)]);
            assert_eq!(
                rows.row(1, &mut out),
                Err(RowProblem::NullElement {
                    arg: "links",
                    index
                })
            );
        }
        // A negative position is named by its link's index, with and without NULLs in the column.
        let negative = links(
            vec![Some(0), Some(1), Some(2)],
            vec![Some(0), Some(2), Some(-1)],
            None,
        );
        let negative_and_null = links(
            vec![Some(0), Some(-3), None],
            vec![Some(0), Some(2), Some(1)],
            None,
        );
        for (array, index, value) in [(negative, 1, -1), (negative_and_null, 0, -3)] {
            let rows = LinkLists::new(&array).unwrap();
            assert_eq!(
                rows.row(1, &mut out),
                Err(RowProblem::LinkPosition { index, value })
            );
        }
        // Positions of another integer type: past u32 the row is refused, naming the value.
        let wide = |name| Field::new(name, DataType::Int64, false);
        let wide = Fields::from(vec![wide("src"), wide("tgt")]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![0, u32::MAX as i64, 1 << 40, -2])),
            Arc::new(Int64Array::from(vec![0, 1, 1, 2])),
        ];
        let array = token_lists(
            Arc::new(StructArray::new(wide, columns, None)),
            &[0, 2, 3, 4],
            None,
        );
        let rows = LinkLists::new(&array).unwrap();
        rows.row(0, &mut out).unwrap();
        assert_eq!(out, [(0, 0), (u32::MAX, 1)]);
        assert_eq!(
            rows.row(1, &mut out),
            Err(RowProblem::LinkPosition {
                index: 0,
                value: 1 << 40
            })
        );
        assert_eq!(
            rows.row(2, &mut out),
            Err(RowProblem::LinkPosition {
                index: 0,
                value: -2
            })
        );
        let said = RowProblem::LinkPosition {
            index: 0,
            value: 1 << 40,
        }
        .to_string();
        assert_eq!(
            said,
            "links[0] has position 1099511627776, past any sentence (at most 4294967295)"
        );
    }
}

/// The first row of a struct's Float64 field `name`; None when NULL or missing.
pub fn first_float(s: &StructArray, name: &str) -> Option<f64> {
    let column = s.column_by_name(name)?.as_primitive::<Float64Type>();
    column.is_valid(0).then(|| column.value(0))
}

/// (n, the estimate named `name` with low and high) of a one-row bootstrap struct
/// (`bootstrap_ci`'s value); no interval when any of the three is NULL.
pub fn interval(s: &StructArray, name: &str) -> (u64, Option<Interval>) {
    let float = |name| first_float(s, name);
    let n = s
        .column_by_name("n")
        .map_or(0, |c| c.as_primitive::<UInt64Type>().value(0));
    let estimate = match (float(name), float("low"), float("high")) {
        (Some(estimate), Some(low), Some(high)) => Some(Interval {
            estimate,
            low,
            high,
        }),
        _ => None,
    };
    (n, estimate)
}
