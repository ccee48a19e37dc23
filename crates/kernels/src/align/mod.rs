//! A native METEOR 1.5 aligner: the `Matcher`'s links, byte for byte, without Java.
//!
//! METEOR aligns two whitespace-tokenised sentences in stages (`exact`, `stem`, `synonym`,
//! `paraphrase`, in the order given), each adding candidate matches, then resolves them into one
//! alignment: candidates nothing competes with are fixed, and a beam search picks the rest
//! ([`search`]). The behaviour follows METEOR's source (`cmu-mtlab/meteor`, `aligner/`), quirks
//! included; docs/meteor-aligner.md lists every decision. No Arrow here: `udf::meteor_align`
//! and `pipeline::align` wrap it.

pub mod fast_align;
mod java;
mod load;
pub mod paraphrase;
mod search;
pub mod stem;
pub mod symmetrize;
pub mod synonyms;

use hashbrown::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::{Link, span_links};
pub use java::{string_hash, tokens, trim};
pub use load::LoadError;
use paraphrase::ParaphraseTable;
use search::Candidates;
use stem::Stemmer;
use synonyms::{SynonymDictionary, SynsetIndex, span};

/// A matcher stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Module {
    Exact,
    Stem,
    Synonym,
    Paraphrase,
}

impl Module {
    pub const ALL: [Module; 4] = [
        Module::Exact,
        Module::Stem,
        Module::Synonym,
        Module::Paraphrase,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Module::Exact => "exact",
            Module::Stem => "stem",
            Module::Synonym => "synonym",
            Module::Paraphrase => "paraphrase",
        }
    }

    /// METEOR's `getModuleID`: case-insensitive.
    pub fn parse(name: &str) -> Result<Module, AlignError> {
        Module::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                AlignError::Option(format!(
                    "unknown module `{name}`: expected exact, stem, synonym or paraphrase"
                ))
            })
    }

    /// A module list as METEOR's `-m` takes it: names separated by whitespace (we also accept
    /// `,` and `+`).
    pub fn parse_list(text: &str) -> Result<Vec<Module>, AlignError> {
        let modules = text
            .split([',', '+', ' ', '\t'])
            .filter(|t| !t.is_empty())
            .map(Module::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if modules.is_empty() {
            return Err(AlignError::Option(
                "no module given: expected some of exact, stem, synonym, paraphrase".into(),
            ));
        }
        if modules.len() > u8::MAX as usize {
            return Err(AlignError::Option(format!(
                "{} modules given; a stage number must fit a byte",
                modules.len()
            )));
        }
        Ok(modules)
    }
}

/// METEOR's `-t`: what the beam search maximises first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Objective {
    /// `maxcov` (the default): weights exact 1, stem, synonym and paraphrase 0.5.
    #[default]
    MaxCoverage,
    /// `maxacc`: weights exact, stem and synonym 1, paraphrase 0; then all words matched.
    MaxAccuracy,
}

