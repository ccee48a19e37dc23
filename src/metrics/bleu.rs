//! BLEU (Papineni et al. 2002) exactly as sacrebleu 2.6 computes it (Post 2018): its tokenisers,
//! a segment's sufficient statistics (the two lengths, then matched and total n-grams per order),
//! the score of summed statistics (a corpus score is not a mean of sentence scores), smoothing,
//! effective order and signature. Plain Rust: no Arrow here.
//!
//! The decisions that make it equal to sacrebleu to the last bit:
//! - text is Unicode code points, split where Python's `str.split()` splits
//!   ([`is_python_whitespace`]); lowercasing is Unicode's, as Python's `str.lower()`;
//! - the 13a tokeniser's four regular expressions run one after the other, each left to right
//!   without overlaps, as `re.sub` runs them, on the line with a space added at each end; over
//!   UTF-8 bytes, which gives the same text, as every pattern matches ASCII only;
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

use super::intern::Interner;
use super::{is_python_whitespace, mteval, python_words};

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
            Smoothing::Floor(value) => format!("floor[{value:.2}]"),
            Smoothing::AddK(value) => format!("add-k[{value:.2}]"),
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

/// sacrebleu's preprocessing of a segment: lowercase when asked, strip trailing whitespace, then
/// tokenise. The words are `out` split on whitespace.
pub fn tokenize(text: &str, options: &BleuOptions, out: &mut String) {
    let mut spaced = String::new();
    tokenize_with(text, options, &mut Bytes::default(), &mut spaced);
    out.clear();
    match options.tokenizer {
        Tokenizer::Mteval13a | Tokenizer::Intl | Tokenizer::Zh => join_words(&spaced, out),
        Tokenizer::Char | Tokenizer::None => *out = spaced,
    }
}

/// Text whose words (as Python's `str.split()` gives them) are the tokens: what [`tokenize`]
/// returns before it joins them with single spaces (13a, intl, zh), which counting n-grams does
/// not need.
fn tokenize_with(text: &str, options: &BleuOptions, bytes: &mut Bytes, out: &mut String) {
    out.clear();
    let lowered;
    let text = match options.lowercase {
        true => {
            lowered = text.to_lowercase();
            &lowered
        }
        false => text,
    };
    let text = text.trim_end_matches(is_python_whitespace);
    match options.tokenizer {
        Tokenizer::Mteval13a => mteval_13a(text, bytes, out),
        Tokenizer::Intl => mteval_14_international(text, out),
        Tokenizer::Zh => chinese(text, bytes, out),
        Tokenizer::Char => {
            for (i, c) in text.chars().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push(c);
            }
        }
        Tokenizer::None => out.push_str(text),
    }
}

