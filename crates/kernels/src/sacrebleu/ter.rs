//! TER, the translation edit rate (Snover et al. 2006), exactly as sacrebleu 2.6 computes it: its
//! Tercom tokeniser (`normalized`, `no_punct`, `asian_support`, `case_sensitive`), the greedy
//! search for block shifts with Tercom's limits, the edit distance kept to a beam around the
//! diagonal, several references, a segment's sufficient statistics and the score of summed
//! statistics. Plain Rust: no Arrow here.
//!
//! The decisions that make it equal to sacrebleu:
//! - the shift search is sacrebleu's `lib_ter`, step for step: candidates in the same order, the
//!   same ranking (largest gain, then longest, then earliest start, then earliest target), at
//!   most 1,000 candidates per segment (the search stops there, discarding the last round's
//!   best), shifts of at most 10 words over at most 50 positions;
//! - the beam edit distance fills the same cells, so the same ties resolve the same way
//!   (substitution or match, then deletion, then insertion); sacrebleu's cache of rows only saves
//!   time, and rows of a shared prefix are reused here in its place;
//! - a segment with several references takes the fewest edits over them and the mean of their
//!   lengths; the corpus sums both.
//!
//! A segment's statistics are integers, `[edits, reference words, references]`, so that corpus
//! sums are exact whatever the order of rows: the mean reference length of a row is
//! `words / references`, which sacrebleu sums as floats row by row. Both agree exactly when every
//! row has 1, 2, 4 or 8 references (the means are then exact binary fractions); otherwise they
//! may differ in the last bits.

use std::fmt;

use super::mteval;
use crate::sacrebleu::bleu::SACREBLEU_VERSION;
use crate::text::intern::Interner;
use crate::text::whitespace;

/// Tercom's limits on a shift, as sacrebleu keeps them.
const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
const BEAM_WIDTH: i64 = 25;
/// sacrebleu's own limit: shift candidates evaluated per segment.
const MAX_SHIFT_CANDIDATES: usize = 1000;
/// sacrebleu's stand-in for infinity in the edit-distance matrix.
const INFINITY: i64 = 10_000_000_000_000_000;

/// sacrebleu's `TER(...)` arguments; the default is its TER (lowercased, no normalisation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TerOptions {
    /// Tercom's normalisation: punctuation split off, XML entities decoded, joined lines.
    pub normalized: bool,
    /// Remove punctuation.
    pub no_punct: bool,
    /// With `normalized`, split CJK characters; with `no_punct`, remove CJK punctuation too.
    pub asian_support: bool,
    /// Keep case (sacrebleu lowercases by default).
    pub case_sensitive: bool,
}

impl TerOptions {
    /// Options written in the words of sacrebleu's signature, over `self`: `|`-separated
    /// `case:lc|mixed`, `norm:yes|no`, `punct:yes|no` (no: remove punctuation), `asian:yes|no`
    /// and `tok:tercom`. A whole signature reads back as its options: `nrefs` is ignored (the
    /// references are counted) and `version` must be this one.
    pub fn parse(&self, text: &str) -> Result<TerOptions, TerError> {
        let mut options = *self;
        let bad = |item: &str| TerError::Option(item.to_string());
        for item in text
            .split('|')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (key, value) = item.split_once(':').ok_or_else(|| bad(item))?;
            let flag = || match value.trim() {
                "yes" => Ok(true),
                "no" => Ok(false),
                _ => Err(bad(item)),
            };
            match (key.trim(), value.trim()) {
                ("case", "lc") => options.case_sensitive = false,
                ("case", "mixed") => options.case_sensitive = true,
                ("norm", _) => options.normalized = flag()?,
                ("punct", _) => options.no_punct = !flag()?,
                ("asian", _) => options.asian_support = flag()?,
                ("tok", "tercom") => {}
                ("nrefs", _) => {}
                ("version", SACREBLEU_VERSION) => {}
                ("version", other) => return Err(TerError::Version(other.to_string())),
                _ => return Err(bad(item)),
            }
        }
        Ok(options)
    }

    /// sacrebleu's signature for these options and `refs` references per segment (`None`: the
    /// number varies), e.g. `nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0`.
    pub fn signature(&self, refs: Option<usize>) -> String {
        let refs = refs.map_or("var".to_string(), |n| n.to_string());
        let yes = |flag: bool| if flag { "yes" } else { "no" };
        let case = if self.case_sensitive { "mixed" } else { "lc" };
        let (norm, punct, asian) = (
            yes(self.normalized),
            yes(!self.no_punct),
            yes(self.asian_support),
        );
        format!(
            "nrefs:{refs}|case:{case}|tok:tercom|norm:{norm}|punct:{punct}|asian:{asian}|version:{SACREBLEU_VERSION}"
        )
    }
}

