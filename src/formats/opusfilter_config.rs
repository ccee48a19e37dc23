//! OpusFilter 3.3.1's YAML as pairmetrics reads it: the filters of a `filter` or `score` step
//! (each filter's parameters with OpusFilter's defaults and checks, their score names), the
//! step variables (`!var`, `!varstr`), and the filters a table of pairs is scored with
//! (`score --filters`, SQL `opusfilter`): a list of filters, or a whole configuration's
//! `filter` steps.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use serde_yaml::Value as Yaml;

use crate::clean::opusfilter::{Filter, Repetition, Unit, parse_script};
use crate::clean::regexp::PyRegex;
use crate::lid::{self, filter::Identify, lingua::Lingua};

/// The filters `opusfilter` runs here, by OpusFilter's class name.
pub const FILTERS: &[&str] = &[
    "LengthFilter",
    "LengthRatioFilter",
    "LongWordFilter",
    "AverageWordLengthFilter",
    "AlphabetRatioFilter",
    "CharacterScoreFilter",
    "TerminalPunctuationFilter",
    "NonZeroNumeralsFilter",
    "LongestCommonSubstringFilter",
    "SimilarityFilter",
    "RepetitionFilter",
    "HtmlTagFilter",
    "RegExpFilter",
    "LanguageIDFilter",
    "LangidFilter",
    "FastTextFilter",
    "LinguaFilter",
];

/// A filter with its score names: OpusFilter's `get_score_tuples` (the class, its `name`, an
/// instance number when one is repeated), the keys its score file nests the score under.
#[derive(Debug, Clone)]
pub struct NamedFilter {
    pub names: Vec<String>,
    pub filter: Filter,
}

impl NamedFilter {
    /// Its column in a scored table: the names joined by `_`, the class in snake case
    /// (`LengthRatioFilter` named `chars` → `length_ratio_filter_chars`).
    pub fn column(&self) -> String {
        let mut column = String::new();
        for (k, c) in self.names[0].chars().enumerate() {
            if c.is_uppercase() && k > 0 {
                column.push('_');
            }
            column.extend(c.to_lowercase());
        }
        for name in &self.names[1..] {
            column.push('_');
            column.push_str(name);
        }
        column
    }
}

/// Read a fastText model file (.bin or .ftz), naming it in errors.
pub fn read_fasttext(path: &Path) -> Result<lid::fasttext::Model> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("reading the fastText model {}", path.display()))?;
    lid::fasttext::Model::read(&bytes).with_context(|| {
        format!(
            "{} is not a model fastText can predict with",
            path.display()
        )
    })
}

/// The filters to score pairs (two sides) with, from YAML: a list of filters as a `filter`
/// step's `filters` holds them, or an OpusFilter configuration, whose `filter` steps' filters
/// are taken in order, a list several steps share once (a pair the first step rejects never
/// reaches the second, so the first rejecting filter is the same). Model paths are as OpusFilter reads them: relative to the
/// configuration's `output_directory` (the working directory for a list). Columns must differ:
/// the same filter with other parameters in two steps needs a `name`.
pub fn pair_filters(yaml: &str, log: &mut dyn Write) -> Result<Vec<NamedFilter>> {
    let config: Yaml = serde_yaml::from_str(yaml).context("not YAML")?;
    let filters = match &config {
        Yaml::Sequence(_) => {
            let mut step = serde_yaml::Mapping::new();
            step.insert("filters".into(), config.clone());
            step_filters(&step, 2, Path::new("."), log)?
        }
        Yaml::Mapping(m) if m.contains_key("steps") => configured_filters(m, log)?,
        _ => bail!(
            "expected a list of OpusFilter filters (`- LengthRatioFilter: {{threshold: 3}}`) or \
             an OpusFilter configuration with `steps`"
        ),
    };
    let mut columns = BTreeMap::new();
    for f in &filters {
        if let Some(other) = columns.insert(f.column(), &f.names) {
            bail!(
                "{} and {} would both be column {}: give one a `name`",
                other.join("."),
                f.names.join("."),
                f.column()
            );
        }
    }
    if filters.is_empty() {
        bail!("no filters");
    }
    Ok(filters)
}

