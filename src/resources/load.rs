//! Loading resources: phrase tables and triple counts from our Parquet tables, language
//! models from ARPA files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type, Schema};
use datafusion::execution::SendableRecordBatchStream;
use futures::TryStreamExt;

use super::options::{self, BadValue, ResourceOption};
use crate::Resources;
use crate::align::{AlignerOptions, Module, Objective};
use crate::arrow::read::{Strings, TokenLists};
use crate::formats::arpa;
use crate::formats::opusfilter_config::read_fasttext;
use crate::lm::ngram::NgramModel;
use crate::pair::dep_fit::TripleIndex;
use crate::pair::true_score::{Directions, Identity, PhraseIndex, PhraseIndexBuilder};
use crate::parquet::ParquetInput;
use crate::schema::Table;

/// What a session loads before it runs: each is optional.
#[derive(Debug, Clone, Default)]
pub struct ResourceOptions {
    pub phrase_table: Option<PhraseTableOptions>,
    /// A triples table (`pairmetrics triples`, `import syntactic-ngrams`) for dep_fit.
    pub triples: Option<PathBuf>,
    /// An ARPA language model for the lm_* functions.
    pub lm: Option<PathBuf>,
    /// A supervised fastText model (.bin, .ftz) for fasttext_lid and fasttext_predict.
    pub fasttext_model: Option<PathBuf>,
    /// How meteor_align aligns by default (its resource files are read on first use).
    pub aligner: AlignerOptions,
}

/// An option's value as a front end was given it.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// A file or directory.
    Location(PathBuf),
    Text(String),
    Count(usize),
    Flag(bool),
}

impl std::fmt::Display for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Given::Location(path) => path.display().fmt(f),
            Given::Text(text) => f.write_str(text),
            Given::Count(n) => n.fmt(f),
            Given::Flag(on) => on.fmt(f),
        }
    }
}

impl ResourceOptions {
    /// What a decoder loads (`decode`, `paraphrase`): a phrase table, and a language model
    /// when one is given.
    pub fn decoder(phrase_table: &PhraseTableOptions, lm: &Option<PathBuf>) -> ResourceOptions {
        ResourceOptions {
            phrase_table: Some(phrase_table.clone()),
            lm: lm.clone(),
            ..Default::default()
        }
    }

    /// The options from the values given, by option; defaults for the rest. Both front ends
    /// come here, so each option is read, checked and combined in one place: the command line
    /// with its flags' values, Python with its keywords'.
    pub fn from_given(
        values: impl IntoIterator<Item = (ResourceOption, Given)>,
    ) -> Result<ResourceOptions, BadValue> {
        let mut options = ResourceOptions::default();
        let aligner = &mut options.aligner;
        let (mut phrase_table, mut prob_column, mut free_identity) = (None, None, false);
        for (option, value) in values {
            let wrong = |expected: &str| BadValue {
                option,
                value: value.to_string(),
                expected: expected.to_string(),
            };
            let location = || match &value {
                Given::Location(path) => Ok(path.clone()),
                _ => Err(wrong("expected a path")),
            };
            let text = || match &value {
                Given::Text(text) => Ok(text.as_str()),
                _ => Err(wrong("expected text")),
            };
            match option {
                options::PHRASE_TABLE => phrase_table = Some(location()?),
                options::PROB_COLUMN => prob_column = Some(text()?.to_string()),
                options::FREE_IDENTITY => match value {
                    Given::Flag(on) => free_identity = on,
                    _ => return Err(wrong("expected true or false")),
                },
                options::TRIPLES => options.triples = Some(location()?),
                options::LM => options.lm = Some(location()?),
                options::FASTTEXT_MODEL => options.fasttext_model = Some(location()?),
                options::LANG => aligner.language = text()?.to_string(),
                options::MODULES => {
                    let modules = BadValue::parse(option, text()?, Module::parse_list)?;
                    aligner.modules = Some(modules);
                }
                options::BEAM => match value {
                    Given::Count(beam) => aligner.beam = beam,
                    _ => return Err(wrong("expected a count")),
                },
                options::ALIGNMENT_TYPE => {
                    aligner.objective = BadValue::parse(option, text()?, Objective::parse)?
                }
                options::STEM_TABLE => aligner.stem_file = Some(location()?),
                options::SYN_DIR => aligner.synonym_dir = Some(location()?),
                options::PARA => aligner.paraphrase_file = Some(location()?),
                _ => return Err(wrong("not a resource option")),
            }
        }
        options.phrase_table = phrase_table.map(|path| {
            let prob_column = prob_column.unwrap_or_else(|| DEFAULT_PROB_COLUMN.to_string());
            PhraseTableOptions::new(path, prob_column, free_identity)
        });
        Ok(options)
    }

