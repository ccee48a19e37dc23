//! BLEU (Papineni et al. 2002) exactly as sacrebleu 2.6 computes it (Post 2018): its tokenisers,
//! a segment's sufficient statistics (the two lengths, then matched and total n-grams per order),
//! the score of summed statistics (a corpus score is not a mean of sentence scores), smoothing,
//! effective order and signature. Plain Rust: no Arrow here.
//!
//! The decisions that make it equal to sacrebleu to the last bit:
//! - text is Unicode code points, split where Python's `str.split()` splits
//!   ([`whitespace::is_space`]); lowercasing is Unicode's, as Python's `str.lower()`;
//! - the 13a tokeniser's four regular expressions run one after the other, each left to right
//!   without overlaps, as `re.sub` runs them, on the line with a space added at each end; over
//!   UTF-8 bytes, which gives the same text, as every pattern matches ASCII only; the first
//!   (spaces around symbols) last, as splitting words at symbols, which changes no match of the
//!   others ([`Tokens::regexp_tokenize`]);
//! - a reference n-gram counts as often as it occurs in the one reference that has it most; the
//!   reference length is the one closest to the hypothesis length, the shorter on a tie; each
//!   hypothesis n-gram takes one of the references' occurrences while any is left, which is
//!   sacrebleu's clip `min(count, max_ref_count)`;
//! - floating-point operations run in sacrebleu's order.

use std::sync::LazyLock;

use hashbrown::HashMap;
use regex::Regex;
use std::fmt;
use std::str::FromStr;

use super::mteval;
use crate::text::python::fixed;
use crate::text::whitespace;

/// The sacrebleu release whose BLEU this is, as signatures name it.
pub const SACREBLEU_VERSION: &str = "2.6.0";

/// sacrebleu's default maximum n-gram order.
pub const MAX_ORDER: usize = 4;

/// The largest n-gram order accepted: sacrebleu has no limit, but nobody uses more.
pub const MAX_ORDER_LIMIT: usize = 16;

/// How text is split into words before n-grams are counted (sacrebleu's `--tokenize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    /// `13a`, mteval-v13a's tokenisation, WMT's standard and sacrebleu's default.
    Mteval13a,
    /// `intl`, mteval-v14's international tokenisation: Unicode punctuation split off unless
    /// between digits, symbols split off.
    Intl,
    /// `zh`: the characters of sacrebleu's Chinese ranges split apart, the rest as 13a.
    Zh,
    /// `char`: every character a word.
    Char,
    /// `none`: the text as given, split on whitespace.
    None,
}

impl Tokenizer {
    /// The name sacrebleu gives it, in `--tokenize` and in signatures.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Mteval13a => "13a",
            Tokenizer::Intl => "intl",
            Tokenizer::Zh => "zh",
            Tokenizer::Char => "char",
            Tokenizer::None => "none",
        }
    }
}

impl FromStr for Tokenizer {
    type Err = BleuError;

    fn from_str(name: &str) -> Result<Self, BleuError> {
        match name {
            "13a" => Ok(Tokenizer::Mteval13a),
            "intl" => Ok(Tokenizer::Intl),
            "zh" => Ok(Tokenizer::Zh),
            "char" => Ok(Tokenizer::Char),
            "none" => Ok(Tokenizer::None),
            "ja-mecab" | "ko-mecab" | "spm" | "flores101" | "flores200" | "spBLEU-1K" => {
                Err(BleuError::UnsupportedTokenizer(name.to_string()))
            }
            _ => Err(BleuError::UnknownTokenizer(name.to_string())),
        }
    }
}

/// What a precision of zero matches becomes (Chen and Cherry 2014), sacrebleu's `--smooth-method`
/// with its `--smooth-value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoothing {
    /// `none`: it stays 0, and so does the score.
    None,
    /// `floor`: the matches count as this (default 0.1).
    Floor(f64),
    /// `add-k`: this (default 1) is added to the matches and totals of orders 2 and up.
    AddK(f64),
    /// `exp`: 1 / 2^k for the k-th order without matches (mteval-v13a's; the default).
    Exp,
}

impl Smoothing {
    /// The method named as sacrebleu names it, with its value or sacrebleu's default for it.
    pub fn new(method: &str, value: Option<f64>) -> Result<Self, BleuError> {
        match method {
            "none" => Ok(Smoothing::None),
            "floor" => Ok(Smoothing::Floor(value.unwrap_or(0.1))),
            "add-k" => Ok(Smoothing::AddK(value.unwrap_or(1.0))),
            "exp" => Ok(Smoothing::Exp),
            _ => Err(BleuError::UnknownSmoothing(method.to_string())),
        }
    }

    /// As the signature writes it: `exp`, `none`, `floor[0.10]`, `add-k[1.00]`.
    fn signature(self) -> String {
        match self {
            Smoothing::None => "none".to_string(),
            Smoothing::Floor(value) => format!("floor[{}]", fixed(value, 2)),
            Smoothing::AddK(value) => format!("add-k[{}]", fixed(value, 2)),
            Smoothing::Exp => "exp".to_string(),
        }
    }
}

/// sacrebleu's `BLEU(...)` arguments. The default is its corpus BLEU; [`BleuOptions::sentence`]
/// its `sentence_bleu`.
#[derive(Debug, Clone, PartialEq)]
pub struct BleuOptions {
    pub tokenizer: Tokenizer,
    pub lowercase: bool,
    pub smoothing: Smoothing,
    /// The highest n-gram order (1..=[`MAX_ORDER_LIMIT`]).
    pub max_order: usize,
    /// Average the precisions only up to the last order the hypothesis has n-grams of, which
    /// sacrebleu recommends for sentences.
    pub effective_order: bool,
}

