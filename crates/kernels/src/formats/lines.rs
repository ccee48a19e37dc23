//! Reading text line by line with line numbers, and errors that name the file and the line:
//! what every parser of a text format reads through. Opening a file (plain or compressed, local
//! or remote) is the caller's: the main crate's `formats::input::open`.

use std::fmt;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

/// An input problem at a place: the file, and the 1-based line when there is one.
#[derive(Debug)]
pub struct InputError {
    pub file: PathBuf,
    pub line: Option<u64>,
    pub message: String,
}

impl InputError {
    pub fn at(file: &Path, line: u64, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_path_buf(),
            line: Some(line),
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// Lines of a UTF-8 text, split as Python's universal newlines do (`\n`, `\r\n` or `\r`), without
/// their line ends. Invalid UTF-8 is an error naming the line.
pub struct Lines<R> {
    reader: R,
    file: PathBuf,
    line: u64,
    bytes: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R, file: &Path) -> Self {
        Lines {
            reader,
            file: file.to_path_buf(),
            line: 0,
            bytes: Vec::new(),
        }
    }

    /// Number of the line last returned (1-based).
    pub fn line_number(&self) -> u64 {
        self.line
    }

    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The next line into `out` (cleared first); false at the end of the input.
    pub fn next_into(&mut self, out: &mut String) -> Result<bool, InputError> {
        out.clear();
        let line = self.next_line()?;
        Ok(line.map(|line| out.push_str(line)).is_some())
    }

    /// Append the next line's bytes and a `\n` to `out`, as they are (line ends normalised, UTF-8
    /// not checked: [`LineSlices`] reads them back); its length, or None at the end.
    pub fn append_raw(&mut self, out: &mut Vec<u8>) -> Result<Option<usize>, InputError> {
        let start = out.len();
        let found = read_line(&mut self.reader, out)
            .map_err(|e| InputError::at(&self.file, self.line + 1, e.to_string()))?;
        if !found {
            return Ok(None);
        }
        self.line += 1;
        out.push(b'\n');
        Ok(Some(out.len() - start - 1))
    }

    /// Append lines as [`Lines::append_raw`] does, calling `more` with each one's length, until
    /// it says no (that line included; then true) or the input ends (false). Lines ended by
    /// `\n` are found and copied a buffer at a time.
    pub fn append_raw_while(
        &mut self,
        out: &mut Vec<u8>,
        mut more: impl FnMut(usize) -> bool,
    ) -> Result<bool, InputError> {
        loop {
            let buf = self
                .reader
                .fill_buf()
                .map_err(|e| InputError::at(&self.file, self.line + 1, e.to_string()))?;
            let (mut taken, mut stop) = (0, false);
            for end in memchr::memchr2_iter(b'\n', b'\r', buf) {
                if buf[end] == b'\r' {
                    break;
                }
                self.line += 1;
                let len = end - taken;
                taken = end + 1;
                if !more(len) {
                    stop = true;
                    break;
                }
            }
            out.extend_from_slice(&buf[..taken]);
            self.reader.consume(taken);
            if stop {
                return Ok(true);
            }
            // A line ending in \r, or running past the buffer: on its own.
            match self.append_raw(out)? {
                None => return Ok(false),
                Some(len) if !more(len) => return Ok(true),
                Some(_) => {}
            }
        }
    }

    /// Append up to `n` lines as [`Lines::append_raw`] does; how many there were.
    pub fn append_raw_lines(&mut self, n: usize, out: &mut Vec<u8>) -> Result<usize, InputError> {
        let mut count = 0;
        if n > 0 {
            self.append_raw_while(out, |_| {
                count += 1;
                count < n
            })?;
        }
        Ok(count)
    }
}

/// Read up to the next line end, appending to `out`; false when nothing is left.
fn read_line(reader: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<bool> {
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        match memchr::memchr2(b'\n', b'\r', buf) {
            None => {
                out.extend_from_slice(buf);
                let n = buf.len();
                reader.consume(n);
            }
            Some(i) => {
                let cr = buf[i] == b'\r';
                out.extend_from_slice(&buf[..i]);
                reader.consume(i + 1);
                if cr {
                    // \r\n is one line end.
                    let next = reader.fill_buf()?;
                    if next.first() == Some(&b'\n') {
                        reader.consume(1);
                    }
                }
                return Ok(true);
            }
        }
    }
}

/// A source of numbered text lines: a file read as it goes ([`Lines`]) or lines already in
/// memory ([`LineSlices`]).
pub trait LineSource {
    /// The next line, without its line end; None at the end.
    fn next_line(&mut self) -> Result<Option<&str>, InputError>;
    fn file(&self) -> &Path;
    /// Number of the line last returned (1-based).
    fn line_number(&self) -> u64;

