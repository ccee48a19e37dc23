//! Argument groups several commands share, and their conversion into the library's options.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use pairmetrics::align::AlignerOptions;
use pairmetrics::kernels::sys::physical_memory;
use pairmetrics::lm::kneser_ney::{Options, SpecialWords};
use pairmetrics::pair::dep_fit::Formula;
use pairmetrics::pair::true_score::ModelWeights;
use pairmetrics::pipeline::compare;
use pairmetrics::pipeline::l2_assist;
use pairmetrics::resources::options::{
    ALIGNMENT_TYPE, BEAM, FASTTEXT_MODEL, FREE_IDENTITY, LANG, LM, MODULES, PARA, PHRASE_TABLE,
    PROB_COLUMN, ResourceOption, STEM_TABLE, SYN_DIR, TRIPLES,
};
use pairmetrics::resources::{self, Given, ResourceOptions};
use pairmetrics::session::Tuning;
use pairmetrics::smt::synthetic;

/// How --out is laid out as files.
#[derive(clap::Args)]
#[command(next_help_heading = "Output as a dataset")]
pub struct LayoutArgs {
    /// Write --out as a Hive-partitioned dataset: a directory per value of these columns of
    /// the result (`COL=value/part-00000.parquet`, values %-escaped as Hive does, NULL as
    /// __HIVE_DEFAULT_PARTITION__), the columns left out of the files. Any column, computed
    /// ones too (e.g. `sql ... "SELECT *, pair_id % 16 AS bucket ..."`). At most 16 files are
    /// open at once. The directory must be new or empty; it appears complete, with a _SUCCESS
    /// file, or not at all.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COL[,COL]",
        requires = "out"
    )]
    partition_by: Vec<String>,
    /// Start a new file (part-00001.parquet, ...) after this many rows; makes --out a dataset.
    #[arg(long, value_name = "ROWS", requires = "out")]
    max_rows_per_file: Option<u64>,
    /// With --out delta:PATH_OR_URL (a Delta Lake table, one commit per run, the signature in
    /// its commit info): what to do when the table exists.
    #[arg(long, value_enum, default_value = "error", requires = "out")]
    mode: pairmetrics::storage::Mode,
}

impl From<LayoutArgs> for pairmetrics::parquet::Layout {
    fn from(args: LayoutArgs) -> Self {
        pairmetrics::parquet::Layout {
            partition_by: args.partition_by,
            max_rows_per_file: args.max_rows_per_file,
            mode: args.mode,
        }
    }
}

/// How `compare` and `report` test significance.
#[derive(Debug, Clone, clap::Args)]
pub struct SignificanceArgs {
    /// Bootstrap resamples (sacrebleu's default).
    #[arg(long, default_value_t = compare::CompareOptions::default().resamples)]
    resamples: u64,
    /// Approximate randomization trials (sacrebleu's default).
    #[arg(long, default_value_t = compare::CompareOptions::default().trials)]
    trials: u64,
    /// Seed of every random draw (sacrebleu's default).
    #[arg(long, default_value_t = compare::CompareOptions::default().seed)]
    seed: u64,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = compare::CompareOptions::default().level)]
    level: f64,
}

impl SignificanceArgs {
    pub fn options(self, metrics: Option<Vec<String>>) -> compare::CompareOptions {
        let SignificanceArgs {
            resamples,
            trials,
            seed,
            level,
        } = self;
        compare::CompareOptions {
            metrics,
            resamples,
            trials,
            seed,
            level,
        }
    }
}

/// METEOR 1.5 aligner options, with Matcher's own short flags (`align`; in `sql` and `score`
/// they set how meteor_align aligns).
#[derive(clap::Args, Clone)]
#[command(next_help_heading = "METEOR aligner (align, meteor_align, score --align)")]
pub struct AlignerArgs {
    // Flags and help come from the resource options' table, which Python's keywords share
    // (their help says the defaults).
    #[arg(short = 'l', long = LANG.flag, help = LANG.help, default_value = "en", hide_default_value = true)]
    lang: String,
    #[arg(short = 'm', long = MODULES.flag, help = MODULES.help, value_name = "MODULES")]
    modules: Option<String>,
    #[arg(short = 'x', long = BEAM.flag, help = BEAM.help, default_value_t = 40, hide_default_value = true)]
    beam: usize,
    #[arg(short = 't', long = ALIGNMENT_TYPE.flag, help = ALIGNMENT_TYPE.help, default_value = "maxcov", hide_default_value = true)]
    objective: String,
    #[arg(short = 'e', long = STEM_TABLE.flag, help = STEM_TABLE.help, value_name = "PATH")]
    stem_table: Option<PathBuf>,
    #[arg(short = 'd', long = SYN_DIR.flag, help = SYN_DIR.help, value_name = "DIR")]
    syn_dir: Option<PathBuf>,
    #[arg(short = 'a', long = PARA.flag, help = PARA.help, value_name = "PATH")]
    para: Option<PathBuf>,
}