impl Default for BleuOptions {
    fn default() -> Self {
        BleuOptions {
            tokenizer: Tokenizer::Mteval13a,
            lowercase: false,
            smoothing: Smoothing::Exp,
            max_order: MAX_ORDER,
            effective_order: false,
        }
    }
}

impl BleuOptions {
    /// `sacrebleu.sentence_bleu`'s defaults: the corpus defaults with effective order.
    pub fn sentence() -> Self {
        BleuOptions {
            effective_order: true,
            ..BleuOptions::default()
        }
    }

    /// Options written in the words of sacrebleu's signature, over `self`: `|`-separated
    /// `tok:13a|intl|zh|char|none`, `case:mixed|lc`, `eff:yes|no`, `smooth:exp|none|floor|add-k` (with a
    /// value in brackets: `floor[0.25]`), and `order:N` (the maximum n-gram order, which
    /// signatures leave out). A whole signature reads back as its options: `nrefs` is ignored
    /// (the references are counted) and `version` must be this one.
    pub fn parse(&self, text: &str) -> Result<BleuOptions, BleuError> {
        let mut options = self.clone();
        let bad = |item: &str| BleuError::Option(item.to_string());
        for item in text
            .split('|')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (key, value) = item.split_once(':').ok_or_else(|| bad(item))?;
            match (key.trim(), value.trim()) {
                ("tok", name) => options.tokenizer = name.parse()?,
                ("case", "mixed") => options.lowercase = false,
                ("case", "lc") => options.lowercase = true,
                ("eff", "yes") => options.effective_order = true,
                ("eff", "no") => options.effective_order = false,
                ("smooth", method) => {
                    let (method, value) =
                        match method.strip_suffix(']').and_then(|m| m.split_once('[')) {
                            Some((method, value)) => {
                                (method, Some(value.parse::<f64>().map_err(|_| bad(item))?))
                            }
                            None => (method, None),
                        };
                    options.smoothing = Smoothing::new(method, value)?;
                }
                ("order", n) => options.max_order = n.parse().map_err(|_| bad(item))?,
                ("nrefs", _) => {}
                ("version", SACREBLEU_VERSION) => {}
                ("version", other) => return Err(BleuError::Version(other.to_string())),
                _ => return Err(bad(item)),
            }
        }
        options.check()?;
        Ok(options)
    }

    /// Check what sacrebleu would reject or what no one means.
    pub fn check(&self) -> Result<(), BleuError> {
        if !(1..=MAX_ORDER_LIMIT).contains(&self.max_order) {
            return Err(BleuError::MaxOrder(self.max_order));
        }
        Ok(())
    }

    /// How many numbers a segment's statistics are: the hypothesis and reference lengths, then
    /// the matched n-grams of each order, then the hypothesis' n-grams of each order.
    pub fn stats_len(&self) -> usize {
        2 + 2 * self.max_order
    }

    /// sacrebleu's signature for these options and `refs` references per segment (`None`: the
    /// number varies), e.g. `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
    pub fn signature(&self, refs: Option<usize>) -> String {
        let refs = refs.map_or("var".to_string(), |n| n.to_string());
        let case = if self.lowercase { "lc" } else { "mixed" };
        let eff = if self.effective_order { "yes" } else { "no" };
        let (tok, smooth) = (self.tokenizer.name(), self.smoothing.signature());
        format!(
            "nrefs:{refs}|case:{case}|eff:{eff}|tok:{tok}|smooth:{smooth}|version:{SACREBLEU_VERSION}"
        )
    }
}

/// Why BLEU cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum BleuError {
    UnknownTokenizer(String),
    UnsupportedTokenizer(String),
    UnknownSmoothing(String),
    MaxOrder(usize),
    /// An item of an options string that is not one of [`BleuOptions::parse`]'s.
    Option(String),
    /// A signature of another sacrebleu release.
    Version(String),
    /// A segment with no reference (every reference NULL).
    NoReference,
}

impl fmt::Display for BleuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BleuError::UnknownTokenizer(name) => write!(
                f,
                "unknown BLEU tokenizer '{name}': expected 13a, intl, zh, char or none"
            ),
            BleuError::UnsupportedTokenizer(name) => {
                write!(
                    f,
                    "sacrebleu's '{name}' tokenizer is not supported (yet): use 13a, intl, zh, char or none"
                )
            }
            BleuError::UnknownSmoothing(name) => {
                write!(
                    f,
                    "unknown BLEU smoothing '{name}': expected exp, floor, add-k or none"
                )
            }
            BleuError::MaxOrder(order) => write!(
                f,
                "BLEU's n-gram order {order} is outside 1..={MAX_ORDER_LIMIT}"
            ),
            BleuError::Option(item) => write!(
                f,
                "BLEU option '{item}' is not one of tok:13a|intl|zh|char|none, case:mixed|lc, eff:yes|no, \
                 smooth:exp|none|floor[V]|add-k[V], order:N"
            ),
            BleuError::Version(version) => {
                write!(
                    f,
                    "a signature of sacrebleu {version}: pairmetrics computes sacrebleu {SACREBLEU_VERSION}'s BLEU"
                )
            }
            BleuError::NoReference => f.write_str("no reference (every reference is NULL)"),
        }
    }
}

impl std::error::Error for BleuError {}

/// sacrebleu's preprocessing of a segment, then its tokeniser: the text sacrebleu's tokeniser
/// writes (13a, intl and zh: the words joined with single spaces).
pub fn tokenize(text: &str, options: &BleuOptions, out: &mut String) {
    out.clear();
    match options.tokenizer {
        Tokenizer::Mteval13a | Tokenizer::Intl | Tokenizer::Zh => {
            Tokens::default().words(text, options, |word| {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            })
        }
        Tokenizer::Char => {
            for (i, c) in preprocess(text, options).chars().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push(c);
            }
        }
        Tokenizer::None => out.push_str(&preprocess(text, options)),
    }
}