/// Why TER cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum TerError {
    /// An item of an options string that is not one of [`TerOptions::parse`]'s.
    Option(String),
    /// A signature of another sacrebleu release.
    Version(String),
    /// A segment with no reference (every reference NULL).
    NoReference,
}

impl fmt::Display for TerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TerError::Option(item) => write!(
                f,
                "TER option '{item}' is not one of case:lc|mixed, norm:yes|no, punct:yes|no, asian:yes|no, tok:tercom"
            ),
            TerError::Version(version) => {
                write!(
                    f,
                    "a signature of sacrebleu {version}: pairmetrics computes sacrebleu {SACREBLEU_VERSION}'s TER"
                )
            }
            TerError::NoReference => f.write_str("no reference (every reference is NULL)"),
        }
    }
}

impl std::error::Error for TerError {}

/// sacrebleu's preprocessing of a segment for TER: trailing whitespace stripped, then its Tercom
/// tokeniser. The words are `out` split on spaces.
pub fn tokenize(text: &str, options: &TerOptions, out: &mut String) {
    out.clear();
    let text = text.trim_end_matches(whitespace::is_space);
    if text.is_empty() {
        return;
    }
    let mut sent = match options.case_sensitive {
        true => text.to_string(),
        false => text.to_lowercase(),
    };
    if options.normalized {
        sent = normalize_general_and_western(&sent);
        if options.asian_support {
            // sacrebleu's separate passes only put spaces around single characters, and its
            // three kana passes are anchored at the start of a line that now starts with a
            // space, so they never match: one pass over the union of the classes is the same
            // text once whitespace is collapsed.
            sent = spaced(&sent, |c| {
                is_cjk(c) || is_asian_punct(c) || is_full_width_punct(c)
            });
        }
    }
    if options.no_punct {
        sent.retain(|c| !".,?:;!\"()".contains(c));
        if options.asian_support {
            sent.retain(|c| !is_asian_punct(c) && !is_full_width_punct(c));
        }
    }
    for word in whitespace::split(&sent) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// `text` with a space before and after every character `split` picks.
fn spaced(text: &str, split: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if split(c) {
            out.extend([' ', c, ' ']);
        } else {
            out.push(c);
        }
    }
    out
}

/// sacrebleu's `_normalize_general_and_western`: each `re.sub` in turn, each scanning left to
/// right without overlaps.
fn normalize_general_and_western(text: &str) -> String {
    let sent = text.replace("\n-", "").replace('\n', " ");
    let sent = sent
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let (mut spaced, mut work) = (Vec::new(), Vec::new());
    mteval::space_symbols(&[b" ", sent.as_bytes(), b" "], &mut spaced);
    // `'s$` never matches: the line ends with the space added above.
    let spaced = String::from_utf8(spaced).expect("only ASCII spaces were inserted");
    let mut sent = spaced.replace("'s ", " 's ").into_bytes();
    mteval::split_periods_and_dashes(&mut sent, &mut work);
    String::from_utf8(sent).expect("only ASCII spaces were inserted")
}

