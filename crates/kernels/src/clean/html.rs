//! OpusFilter's HtmlTagFilter: does BeautifulSoup (4.15, `html.parser`) find a tag in a segment,
//! `bool(bs4.BeautifulSoup(segment, 'html.parser').find())`, with markup it rejects counting as
//! no tag (OpusFilter catches the error and says False).
//!
//! A port of what decides that in CPython 3.11's `html.parser` and `_markupbase`: the
//! tokenizer's loop (`goahead`), run as BeautifulSoup runs it (`feed` then `close`, character
//! references not converted), start tags with their tolerant patterns, end tags, comments,
//! processing instructions, declarations and marked sections. A start tag is found when the
//! tokenizer calls `handle_starttag` or `handle_startendtag`; an `AssertionError` anywhere
//! (an unknown marked-section keyword, `<![` without a name) rejects the whole segment. The
//! patterns are `html.parser`'s own, with `\s` spelled as Python's `str.isspace()` characters,
//! which is what `re` matches for `\s` in a str pattern.

use std::sync::OnceLock;

use fancy_regex::Regex;

/// Python's `str.isspace()` characters, as the body of a character class.
const SPACE: &str = r"\t\n\x0B\x0C\r\x1C-\x1F \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

struct Patterns {
    locate_start_tag_end: Regex,
    tag_find: Regex,
    attr_find: Regex,
    end_tag_find: Regex,
    comment_close: Regex,
    marked_section_close: Regex,
    ms_marked_section_close: Regex,
    decl_name: Regex,
    charref: Regex,
    entityref: Regex,
    incomplete: Regex,
    cdata_close: [Regex; 2],
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        // `\G` anchors where the search starts: Python's `pattern.match(text, pos)`, with what
        // comes before `pos` visible to lookbehind.
        let re = |p: &str| Regex::new(&p.replace("SP", SPACE)).expect("html.parser's patterns");
        let value = r#"(?:'[^']*'|"[^"]*"|(?!['"])[^>SP]*)"#;
        let attribute = r#"(?<=['"SP/])[^SP/>][^SP/=>]*"#;
        Patterns {
            locate_start_tag_end: re(&format!(
                r"\G<[a-zA-Z][^\t\n\r\x0C />\x00]*(?:[SP/]*(?:{attribute}(?:[SP]*=+[SP]*{value}[SP]*)?(?:[SP]|/(?!>))*)*)?[SP]*"
            )),
            tag_find: re(r"\G([a-zA-Z][^\t\n\r\x0C />\x00]*)(?:[SP]|/(?!>))*"),
            attr_find: re(&format!(
                r#"\G({attribute})([SP]*=+[SP]*('[^']*'|"[^"]*"|(?!['"])[^>SP]*))?(?:[SP]|/(?!>))*"#
            )),
            end_tag_find: re(r"\G</[SP]*([a-zA-Z][-.a-zA-Z0-9:_]*)[SP]*>"),
            comment_close: re(r"--[SP]*>"),
            marked_section_close: re(r"\][SP]*\][SP]*>"),
            ms_marked_section_close: re(r"\][SP]*>"),
            decl_name: re(r"\G[a-zA-Z][-_.a-zA-Z0-9]*[SP]*"),
            charref: re(r"\G&#(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F]"),
            entityref: re(r"\G&([a-zA-Z][-.a-zA-Z0-9]*)[^a-zA-Z0-9]"),
            incomplete: re(r"\G&[a-zA-Z#]"),
            cdata_close: [re(r"(?i)</[SP]*script[SP]*>"), re(r"(?i)</[SP]*style[SP]*>")],
        }
    })
}

/// `html.parser` raised an AssertionError: BeautifulSoup rejects the markup.
struct Rejected;

/// Where a parse step left the tokenizer: past the construct, or waiting for more input.
type Step = Result<Option<usize>, Rejected>;

/// HtmlTagFilter's score for one segment.
pub fn has_tag(segment: &str) -> bool {
    let mut parser = Parser {
        raw: segment.to_string(),
        cdata: None,
        found: false,
    };
    let parsed = parser.goahead(false).and_then(|()| parser.goahead(true));
    parsed.is_ok() && parser.found
}

struct Parser {
    /// What the tokenizer has not consumed yet (`rawdata`).
    raw: String,
    /// Inside `<script>` or `<style>`: which (0 or 1).
    cdata: Option<usize>,
    found: bool,
}

