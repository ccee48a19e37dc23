//! Moses formats, one entry per line:
//! - phrase tables: `src ||| tgt ||| scores ||| alignment ||| counts [||| ...]`; scores are
//!   φ(f|e) lex(f|e) φ(e|f) lex(e|f) and optionally more (the phrase penalty); the alignment and
//!   counts fields may be missing;
//! - n-best lists: `id ||| hypothesis ||| features ||| total [||| ...]`, features as
//!   `name: value value name: value ...`.

use std::fmt;

use super::pharaoh;
use crate::Link;

/// One entry, borrowing its line.
#[derive(Debug, Clone, PartialEq)]
pub struct PhraseEntry<'a> {
    pub src: &'a str,
    pub tgt: &'a str,
    /// All scores in file order; at least four.
    pub scores: Vec<f64>,
    pub alignment: Option<Vec<Link>>,
    pub counts: Option<Vec<f64>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MosesError(pub String);

impl fmt::Display for MosesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MosesError {}

fn fail<T>(message: impl Into<String>) -> Result<T, MosesError> {
    Err(MosesError(message.into()))
}

fn numbers(field: &str, what: &str) -> Result<Vec<f64>, MosesError> {
    field
        .split_whitespace()
        .map(|x| {
            x.parse::<f64>()
                .or_else(|_| fail(format!("{what}: `{x}` is not a number")))
        })
        .collect()
}

/// Parse one phrase-table line.
pub fn parse_phrase_line(line: &str) -> Result<PhraseEntry<'_>, MosesError> {
    let fields: Vec<&str> = line.split("|||").map(str::trim).collect();
    if fields.len() < 3 {
        return fail(format!(
            "{} field(s) separated by `|||`; a phrase table line has `src ||| tgt ||| scores [||| alignment ||| counts]`",
            fields.len()
        ));
    }
    let (src, tgt) = (fields[0], fields[1]);
    if src.is_empty() || tgt.is_empty() {
        return fail(format!(
            "empty {} phrase",
            if src.is_empty() { "source" } else { "target" }
        ));
    }
    let scores = numbers(fields[2], "scores")?;
    if scores.len() < 4 {
        return fail(format!(
            "{} score(s); expected at least 4: p(f|e) lex(f|e) p(e|f) lex(e|f)",
            scores.len()
        ));
    }
    let alignment = match fields.get(3) {
        Some(text) if !text.is_empty() => {
            let mut links = Vec::new();
            pharaoh::parse_line(text, &mut links)
                .map_err(|e| MosesError(format!("alignment: {e}")))?;
            Some(links)
        }
        _ => None,
    };
    let counts = match fields.get(4) {
        Some(text) if !text.is_empty() => Some(numbers(text, "counts")?),
        _ => None,
    };
    Ok(PhraseEntry {
        src,
        tgt,
        scores,
        alignment,
        counts,
    })
}

/// A phrase's tokens as the text of a phrase-table field, which [`parse_phrase_line`] and the
/// tokenizer read back to the same tokens; Err says why they cannot be (a Moses phrase is
/// space-separated tokens between `|||` separators, on one line).
pub fn phrase_text(tokens: &[&str]) -> Result<String, String> {
    if tokens.is_empty() {
        return Err("has no tokens (a Moses phrase cannot be empty)".into());
    }
    for (i, token) in tokens.iter().enumerate() {
        let why = match () {
            _ if token.is_empty() => "is empty",
            _ if token.contains(crate::text::whitespace::is_space) => {
                "contains white space or a line end"
            }
            _ if token.contains("|||") => "contains the field separator `|||`",
            _ => continue,
        };
        return Err(format!("token {i} {token:?} {why}"));
    }
    Ok(tokens.join(" "))
}

/// Append one phrase-table line (with its newline) that [`parse_phrase_line`] reads back to
/// the same entry: numbers in Rust's shortest round-trip form, integers without a fraction.
pub fn write_phrase_line(out: &mut String, entry: &PhraseEntry) {
    use std::fmt::Write as _;
    let number = |out: &mut String, x: f64| {
        let _ = if x.fract() == 0.0 && x.abs() < 1e15 {
            write!(out, "{}", x as i64)
        } else {
            write!(out, "{x:?}")
        };
    };
    let numbers = |out: &mut String, xs: &[f64]| {
        for (i, &x) in xs.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            number(out, x);
        }
    };
    let _ = write!(out, "{} ||| {} ||| ", entry.src, entry.tgt);
    numbers(out, &entry.scores);
    out.push_str(" ||| ");
    super::pharaoh::write_line(out, entry.alignment.as_deref().unwrap_or_default());
    out.push_str(" ||| ");
    numbers(out, entry.counts.as_deref().unwrap_or_default());
    out.push('\n');
}

/// One n-best hypothesis, borrowing its line.
#[derive(Debug, Clone, PartialEq)]
pub struct NbestEntry<'a> {
    pub id: i64,
    pub hyp: &'a str,
    pub features: &'a str,
    /// The feature values in order, names left out.
    pub scores: Vec<f64>,
    pub total: f64,
}