impl Objective {
    pub fn parse(name: &str) -> Result<Objective, AlignError> {
        match name {
            "maxcov" => Ok(Objective::MaxCoverage),
            "maxacc" => Ok(Objective::MaxAccuracy),
            _ => Err(AlignError::Option(format!(
                "unknown alignment type `{name}`: expected maxcov or maxacc"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Objective::MaxCoverage => "maxcov",
            Objective::MaxAccuracy => "maxacc",
        }
    }

    /// The weight of a module's matches in the beam's first criterion (`Matcher.java`), in
    /// halves: 1 is 0.5.
    fn half_weight(self, module: Module) -> u32 {
        match (self, module) {
            (_, Module::Exact) => 2,
            (Objective::MaxCoverage, _) => 1,
            (Objective::MaxAccuracy, Module::Paraphrase) => 0,
            (Objective::MaxAccuracy, _) => 2,
        }
    }
}

/// METEOR's `normLanguageName`: a code or a name, case-insensitive, to METEOR's full name.
pub fn language_name(language: &str) -> Result<&'static str, AlignError> {
    const NAMES: &[(&str, &[&str])] = &[
        ("english", &["en"]),
        ("czech", &["cz", "cs"]),
        ("french", &["fr"]),
        ("german", &["de"]),
        ("spanish", &["es"]),
        ("arabic-buckwalter-reduced", &["ar-bw-red"]),
        ("portuguese", &["pt"]),
        ("russian", &["ru"]),
        ("danish", &["da"]),
        ("romanian", &["ro"]),
        ("hungarian", &["hu"]),
        ("turkish", &["tr"]),
        ("finnish", &["fi"]),
        ("dutch", &["nl"]),
        ("italian", &["it"]),
        ("norwegian", &["no"]),
        ("swedish", &["se", "sv"]),
        ("other", &["xx"]),
    ];
    let lower = language.to_lowercase();
    NAMES
        .iter()
        .find(|(name, codes)| *name == lower || codes.contains(&lower.as_str()))
        .map(|(name, _)| *name)
        .ok_or_else(|| AlignError::Option(format!("unknown language `{language}`: expected one of en da de es fi fr hu it nl no pt ro ru se tr (or their names)")))
}

/// One match: `s1[s1_start..+s1_len]` (the first sentence, METEOR's test) with
/// `s2[s2_start..+s2_len]` (the second, its reference), found by stage `stage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub s1_start: u32,
    pub s1_len: u32,
    pub s2_start: u32,
    pub s2_len: u32,
    /// The index of the module in the aligner's module list (what Matcher prints).
    pub stage: u8,
}

#[derive(Debug)]
pub enum AlignError {
    Option(String),
    Load(LoadError),
}

impl fmt::Display for AlignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlignError::Option(message) => f.write_str(message),
            AlignError::Load(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AlignError {}

impl From<LoadError> for AlignError {
    fn from(e: LoadError) -> Self {
        AlignError::Load(e)
    }
}

/// The widest beam (a beam of this width is already far past any accuracy gain).
pub const MAX_BEAM: usize = 100_000;

/// How to align: METEOR `Matcher`'s options.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlignerOptions {
    /// `-l`: a language code or name (default `en`).
    pub language: String,
    /// `-m`: the stages, in order. None: `exact stem synonym`, and `paraphrase` after them
    /// when a paraphrase table is given (METEOR's default list includes `paraphrase` and fails
    /// without its table; we do not ship one).
    pub modules: Option<Vec<Module>>,
    /// `-x` (default 40).
    pub beam: usize,
    /// `-t` (default maxcov).
    pub objective: Objective,
    /// `-e`: a stem lookup table instead of the language's Snowball stemmer.
    pub stem_file: Option<PathBuf>,
    /// `-d`: a directory with `<language>.synsets` and `<language>.exceptions` (default: the
    /// English WordNet files compiled into pairmetrics).
    pub synonym_dir: Option<PathBuf>,
    /// `-a`: a paraphrase table.
    pub paraphrase_file: Option<PathBuf>,
}

impl Default for AlignerOptions {
    fn default() -> Self {
        AlignerOptions {
            language: "en".into(),
            modules: None,
            beam: 40,
            objective: Objective::default(),
            stem_file: None,
            synonym_dir: None,
            paraphrase_file: None,
        }
    }
}

impl AlignerOptions {
    pub fn modules(&self) -> Vec<Module> {
        self.modules.clone().unwrap_or_else(|| {
            let mut modules = vec![Module::Exact, Module::Stem, Module::Synonym];
            if self.paraphrase_file.is_some() {
                modules.push(Module::Paraphrase);
            }
            modules
        })
    }

    /// What a signature records: `meteor-1.5:en:exact+stem+synonym:beam40:maxcov` (resource
    /// files by name).
    pub fn describe(&self) -> String {
        let modules: Vec<&str> = self.modules().iter().map(|m| m.name()).collect();
        let mut text = format!(
            "meteor-1.5:{}:{}:beam{}:{}",
            language_name(&self.language).unwrap_or("?"),
            modules.join("+"),
            self.beam,
            self.objective.name()
        );
        for (flag, path) in [
            ("stem", &self.stem_file),
            ("syn", &self.synonym_dir),
            ("para", &self.paraphrase_file),
        ] {
            if let Some(path) = path {
                text.push_str(&format!(":{flag}={}", path.display()));
            }
        }
        text
    }
}

/// English WordNet synonyms in METEOR's format, compiled in (data/meteor/synonym/, licence in
/// COPYING.WORDNET there).
const ENGLISH_SYNSETS: &[u8] = include_bytes!("../../../../data/meteor/synonym/english.synsets");
const ENGLISH_EXCEPTIONS: &[u8] =
    include_bytes!("../../../../data/meteor/synonym/english.exceptions");

/// The bundled English dictionary, read once per process.
fn english_synonyms() -> Arc<SynonymDictionary> {
    static ENGLISH: OnceLock<Arc<SynonymDictionary>> = OnceLock::new();
    ENGLISH
        .get_or_init(|| {
            let names = ("<bundled english.synsets>", "<bundled english.exceptions>");
            Arc::new(
                SynonymDictionary::read(ENGLISH_SYNSETS, ENGLISH_EXCEPTIONS, names)
                    .expect("the bundled synonyms parse"),
            )
        })
        .clone()
}

/// How an aligner opens its resource files (a stem table, synonyms, a paraphrase table): the
/// caller decides, so that the front ends can read compressed or remote files and record them
/// as inputs. The error is a message; the aligner names the file.
pub type Open<'a> = &'a dyn Fn(&Path) -> Result<Box<dyn std::io::BufRead + Send>, String>;

/// Plain local files, for [`Aligner::new`].
pub fn open_file(path: &Path) -> Result<Box<dyn std::io::BufRead + Send>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    Ok(Box::new(std::io::BufReader::new(file)))
}

