//! Text for a terminal: data shown by `show` and `sql`'s table output may hold control
//! characters (`ESC]0;...` retitles the window, `ESC[2J` clears the screen), which a terminal
//! would obey. They are shown escaped instead, as Rust writes them (`\u{1b}`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character but the line end escaped (tabs too, as they would
/// break an aligned table).
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n';
    if !text.contains(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match unsafe_char(c) {
            true => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            false => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes control characters as [`terminal_safe`] does, but for line ends and
/// the tabs of data formats (CSV and JSON lines written to a terminal rather than a program).
/// UTF-8 is read across writes: a C1 control (U+0080-U+009F) is two bytes that may arrive
/// apart.
pub struct TerminalSafe<W: std::io::Write> {
    inner: W,
    /// A 0xC2 lead byte whose next byte is not yet known.
    pending_c2: bool,
}

impl<W: std::io::Write> TerminalSafe<W> {
    pub fn new(inner: W) -> Self {
        TerminalSafe {
            inner,
            pending_c2: false,
        }
    }
}

impl<W: std::io::Write> std::io::Write for TerminalSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut out = Vec::with_capacity(bytes.len());
        for &b in bytes {
            if std::mem::take(&mut self.pending_c2) {
                match b {
                    0x80..=0x9f => {
                        let _ = write!(out_string(&mut out), "\\u{{{:x}}}", b);
                        continue;
                    }
                    _ => out.push(0xc2),
                }
            }
            match b {
                b'\n' | b'\t' => out.push(b),
                0x00..=0x1f | 0x7f => {
                    let _ = write!(out_string(&mut out), "\\u{{{b:x}}}");
                }
                0xc2 => self.pending_c2 = true,
                _ => out.push(b),
            }
        }
        self.inner.write_all(&out)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

/// `out` as a `fmt::Write` for ASCII escapes.
fn out_string(out: &mut Vec<u8>) -> impl std::fmt::Write + '_ {
    struct Bytes<'a>(&'a mut Vec<u8>);
    impl std::fmt::Write for Bytes<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    Bytes(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_escapes_controls_across_writes_and_keeps_line_ends() {
        use std::io::Write;
        let mut out = TerminalSafe::new(Vec::new());
        out.write_all(b"a\tb\x1b[2J\n\xc2").unwrap();
        out.write_all(b"\x9b\xc2\xa0\xc3\xa9\n").unwrap();
        out.flush().unwrap();
        assert_eq!(
            String::from_utf8(out.inner).unwrap(),
            "a\tb\\u{1b}[2J\n\\u{9b}\u{a0}\u{e9}\n"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(terminal_safe("a b\nc é"), "a b\nc é");
        assert_eq!(
            terminal_safe("\u{1b}]0;owned\u{7}x\u{1b}[2J\t\r\u{9b}"),
            "\\u{1b}]0;owned\\u{7}x\\u{1b}[2J\\u{9}\\u{d}\\u{9b}"
        );
    }
}
