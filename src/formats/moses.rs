//! Moses phrase tables: `src ||| tgt ||| scores ||| alignment ||| counts [||| ...]`, one entry
//! per line. Scores are φ(f|e) lex(f|e) φ(e|f) lex(e|f) and optionally more (the phrase
//! penalty); the alignment and counts fields may be missing.

use std::fmt;

use super::pharaoh;
use crate::metrics::Link;

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
        .map(|x| x.parse::<f64>().or_else(|_| fail(format!("{what}: `{x}` is not a number"))))
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
        return fail(format!("empty {} phrase", if src.is_empty() { "source" } else { "target" }));
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
            pharaoh::parse_line(text, &mut links).map_err(|e| MosesError(format!("alignment: {e}")))?;
            Some(links)
        }
        _ => None,
    };
    let counts = match fields.get(4) {
        Some(text) if !text.is_empty() => Some(numbers(text, "counts")?),
        _ => None,
    };
    Ok(PhraseEntry { src, tgt, scores, alignment, counts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_short_lines() {
        let e = parse_phrase_line("la maison ||| the house ||| 0.5 0.25 0.6 0.3 2.718 ||| 0-0 1-1 ||| 4 5 2 |||").unwrap();
        assert_eq!((e.src, e.tgt), ("la maison", "the house"));
        assert_eq!(e.scores, [0.5, 0.25, 0.6, 0.3, 2.718]);
        assert_eq!(e.alignment, Some(vec![(0, 0), (1, 1)]));
        assert_eq!(e.counts, Some(vec![4.0, 5.0, 2.0]));
        let e = parse_phrase_line("a ||| b ||| 1 1 1 1").unwrap();
        assert_eq!((e.alignment, e.counts), (None, None));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let err = |line: &str| parse_phrase_line(line).unwrap_err().to_string();
        assert!(err("a ||| b").contains("2 field(s)"));
        assert!(err("a ||| b ||| 0.5 0.5 0.5").contains("3 score(s); expected at least 4"));
        assert!(err("a ||| b ||| 0.5 x 0.5 0.5").contains("`x` is not a number"));
        assert!(err(" ||| b ||| 1 1 1 1").contains("empty source phrase"));
        assert!(err("a ||| b ||| 1 1 1 1 ||| 0-x").contains("alignment: alignment entry 1 is `0-x`"));
    }
}