/// The filters of a configuration's `filter` steps, their variables expanded.
fn configured_filters(
    config: &serde_yaml::Mapping,
    log: &mut dyn Write,
) -> Result<Vec<NamedFilter>> {
    let common = config.get("common");
    let workdir = match common.and_then(|c| c.get("output_directory")) {
        Some(Yaml::String(dir)) => PathBuf::from(dir),
        _ => PathBuf::from("."),
    };
    let constants = match common.and_then(|c| c.get("constants")) {
        Some(Yaml::Mapping(m)) => m.clone(),
        _ => serde_yaml::Mapping::new(),
    };
    let steps = config
        .get("steps")
        .and_then(Yaml::as_sequence)
        .ok_or_else(|| anyhow!("`steps` must be a list"))?;
    let mut filters = Vec::new();
    // Configurations often run one list in several steps (a YAML anchor: kept and
    // filterfalse outputs): a list already taken adds nothing.
    let mut taken: Vec<Yaml> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        if step.get("type").and_then(Yaml::as_str) != Some("filter") {
            continue;
        }
        let at = |e: String| anyhow!("step {}: {e}", index + 1);
        if step.get("variables").is_some() {
            return Err(at(
                "a filter step with `variables` runs different filters on different files: \
                 give the filters for these pairs as a list"
                    .into(),
            ));
        }
        let mut namespace = constants.clone();
        if let Some(Yaml::Mapping(m)) = step.get("constants") {
            namespace.extend(m.clone());
        }
        let parameters = step
            .get("parameters")
            .ok_or_else(|| at("no `parameters`".into()))?;
        let Yaml::Mapping(parameters) = expand(parameters, &namespace).map_err(at)? else {
            return Err(at("`parameters` must be a mapping".into()));
        };
        let list = parameters.get("filters").cloned().unwrap_or(Yaml::Null);
        if taken.contains(&list) {
            continue;
        }
        taken.push(list);
        filters
            .extend(step_filters(&parameters, 2, &workdir, log).map_err(|e| at(format!("{e:#}")))?);
    }
    if filters.is_empty() {
        bail!("the configuration has no `filter` step");
    }
    Ok(filters)
}

/// The namespaces of a step's substeps: one per index of its `variables`' lists, or just one.
pub fn substeps(
    step: &Yaml,
    namespace: serde_yaml::Mapping,
) -> Result<Vec<serde_yaml::Mapping>, String> {
    let Some(Yaml::Mapping(variables)) = step.get("variables") else {
        return Ok(vec![namespace]);
    };
    let mut length = None;
    for (key, values) in variables {
        let Yaml::Sequence(values) = values else {
            return Err(format!("variable {key:?} does not define a list"));
        };
        if length.is_some_and(|l| l != values.len()) {
            return Err(format!(
                "variable {key:?} has a different length of values than the previous"
            ));
        }
        length = Some(values.len());
    }
    Ok((0..length.unwrap_or(0))
        .map(|i| {
            let mut namespace = namespace.clone();
            for (key, values) in variables {
                namespace.insert(
                    key.clone(),
                    values.as_sequence().expect("checked")[i].clone(),
                );
            }
            namespace
        })
        .collect())
}

