//! bicleaner-hardrules 2.10.8's rules (bitextor's pre-filter of the Bicleaner pipeline): each
//! model-free rule of `hardrules/hardrules.py`, its parameters from the same configuration keys,
//! and the verdict `wrong_tu` gives a pair (the failing rules in the tool's order and spelling).
//!
//! Exact where the tool is particular: Python 3.9's `str` methods and the `regex` module's
//! classes are separate tables taken from the reference interpreter ([`unicode`]); CJK languages
//! count length in UTF-8 bytes (`length_ratio`) or characters (`not_too_short`); the "safe noise"
//! languages switch `no_repeated_words` to its word pattern; `no_unicode_noise` and
//! `no_bad_encoding` have per-language exceptions; `no_empty` stops the pipeline at once.
//!
//! The three model rules (`no_wrong_language`, `no_porn`, `lm_filter`) are configuration keys
//! here and keep every pair, as the tool does when their models are disabled.

mod patterns;
mod tables;
mod unicode;

use std::fmt;

/// A rule, in the order the tool runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    NoEmpty,
    NotTooLong,
    NotTooShort,
    LengthRatio,
    NoIdentical,
    NoLiterals,
    NoOnlySymbols,
    NoOnlyNumbers,
    NoUrls,
    NoBreadcrumbs,
    NoGluedWords,
    NoRepeatedWords,
    NoUnicodeNoise,
    NoSpaceNoise,
    NoParen,
    NoEscapedUnicode,
    NoBadEncoding,
    NoTitles,
    NoNumberInconsistencies,
    NoScriptInconsistencies,
    NoWrongLanguage,
    NoPorn,
    LmFilter,
}

/// Every rule, in pipeline order.
pub const RULES: [Rule; 23] = [
    Rule::NoEmpty,
    Rule::NotTooLong,
    Rule::NotTooShort,
    Rule::LengthRatio,
    Rule::NoIdentical,
    Rule::NoLiterals,
    Rule::NoOnlySymbols,
    Rule::NoOnlyNumbers,
    Rule::NoUrls,
    Rule::NoBreadcrumbs,
    Rule::NoGluedWords,
    Rule::NoRepeatedWords,
    Rule::NoUnicodeNoise,
    Rule::NoSpaceNoise,
    Rule::NoParen,
    Rule::NoEscapedUnicode,
    Rule::NoBadEncoding,
    Rule::NoTitles,
    Rule::NoNumberInconsistencies,
    Rule::NoScriptInconsistencies,
    Rule::NoWrongLanguage,
    Rule::NoPorn,
    Rule::LmFilter,
];

impl Rule {
    /// The name in the configuration and in the reasons.
    pub fn name(self) -> &'static str {
        match self {
            Rule::NoEmpty => "no_empty",
            Rule::NotTooLong => "not_too_long",
            Rule::NotTooShort => "not_too_short",
            Rule::LengthRatio => "length_ratio",
            Rule::NoIdentical => "no_identical",
            Rule::NoLiterals => "no_literals",
            Rule::NoOnlySymbols => "no_only_symbols",
            Rule::NoOnlyNumbers => "no_only_numbers",
            Rule::NoUrls => "no_urls",
            Rule::NoBreadcrumbs => "no_breadcrumbs",
            Rule::NoGluedWords => "no_glued_words",
            Rule::NoRepeatedWords => "no_repeated_words",
            Rule::NoUnicodeNoise => "no_unicode_noise",
            Rule::NoSpaceNoise => "no_space_noise",
            Rule::NoParen => "no_paren",
            Rule::NoEscapedUnicode => "no_escaped_unicode",
            Rule::NoBadEncoding => "no_bad_encoding",
            Rule::NoTitles => "no_titles",
            Rule::NoNumberInconsistencies => "no_number_inconsistencies",
            Rule::NoScriptInconsistencies => "no_script_inconsistencies",
            Rule::NoWrongLanguage => "no_wrong_language",
            Rule::NoPorn => "no_porn",
            Rule::LmFilter => "lm_filter",
        }
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        RULES.into_iter().find(|rule| rule.name() == name)
    }

    /// Whether the rule looks at both sentences together (`name(left,right)`) rather than at
    /// each on its own.
    fn on_pair(self) -> bool {
        matches!(
            self,
            Rule::LengthRatio
                | Rule::NoIdentical
                | Rule::NoParen
                | Rule::NoTitles
                | Rule::NoNumberInconsistencies
                | Rule::NoPorn
                | Rule::LmFilter
        )
    }
}

