//! METEOR 1.5 `Matcher` output, read block by block from any `BufRead`:
//!
//! ```text
//! Alignment 1
//! <sentence 1>
//! <sentence 2>
//! Line2Start:Length	Line1Start:Length	Module		Score
//! 2:1			2:3			3		1.0
//!
//! ```
//!
//! Note the order of the match columns: the FIRST is a span of the SECOND sentence.

use std::io::BufRead;
use std::path::PathBuf;

use super::lines::{InputError, LineSource, Lines};
use crate::text::whitespace;

use crate::align;
use crate::{Link, Side, span_links};

/// The column header line of every block.
pub const COLUMNS: &str = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore";

/// How Matcher ends every match line: its score, always 1.0 for the four modules.
const MATCH_LINE_END: &str = "\t\t1.0\n";

/// One matched span pair: `s1[s1_start, s1_start + s1_len)` <-> `s2[s2_start, s2_start + s2_len)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub s1_start: u32,
    pub s1_len: u32,
    pub s2_start: u32,
    pub s2_len: u32,
    /// The module column: the index of the matcher stage in the aligner's module list.
    pub module: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    /// The number after `Alignment`.
    pub number: u64,
    /// 1-based line of the `Alignment` header.
    pub line: u64,
    pub s1: String,
    pub s2: String,
    pub matches: Vec<Match>,
}

impl Block {
    /// The links of every match: a phrase match links all its tokens, so it forms one unit.
    pub fn links(&self) -> Vec<Link> {
        let mut links = Vec::new();
        self.links_into(&mut links);
        links
    }

    /// The first match that reaches past sentences of `n1` and `n2` tokens: (side, its first
    /// position outside, the sentence's length). Check before [`Block::links`]: a span's links
    /// are the product of its lengths, and a file can claim any length.
    pub fn span_past_end(&self, n1: usize, n2: usize) -> Option<(Side, u64, usize)> {
        self.matches.iter().find_map(|m| {
            [
                (Side::Src, m.s1_start, m.s1_len, n1),
                (Side::Tgt, m.s2_start, m.s2_len, n2),
            ]
            .into_iter()
            .find(|&(_, start, len, n)| u64::from(start) + u64::from(len) > n as u64)
            .map(|(side, start, _, n)| (side, u64::from(start).max(n as u64), n))
        })
    }

    /// The tokens of the block's own sentences.
    pub fn sentence_lengths(&self) -> (usize, usize) {
        (
            whitespace::split(&self.s1).count(),
            whitespace::split(&self.s2).count(),
        )
    }

    pub fn links_into(&self, links: &mut Vec<Link>) {
        links.clear();
        for m in &self.matches {
            match (m.s1_len, m.s2_len) {
                // Most matches are of one word; the iterator below does not know its length.
                (1, 1) => links.push((m.s1_start, m.s2_start)),
                _ => links.extend(m.links()),
            }
        }
    }
}

impl Match {
    pub fn links(&self) -> impl Iterator<Item = Link> {
        span_links(self.s1_start, self.s1_len, self.s2_start, self.s2_len)
    }
}

/// Write one block as METEOR 1.5's `Matcher` prints it (`Alignment.toString` then `println`):
/// each sentence's tokens joined by one space and trimmed as Java trims, a match line per match
/// (the score is always 1.0 for the four modules), and a blank line.
pub fn write_block(
    out: &mut Vec<u8>,
    number: u64,
    words1: &[&str],
    words2: &[&str],
    matches: &[align::Match],
) {
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(b"Alignment ");
    out.extend_from_slice(digits.format(number).as_bytes());
    out.push(b'\n');
    for words in [words1, words2] {
        let start = out.len();
        for (i, word) in words.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(word.as_bytes());
        }
        let kept = align::trim(&out[start..]);
        out.truncate(start + kept.end);
        out.drain(start..start + kept.start);
        out.push(b'\n');
    }
    out.extend_from_slice(COLUMNS.as_bytes());
    out.push(b'\n');
    for m in matches {
        for (value, after) in [
            (m.s2_start, ":"),
            (m.s2_len, "\t\t\t"),
            (m.s1_start, ":"),
            (m.s1_len, "\t\t\t"),
            (u32::from(m.stage), MATCH_LINE_END),
        ] {
            out.extend_from_slice(digits.format(value).as_bytes());
            out.extend_from_slice(after.as_bytes());
        }
    }
    out.push(b'\n');
}

