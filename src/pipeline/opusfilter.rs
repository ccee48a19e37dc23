//! `pairmetrics opusfilter CONFIG.yaml`: a drop-in for OpusFilter 3.3.1's `opusfilter`, running
//! the steps of its YAML configuration with the filters of `clean::opusfilter` and writing the
//! files it writes.
//!
//! Supported: the steps `filter` (with `filterfalse` and `limit`), `score`, `remove_duplicates`,
//! `concatenate`,
//! `head`, `tail` and `slice`; the filters of [`FILTERS`]; `common` (`output_directory`,
//! `chunksize`, `constants`), step `variables` and `constants` with `!var` and `!varstr`. Every
//! step is checked before the first runs: an unsupported step or filter is an error naming it,
//! and nothing is written.
//!
//! Files are read as Python reads text files (UTF-8; universal newlines: `\r\n` and `\r` end a
//! line as `\n` does) and `.gz`, `.bz2` and `.xz` by their extension; every output appears
//! whole when its step ends, or not at all.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use serde_yaml::Value as Yaml;

use crate::clean::json::Value;
use crate::clean::opusfilter::{Filter, Repetition, Unit, parse_script};
use crate::clean::regexp::PyRegex;
use crate::clean::segment_hash::{Key, Method, SegmentHasher};
use crate::lid::{self, filter::Identify, lingua::Lingua};
use crate::resources::load_fasttext;
use crate::storage::Output;
use crate::text::whitespace;

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

/// The steps it runs.
pub const STEPS: &[&str] = &[
    "filter",
    "score",
    "remove_duplicates",
    "concatenate",
    "head",
    "tail",
    "slice",
];

#[derive(Debug, Clone)]
pub struct Options {
    pub config: PathBuf,
    pub overwrite: bool,
    /// Run steps 1..=last only.
    pub last: Option<usize>,
    /// Run only this step (1-based; negative from the end).
    pub single: Option<i64>,
}

/// One step with its parameters expanded (one per substep when it has variables).
struct Step {
    number: usize,
    kind: String,
    parameters: serde_yaml::Mapping,
    /// A `filter` or `score` step's filters, parsed (and their models loaded) once, by the
    /// check before any step runs.
    filters: Vec<(Vec<String>, Filter)>,
}

/// Run the configuration's steps, as `opusfilter CONFIG` does; warnings go to `log`.
pub fn run(options: &Options, log: &mut dyn Write) -> Result<()> {
    let text = std::fs::read_to_string(&options.config)
        .with_context(|| format!("reading {}", options.config.display()))?;
    let config: Yaml = serde_yaml::from_str(&text)
        .with_context(|| format!("{}: not a YAML configuration", options.config.display()))?;
    let where_ = |what: &str| format!("{}: {what}", options.config.display());
    let common = config.get("common").cloned().unwrap_or(Yaml::Null);
    let output_dir = match common.get("output_directory") {
        Some(Yaml::String(dir)) => PathBuf::from(dir),
        Some(Yaml::Null) | None => {
            writeln!(
                log,
                "warning: output directory not specified; writing files to the current directory"
            )?;
            PathBuf::from(".")
        }
        Some(other) => bail!(where_(&format!(
            "common.output_directory must be a path, not {other:?}"
        ))),
    };
    let chunksize = match common.get("chunksize") {
        None => 100_000,
        Some(v) => v
            .as_u64()
            .filter(|&n| n > 0)
            .ok_or_else(|| anyhow!(where_("common.chunksize must be a positive integer")))?
            as usize,
    };
    let constants = match common.get("constants") {
        Some(Yaml::Mapping(m)) => m.clone(),
        None | Some(Yaml::Null) => serde_yaml::Mapping::new(),
        Some(_) => bail!(where_("common.constants must be a mapping")),
    };
    let steps = config
        .get("steps")
        .and_then(Yaml::as_sequence)
        .ok_or_else(|| anyhow!(where_("no `steps` list")))?;
    let chosen: Vec<usize> = match (options.single, options.last) {
        (Some(n), _) => {
            let count = steps.len() as i64;
            let index = if n < 0 { count + n } else { n - 1 };
            if !(0..count).contains(&index) {
                bail!("--single {n}: the configuration has {count} steps");
            }
            vec![index as usize]
        }
        (None, Some(last)) => (0..steps.len().min(last)).collect(),
        (None, None) => (0..steps.len()).collect(),
    };
    // Expand and check every step before running any.
    let mut planned = Vec::new();
    for &index in &chosen {
        let step = &steps[index];
        let number = index + 1;
        let at = |what: &str| where_(&format!("step {number}: {what}"));
        let kind = step
            .get("type")
            .and_then(Yaml::as_str)
            .ok_or_else(|| anyhow!(at("no `type`")))?
            .to_string();
        if !STEPS.contains(&kind.as_str()) {
            bail!(at(&format!(
                "step type `{kind}` is not supported by pairmetrics opusfilter (it runs {}); \
                 nothing was written",
                STEPS.join(", ")
            )));
        }
        let parameters = step
            .get("parameters")
            .cloned()
            .ok_or_else(|| anyhow!(at("no `parameters`")))?;
        let mut namespace = constants.clone();
        if let Some(Yaml::Mapping(m)) = step.get("constants") {
            namespace.extend(m.clone());
        }
        for namespace in substeps(step, namespace).map_err(|e| anyhow!(at(&e)))? {
            let parameters = expand(&parameters, &namespace).map_err(|e| anyhow!(at(&e)))?;
            let Yaml::Mapping(parameters) = parameters else {
                bail!(at("`parameters` must be a mapping"));
            };
            let mut step = Step {
                number,
                kind: kind.clone(),
                parameters,
                filters: Vec::new(),
            };
            step.filters =
                check(&step, &output_dir, log).map_err(|e| anyhow!(at(&format!("{e:#}"))))?;
            planned.push(step);
        }
    }
    if !output_dir.is_dir() {
        writeln!(
            log,
            "warning: directory {} does not exist; it will be created",
            output_dir.display()
        )?;
        std::fs::create_dir(&output_dir)
            .with_context(|| format!("creating {}", output_dir.display()))?;
    }
    let context = StepContext {
        dir: output_dir,
        chunksize,
        overwrite: options.overwrite,
    };
    for step in &planned {
        writeln!(log, "running step {}: {}", step.number, step.kind)?;
        run_step(step, &context, log)
            .with_context(|| format!("step {} ({})", step.number, step.kind))?;
    }
    Ok(())
}