/// Which sentence a rule failed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
    Both,
}

/// One failing rule, printed as the tool prints it: `no_urls(left)`, `no_paren(left,right)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Failure {
    pub rule: Rule,
    pub side: Side,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::Left => "left",
            Side::Right => "right",
            Side::Both => "left,right",
        };
        write!(f, "{}({side})", self.rule.name())
    }
}

/// Sides longer than this many characters are `not_too_long` before any rule runs (the tool's
/// command line does so unless `--dont_ignore_long`): the reason is printed without a side.
pub const IGNORED_LENGTH: usize = 10_000;

/// Whether a side of the pair is longer than [`IGNORED_LENGTH`].
pub fn ignored_as_too_long(left: &str, right: &str) -> bool {
    let too_long = |s: &str| s.len() > IGNORED_LENGTH && s.chars().count() > IGNORED_LENGTH;
    too_long(left) || too_long(right)
}

/// A configuration value as YAML gives it to the tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Param>),
}

impl Param {
    /// Python's truth value: a rule whose value is false, 0, empty or null is skipped.
    fn truthy(&self) -> bool {
        match self {
            Param::Null => false,
            Param::Bool(b) => *b,
            Param::Number(x) => *x != 0.0,
            Param::Text(s) => !s.is_empty(),
            Param::List(items) => !items.is_empty(),
        }
    }

    /// The value a numeric rule compares with (`True` is 1 in Python).
    fn number(&self, rule: Rule) -> Result<f64, String> {
        match self {
            Param::Bool(b) => Ok(f64::from(u8::from(*b))),
            Param::Number(x) => Ok(*x),
            other => Err(format!(
                "{}: expected a number, found {other:?}",
                rule.name()
            )),
        }
    }
}

/// The rules' settings: the tool's defaults, then what a configuration file sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    enabled: [bool; RULES.len()],
    not_too_long: f64,
    not_too_short: f64,
    length_ratio: f64,
    repeated_words: f64,
    literals: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        let mut enabled = [true; RULES.len()];
        for rule in [
            Rule::NoUrls,
            Rule::NoNumberInconsistencies,
            Rule::NoScriptInconsistencies,
        ] {
            enabled[rule as usize] = false;
        }
        Config {
            enabled,
            not_too_long: 1024.0,
            not_too_short: 3.0,
            length_ratio: 3.0,
            repeated_words: 1.0,
            literals: ["Re:", "{{", "%s", "}}", "+++", "***", "=\""]
                .map(String::from)
                .to_vec(),
        }
    }
}