/// Iterator over the blocks of a Matcher file; it holds one block in memory at a time.
pub struct Blocks<L> {
    lines: L,
    file: PathBuf,
    /// Whether blocks keep their sentences ([`Blocks::matches_only`]).
    sentences: bool,
}

impl<L: LineSource> Blocks<L> {
    pub fn new(lines: L) -> Self {
        let file = lines.file().to_path_buf();
        Blocks {
            lines,
            file,
            sentences: true,
        }
    }

    /// Blocks whose `s1` and `s2` stay empty, for a reader that has the sentences elsewhere
    /// (`lepod` takes them from its two text files): copying them was a twentieth of its work.
    pub fn matches_only(lines: L) -> Self {
        Blocks {
            sentences: false,
            ..Blocks::new(lines)
        }
    }

    /// The next line, or an error naming what the block still lacks.
    fn required_line(&mut self, what: &str) -> Result<&str, InputError> {
        let line = self.lines.line_number();
        self.lines.next_line()?.ok_or_else(|| {
            InputError::at(
                &self.file,
                line,
                format!("the file ends inside a block, before {what}"),
            )
        })
    }

    /// Read the next block into `block`, reusing its buffers; false at the end of the file.
    pub fn read_into(&mut self, block: &mut Block) -> Result<bool, InputError> {
        let number = loop {
            match self.lines.next_line()? {
                None => return Ok(false),
                Some("") => continue,
                Some(header) => {
                    break header
                        .strip_prefix("Alignment ")
                        .and_then(|n| n.trim().parse().ok())
                        .ok_or_else(|| format!("expected `Alignment N`, found `{header}`"));
                }
            }
        };
        block.line = self.lines.line_number();
        block.number = number.map_err(|message| InputError::at(&self.file, block.line, message))?;
        let keep = self.sentences;
        for (what, sentence) in [
            ("the first sentence", &mut block.s1),
            ("the second sentence", &mut block.s2),
        ] {
            sentence.clear();
            let line = self.required_line(what)?;
            if keep {
                sentence.push_str(line);
            }
        }
        let header = self.required_line("the column header")?;
        if !header.starts_with(&COLUMNS[..17]) {
            let message = format!(
                "expected the header `Line2Start:Length\\tLine1Start:Length\\tModule\\t\\tScore`, found `{header}`"
            );
            return Err(InputError::at(
                &self.file,
                self.lines.line_number(),
                message,
            ));
        }
        block.matches.clear();
        loop {
            // Lines in memory as Matcher writes them are parsed where they lie: finding each
            // line's end first was a tenth of `lepod`'s time.
            if let Some((m, len)) = self
                .lines
                .ahead()
                .and_then(|text| parse_matcher_line(text.as_bytes()))
            {
                block.matches.push(m);
                self.lines.skip_line(len);
                continue;
            }
            let Some(line) = self.lines.next_line()? else {
                break;
            };
            if line.is_empty() {
                break;
            }
            match parse_match(line) {
                Ok(m) => block.matches.push(m),
                Err(message) => {
                    return Err(InputError::at(
                        &self.file,
                        self.lines.line_number(),
                        message,
                    ));
                }
            }
        }
        Ok(true)
    }
}

/// Append the next `n` blocks of a Matcher file to `out` as they are written (with the empty
/// lines before each), reading no more than [`Blocks::read_into`] would, for [`Blocks`] over
/// [`LineSlices`](super::lines::LineSlices) to parse elsewhere; how many there were. A block
/// cut short by the end of the file counts: its parser names what it lacks.
pub fn append_raw_blocks<R: BufRead>(
    lines: &mut Lines<R>,
    n: usize,
    out: &mut Vec<u8>,
) -> Result<usize, InputError> {
    /// Where a line falls: before a block, in its `Alignment` line, two sentences and column
    /// header (how many of them are left), or in its matches.
    enum At {
        Between,
        Head(u8),
        Matches,
    }
    if n == 0 {
        return Ok(0);
    }
    let (mut at, mut blocks) = (At::Between, 0);
    let stopped = lines.append_raw_while(out, |len| {
        at = match at {
            At::Between if len == 0 => At::Between,
            At::Between => At::Head(3),
            At::Head(1) => At::Matches,
            At::Head(left) => At::Head(left - 1),
            At::Matches if len > 0 => At::Matches,
            At::Matches => {
                blocks += 1;
                At::Between
            }
        };
        blocks < n
    })?;
    if !stopped && !matches!(at, At::Between) {
        blocks += 1;
    }
    Ok(blocks)
}