fn open_with(open: Open, path: &Path) -> Result<Box<dyn std::io::BufRead + Send>, AlignError> {
    open(path)
        .map_err(|message| AlignError::Load(LoadError::new(&path.display().to_string(), message)))
}

/// A resource of a few megabytes (a language's synonyms), read whole.
fn read_whole(open: Open, path: &Path) -> Result<Vec<u8>, AlignError> {
    let mut bytes = Vec::new();
    open_with(open, path)?
        .read_to_end(&mut bytes)
        .map_err(|e| {
            AlignError::Load(LoadError::new(&path.display().to_string(), e.to_string()))
        })?;
    Ok(bytes)
}

/// An aligner with its resources loaded; share it between threads, each with its own
/// [`Scratch`].
#[derive(Debug)]
pub struct Aligner {
    options: AlignerOptions,
    modules: Vec<Module>,
    half_weights: Vec<u32>,
    stemmer: Option<Stemmer>,
    synonyms: Option<Arc<SynonymDictionary>>,
    paraphrases: Option<ParaphraseTable>,
}

impl Aligner {
    /// An aligner whose resource files (stem table, synonyms, paraphrase table) are opened by
    /// `open`: [`open_file`] for plain local files, or the main crate's
    /// `formats::input::open_resource` for compressed and remote ones.
    pub fn new(options: AlignerOptions, open: Open) -> Result<Aligner, AlignError> {
        let language = language_name(&options.language)?;
        if options.beam > MAX_BEAM {
            return Err(AlignError::Option(format!(
                "a beam of {} is too wide: at most {MAX_BEAM}",
                options.beam
            )));
        }
        let modules = options.modules();
        let has = |module| modules.contains(&module);
        let stemmer = match (&options.stem_file, has(Module::Stem)) {
            (_, false) => None,
            (Some(path), true) => Some(Stemmer::read_table(open_with(open, path)?, &path.display().to_string())?),
            (None, true) => Some(Stemmer::Snowball(rust_stemmers::Stemmer::create(stem::snowball(language).ok_or_else(|| {
                let which = match language {
                    "other" => "`other` (METEOR's name for a language it has no resources for)".to_string(),
                    _ => language.to_string(),
                };
                AlignError::Option(format!(
                    "language `{}` is {which}, which has no Snowball stemmer: the stem module needs a stem table \
                     (METEOR's -e), or leave `stem` out of the modules",
                    options.language
                ))
            })?))),
        };
        let synonyms = match (&options.synonym_dir, has(Module::Synonym)) {
            (_, false) => None,
            (None, true) if language == "english" => Some(english_synonyms()),
            (None, true) => {
                return Err(AlignError::Option(format!(
                    "no synonyms are bundled for {language}: give a directory with {language}.synsets and {language}.exceptions (METEOR's -d), or leave out the synonym module"
                )));
            }
            (Some(dir), true) => {
                let file = |ext: &str| dir.join(format!("{language}.{ext}"));
                let (synsets, exceptions) = (file("synsets"), file("exceptions"));
                let names = (
                    synsets.display().to_string(),
                    exceptions.display().to_string(),
                );
                let (synsets_text, exceptions_text) =
                    (read_whole(open, &synsets)?, read_whole(open, &exceptions)?);
                Some(Arc::new(SynonymDictionary::read(
                    &synsets_text,
                    &exceptions_text,
                    (&names.0, &names.1),
                )?))
            }
        };
        let paraphrases = match (&options.paraphrase_file, has(Module::Paraphrase)) {
            (_, false) => None,
            (Some(path), true) => Some(ParaphraseTable::read(
                open_with(open, path)?,
                &path.display().to_string(),
            )?),
            (None, true) => {
                return Err(AlignError::Option(
                    "the paraphrase module needs a paraphrase table (METEOR's -a; none is bundled)"
                        .into(),
                ));
            }
        };
        let half_weights = modules
            .iter()
            .map(|&m| options.objective.half_weight(m))
            .collect();
        Ok(Aligner {
            options,
            modules,
            half_weights,
            stemmer,
            synonyms,
            paraphrases,
        })
    }