impl Config {
    /// Set one key as the tool's `-c` file does; an unknown key is an error naming it.
    pub fn set(&mut self, key: &str, value: &Param) -> Result<(), String> {
        let rule = Rule::from_name(key).ok_or_else(|| {
            let known: Vec<_> = RULES.iter().map(|r| r.name()).collect();
            format!(
                "unknown rule {key:?} in the configuration (the rules: {})",
                known.join(", ")
            )
        })?;
        self.enabled[rule as usize] = value.truthy();
        if !value.truthy() {
            return Ok(());
        }
        match rule {
            Rule::NotTooLong => self.not_too_long = value.number(rule)?,
            Rule::NotTooShort => self.not_too_short = value.number(rule)?,
            Rule::LengthRatio => self.length_ratio = value.number(rule)?,
            Rule::NoRepeatedWords => self.repeated_words = value.number(rule)?,
            Rule::NoWrongLanguage => {
                value.number(rule)?;
            }
            // `any(l in sentence for l in value)`: a list of strings, or a string read as its
            // characters.
            Rule::NoLiterals => {
                self.literals = match value {
                    Param::Text(s) => s.chars().map(String::from).collect(),
                    Param::List(items) => items
                        .iter()
                        .map(|item| match item {
                            Param::Text(s) => Ok(s.clone()),
                            other => Err(format!(
                                "no_literals: expected a list of strings, found {other:?} in it"
                            )),
                        })
                        .collect::<Result<_, _>>()?,
                    other => {
                        return Err(format!(
                            "no_literals: expected a list of strings, found {other:?}"
                        ));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    pub fn enabled(&self, rule: Rule) -> bool {
        self.enabled[rule as usize]
    }
}

/// What the rules read of a language code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Language {
    cjk: bool,
    safe_noise: bool,
    atilde: bool,
    acircumflex: bool,
    relaxed_unicode: bool,
}

impl Language {
    fn new(code: &str) -> Language {
        const CJK: &[&str] = &[
            "zh", "ja", "ko", "yue", "bo", "bod", "cmn", "zho", "jpn", "kor",
        ];
        const SAFE_NOISE: &[&str] = &[
            "en", "es", "fr", "pl", "de", "it", "pt", "nl", "cs", "ro", "fi", "lv", "et", "bg",
            "hr", "da", "hu", "ga", "eu", "gl", "sl", "sv", "mt", "sk", "is", "lt", "nb", "nn",
            "no", "ur", "sw", "my", "so", "bn", "fa", "gu",
        ];
        const ACIRCUMFLEX: &[&str] = &["cy", "fr", "fa", "it", "pt", "tr", "vi", "lij", "ro"];
        Language {
            cjk: CJK.contains(&code),
            safe_noise: SAFE_NOISE.contains(&code),
            atilde: code == "pt",
            acircumflex: ACIRCUMFLEX.contains(&code),
            relaxed_unicode: ["is", "fi", "az"].contains(&code),
        }
    }
}

/// The rules for one language pair.
#[derive(Debug, Clone)]
pub struct Hardrules {
    config: Config,
    languages: [Language; 2],
    minimal_length: bool,
}

/// A sentence as the per-side rules read it.
struct Sentence<'a> {
    text: &'a str,
    chars: Vec<char>,
    /// Each character's `unicode::properties`.
    props: Vec<u8>,
}

impl Sentence<'_> {
    fn new(text: &str) -> Sentence<'_> {
        let chars: Vec<char> = text.chars().collect();
        let props = chars.iter().map(|&c| unicode::properties(c)).collect();
        Sentence { text, chars, props }
    }
}

impl Hardrules {
    /// `disable_minimal_length` is the tool's flag of that name (`not_too_short` keeps all).
    pub fn new(
        config: Config,
        src_lang: &str,
        tgt_lang: &str,
        disable_minimal_length: bool,
    ) -> Hardrules {
        Hardrules {
            config,
            languages: [Language::new(src_lang), Language::new(tgt_lang)],
            minimal_length: !disable_minimal_length,
        }
    }

    /// The failing rules of a pair, as `wrong_tu`: the first alone, or with `run_all` every one
    /// (left before right), except that an empty sentence ends the list at `no_empty`.
    pub fn check(&self, left: &str, right: &str, run_all: bool) -> Vec<Failure> {
        let sides = [Sentence::new(left), Sentence::new(right)];
        let mut failures = Vec::new();
        for rule in RULES {
            if !self.config.enabled(rule) {
                continue;
            }
            if rule.on_pair() {
                if !self.keeps_pair(rule, &sides) {
                    failures.push(Failure {
                        rule,
                        side: Side::Both,
                    });
                    if !run_all {
                        break;
                    }
                }
                continue;
            }
            for (index, side) in [Side::Left, Side::Right].into_iter().enumerate() {
                if self.keeps(rule, &sides[index], index) {
                    continue;
                }
                if rule == Rule::NoEmpty {
                    if !run_all {
                        return vec![Failure { rule, side }];
                    }
                    return [(left, Side::Left), (right, Side::Right)]
                        .into_iter()
                        .filter(|(text, _)| text.is_empty())
                        .map(|(_, side)| Failure { rule, side })
                        .collect();
                }
                failures.push(Failure { rule, side });
                if !run_all {
                    return failures;
                }
            }
        }
        failures
    }

