//! lingua (lingua-rs 1.7.2, the code lingua-py 2.1.1 runs): its detector over every language it
//! knows, or over some, in its default high accuracy mode or in its low accuracy mode
//! (OpusFilter's default).

use std::sync::OnceLock;

use lingua::{IsoCode639_1, LanguageDetector, LanguageDetectorBuilder};

pub struct Lingua {
    detector: LanguageDetector,
}

impl std::fmt::Debug for Lingua {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lingua")
    }
}

impl Lingua {
    /// Every language lingua knows (`LanguageDetectorBuilder.from_all_languages().build()`),
    /// built once per process; models load as texts need them.
    pub fn all() -> &'static Lingua {
        static ALL: OnceLock<Lingua> = OnceLock::new();
        ALL.get_or_init(|| Lingua {
            detector: LanguageDetectorBuilder::from_all_languages().build(),
        })
    }

    /// As lingua-py's builder makes it: every language (`codes` None) or these, with
    /// `.with_low_accuracy_mode()` when `low_accuracy`.
    pub fn new<S: AsRef<str>>(codes: Option<&[S]>, low_accuracy: bool) -> Result<Lingua, String> {
        let mut builder = match codes {
            None => LanguageDetectorBuilder::from_all_languages(),
            Some(codes) => LanguageDetectorBuilder::from_iso_codes_639_1(&isos(codes)?),
        };
        if low_accuracy {
            builder.with_low_accuracy_mode();
        }
        Ok(Lingua {
            detector: builder.build(),
        })
    }

    /// These languages, by ISO 639-1 code (`from_iso_codes_639_1`); lingua needs at least two.
    pub fn restricted<S: AsRef<str>>(codes: &[S]) -> Result<Lingua, String> {
        Lingua::new(Some(codes), false)
    }

    /// The most likely language (ISO 639-1, lowercase) and its confidence, as lingua-py's
    /// `compute_language_confidence_values(text)[0]`; None when lingua finds no language (a
    /// text without words): it then lists every language at 0 in hash-set order, a different
    /// first one in every process.
    pub fn identify(&self, text: &str) -> Option<(String, f64)> {
        let values = self.detector.compute_language_confidence_values(text);
        let &(language, value) = values.first()?;
        (value > 0.0).then(|| (language.iso_code_639_1().to_string(), value))
    }
}

/// ISO 639-1 codes as lingua's; at least two, as lingua needs.
fn isos<S: AsRef<str>>(codes: &[S]) -> Result<Vec<IsoCode639_1>, String> {
    let mut isos = Vec::new();
    let mut unknown = Vec::new();
    for code in codes {
        let code = code.as_ref();
        match code.parse::<IsoCode639_1>() {
            Ok(iso) if !isos.contains(&iso) => isos.push(iso),
            Ok(_) => {}
            Err(_) => unknown.push(code),
        }
    }
    if !unknown.is_empty() {
        return Err(format!(
            "lingua does not know the language code(s) {} (ISO 639-1, e.g. en, fr)",
            unknown.join(", ")
        ));
    }
    if isos.len() < 2 {
        return Err("lingua needs at least two languages to choose from".into());
    }
    Ok(isos)
}