/// sacrebleu's preprocessing of a segment: lowercase when asked, strip trailing whitespace.
fn preprocess<'a>(text: &'a str, options: &BleuOptions) -> std::borrow::Cow<'a, str> {
    match options.lowercase {
        true => {
            let mut lowered = text.to_lowercase();
            lowered.truncate(lowered.trim_end_matches(whitespace::is_space).len());
            lowered.into()
        }
        false => text.trim_end_matches(whitespace::is_space).into(),
    }
}

/// Buffers for tokenising, reused from segment to segment.
#[derive(Debug, Default)]
struct Tokens {
    text: Vec<u8>,
    work: Vec<u8>,
    string: String,
}

impl Tokens {
    /// Each word of `text` as sacrebleu's preprocessing and tokeniser make them (the tokeniser's
    /// output split as Python's `str.split()` splits it), in order.
    fn words(&mut self, text: &str, options: &BleuOptions, mut each: impl FnMut(&str)) {
        let text = &*preprocess(text, options);
        match options.tokenizer {
            Tokenizer::Mteval13a => self.mteval_13a(text, each),
            Tokenizer::Intl => {
                self.string.clear();
                mteval_14_international(text, &mut self.string);
                whitespace::split(&self.string).for_each(each);
            }
            Tokenizer::Zh => self.chinese(text, each),
            Tokenizer::Char => {
                let mut buffer = [0; 4];
                text.chars()
                    .filter(|&c| !whitespace::is_space(c))
                    .for_each(|c| each(c.encode_utf8(&mut buffer)));
            }
            Tokenizer::None => whitespace::split(text).for_each(each),
        }
    }

    /// mteval-v13a's tokenisation as sacrebleu's `Tokenizer13a` does it.
    fn mteval_13a(&mut self, line: &str, each: impl FnMut(&str)) {
        // Its replacements, in its order; only lines holding one of these bytes can change.
        let replaced;
        let line = match memchr::memchr3(b'<', b'\n', b'&', line.as_bytes()) {
            None => line,
            Some(_) => {
                let mut line = line
                    .replace("<skipped>", "")
                    .replace("-\n", "")
                    .replace('\n', " ");
                if line.contains('&') {
                    line = line
                        .replace("&quot;", "\"")
                        .replace("&amp;", "&")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">");
                }
                replaced = line;
                &replaced
            }
        };
        self.regexp_tokenize(line, true, each);
    }

    /// sacrebleu's `TokenizerZh`: stripped, each character of its Chinese ranges surrounded by
    /// spaces, then `TokenizerRegexp`.
    fn chinese(&mut self, line: &str, each: impl FnMut(&str)) {
        let mut spaced = String::with_capacity(line.len() * 2);
        for c in line.trim_matches(whitespace::is_space).chars() {
            match is_chinese_char(c) {
                true => {
                    spaced.push(' ');
                    spaced.push(c);
                    spaced.push(' ');
                }
                false => spaced.push(c),
            }
        }
        self.regexp_tokenize(&spaced, false, each);
    }

    /// sacrebleu's `TokenizerRegexp`, the language-dependent part of 13a, on the line (with a
    /// space added at each end when `padded`, as 13a calls it): its first pattern puts spaces
    /// around every symbol ([`mteval::space_symbols`]), then periods, commas and dashes are
    /// split off ([`mteval::split_periods_and_dashes`]). The symbols are split off last here
    /// instead, by [`symbol_words`]: the spaces around a symbol and the symbol itself are
    /// neither digits nor periods, commas or dashes, so they change no match of the later
    /// patterns, and one character that is neither stands for all three.
    fn regexp_tokenize(&mut self, line: &str, padded: bool, each: impl FnMut(&str)) {
        let pad: &[u8] = if padded { b" " } else { b"" };
        self.text.clear();
        self.text.extend_from_slice(pad);
        self.text.extend_from_slice(line.as_bytes());
        self.text.extend_from_slice(pad);
        mteval::split_periods_and_dashes(&mut self.text, &mut self.work);
        let text = std::str::from_utf8(&self.text).expect("only ASCII spaces were inserted");
        symbol_words(text, each);
    }
}

/// The words of `text` split on whitespace, each of [`mteval::is_symbol`]'s ASCII symbols a
/// word of its own.
fn symbol_words(text: &str, mut each: impl FnMut(&str)) {
    const WORD: u8 = 0;
    const SPACE: u8 = 1;
    const SYMBOL: u8 = 2;
    static CLASS: [u8; 256] = {
        let mut class = [WORD; 256];
        let mut c = 0;
        while c < 256 {
            if whitespace::is_ascii_space(c as u8) {
                class[c] = SPACE;
            } else if mteval::is_symbol(c as u8) {
                class[c] = SYMBOL;
            }
            c += 1;
        }
        class
    };
    let mut split_ascii = |text: &str| {
        let bytes = text.as_bytes();
        let mut start = 0;
        for (i, &byte) in bytes.iter().enumerate() {
            let class = CLASS[usize::from(byte)];
            if class != WORD {
                if start < i {
                    each(&text[start..i]);
                }
                if class == SYMBOL {
                    each(&text[i..i + 1]);
                }
                start = i + 1;
            }
        }
        if start < bytes.len() {
            each(&text[start..]);
        }
    };
    match text.is_ascii() {
        true => split_ascii(text),
        // Other whitespace is not ASCII: split on all of it first.
        false => whitespace::split(text).for_each(split_ascii),
    }
}