    /// The text from the next line on, when it is in memory and checked (see [`LineSlices`]), so
    /// that a parser can read a line where it lies and find its end as it goes.
    fn ahead(&self) -> Option<&str> {
        None
    }

    /// Pass over the next line, `len` bytes long without its end, which the caller read in
    /// [`LineSource::ahead`].
    fn skip_line(&mut self, _len: usize) {
        unreachable!("only a source with text ahead has lines to skip")
    }
}

impl<R: BufRead> LineSource for Lines<R> {
    fn next_line(&mut self) -> Result<Option<&str>, InputError> {
        self.bytes.clear();
        let found = read_line(&mut self.reader, &mut self.bytes)
            .map_err(|e| InputError::at(&self.file, self.line + 1, e.to_string()))?;
        if !found {
            return Ok(None);
        }
        self.line += 1;
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => Ok(Some(text)),
            Err(e) => Err(InputError::at(
                &self.file,
                self.line,
                invalid_utf8(e.valid_up_to()),
            )),
        }
    }

    fn file(&self) -> &Path {
        &self.file
    }

    fn line_number(&self) -> u64 {
        self.line
    }
}

fn invalid_utf8(byte: usize) -> String {
    format!("invalid UTF-8 at byte {byte} of the line")
}

/// Lines that [`Lines::append_raw`] gathered (each ending in `\n`), read back in place, so a
/// worker thread parses them with their numbers. The UTF-8 of all of them is checked at once;
/// an invalid line is an error when it is reached, after the lines before it.
pub struct LineSlices<'a> {
    /// The lines before the first invalid one.
    text: &'a str,
    /// Where the invalid line fails (byte in the line).
    invalid_at: Option<usize>,
    file: &'a Path,
    line: u64,
}

impl<'a> LineSlices<'a> {
    /// `bytes` as gathered, its first line being line `first_line` of `file`.
    pub fn new(bytes: &'a [u8], file: &'a Path, first_line: u64) -> Self {
        let (text, invalid_at) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, None),
            Err(e) => {
                let valid = e.valid_up_to();
                let line_start = memchr::memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
                let text = std::str::from_utf8(&bytes[..line_start]).expect("checked up to there");
                (text, Some(valid - line_start))
            }
        };
        LineSlices {
            text,
            invalid_at,
            file,
            line: first_line.saturating_sub(1),
        }
    }
}

impl<'a> LineSlices<'a> {
    /// The next line, borrowed from the gathered bytes.
    pub fn next_slice(&mut self) -> Result<Option<&'a str>, InputError> {
        if self.text.is_empty() {
            return match self.invalid_at.take() {
                Some(byte) => Err(InputError::at(self.file, self.line + 1, invalid_utf8(byte))),
                None => Ok(None),
            };
        }
        let end =
            memchr::memchr(b'\n', self.text.as_bytes()).expect("every gathered line ends in \\n");
        let line = &self.text[..end];
        self.text = &self.text[end + 1..];
        self.line += 1;
        Ok(Some(line))
    }
}

impl LineSource for LineSlices<'_> {
    fn next_line(&mut self) -> Result<Option<&str>, InputError> {
        self.next_slice()
    }

    fn ahead(&self) -> Option<&str> {
        Some(self.text)
    }

    fn skip_line(&mut self, len: usize) {
        debug_assert_eq!(
            self.text.as_bytes().get(len),
            Some(&b'\n'),
            "a whole line is skipped"
        );
        self.text = &self.text[len + 1..];
        self.line += 1;
    }

    fn file(&self) -> &Path {
        self.file
    }

    fn line_number(&self) -> u64 {
        self.line
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Result<String, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = String::new();
        self.next_into(&mut line)
            .map(|found| found.then_some(line))
            .transpose()
    }
}