/// `s2start:len2  s1start:len1  [module  score]`, split on whitespace as the original scorer
/// does; the two spans and the module are read.
fn parse_match(text: &str) -> Result<Match, String> {
    parse_plain_match(text.as_bytes()).map_or_else(|| parse_any_match(text), Ok)
}

fn parse_any_match(text: &str) -> Result<Match, String> {
    let bad = || format!("expected `start:len  start:len  module  score`, found `{text}`");
    let mut fields = whitespace::split(text);
    let span = |s: Option<&str>| -> Option<(u32, u32)> {
        let s = s?;
        let colon = s.bytes().position(|b| b == b':')?;
        Some((
            digits(s[..colon].as_bytes())?,
            digits(s[colon + 1..].as_bytes())?,
        ))
    };
    let (s2_start, s2_len) = span(fields.next()).ok_or_else(bad)?;
    let (s1_start, s1_len) = span(fields.next()).ok_or_else(bad)?;
    if s1_len == 0 || s2_len == 0 {
        return Err(format!("a match spans no token: `{text}`"));
    }
    let module = fields
        .next()
        .and_then(|f| digits(f.as_bytes()))
        .and_then(|m| u8::try_from(m).ok());
    Ok(Match {
        s1_start,
        s1_len,
        s2_start,
        s2_len,
        module,
    })
}

/// [`parse_match`] of a match line laid out exactly as Matcher writes it
/// (`s2start:len2\t\t\ts1start:len1\t\t\tmodule\t\tscore`), read in one pass; None for anything
/// else (other spacing, an empty span, a module past 255), which the general parser then reads
/// or rejects with its message.
fn parse_plain_match(line: &[u8]) -> Option<Match> {
    // The module must be a whole field: what follows it is a separator or nothing.
    parse_matcher_fields(line)
        .filter(|(_, rest)| rest.first().is_none_or(|&b| b == b'\t'))
        .map(|(m, _)| m)
}

/// [`parse_plain_match`] of the line at the start of `text` when it ends as Matcher ends every
/// match line ([`MATCH_LINE_END`]), with the line's length.
fn parse_matcher_line(text: &[u8]) -> Option<(Match, usize)> {
    let (m, rest) = parse_matcher_fields(text)?;
    // The line's length leaves out its `\n`.
    rest.starts_with(MATCH_LINE_END.as_bytes())
        .then(|| (m, text.len() - rest.len() + MATCH_LINE_END.len() - 1))
}

/// The spans and module at the start of `text` in Matcher's layout, and what follows them.
fn parse_matcher_fields(text: &[u8]) -> Option<(Match, &[u8])> {
    let mut rest = text;
    let mut number = |then: &[u8]| {
        // Up to nine digits cannot overflow a u32; longer numbers take the checked path.
        let (mut n, mut len) = (0u32, 0);
        while let Some(&b) = rest.get(len)
            && b.is_ascii_digit()
            && len < 9
        {
            (n, len) = (n * 10 + u32::from(b - b'0'), len + 1);
        }
        if rest.get(len).is_some_and(u8::is_ascii_digit) {
            len = rest
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(rest.len());
            n = digits(&rest[..len])?;
        }
        if len == 0 {
            return None;
        }
        rest = rest[len..].strip_prefix(then)?;
        Some(n)
    };
    let (s2_start, s2_len, s1_start, s1_len) = (
        number(b":")?,
        number(b"\t\t\t")?,
        number(b":")?,
        number(b"\t\t\t")?,
    );
    let module = u8::try_from(number(b"")?).ok()?;
    (s1_len > 0 && s2_len > 0).then_some((
        Match {
            s1_start,
            s1_len,
            s2_start,
            s2_len,
            module: Some(module),
        },
        rest,
    ))
}