struct StepContext {
    dir: PathBuf,
    chunksize: usize,
    overwrite: bool,
}

/// The namespaces of a step's substeps: one per index of its `variables`' lists, or just one.
fn substeps(
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
fn expand(value: &Yaml, namespace: &serde_yaml::Mapping) -> Result<Yaml, String> {
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
fn scalar_text(value: &Yaml) -> String {
    match value {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(true) => "True".into(),
        Yaml::Bool(false) => "False".into(),
        Yaml::Null => "None".into(),
        Yaml::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::clean::json::repr(f),
            _ => n.to_string(),
        },
        other => format!("{other:?}"),
    }
}

/// Which parameters each step takes (others are an error, as OpusFilter's are).
fn known_parameters(kind: &str) -> &'static [&'static str] {
    match kind {
        "filter" => &[
            "inputs",
            "outputs",
            "filters",
            "filterfalse",
            "limit",
            "n_jobs",
        ],
        "score" => &["inputs", "output", "filters", "n_jobs"],
        "concatenate" => &["inputs", "output"],
        "head" | "tail" => &["inputs", "outputs", "n"],
        "slice" => &["inputs", "outputs", "start", "stop", "step"],
        "remove_duplicates" => &[
            "inputs",
            "outputs",
            "compare",
            "hash",
            "letters_only",
            "letter_words_only",
            "lowercase",
            "tokenizers",
            "overlap",
        ],
        _ => &[],
    }
}

/// Check a step's parameters before anything runs; a `filter` or `score` step's filters.
fn check(step: &Step, workdir: &Path, log: &mut dyn Write) -> Result<Vec<(Vec<String>, Filter)>> {
    let known = known_parameters(&step.kind);
    let unknown: Vec<String> = step
        .parameters
        .keys()
        .filter_map(|k| k.as_str())
        .filter(|k| !known.contains(k))
        .map(str::to_string)
        .collect();
    if !unknown.is_empty() {
        bail!("unknown parameter keys: {}", unknown.join(", "));
    }
    let inputs = files(&step.parameters, "inputs")?;
    if step.parameters.contains_key("outputs")
        && files(&step.parameters, "outputs")?.len() != inputs.len()
    {
        bail!("the numbers of input and output files differ");
    }
    match step.kind.as_str() {
        "score" | "concatenate" => {
            if !step.parameters.get("output").is_some_and(Yaml::is_string) {
                bail!("`output` (a file name) is required");
            }
        }
        _ => {
            files(&step.parameters, "outputs")?;
        }
    }
    let filters = match step.kind.as_str() {
        "filter" | "score" => filters(&step.parameters, inputs.len(), workdir, log)?,
        _ => Vec::new(),
    };
    match step.kind.as_str() {
        "head" | "tail" => {
            integer(&step.parameters, "n")?.ok_or_else(|| anyhow!("`n` is required"))?;
        }
        "slice" => {
            for key in ["start", "stop", "step"] {
                integer(&step.parameters, key)?;
            }
        }
        "filter" => {
            integer(&step.parameters, "limit")?;
        }
        "remove_duplicates" => {
            hasher(&step.parameters)?;
            if step.parameters.contains_key("overlap") {
                files(&step.parameters, "overlap")?;
            }
        }
        _ => {}
    }
    Ok(filters)
}