/// CJK ideographs, strokes, radicals, compatibility forms and enclosed letters: the classes of
/// sacrebleu's `_normalize_asian` that split text into characters.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{31c0}'..='\u{31ef}' | '\u{2e80}'..='\u{2eff}'
        | '\u{3300}'..='\u{33ff}' | '\u{f900}'..='\u{faff}' | '\u{fe30}'..='\u{fe4f}' | '\u{3200}'..='\u{3f22}')
}

fn is_asian_punct(c: char) -> bool {
    matches!(c, '\u{3001}' | '\u{3002}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}' | '\u{ff61}'..='\u{ff65}' | '\u{30fb}')
}

fn is_full_width_punct(c: char) -> bool {
    matches!(
        c,
        '\u{ff0e}'
            | '\u{ff0c}'
            | '\u{ff1f}'
            | '\u{ff1a}'
            | '\u{ff1b}'
            | '\u{ff01}'
            | '\u{ff02}'
            | '\u{ff08}'
            | '\u{ff09}'
    )
}

/// Reused buffers: tokenised text, word ids, and the edit-distance matrices.
#[derive(Debug, Default)]
pub struct Scratch {
    text: String,
    vocabulary: Interner,
    hyp: Vec<u32>,
    reference: Vec<u32>,
    search: Search,
}

/// A segment's statistics into `stats` (3 numbers): the fewest edits over the references, the
/// words of all references, and how many references there are.
pub fn segment_stats(
    hyp: &str,
    refs: &[&str],
    options: &TerOptions,
    scratch: &mut Scratch,
    stats: &mut [u64],
) -> Result<(), TerError> {
    if refs.is_empty() {
        return Err(TerError::NoReference);
    }
    if scratch.vocabulary.len() > 1 << 20 {
        scratch.vocabulary = Interner::default();
    }
    let Scratch {
        text,
        vocabulary,
        hyp: hyp_words,
        reference,
        search,
    } = scratch;
    let mut words = |line: &str, out: &mut Vec<u32>| {
        tokenize(line, options, text);
        out.clear();
        out.extend(
            text.split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| vocabulary.intern(w)),
        );
    };
    words(hyp, hyp_words);
    let (mut best, mut ref_words) = (u64::MAX, 0);
    for line in refs {
        words(line, reference);
        best = best.min(search.edits(hyp_words, reference));
        ref_words += reference.len() as u64;
    }
    stats[..3].copy_from_slice(&[best, ref_words, refs.len() as u64]);
    Ok(())
}

/// The TER of one segment's statistics, 0-100.
pub fn sentence_score(stats: &[u64]) -> f64 {
    score(stats[0], stats[1] as f64 / stats[2] as f64)
}

/// sacrebleu's `_compute_score_from_stats`: edits per reference word, 0-100; 100 for edits
/// against empty references, 0 when both sides are empty.
fn score(edits: u64, ref_length: f64) -> f64 {
    let rate = if ref_length > 0.0 {
        edits as f64 / ref_length
    } else if edits > 0 {
        1.0
    } else {
        0.0
    };
    100.0 * rate
}

/// Add a segment's statistics to a corpus total, which starts empty: `[edits, reference words of
/// the rows with 1 reference, ... with 2 references, ...]`. The words are kept apart per number
/// of references so that the sum of mean lengths does not depend on the order of rows. Totals
/// merge element-wise.
pub fn add_stats(total: &mut Vec<u64>, stats: &[u64]) {
    let (edits, words, refs) = (stats[0], stats[1], stats[2] as usize);
    if total.len() <= refs.max(1) {
        total.resize(refs.max(1) + 1, 0);
    }
    total[0] += edits;
    total[refs] += words;
}

/// The corpus TER of a total, 0-100.
pub fn corpus_score(total: &[u64]) -> f64 {
    let ref_length: f64 = total
        .iter()
        .enumerate()
        .skip(1)
        .filter(|&(_, &w)| w > 0)
        .map(|(k, &w)| w as f64 / k as f64)
        .sum();
    score(total.first().copied().unwrap_or(0), ref_length)
}

