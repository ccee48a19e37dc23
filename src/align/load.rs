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

/// Give `f` each line of a resource with its 1-based number, split as `BufferedReader.readLine`
/// splits them and UTF-8 checked, read through one buffer (no allocation per line: resources
/// are loaded at every start, the English synonyms alone are 300,000 lines).
pub fn for_each_line(mut reader: impl BufRead, name: &str, mut f: impl FnMut(usize, &str) -> Result<(), LoadError>) -> Result<(), LoadError> {
    let mut buffer = Vec::new();
    for number in 1.. {
        let at = |message: String| LoadError::new(name, format!("line {number}: {message}"));
        buffer.clear();
        if reader.read_until(b'\n', &mut buffer).map_err(|e| at(e.to_string()))? == 0 {
            break;
        }
        if buffer.last() == Some(&b'\n') {
            buffer.pop();
        }
        if buffer.last() == Some(&b'\r') {
            buffer.pop();
        }
        let line = std::str::from_utf8(&buffer).map_err(|e| at(format!("invalid UTF-8 at byte {}", e.valid_up_to())))?;
        f(number, line)?;
    }
    Ok(())
}

/// METEOR's two-line records (a key line, then a value line), given to `f`.
pub fn for_each_pair_of_lines(reader: impl BufRead, name: &str, mut f: impl FnMut(&str, &str) -> Result<(), LoadError>) -> Result<(), LoadError> {
    let (mut key, mut key_line) = (String::new(), None);
    for_each_line(reader, name, |number, line| {
        match key_line.take() {
            Some(_) => f(&key, line)?,
            None => {
                key.clear();
                key.push_str(line);
                key_line = Some(number);
            }
        }
        Ok(())
    })?;
    match key_line {
        Some(number) => Err(LoadError::new(name, format!("line {number}: `{key}` is the last line; a line of values must follow it"))),
        None => Ok(()),
    }
}