impl Parser {
    fn goahead(&mut self, end: bool) -> Result<(), Rejected> {
        let p = patterns();
        let raw = std::mem::take(&mut self.raw);
        let n = raw.len();
        let mut i = 0;
        while i < n {
            let next = match self.cdata {
                None => memchr::memchr2(b'<', b'&', &raw.as_bytes()[i..]).map(|j| i + j),
                Some(elem) => find(&p.cdata_close[elem], &raw, i).map(|(start, _)| start),
            };
            i = match next {
                Some(j) => j,
                None if self.cdata.is_some() => break,
                None => n,
            };
            if i == n {
                break;
            }
            let rest = &raw[i..];
            if let Some(after) = rest.strip_prefix('<') {
                let step = if after.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    self.parse_starttag(&raw, i)?
                } else if rest.starts_with("</") {
                    self.parse_endtag(&raw, i)
                } else if rest.starts_with("<!--") {
                    parse_comment(&raw, i)
                } else if rest.starts_with("<?") {
                    raw[i + 2..].find('>').map(|k| i + 2 + k + 1)
                } else if rest.starts_with("<!") {
                    parse_html_declaration(&raw, i)?
                } else if i + 1 < n {
                    Some(i + 1)
                } else {
                    break;
                };
                i = match step {
                    Some(k) => k,
                    None if !end => break,
                    // Incomplete at the end: up to the next '>' (or '<') is text.
                    None => match raw[i + 1..].find('>') {
                        Some(k) => i + 1 + k + 1,
                        None => raw[i + 1..].find('<').map_or(i + 1, |k| i + 1 + k),
                    },
                };
            } else if rest.starts_with("&#") {
                if let Some((_, k)) = matched(&p.charref, &raw, i) {
                    i = back_unless_semicolon(&raw, k);
                    continue;
                }
                if rest.contains(';') {
                    i += 2;
                }
                break;
            } else {
                if let Some((_, k)) = matched(&p.entityref, &raw, i) {
                    i = back_unless_semicolon(&raw, k);
                    continue;
                }
                if let Some((_, k)) = matched(&p.incomplete, &raw, i) {
                    if end && k == n {
                        i += 1;
                    }
                    break;
                } else if i + 1 < n {
                    i += 1;
                } else {
                    break;
                }
            }
        }
        if end && i < n && self.cdata.is_none() {
            i = n;
        }
        self.raw = raw[i..].to_string();
        Ok(())
    }

    fn parse_starttag(&mut self, raw: &str, i: usize) -> Step {
        let p = patterns();
        let Some(end) = check_for_whole_start_tag(raw, i) else {
            return Ok(None);
        };
        let (name, mut k) = match captures(&p.tag_find, raw, i + 1) {
            Some(m) => m,
            None => return Err(Rejected),
        };
        while k < end {
            match matched(&p.attr_find, raw, k) {
                Some((_, e)) => k = e,
                None => break,
            }
        }
        let closing = raw.get(k..end).unwrap_or("").trim_matches(is_python_space);
        match closing {
            "/>" => self.found = true,
            ">" => {
                self.found = true;
                self.cdata = match name.to_lowercase().as_str() {
                    "script" => Some(0),
                    "style" => Some(1),
                    _ => self.cdata,
                };
            }
            _ => {}
        }
        Ok(Some(end))
    }

    fn parse_endtag(&mut self, raw: &str, i: usize) -> Option<usize> {
        let p = patterns();
        let gt = i + 1 + raw[i + 1..].find('>')? + 1;
        let Some((elem, _)) = captures(&p.end_tag_find, raw, i) else {
            if self.cdata.is_some() {
                return Some(gt);
            }
            return match captures(&p.tag_find, raw, i + 2) {
                Some((_, name_end)) => Some(name_end + raw[name_end..].find('>')? + 1),
                None if raw[i..].starts_with("</>") => Some(i + 3),
                None => parse_bogus_comment(raw, i),
            };
        };
        let elem = elem.to_lowercase();
        if let Some(cdata) = self.cdata
            && elem != ["script", "style"][cdata]
        {
            return Some(gt);
        }
        self.cdata = None;
        Some(gt)
    }
}

