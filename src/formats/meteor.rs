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

use std::fmt;
use std::io::BufRead;

use crate::metrics::lepod::Link;

/// One matched span pair: `s1[s1_start, s1_start + s1_len)` <-> `s2[s2_start, s2_start + s2_len)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub s1_start: u32,
    pub s1_len: u32,
    pub s2_start: u32,
    pub s2_len: u32,
    pub module: u32,
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq)]
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
        for m in &self.matches {
            for a in m.s1_start..m.s1_start + m.s1_len {
                for b in m.s2_start..m.s2_start + m.s2_len {
                    links.push((a, b));
                }
            }
        }
        links
    }
}

#[derive(Debug)]
pub struct MeteorError {
    /// 1-based line number.
    pub line: u64,
    pub message: String,
}

impl fmt::Display for MeteorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for MeteorError {}

/// Iterator over the blocks of a Matcher file; it holds one block in memory at a time.
pub struct Blocks<R> {
    reader: R,
    line: u64,
    buf: String,
}

impl<R: BufRead> Blocks<R> {
    pub fn new(reader: R) -> Self {
        Blocks { reader, line: 0, buf: String::new() }
    }

    /// The next line without its line end (`\n` or `\r\n`); None at the end of the input.
    fn next_line(&mut self) -> Result<Option<&str>, MeteorError> {
        self.buf.clear();
        let read = self
            .reader
            .read_line(&mut self.buf)
            .map_err(|e| MeteorError { line: self.line + 1, message: e.to_string() })?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        let trimmed = self.buf.strip_suffix('\n').unwrap_or(&self.buf);
        Ok(Some(trimmed.strip_suffix('\r').unwrap_or(trimmed)))
    }

    fn error(&self, message: impl Into<String>) -> MeteorError {
        MeteorError { line: self.line, message: message.into() }
    }

    fn required_line(&mut self, what: &str) -> Result<String, MeteorError> {
        match self.next_line()? {
            Some(line) => Ok(line.to_string()),
            None => Err(self.error(format!("the file ends inside a block, before {what}"))),
        }
    }

    fn read_block(&mut self) -> Result<Option<Block>, MeteorError> {
        let header = loop {
            match self.next_line()? {
                None => return Ok(None),
                Some("") => continue,
                Some(line) => break line.to_string(),
            }
        };
        let line = self.line;
        let number = header
            .strip_prefix("Alignment ")
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| self.error(format!("expected `Alignment N`, found `{header}`")))?;
        let s1 = self.required_line("the first sentence")?;
        let s2 = self.required_line("the second sentence")?;
        let columns = self.required_line("the column header")?;
        if !columns.starts_with("Line2Start:Length") {
            return Err(self.error(format!(
                "expected the header `Line2Start:Length\\tLine1Start:Length\\tModule\\t\\tScore`, \
                 found `{columns}`"
            )));
        }
        let mut matches = Vec::new();
        loop {
            match self.next_line()? {
                None | Some("") => break,
                Some(text) => {
                    let text = text.to_string();
                    matches.push(self.parse_match(&text)?);
                }
            }
        }
        Ok(Some(Block { number, line, s1, s2, matches }))
    }

    fn parse_match(&self, text: &str) -> Result<Match, MeteorError> {
        let bad = || self.error(format!("expected `start:len  start:len  module  score`, found `{text}`"));
        let fields: Vec<&str> = text.split('\t').filter(|f| !f.is_empty()).collect();
        let [span2, span1, module, score] = fields[..] else { return Err(bad()) };
        let span = |s: &str| -> Option<(u32, u32)> {
            let (start, len) = s.split_once(':')?;
            Some((start.parse().ok()?, len.parse().ok()?))
        };
        let ((s2_start, s2_len), (s1_start, s1_len)) =
            span(span2).zip(span(span1)).ok_or_else(bad)?;
        Ok(Match {
            s1_start,
            s1_len,
            s2_start,
            s2_len,
            module: module.parse().map_err(|_| bad())?,
            score: score.parse().map_err(|_| bad())?,
        })
    }
}

impl<R: BufRead> Iterator for Blocks<R> {
    type Item = Result<Block, MeteorError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_block().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "Alignment 1\nI have a lot of friends .\nI have many friends .\n\
        Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n\
        0:1\t\t\t0:1\t\t\t0\t\t1.0\n2:1\t\t\t2:3\t\t\t3\t\t1.0\n\n\
        Alignment 2\na\nb\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n";

    #[test]
    fn reads_blocks_with_second_sentence_first_in_matches() {
        let blocks: Vec<Block> = Blocks::new(TWO.as_bytes()).collect::<Result<_, _>>().unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].s2, "I have many friends .");
        assert_eq!(blocks[0].links(), vec![(0, 0), (2, 2), (3, 2), (4, 2)]);
        assert_eq!((blocks[1].number, blocks[1].line, blocks[1].matches.len()), (2, 8, 0));
    }

    #[test]
    fn errors_name_the_line() {
        let truncated = "Alignment 1\nonly one sentence\n";
        let err = Blocks::new(truncated.as_bytes()).next().unwrap().unwrap_err();
        assert_eq!(err.line, 2);
        let garbled = TWO.replace("2:1\t\t\t2:3", "2:1\t\t\t2-3");
        let err = Blocks::new(garbled.as_bytes()).next().unwrap().unwrap_err();
        assert_eq!(err.line, 6);
    }
}