/// mteval-v13a's tokenisation as sacrebleu's `Tokenizer13a` does it.
fn mteval_13a(line: &str, bytes: &mut Bytes, out: &mut String) {
    // Its replacements, in its order; only lines holding one of these bytes can change.
    let replaced;
    let line = match line
        .as_bytes()
        .iter()
        .any(|b| matches!(b, b'<' | b'\n' | b'&'))
    {
        false => line,
        true => {
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
    bytes.regexp_tokenize(line, true, out);
}

/// Buffers for [`TokenizerRegexp`](Bytes::regexp_tokenize)'s passes.
#[derive(Debug, Default)]
struct Bytes {
    text: Vec<u8>,
    work: Vec<u8>,
}

impl Bytes {
    /// sacrebleu's `TokenizerRegexp`, the language-dependent part of 13a, on the line (with a
    /// space added at each end when `padded`, as 13a calls it).
    fn regexp_tokenize(&mut self, line: &str, padded: bool, out: &mut String) {
        let pad: &[u8] = if padded { b" " } else { b"" };
        mteval::space_symbols(&[pad, line.as_bytes(), pad], &mut self.text);
        mteval::split_periods_and_dashes(&mut self.text, &mut self.work);
        out.push_str(std::str::from_utf8(&self.text).expect("only ASCII spaces were inserted"));
    }
}

/// `' '.join(text.split())`.
fn join_words(text: &str, out: &mut String) {
    for (i, word) in python_words(text).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
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

/// sacrebleu's `TokenizerZh`: stripped, each character of its Chinese ranges surrounded by
/// spaces, then `TokenizerRegexp`.
fn chinese(line: &str, bytes: &mut Bytes, out: &mut String) {
    let mut spaced = String::with_capacity(line.len() * 2);
    for c in line.trim_matches(is_python_whitespace).chars() {
        match is_chinese_char(c) {
            true => {
                spaced.push(' ');
                spaced.push(c);
                spaced.push(' ');
            }
            false => spaced.push(c),
        }
    }
    bytes.regexp_tokenize(&spaced, false, out);
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

/// Reused buffers: tokenised text, word ids and n-gram counts. Ids only need to agree within a
/// segment, so the vocabulary is dropped when it grows large.
#[derive(Debug, Default)]
pub struct Scratch {
    bytes: Bytes,
    text: String,
    vocabulary: Interner,
    hyp: Vec<u32>,
    refs: Vec<u32>,
    ref_ends: Vec<usize>,
    /// N-gram counts of one reference, and the most of any reference.
    in_one: HashMap<Ngram, u32>,
    in_refs: HashMap<Ngram, u32>,
}

impl Scratch {
    fn words(&mut self, text: &str, options: &BleuOptions, hyp: bool) {
        tokenize_with(text, options, &mut self.bytes, &mut self.text);
        let ids = if hyp { &mut self.hyp } else { &mut self.refs };
        ids.extend(python_words(&self.text).map(|w| self.vocabulary.intern(w)));
    }
}

/// An n-gram of up to [`PACKED_ORDER`] words as one integer: each word's id plus one in 32
/// bits, the first word highest, unused places 0 (so n-grams of different orders differ).
type Ngram = u128;

/// The largest order [`Ngram`] holds; longer n-grams are counted as slices.
const PACKED_ORDER: usize = 4;

/// Every n-gram of order 1..=`max_order` (at most [`PACKED_ORDER`]) of `words`, with its
/// order less one.
fn packed_ngrams(words: &[u32], max_order: usize) -> impl Iterator<Item = (usize, Ngram)> + '_ {
    (0..words.len()).flat_map(move |start| {
        let mut ngram: Ngram = 0;
        words[start..]
            .iter()
            .take(max_order)
            .enumerate()
            .map(move |(n, &word)| {
                ngram |= Ngram::from(word + 1) << (32 * (PACKED_ORDER - 1 - n));
                (n, ngram)
            })
    })
}

/// Count every n-gram of `words` up to `max_order` into `counts`.
fn count_packed(words: &[u32], max_order: usize, counts: &mut HashMap<Ngram, u32>) {
    counts.clear();
    for (_, ngram) in packed_ngrams(words, max_order) {
        *counts.entry(ngram).or_default() += 1;
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
    if scratch.vocabulary.len() > 1 << 20 {
        scratch.vocabulary = Interner::default();
    }
    scratch.hyp.clear();
    scratch.refs.clear();
    scratch.ref_ends.clear();
    scratch.words(hyp, options, true);
    for reference in refs {
        scratch.words(reference, options, false);
        scratch.ref_ends.push(scratch.refs.len());
    }
    let order = options.max_order;
    let mut ref_lens = Vec::with_capacity(refs.len());
    let mut start = 0;
    for &end in &scratch.ref_ends {
        ref_lens.push((end - start) as u64);
        start = end;
    }
    let hyp_len = scratch.hyp.len() as u64;
    stats.fill(0);
    stats[0] = hyp_len;
    stats[1] = closest_ref_len(hyp_len, &ref_lens);
    let (correct, total) = stats[2..].split_at_mut(order);
    for (n, total) in total.iter_mut().enumerate() {
        *total = hyp_len.saturating_sub(n as u64);
    }
    if order > PACKED_ORDER {
        count_matches_unpacked(scratch, order, correct);
        return Ok(());
    }
    let Scratch {
        hyp,
        refs,
        ref_ends,
        in_one,
        in_refs,
        ..
    } = scratch;
    let mut start = 0;
    for (i, &end) in ref_ends.iter().enumerate() {
        let words = &refs[start..end];
        start = end;
        if i == 0 {
            count_packed(words, order, in_refs);
            continue;
        }
        count_packed(words, order, in_one);
        for (&ngram, &count) in in_one.iter() {
            let most = in_refs.entry(ngram).or_default();
            *most = (*most).max(count);
        }
    }
    // Each hypothesis n-gram takes one of the references' occurrences while any is left: so
    // each distinct n-gram matches min(its count, the references' count) times, the clip.
    for (n, ngram) in packed_ngrams(hyp, order) {
        if let Some(left) = in_refs.get_mut(&ngram)
            && *left > 0
        {
            *left -= 1;
            correct[n] += 1;
        }
    }
    Ok(())
}

/// The matched n-grams of orders past [`PACKED_ORDER`]: counted as slices of word ids.
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
fn closest_ref_len(hyp_len: u64, ref_lens: &[u64]) -> u64 {
    *ref_lens
        .iter()
        .min_by_key(|&&len| (len.abs_diff(hyp_len), len))
        .expect("at least one reference")
}

/// Add a segment's statistics to a running total (the sums are the corpus statistics).
pub use super::add_stats;

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
    let mut correct: Vec<f64> = stats[2..2 + order].iter().map(|&c| c as f64).collect();
    let mut total: Vec<f64> = stats[2 + order..2 + 2 * order]
        .iter()
        .map(|&t| t as f64)
        .collect();
    let bp = match (sys_len < ref_len, sys_len > 0) {
        (false, _) => 1.0,
        (true, true) => (1.0 - ref_len as f64 / sys_len as f64).exp(),
        (true, false) => 0.0,
    };
    let mut precisions = vec![0.0; order];
    if correct.iter().all(|&c| c == 0.0) {
        return Bleu {
            score: 0.0,
            precisions,
            bp,
            sys_len,
            ref_len,
        };
    }
    let mut smooth_mteval = 1.0;
    let mut effective_order = order;
    for n in 0..order {
        if let Smoothing::AddK(k) = options.smoothing
            && n > 0
        {
            correct[n] += k;
            total[n] += k;
        }
        if total[n] == 0.0 {
            break;
        }
        if options.effective_order {
            effective_order = n + 1;
        }
        if correct[n] == 0.0 {
            match options.smoothing {
                Smoothing::Exp => {
                    smooth_mteval *= 2.0;
                    precisions[n] = 100.0 / (smooth_mteval * total[n]);
                }
                Smoothing::Floor(value) => precisions[n] = 100.0 * value / total[n],
                Smoothing::None | Smoothing::AddK(_) => {}
            }
        } else {
            precisions[n] = 100.0 * correct[n] / total[n];
        }
    }
    // sacrebleu's my_log: log, with -9999999999 for 0.
    let log = |p: f64| if p == 0.0 { -9999999999.0 } else { p.ln() };
    let sum = precisions[..effective_order]
        .iter()
        .fold(0.0, |sum, &p| sum + log(p));
    Bleu {
        score: bp * (sum / effective_order as f64).exp(),
        precisions,
        bp,
        sys_len,
        ref_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
