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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(terminal_safe("a b\nc é"), "a b\nc é");
        assert_eq!(
            terminal_safe("\u{1b}]0;owned\u{7}x\u{1b}[2J\t\r\u{9b}"),
            "\\u{1b}]0;owned\\u{7}x\\u{1b}[2J\\u{9}\\u{d}\\u{9b}"
        );
    }
}