impl<R: BufRead> Lines<R> {
    /// The lines with their 1-based numbers, for a parser that runs later and must name them.
    pub fn numbered(self) -> Numbered<R> {
        Numbered(self)
    }
}

pub struct Numbered<R>(Lines<R>);

impl<R: BufRead> Iterator for Numbered<R> {
    type Item = Result<(u64, String), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.0.next()?;
        Some(line.map(|line| (self.0.line_number(), line)))
    }
}

/// Two inputs read in step, an item of each per pair (parallel text, a parse of each side);
/// one ending before the other is an error naming both files.
pub struct Paired<A, B> {
    inputs: (A, B),
    files: (PathBuf, PathBuf),
    /// What one item is, for the message: "line", "sentence".
    unit: &'static str,
    pairs: u64,
}

impl<A, B> Paired<A, B> {
    pub fn new(a: A, b: B, files: (&Path, &Path), unit: &'static str) -> Self {
        Paired {
            inputs: (a, b),
            files: (files.0.to_path_buf(), files.1.to_path_buf()),
            unit,
            pairs: 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PairedError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{} has more {unit}s than {} ({pairs} {unit}s), {longer_count} in all; the files must have one {unit} per pair", longer.display(), shorter.display())]
    Longer {
        longer: PathBuf,
        shorter: PathBuf,
        pairs: u64,
        longer_count: u64,
        unit: &'static str,
    },
}

impl<T, U, A, B> Iterator for Paired<A, B>
where
    A: Iterator<Item = Result<T, InputError>>,
    B: Iterator<Item = Result<U, InputError>>,
{
    type Item = Result<(T, U), PairedError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (a, b) = (self.inputs.0.next(), self.inputs.1.next());
        // One input ended first: count the rest of the other, for the message.
        let (longer, shorter, rest) = match (a, b) {
            (None, None) => return None,
            (Some(Err(e)), _) | (_, Some(Err(e))) => return Some(Err(e.into())),
            (Some(Ok(a)), Some(Ok(b))) => {
                self.pairs += 1;
                return Some(Ok((a, b)));
            }
            (Some(_), None) => (&self.files.0, &self.files.1, self.inputs.0.by_ref().count()),
            (None, Some(_)) => (&self.files.1, &self.files.0, self.inputs.1.by_ref().count()),
        };
        let (longer, shorter, pairs, unit) =
            (longer.clone(), shorter.clone(), self.pairs, self.unit);
        Some(Err(PairedError::Longer {
            longer,
            shorter,
            pairs,
            longer_count: pairs + 1 + rest as u64,
            unit,
        }))
    }
}

/// A reader over a string, for parsers' unit tests.
pub fn from_str(text: &str) -> Lines<&[u8]> {
    Lines::new(text.as_bytes(), Path::new("<text>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut lines = from_str(text);
        let mut out = Vec::new();
        let mut line = String::new();
        while lines.next_into(&mut line).unwrap() {
            out.push(line.clone());
        }
        out
    }

    #[test]
    fn universal_newlines() {
        assert_eq!(all("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(all("a\n\n"), ["a", ""]);
        assert!(all("").is_empty());
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut lines = Lines::new(&b"ok\n\xff\xfe\n"[..], Path::new("f.txt"));
        let mut line = String::new();
        assert!(lines.next_into(&mut line).unwrap());
        let err = lines.next_into(&mut line).unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.txt:2: invalid UTF-8 at byte 0 of the line"
        );
    }

    #[test]
    fn paired_inputs_that_end_apart_name_both_files() {
        let lines = |text: &'static str, name: &str| Lines::new(text.as_bytes(), Path::new(name));
        let paired = Paired::new(
            lines("a\nb\nc\n", "src"),
            lines("x\n", "tgt"),
            (Path::new("src"), Path::new("tgt")),
            "line",
        );
        let got: Vec<_> = paired.map(|r| r.map_err(|e| e.to_string())).collect();
        assert_eq!(
            got[0].as_ref().unwrap(),
            &("a".to_string(), "x".to_string())
        );
        assert_eq!(
            got[1].as_ref().unwrap_err(),
            "src has more lines than tgt (1 lines), 3 in all; the files must have one line per pair"
        );
        assert_eq!(got.len(), 2);
    }
}