/// sacrebleu's `TokenizerV14International`: three `regex.sub`s over Unicode's general
/// categories (N numbers, P punctuation, S symbols), then single spaces.
fn mteval_14_international(line: &str, out: &mut String) {
    static PATTERNS: LazyLock<[(Regex, &str); 3]> = LazyLock::new(|| {
        let regex = |pattern: &str| Regex::new(pattern).expect("a valid pattern");
        [
            (regex(r"(\P{N})(\p{P})"), "$1 $2 "),
            (regex(r"(\p{P})(\P{N})"), " $1 $2"),
            (regex(r"(\p{S})"), " $1 "),
        ]
    });
    let mut line = std::borrow::Cow::Borrowed(line);
    for (pattern, replacement) in PATTERNS.iter() {
        line = std::borrow::Cow::Owned(pattern.replace_all(&line, *replacement).into_owned());
    }
    out.push_str(&line);
}

/// sacrebleu's `_UCODE_RANGES`, compared as it compares them: as Python strings, so the two
/// ranges written `\u20000`-`\u2a6d6` and `\u2f800`-`\u2fa1d` (meant as Extension B and the
/// compatibility supplement) are the two-character strings they are, and hold U+2001..U+2A6D and
/// U+2F81..U+2FA1 of the Basic Multilingual Plane (which also hold sacrebleu's U+2600..U+27BF).
fn is_chinese_char(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4db5}' | '\u{4e00}'..='\u{9fa5}' | '\u{9fa6}'..='\u{9fbb}' | '\u{f900}'..='\u{fa2d}'
        | '\u{fa30}'..='\u{fa6a}' | '\u{fa70}'..='\u{fad9}' | '\u{2001}'..='\u{2a6d}' | '\u{2f81}'..='\u{2fa1}'
        | '\u{ff00}'..='\u{ffef}' | '\u{2e80}'..='\u{2eff}' | '\u{3000}'..='\u{303f}' | '\u{31c0}'..='\u{31ef}'
        | '\u{2f00}'..='\u{2fdf}' | '\u{2ff0}'..='\u{2fff}' | '\u{3100}'..='\u{312f}' | '\u{31a0}'..='\u{31bf}'
        | '\u{fe10}'..='\u{fe1f}' | '\u{fe30}'..='\u{fe4f}'
        | '\u{3200}'..='\u{32ff}' | '\u{3300}'..='\u{33ff}')
}

/// Reused buffers of [`segment_stats`]: tokenised text, word ids and n-gram counts.
#[derive(Debug, Default)]
pub struct Scratch {
    tokens: Tokens,
    /// The segment's words: ids need only agree within a segment, so the vocabulary starts
    /// afresh with each one and stays small.
    vocabulary: SegmentVocabulary,
    hyp: Vec<u32>,
    refs: Vec<u32>,
    ref_ends: Vec<usize>,
    ngrams: ReferenceNgrams,
}

impl Scratch {
    fn words(&mut self, text: &str, options: &BleuOptions, hyp: bool) {
        let ids = if hyp { &mut self.hyp } else { &mut self.refs };
        let vocabulary = &mut self.vocabulary;
        self.tokens.words(text, options, |word| {
            ids.push(vocabulary.intern(word.as_bytes()))
        });
    }
}

/// An open-addressing table of which each segment uses the first 2^(64 - `shift`) slots, as
/// many as it needs: a long segment that grew the table once does not spread the next short
/// ones over memory that is not in the cache. Emptied slot by slot (the filled ones are listed),
/// probed linearly; the caller hashes, and says which slot holds its key.
#[derive(Debug)]
struct SegmentTable<S> {
    slots: Vec<S>,
    /// The filled slots, in the order they were filled.
    filled: Vec<u32>,
    shift: u32,
}

impl<S> Default for SegmentTable<S> {
    fn default() -> Self {
        SegmentTable {
            slots: Vec::new(),
            filled: Vec::new(),
            shift: 64,
        }
    }
}

/// What a [`SegmentTable`] holds.
trait Slot: Copy {
    const EMPTY: Self;
    fn is_empty(&self) -> bool;
}

impl<S: Slot> SegmentTable<S> {
    /// Empty, with `wanted` slots (a power of two) in use. A table grown past four times that
    /// and past 2^16 slots by a long segment is given back.
    fn reset(&mut self, wanted: usize) {
        for &at in &self.filled {
            self.slots[at as usize] = S::EMPTY;
        }
        self.filled.clear();
        if self.slots.len() > (4 * wanted).max(1 << 16) {
            self.slots = Vec::new();
        }
        self.slots.resize(self.slots.len().max(wanted), S::EMPTY);
        self.shift = 64 - wanted.trailing_zeros();
    }

    fn len(&self) -> usize {
        self.filled.len()
    }

    /// The slots this segment uses.
    fn in_use(&self) -> usize {
        1 << (64 - self.shift)
    }