impl AlignerArgs {
    /// The values given, for [`ResourceOptions::from_given`].
    fn given(self) -> Vec<(ResourceOption, Given)> {
        let mut given = vec![
            (LANG, Given::Text(self.lang)),
            (BEAM, Given::Count(self.beam)),
            (ALIGNMENT_TYPE, Given::Text(self.objective)),
        ];
        given.extend(self.modules.map(|m| (MODULES, Given::Text(m))));
        given.extend(self.stem_table.map(|p| (STEM_TABLE, Given::Location(p))));
        given.extend(self.syn_dir.map(|p| (SYN_DIR, Given::Location(p))));
        given.extend(self.para.map(|p| (PARA, Given::Location(p))));
        given
    }

    pub fn options(self) -> Result<AlignerOptions> {
        Ok(ResourceOptions::from_given(self.given())?.aligner)
    }
}

/// How DataFusion runs the job.
#[derive(clap::Args)]
pub struct TuningArgs {
    /// Partitions (threads) to plan with (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    partitions: Option<usize>,
    /// Rows per record batch (default 8192).
    #[arg(long, value_name = "ROWS", value_parser = at_least_one)]
    batch_size: Option<usize>,
    /// Memory for sorts, joins and aggregations in MiB; beyond it they spill to the temporary
    /// directory (joins become sort-merge joins, which can spill).
    #[arg(long, value_name = "MIB", value_parser = at_least_one)]
    memory_limit: Option<usize>,
    /// DERP's per-pair size limit: a pair with more aligned nodes, or an aligned word deeper in
    /// its tree, gets NULL and a reason (default 1000; the cost grows with the square of the
    /// nodes and of the depth; at most 32767, more means 32767). In SQL:
    /// SET pairmetrics.derp_max_nodes = N.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    derp_max_nodes: Option<usize>,
}

impl From<TuningArgs> for Tuning {
    fn from(t: TuningArgs) -> Self {
        Tuning {
            partitions: t.partitions,
            batch_size: t.batch_size,
            memory_limit: t.memory_limit.map(|m| m << 20),
            derp_max_nodes: t.derp_max_nodes,
        }
    }
}

/// What functions beyond their arguments need: a phrase table, triple counts, a language model.
#[derive(clap::Args)]
pub struct ResourceArgs {
    // Flags and help come from the resource options' table, which Python's keywords share
    // (their help says the defaults).
    #[arg(long = PHRASE_TABLE.flag, help = PHRASE_TABLE.help, value_name = "PATH")]
    phrase_table: Option<PathBuf>,
    #[arg(long = PROB_COLUMN.flag, help = PROB_COLUMN.help,
          default_value = resources::DEFAULT_PROB_COLUMN, hide_default_value = true, requires = "phrase_table")]
    prob_column: String,
    #[arg(long = FREE_IDENTITY.flag, help = FREE_IDENTITY.help, requires = "phrase_table")]
    free_identity: bool,
    #[arg(long = TRIPLES.flag, help = TRIPLES.help, value_name = "PATH")]
    triples: Option<PathBuf>,
    #[arg(long = LM.flag, help = LM.help, value_name = "PATH")]
    lm: Option<PathBuf>,
    #[arg(long = FASTTEXT_MODEL.flag, help = FASTTEXT_MODEL.help, value_name = "PATH")]
    fasttext_model: Option<PathBuf>,
    #[command(flatten)]
    aligner: AlignerArgs,
}

impl ResourceArgs {
    pub fn options(self) -> Result<ResourceOptions> {
        let mut given = self.aligner.given();
        given.extend(
            self.phrase_table
                .map(|p| (PHRASE_TABLE, Given::Location(p))),
        );
        given.push((PROB_COLUMN, Given::Text(self.prob_column)));
        given.push((FREE_IDENTITY, Given::Flag(self.free_identity)));
        given.extend(self.triples.map(|p| (TRIPLES, Given::Location(p))));
        given.extend(self.lm.map(|p| (LM, Given::Location(p))));
        given.extend(
            self.fasttext_model
                .map(|p| (FASTTEXT_MODEL, Given::Location(p))),
        );
        Ok(ResourceOptions::from_given(given)?)
    }
}