    /// Whether these options give `resource`.
    pub fn gives(&self, resource: super::Resource) -> bool {
        match resource {
            super::Resource::PhraseTable => self.phrase_table.is_some(),
            super::Resource::Triples => self.triples.is_some(),
            super::Resource::Lm => self.lm.is_some(),
            super::Resource::FastText => self.fasttext_model.is_some(),
        }
    }
}

/// Which phrase table the true score uses, and how.
#[derive(Debug, Clone)]
pub struct PhraseTableOptions {
    pub path: PathBuf,
    /// The probability column: p_f_e (P(src|tgt), the default), p_e_f, lex_f_e or lex_e_f.
    pub prob_column: String,
    pub identity: Identity,
}

impl PhraseTableOptions {
    /// `free_identity`: keep unchanged words for free even when the table has a `w -> w` rule.
    pub fn new(path: PathBuf, prob_column: String, free_identity: bool) -> PhraseTableOptions {
        let identity = match free_identity {
            true => Identity::Always,
            false => Identity::UnlessInTable,
        };
        PhraseTableOptions {
            path,
            prob_column,
            identity,
        }
    }

    /// The part of an output's signature that says how true_score was computed.
    pub fn signature(&self) -> String {
        let identity = match self.identity {
            Identity::UnlessInTable => "unless-in-table",
            Identity::Always => "always",
        };
        format!("true_score:p={}|identity:{identity}", self.prob_column)
    }
}

/// Load what `options` asks for; the second value describes what was loaded, a line each, for
/// the user.
pub async fn load(options: &ResourceOptions) -> Result<(Resources, Vec<String>)> {
    let (mut resources, mut loaded) = (
        Resources::default().with_aligner(options.aligner.clone()),
        Vec::new(),
    );
    if let Some(table) = &options.phrase_table {
        let (index, seconds, left_out) = load_phrase_index(table).await?;
        loaded.push(describe(&table.path, &index, seconds));
        loaded.extend(left_out.describe(&table.path, &table.prob_column));
        resources = resources.with_phrase_table(index);
    }
    if let Some(path) = &options.triples {
        let started = Instant::now();
        let triples = load_triples(path).await?;
        loaded.push(format!(
            "triples {}: {} form and {} upos triples indexed in {:.2} s (~{} MiB)",
            path.display(),
            triples.form.len(),
            triples.upos.len(),
            started.elapsed().as_secs_f64(),
            triples.memory() >> 20
        ));
        resources = resources.with_triples(triples);
    }
    if let Some(path) = &options.lm {
        let started = Instant::now();
        let model = load_lm(path)?;
        let counts: Vec<String> = model.counts().iter().map(u64::to_string).collect();
        loaded.push(format!(
            "language model {}: order {}, n-grams {} loaded in {:.2} s (~{} MiB)",
            path.display(),
            model.order(),
            counts.join("/"),
            started.elapsed().as_secs_f64(),
            model.memory() >> 20
        ));
        resources = resources.with_lm(model);
    }
    if let Some(path) = &options.fasttext_model {
        let started = Instant::now();
        let model = read_fasttext(path)?;
        loaded.push(format!(
            "fastText model {}: {} labels, loaded in {:.2} s",
            path.display(),
            model.labels(),
            started.elapsed().as_secs_f64()
        ));
        resources = resources.with_fasttext(model);
    }
    Ok((resources, loaded))
}

/// Read an ARPA file (plain, gzip or zstd) into an [`NgramModel`].
pub fn load_lm(path: &Path) -> Result<NgramModel> {
    Ok(arpa::read(path)?)
}

