//! OpusFilter 3.3.1's language-ID filters (`LanguageIDFilter`, `LangidFilter`,
//! `FastTextFilter`, `LinguaFilter`): per side, the identifier's confidence when it finds the
//! expected language, else 0; an empty side scores 1 (OpusFilter keeps empty lines here).
//!
//! Each identifier is the one OpusFilter 3.3.1 calls: py3langid 0.3.0 (`from_pickled_model`,
//! which 0.4.0 no longer has), its confidence rounded to two decimals; fastText's first label
//! and its probability as is; lingua's first confidence value, in the accuracy mode asked for
//! (OpusFilter's default is lingua's low accuracy mode).

use std::cell::RefCell;
use std::sync::Arc;

use super::fasttext::{self, text_tokens};
use super::langid_legacy;
use super::lingua::Lingua;

/// An identifier as an OpusFilter language-ID filter configures it.
#[derive(Debug, Clone)]
pub enum Identify {
    /// py3langid 0.3.0, maybe restricted to `langid_languages`.
    Langid(langid_legacy::Identifier<'static>),
    FastText(Arc<fasttext::Model>),
    Lingua(Arc<Lingua>),
}

impl Identify {
    /// One side's score.
    pub fn confidence(&self, text: &str, expected: &str) -> Result<f64, String> {
        match self {
            Identify::Langid(identifier) => Ok(langid_confidence(identifier, text, expected)),
            Identify::FastText(model) => fasttext_confidence(model, text, expected),
            Identify::Lingua(lingua) => Ok(lingua_confidence(lingua, text, expected)),
        }
    }
}

/// `LangidFilter.confidence`: py3langid 0.3.0's probability rounded to two decimals (Python's
/// `round(x, 2)`).
pub fn langid_confidence(
    identifier: &langid_legacy::Identifier,
    text: &str,
    expected: &str,
) -> f64 {
    thread_local! {
        static SCRATCH: RefCell<langid_legacy::Scratch> = RefCell::default();
    }
    if text.is_empty() {
        return 1.0;
    }
    let guess = SCRATCH.with_borrow_mut(|scratch| identifier.classify(text, scratch));
    match guess.lang == expected {
        true => python_round(guess.prob, 2),
        false => 0.0,
    }
}

/// `FastTextFilter.confidence`: `predict(text, k=1)`'s probability (a float32, widened) when its
/// label, less its first 9 characters (`__label__`, [`fasttext::LABEL_PREFIX`]), is the expected
/// language.
pub fn fasttext_confidence(
    model: &fasttext::Model,
    text: &str,
    expected: &str,
) -> Result<f64, String> {
    thread_local! {
        static SCRATCH: RefCell<(fasttext::Scratch, Vec<(f32, usize)>)> = RefCell::default();
    }
    if text.is_empty() {
        return Ok(1.0);
    }
    SCRATCH.with_borrow_mut(|(scratch, predictions)| {
        model
            .predict(text_tokens(text.as_bytes()), 1, 0.0, scratch, predictions)
            .map_err(|e| e.to_string())?;
        Ok(match predictions.first() {
            Some(&(prob, label)) if label_is(model.label(label), expected) => f64::from(prob),
            _ => 0.0,
        })
    })
}

/// `label[9:] == expected`: OpusFilter cuts 9 characters, whatever the model's label prefix.
fn label_is(label: &[u8], expected: &str) -> bool {
    let label = String::from_utf8_lossy(label);
    label.chars().skip(9).eq(expected.chars())
}

/// `LinguaFilter.confidence`: lingua's first confidence value when its language is the expected
/// one. A text in which lingua finds no language scores 0 (OpusFilter compares the first of
/// languages all at 0, in an order that changes from process to process).
pub fn lingua_confidence(lingua: &Lingua, text: &str, expected: &str) -> f64 {
    if text.is_empty() {
        return 1.0;
    }
    match lingua.identify(text) {
        Some((lang, value)) if lang == expected => value,
        _ => 0.0,
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
        let langid = langid_legacy::Identifier::new(langid_legacy::Model::built_in());
        // py3langid 0.3.0: ('fr', 0.9999994039535522), rounded.
        assert_eq!(langid_confidence(&langid, "Bonjour le monde", "fr"), 1.0);
        assert_eq!(langid_confidence(&langid, "Bonjour le monde", "en"), 0.0);
        assert_eq!(langid_confidence(&langid, "", "en"), 1.0);
        assert!(accept(&[0.5, 0.1], &[0.0, 0.0]));
        assert!(!accept(&[0.5, 0.0], &[0.0, 0.0]));
    }
}