/// A count that must be positive (rows per batch, partitions, threads, MiB): 0 would mean
/// nothing sensible, and some would be taken as 1 and run slowly without a word.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The largest magnitude a model weight may have: past it, a weight times a feature overflows to
/// an infinite total (`--alpha-w 1e308` made every total -inf).
pub const MAX_WEIGHT: f64 = 1e6;

/// A model weight (`--alpha-*`): a finite number, at most [`MAX_WEIGHT`] in magnitude; NaN or
/// an infinity would rank every hypothesis alike.
pub fn weight(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(w) if w.is_finite() && w.abs() <= MAX_WEIGHT => Ok(w),
        Ok(_) => Err(format!(
            "a weight must be a finite number from -{MAX_WEIGHT:e} to {MAX_WEIGHT:e}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Worker threads when not told: one per core.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The paper's model (Chevelu et al. 2010): a paraphrase table, optionally a language model,
/// and their weights in alpha_phi * phrase score + alpha_lm * ln P.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// The paraphrase table (a phrase_table, e.g. from `pivot` or `import moses-phrase-table`).
    #[arg(long = PHRASE_TABLE.flag, value_name = "PATH")]
    phrase_table: PathBuf,
    #[arg(long = PROB_COLUMN.flag, help = PROB_COLUMN.help,
          default_value = resources::DEFAULT_PROB_COLUMN, hide_default_value = true)]
    prob_column: String,
    #[arg(long = FREE_IDENTITY.flag, help = FREE_IDENTITY.help)]
    free_identity: bool,
    /// A language model (ARPA, plain, .gz or .zst); without it the model score is
    /// alpha_phi * the phrase-table score alone.
    #[arg(long, value_name = "PATH")]
    pub lm: Option<PathBuf>,
    /// Weight of the phrase-table score (the true score).
    #[arg(long, default_value_t = 1.0, value_parser = weight, allow_negative_numbers = true)]
    alpha_phi: f64,
    /// Weight of ln P(sentence) (the LM's log10 times ln 10).
    #[arg(long, default_value_t = 1.0, requires = "lm", value_parser = weight, allow_negative_numbers = true)]
    alpha_lm: f64,
}

impl ModelArgs {
    pub fn phrase_table(&self) -> resources::PhraseTableOptions {
        resources::PhraseTableOptions::new(
            self.phrase_table.clone(),
            self.prob_column.clone(),
            self.free_identity,
        )
    }

    pub fn weights(&self) -> ModelWeights {
        ModelWeights {
            phrase: self.alpha_phi,
            lm: self.alpha_lm,
        }
    }
}

/// A memory size as lmplz's -S reads it (KenLM's `util::ParseSize`): a number, then nothing
/// (KiB), b, K, M, G, T, P or E (powers of 1024), or % of physical memory.
pub fn parse_size(text: &str) -> Result<usize> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| {
        anyhow!("`{text}` is not a memory size: a number, then a suffix b, K, M, G, T or %")
    })?;
    let bytes = match suffix.trim() {
        "%" => {
            let physical = physical_memory().ok_or_else(|| {
                anyhow!("`{text}`: the physical memory size is unknown here; give a size")
            })?;
            value * physical as f64 / 100.0
        }
        "" => value * 1024.0,
        unit => {
            let power = match unit {
                "b" => 0,
                "k" | "K" => 1,
                "M" => 2,
                "G" => 3,
                "T" => 4,
                "P" => 5,
                "E" => 6,
                _ => bail!(
                    "`{text}` is not a memory size: the suffixes are b, K, M, G, T, P, E and %"
                ),
            };
            value * 1024f64.powi(power)
        }
    };
    if bytes < 1.0 {
        bail!("`{text}`: the memory size must be at least one byte");
    }
    Ok(bytes.min(usize::MAX as f64) as usize)
}