    /// The slot holding the key `is_key` looks for, or the empty slot where it would go.
    #[inline(always)]
    fn find(&self, hash: u64, is_key: impl Fn(&S) -> bool) -> Result<usize, usize> {
        let mask = self.in_use() - 1;
        let mut at = (hash >> self.shift) as usize;
        loop {
            let slot = &self.slots[at];
            if slot.is_empty() {
                return Err(at);
            }
            if is_key(slot) {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    fn fill(&mut self, at: usize, slot: S) {
        self.slots[at] = slot;
        self.filled.push(at as u32);
    }

    /// Use twice as many slots, moving the filled ones to their new places (the filled list
    /// keeps its order).
    fn double(&mut self, hash: impl Fn(&S) -> u64) {
        let moved: Vec<S> = self
            .filled
            .iter()
            .map(|&at| std::mem::replace(&mut self.slots[at as usize], S::EMPTY))
            .collect();
        self.shift -= 1;
        self.slots
            .resize(self.slots.len().max(self.in_use()), S::EMPTY);
        for (i, slot) in moved.into_iter().enumerate() {
            let free = self.find(hash(&slot), |_| false).unwrap_err();
            self.slots[free] = slot;
            self.filled[i] = free as u32;
        }
    }
}

/// Words to ids 0, 1, 2 ... in order of appearance, in a [`SegmentTable`] at most half full.
/// A word's first 16 bytes and its length are its key; the bytes past 16 of long words are kept
/// apart and compared too.
#[derive(Debug, Default)]
struct SegmentVocabulary {
    table: SegmentTable<WordSlot>,
    tails: Vec<u8>,
}

/// Slots a segment's vocabulary starts with: 128 words.
const FIRST_SLOTS: usize = 256;

#[derive(Debug, Clone, Copy)]
struct WordSlot {
    head: u128,
    len: u32,
    /// `u32::MAX` in an empty slot.
    id: u32,
    /// Where the bytes past 16 start in `tails`.
    tail: u32,
}

impl Slot for WordSlot {
    const EMPTY: Self = WordSlot {
        head: 0,
        len: 0,
        id: u32::MAX,
        tail: 0,
    };
    fn is_empty(&self) -> bool {
        self.id == u32::MAX
    }
}

impl SegmentVocabulary {
    fn clear(&mut self) {
        self.table.reset(FIRST_SLOTS);
        self.tails.clear();
    }

    fn len(&self) -> usize {
        self.table.len()
    }

    fn intern(&mut self, word: &[u8]) -> u32 {
        let head = word_head(word);
        let len = word.len() as u32;
        let tail = word.get(16..).unwrap_or_default();
        let found = self.table.find(word_hash(head, len), |slot| {
            slot.head == head
                && slot.len == len
                && (tail.is_empty() || &self.tails[slot.tail as usize..][..tail.len()] == tail)
        });
        let at = match found {
            Ok(at) => return self.table.slots[at].id,
            Err(at) => at,
        };
        let id = self.table.len() as u32;
        let slot = WordSlot {
            head,
            len,
            id,
            tail: self.tails.len() as u32,
        };
        self.table.fill(at, slot);
        self.tails.extend_from_slice(tail);
        if 2 * self.table.len() > self.table.in_use() {
            self.table.double(|slot| word_hash(slot.head, slot.len));
        }
        id
    }
}

/// Up to 16 bytes of a word as one number that, with the word's length, tells its first 16
/// bytes: read in at most two overlapping loads, as fast hash functions read short input.
fn word_head(word: &[u8]) -> u128 {
    let u64_at = |at: usize| u64::from_le_bytes(word[at..at + 8].try_into().expect("8 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(word[at..at + 4].try_into().expect("4 bytes"));
    let len = word.len();
    let (low, high) = match len {
        16.. => (u64_at(0), u64_at(8)),
        8..16 => (u64_at(0), u64_at(len - 8)),
        4..8 => (u64::from(u32_at(0)), u64::from(u32_at(len - 4))),
        1..4 => {
            let byte = |at: usize| u64::from(word[at]);
            (byte(0) | byte(len / 2) << 8 | byte(len - 1) << 16, 0)
        }
        0 => (0, 0),
    };
    u128::from(low) | u128::from(high) << 64
}

/// A word's hash: its head and length mixed, the two halves of the product folded.
fn word_hash(head: u128, len: u32) -> u64 {
    let mixed = (head as u64) ^ ((head >> 64) as u64).rotate_left(29) ^ u64::from(len) << 58;
    let product = u128::from(mixed) * 0x9e37_79b9_7f4a_7c15_u128;
    product as u64 ^ (product >> 64) as u64
}

/// The n-grams of a segment's references, packed ([`packed_ngrams`]), with how often each
/// occurs in the reference that has it most, in a [`SegmentTable`] at most half full.
#[derive(Debug, Default)]
struct ReferenceNgrams {
    table: SegmentTable<NgramSlot>,
}

#[derive(Debug, Clone, Copy)]
struct NgramSlot {
    /// 0 in an empty slot (a packed n-gram is never 0).
    ngram: u64,
    /// The most occurrences in one reference, then taken one by one by the hypothesis.
    most: u32,
    /// Occurrences in `reference`, the reference counted now.
    here: u32,
    reference: u32,
}

impl Slot for NgramSlot {
    const EMPTY: Self = NgramSlot {
        ngram: 0,
        most: 0,
        here: 0,
        reference: 0,
    };
    fn is_empty(&self) -> bool {
        self.ngram == 0
    }
}

impl ReferenceNgrams {
    /// Empty, with room for `ngrams` n-grams.
    fn reset(&mut self, ngrams: usize) {
        let slots = (2 * ngrams).next_power_of_two().max(64);
        self.table.reset(slots);
    }

    fn slot(&self, ngram: u64) -> Result<usize, usize> {
        let hash = ngram.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.table.find(hash, |slot| slot.ngram == ngram)
    }

    fn add(&mut self, ngram: u64, reference: u32) {
        let at = match self.slot(ngram) {
            Ok(at) => at,
            Err(at) => {
                let slot = NgramSlot {
                    ngram,
                    reference,
                    ..NgramSlot::EMPTY
                };
                self.table.fill(at, slot);
                at
            }
        };
        let slot = &mut self.table.slots[at];
        if reference == 0 {
            // The first reference's count is its most so far.
            slot.most += 1;
            return;
        }
        if slot.reference != reference {
            (slot.here, slot.reference) = (0, reference);
        }
        slot.here += 1;
        slot.most = slot.most.max(slot.here);
    }

    /// Take one of the references' occurrences of `ngram`: `None` when no reference has it,
    /// else whether one was left.
    fn take(&mut self, ngram: u64) -> Option<bool> {
        let at = self.slot(ngram).ok()?;
        let most = &mut self.table.slots[at].most;
        let left = *most > 0;
        *most -= u32::from(left);
        Some(left)
    }
}

/// The largest order a packed n-gram holds: four 16-bit word ids (plus one) in a u64, so
/// segments of at most 65,535 distinct words.
const PACKED_ORDER: usize = 4;

/// Every n-gram of order 1..=`max_order` (at most [`PACKED_ORDER`]) of `words`, each word's id
/// plus one in 16 bits, the first word highest, unused places 0, with its order less one; from
/// each start, shortest first, while `each` returns true.
fn packed_ngrams(words: &[u32], max_order: usize, mut each: impl FnMut(usize, u64) -> bool) {
    for start in 0..words.len() {
        let mut ngram = 0u64;
        for (n, &word) in words[start..].iter().take(max_order).enumerate() {
            ngram |= u64::from(word + 1) << (16 * (PACKED_ORDER - 1 - n));
            if !each(n, ngram) {
                break;
            }
        }
    }
}

/// A segment's sufficient statistics into `stats` ([`BleuOptions::stats_len`] long):
/// `[hyp_len, ref_len, matched n-grams of order 1..=N, hypothesis n-grams of order 1..=N]`.
pub fn segment_stats(
    hyp: &str,
    refs: &[&str],
    options: &BleuOptions,
    scratch: &mut Scratch,
    stats: &mut [u64],
) -> Result<(), BleuError> {
    if refs.is_empty() {
        return Err(BleuError::NoReference);
    }
    scratch.vocabulary.clear();
    scratch.hyp.clear();
    scratch.refs.clear();
    scratch.ref_ends.clear();
    scratch.words(hyp, options, true);
    for reference in refs {
        scratch.words(reference, options, false);
        scratch.ref_ends.push(scratch.refs.len());
    }
    let order = options.max_order;
    let ref_lens = scratch.ref_ends.iter().scan(0, |start, &end| {
        Some((end - std::mem::replace(start, end)) as u64)
    });
    let hyp_len = scratch.hyp.len() as u64;
    stats.fill(0);
    stats[0] = hyp_len;
    stats[1] = closest_ref_len(hyp_len, ref_lens);
    let (correct, total) = stats[2..].split_at_mut(order);
    for (n, total) in total.iter_mut().enumerate() {
        *total = hyp_len.saturating_sub(n as u64);
    }
    if order > PACKED_ORDER || scratch.vocabulary.len() > usize::from(u16::MAX) {
        count_matches_unpacked(scratch, order, correct);
        return Ok(());
    }
    let Scratch {
        hyp,
        refs,
        ref_ends,
        ngrams,
        ..
    } = scratch;
    ngrams.reset(refs.len() * order);
    let mut start = 0;
    for (reference, &end) in ref_ends.iter().enumerate() {
        packed_ngrams(&refs[start..end], order, |_, ngram| {
            ngrams.add(ngram, reference as u32);
            true
        });
        start = end;
    }
    // Each hypothesis n-gram takes one of the references' occurrences while any is left: so
    // each distinct n-gram matches min(its count, the references' count) times, the clip.
    // No reference has an n-gram that extends one none has.
    packed_ngrams(hyp, order, |n, ngram| match ngrams.take(ngram) {
        None => false,
        Some(taken) => {
            correct[n] += u64::from(taken);
            true
        }
    });
    Ok(())
}

/// The matched n-grams of long n-grams or of segments of many words: counted as slices of
/// word ids.
fn count_matches_unpacked(scratch: &Scratch, order: usize, correct: &mut [u64]) {
    let capacity = order * (scratch.hyp.len() + 1);
    let mut in_refs: HashMap<&[u32], u32> =
        HashMap::with_capacity(capacity * scratch.ref_ends.len());
    let mut in_one: HashMap<&[u32], u32> = HashMap::with_capacity(capacity);
    let mut start = 0;
    for &end in &scratch.ref_ends {
        in_one.clear();
        count_ngrams(&scratch.refs[start..end], order, &mut in_one);
        for (&ngram, &count) in &in_one {
            let most = in_refs.entry(ngram).or_default();
            *most = (*most).max(count);
        }
        start = end;
    }
    let mut in_hyp = in_one;
    in_hyp.clear();
    count_ngrams(&scratch.hyp, order, &mut in_hyp);
    for (ngram, &count) in &in_hyp {
        if let Some(&most) = in_refs.get(ngram) {
            correct[ngram.len() - 1] += u64::from(count.min(most));
        }
    }
}

fn count_ngrams<'a>(words: &'a [u32], max_order: usize, counts: &mut HashMap<&'a [u32], u32>) {
    for n in 1..=max_order {
        for ngram in words.windows(n) {
            *counts.entry(ngram).or_default() += 1;
        }
    }
}

/// The reference length closest to the hypothesis length; the shorter of two as close.
fn closest_ref_len(hyp_len: u64, ref_lens: impl Iterator<Item = u64>) -> u64 {
    ref_lens
        .min_by_key(|&len| (len.abs_diff(hyp_len), len))
        .expect("at least one reference")
}

/// Add a segment's statistics to a running total (the sums are the corpus statistics).
pub use crate::add_stats;

/// A BLEU score with what it is made of, as sacrebleu's `BLEUScore` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bleu {
    /// 0-100.
    pub score: f64,
    /// Per order, 0-100 (smoothed).
    pub precisions: Vec<f64>,
    /// The brevity penalty.
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

/// BLEU of (summed) statistics, as sacrebleu's `BLEU.compute_bleu`.
pub fn bleu(stats: &[u64], options: &BleuOptions) -> Bleu {
    let order = options.max_order;
    let (sys_len, ref_len) = (stats[0], stats[1]);
    let as_f64 = |counts: &[u64]| counts.iter().map(|&c| c as f64).collect();
    let (score, precisions, bp) = compute_bleu::<f64>(
        (sys_len, ref_len),
        as_f64(&stats[2..2 + order]),
        as_f64(&stats[2 + order..2 + 2 * order]),
        options,
    );
    Bleu {
        score,
        precisions,
        bp,
        sys_len,
        ref_len,
    }
}

/// The number type sacrebleu's `compute_bleu` counts in: Python floats (f64) for a corpus,
/// numpy's float32 rows in its paired tests. Constants are made in f64 and then converted, as
/// Python makes them before numpy meets them.
pub(crate) trait Counts:
    Copy + PartialEq + std::ops::AddAssign + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self>
{
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Counts for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Counts for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// sacrebleu's `BLEU.compute_bleu` on the matches and totals per order: (score, smoothed
/// precisions, brevity penalty), every precision computed in `F`, the logarithms and the
/// score in f64.
pub(crate) fn compute_bleu<F: Counts>(
    (sys_len, ref_len): (u64, u64),
    mut correct: Vec<F>,
    mut total: Vec<F>,
    options: &BleuOptions,
) -> (f64, Vec<f64>, f64) {
    let order = options.max_order;
    let zero = F::from_f64(0.0);
    let bp = match (sys_len < ref_len, sys_len > 0) {
        (false, _) => 1.0,
        (true, true) => (1.0 - ref_len as f64 / sys_len as f64).exp(),
        (true, false) => 0.0,
    };
    let mut precisions = vec![0.0; order];
    if correct.iter().all(|&c| c == zero) {
        return (0.0, precisions, bp);
    }
    let mut smooth_mteval = 1.0;
    let mut effective_order = order;
    for n in 0..order {
        if let Smoothing::AddK(k) = options.smoothing
            && n > 0
        {
            correct[n] += F::from_f64(k);
            total[n] += F::from_f64(k);
        }
        if total[n] == zero {
            break;
        }
        if options.effective_order {
            effective_order = n + 1;
        }
        if correct[n] == zero {
            match options.smoothing {
                Smoothing::Exp => {
                    smooth_mteval *= 2.0;
                    precisions[n] =
                        (F::from_f64(100.0) / (F::from_f64(smooth_mteval) * total[n])).to_f64();
                }
                Smoothing::Floor(value) => {
                    precisions[n] = (F::from_f64(100.0 * value) / total[n]).to_f64()
                }
                Smoothing::None | Smoothing::AddK(_) => {}
            }
        } else {
            precisions[n] = (F::from_f64(100.0) * correct[n] / total[n]).to_f64();
        }
    }
    // sacrebleu's my_log: log, with -9999999999 for 0.
    let log = |p: f64| if p == 0.0 { -9999999999.0 } else { p.ln() };
    let sum = precisions[..effective_order]
        .iter()
        .fold(0.0, |sum, &p| sum + log(p));
    (bp * (sum / effective_order as f64).exp(), precisions, bp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `TokenizerRegexp`'s words pass after pass, as sacrebleu runs its patterns: spaces around
    /// symbols first, then the periods, commas and dashes, then `str.split()`.
    fn words_by_the_passes(line: &str, padded: bool) -> Vec<String> {
        let pad: &[u8] = if padded { b" " } else { b"" };
        let (mut text, mut work) = (Vec::new(), Vec::new());
        mteval::space_symbols(&[pad, line.as_bytes(), pad], &mut text);
        mteval::split_periods_and_dashes(&mut text, &mut work);
        whitespace::split(std::str::from_utf8(&text).unwrap())
            .map(String::from)
            .collect()
    }

    fn words_split_at_symbols_last(line: &str, padded: bool) -> Vec<String> {
        let mut words = Vec::new();
        Tokens::default().regexp_tokenize(line, padded, |word| words.push(word.to_string()));
        words
    }

    /// Characters of every class the patterns tell apart: letters, digits, `.` `,` `-`, space,
    /// symbols, other ASCII and Unicode whitespace, a multi-byte letter.
    const ALPHABET: [&str; 12] = [
        "a", "1", ".", ",", "-", " ", "$", "'", "\t", "\u{a0}", "é", "<",
    ];

    #[test]
    fn symbols_split_last_give_the_words_of_the_passes_for_every_short_line() {
        let mut lines = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = lines
                .iter()
                .flat_map(|line| ALPHABET.iter().map(move |c| format!("{line}{c}")))
                .collect();
            for line in &longer {
                for padded in [true, false] {
                    assert_eq!(
                        words_split_at_symbols_last(line, padded),
                        words_by_the_passes(line, padded),
                        "{line:?}, padded: {padded}"
                    );
                }
            }
            lines = longer;
        }
    }

    /// Statistics of the packed path and matches counted as slices, for one segment.
    fn packed_and_as_slices(
        hyp: &str,
        refs: &[&str],
        scratch: &mut Scratch,
    ) -> (Vec<u64>, Vec<u64>) {
        let options = BleuOptions::default();
        let mut packed = vec![0; options.stats_len()];
        segment_stats(hyp, refs, &options, scratch, &mut packed).unwrap();
        let mut as_slices = vec![0; options.max_order];
        count_matches_unpacked(scratch, options.max_order, &mut as_slices);
        (packed[2..2 + options.max_order].to_vec(), as_slices)
    }

    #[test]
    fn long_segments_grow_the_tables_and_short_ones_after_them_count_the_same() {
        let words = |n: usize, step: usize| -> String {
            (0..n).map(|i| format!("w{} ", i * step % n)).collect()
        };
        let mut scratch = Scratch::default();
        for (hyp, reference) in [
            (words(3000, 1), words(3000, 7)),
            ("w1 w2 w3 w4".to_string(), "w1 w2 w3 w5".to_string()),
            (words(70_000, 1), words(70_001, 7)),
            ("a b c a b".to_string(), "a b a b c".to_string()),
        ] {
            let (packed, as_slices) = packed_and_as_slices(&hyp, &[&reference], &mut scratch);
            assert_eq!(packed, as_slices);
        }
        let (packed, _) = packed_and_as_slices("w1 w2 w3 w4", &["w1 w2 w3 w5"], &mut scratch);
        assert_eq!(packed, [3, 2, 1, 0]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn symbols_split_last_give_the_words_of_the_passes(
            chars in proptest::collection::vec(0..ALPHABET.len(), 0..40),
            padded: bool,
        ) {
            let line: String = chars.iter().map(|&c| ALPHABET[c]).collect();
            prop_assert_eq!(
                words_split_at_symbols_last(&line, padded),
                words_by_the_passes(&line, padded)
            );
        }

        /// The packed n-gram table against n-grams counted as slices, with several references
        /// and long words that share their first 16 bytes.
        #[test]
        fn packed_ngrams_match_as_slices_do(
            segments in proptest::collection::vec(proptest::collection::vec(0..8usize, 0..30), 1..5),
        ) {
            const WORDS: [&str; 8] = [
                "a", "b", "the", "internationalisation", "internationalisations",
                "internationalisation-", "Überraschungsmoment", "Überraschungsmomente",
            ];
            let texts: Vec<String> = segments
                .iter()
                .map(|words| words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "))
                .collect();
            let refs: Vec<&str> = texts[1..].iter().map(String::as_str).collect();
            let refs = if refs.is_empty() { vec![texts[0].as_str()] } else { refs };
            let (packed, as_slices) = packed_and_as_slices(&texts[0], &refs, &mut Scratch::default());
            prop_assert_eq!(packed, as_slices);
        }
    }

    fn stats(hyp: &str, refs: &[&str], options: &BleuOptions) -> Vec<u64> {
        let mut out = vec![0; options.stats_len()];
        segment_stats(hyp, refs, options, &mut Scratch::default(), &mut out).unwrap();
        out
    }

    #[test]
    fn statistics_by_hand() {
        // hyp: the the the the (4 unigrams, 3 bigrams ...); refs clip "the" at 2 (the second has it twice).
        let options = BleuOptions::default();
        assert_eq!(
            stats("the the the the", &["the cat", "the the cat"], &options),
            [4, 3, 2, 1, 0, 0, 4, 3, 2, 1]
        );
        // lengths 3 and 5 are both 1 from 4: the shorter is taken
        assert_eq!(
            stats("a b c d", &["a b c", "a b c d e"], &options)[..2],
            [4, 3]
        );
    }

    #[test]
    fn a_perfect_match_scores_100_and_no_match_0() {
        let options = BleuOptions::default();
        let perfect = stats(
            "the cat sat on the mat",
            &["the cat sat on the mat"],
            &options,
        );
        assert_eq!(
            bleu(&perfect, &options).score,
            100.00000000000004,
            "sacrebleu's value: exp of the mean of ln 100"
        );
        let none = stats("x y z", &["a b c"], &options);
        assert_eq!(bleu(&none, &options).score, 0.0);
    }

    #[test]
    fn options_read_from_signature_words() {
        let base = BleuOptions::default();
        let options = base
            .parse("tok:char | case:lc|eff:yes|smooth:floor[0.25]|order:2")
            .unwrap();
        let want = BleuOptions {
            tokenizer: Tokenizer::Char,
            lowercase: true,
            smoothing: Smoothing::Floor(0.25),
            max_order: 2,
            effective_order: true,
        };
        assert_eq!(options, want);
        let signature = base.signature(Some(1));
        assert_eq!(base.parse(&signature).unwrap(), base);
        assert_eq!(
            base.parse("smooth:add-k").unwrap().smoothing,
            Smoothing::AddK(1.0)
        );
        assert_eq!(
            base.parse("version:2.5.1"),
            Err(BleuError::Version("2.5.1".into()))
        );
        assert_eq!(base.parse("tok"), Err(BleuError::Option("tok".into())));
        assert_eq!(base.parse("order:0"), Err(BleuError::MaxOrder(0)));
        assert_eq!(
            base.parse("smooth:floor[x]"),
            Err(BleuError::Option("smooth:floor[x]".into()))
        );
    }

    #[test]
    fn options_sacrebleu_rejects() {
        assert_eq!(
            "ja-mecab".parse::<Tokenizer>(),
            Err(BleuError::UnsupportedTokenizer("ja-mecab".into()))
        );
        assert_eq!(
            "13b".parse::<Tokenizer>(),
            Err(BleuError::UnknownTokenizer("13b".into()))
        );
        assert_eq!(
            Smoothing::new("add-one", None),
            Err(BleuError::UnknownSmoothing("add-one".into()))
        );
        assert_eq!(
            BleuOptions {
                max_order: 0,
                ..BleuOptions::default()
            }
            .check(),
            Err(BleuError::MaxOrder(0))
        );
        let mut out = vec![0; 10];
        let none = segment_stats(
            "a",
            &[],
            &BleuOptions::default(),
            &mut Scratch::default(),
            &mut out,
        );
        assert_eq!(none, Err(BleuError::NoReference));
    }
}
