//! Text written into XML or HTML (SemEval run files, the report): content and double-quoted
//! attribute values. An apostrophe needs no escape there, since attributes are never
//! single-quoted.

/// `text` with `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
