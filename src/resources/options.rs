//! Every option that gives or tunes a resource, declared once. The command line's flags and
//! their help, Python's keywords and their documentation, and what each front end says when a
//! function lacks its resource or an option's value is wrong ([`BadValue`]) all derive from
//! [`ALL`].

use std::fmt;

use super::Resource;

/// What an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A file.
    Path,
    /// A directory.
    Dir,
    Text,
    Count,
    /// On or off.
    Flag,
}

impl Value {
    /// How help and errors show the value: `PATH`, `DIR`, ...; None for a flag.
    pub fn placeholder(self) -> Option<&'static str> {
        match self {
            Value::Path => Some("PATH"),
            Value::Dir => Some("DIR"),
            Value::Text => Some("TEXT"),
            Value::Count => Some("N"),
            Value::Flag => None,
        }
    }

    /// Whether the value names something on disk (which front ends resolve and watch).
    pub fn is_location(self) -> bool {
        matches!(self, Value::Path | Value::Dir)
    }
}

/// One option: how the library names it (Python's keyword), how the command line does, what
/// its value is, and what it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceOption {
    pub key: &'static str,
    /// The command line's long flag, without `--`.
    pub flag: &'static str,
    pub value: Value,
    pub help: &'static str,
}

pub const PHRASE_TABLE: ResourceOption = ResourceOption {
    key: "phrase_table",
    flag: "phrase-table",
    value: Value::Path,
    help: "A phrase_table (Parquet file or directory, see schemas/phrase_table.md; make one with \
           `import moses-phrase-table` or `extract`) for true_score, true_score_detail, \
           model_score and synthetic_phrases.",
};
pub const PROB_COLUMN: ResourceOption = ResourceOption {
    key: "prob_column",
    flag: "prob-column",
    value: Value::Text,
    help: "Which phrase-table column is the rule probability: p_f_e (P(src|tgt), the default), \
           p_e_f, lex_f_e or lex_e_f.",
};
pub const FREE_IDENTITY: ResourceOption = ResourceOption {
    key: "free_identity",
    flag: "free-identity",
    value: Value::Flag,
    help: "Keep unchanged words for free even when the phrase table has a `w -> w` rule (by \
           default such a rule's probability applies).",
};
pub const TRIPLES: ResourceOption = ResourceOption {
    key: "triples",
    flag: "triples",
    value: Value::Path,
    help: "A triples table (see schemas/triples.md; make one with `pairmetrics triples` or \
           `import syntactic-ngrams`) for dep_fit, dep_fit_pos and their _iucl variants.",
};
pub const LM: ResourceOption = ResourceOption {
    key: "lm",
    flag: "lm",
    value: Value::Path,
    help: "An ARPA back-off language model (plain, .gz or .zst; make one with `lm estimate`) for \
           lm_logprob, lm_full_scores, lm_perplexity, lm_oov_count and model_score.",
};
pub const FASTTEXT_MODEL: ResourceOption = ResourceOption {
    key: "fasttext_model",
    flag: "fasttext-model",
    value: Value::Path,
    help: "A supervised fastText model (.bin or quantised .ftz) for fasttext_lid, \
           fasttext_predict and language_id_score(..., 'fasttext'); for languages, fastText's \
           lid.176.ftz or lid.176.bin (CC BY-SA 3.0, from fasttext.cc).",
};
pub const LANG: ResourceOption = ResourceOption {
    key: "lang",
    flag: "lang",
    value: Value::Text,
    help: "meteor_align's language (Matcher's -l; default en): en da de es fi fr hu it nl no pt \
           ro ru se tr. English synonyms are built in; other languages need a synonym directory \
           for the synonym module.",
};
pub const MODULES: ResourceOption = ResourceOption {
    key: "modules",
    flag: "modules",
    value: Value::Text,
    help: "meteor_align's modules, in order (Matcher's -m), e.g. 'exact stem synonym \
           paraphrase'. Default: exact stem synonym, then paraphrase when a paraphrase table is \
           given.",
};
pub const BEAM: ResourceOption = ResourceOption {
    key: "beam",
    flag: "beam",
    value: Value::Count,
    help: "The beam size of meteor_align's search (Matcher's -x; default 40).",
};
pub const ALIGNMENT_TYPE: ResourceOption = ResourceOption {
    key: "alignment_type",
    flag: "type",
    value: Value::Text,
    help: "meteor_align's objective (Matcher's -t): maxcov (the default) or maxacc.",
};
pub const STEM_TABLE: ResourceOption = ResourceOption {
    key: "stem_table",
    flag: "stem-table",
    value: Value::Path,
    help: "A stem lookup table for meteor_align instead of the Snowball stemmer (Matcher's -e): \
           lines `word count stem`.",
};
pub const SYN_DIR: ResourceOption = ResourceOption {
    key: "syn_dir",
    flag: "syn-dir",
    value: Value::Dir,
    help: "A directory with LANGUAGE.synsets and LANGUAGE.exceptions in METEOR's format, for \
           meteor_align (Matcher's -d).",
};
pub const PARA: ResourceOption = ResourceOption {
    key: "para",
    flag: "para",
    value: Value::Path,
    help: "A paraphrase table in METEOR's format, gzip or plain, for meteor_align (Matcher's -a).",
};

/// Every option, in the order help lists them.
pub const ALL: [ResourceOption; 13] = [
    PHRASE_TABLE,
    PROB_COLUMN,
    FREE_IDENTITY,
    TRIPLES,
    LM,
    FASTTEXT_MODEL,
    LANG,
    MODULES,
    BEAM,
    ALIGNMENT_TYPE,
    STEM_TABLE,
    SYN_DIR,
    PARA,
];

impl Resource {
    /// The option that gives it.
    pub fn option(self) -> ResourceOption {
        match self {
            Resource::PhraseTable => PHRASE_TABLE,
            Resource::Triples => TRIPLES,
            Resource::Lm => LM,
            Resource::FastText => FASTTEXT_MODEL,
        }
    }
}

/// A value an option cannot take. It carries the option, so each front end names it as its
/// users write it: `--prob-column x: expected ...` on the command line (its `Display`),
/// `prob_column='x': expected ...` in Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadValue {
    pub option: ResourceOption,
    pub value: String,
    /// What the value should be.
    pub expected: String,
}

impl BadValue {
    /// `text` parsed by `parse`, whose error says what was expected.
    pub fn parse<T, E: fmt::Display>(
        option: ResourceOption,
        text: &str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, BadValue> {
        parse(text).map_err(|e| BadValue {
            option,
            value: text.to_string(),
            expected: e.to_string(),
        })
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let BadValue {
            option,
            value,
            expected,
        } = self;
        write!(f, "--{} {value}: {expected}", option.flag)
    }
}

impl std::error::Error for BadValue {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn keys_and_flags_are_unique() {
        let keys: BTreeSet<_> = ALL.iter().map(|o| o.key).collect();
        let flags: BTreeSet<_> = ALL.iter().map(|o| o.flag).collect();
        assert_eq!((keys.len(), flags.len()), (ALL.len(), ALL.len()));
    }
}
