//! Pharaoh alignments: `i-j` pairs separated by whitespace, 0-based (`0-0 1-2 2-1`), as
//! fast_align, eflomal, awesome-align and Moses' symmetrisation write them.

use std::fmt;
use std::io::BufRead;

use super::lines::{InputError, Lines};
use crate::Link;

/// The links of each line of a Pharaoh file, each link checked to fit our links column (Int32).
pub struct Alignments<R>(Lines<R>);

impl<R: BufRead> Alignments<R> {
    pub fn new(lines: Lines<R>) -> Self {
        Alignments(lines)
    }
}

impl<R: BufRead> Iterator for Alignments<R> {
    type Item = Result<Vec<Link>, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let line = match self.0.next()? {
            Ok(line) => line,
            Err(e) => return Some(Err(e)),
        };
        let error = |message: String| {
            Some(Err(InputError::at(
                self.0.file(),
                self.0.line_number(),
                message,
            )))
        };
        let mut links = Vec::new();
        if let Err(e) = parse_line(&line, &mut links) {
            return error(e.to_string());
        }
        if let Some(&(a, b)) = links.iter().find(|&&(a, b)| a.max(b) > i32::MAX as u32) {
            return error(format!("link {a}-{b} is past Int32"));
        }
        Some(Ok(links))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PharaohError {
    /// 0-based index of the bad entry on its line.
    pub entry: usize,
    pub text: String,
}

impl fmt::Display for PharaohError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "alignment entry {} is `{}`, expected `i-j` with 0-based integer positions",
            self.entry + 1,
            self.text
        )
    }
}

impl std::error::Error for PharaohError {}

/// Parse one line of links into `out` (cleared first).
pub fn parse_line(line: &str, out: &mut Vec<Link>) -> Result<(), PharaohError> {
    out.clear();
    for (entry, item) in line.split_whitespace().enumerate() {
        let link = item
            .split_once('-')
            .and_then(|(a, b)| Some((parse_position(a)?, parse_position(b)?)))
            .ok_or_else(|| PharaohError {
                entry,
                text: item.to_string(),
            })?;
        out.push(link);
    }
    Ok(())
}

/// Append `links` as one line's text (`0-0 1-2`, no newline): what [`parse_line`] reads back.
pub fn write_line(out: &mut String, links: &[Link]) {
    use std::fmt::Write as _;
    for (i, (s, t)) in links.iter().enumerate() {
        let _ = write!(out, "{}{s}-{t}", if i > 0 { " " } else { "" });
    }
}

/// A position is plain ASCII digits: no sign, no spaces (u32's parser would accept `+1`).
fn parse_position(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_links_in_order() {
        let mut links = Vec::new();
        parse_line(" 0-0  1-2\t2-1 ", &mut links).unwrap();
        assert_eq!(links, vec![(0, 0), (1, 2), (2, 1)]);
        parse_line("", &mut links).unwrap();
        assert!(links.is_empty());
    }

    #[test]
    fn rejects_malformed_entries() {
        let mut links = Vec::new();
        for bad in [
            "0-0 1",
            "0-0 1-x",
            "-1-2",
            "0-0 +1-2",
            "1-2-3",
            "99999999999-0",
        ] {
            assert!(parse_line(bad, &mut links).is_err(), "{bad}");
        }
        let err = parse_line("0-0 1:2", &mut links).unwrap_err();
        assert_eq!(
            err,
            PharaohError {
                entry: 1,
                text: "1:2".into()
            }
        );
    }
}