/// Read a triples table (Parquet file or directory, `schemas/triples.md`) into a
/// [`TripleIndex`], streaming its rows; repeated keys add up.
pub async fn load_triples(path: &Path) -> Result<TripleIndex> {
    let columns = ["level", "head", "dep", "deprel", "count"];
    let mut stream = scan_checked(
        Table::Triples,
        path,
        &columns,
        &[("count", DataType::Int64)],
    )?;
    let mut index = TripleIndex::default();
    while let Some(batch) = stream.try_next().await? {
        let [level, head, dep, deprel] =
            [0, 1, 2, 3].map(|i| Strings::new(batch.column(i).as_ref()));
        let (level, head, dep, deprel) = (level?, head?, dep?, deprel?);
        let counts = batch.column(4).as_primitive::<Int64Type>();
        for row in 0..batch.num_rows() {
            // A triple with a NULL part, or no positive count, counts nothing: leave it out.
            let (Some(l), Some(h), Some(d), Some(r)) =
                (level.get(row), head.get(row), dep.get(row), deprel.get(row))
            else {
                continue;
            };
            let counts_of = match l {
                "form" => &mut index.form,
                "upos" => &mut index.upos,
                _ => continue,
            };
            if counts.is_valid(row) && counts.value(row) > 0 {
                counts_of.add(h, d, r, counts.value(row) as u64);
            }
        }
    }
    Ok(index)
}

/// `columns` of our table `table` at `path`, checked and then streamed in file order from the
/// Parquet layer: a resource needs no session, and loads the same way in every process. The
/// columns in `read_as` are read as that type (the scan casts them), whatever type stores them.
fn scan_checked(
    table: Table,
    path: &Path,
    columns: &[&str],
    read_as: &[(&str, DataType)],
) -> Result<SendableRecordBatchStream> {
    let input = ParquetInput::open(table.name(), path)?;
    let schema = input.schema()?;
    table.check(&path.display().to_string(), &schema)?;
    let fields =
        schema.fields().iter().map(
            |f| match read_as.iter().find(|(name, _)| name == f.name()) {
                Some((_, to)) => Arc::new(f.as_ref().clone().with_data_type(to.clone())),
                None => f.clone(),
            },
        );
    Ok(input.scan(columns, &Schema::new(fields.collect::<Vec<_>>()), 8192)?)
}

/// The columns a rule's probability may come from.
const PROB_COLUMNS: [&str; 4] = ["p_f_e", "p_e_f", "lex_f_e", "lex_e_f"];

/// The probability column the true score uses unless told: P(src|tgt), SPEC's choice.
pub const DEFAULT_PROB_COLUMN: &str = PROB_COLUMNS[0];

/// The rules of a phrase table that no derivation can use, left out of its index: counted, and
/// the first of each kind named, so that a table of bad values does not load as a silently
/// smaller one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeftOut {
    /// Rules with a NULL or empty side, or a NULL probability: the count and the first rule's
    /// number (1-based, in table order).
    pub incomplete: (u64, u64),
    /// Rules whose probability is not in (0, 1] (0, negative, above 1, NaN, infinite): the
    /// count, and the first rule's number and value.
    pub not_probabilities: (u64, u64, f64),
}

impl LeftOut {
    /// A warning line for each kind of rule left out.
    pub fn describe(&self, path: &Path, column: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let (n, first) = self.incomplete;
        if n > 0 {
            lines.push(format!(
                "warning: phrase table {}: {n} rules left out: a NULL or empty phrase (or an empty token) or {column} (the first is rule {first})",
                path.display()
            ));
        }
        let (n, first, value) = self.not_probabilities;
        if n > 0 {
            lines.push(format!(
                "warning: phrase table {}: {n} rules left out: their {column} is not a probability in (0, 1] \
                 (the first is rule {first}, with {value})",
                path.display()
            ));
        }
        lines
    }
}