/// The shift search and edit distances of one hypothesis against one reference.
#[derive(Debug, Default)]
struct Search {
    /// The hypothesis as shifted so far, and a candidate shift of it.
    words: Vec<u32>,
    shifted: Vec<u32>,
    best: Vec<u32>,
    /// The current words' matrix, row by row, each row its band ([`Band`]): costs and
    /// operations, and where each row starts in them (`offsets`, one more than the rows).
    costs: Vec<i64>,
    ops: Vec<Op>,
    offsets: Vec<usize>,
    /// Two rolling rows (bands) for a candidate's cost.
    rows: [Vec<i64>; 2],
    /// From the current trace: the hypothesis position aligned to each reference position, and
    /// running counts of errors on either side.
    align: Vec<i64>,
    hyp_errors: Vec<u32>,
    ref_errors: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Match,
    Substitute,
    /// sacrebleu's "insertion": consume a reference word.
    Insert,
    /// sacrebleu's "deletion": consume a hypothesis word.
    Delete,
    Undefined,
}

/// The band of the edit-distance matrix a row fills: sacrebleu's pseudo-diagonal beam.
#[derive(Debug, Clone, Copy)]
struct Beam {
    ratio: f64,
    width: i64,
    hyp_len: usize,
    ref_len: usize,
}

impl Beam {
    fn new(hyp_len: usize, ref_len: usize) -> Self {
        let ratio = if hyp_len > 0 {
            ref_len as f64 / hyp_len as f64
        } else {
            1.0
        };
        let width = if (BEAM_WIDTH as f64) < ratio / 2.0 {
            (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
        } else {
            BEAM_WIDTH
        };
        Beam {
            ratio,
            width,
            hyp_len,
            ref_len,
        }
    }

    /// The columns row `i` (1-based) fills.
    fn columns(&self, i: usize) -> std::ops::Range<usize> {
        let diagonal = (i as f64 * self.ratio).floor() as i64;
        let low = (diagonal - self.width).max(0) as usize;
        let high = if i == self.hyp_len {
            self.ref_len + 1
        } else {
            ((diagonal + self.width).max(0) as usize).min(self.ref_len + 1)
        };
        low..high.max(low)
    }
}

/// A row of the matrix as stored: the cells of its band, from column `start`; every cell outside
/// the band is infinite (sacrebleu fills them so), so a row costs its band's width and the
/// matrix is linear in the sentence's length (the full matrix of two 120,000-word segments took
/// 115 GB).
#[derive(Debug, Clone, Copy)]
struct Band<'a> {
    start: usize,
    cells: &'a [i64],
}

impl Band<'_> {
    fn cost(&self, j: usize) -> i64 {
        match j.checked_sub(self.start) {
            Some(k) if k < self.cells.len() => self.cells[k],
            _ => INFINITY,
        }
    }
}

/// Row `i` of the matrix from row `i - 1` (`previous`), into `row`, the cells of
/// `beam.columns(i)`: costs, and the operation of each cell when `ops` is given.
fn fill_row(
    beam: &Beam,
    i: usize,
    word: u32,
    reference: &[u32],
    previous: Band,
    row: &mut [i64],
    mut ops: Option<&mut [Op]>,
) {
    let columns = beam.columns(i);
    debug_assert_eq!(row.len(), columns.len());
    for (k, j) in columns.enumerate() {
        let (cost, op) = if j == 0 {
            (previous.cost(0) + 1, Op::Delete)
        } else {
            let (substitute, op) = match word == reference[j - 1] {
                true => (previous.cost(j - 1), Op::Match),
                false => (previous.cost(j - 1) + 1, Op::Substitute),
            };
            let left = if k > 0 { row[k - 1] } else { INFINITY };
            // Ties go to the first of substitution, deletion, insertion: sacrebleu's order.
            let mut best = (INFINITY, Op::Undefined);
            for candidate in [
                (substitute, op),
                (previous.cost(j) + 1, Op::Delete),
                (left + 1, Op::Insert),
            ] {
                if best.0 > candidate.0 {
                    best = candidate;
                }
            }
            best
        };
        row[k] = cost;
        if let Some(ops) = ops.as_deref_mut() {
            ops[k] = op;
        }
    }
}