/// Python's `str.isspace()`.
fn is_python_space(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// A reference ends before its terminating character unless that is `;`.
fn back_unless_semicolon(raw: &str, end: usize) -> usize {
    let last = raw[..end].chars().next_back().expect("a non-empty match");
    match last {
        ';' => end,
        c => end - c.len_utf8(),
    }
}

/// `pattern.match(raw, at)`: the match's start and end.
fn matched(pattern: &Regex, raw: &str, at: usize) -> Option<(usize, usize)> {
    let m = pattern.find_from_pos(raw, at).ok()??;
    (m.start() == at).then(|| (m.start(), m.end()))
}

/// `pattern.search(raw, at)`.
fn find(pattern: &Regex, raw: &str, at: usize) -> Option<(usize, usize)> {
    let m = pattern.find_from_pos(raw, at).ok()??;
    Some((m.start(), m.end()))
}

/// `pattern.match(raw, at)`: group 1 and the match's end.
fn captures<'r>(pattern: &Regex, raw: &'r str, at: usize) -> Option<(&'r str, usize)> {
    let c = pattern.captures_from_pos(raw, at).ok()??;
    let whole = c.get(0)?;
    (whole.start() == at).then(|| (c.get(1).map_or("", |g| g.as_str()), whole.end()))
}

/// `check_for_whole_start_tag`: where the start tag ends, None if incomplete.
fn check_for_whole_start_tag(raw: &str, i: usize) -> Option<usize> {
    let (_, j) = matched(&patterns().locate_start_tag_end, raw, i)?;
    match raw[j..].chars().next() {
        Some('>') => Some(j + 1),
        Some('/') if raw[j..].starts_with("/>") => Some(j + 2),
        // A '/' that is not '/>', the end of the input, or a letter or '=' at the end: wait
        // for more.
        Some('/') | None => None,
        Some(c) if c.is_ascii_alphabetic() || c == '=' => None,
        Some(_) => Some(if j > i { j } else { i + 1 }),
    }
}

/// `_markupbase.parse_comment`.
fn parse_comment(raw: &str, i: usize) -> Option<usize> {
    find(&patterns().comment_close, raw, i + 4).map(|(_, end)| end)
}

/// `parse_bogus_comment`: up to the next '>'.
fn parse_bogus_comment(raw: &str, i: usize) -> Option<usize> {
    raw[i + 2..].find('>').map(|k| i + 2 + k + 1)
}

/// `parse_html_declaration`.
fn parse_html_declaration(raw: &str, i: usize) -> Step {
    let rest = &raw[i..];
    if rest.starts_with("<!--") {
        return Ok(parse_comment(raw, i));
    }
    if rest.starts_with("<![") {
        return parse_marked_section(raw, i);
    }
    if rest.len() >= 9 && rest.as_bytes()[..9].eq_ignore_ascii_case(b"<!doctype") {
        return Ok(raw[i + 9..].find('>').map(|k| i + 9 + k + 1));
    }
    Ok(parse_bogus_comment(raw, i))
}

/// `_markupbase.parse_marked_section`, with `_scan_name`.
fn parse_marked_section(raw: &str, i: usize) -> Step {
    let p = patterns();
    let at = i + 3;
    if at == raw.len() {
        return Ok(None);
    }
    let Some((_, name_end)) = matched(&p.decl_name, raw, at) else {
        // "expected name token"
        return Err(Rejected);
    };
    if name_end == raw.len() {
        return Ok(None);
    }
    let name = raw[at..name_end]
        .trim_matches(is_python_space)
        .to_ascii_lowercase();
    let close = match name.as_str() {
        "temp" | "cdata" | "ignore" | "include" | "rcdata" => &p.marked_section_close,
        "if" | "else" | "endif" => &p.ms_marked_section_close,
        // "unknown status keyword in marked section"
        _ => return Err(Rejected),
    };
    Ok(find(close, raw, at).map(|(_, end)| end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bs4 4.15 on CPython 3.11.7: `bool(BeautifulSoup(s, 'html.parser').find())`.
    #[test]
    fn as_beautifulsoup_finds_tags() {
        for (segment, found) in [
            ("<p>Hello <b>world</b></p>", true),
            ("<a href='x'>broken", true),
            ("<br/> tag", true),
            ("x < y and y > z", false),
            ("<3 you", false),
            ("no tags", false),
            ("</b> only an end tag", false),
            ("<!-- <b>in a comment</b> -->", false),
            ("<b", false),
            ("<b x='1", false),
            ("&#; <b>x</b>", true),
            ("<b>x</b> <![foo x", false),
            ("<!DOCTYPE html>", false),
        ] {
            assert_eq!(has_tag(segment), found, "{segment:?}");
        }
    }
}