    fn keeps(&self, rule: Rule, sentence: &Sentence, side: usize) -> bool {
        let language = self.languages[side];
        let (text, chars, props) = (sentence.text, &sentence.chars[..], &sentence.props[..]);
        let count = |bit: u8| props.iter().filter(|&&bits| bits & bit != 0).count();
        let length = chars.len() as f64;
        match rule {
            Rule::NoEmpty => !text.is_empty(),
            Rule::NotTooLong => length < self.config.not_too_long,
            Rule::NotTooShort if !self.minimal_length => true,
            Rule::NotTooShort if language.cjk => length >= self.config.not_too_short,
            // Counts the blanks: 3 words need 2.
            Rule::NotTooShort => {
                let blanks = chars.iter().filter(|&&c| c == ' ' || c == '\u{a0}').count();
                blanks as f64 >= self.config.not_too_short - 1.0
            }
            Rule::NoLiterals => !self
                .config
                .literals
                .iter()
                .any(|l| text.contains(l.as_str())),
            Rule::NoOnlySymbols => chars.is_empty() || count(unicode::ALPHA) as f64 / length > 0.1,
            Rule::NoOnlyNumbers => {
                let threshold = if language.cjk { 0.7 } else { 0.5 };
                chars.is_empty()
                    || (chars
                        .iter()
                        .filter(|&&c| unicode::is_posix_digit(c))
                        .count() as f64
                        / length)
                        < threshold
            }
            Rule::NoUrls => !patterns::has_url(chars, props),
            Rule::NoBreadcrumbs => {
                patterns::breadcrumbs1(chars) < 3 || patterns::breadcrumbs2(chars) < 2
            }
            Rule::NoGluedWords => !patterns::has_glued_words(props),
            Rule::NoRepeatedWords => {
                let min_chars = if language.cjk { 4 } else { 7 };
                let limit = self.config.repeated_words.ceil().max(1.0) as usize;
                patterns::repeated(chars, props, language.safe_noise, min_chars, limit) < limit
            }
            // Icelandic, Finnish and Azerbaijani words can hold several Latin-1 letters in a row.
            Rule::NoUnicodeNoise => {
                !patterns::has_latin1_run(chars, if language.relaxed_unicode { 7 } else { 3 })
            }
            Rule::NoSpaceNoise => !patterns::has_space_noise(chars, props),
            Rule::NoEscapedUnicode => !patterns::has_escaped_unicode(chars),
            Rule::NoBadEncoding => {
                (language.atilde || !text.contains('Ã'))
                    && (language.acircumflex || !text.contains('Â'))
            }
            Rule::NoScriptInconsistencies => {
                let mut families = chars
                    .iter()
                    .zip(props)
                    .filter(|&(_, &bits)| bits & unicode::LETTER != 0)
                    .map(|(&c, _)| unicode::script_family(c))
                    .filter(|&family| family != 0);
                let first = families.next();
                families.all(|family| Some(family) == first)
            }
            // The model rules keep every sentence without their models.
            Rule::NoWrongLanguage => true,
            _ => unreachable!("{rule:?} is a rule on the pair"),
        }
    }