/// remove_duplicates' `SegmentHasher`.
fn hasher(p: &serde_yaml::Mapping) -> Result<SegmentHasher> {
    if p.get("tokenizers").is_some_and(|t| !t.is_null()) {
        bail!(
            "remove_duplicates: `tokenizers` (Moses, jieba, MeCab) are not supported by pairmetrics opusfilter"
        );
    }
    let compare = match p.get("compare") {
        None => None,
        Some(Yaml::String(all)) if all == "all" => None,
        Some(Yaml::Sequence(indices)) => {
            let mut indices = indices
                .iter()
                .map(|i| i.as_u64().map(|i| i as usize))
                .collect::<Option<Vec<usize>>>()
                .ok_or_else(|| anyhow!("The compare parameter for hashing has to be 'all' or a list of input file indices"))?;
            indices.sort_unstable();
            Some(indices)
        }
        Some(_) => bail!(
            "The compare parameter for hashing has to be 'all' or a list of input file indices"
        ),
    };
    let method = match p.get("hash") {
        None => Method::Xxh64,
        Some(Yaml::Null) => Method::None,
        Some(Yaml::String(name)) if name.is_empty() => Method::None,
        Some(Yaml::String(name)) => Method::parse(Some(name)).map_err(|e| anyhow!(e))?,
        Some(other) => bail!("`hash` must be the name of an xxhash function, not {other:?}"),
    };
    let flag = |key: &str| -> Result<bool> {
        p.get(key).map_or(Ok(false), |v| {
            v.as_bool()
                .ok_or_else(|| anyhow!("`{key}` must be true or false"))
        })
    };
    Ok(SegmentHasher {
        compare,
        method,
        lowercase: flag("lowercase")?,
        letters_only: flag("letters_only")?,
        letter_words_only: flag("letter_words_only")?,
    })
}

/// The lines of parallel files, a line of each at a time (with their ends), until the first
/// file ends (`zip(*files)`).
fn parallel_lines(files: &[PathBuf]) -> Result<impl FnMut() -> Result<Option<Vec<String>>>> {
    let mut readers = files
        .iter()
        .map(|f| Lines::open(f))
        .collect::<Result<Vec<_>>>()?;
    Ok(move || {
        let mut lines = Vec::with_capacity(readers.len());
        for reader in &mut readers {
            match reader.next_line()? {
                Some(line) => lines.push(line),
                None => return Ok(None),
            }
        }
        Ok(Some(lines))
    })
}

fn files(parameters: &serde_yaml::Mapping, key: &str) -> Result<Vec<String>> {
    let value = parameters
        .get(key)
        .ok_or_else(|| anyhow!("`{key}` is required"))?;
    let list = value
        .as_sequence()
        .ok_or_else(|| anyhow!("`{key}` must be a list of file names"))?;
    list.iter()
        .map(|f| {
            f.as_str()
                .map(str::to_string)
                .ok_or_else(|| anyhow!("`{key}`: {f:?} is not a file name"))
        })
        .collect()
}