    pub fn options(&self) -> &AlignerOptions {
        &self.options
    }

    /// The stages, in order: `stage` in a [`Match`] indexes this.
    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    /// Align two tokenised sentences (METEOR's test, then its reference): the matches of the
    /// best alignment, in order of their position in the second sentence.
    pub fn align<S: AsRef<str>>(
        &self,
        words1: &[S],
        words2: &[S],
        scratch: &mut Scratch,
    ) -> Vec<Match> {
        let Scratch {
            cache,
            side1,
            side2,
            candidates,
            beam,
        } = scratch;
        cache.make_room();
        cache.describe(self, words1, side1);
        cache.describe(self, words2, side2);
        let (n1, n2) = (words1.len(), words2.len());
        candidates.reset(n1, n2);
        // METEOR's special case: identical sentences (by hash) run the first stage only.
        let identical = n1 == n2
            && side1
                .iter()
                .zip(side2.iter())
                .all(|(a, b)| a.hash == b.hash);
        let stages = if identical { 1 } else { self.modules.len() };
        for (stage, &module) in self.modules[..stages].iter().enumerate() {
            let stage = stage as u8;
            if module == Module::Paraphrase {
                let table = self.paraphrases.as_ref().expect("loaded with the module");
                let ids1: Vec<i32> = side1.iter().map(|t| t.phrase_word).collect();
                let ids2: Vec<i32> = side2.iter().map(|t| t.phrase_word).collect();
                paraphrase_matches(table, &ids1, &ids2, stage, candidates);
                continue;
            }
            if module == Module::Synonym {
                cache.index_synsets(side1);
            } else {
                // Exact and stem: the first sentence's words sorted by (hash or stem, position),
                // so each second-sentence word finds its equals in position order.
                let key = |t: &Token| {
                    if module == Module::Exact {
                        t.hash
                    } else {
                        t.stem
                    }
                };
                cache.by_key.clear();
                cache
                    .by_key
                    .extend(side1.iter().enumerate().map(|(i, t)| (key(t), i as u32)));
                cache.by_key.sort_unstable();
            }
            for (j, b) in side2.iter().enumerate() {
                let one = |i: u32| Match {
                    s1_start: i,
                    s1_len: 1,
                    s2_start: j as u32,
                    s2_len: 1,
                    stage,
                };
                if module == Module::Synonym {
                    for &i in cache.synonyms_of(b) {
                        if side1[i as usize].hash != b.hash {
                            candidates.add(one(i));
                        }
                    }
                    continue;
                }
                let wanted = if module == Module::Exact {
                    b.hash
                } else {
                    b.stem
                };
                let first = cache.by_key.partition_point(|&(k, _)| k < wanted);
                for &(_, i) in cache.by_key[first..]
                    .iter()
                    .take_while(|&&(k, _)| k == wanted)
                {
                    // A stem match needs words that differ (by hash).
                    if module == Module::Exact || side1[i as usize].hash != b.hash {
                        candidates.add(one(i));
                    }
                }
            }
        }
        search::resolve(
            candidates,
            &self.half_weights,
            self.options.beam,
            self.options.objective,
            beam,
        )
    }
}