/// Read a phrase_table (Parquet file or directory) into a [`PhraseIndex`], streaming its rows.
/// Returns the index, the seconds it took, and the rules it left out.
pub async fn load_phrase_index(
    options: &PhraseTableOptions,
) -> Result<(PhraseIndex, f64, LeftOut)> {
    let started = Instant::now();
    let column = options.prob_column.as_str();
    if !PROB_COLUMNS.contains(&column) {
        return Err(BadValue {
            option: options::PROB_COLUMN,
            value: column.to_string(),
            expected: format!("expected one of {}", PROB_COLUMNS.join(", ")),
        }
        .into());
    }
    // The probability column may be one of the directions: each column is read once.
    let mut columns = vec!["src_tokens", "tgt_tokens", "p_e_f", "p_f_e"];
    if !columns.contains(&column) {
        columns.push(column);
    }
    let at = |name: &str| columns.iter().position(|c| *c == name).expect("listed");
    let (p_at, direct_at, inverse_at) = (at(column), at("p_e_f"), at("p_f_e"));
    let numbers: Vec<(&str, DataType)> = columns[2..]
        .iter()
        .map(|&c| (c, DataType::Float64))
        .collect();
    let mut stream = scan_checked(Table::PhraseTable, &options.path, &columns, &numbers)?;
    let mut builder = PhraseIndexBuilder::new(options.identity);
    let (mut rule, mut left_out) = (0u64, LeftOut::default());
    while let Some(batch) = stream.try_next().await? {
        let (mut src, mut tgt) = (Vec::new(), Vec::new());
        let sources = TokenLists::new("src_tokens", batch.column(0))?;
        let targets = TokenLists::new("tgt_tokens", batch.column(1))?;
        let [probabilities, direct, inverse] =
            [p_at, direct_at, inverse_at].map(|i| batch.column(i).as_primitive::<Float64Type>());
        for row in 0..batch.num_rows() {
            rule += 1;
            // A rule with a NULL or empty side (no token, or an empty one: `[""]` is no
            // phrase) or a NULL probability can be in no derivation.
            let complete = sources.row(row, &mut src).is_ok()
                && targets.row(row, &mut tgt).is_ok()
                && probabilities.is_valid(row);
            let empty = |side: &[_]| side.is_empty() || side.iter().any(|t: &&str| t.is_empty());
            if !complete || empty(&src) || empty(&tgt) {
                let (n, first) = &mut left_out.incomplete;
                *first = if *n == 0 { rule } else { *first };
                *n += 1;
                continue;
            }
            let p = probabilities.value(row);
            if !(p > 0.0 && p <= 1.0) {
                let (n, first, value) = &mut left_out.not_probabilities;
                (*first, *value) = if *n == 0 { (rule, p) } else { (*first, *value) };
                *n += 1;
                continue;
            }
            // A NULL direction makes the rule worthless to synthetic phrases, not to the DP.
            let directions = Directions {
                direct: if direct.is_valid(row) {
                    direct.value(row)
                } else {
                    0.0
                },
                inverse: if inverse.is_valid(row) {
                    inverse.value(row)
                } else {
                    0.0
                },
            };
            builder.add_with_directions(&src, &tgt, p, directions);
        }
    }
    Ok((builder.build(), started.elapsed().as_secs_f64(), left_out))
}

fn describe(path: &Path, index: &PhraseIndex, seconds: f64) -> String {
    format!(
        "phrase table {}: {} rules indexed in {seconds:.2} s (~{} MiB)",
        path.display(),
        index.len(),
        index.memory() >> 20
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{Given, ResourceOptions, options};
    use crate::align::{Module, Objective};
    use crate::pair::true_score::Identity;

    #[test]
    fn options_are_assembled_from_the_values_given() {
        let none = ResourceOptions::from_given([]).unwrap();
        assert!(none.phrase_table.is_none() && none.lm.is_none() && none.triples.is_none());
        assert_eq!(none.aligner.beam, 40);

        let table = PathBuf::from("pt.parquet");
        let given = ResourceOptions::from_given([
            (options::FREE_IDENTITY, Given::Flag(true)),
            (options::PHRASE_TABLE, Given::Location(table.clone())),
            (options::MODULES, Given::Text("exact stem".into())),
            (options::ALIGNMENT_TYPE, Given::Text("maxacc".into())),
            (options::BEAM, Given::Count(7)),
        ])
        .unwrap();
        let phrase_table = given.phrase_table.unwrap();
        assert_eq!(phrase_table.path, table);
        assert_eq!(phrase_table.prob_column, "p_f_e");
        assert_eq!(phrase_table.identity, Identity::Always);
        let aligner = given.aligner;
        assert_eq!(aligner.modules, Some(vec![Module::Exact, Module::Stem]));
        assert_eq!(aligner.objective, Objective::MaxAccuracy);
        assert_eq!(aligner.beam, 7);

        let wrong = |option, value| {
            ResourceOptions::from_given([(option, value)])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            wrong(options::BEAM, Given::Text("wide".into())),
            "--beam wide: expected a count"
        );
        assert_eq!(
            wrong(options::ALIGNMENT_TYPE, Given::Text("best".into())),
            "--type best: unknown alignment type `best`: expected maxcov or maxacc"
        );
    }
}