/// Replace `!var NAME` by the variable's value and `!varstr TEMPLATE` by the template with
/// `{name}` replaced (Python's `str.format(**namespace)`).
pub fn expand(value: &Yaml, namespace: &serde_yaml::Mapping) -> Result<Yaml, String> {
    Ok(match value {
        Yaml::Sequence(items) => Yaml::Sequence(
            items
                .iter()
                .map(|v| expand(v, namespace))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Mapping(m) => Yaml::Mapping(
            m.iter()
                .map(|(k, v)| Ok((expand(k, namespace)?, expand(v, namespace)?)))
                .collect::<Result<_, String>>()?,
        ),
        Yaml::Tagged(tagged) => {
            let name = tagged.value.as_str().unwrap_or_default();
            if tagged.tag == "!var" {
                namespace
                    .get(name)
                    .cloned()
                    .ok_or_else(|| format!("variable not defined in the context: {name}"))?
            } else if tagged.tag == "!varstr" {
                Yaml::String(format_template(name, namespace)?)
            } else {
                return Err(format!("unknown tag {}", tagged.tag));
            }
        }
        other => other.clone(),
    })
}

fn format_template(template: &str, namespace: &serde_yaml::Mapping) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        out.push_str(&rest[..open]);
        let brace = rest.as_bytes()[open];
        rest = &rest[open + 1..];
        if rest.as_bytes().first() == Some(&brace) {
            out.push(brace as char);
            rest = &rest[1..];
            continue;
        }
        if brace == b'}' {
            return Err(format!("single '}}' in {template:?}"));
        }
        let close = rest
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in {template:?}"))?;
        let name = &rest[..close];
        let value = namespace.get(name).ok_or_else(|| {
            format!("string substitutions not defined in the context: {template}")
        })?;
        out.push_str(&scalar_text(value));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A scalar as Python's `str()` prints it.
pub fn scalar_text(value: &Yaml) -> String {
    match value {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(true) => "True".into(),
        Yaml::Bool(false) => "False".into(),
        Yaml::Null => "None".into(),
        Yaml::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::text::python::float_repr(f),
            _ => n.to_string(),
        },
        other => format!("{other:?}"),
    }
}

/// A language-ID filter, configured as OpusFilter 3.3.1 configures it (its ConfigurationErrors
/// are errors here too); a fastText model path is relative to the output directory, as
/// OpusFilter joins it to its `workdir`.
fn language_id_filter(name: &str, a: &serde_yaml::Mapping, workdir: &Path) -> Result<Filter> {
    let strings = |key: &str| -> Result<Option<Vec<String>>> {
        match a.get(key) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::Sequence(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| anyhow!("{name}: `{key}` must be a list of language codes"))
                })
                .collect::<Result<_>>()
                .map(Some),
            Some(_) => bail!("{name}: `{key}` must be a list of language codes"),
        }
    };
    let text = |key: &str| a.get(key).and_then(Yaml::as_str);
    let languages = strings("languages")?
        .ok_or_else(|| anyhow!("{name}: A list of language codes needs to be defined"))?;
    let thresholds = match a.get("thresholds") {
        None | Some(Yaml::Null) => vec![0.0; languages.len()],
        Some(Yaml::Sequence(t)) => t
            .iter()
            .map(|v| {
                v.as_f64()
                    .ok_or_else(|| anyhow!("{name}: `thresholds` must be a list of numbers"))
            })
            .collect::<Result<_>>()?,
        Some(_) => bail!("{name}: `thresholds` must be a list of numbers"),
    };
    let langid_languages = strings("langid_languages")?.filter(|l| !l.is_empty());
    let method = match name {
        "LangidFilter" => "langid",
        "FastTextFilter" => "fasttext",
        "LinguaFilter" => "lingua",
        _ => text("id_method").unwrap_or("langid"),
    };
    let model_key = match name {
        "FastTextFilter" => "model_path",
        _ => "fasttext_model_path",
    };
    // LanguageIDFilter's cross-checks; the other classes do not take these keys at all (an
    // extra key is ignored with a warning there).
    if name == "LanguageIDFilter" {
        if langid_languages.is_some() && !matches!(method, "langid" | "lingua") {
            bail!(
                "{name}: langid_languages option is supported only by the langid and lingua methods"
            );
        }
        if method != "fasttext" && text(model_key).is_some() {
            bail!(
                "{name}: FastText language ID method was not choosen but fasttext path to model \
                 was set"
            );
        }
        if method != "lingua" && a.contains_key("lingua_mode") {
            bail!("{name}: lingua_mode is supported only by the method lingua");
        }
        if method != "cld2" && a.get("cld2_options").is_some_and(|o| !o.is_null()) {
            bail!("{name}: cld2_options is supported only by the method cld2");
        }
    }
    let identify = match method {
        "langid" => {
            let model = lid::langid_legacy::Model::built_in();
            Identify::Langid(match &langid_languages {
                None => lid::langid_legacy::Identifier::new(model),
                Some(langs) => lid::langid_legacy::Identifier::restricted(model, langs)
                    .map_err(|e| anyhow!("{name}: {e}"))?,
            })
        }
        "fasttext" => {
            let path = text(model_key).ok_or_else(|| {
                anyhow!(
                    "{name}: FastText language ID method was choosen without specifying any path \
                     to fasttext model (`{model_key}`)"
                )
            })?;
            let path = under(workdir, path);
            Identify::FastText(Arc::new(
                read_fasttext(&path).with_context(|| format!("{name}: `{model_key}`"))?,
            ))
        }
        "lingua" => {
            let low = match text("lingua_mode").unwrap_or("low") {
                "low" => true,
                "high" => false,
                other => bail!("{name}: lingua mode '{other}' is not supported."),
            };
            Identify::Lingua(Arc::new(
                Lingua::new(langid_languages.as_deref(), low)
                    .map_err(|e| anyhow!("{name}: {e}"))?,
            ))
        }
        "cld2" => bail!(
            "{name}: id_method cld2 (pycld2) is not supported by pairmetrics opusfilter: use \
             langid, fasttext or lingua; nothing was written"
        ),
        other => bail!("{name}: Unknown language identification method '{other}'"),
    };
    Ok(Filter::LanguageId {
        languages,
        thresholds,
        identify,
    })
}