/// The estimator's options from the flags `lmplz` and `lm estimate` share: the order, the
/// fallback discounts, whether unigrams are interpolated and whether <s>, </s> and <unk> in the
/// text are skipped.
pub fn estimator_options(
    order: usize,
    discount_fallback: Option<&[f32]>,
    interpolate_unigrams: bool,
    skip_symbols: bool,
) -> Result<Options> {
    if order == 0 {
        bail!("--order must be at least 1");
    }
    Ok(Options {
        discount_fallback: discount_fallback.map(fallback_discounts).transpose()?,
        interpolate_unigrams,
        special_words: match skip_symbols {
            true => SpecialWords::Skip,
            false => SpecialWords::Refuse,
        },
        ..Options::new(order)
    })
}

/// D1, D2 and D3+ from up to three values, the last repeated, each within [0, its count].
fn fallback_discounts(values: &[f32]) -> Result<[f32; 3]> {
    if values.is_empty() || values.len() > 3 {
        bail!("give one to three fallback discounts: for counts 1, 2 and 3+");
    }
    let mut discounts = [0f32; 3];
    for (i, d) in discounts.iter_mut().enumerate() {
        *d = values[i.min(values.len() - 1)];
        if !(0.0..=(i + 1) as f32).contains(d) {
            bail!(
                "the discount for count {} is {d}, outside [0, {}]",
                i + 1,
                i + 1
            );
        }
    }
    Ok(discounts)
}

/// What l2-assist and tune make candidates and features with.
#[derive(clap::Args)]
pub struct AssistArgs {
    /// The task file (test data, or trial/gold data: then each candidate's word accuracy
    /// against the reference is known).
    #[arg(long, value_name = "FILE.xml", required = false)]
    pub input: Option<PathBuf>,
    /// The phrase table translating L1 fragments (src = L1, tgt = L2).
    #[arg(long, value_name = "PATH")]
    phrase_table: Option<PathBuf>,
    /// A bilingual dictionary (Parquet: src, tgt as text or token lists, optional p; see
    /// schemas/dictionary.md, and `import dictionary` for a tab-separated file) for fragments
    /// the phrase table cannot translate; uniform probabilities where p is absent.
    #[arg(long, value_name = "PATH")]
    dictionary: Option<PathBuf>,
    /// An ARPA language model of the L2 (the lm feature).
    #[arg(long, value_name = "PATH")]
    lm: Option<PathBuf>,
    /// A triples table of the L2 (the pmi_lex and pmi_pos features; needs --parses).
    #[arg(long, value_name = "PATH")]
    triples: Option<PathBuf>,
    /// CoNLL-U parses: of the input sentences (tokens as in the task file, the L1 fragment in
    /// place), projected onto each candidate's sentence, and/or of spliced candidate sentences
    /// (used as they are). Matched by tokens.
    #[arg(long, value_name = "FILE.conllu")]
    parses: Option<PathBuf>,
    /// Candidates per fragment, at most.
    #[arg(long, default_value_t = l2_assist::DEFAULT_MAX_CANDIDATES)]
    max_candidates: usize,
    /// Splits of a fragment tried for synthetic phrases, at most (the IUCL system's first 100),
    /// longer pieces first.
    #[arg(long, default_value_t = synthetic::DEFAULT_DECOMPOSITIONS)]
    max_decompositions: usize,
    /// Fitness as the IUCL code computes it (no factor 2, mean over distinct arcs).
    #[arg(long)]
    iucl_formula: bool,
}

impl AssistArgs {
    pub fn options(self, input: PathBuf) -> l2_assist::AssistOptions {
        let phrase_table = self.phrase_table.map(|path| {
            resources::PhraseTableOptions::new(path, resources::DEFAULT_PROB_COLUMN.into(), false)
        });
        l2_assist::AssistOptions {
            input,
            resources: resources::ResourceOptions {
                phrase_table,
                triples: self.triples,
                lm: self.lm,
                ..Default::default()
            },
            dictionary: self.dictionary,
            parses: self.parses,
            limits: synthetic::Limits {
                candidates: self.max_candidates,
                decompositions: self.max_decompositions,
            },
            formula: if self.iucl_formula {
                Formula::Iucl
            } else {
                Formula::Paper
            },
        }
    }
}

/// What l2-assist and tune loaded and made, on stderr.
pub fn report_generated(generated: &l2_assist::Generated) {
    for line in &generated.loaded {
        eprintln!("{line}");
    }
    let origins: Vec<String> = generated
        .origins
        .iter()
        .map(|(o, n)| format!("{n} {o}"))
        .collect();
    let [parsed, projected, none] = generated.parses;
    eprintln!(
        "{} fragments; candidates: {}; parses: {parsed} given, {projected} projected, {none} none",
        generated.fragments.len(),
        origins.join(", ")
    );
}