/// A non-empty run of ASCII digits that fits a u32.
fn digits(text: &[u8]) -> Option<u32> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u32, |n, b| {
        b.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u32::from(b - b'0')))
            .flatten()
    })
}

impl<L: LineSource> Iterator for Blocks<L> {
    type Item = Result<Block, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut block = Block::default();
        self.read_into(&mut block)
            .map(|more| more.then_some(block))
            .transpose()
    }
}

/// The blocks, every match checked against the block's own sentences (a match past their end
/// is an error naming the block, never a link to nowhere).
pub struct Alignments<L>(Blocks<L>);

impl<L: LineSource> Alignments<L> {
    pub fn new(lines: L) -> Self {
        Alignments(Blocks::new(lines))
    }
}

impl<L: LineSource> Iterator for Alignments<L> {
    type Item = Result<Block, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let block = match self.0.next()? {
            Ok(block) => block,
            Err(e) => return Some(Err(e)),
        };
        let (n1, n2) = block.sentence_lengths();
        if let Some((side, position, n)) = block.span_past_end(n1, n2) {
            let message = format!(
                "block {}: a match reaches position {position}, past the {side} sentence of {n} tokens",
                block.number
            );
            return Some(Err(InputError::at(&self.0.file, block.line, message)));
        }
        Some(Ok(block))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lines::{LineSlices, from_str};
    use std::path::Path;

    const TWO: &str = "Alignment 1\nI have a lot of friends .\nI have many friends .\n\
        Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n\
        0:1\t\t\t0:1\t\t\t0\t\t1.0\n2:1\t\t\t2:3\t\t\t3\t\t1.0\n\n\
        Alignment 2\na\nb\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n";