/// Parse one n-best line.
pub fn parse_nbest_line(line: &str) -> Result<NbestEntry<'_>, MosesError> {
    let fields: Vec<&str> = line.split("|||").map(str::trim).collect();
    if fields.len() < 4 {
        return fail(format!(
            "{} field(s) separated by `|||`; an n-best line has `id ||| hypothesis ||| features ||| total`",
            fields.len()
        ));
    }
    let Ok(id) = fields[0].parse::<i64>() else {
        return fail(format!("id `{}` is not an integer", fields[0]));
    };
    let scores = fields[2]
        .split_whitespace()
        .filter(|x| !x.ends_with(':') && !x.ends_with('='))
        .map(|x| {
            x.parse::<f64>()
                .or_else(|_| fail(format!("features: `{x}` is neither a number nor a `name:`")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Ok(total) = fields[3].parse::<f64>() else {
        return fail(format!("total `{}` is not a number", fields[3]));
    };
    Ok(NbestEntry {
        id,
        hyp: fields[1],
        features: fields[2],
        scores,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nbest_lines() {
        let e =
            parse_nbest_line("3 ||| the house . ||| d: 0 -1 lm: -12.5 tm: -1 -2.5 w: -3 ||| -7.25")
                .unwrap();
        assert_eq!((e.id, e.hyp, e.total), (3, "the house .", -7.25));
        assert_eq!(e.scores, [0.0, -1.0, -12.5, -1.0, -2.5, -3.0]);
        let err = |line: &str| parse_nbest_line(line).unwrap_err().to_string();
        assert!(err("x ||| a ||| d: 0 ||| 1").contains("id `x` is not an integer"));
        assert!(err("0 ||| a ||| d: 0").contains("3 field(s)"));
        assert!(err("0 ||| a ||| d: zero ||| 1").contains("`zero` is neither a number"));
        assert!(err("0 ||| a ||| d: 0 ||| one").contains("total `one` is not a number"));
    }

    #[test]
    fn full_and_short_lines() {
        let e = parse_phrase_line(
            "la maison ||| the house ||| 0.5 0.25 0.6 0.3 2.5 ||| 0-0 1-1 ||| 4 5 2 |||",
        )
        .unwrap();
        assert_eq!((e.src, e.tgt), ("la maison", "the house"));
        assert_eq!(e.scores, [0.5, 0.25, 0.6, 0.3, 2.5]);
        assert_eq!(e.alignment, Some(vec![(0, 0), (1, 1)]));
        assert_eq!(e.counts, Some(vec![4.0, 5.0, 2.0]));
        let e = parse_phrase_line("a ||| b ||| 1 1 1 1").unwrap();
        assert_eq!((e.alignment, e.counts), (None, None));
    }

    #[test]
    fn written_lines_read_back() {
        for line in [
            "la maison ||| the house ||| 0.5 0.25 0.6 0.3 2.5 ||| 0-0 1-1 ||| 4 5 2",
            "a ||| b ||| 1 1 1 1 |||  ||| ",
            "a b ||| c ||| 0.1 3.3333333333333335e-7 1e-300 0.25 ||| 1-0 ||| 3 1 1",
        ] {
            let entry = parse_phrase_line(line).unwrap();
            let mut written = String::new();
            write_phrase_line(&mut written, &entry);
            assert_eq!(written, format!("{line}\n"));
            assert_eq!(parse_phrase_line(written.trim_end()).unwrap(), entry);
        }
    }

    #[test]
    fn phrases_that_would_not_read_back_are_refused() {
        assert_eq!(phrase_text(&["a", "b|c", "||"]), Ok("a b|c ||".into()));
        assert_eq!(
            phrase_text(&[]),
            Err("has no tokens (a Moses phrase cannot be empty)".into())
        );
        assert_eq!(phrase_text(&["a", ""]), Err("token 1 \"\" is empty".into()));
        assert_eq!(
            phrase_text(&["a b"]),
            Err("token 0 \"a b\" contains white space or a line end".into())
        );
        assert_eq!(
            phrase_text(&["a\nb"]),
            Err("token 0 \"a\\nb\" contains white space or a line end".into())
        );
        assert_eq!(
            phrase_text(&["x|||y"]),
            Err("token 0 \"x|||y\" contains the field separator `|||`".into())
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let err = |line: &str| parse_phrase_line(line).unwrap_err().to_string();
        assert!(err("a ||| b").contains("2 field(s)"));
        assert!(err("a ||| b ||| 0.5 0.5 0.5").contains("3 score(s); expected at least 4"));
        assert!(err("a ||| b ||| 0.5 x 0.5 0.5").contains("`x` is not a number"));
        assert!(err(" ||| b ||| 1 1 1 1").contains("empty source phrase"));
        assert!(
            err("a ||| b ||| 1 1 1 1 ||| 0-x").contains("alignment: alignment entry 1 is `0-x`")
        );
    }
}