impl Search {
    /// sacrebleu's `translation_edit_rate`: shifts while one lowers the edit distance, then the
    /// shifts plus the edit distance.
    fn edits(&mut self, hyp: &[u32], reference: &[u32]) -> u64 {
        if reference.is_empty() {
            return hyp.len() as u64;
        }
        let beam = Beam::new(hyp.len(), reference.len());
        self.words.clear();
        self.words.extend_from_slice(hyp);
        let (mut shifts, mut checked) = (0, 0);
        loop {
            let gain = self.best_shift(&beam, reference, &mut checked);
            if checked >= MAX_SHIFT_CANDIDATES || gain <= 0 {
                break;
            }
            shifts += 1;
            std::mem::swap(&mut self.words, &mut self.best);
        }
        self.fill_matrix(&beam, reference);
        shifts + self.distance(&beam) as u64
    }

    /// Row `i` of the current matrix.
    fn band(&self, beam: &Beam, i: usize) -> Band<'_> {
        Band {
            start: beam.columns(i).start,
            cells: &self.costs[self.offsets[i]..self.offsets[i + 1]],
        }
    }

    fn distance(&self, beam: &Beam) -> i64 {
        self.band(beam, beam.hyp_len).cost(beam.ref_len)
    }

    /// The operation of cell (i, j) of the current matrix (undefined outside its band).
    fn op(&self, beam: &Beam, i: usize, j: usize) -> Op {
        let start = beam.columns(i).start;
        match j.checked_sub(start) {
            Some(k) if self.offsets[i] + k < self.offsets[i + 1] => self.ops[self.offsets[i] + k],
            _ => Op::Undefined,
        }
    }

    /// The matrix of the current words, with operations: each row's band.
    fn fill_matrix(&mut self, beam: &Beam, reference: &[u32]) {
        self.offsets.clear();
        self.offsets.push(0);
        // Row 0 is every column (j insertions); `columns` gives the other rows' bands.
        let mut end = beam.ref_len + 1;
        self.offsets.push(end);
        for i in 1..=beam.hyp_len {
            end += beam.columns(i).len();
            self.offsets.push(end);
        }
        self.costs.resize(end, 0);
        self.ops.resize(end, Op::Undefined);
        for j in 0..=beam.ref_len {
            self.costs[j] = j as i64;
            self.ops[j] = Op::Insert;
        }
        for i in 1..=beam.hyp_len {
            let (start, end) = (self.offsets[i], self.offsets[i + 1]);
            let (done, rest) = self.costs.split_at_mut(start);
            let previous = Band {
                start: if i == 1 { 0 } else { beam.columns(i - 1).start },
                cells: &done[self.offsets[i - 1]..],
            };
            fill_row(
                beam,
                i,
                self.words[i - 1],
                reference,
                previous,
                &mut rest[..end - start],
                Some(&mut self.ops[start..end]),
            );
        }
    }

    /// The edit distance of `self.shifted`, whose first `same` words are the current words':
    /// rows up to `same` are the current matrix's.
    fn shifted_distance(&mut self, beam: &Beam, reference: &[u32], same: usize) -> i64 {
        if same == beam.hyp_len {
            return self.distance(beam);
        }
        let [a, b] = &mut self.rows;
        a.clear();
        a.extend_from_slice(&self.costs[self.offsets[same]..self.offsets[same + 1]]);
        let mut a_start = if same == 0 {
            0
        } else {
            beam.columns(same).start
        };
        for i in same + 1..=beam.hyp_len {
            b.resize(beam.columns(i).len(), 0);
            let previous = Band {
                start: a_start,
                cells: a,
            };
            fill_row(beam, i, self.shifted[i - 1], reference, previous, b, None);
            std::mem::swap(a, b);
            a_start = beam.columns(i).start;
        }
        Band {
            start: a_start,
            cells: a,
        }
        .cost(beam.ref_len)
    }

    /// The alignment and error positions of the current words' best path, as sacrebleu's
    /// `trace_to_alignment` reads the flipped trace.
    fn read_trace(&mut self, beam: &Beam) {
        let mut trace = Vec::with_capacity(beam.hyp_len + beam.ref_len);
        let (mut i, mut j) = (beam.hyp_len, beam.ref_len);
        while i > 0 || j > 0 {
            let op = self.op(beam, i, j);
            trace.push(op);
            match op {
                Op::Match | Op::Substitute => (i, j) = (i - 1, j - 1),
                Op::Insert => j -= 1,
                Op::Delete => i -= 1,
                Op::Undefined => unreachable!("the beam always joins the matrix's corners"),
            }
        }
        self.align.clear();
        self.align.resize(beam.ref_len, 0);
        self.hyp_errors.clear();
        self.ref_errors.clear();
        self.hyp_errors.push(0);
        self.ref_errors.push(0);
        let (mut hyp, mut reference) = (-1i64, -1i64);
        let push = |errors: &mut Vec<u32>, error: bool| {
            errors.push(errors.last().copied().unwrap_or(0) + u32::from(error))
        };
        for &op in trace.iter().rev() {
            match op {
                Op::Match | Op::Substitute => {
                    let error = op == Op::Substitute;
                    (hyp, reference) = (hyp + 1, reference + 1);
                    self.align[reference as usize] = hyp;
                    push(&mut self.hyp_errors, error);
                    push(&mut self.ref_errors, error);
                }
                // Flipped: a reference word consumed is, read from the reference, a deletion.
                Op::Insert => {
                    reference += 1;
                    self.align[reference as usize] = hyp;
                    push(&mut self.ref_errors, true);
                }
                Op::Delete => {
                    hyp += 1;
                    push(&mut self.hyp_errors, true);
                }
                Op::Undefined => unreachable!(),
            }
        }
    }

    /// sacrebleu's `_shift`: the best shift of the current words into `self.best`, with its gain
    /// in edit distance (0 when there is none); `checked` counts the candidates evaluated.
    fn best_shift(&mut self, beam: &Beam, reference: &[u32], checked: &mut usize) -> i64 {
        self.fill_matrix(beam, reference);
        let before = self.distance(beam);
        self.read_trace(beam);
        let (hyp_len, ref_len) = (beam.hyp_len, beam.ref_len);
        // The ranking: gain, length, -start, -target, compared in that order.
        let mut best: Option<(i64, usize, i64, i64)> = None;
        'search: for start_h in 0..hyp_len {
            // sacrebleu tries every reference position and skips those farther than
            // MAX_SHIFT_DIST: the same ones, in the same order, without the quadratic loop.
            let near =
                start_h.saturating_sub(MAX_SHIFT_DIST)..(start_h + MAX_SHIFT_DIST + 1).min(ref_len);
            for start_r in near {
                let mut length = 0;
                while length < MAX_SHIFT_SIZE
                    && start_h + length < hyp_len
                    && start_r + length < ref_len
                    && self.words[start_h + length] == reference[start_r + length]
                {
                    length += 1;
                    if self.hyp_errors[start_h + length] == self.hyp_errors[start_h]
                        || self.ref_errors[start_r + length] == self.ref_errors[start_r]
                        || (start_h as i64..(start_h + length) as i64)
                            .contains(&self.align[start_r])
                    {
                        continue;
                    }
                    let mut previous_target = -1;
                    for offset in -1..length as i64 {
                        let at = start_r as i64 + offset;
                        let target = if at == -1 {
                            0
                        } else {
                            self.align[at as usize] + 1
                        };
                        if target == previous_target {
                            continue;
                        }
                        previous_target = target;
                        let same = self.shift(start_h, length, target as usize);
                        let gain = before - self.shifted_distance(beam, reference, same);
                        *checked += 1;
                        let candidate = (gain, length, -(start_h as i64), -target);
                        if best.is_none_or(|best| candidate > best) {
                            best = Some(candidate);
                            std::mem::swap(&mut self.best, &mut self.shifted);
                        }
                    }
                    if *checked >= MAX_SHIFT_CANDIDATES {
                        break 'search;
                    }
                }
            }
        }
        best.map_or(0, |(gain, ..)| gain)
    }

    /// sacrebleu's `_perform_shift` of the current words into `self.shifted`: `length` words
    /// from `start` moved to before `target`. Returns how many leading words are unchanged.
    fn shift(&mut self, start: usize, length: usize, target: usize) -> usize {
        let words = &self.words;
        let n = words.len();
        // Python's slice, which clamps its bounds.
        let slice = |a: usize, b: usize| &words[a.min(n)..b.min(n).max(a.min(n))];
        let out = &mut self.shifted;
        out.clear();
        let block = slice(start, start + length);
        if target < start {
            out.extend_from_slice(slice(0, target));
            out.extend_from_slice(block);
            out.extend_from_slice(slice(target, start));
            out.extend_from_slice(slice(start + length, n));
        } else if target > start + length {
            out.extend_from_slice(slice(0, start));
            out.extend_from_slice(slice(start + length, target));
            out.extend_from_slice(block);
            out.extend_from_slice(slice(target, n));
        } else {
            out.extend_from_slice(slice(0, start));
            out.extend_from_slice(slice(start + length, length + target));
            out.extend_from_slice(block);
            out.extend_from_slice(slice(length + target, n));
        }
        debug_assert_eq!(out.len(), n);
        words
            .iter()
            .zip(out.iter())
            .take_while(|(a, b)| a == b)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ter(hyp: &str, reference: &str) -> (u64, u64) {
        let mut stats = [0; 3];
        segment_stats(
            hyp,
            &[reference],
            &TerOptions::default(),
            &mut Scratch::default(),
            &mut stats,
        )
        .unwrap();
        (stats[0], stats[1])
    }

    #[test]
    fn hand_worked_edits() {
        assert_eq!(ter("a b c", "a b c"), (0, 3));
        assert_eq!(ter("a b c", "a c b"), (1, 3), "one shift");
        assert_eq!(ter("a b", "a b c d"), (2, 4), "two insertions");
        assert_eq!(ter("x y z", "a b c"), (3, 3), "three substitutions");
        assert_eq!(
            ter("c d a b", "a b c d"),
            (1, 4),
            "a two-word block moves once"
        );
        assert_eq!(ter("", "a b"), (2, 2));
        assert_eq!(ter("a b", ""), (2, 0));
        assert_eq!(ter("A B", "a b"), (0, 2), "lowercased by default");
    }

    #[test]
    fn scores_follow_sacrebleu_at_empty_references() {
        assert_eq!(sentence_score(&[1, 3, 1]), 100.0 * (1.0 / 3.0));
        assert_eq!(sentence_score(&[2, 0, 1]), 100.0);
        assert_eq!(sentence_score(&[0, 0, 1]), 0.0);
        let mut total = Vec::new();
        add_stats(&mut total, &[1, 6, 2]);
        add_stats(&mut total, &[1, 3, 1]);
        assert_eq!(total, [2, 3, 6]);
        assert_eq!(corpus_score(&total), 100.0 * (2.0 / 6.0));
    }

    #[test]
    fn options_read_their_signature_back() {
        let options = TerOptions {
            normalized: true,
            no_punct: true,
            asian_support: true,
            case_sensitive: true,
        };
        let signature = options.signature(Some(1));
        assert_eq!(
            signature,
            "nrefs:1|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|version:2.6.0"
        );
        assert_eq!(TerOptions::default().parse(&signature), Ok(options));
        assert!(TerOptions::default().parse("norm:maybe").is_err());
        assert!(TerOptions::default().parse("tok:13a").is_err());
    }
}
