//! Reading the aligner's resource files: errors that name the file and line.

use std::fmt;
use std::io::BufRead;

#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub file: String,
    pub message: String,
}

impl LoadError {
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        LoadError { file: file.to_string(), message: message.into() }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for LoadError {}

/// Lines of a resource, as `BufferedReader.readLine` splits them, UTF-8 checked.
pub fn lines(reader: impl BufRead, name: &str) -> impl Iterator<Item = Result<String, LoadError>> {
    let name = name.to_string();
    reader.split(b'\n').enumerate().map(move |(i, bytes)| {
        let at = |message: String| LoadError::new(&name, format!("line {}: {message}", i + 1));
        let mut bytes = bytes.map_err(|e| at(e.to_string()))?;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        String::from_utf8(bytes).map_err(|e| at(format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to())))
    })
}

/// METEOR's two-line records (a key line, then a value line).
pub fn pairs_of_lines(reader: impl BufRead, name: &str) -> impl Iterator<Item = Result<(String, String), LoadError>> {
    let mut lines = lines(reader, name).enumerate();
    let name = name.to_string();
    std::iter::from_fn(move || {
        let (i, key) = lines.next()?;
        let key = match key {
            Ok(key) => key,
            Err(e) => return Some(Err(e)),
        };
        Some(match lines.next() {
            Some((_, value)) => value.map(|value| (key, value)),
            None => Err(LoadError::new(&name, format!("line {}: `{key}` is the last line; a line of values must follow it", i + 1))),
        })
    })
}