/// `os.path.join(workdir, path)` as the file system will resolve it once `workdir` exists: the
/// checks before the first step run before the output directory is created.
fn under(workdir: &Path, path: &str) -> PathBuf {
    let joined = workdir.join(path);
    if workdir.is_dir() {
        return joined;
    }
    let mut resolved = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir if resolved.file_name().is_some() => {
                resolved.pop();
            }
            std::path::Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved
}

/// The filters of a `filter` or `score` step, with their score names (OpusFilter's
/// `get_score_tuples`: the class, its `name`, and an instance number when repeated).
pub fn step_filters(
    parameters: &serde_yaml::Mapping,
    sides: usize,
    workdir: &Path,
    log: &mut dyn Write,
) -> Result<Vec<NamedFilter>> {
    let specs = parameters
        .get("filters")
        .and_then(Yaml::as_sequence)
        .ok_or_else(|| anyhow!("`filters` must be a list"))?;
    let mut parsed = Vec::new();
    for spec in specs {
        let Yaml::Mapping(spec) = spec else {
            bail!("a filter must be a mapping of its class name to its parameters, not {spec:?}");
        };
        if spec.contains_key("module") {
            bail!(
                "custom filter modules (`module:`) are Python code: pairmetrics opusfilter cannot run them"
            );
        }
        let (name, attributes) = spec
            .iter()
            .next()
            .ok_or_else(|| anyhow!("an empty filter"))?;
        let name = name
            .as_str()
            .ok_or_else(|| anyhow!("a filter's name must be a string"))?;
        let attributes = match attributes {
            Yaml::Mapping(m) => m.clone(),
            Yaml::Null => serde_yaml::Mapping::new(),
            other => bail!("{name}: parameters must be a mapping, not {other:?}"),
        };
        let label = attributes
            .get("name")
            .and_then(Yaml::as_str)
            .map(str::to_string);
        let filter = parse_filter(name, &attributes, sides, workdir, log)?;
        parsed.push(((name.to_string(), label), filter));
    }
    // Score names.
    let mut counts: BTreeMap<(String, Option<String>), usize> = BTreeMap::new();
    for (key, _) in &parsed {
        *counts.entry(key.clone()).or_default() += 1;
    }
    let mut instances: BTreeMap<(String, Option<String>), usize> = BTreeMap::new();
    let named: Vec<NamedFilter> = parsed
        .into_iter()
        .map(|((class, label), filter)| {
            let mut names = vec![class.clone()];
            names.extend(label.clone());
            if counts[&(class.clone(), label.clone())] > 1 {
                let n = instances.entry((class, label)).or_default();
                *n += 1;
                names.push(n.to_string());
            }
            NamedFilter { names, filter }
        })
        .collect();
    // A score name that is a prefix of another (`RepetitionFilter` and `RepetitionFilter`
    // named `short`) would put a score where a nested object goes: OpusFilter stops there with
    // a TypeError.
    for a in named.iter().map(|f| &f.names) {
        for b in named.iter().map(|f| &f.names) {
            if a.len() < b.len() && b.starts_with(a) {
                bail!(
                    "the scores of {} and {} would clash in the score file (OpusFilter stops \
                     with a TypeError): give the first a `name` too",
                    a.join("."),
                    b.join(".")
                );
            }
        }
    }
    Ok(named)
}

