//! OpusFilter 3.3.1's language-ID filters (`LanguageIDFilter`, `LangidFilter`,
//! `FastTextFilter`, `LinguaFilter`): per side, the identifier's confidence when it finds the
//! expected language, else 0; an empty side scores 1 (OpusFilter keeps empty lines here).

/// Which identifier, which decides how OpusFilter rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// py3langid: the confidence rounded to two decimals (Python's `round(x, 2)`).
    Langid,
    /// fastText: the probability as is (a float32, widened).
    FastText,
}

impl Method {
    pub fn parse(name: &str) -> Result<Method, String> {
        match name {
            "langid" => Ok(Method::Langid),
            "fasttext" => Ok(Method::FastText),
            other => Err(format!(
                "unknown language identification method {other:?}: expected langid or fasttext"
            )),
        }
    }
}

/// One side's score: `identify` gives the detected language and its confidence.
pub fn confidence<'a>(
    text: &str,
    expected: &str,
    method: Method,
    identify: impl FnOnce(&str) -> (&'a str, f64),
) -> f64 {
    if text.is_empty() {
        return 1.0;
    }
    let (lang, prob) = identify(text);
    if lang != expected {
        return 0.0;
    }
    match method {
        Method::Langid => python_round(prob, 2),
        Method::FastText => prob,
    }
}

/// Whether every side's score is above its threshold (OpusFilter's `accept`; default 0).
pub fn accept(scores: &[f64], thresholds: &[f64]) -> bool {
    scores.iter().zip(thresholds).all(|(s, t)| s > t)
}

/// Python's `round(x, digits)`: the decimal nearest to x's exact binary value, ties to even,
/// read back as the nearest double.
pub fn python_round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_as_python() {
        // round(0.125, 2) == 0.12, round(0.375, 2) == 0.38, round(2.675, 2) == 2.67
        assert_eq!(python_round(0.125, 2), 0.12);
        assert_eq!(python_round(0.375, 2), 0.38);
        assert_eq!(python_round(2.675, 2), 2.67);
        assert_eq!(python_round(0.9449999, 2), 0.94);
    }

    #[test]
    fn scores_a_side() {
        let fr = |_: &str| ("fr", 0.98765);
        assert_eq!(confidence("Bonjour", "fr", Method::Langid, fr), 0.99);
        assert_eq!(confidence("Bonjour", "en", Method::Langid, fr), 0.0);
        assert_eq!(confidence("", "en", Method::Langid, fr), 1.0);
        assert_eq!(confidence("Bonjour", "fr", Method::FastText, fr), 0.98765);
        assert!(accept(&[0.5, 0.1], &[0.0, 0.0]));
        assert!(!accept(&[0.5, 0.0], &[0.0, 0.0]));
    }
}