    #[test]
    fn reads_blocks_with_second_sentence_first_in_matches() {
        let blocks: Vec<Block> = Blocks::new(from_str(TWO))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].s2, "I have many friends .");
        assert_eq!(blocks[0].links(), vec![(0, 0), (2, 2), (3, 2), (4, 2)]);
        assert_eq!(
            (blocks[1].number, blocks[1].line, blocks[1].matches.len()),
            (2, 8, 0)
        );
        let matches_only: Vec<Block> = Blocks::matches_only(from_str(TWO))
            .collect::<Result<_, _>>()
            .unwrap();
        let without_sentences = blocks.into_iter().map(|b| Block {
            s1: String::new(),
            s2: String::new(),
            ..b
        });
        assert_eq!(matches_only, without_sentences.collect::<Vec<_>>());
    }

    #[test]
    fn raw_blocks_are_cut_where_the_parser_reads_them() {
        let mut lines = from_str(TWO);
        let mut first = Vec::new();
        assert_eq!(append_raw_blocks(&mut lines, 1, &mut first).unwrap(), 1);
        assert_eq!(first, TWO.as_bytes()[..TWO.find("Alignment 2").unwrap()]);
        // The last block runs to the end of the file.
        assert_eq!(
            append_raw_blocks(&mut lines, 5, &mut Vec::new()).unwrap(),
            1
        );
        assert_eq!(
            append_raw_blocks(&mut lines, 5, &mut Vec::new()).unwrap(),
            0
        );
        let no_matches =
            "Alignment 1\nx\nx\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n\n\n";
        assert_eq!(
            append_raw_blocks(&mut from_str(no_matches), 2, &mut Vec::new()).unwrap(),
            1
        );
        // Cut short: still a block, for the parser to reject.
        assert_eq!(
            append_raw_blocks(&mut from_str("\n\nAlignment 1\nx\n"), 2, &mut Vec::new()).unwrap(),
            1
        );
        let mut gathered = Vec::new();
        append_raw_blocks(&mut from_str(TWO), 2, &mut gathered).unwrap();
        let parsed: Vec<Block> = Blocks::new(LineSlices::new(&gathered, Path::new("<text>"), 1))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            parsed,
            Blocks::new(from_str(TWO))
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        );
    }

    #[test]
    fn blocks_in_memory_are_read_as_blocks_streamed() {
        // Matcher's own lines (parsed where they lie in memory) between lines of other layouts.
        let more = "Alignment 3\nx y\nx y\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n\
            0:1\t\t\t1:1\t\t\t0\t\t1.0\n1:1 0:1 2 0.5\n1:1\t\t\t1:1\t\t\t1\t\t1.00\n0:2\t\t\t0:2\t\t\t3\t\t1.0";
        let garbled = more.replace("1:1 0:1", "1:1 0-1");
        for text in [
            format!("{TWO}\n{more}\n"),
            format!("{TWO}\n{more}"),
            format!("{TWO}\n{garbled}\n"),
        ] {
            let mut gathered = Vec::new();
            append_raw_blocks(&mut from_str(&text), 5, &mut gathered).unwrap();
            let in_memory: Result<Vec<Block>, _> =
                Blocks::new(LineSlices::new(&gathered, Path::new("<text>"), 1)).collect();
            let streamed: Result<Vec<Block>, _> = Blocks::new(from_str(&text)).collect();
            assert_eq!(
                in_memory.map_err(|e| e.line),
                streamed.map_err(|e| e.line),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_byte_parser_reads_lines_as_the_general_one_does() {
        let lines = [
            "2:1\t\t\t2:3\t\t\t3\t\t1.0",
            "  10:2 4:1 0 1.0",
            "1:1\t1:1",
            "1:1\t1:1\t300\t1.0",
            "1:1\t1:1\texact",
            "1:1\t1:1\t2\u{1c}1.0",
            "1:1\t1:1\t7\u{85}x",
            "1:1\u{a0}1:1\t0",
            "1:0\t1:1\t0",
            "x:1\t1:1\t0",
            "1:1:1\t1:1\t0",
            "4294967296:1\t1:1\t0",
            "",
            // Matcher's own layout, and near misses of it.
            "1:1\t\t\t1:1\t\t\t2",
            "1:1\t\t\t1:1\t\t\t300\t\t1.0",
            "0:0\t\t\t1:1\t\t\t0\t\t1.0",
            "1:1\t\t\t1:1\t\t\t2x\t\t1.0",
            "1:1\t\t\t1:1\t\t\t2\u{85}\t1.0",
            "1:1\t\t\t1:1\t\t\t2\t\u{a0}x",
            "1:1\t\t\t1:1\t\t 2\t\t1.0",
            "01:1\t\t\t1:1\t\t\t1\t\t1.0",
            // Numbers of nine digits and more, up to a u32's limit and past it.
            "999999999:1\t\t\t1:1\t\t\t1\t\t1.0",
            "1000000000:1\t\t\t1:1\t\t\t1\t\t1.0",
            "1:4294967295\t\t\t1:1\t\t\t1\t\t1.0",
            "1:1\t\t\t4294967296:1\t\t\t1\t\t1.0",
            "1:1\t\t\t1:1\t\t\t0000000000255\t\t1.0",
        ];
        for line in lines {
            if let Some(m) = parse_plain_match(line.as_bytes()) {
                assert_eq!(Ok(m), parse_any_match(line), "{line:?}");
            }
            assert_eq!(parse_match(line), parse_any_match(line), "{line:?}");
        }
        assert!(parse_plain_match(b"2:1\t\t\t2:3\t\t\t3\t\t1.0").is_some());
        let long =
            parse_plain_match(b"1:4294967295\t\t\t1000000000:1\t\t\t0000000000255\t\t1.0").unwrap();
        assert_eq!(
            (long.s2_len, long.s1_start, long.module),
            (4294967295, 1000000000, Some(255))
        );
    }

    #[test]
    fn errors_name_the_line() {
        let truncated = "Alignment 1\nonly one sentence\n";
        let err = Blocks::new(from_str(truncated))
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(err.line, Some(2));
        let garbled = TWO.replace("2:1\t\t\t2:3", "2:1\t\t\t2-3");
        let err = Blocks::new(from_str(&garbled)).next().unwrap().unwrap_err();
        assert_eq!(err.line, Some(6));
    }
}
