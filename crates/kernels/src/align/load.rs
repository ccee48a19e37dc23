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
        LoadError {
            file: file.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for LoadError {}

/// Give `f` each line of a resource with its 1-based number, split as `BufferedReader.readLine`
/// splits them and UTF-8 checked. Lines are read in place in the reader's buffer, found by
/// memchr and checked a buffer at a time; only a line that runs past the buffer is copied
/// (resources are loaded at every start: the English synonyms alone are 300,000 lines).
pub fn for_each_line(
    mut reader: impl BufRead,
    name: &str,
    mut f: impl FnMut(usize, &str) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let mut number = 0;
    // A line: text already checked, or bytes to check.
    let mut line = |line: Result<&str, &[u8]>| {
        number += 1;
        let text = match line {
            Ok(text) => text,
            Err(bytes) => std::str::from_utf8(bytes).map_err(|e| {
                LoadError::new(
                    name,
                    format!("line {number}: invalid UTF-8 at byte {}", e.valid_up_to()),
                )
            })?,
        };
        f(number, text.strip_suffix('\r').unwrap_or(text))
    };
    // The start of a line the last buffer ended in.
    let mut carried = Vec::new();
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) => return Err(LoadError::new(name, format!("line {}: {e}", number + 1))),
        };
        if buffer.is_empty() {
            return if carried.is_empty() {
                Ok(())
            } else {
                line(Err(&carried))
            };
        }
        // The buffer's whole lines, as text when they are UTF-8 (else each line is checked and
        // the first invalid one named).
        let whole = &buffer[..memchr::memrchr(b'\n', buffer).map_or(0, |last| last + 1)];
        let text = std::str::from_utf8(whole).ok();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', whole) {
            if !carried.is_empty() {
                carried.extend_from_slice(&whole[start..end]);
                line(Err(&carried))?;
                carried.clear();
            } else {
                line(text.map(|text| &text[start..end]).ok_or(&whole[start..end]))?;
            }
            start = end + 1;
        }
        carried.extend_from_slice(&buffer[start..]);
        let read = buffer.len();
        reader.consume(read);
    }
}

/// METEOR's two-line records (a key line, then a value line), given to `f`.
pub fn for_each_pair_of_lines(
    reader: impl BufRead,
    name: &str,
    mut f: impl FnMut(&str, &str) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
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
        Some(number) => Err(LoadError::new(
            name,
            format!("line {number}: `{key}` is the last line; a line of values must follow it"),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(text: &[u8], capacity: usize) -> Result<Vec<(usize, String)>, LoadError> {
        let mut seen = Vec::new();
        for_each_line(
            BufReader::with_capacity(capacity, text),
            "f",
            |number, line| {
                seen.push((number, line.to_string()));
                Ok(())
            },
        )?;
        Ok(seen)
    }

    #[test]
    fn lines_are_split_as_readline_splits_them_whatever_the_buffer() {
        let text = "a\r\n\nbé c\rd\n\n\r\nlast";
        let expected = [
            (1, "a"),
            (2, ""),
            (3, "bé c\rd"),
            (4, ""),
            (5, ""),
            (6, "last"),
        ];
        let expected: Vec<(usize, String)> =
            expected.iter().map(|&(n, l)| (n, l.to_string())).collect();
        for capacity in [1, 2, 3, 5, 64] {
            assert_eq!(
                lines(text.as_bytes(), capacity).unwrap(),
                expected,
                "buffer of {capacity}"
            );
            assert_eq!(
                lines(format!("{text}\n").as_bytes(), capacity).unwrap(),
                expected,
                "buffer of {capacity}"
            );
        }
        assert_eq!(lines(b"", 4).unwrap(), []);
        assert_eq!(lines(b"\n", 4).unwrap(), [(1, String::new())]);
    }

    #[test]
    fn invalid_utf8_names_the_line_after_the_lines_before_it() {
        for capacity in [1, 4, 64] {
            let mut seen = 0;
            let err = for_each_line(
                BufReader::with_capacity(capacity, &b"ok\nab\xffc\nnever\n"[..]),
                "f",
                |_, _| {
                    seen += 1;
                    Ok(())
                },
            )
            .unwrap_err();
            assert_eq!(
                (seen, err.to_string()),
                (1, "f: line 2: invalid UTF-8 at byte 2".to_string())
            );
        }
    }
}