/// One filter's parameters, with OpusFilter's defaults; a parameter it does not know is
/// ignored with a warning, as OpusFilter ignores it.
fn parse_filter(
    name: &str,
    a: &serde_yaml::Mapping,
    sides: usize,
    workdir: &Path,
    log: &mut dyn Write,
) -> Result<Filter> {
    let known: &[&str] = match name {
        "LengthFilter" => &["min_length", "max_length", "unit", "pass_empty"],
        "LengthRatioFilter" => &["threshold", "unit"],
        "LongWordFilter" => &["threshold"],
        "AverageWordLengthFilter" => &["min_length", "max_length", "pass_empty"],
        "AlphabetRatioFilter" => &["threshold", "exclude_whitespace"],
        "CharacterScoreFilter" => &["scripts", "thresholds"],
        "TerminalPunctuationFilter" => &["threshold"],
        "NonZeroNumeralsFilter" | "LongestCommonSubstringFilter" => &["threshold", "require_all"],
        "SimilarityFilter" => &["threshold", "weights", "unit", "lowercase", "require_all"],
        "RepetitionFilter" => &["threshold", "min_length", "max_length"],
        "LanguageIDFilter" => &[
            "languages",
            "id_method",
            "thresholds",
            "fasttext_model_path",
            "langid_languages",
            "cld2_options",
            "lingua_mode",
        ],
        "HtmlTagFilter" => &[],
        "RegExpFilter" => &["regexps", "accept_match"],
        "LangidFilter" => &["languages", "thresholds", "langid_languages"],
        "FastTextFilter" => &["languages", "thresholds", "model_path"],
        "LinguaFilter" => &["languages", "thresholds", "langid_languages", "lingua_mode"],
        "Cld2Filter" => bail!(
            "filter Cld2Filter (pycld2) is not supported by pairmetrics opusfilter: use \
             LangidFilter, FastTextFilter or LinguaFilter; nothing was written"
        ),
        other => bail!(
            "filter {other} is not supported by pairmetrics opusfilter (it runs {}); nothing was written",
            FILTERS.join(", ")
        ),
    };
    for key in a.keys().filter_map(Yaml::as_str) {
        if !known.contains(&key) && key != "name" {
            writeln!(
                log,
                "warning: {name}: ignoring extra keyword argument {key} (as OpusFilter does)"
            )?;
        }
    }
    let bad = |key: &str, what: &str| anyhow!("{name}: `{key}` {what}");
    let number = |v: &Yaml, key: &str| -> Result<f64> {
        v.as_f64()
            .ok_or_else(|| bad(key, &format!("must be a number, not {v:?}")))
    };
    let float = |key: &str, default: f64| -> Result<f64> {
        a.get(key).map_or(Ok(default), |v| number(v, key))
    };
    let flag = |key: &str, default: bool| -> Result<bool> {
        a.get(key).map_or(Ok(default), |v| {
            v.as_bool().ok_or_else(|| bad(key, "must be true or false"))
        })
    };
    // A value or a list of one per side (OpusFilter's check_args_compability).
    let per_side = |key: &str, default: f64| -> Result<Vec<f64>> {
        match a.get(key) {
            None => Ok(vec![default]),
            Some(Yaml::Sequence(values)) => {
                if values.len() != sides {
                    return Err(bad(
                        key,
                        &format!("has {} values for {sides} inputs", values.len()),
                    ));
                }
                values.iter().map(|v| number(v, key)).collect()
            }
            Some(v) => Ok(vec![number(v, key)?]),
        }
    };
    let units = |default: &str| -> Result<Vec<Unit>> {
        match a.get("unit") {
            None => Ok(vec![Unit::parse(default).expect("a unit")]),
            Some(Yaml::Sequence(values)) => {
                if values.len() != sides {
                    return Err(bad(
                        "unit",
                        &format!("has {} values for {sides} inputs", values.len()),
                    ));
                }
                values
                    .iter()
                    .map(|v| {
                        Unit::parse(v.as_str().unwrap_or_default()).map_err(|e| bad("unit", &e))
                    })
                    .collect()
            }
            Some(v) => Ok(vec![
                Unit::parse(v.as_str().unwrap_or_default()).map_err(|e| bad("unit", &e))?,
            ]),
        }
    };
    Ok(match name {
        "LanguageIDFilter" | "LangidFilter" | "FastTextFilter" | "LinguaFilter" => {
            language_id_filter(name, a, workdir)?
        }
        "HtmlTagFilter" => Filter::HtmlTag,
        "RegExpFilter" => {
            let compile = |v: &Yaml| -> Result<PyRegex> {
                let pattern = v.as_str().ok_or_else(|| {
                    bad(
                        "regexps",
                        &format!("Values of argument 'regexps' are not of the type str: {v:?}"),
                    )
                })?;
                PyRegex::new(pattern).map_err(|e| anyhow!("{name}: {e}"))
            };
            let regexps = match a.get("regexps") {
                None | Some(Yaml::Null) => {
                    bail!("{name}: `regexps` (a pattern, or one per input) is required")
                }
                Some(Yaml::Sequence(patterns)) => {
                    if patterns.len() < sides {
                        return Err(bad(
                            "regexps",
                            &format!("has {} patterns for {sides} inputs", patterns.len()),
                        ));
                    }
                    patterns.iter().map(compile).collect::<Result<_>>()?
                }
                Some(pattern) => vec![compile(pattern)?; sides],
            };
            Filter::RegExp {
                regexps,
                accept_match: flag("accept_match", false)?,
            }
        }
        "LengthFilter" => Filter::Length {
            min: per_side("min_length", 1.0)?,
            max: per_side("max_length", 100.0)?,
            units: units("word")?,
            pass_empty: flag("pass_empty", false)?,
        },
        "LengthRatioFilter" => Filter::LengthRatio {
            threshold: float("threshold", 3.0)?,
            units: units("word")?,
        },
        "LongWordFilter" => Filter::LongWord {
            thresholds: per_side("threshold", 40.0)?,
        },
        "AverageWordLengthFilter" => Filter::AverageWordLength {
            min: per_side("min_length", 2.0)?,
            max: per_side("max_length", 20.0)?,
            pass_empty: flag("pass_empty", false)?,
        },
        "AlphabetRatioFilter" => Filter::AlphabetRatio {
            thresholds: per_side("threshold", 0.75)?,
            exclude_whitespace: flag("exclude_whitespace", false)?,
        },
        "CharacterScoreFilter" => {
            let scripts = a
                .get("scripts")
                .and_then(Yaml::as_sequence)
                .ok_or_else(|| bad("scripts", "must be a list of scripts, one per input"))?;
            let scripts = scripts
                .iter()
                .map(|s| {
                    parse_script(s.as_str().unwrap_or_default()).map_err(|e| bad("scripts", &e))
                })
                .collect::<Result<Vec<_>>>()?;
            let thresholds = match a.get("thresholds") {
                None => vec![1.0; scripts.len()],
                Some(Yaml::Sequence(t)) => t
                    .iter()
                    .map(|v| number(v, "thresholds"))
                    .collect::<Result<_>>()?,
                Some(_) => return Err(bad("thresholds", "must be a list")),
            };
            if thresholds.len() != scripts.len() {
                return Err(anyhow!(
                    "{name}: Mismatch in number of scripts ({}) and thresholds ({})",
                    scripts.len(),
                    thresholds.len()
                ));
            }
            Filter::CharacterScore {
                scripts,
                thresholds,
            }
        }
        "TerminalPunctuationFilter" => Filter::TerminalPunctuation {
            threshold: float("threshold", -2.0)?,
        },
        "NonZeroNumeralsFilter" => Filter::NonZeroNumerals {
            threshold: float("threshold", 0.5)?,
            require_all: flag("require_all", true)?,
        },
        "LongestCommonSubstringFilter" => Filter::LongestCommonSubstring {
            threshold: float("threshold", 0.9)?,
            require_all: flag("require_all", true)?,
        },
        "SimilarityFilter" => {
            let weights = match a.get("weights") {
                None => (1, 1, 1),
                Some(Yaml::Sequence(w)) if w.len() == 3 => {
                    let w: Vec<u64> = w
                        .iter()
                        .map(|v| {
                            v.as_u64().ok_or_else(|| {
                                bad("weights", "must be three non-negative integers")
                            })
                        })
                        .collect::<Result<_>>()?;
                    (w[0], w[1], w[2])
                }
                Some(_) => return Err(bad("weights", "must be three non-negative integers")),
            };
            let unit = match a.get("unit").map(|u| u.as_str().unwrap_or_default()) {
                None => Unit::Char,
                Some(u) => Unit::parse(u).map_err(|e| bad("unit", &e))?,
            };
            Filter::Similarity {
                threshold: float("threshold", 0.9)?,
                weights,
                unit,
                lowercase: flag("lowercase", false)?,
                require_all: flag("require_all", true)?,
            }
        }
        "RepetitionFilter" => {
            let count = |key: &str, default: usize| -> Result<usize> {
                a.get(key).map_or(Ok(default), |v| {
                    v.as_u64()
                        .map(|n| n as usize)
                        .ok_or_else(|| bad(key, "must be a non-negative integer"))
                })
            };
            let defaults = Repetition::default();
            let min_length = count("min_length", defaults.min_length)?;
            if min_length < 1 {
                return Err(anyhow!(
                    "{name}: min_length for RepetitionFilter has to be at least one, got {min_length}"
                ));
            }
            // threshold .inf disables the filter, as in OpusFilter.
            let threshold = match a.get("threshold") {
                Some(v) if v.as_f64() == Some(f64::INFINITY) => None,
                _ => Some(count("threshold", defaults.threshold)?),
            };
            if threshold == Some(0) {
                return Err(anyhow!(
                    "{name}: threshold for RepetitionFilter has to be at least one, got 0"
                ));
            }
            Filter::Repetition {
                repetition: threshold.map(|threshold| Repetition {
                    threshold,
                    min_length,
                    max_length: count("max_length", defaults.max_length)
                        .unwrap_or(defaults.max_length),
                }),
            }
        }
        _ => unreachable!("checked above"),
    })
}