    fn keeps_pair(&self, rule: Rule, sides: &[Sentence; 2]) -> bool {
        let [left, right] = sides;
        match rule {
            Rule::LengthRatio => {
                let (l, r) = if self.languages.iter().any(|l| l.cjk) {
                    (left.text.len(), right.text.len())
                } else {
                    (left.chars.len(), right.chars.len())
                };
                // With no_empty disabled, an empty right side is a ZeroDivisionError in the
                // tool (its block is lost); here it fails the rule, as an empty left side does.
                if r == 0 {
                    return false;
                }
                let ratio = l as f64 / r as f64;
                1.0 / self.config.length_ratio <= ratio && ratio <= self.config.length_ratio
            }
            Rule::NoIdentical => {
                !unicode::letters_casefolded(left.text).eq(unicode::letters_casefolded(right.text))
            }
            Rule::NoTitles => {
                let title = |s: &Sentence| {
                    let (from, to) = unicode::strip_chars(&s.chars);
                    s.chars[from..to].contains(&' ') && unicode::is_title(s.text)
                };
                left.text.is_empty() || right.text.is_empty() || !(title(left) && title(right))
            }
            Rule::NoParen => paren_balanced(&left.chars, &right.chars),
            Rule::NoNumberInconsistencies => digit_counts(left.text) == digit_counts(right.text),
            Rule::NoPorn | Rule::LmFilter => true,
            _ => unreachable!("{rule:?} is a rule on each side"),
        }
    }
}

/// `c_no_paren`: square, curly and angle brackets at most 6 a side and balanced; round ones
/// balanced on both sides, or closing as often on both (lists like "a) ... b) ...").
fn paren_balanced(left: &[char], right: &[char]) -> bool {
    const ALL: &[char] = &['[', ']', '(', ')', '{', '}', '⟨', '⟩'];
    if !left.iter().chain(right).any(|c| ALL.contains(c)) {
        return true;
    }
    let count = |s: &[char], c: char| s.iter().filter(|&&x| x == c).count();
    for (open, close) in [('[', ']'), ('{', '}'), ('⟨', '⟩')] {
        for side in [left, right] {
            let (o, c) = (count(side, open), count(side, close));
            if o + c > 6 || o != c {
                return false;
            }
        }
    }
    let (lo, lc) = (count(left, '('), count(left, ')'));
    let (ro, rc) = (count(right, '('), count(right, ')'));
    (lo == lc && ro == rc) || lc == rc
}

/// The ASCII digits of a text as a multiset (`sorted(re.sub('[^0-9]', '', s))`).
fn digit_counts(s: &str) -> [usize; 10] {
    let mut counts = [0; 10];
    for b in s.bytes().filter(u8::is_ascii_digit) {
        counts[usize::from(b - b'0')] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(rules: &Hardrules, l: &str, r: &str, all: bool) -> String {
        let failures = rules.check(l, r, all);
        failures
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("+")
    }

    #[test]
    fn the_pipeline_reports_as_the_tool() {
        let rules = Hardrules::new(Config::default(), "en", "fr", false);
        assert_eq!(
            reasons(&rules, "", "", true),
            "no_empty(left)+no_empty(right)"
        );
        assert_eq!(reasons(&rules, "a b c", "", false), "no_empty(right)");
        assert_eq!(
            reasons(&rules, "The cat sat.", "Le chat est assis.", true),
            ""
        );
        assert_eq!(
            reasons(&rules, "Hi", "Salut", true),
            "not_too_short(left)+not_too_short(right)"
        );
        assert_eq!(
            reasons(
                &rules,
                "one two three four five six seven eight",
                "un deux",
                false
            ),
            "not_too_short(right)"
        );
        assert_eq!(
            reasons(
                &rules,
                "one two three four five six seven eight",
                "un deux un",
                false
            ),
            "length_ratio(left,right)"
        );
    }

    #[test]
    fn configuration_keys_as_the_tool_reads_them() {
        let mut config = Config::default();
        config.set("no_urls", &Param::Bool(true)).unwrap();
        config.set("no_literals", &Param::Text("#".into())).unwrap();
        config.set("length_ratio", &Param::Number(0.0)).unwrap();
        assert!(config.enabled(Rule::NoUrls) && !config.enabled(Rule::LengthRatio));
        assert!(
            config
                .set("no_such_rule", &Param::Bool(true))
                .unwrap_err()
                .contains("no_such_rule")
        );
        assert!(
            config
                .set("not_too_long", &Param::Text("x".into()))
                .is_err()
        );
        let rules = Hardrules::new(config, "en", "fr", false);
        assert_eq!(
            reasons(&rules, "see it at example.com #1", "voir le site", true),
            "no_literals(left)+no_urls(left)"
        );
    }
}