fn integer(parameters: &serde_yaml::Mapping, key: &str) -> Result<Option<i64>> {
    match parameters.get(key) {
        None | Some(Yaml::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| anyhow!("`{key}` must be an integer, not {v:?}")),
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
                load_fasttext(&path).with_context(|| format!("{name}: `{model_key}`"))?,
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
fn filters(
    parameters: &serde_yaml::Mapping,
    sides: usize,
    workdir: &Path,
    log: &mut dyn Write,
) -> Result<Vec<(Vec<String>, Filter)>> {
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
    let named: Vec<(Vec<String>, Filter)> = parsed
        .into_iter()
        .map(|((class, label), filter)| {
            let mut names = vec![class.clone()];
            names.extend(label.clone());
            if counts[&(class.clone(), label.clone())] > 1 {
                let n = instances.entry((class, label)).or_default();
                *n += 1;
                names.push(n.to_string());
            }
            (names, filter)
        })
        .collect();
    // A score name that is a prefix of another (`RepetitionFilter` and `RepetitionFilter`
    // named `short`) would put a score where a nested object goes: OpusFilter stops there with
    // a TypeError.
    for (a, _) in &named {
        for (b, _) in &named {
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

fn run_step(step: &Step, context: &StepContext, log: &mut dyn Write) -> Result<()> {
    let p = &step.parameters;
    let path = |name: &String| context.dir.join(name);
    let inputs: Vec<PathBuf> = files(p, "inputs")?.iter().map(path).collect();
    let outputs: Vec<PathBuf> = match step.kind.as_str() {
        "score" | "concatenate" => vec![path(
            &p.get("output")
                .and_then(Yaml::as_str)
                .ok_or_else(|| anyhow!("`output` is required"))?
                .to_string(),
        )],
        _ => files(p, "outputs")?.iter().map(path).collect(),
    };
    if !context.overwrite && outputs.iter().all(|o| o.is_file()) {
        writeln!(log, "output files exist, skipping step {}", step.number)?;
        return Ok(());
    }
    let mut writers = outputs
        .iter()
        .map(|o| Writer::create(o))
        .collect::<Result<Vec<_>>>()?;
    match step.kind.as_str() {
        "filter" | "score" => {
            let filters = &step.filters;
            let mut readers = inputs
                .iter()
                .map(|i| Lines::open(i))
                .collect::<Result<Vec<_>>>()?;
            let limit = integer(p, "limit")?.filter(|&l| l > 0).map(|l| l as usize);
            let filterfalse = p
                .get("filterfalse")
                .and_then(Yaml::as_bool)
                .unwrap_or(false);
            let mut written = 0usize;
            let mut chunk: Vec<Vec<String>> = Vec::new();
            loop {
                // pair_generator: a line of every file, each rstripped; the shortest file ends it.
                let mut pair = Vec::with_capacity(readers.len());
                for reader in &mut readers {
                    match reader.next_line()? {
                        Some(line) => pair.push(rstrip(&line).to_string()),
                        None => break,
                    }
                }
                let done = pair.len() < readers.len();
                if done {
                    let longer: Vec<String> = readers
                        .iter_mut()
                        .filter_map(|r| match r.next_line() {
                            Ok(Some(_)) => Some(r.file.display().to_string()),
                            _ => None,
                        })
                        .collect();
                    if !longer.is_empty() {
                        writeln!(
                            log,
                            "warning: the inputs have different numbers of lines; stopped at the \
                             shortest, as OpusFilter does (longer: {})",
                            longer.join(", ")
                        )?;
                    }
                }
                if !done {
                    chunk.push(pair);
                }
                if chunk.len() == context.chunksize || (done && !chunk.is_empty()) {
                    let batch = std::mem::take(&mut chunk);
                    if step.kind == "score" {
                        let lines = on_cores(&batch, |pair| {
                            let mut object = BTreeMap::new();
                            for (names, filter) in filters {
                                let score =
                                    filter.score(&segments(pair)).map_err(|e| anyhow!(e))?;
                                insert(&mut object, names, score);
                            }
                            Ok(Value::Object(object).dumps())
                        })?;
                        for line in lines {
                            writers[0].write_line(&line)?;
                        }
                    } else {
                        // Each pair's first rejecting filter (None: every filter accepts it).
                        let rejected_by = on_cores(&batch, |pair| {
                            for (k, (_, filter)) in filters.iter().enumerate() {
                                let score =
                                    filter.score(&segments(pair)).map_err(|e| anyhow!(e))?;
                                if !filter.accept(&score) {
                                    return Ok(Some(k));
                                }
                            }
                            Ok(None)
                        })?;
                        // filter: the accepted pairs in order; filterfalse: each filter's
                        // rejects in turn, over what the filters before it kept (OpusFilter's
                        // order within a chunk).
                        let order: Vec<usize> = match filterfalse {
                            false => (0..batch.len())
                                .filter(|&i| rejected_by[i].is_none())
                                .collect(),
                            true => {
                                let rejected_by = &rejected_by;
                                (0..filters.len())
                                    .flat_map(|k| {
                                        (0..batch.len()).filter(move |&i| rejected_by[i] == Some(k))
                                    })
                                    .collect()
                            }
                        };
                        for i in order {
                            if limit.is_some_and(|l| written >= l) {
                                break;
                            }
                            for (w, item) in writers.iter_mut().zip(&batch[i]) {
                                w.write_line(item)?;
                            }
                            written += 1;
                        }
                    }
                    if limit.is_some_and(|l| written >= l) {
                        break;
                    }
                }
                if done {
                    break;
                }
            }
        }
        "remove_duplicates" => {
            let hasher = hasher(p)?;
            let key = |lines: &[String]| -> Result<Key> {
                let segments: Vec<&str> = lines.iter().map(String::as_str).collect();
                hasher.key(&segments).map_err(|e| anyhow!(e))
            };
            let overlap: Option<std::collections::HashSet<Key>> = match p.get("overlap") {
                None | Some(Yaml::Null) => None,
                Some(_) => {
                    // As OpusFilter reads them: relative to the working directory, not to
                    // output_directory.
                    let others: Vec<PathBuf> =
                        files(p, "overlap")?.iter().map(PathBuf::from).collect();
                    let mut next = parallel_lines(&others)?;
                    let mut keys = std::collections::HashSet::new();
                    while let Some(lines) = next()? {
                        keys.insert(key(&lines)?);
                    }
                    Some(keys)
                }
            };
            let mut seen = std::collections::HashSet::new();
            let (mut total, mut removed) = (0u64, 0u64);
            let mut next = parallel_lines(&inputs)?;
            while let Some(lines) = next()? {
                total += 1;
                let k = key(&lines)?;
                let duplicate = match &overlap {
                    Some(keys) => keys.contains(&k),
                    None => !seen.insert(k),
                };
                if duplicate {
                    removed += 1;
                    continue;
                }
                for (writer, line) in writers.iter_mut().zip(&lines) {
                    writer.write_raw(line)?;
                }
            }
            writeln!(
                log,
                "removed {removed} / {total} = {:.2}% duplicate lines",
                if total > 0 {
                    100.0 * removed as f64 / total as f64
                } else {
                    0.0
                }
            )?;
        }
        "concatenate" => {
            for input in &inputs {
                let mut lines = Lines::open(input)?;
                while let Some(line) = lines.next_line()? {
                    writers[0].write_line(rstrip(&line))?;
                }
            }
        }
        kind => {
            let n = integer(p, "n")?.unwrap_or(0);
            for (input, writer) in inputs.iter().zip(&mut writers) {
                let mut lines = Lines::open(input)?;
                match kind {
                    "head" => {
                        for _ in 0..n.max(0) {
                            let Some(line) = lines.next_line()? else {
                                break;
                            };
                            writer.write_raw(&line)?;
                        }
                    }
                    "tail" => {
                        let mut last = std::collections::VecDeque::new();
                        while let Some(line) = lines.next_line()? {
                            last.push_back(line);
                            if last.len() as i64 > n {
                                last.pop_front();
                            }
                        }
                        for line in last {
                            writer.write_raw(&line)?;
                        }
                    }
                    _ => {
                        // itertools.islice(inf, start, stop, step)
                        let start = integer(p, "start")?.unwrap_or(0);
                        let stop = integer(p, "stop")?;
                        let every = integer(p, "step")?.unwrap_or(1);
                        if start < 0 || stop.is_some_and(|s| s < 0) || every < 1 {
                            bail!(
                                "slice: start and stop must be non-negative and step positive (itertools.islice)"
                            );
                        }
                        let mut index = 0i64;
                        while let Some(line) = lines.next_line()? {
                            if stop.is_some_and(|s| index >= s) {
                                break;
                            }
                            if index >= start && (index - start) % every == 0 {
                                writer.write_raw(&line)?;
                            }
                            index += 1;
                        }
                    }
                }
            }
        }
    }
    for writer in writers {
        writer.commit()?;
    }
    Ok(())
}

/// `f` of every pair, in order, computed on every core.
fn on_cores<R: Send>(
    batch: &[Vec<String>],
    f: impl Fn(&[String]) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = batch.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(per_thread)
            .map(|part| scope.spawn(|| part.iter().map(|pair| f(pair)).collect::<Result<Vec<R>>>()))
            .collect();
        let mut all = Vec::with_capacity(batch.len());
        for handle in handles {
            all.extend(handle.join().expect("a filter thread panicked")?);
        }
        Ok(all)
    })
}

fn segments(pair: &[String]) -> Vec<&str> {
    pair.iter().map(String::as_str).collect()
}

/// `_update_score_dict`: a score under its names, nested.
fn insert(object: &mut BTreeMap<String, Value>, names: &[String], score: Value) {
    match names {
        [last] => {
            object.insert(last.clone(), score);
        }
        [first, rest @ ..] => {
            let entry = object
                .entry(first.clone())
                .or_insert_with(|| Value::Object(BTreeMap::new()));
            if let Value::Object(inner) = entry {
                insert(inner, rest, score);
            }
        }
        [] => {}
    }
}

/// Python's `str.rstrip()`.
fn rstrip(line: &str) -> &str {
    line.trim_end_matches(whitespace::is_space)
}

/// A text file read as Python reads it in text mode: UTF-8, universal newlines; compressed by
/// its extension.
struct Lines {
    reader: Box<dyn BufRead>,
    file: PathBuf,
    line: u64,
    /// A `\r` ended the last line: a `\n` right after it belongs to it.
    after_cr: bool,
}

impl Lines {
    fn open(file: &Path) -> Result<Lines> {
        let raw =
            std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?;
        crate::storage::note_input(file);
        let name = file.to_string_lossy();
        let reader: Box<dyn Read> = if name.ends_with(".gz") {
            Box::new(flate2::read::MultiGzDecoder::new(raw))
        } else if name.ends_with(".bz2") {
            Box::new(bzip2::read::MultiBzDecoder::new(raw))
        } else if name.ends_with(".xz") {
            Box::new(liblzma::read::XzDecoder::new_multi_decoder(raw))
        } else {
            Box::new(raw)
        };
        Ok(Lines {
            reader: Box::new(BufReader::with_capacity(1 << 16, reader)),
            file: file.to_path_buf(),
            line: 0,
            after_cr: false,
        })
    }

    /// The next line with its end as `\n` (none on a last line without one).
    fn next_line(&mut self) -> Result<Option<String>> {
        let mut bytes = Vec::new();
        loop {
            let buffer = self
                .reader
                .fill_buf()
                .with_context(|| format!("reading {}", self.file.display()))?;
            if buffer.is_empty() {
                break;
            }
            if self.after_cr {
                self.after_cr = false;
                if buffer[0] == b'\n' {
                    self.reader.consume(1);
                    continue;
                }
            }
            match buffer.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    let cr = buffer[end] == b'\r';
                    bytes.extend_from_slice(&buffer[..end]);
                    bytes.push(b'\n');
                    self.reader.consume(end + 1);
                    self.after_cr = cr;
                    break;
                }
                None => {
                    let n = buffer.len();
                    bytes.extend_from_slice(buffer);
                    self.reader.consume(n);
                }
            }
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        String::from_utf8(bytes).map(Some).map_err(|e| {
            anyhow!(
                "{}:{}: not UTF-8 (byte {} of the line); OpusFilter reads its files as UTF-8",
                self.file.display(),
                self.line,
                e.utf8_error().valid_up_to() + 1
            )
        })
    }
}

/// An output file, compressed by its extension, appearing whole on commit.
struct Writer {
    sink: Box<dyn Finish>,
}

trait Finish: Write {
    fn finish(self: Box<Self>) -> Result<()>;
}

impl Finish for Output {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).commit()
    }
}

impl Finish for flate2::write::GzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Finish for bzip2::write::BzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Finish for liblzma::write::XzEncoder<Output> {
    fn finish(self: Box<Self>) -> Result<()> {
        (*self).finish()?.commit()
    }
}

impl Writer {
    fn create(file: &Path) -> Result<Writer> {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let output = Output::create(file)?;
        let name = file.to_string_lossy();
        let sink: Box<dyn Finish> = if name.ends_with(".gz") {
            Box::new(flate2::write::GzEncoder::new(
                output,
                flate2::Compression::new(9),
            ))
        } else if name.ends_with(".bz2") {
            Box::new(bzip2::write::BzEncoder::new(
                output,
                bzip2::Compression::new(9),
            ))
        } else if name.ends_with(".xz") {
            Box::new(liblzma::write::XzEncoder::new(output, 6))
        } else {
            Box::new(output)
        };
        Ok(Writer { sink })
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        self.sink.write_all(line.as_bytes())?;
        self.sink.write_all(b"\n")?;
        Ok(())
    }

    fn write_raw(&mut self, line: &str) -> Result<()> {
        self.sink.write_all(line.as_bytes())?;
        Ok(())
    }

    fn commit(self) -> Result<()> {
        self.sink.finish()
    }
}