/// METEOR's paraphrase stage: every table phrase found in the second sentence whose paraphrase
/// occurs in the first, then every phrase found in the first whose paraphrase occurs in the
/// second.
fn paraphrase_matches(
    table: &ParaphraseTable,
    ids1: &[i32],
    ids2: &[i32],
    stage: u8,
    candidates: &mut Candidates,
) {
    let occurs_at = |words: &[i32], at: usize, phrase: &[i32]| words[at..].starts_with(phrase);
    for j in 0..ids2.len() {
        for (len, paraphrase) in table.phrases_at(ids2, j) {
            for i in (0..ids1.len()).filter(|&i| occurs_at(ids1, i, paraphrase)) {
                let m = Match {
                    s1_start: i as u32,
                    s1_len: paraphrase.len() as u32,
                    s2_start: j as u32,
                    s2_len: len as u32,
                    stage,
                };
                candidates.add(m);
            }
        }
    }
    for i in 0..ids1.len() {
        for (len, paraphrase) in table.phrases_at(ids1, i) {
            for j in (0..ids2.len()).filter(|&j| occurs_at(ids2, j, paraphrase)) {
                let m = Match {
                    s1_start: i as u32,
                    s1_len: len as u32,
                    s2_start: j as u32,
                    s2_len: paraphrase.len() as u32,
                    stage,
                };
                candidates.add(m);
            }
        }
    }
}

/// What the stages compare about a word, computed once per distinct word.
#[derive(Debug, Clone, Copy)]
struct Token {
    hash: i32,
    stem: i32,
    /// A range of [`TokenCache::synsets`].
    synsets: (u32, u32),
    phrase_word: i32,
}

/// Per-thread state of one aligner: the words it has described (bounded) and the buffers of one
/// alignment. Keep one per aligner: the descriptions depend on its stemmer and dictionaries.
#[derive(Debug, Default)]
pub struct Scratch {
    cache: TokenCache,
    side1: Vec<Token>,
    side2: Vec<Token>,
    candidates: Candidates,
    beam: search::Beam,
}

#[derive(Debug, Default)]
struct TokenCache {
    tokens: HashMap<Box<str>, Token>,
    synsets: Vec<u32>,
    buffer: Vec<u32>,
    /// The first sentence's words by synset.
    by_synset: SynsetIndex,
    /// (hash or stem, position) of the first sentence's words, sorted.
    by_key: Vec<(i32, u32)>,
}

/// Distinct words kept described before the cache starts over (memory stays flat on any
/// corpus).
const CACHE_WORDS: usize = 1 << 18;

impl TokenCache {
    /// Start over when full; only between alignments, as tokens point into `synsets`.
    fn make_room(&mut self) {
        if self.tokens.len() >= CACHE_WORDS {
            self.tokens.clear();
            self.synsets.clear();
        }
    }

    fn describe<S: AsRef<str>>(&mut self, aligner: &Aligner, words: &[S], out: &mut Vec<Token>) {
        out.clear();
        for word in words {
            let word = word.as_ref();
            if let Some(token) = self.tokens.get(word) {
                out.push(*token);
                continue;
            }
            let mut synsets = (0, 0);
            if let Some(dictionary) = &aligner.synonyms {
                dictionary.synsets_into(word, &mut self.buffer);
                synsets = (self.synsets.len() as u32, self.buffer.len() as u32);
                self.synsets.extend_from_slice(&self.buffer);
            }
            let token = Token {
                hash: string_hash(word),
                stem: aligner.stemmer.as_ref().map_or(0, |s| s.stem_hash(word)),
                synsets,
                phrase_word: aligner
                    .paraphrases
                    .as_ref()
                    .map_or(paraphrase::UNKNOWN, |t| t.word_id(word)),
            };
            self.tokens.insert(word.into(), token);
            out.push(token);
        }
    }

    /// Index the first sentence's words by synset, for [`TokenCache::synonyms_of`].
    fn index_synsets(&mut self, side1: &[Token]) {
        let synsets = |token: &Token| span(&self.synsets, token.synsets);
        let count = side1.iter().map(|t| t.synsets.1 as usize).sum();
        let entries = side1
            .iter()
            .enumerate()
            .flat_map(|(i, token)| synsets(token).iter().map(move |&s| (s, i as u32)));
        self.by_synset.build(count, entries);
    }

    /// The positions of the first sentence's words that share a synset with `word`, ascending.
    fn synonyms_of(&mut self, word: &Token) -> &[u32] {
        self.by_synset
            .positions_of(span(&self.synsets, word.synsets))
    }
}

/// The links of the matches (a phrase match links every word of one side to every word of the
/// other, so it is one LePoD unit), each with its module's name.
pub fn module_links<'a>(matches: &[Match], names: &[&'a str]) -> Vec<(Link, &'a str)> {
    let links = |m: &Match| {
        let name = names[m.stage as usize];
        span_links(m.s1_start, m.s1_len, m.s2_start, m.s2_len).map(move |link| (link, name))
    };
    matches.iter().flat_map(links).collect()
}
