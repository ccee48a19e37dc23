//! The pairmetrics command line: parse arguments, call the pipeline, print.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use pairmetrics::align::{Aligner, AlignerOptions, Module, Objective};
use pairmetrics::metrics::dep_fit::Formula;
use pairmetrics::metrics::l2_assist::FEATURE_NAMES;
use pairmetrics::metrics::mcpg::{self, Mode};
use pairmetrics::metrics::mert;
use pairmetrics::metrics::true_score::{Identity, ModelWeights};
use pairmetrics::parquet::Codec;
use pairmetrics::pipeline::{
    align, compare, demo, export, extract, import, l2_assist, lepod, paraphrase, pivot, report,
    rerank, sacrebleu, score, semeval_eval, show, sql, triples,
};
use pairmetrics::resources::{self, MissingResource, Resource};
use pairmetrics::session::Tuning;

#[derive(Parser)]
#[command(
    name = "pairmetrics",
    version,
    about = "Score sentence pairs at corpus scale: Parquet in, metrics as SQL functions, Parquet out.",
    long_about = "Score sentence pairs at corpus scale.\n\n\
        Inputs are Parquet tables (see schemas/ in the source): `pairs` (pair_id, src, tgt token \
        lists), `alignments` (pair_id, links) and `arcs` (dependency parses). Every metric is a \
        DataFusion SQL function (led, pod, derp, true_score, kendall_tau_a, dep_fit, lm_logprob, \
        word_accuracy and more; `pairmetrics sql \"SHOW FUNCTIONS\"` lists them): \
        `score` adds them as columns, `sql` lets you call them yourself.\n\n\
        Every input and output path may also be a URL: s3://bucket/key, gs://, az:// or \
        abfss://, http(s):// (read only), file://. A directory or prefix of *.parquet files is \
        one table; key=value directories in it (Hive partitions) become string columns. \
        Credentials come from the environment as the stores' own tools read them (AWS_*, \
        including AWS_ENDPOINT_URL and AWS_ALLOW_HTTP; GOOGLE_APPLICATION_CREDENTIALS; \
        AZURE_STORAGE_*), or from --storage-option.\n\n\
        Start with `pairmetrics demo`."
)]
struct Cli {
    /// A setting of the object stores, over the environment's: e.g. aws_endpoint_url=http://
    /// 127.0.0.1:8333, aws_allow_http=true, aws_region=eu-west-1 (object_store's key names).
    #[arg(long = "storage-option", value_name = "KEY=VALUE", global = true, value_parser = key_value)]
    storage_options: Vec<(String, String)>,
    #[command(subcommand)]
    command: Command,
}

/// How --out is laid out as files.
#[derive(clap::Args)]
#[command(next_help_heading = "Output as a dataset")]
struct LayoutArgs {
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

fn key_value(arg: &str) -> Result<(String, String), String> {
    match arg.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("`{arg}` is not KEY=VALUE")),
    }
}

#[derive(Subcommand)]
enum ClusterCommand {
    /// Start a scheduler: it plans the queries clients send and hands their tasks to executors.
    Scheduler {
        /// Where to listen for clients and executors.
        #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_SCHEDULER)]
        bind: std::net::SocketAddr,
        /// Seconds without a heartbeat after which an executor is taken as dead; its tasks, and
        /// the shuffle output it held, are computed again on the others.
        #[arg(long, value_name = "SECONDS", default_value_t = 60)]
        executor_timeout: u64,
    },
    /// Start an executor: it runs tasks with every pairmetrics function, bound to the resources
    /// given here (give every executor the same ones as the client).
    Executor {
        /// The scheduler to register with.
        #[arg(long, value_name = "HOST:PORT")]
        scheduler: String,
        /// Where to serve results and shuffle data (Arrow Flight).
        #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_EXECUTOR)]
        bind: std::net::SocketAddr,
        /// The port the scheduler sends tasks to (default: the --bind port + 1).
        #[arg(long, value_name = "PORT")]
        grpc_port: Option<u16>,
        /// Where shuffle files go (default: a new temporary directory).
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
        /// Tasks run at once (default: one per core).
        #[arg(long, value_name = "N", default_value_t = 0)]
        slots: usize,
        /// Seconds between heartbeats to the scheduler (keep it well under its
        /// --executor-timeout).
        #[arg(long, value_name = "SECONDS", default_value_t = 10)]
        heartbeat: u64,
        #[command(flatten)]
        resources: ResourceArgs,
    },
}

/// Ballista's usual ports, on loopback only.
const DEFAULT_SCHEDULER: &str = "127.0.0.1:50050";
const DEFAULT_EXECUTOR: &str = "127.0.0.1:50051";

#[derive(Subcommand)]
enum Command {
    /// Join pairs with their alignments and add a column per metric computable from them.
    ///
    /// Adds `led` (over the alignment's units when --alignments is given, as lepod-score.py
    /// does; otherwise the alignment-free multiset LeD), `pod` (needs --alignments) and
    /// `lepod_problem` (why led/pod are NULL for a row); with --arcs and --alignments also `derp`
    /// (the dependency-path word-order score) and `derp_problem`. Every input column is kept; every pair
    /// gives one output row, in pair_id order. The output is Parquet (snappy unless
    /// --compression says otherwise), written under a
    /// temporary name and renamed when complete; its key-value metadata holds the metric
    /// signature (`pairmetrics.signature`).
    Score {
        /// Pairs table: Parquet file or directory (pair_id Int64, src and tgt token lists).
        #[arg(long)]
        pairs: PathBuf,
        /// Alignments table (pair_id, links List<Struct<src Int32, tgt Int32>>, 0-based).
        #[arg(long)]
        alignments: Option<PathBuf>,
        /// Without an alignments table, align src and tgt with METEOR 1.5's aligner in the same
        /// pass: `meteor`, or `meteor:MODULES` (e.g. meteor:exact+stem; default exact, stem,
        /// synonym). Tokens are aligned as compared (lowercased with --lowercase). The signature
        /// records the aligner, its modules and language.
        #[arg(long, value_name = "meteor[:MODULES]", conflicts_with = "alignments")]
        align: Option<String>,
        /// Dependency parses (arcs table: pair_id, src_head, src_deprel, tgt_head, tgt_deprel);
        /// with --alignments, adds `derp` and `derp_problem`.
        #[arg(long)]
        arcs: Option<PathBuf>,
        /// Output: a Parquet file, or with --partition-by, --max-rows-per-file or a trailing
        /// `/`, a dataset directory (see those options). A local path or a URL.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Compare tokens lowercased (lepod-score.py's -l).
        #[arg(long)]
        lowercase: bool,
        /// Characters whose single-character tokens PoD ignores, e.g. "," (lepod-score.py's -p).
        #[arg(long, default_value = "")]
        punct: String,
        /// The metrics to compute, comma-separated (default: every metric whose inputs are
        /// given, but not the opt-in ones).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...", long_help = metrics_help())]
        metrics: Option<Vec<String>>,
        /// --phrase-table adds `true_score` (tgt as a paraphrase of src); --triples with --arcs adds
        /// `tgt_dep_fit` (the whole tgt sentence's fitness) and `tgt_dep_fit_problem`; --lm adds
        /// `src_lm_logprob` and `tgt_lm_logprob`.
        #[command(flatten)]
        resources: ResourceArgs,
        #[command(flatten)]
        tuning: TuningArgs,
        /// How the computed columns are compressed. Snappy, what pyarrow, Spark and DuckDB write
        /// by default, scores ~12 % faster than zstd; zstd files are ~1/3 smaller. The pairs
        /// table's own columns are copied as stored when --pairs is one Parquet file with an
        /// offset index read in lockstep (see docs/guide/scoring.md), and keep its compression.
        #[arg(long, value_enum, default_value = "snappy")]
        compression: Codec,
        /// Stop with an error at the first pair a metric cannot score (naming its pair_id and
        /// why), instead of writing NULL and counting it in the summary.
        #[arg(long)]
        strict: bool,
        /// Print the query and DataFusion's physical plan instead of running them.
        #[arg(long)]
        explain: bool,
        /// Run on a Ballista cluster: the scheduler at df://HOST:PORT (`pairmetrics cluster`,
        /// the `cluster` feature). Table paths must be readable by every executor at the same
        /// path, and --out is then a dataset directory the executors write on a shared file
        /// system, published (renamed into place, with _SUCCESS) only when complete. Tables in
        /// the same pair_id order are read side by side there too: each task scores one share
        /// of the rows and writes it to a file of its own (part-00000.parquet, ... in pair_id
        /// order); --partitions sets the shares (default: this machine's cores; give the
        /// cluster's task slots).
        #[arg(long, value_name = "df://HOST:PORT")]
        cluster: Option<String>,
    },
    /// Run a SQL query over Parquet tables, with every pairmetrics function available.
    ///
    /// Example: pairmetrics sql --table p=pairs.parquet --table a=alignments.parquet
    ///   "SELECT avg(led(src, tgt, links)) FROM p JOIN a USING (pair_id)"
    /// `SHOW FUNCTIONS LIKE 'led'` describes a function.
    Sql {
        /// Register a table: NAME=PATH (repeatable). PATH is a Parquet file, a directory or
        /// prefix of them (Hive partitions become columns), or delta:PATH_OR_URL[@VERSION] for
        /// a Delta Lake table (at that version: time travel).
        #[arg(long = "table", value_name = "NAME=PATH", value_parser = parse_table)]
        tables: Vec<(String, PathBuf)>,
        /// Declare table NAME sorted by pair_id, ascending (repeatable). Files pairmetrics writes
        /// in pair_id order record it and need no flag, as do files whose Parquet sorting_columns
        /// say so. With a sorted table, joins are planned as merge joins, which stream in bounded
        /// memory; a table declared sorted that is not gives wrong join results.
        #[arg(long = "sorted", value_name = "NAME")]
        sorted: Vec<String>,
        /// How to print the result.
        #[arg(long, value_enum, default_value = "table")]
        format: sql::Format,
        /// Write the result to this Parquet file (atomically) instead of printing it; with
        /// --partition-by, --max-rows-per-file or a trailing `/`, to a dataset directory.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        resources: ResourceArgs,
        #[command(flatten)]
        tuning: TuningArgs,
        /// Run on a Ballista cluster: the scheduler at df://HOST:PORT (`pairmetrics cluster`,
        /// the `cluster` feature). Table paths must be readable by every executor at the same
        /// path, and --out is then a dataset directory the executors write on a shared file
        /// system, published (renamed into place, with _SUCCESS) only when complete.
        #[arg(long, value_name = "df://HOST:PORT")]
        cluster: Option<String>,
        /// The query.
        query: String,
    },
    /// Run a Ballista cluster whose executors know every pairmetrics function (docs/cluster.md).
    ///
    /// Start one scheduler and any number of executors (on one machine or several), then give
    /// `sql` and `score` --cluster df://SCHEDULER:PORT. Needs the `cluster` feature
    /// (cargo build --release --features cluster). Everything binds to 127.0.0.1 unless told:
    /// whoever reaches these ports can run any plan and read any file the processes can, so
    /// keep them on a private network.
    #[command(subcommand)]
    Cluster(ClusterCommand),
    /// Convert text, aligner and parser output into our Parquet tables (see schemas/).
    ///
    /// Streaming (constant memory), plain, gzip or zstd input, errors that name the file and
    /// line, output written atomically; pair_id is the 0-based line, block or sentence number.
    #[command(subcommand)]
    Import(ImportCommand),
    /// METEOR 1.5's aligner (its `Matcher`), natively: align line i of TEST with line i of REF.
    ///
    /// Prints what `java -cp meteor-1.5.jar Matcher TEST REF [options]` prints, byte for byte
    /// (an `Alignment N` block per line pair), so `pairmetrics align t r > a && pairmetrics lepod
    /// -a a -f t r` is LePoD's whole pipeline. With --out, writes an alignments table instead
    /// (pair_id = 0-based line number; each link names its module). Like METEOR, it splits
    /// tokens on whitespace and neither lowercases nor normalises: lowercase first if you want
    /// case-insensitive matches (LePoD's pipeline does). Uses every core; inputs may be gzip or
    /// zstd compressed; a pair count shows on a terminal's stderr. See docs/meteor-aligner.md.
    Align {
        /// The first sentences (METEOR's test), one tokenised sentence per line.
        test: PathBuf,
        /// The second sentences (METEOR's reference), as many lines.
        reference: PathBuf,
        #[command(flatten)]
        aligner: AlignerArgs,
        /// Write an alignments table (Parquet, atomically) instead of Matcher's text.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// Worker threads (default: the number of cores).
        #[arg(long, value_name = "N", value_parser = at_least_one)]
        threads: Option<usize>,
    },
    /// Drop-in replacement for lepod-score.py: LeD/PoD from METEOR Matcher output.
    ///
    /// Same options and the same PREFIX.led, PREFIX.pod and stdout, byte for byte, as the
    /// original on every input it accepts. Where the original crashes: a unit with punctuation
    /// on one side only is dropped from PoD (SPEC's decision); an empty sentence, a malformed
    /// block, a span past the sentence end or zero pairs stop with an error naming the file and
    /// line. Inputs may be gzip or zstd compressed.
    /// A drop-in for sacrebleu 2.6's command line on plain-text files: BLEU, chrF/chrF++ and
    /// TER, `--confidence`, `--paired-bs` and `--paired-ar`, printing what sacrebleu prints
    /// (JSON, text or LaTeX), from pairmetrics' kernels.
    ///
    /// `pairmetrics sacrebleu REF [REF ...] -i SYS [SYS ...] -m bleu chrf ter`. Without -i, the
    /// systems are read from standard input, tab-separated. Paired tests and --confidence draw
    /// sacrebleu's resamples (numpy's default_rng seeded with SACREBLEU_SEED, 12345 by default),
    /// so they print sacrebleu's p-values, means and intervals; SACREBLEU_FORMAT overrides -f.
    /// sacrebleu's short options (-sl, -tok, -lc, -cc, -cw, -ci, -cin, -par, -pbs, -parn,
    /// -pbsn, -sh, -nc, -nr, -sv) work too. Not here: sacrebleu's test sets (-t, -l, --echo,
    /// downloads) and BLEU's ja-mecab, ko-mecab, spm and flores tokenizers. See
    /// docs/guide/sacrebleu.md.
    Sacrebleu {
        /// Reference files, one segment a line (several: several references a segment).
        refs: Vec<PathBuf>,
        /// System output files (the first is the baseline of a paired test).
        #[arg(short = 'i', long = "input", num_args = 1..)]
        input: Option<Vec<PathBuf>>,
        /// Split each line of the one reference file on tabs into this many references.
        #[arg(long = "num-refs", default_value_t = 1)]
        num_refs: usize,
        /// Metrics to compute.
        #[arg(short = 'm', long = "metrics", num_args = 1.., default_values = ["bleu"], value_parser = ["bleu", "chrf", "ter"])]
        metrics: Vec<String>,
        /// Score each sentence (one system, one metric).
        #[arg(long = "sentence-level")]
        sentence_level: bool,
        /// BLEU smoothing: exp, floor, add-k or none.
        #[arg(short = 's', long = "smooth-method", default_value = "exp", value_parser = ["exp", "floor", "add-k", "none"])]
        smooth_method: String,
        /// BLEU smoothing value for floor (0.1) and add-k (1).
        #[arg(long = "smooth-value")]
        smooth_value: Option<f64>,
        /// BLEU tokenizer: 13a (default), intl, zh, char or none.
        #[arg(long = "tokenize")]
        tokenize: Option<String>,
        /// BLEU: ignore case.
        #[arg(long = "lowercase")]
        lowercase: bool,
        /// BLEU: accept tokenized-looking input (accepted; pairmetrics never warns).
        #[arg(long = "force")]
        force: bool,
        /// chrF character n-gram order.
        #[arg(long = "chrf-char-order", default_value_t = 6)]
        chrf_char_order: usize,
        /// chrF word n-gram order (2: chrF++).
        #[arg(long = "chrf-word-order", default_value_t = 0)]
        chrf_word_order: usize,
        /// chrF: recall weighs beta times precision.
        #[arg(long = "chrf-beta", default_value_t = 2)]
        chrf_beta: u32,
        /// chrF: keep whitespace in character n-grams.
        #[arg(long = "chrf-whitespace")]
        chrf_whitespace: bool,
        /// chrF: ignore case.
        #[arg(long = "chrf-lowercase")]
        chrf_lowercase: bool,
        /// chrF: eps smoothing instead of effective order.
        #[arg(long = "chrf-eps-smoothing")]
        chrf_eps_smoothing: bool,
        /// TER: keep case.
        #[arg(long = "ter-case-sensitive")]
        ter_case_sensitive: bool,
        /// TER: treat Asian characters specially.
        #[arg(long = "ter-asian-support")]
        ter_asian_support: bool,
        /// TER: remove punctuation.
        #[arg(long = "ter-no-punct")]
        ter_no_punct: bool,
        /// TER: Tercom's normalisation and tokenisation.
        #[arg(long = "ter-normalized")]
        ter_normalized: bool,
        /// One system: a 95% confidence interval by bootstrap resampling.
        #[arg(long = "confidence")]
        confidence: bool,
        /// Bootstrap resamples for --confidence.
        #[arg(long = "confidence-n", default_value_t = 1000)]
        confidence_n: usize,
        /// Paired approximate randomisation test of each system against the first.
        #[arg(long = "paired-ar")]
        paired_ar: bool,
        /// Paired bootstrap resampling test of each system against the first.
        #[arg(long = "paired-bs")]
        paired_bs: bool,
        /// Trials of --paired-ar.
        #[arg(
            long = "paired-ar-n",
            default_value_t = 10000,
            allow_negative_numbers = true
        )]
        paired_ar_n: i64,
        /// Resamples of --paired-bs.
        #[arg(
            long = "paired-bs-n",
            default_value_t = 1000,
            allow_negative_numbers = true
        )]
        paired_bs_n: i64,
        /// Worker processes in sacrebleu; pairmetrics uses every core (accepted, ignored).
        #[arg(short = 'j', long = "paired-jobs", default_value_t = 1)]
        paired_jobs: i64,
        /// Log nothing (pairmetrics logs nothing anyway).
        #[arg(short = 'q', long = "quiet")]
        quiet: bool,
        /// Shorter signatures.
        #[arg(long = "short")]
        short: bool,
        /// Print only the score.
        #[arg(short = 'b', long = "score-only")]
        score_only: bool,
        /// Digits after the decimal point.
        #[arg(short = 'w', long = "width", default_value_t = 1)]
        width: usize,
        /// No colours (pairmetrics prints none: sacrebleu's appear only on a terminal).
        #[arg(long = "no-color")]
        no_color: bool,
        /// Output format: json (one system), text or latex (several).
        #[arg(short = 'f', long = "format", value_enum, default_value = "json")]
        format: sacrebleu::Format,
        /// Text encoding of the files (UTF-8 only).
        #[arg(short = 'e', long = "encoding", default_value = "utf-8")]
        encoding: String,
    },
    Lepod {
        /// The alignment file produced by the METEOR aligner (Matcher output).
        #[arg(short = 'a', long = "alignment", value_name = "ALIGN")]
        alignment: PathBuf,
        /// The two files of sentences to compare, one tokenised sentence per line.
        #[arg(short = 'f', long = "file", num_args = 2, value_names = ["F1", "F2"], required = true)]
        files: Vec<PathBuf>,
        /// Number of digits to the right of the decimal point.
        #[arg(short = 'd', long = "digits", default_value_t = 3)]
        digits: usize,
        /// Exclude these punctuation characters from the alignment (PoD).
        #[arg(short = 'p', long = "punctuations", default_value = "")]
        punctuations: String,
        /// Compare lowercased sequences.
        #[arg(short = 'l', long)]
        lowercase: bool,
        /// Print scores for each pair.
        #[arg(short = 'v', long)]
        verbose: bool,
        /// Prefix of the output files PREFIX.led and PREFIX.pod.
        #[arg(short = 'r', long)]
        prefix: Option<String>,
        /// Only print the LeD and PoD scores.
        #[arg(short = 's', long)]
        simple: bool,
    },
    /// Extract and score a phrase table from word-aligned bitext, as Moses' `extract` and
    /// `score` do (the bilingual table `pivot` takes).
    ///
    /// Phrase pairs: every target span of at most --max-phrase-length tokens with a link,
    /// projected onto the source, kept when no word inside links outside, the source side
    /// widened over unaligned source words at its edges (Koehn et al. 2003). Scores: p(f|e) and
    /// p(e|f) by relative frequency; lex(f|e) and lex(e|f) from the word translation table of
    /// the same links (unaligned words with NULL), under each phrase pair's most frequent
    /// internal alignment. src is f, tgt is e. The output is a phrase_table (see
    /// schemas/phrase_table.md) sorted by src, tgt, with the alignment and counts (c(e), c(f),
    /// c(f,e)). The word translation table is held in memory; the phrase pairs go through
    /// DataFusion plans that spill to disk (and a temporary file) under --memory-limit (512 MiB
    /// is plenty; a very small limit can fail in the final merge). Pairs without an alignment
    /// row, with a link outside the sentences or a NULL are skipped and counted.
    Extract {
        /// Pairs table (pair_id, src, tgt).
        #[arg(long)]
        pairs: PathBuf,
        /// Alignments table (pair_id, links: src-tgt, 0-based), e.g. from `import pharaoh`.
        #[arg(long)]
        alignments: PathBuf,
        /// Output phrase_table.
        #[arg(long)]
        out: PathBuf,
        /// The longest phrase on either side, in tokens (Moses' default, 7; at most 255).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..=255))]
        max_phrase_length: u16,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// Write our tables in other tools' text formats.
    #[command(subcommand)]
    Export(ExportCommand),
    /// The n-best study of Chevelu et al. (2010, §3.3, Figure 1): does the decoder rank its
    /// n-best paraphrases as their true model scores do?
    ///
    /// Every hypothesis gets its true model score: alpha_phi * true_score (the best derivation
    /// under --phrase-table) + alpha_lm * ln P(hypothesis) (with --lm; its log10 times ln 10).
    /// Each list is re-ranked by it (ties keep decoder order). For each n of --sizes, the lists
    /// with at least n hypotheses (shorter ones are dropped, as in the paper) are cut to their
    /// first n, and over them: mean and sample standard deviation of Kendall tau_A between
    /// decoder order and true order; the share of hypotheses whose score changed (true model
    /// score and decoder total differ by more than --tolerance); the share of lists whose
    /// decoder 1-best is no longer the best; the mean ± std 1-based rank of the old top after
    /// re-ranking and of the new top before it, over all lists and over the changed ones only.
    /// Hypotheses no derivation reaches (NULL true score) are left out and counted.
    ///
    /// Writes a new directory: hypotheses.parquet (id, rank, hyp, total, true_score,
    /// model_score, score_changed, true_rank), sizes.parquet (one row per n) and tau_a.svg
    /// (Figure 1: mean tau_A ± std against n), staged and renamed when complete.
    Rerank {
        /// The n-best lists: an nbest table (see schemas/nbest.md; `import moses-nbest`).
        #[arg(long)]
        nbest: PathBuf,
        /// The source sentences: a pairs table whose pair_id is the n-best id and src the
        /// sentence (e.g. `import text --src input.txt --tgt input.txt`).
        #[arg(long)]
        sources: PathBuf,
        /// The decoder's paraphrase table and language model.
        #[command(flatten)]
        model: ModelArgs,
        /// n-best sizes, comma-separated, each at least 2 (default 5, 10, ..., 100).
        #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
        sizes: Vec<usize>,
        /// A score counts as changed when |true model score - decoder total| exceeds this
        /// (Moses prints totals rounded).
        #[arg(long, default_value_t = 1e-4)]
        tolerance: f64,
        /// Output directory (must not exist).
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// Generate paraphrases with MCPG, the Monte-Carlo paraphrase generator (Chevelu et al.
    /// 2009) as Chevelu et al. (Coling 2010, §4) run it.
    ///
    /// Rules of the phrase table are applied to disjoint spans of each sentence, in place, as
    /// moves of a one-player game searched by UCT (UCB1-tuned, RAVE, random roll-outs,
    /// max-reward backup); after --episodes episodes the root moves to its best child. In
    /// true-score mode any changed sentence may end the game and its reward is the paper's model
    /// score: alpha_phi * true score (its best derivation) + alpha_lm * ln P(sentence). In
    /// translator mode, as a decoder, the game ends only once every source word is rewritten
    /// or may be kept for free, and the reward scores the derivation played. The source itself
    /// is never a paraphrase. Seeded: the same sentence, table, model and options give the same
    /// output, wherever the sentence is in the input. Sentences run in parallel. See
    /// docs/mcpg.md for every choice the papers leave open.
    ///
    /// Prints Moses n-best lines (`id ||| paraphrase ||| phrase= X lm= Y ||| reward`, ids
    /// 0-based, best first), which `import moses-nbest` and `rerank` read; --out writes a
    /// table instead (id, rank, paraphrase, tokens, reward, model_score, true_score, lm_log10,
    /// rules; a sentence without a paraphrase gets one row with NULLs and a `problem`).
    Paraphrase {
        /// The sentences: a text file (one tokenised sentence per line; gzip or zstd too) or a
        /// Parquet file or directory (see --column; ids from its pair_id, else the row).
        input: PathBuf,
        /// The Parquet column holding the sentences: tokens (List<Utf8>) or text.
        #[arg(long, default_value = "src")]
        column: String,
        #[command(flatten)]
        model: ModelArgs,
        /// What the search maximises: true-score or translator.
        #[arg(long, default_value = "true-score", value_parser = clap::builder::PossibleValuesParser::new(Mode::NAMES))]
        mode: String,
        /// Episodes from each root before the root moves (eta).
        #[arg(long, default_value_t = mcpg::DEFAULT_EPISODES)]
        episodes: u64,
        /// Paraphrases per sentence, best first.
        #[arg(long, default_value_t = 1)]
        nbest: usize,
        /// Seed of the random roll-outs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// At most this many rules per source phrase, the most probable (Moses' table limit;
        /// 0 keeps all).
        #[arg(long, default_value_t = mcpg::DEFAULT_RULES_PER_PHRASE)]
        rules_per_phrase: usize,
        /// Write a Parquet table (atomically) instead of n-best lines.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// Worker threads (default: the number of cores).
        #[arg(long, value_name = "N", value_parser = at_least_one)]
        threads: Option<usize>,
    },
    /// Build a paraphrase table from a bilingual phrase_table by pivoting (Bannard &
    /// Callison-Burch 2005): p(f2|f1) = sum over pivot phrases e of p(f2|e) p(e|f1).
    ///
    /// The input's src is f and tgt the pivot e (p_f_e = p(f|e), p_e_f = p(e|f), as Moses
    /// writes them). The output is a phrase_table of f -> f paraphrases with p_e_f = p(f2|f1)
    /// and p_f_e = p(f1|f2), lexical weights NULL, sorted by src then probability. It runs as one
    /// DataFusion plan (self-join, GROUP BY, window), spilling to disk under --memory-limit.
    Pivot {
        /// The bilingual phrase_table (Parquet file or directory).
        #[arg(long)]
        table: PathBuf,
        /// Output paraphrase phrase_table.
        #[arg(long)]
        out: PathBuf,
        /// E: drop per-pivot products p(f2|e) p(e|f1) below this.
        #[arg(long, default_value_t = 1e-5)]
        min_product: f64,
        /// tau: drop pivot phrases shared by more source phrases than this.
        #[arg(long, default_value_t = 200)]
        max_cluster: u64,
        /// kappa: keep this many most probable paraphrases per source phrase.
        #[arg(long, default_value_t = 20)]
        keep: u64,
        /// Leave out (f, f) pairs (kept by default).
        #[arg(long)]
        no_self_pairs: bool,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// Count dependency triples (head, dependent, deprel) over a parsed corpus, at the `form`
    /// and `upos` levels, into a triples table (see schemas/triples.md) for dep_fit.
    ///
    /// One DataFusion aggregation (spilling to disk under --memory-limit), output sorted by
    /// level, head, dep, deprel. Root arcs are not counted; a parse whose lengths differ from
    /// its sentence's, or with a head out of range, is skipped at the form level and counted in
    /// the summary. The upos level reads the arcs table alone (its optional {side}_upos
    /// column), so it needs the tags and the parse to agree, not the sentence.
    Triples {
        /// Pairs table (pair_id, src, tgt): the word forms.
        #[arg(long)]
        pairs: PathBuf,
        /// Arcs table: the parses ({side}_head, {side}_deprel, {side}_upos).
        #[arg(long)]
        arcs: PathBuf,
        /// Which side of the pairs to count.
        #[arg(long, value_enum, default_value = "tgt")]
        side: triples::Side,
        /// Output triples table.
        #[arg(long)]
        out: PathBuf,
        /// Lowercase the word forms (then pass lowercased tokens to dep_fit).
        #[arg(long)]
        lowercase: bool,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// Is system B really better than A? Compare scored outputs over the same pairs.
    ///
    /// The first file is the baseline; every other is compared with it, metric by metric: each
    /// system's mean with a percentile bootstrap interval, the delta (system - baseline) with its
    /// interval, and two p-values: sacrebleu's paired bootstrap and its paired approximate
    /// randomization (equal means give p = 1). The files must hold the same pair_ids, each once;
    /// a pair a system did not score (NULL) is left out of its figures. Every figure is also a
    /// SQL aggregate (bootstrap_ci, paired_bootstrap, approx_randomization); the resampling is a
    /// Poisson bootstrap seeded by --seed, so the same inputs give the same figures. See
    /// docs/significance.md.
    Compare {
        /// Scored Parquet files (`score` output, or any table with pair_id and numeric columns):
        /// the baseline first.
        #[arg(required = true, num_args = 2.., value_name = "SCORED")]
        files: Vec<PathBuf>,
        /// Columns to compare (default: every score column `score` writes that all files have).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
        metrics: Option<Vec<String>>,
        #[command(flatten)]
        significance: SignificanceArgs,
        /// How to print the result.
        #[arg(long, value_enum, default_value = "table")]
        format: CompareFormat,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// Print one pair of a table for a quick look: its sentences with numbered tokens, its
    /// alignment as word pairs with the words left unaligned, and every other column's value
    /// (the metrics, and why a metric is NULL).
    Show {
        /// A Parquet table with pair_id (`score` output, a pairs table, ...).
        table: PathBuf,
        /// The pair to show.
        #[arg(long)]
        pair_id: i64,
        /// An alignments table whose links to draw (a `links` column of the table is drawn too).
        #[arg(long)]
        alignments: Option<PathBuf>,
    },
    /// Write one self-contained HTML page about scored tables: histograms, densities, the
    /// pairs drawn.
    ///
    /// For each metric: its mean with a bootstrap interval and a histogram; LeD against PoD
    /// (and PoD against DERP) as binned densities; why rows have no score; and the most
    /// reordered and most changed pairs drawn as the LePoD paper draws them (the tokens LeD
    /// does not keep, the aligned units, PoD's segments) with DERP's spanning tree. Give
    /// several tables (the baseline first) for a comparison: compare's table, the histograms
    /// overlaid, and the pairs where each system differs most, side by side. Pairs are drawn
    /// with the alignments and arcs `score` read (recorded in the table) unless given here.
    /// The page has no script and loads nothing; its size does not grow with the tables.
    Report {
        /// Scored Parquet files (`score` output): the baseline first.
        #[arg(required = true, value_name = "SCORED")]
        files: Vec<PathBuf>,
        /// Where to write the page.
        #[arg(long, default_value = "report.html")]
        out: PathBuf,
        /// Alignments to draw the pairs with, once per table in order (default: those the
        /// table was scored with).
        #[arg(long)]
        alignments: Vec<PathBuf>,
        /// Arcs (dependency parses) for DERP's trees, once per table in order (default: those
        /// the table was scored with).
        #[arg(long)]
        arcs: Vec<PathBuf>,
        /// Pairs drawn in each list.
        #[arg(long, default_value_t = 5)]
        pairs: usize,
        #[command(flatten)]
        significance: SignificanceArgs,
        #[command(flatten)]
        tuning: TuningArgs,
    },
    /// SemEval-2014 Task 5's official scorer: a run against the gold, as `evaluation.py` 2.1.
    ///
    /// Prints `Accuracy Word-Accuracy Recall` and the three figures exactly as the official
    /// scorer prints them (the published results were made with `-I`, and `-I -a` for
    /// out-of-five). Its rules, some not in the task's description: fragments are compared as
    /// their tokens joined without a separator; tokens that are substrings of `,;.?¿¡!` are
    /// removed; for Spanish, `de el`/`a el` are contracted first; the best of the answer (and its
    /// `<alt>`s, with -a) against the reference and its alternatives counts; sentences are
    /// paired in file order, an output sentence whose id is not the reference's is skipped once,
    /// and scoring stops when either file ends. See docs/semeval2014t5.md.
    SemevalEval {
        /// The gold file (e.g. `en-es.gold.tokenised.xml`).
        #[arg(long = "ref", value_name = "GOLD.xml")]
        reference: PathBuf,
        /// The system's run file.
        #[arg(long = "out", value_name = "RUN.xml")]
        run: PathBuf,
        /// Compare without regard to case.
        #[arg(short = 'i')]
        ignore_case: bool,
        /// Out of five: the answer and up to four `<alt>` alternatives; the best counts.
        #[arg(short = 'a')]
        out_of_five: bool,
        /// Score sentences whose input differs from the gold's (how the official results were made).
        #[arg(short = 'I')]
        ignore_input_mismatch: bool,
        /// Stem every token first with the Snowball stemmer of this language (english, german,
        /// spanish, dutch, ...), lowercased as NLTK's stemmer does.
        #[arg(short = 'S', value_name = "LANG")]
        stem: Option<String>,
        /// Write the figures after each fragment (the official `.persentence.score`) as Parquet.
        #[arg(long, value_name = "PATH")]
        per_sentence: Option<PathBuf>,
    },
    /// The IUCL L2 writing assistant (SemEval-2014 Task 5): translate each L1 fragment of a task
    /// file in its L2 sentence and write a run file for the official scorer.
    ///
    /// Candidates per fragment, in back-off order: the phrase table's translations; synthetic
    /// phrases built from its pieces; the --dictionary's entries; the fragment itself. Each
    /// candidate is spliced into its sentence and gets the features lm (log10 of the whole
    /// sentence), direct and inverse (log10 p(tgt|src), p(src|tgt)), pmi_lex and pmi_pos (its
    /// dependency fitness at form and UPOS level in a parse of the sentence: from --parses when
    /// they hold that sentence, else projected from the input's parse). A missing feature counts
    /// 0. Candidates are ranked by loglinear(weights, features): --weights from `tune`, or every
    /// weight 1. See docs/l2-assist.md.
    L2Assist {
        #[command(flatten)]
        assist: AssistArgs,
        /// Weights from `pairmetrics tune` (JSON); default: every weight 1.
        #[arg(long, value_name = "W.json")]
        weights: Option<PathBuf>,
        /// The run file to write (XML, written under a temporary name, renamed when complete).
        #[arg(long, value_name = "RUN.xml")]
        out: PathBuf,
        /// Out of five: also write the next four candidates as `<alt>`s (score with -a).
        #[arg(long)]
        out_of_five: bool,
        /// Also write every candidate, its features, score, rank and (with references) word
        /// accuracy as a Parquet table, for SQL and for `tune --candidates`.
        #[arg(long, value_name = "PATH")]
        table: Option<PathBuf>,
    },
    /// Train l2-assist's weights by MERT (Och 2003): the weights whose first-ranked candidates
    /// have the highest mean word accuracy on a dev set (or the highest mean of any metric column
    /// of a candidates table).
    ///
    /// Exact line search along each feature's axis (and --random-directions), from every weight
    /// 1 and from --restarts random starting points, seeded. Writes the weights as JSON with
    /// their signature; prints the dev figure before and after.
    Tune {
        /// A dev task file with references (a trial or gold file): its candidates are made as
        /// l2-assist makes them, with the same resource options.
        #[arg(
            long,
            value_name = "DEV.xml",
            required_unless_present = "candidates",
            conflicts_with = "candidates"
        )]
        dev: Option<PathBuf>,
        #[command(flatten)]
        assist: AssistArgs,
        /// Tune on a candidates table instead (`l2-assist --table`, or any table with pair_id,
        /// the feature columns and the --metric column; a pair_id's rows are one list).
        #[arg(long, value_name = "PATH")]
        candidates: Option<PathBuf>,
        /// The metric column maximised (with --candidates; --dev tunes word_accuracy).
        #[arg(long, default_value = "word_accuracy", requires = "candidates")]
        metric: String,
        /// The features tuned, comma-separated; the others weigh 0.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "lm,direct,inverse,pmi_lex,pmi_pos"
        )]
        features: Vec<String>,
        /// Random starting points besides all-ones.
        #[arg(long, default_value_t = mert::MertOptions::default().restarts)]
        restarts: usize,
        /// Random directions per iteration besides the feature axes.
        #[arg(long, default_value_t = 0)]
        random_directions: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Where to write the weights (JSON).
        #[arg(long, value_name = "W.json")]
        out: PathBuf,
    },
    /// Score the bundled Europarl sample (3,000 fr-en pairs) and print a short SQL tour.
    Demo {
        /// Directory with pairs.parquet and alignments.parquet.
        #[arg(long, default_value_os_t = demo::default_data_dir())]
        data: PathBuf,
        /// Where to write the scored table (default: a file in the system's temp directory).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// How `compare` and `report` test significance.
#[derive(Debug, Clone, clap::Args)]
struct SignificanceArgs {
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
    fn options(self, metrics: Option<Vec<String>>) -> compare::CompareOptions {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CompareFormat {
    /// A text table, a row per metric and system.
    Table,
    /// One JSON document.
    Json,
}

/// METEOR 1.5 aligner options, with Matcher's own short flags (`align`; in `sql` and `score`
/// they set how meteor_align aligns).
#[derive(clap::Args, Clone)]
#[command(next_help_heading = "METEOR aligner (align, meteor_align, score --align)")]
struct AlignerArgs {
    /// Language (Matcher's -l): en da de es fi fr hu it nl no pt ro ru se tr. English synonyms
    /// are built in; other languages need --syn-dir for the synonym module.
    #[arg(short = 'l', long = "lang", default_value = "en")]
    lang: String,
    /// Modules, in order (Matcher's -m), e.g. 'exact stem synonym paraphrase'. Default: exact
    /// stem synonym, then paraphrase when --para is given.
    #[arg(short = 'm', long = "modules", value_name = "MODULES")]
    modules: Option<String>,
    /// Beam size of the alignment search (Matcher's -x).
    #[arg(short = 'x', long = "beam", default_value_t = 40)]
    beam: usize,
    /// Alignment type (Matcher's -t): maxcov or maxacc.
    #[arg(short = 't', long = "type", default_value = "maxcov")]
    objective: String,
    /// Stem lookup table instead of the Snowball stemmer (Matcher's -e): lines `word count stem`.
    #[arg(short = 'e', long = "stem-table", value_name = "PATH")]
    stem_table: Option<PathBuf>,
    /// Directory with LANGUAGE.synsets and LANGUAGE.exceptions in METEOR's format (Matcher's -d).
    #[arg(short = 'd', long = "syn-dir", value_name = "DIR")]
    syn_dir: Option<PathBuf>,
    /// Paraphrase table in METEOR's format, gzip or plain (Matcher's -a).
    #[arg(short = 'a', long = "para", value_name = "PATH")]
    para: Option<PathBuf>,
}

impl AlignerArgs {
    fn options(self) -> Result<AlignerOptions> {
        Ok(AlignerOptions {
            language: self.lang,
            modules: self
                .modules
                .as_deref()
                .map(Module::parse_list)
                .transpose()?,
            beam: self.beam,
            objective: Objective::parse(&self.objective)?,
            stem_file: self.stem_table,
            synonym_dir: self.syn_dir,
            paraphrase_file: self.para,
        })
    }
}

/// How DataFusion runs the job.
#[derive(clap::Args)]
struct TuningArgs {
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
struct ResourceArgs {
    /// A phrase_table (Parquet file or directory, see schemas/phrase_table.md; make one with
    /// `import moses-phrase-table`) for true_score, true_score_detail and synthetic_phrases.
    #[arg(long, value_name = "PATH")]
    phrase_table: Option<PathBuf>,
    /// Which column is the rule probability: p_f_e (P(src|tgt)), p_e_f, lex_f_e or lex_e_f.
    #[arg(long, default_value = resources::DEFAULT_PROB_COLUMN, requires = "phrase_table")]
    prob_column: String,
    /// Keep unchanged words for free even when the table has a `w -> w` rule (by default such a
    /// rule's probability applies).
    #[arg(long, requires = "phrase_table")]
    free_identity: bool,
    /// A triples table (see schemas/triples.md; make one with `pairmetrics triples` or `import
    /// syntactic-ngrams`) for dep_fit, dep_fit_pos and their _iucl variants.
    #[arg(long, value_name = "PATH")]
    triples: Option<PathBuf>,
    /// An ARPA back-off language model (plain, .gz or .zst) for lm_logprob, lm_full_scores,
    /// lm_perplexity and lm_oov_count.
    #[arg(long, value_name = "PATH")]
    lm: Option<PathBuf>,
    #[command(flatten)]
    aligner: AlignerArgs,
}

impl ResourceArgs {
    fn options(self) -> Result<resources::ResourceOptions> {
        let phrase_table = self
            .phrase_table
            .map(|path| phrase_table_options(path, self.prob_column, self.free_identity));
        Ok(resources::ResourceOptions {
            phrase_table,
            triples: self.triples,
            lm: self.lm,
            aligner: self.aligner.options()?,
        })
    }
}

/// What l2-assist and tune make candidates and features with.
#[derive(clap::Args)]
struct AssistArgs {
    /// The task file (test data, or trial/gold data: then each candidate's word accuracy
    /// against the reference is known).
    #[arg(long, value_name = "FILE.xml", required = false)]
    input: Option<PathBuf>,
    /// The phrase table translating L1 fragments (src = L1, tgt = L2).
    #[arg(long, value_name = "PATH")]
    phrase_table: Option<PathBuf>,
    /// A bilingual dictionary (Parquet: src, tgt as text or token lists, optional p) for
    /// fragments the phrase table cannot translate; uniform probabilities where p is absent.
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
    /// Fitness as the IUCL code computes it (no factor 2, mean over distinct arcs).
    #[arg(long)]
    iucl_formula: bool,
}

impl AssistArgs {
    fn options(self, input: PathBuf) -> l2_assist::AssistOptions {
        let phrase_table = self
            .phrase_table
            .map(|path| phrase_table_options(path, resources::DEFAULT_PROB_COLUMN.into(), false));
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
            max_candidates: self.max_candidates,
            formula: if self.iucl_formula {
                Formula::Iucl
            } else {
                Formula::Paper
            },
        }
    }
}

/// How true_score reads a phrase table, from the flags `sql`, `score` and `rerank` share.
fn phrase_table_options(
    path: PathBuf,
    prob_column: String,
    free_identity: bool,
) -> resources::PhraseTableOptions {
    let identity = if free_identity {
        Identity::Always
    } else {
        Identity::UnlessInTable
    };
    resources::PhraseTableOptions {
        path,
        prob_column,
        identity,
    }
}

/// A count that must be positive (rows per batch, partitions, threads, MiB): 0 would mean
/// nothing sensible, and some would be taken as 1 and run slowly without a word.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Worker threads when not told: one per core.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The paper's model (Chevelu et al. 2010): a paraphrase table, optionally a language model,
/// and their weights in alpha_phi * phrase score + alpha_lm * ln P.
#[derive(clap::Args)]
struct ModelArgs {
    /// The paraphrase table (a phrase_table, e.g. from `pivot` or `import moses-phrase-table`).
    #[arg(long, value_name = "PATH")]
    phrase_table: PathBuf,
    /// Which column is the rule probability: p_f_e (P(src|tgt)), p_e_f, lex_f_e or lex_e_f.
    #[arg(long, default_value = resources::DEFAULT_PROB_COLUMN)]
    prob_column: String,
    /// Keep unchanged words for free even when the table has a `w -> w` rule.
    #[arg(long)]
    free_identity: bool,
    /// A language model (ARPA, plain, .gz or .zst); without it the model score is
    /// alpha_phi * the phrase-table score alone.
    #[arg(long, value_name = "PATH")]
    lm: Option<PathBuf>,
    /// Weight of the phrase-table score (the true score).
    #[arg(long, default_value_t = 1.0)]
    alpha_phi: f64,
    /// Weight of ln P(sentence) (the LM's log10 times ln 10).
    #[arg(long, default_value_t = 1.0, requires = "lm")]
    alpha_lm: f64,
}

impl ModelArgs {
    fn phrase_table(&self) -> resources::PhraseTableOptions {
        phrase_table_options(
            self.phrase_table.clone(),
            self.prob_column.clone(),
            self.free_identity,
        )
    }

    fn weights(&self) -> ModelWeights {
        ModelWeights {
            phrase: self.alpha_phi,
            lm: self.alpha_lm,
        }
    }
}

#[derive(Subcommand)]
enum ExportCommand {
    /// A phrase_table (from `extract`, `pivot` or `import moses-phrase-table`) as a Moses phrase
    /// table: `src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f) [more] ||| alignment ||| counts`,
    /// one rule per line in table order, numbers in shortest round-trip form, so `import
    /// moses-phrase-table` reads back the same table. Missing lexical weights (a pivoted table
    /// has none) are written as 1, which Moses' log-linear model ignores (log 1 = 0), and
    /// counted.
    MosesPhraseTable {
        /// The phrase_table (Parquet file or directory).
        #[arg(long)]
        table: PathBuf,
        /// Output text file (written under a temporary name, renamed when complete).
        #[arg(long)]
        out: PathBuf,
    },
    /// A fragments table as a SemEval-2014 Task 5 run file for the official scorer (and
    /// `semeval-eval`): per sentence its `<input>` and an `<output>` where each fragment holds
    /// the row's answer and up to four `<alt>`s (out-of-five). Rows in pair_id order; rows of
    /// one sentence (same sentence_id and input) become one sentence's fragments. Words are
    /// joined by single spaces: a gold file whose text has other spacing compares equal only
    /// under the scorer's -I (how the task's official results were computed).
    Semeval2014t5 {
        /// A fragments table (`import semeval2014t5`, or a table with its columns and an answer
        /// column, like `l2-assist --table`'s).
        #[arg(long)]
        table: PathBuf,
        /// Output XML file (written under a temporary name, renamed when complete).
        #[arg(long)]
        out: PathBuf,
        /// The answer column (a token list; NULL leaves a fragment unanswered).
        #[arg(long, default_value = "output_fragment")]
        answer: String,
        /// The alternatives column (a list of token lists). Defaults to output_alternatives
        /// when --answer is output_fragment, else none.
        #[arg(long)]
        alternatives: Option<String>,
        /// Write no alternatives (a best run), whatever the table holds.
        #[arg(long, conflicts_with = "alternatives")]
        best_only: bool,
    },
}

#[derive(Subcommand)]
enum ImportCommand {
    /// Parallel line-aligned files (Moses style) into a pairs table; tokens split on whitespace.
    Text {
        /// First sentences (src), one per line.
        #[arg(long)]
        src: PathBuf,
        /// Second sentences (tgt), one per line; must have as many lines as --src.
        #[arg(long)]
        tgt: PathBuf,
        /// Output pairs table.
        #[arg(long)]
        out: PathBuf,
        /// Lowercase the tokens.
        #[arg(long)]
        lowercase: bool,
    },
    /// Pharaoh `i-j` links (fast_align, eflomal, awesome-align, Moses symmetrisation) into an
    /// alignments table; a malformed line is an error.
    Pharaoh {
        #[arg(long)]
        alignments: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// METEOR 1.5 Matcher output into an alignments table; a phrase match becomes the links of
    /// one unit (every token of one span linked to every token of the other), and each link
    /// names its module (Matcher prints the module's index in its -m list).
    Meteor {
        #[arg(long)]
        alignments: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// The -m list the file was aligned with, to name the modules by index.
        #[arg(
            long,
            value_name = "MODULES",
            default_value = "exact stem synonym paraphrase"
        )]
        modules: String,
    },
    /// Two CoNLL-U files (one sentence per pair, in order) into an arcs table. Multiword-token
    /// ranges and empty nodes are skipped; HEAD stays 1-based with 0 for the root.
    Conllu {
        #[arg(long)]
        src: PathBuf,
        #[arg(long)]
        tgt: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// A Moses phrase table (`src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f) [more] |||
    /// alignment ||| counts`) into a phrase_table (see schemas/phrase_table.md); a malformed
    /// line is an error naming it.
    MosesPhraseTable {
        /// The phrase-table file (plain, .gz or .zst).
        #[arg(long)]
        table: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Moses n-best lists (`id ||| hypothesis ||| features ||| total`) into an nbest table (see
    /// schemas/nbest.md) with each hypothesis' 0-based rank in its list.
    MosesNbest {
        /// The n-best file (plain, .gz or .zst).
        #[arg(long)]
        nbest: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// A SemEval-2014 Task 5 file (trial or test data, a gold file or a system's run) into a
    /// fragments table (see schemas/fragments.md): one row per fragment, with its sentence's
    /// input tokens and the fragment's span in them, and the reference's and the output's
    /// fragment of the same id (with their alternatives) when the file has them.
    Semeval2014t5 {
        /// The task's XML file (plain, .gz or .zst).
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Google Books Syntactic N-grams `arcs` (or `extended-arcs`) files (`head<TAB>w/pos/label/
    /// head-index ...<TAB>total<TAB>year,count...`) into a triples table (see
    /// schemas/triples.md): per arc of each line a `form` row and a `upos` row (its Penn
    /// Treebank tags mapped to Universal POS tags, for dep_fit_pos), the line's total as their
    /// count, root arcs left out.
    SyntacticNgrams {
        /// The files (plain, .gz or .zst), read in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Lowercase the words.
        #[arg(long)]
        lowercase: bool,
    },
}

impl ImportCommand {
    fn into_job(self) -> Result<(import::Source, PathBuf)> {
        use import::Source;
        Ok(match self {
            ImportCommand::Text {
                src,
                tgt,
                out,
                lowercase,
            } => (
                Source::Text {
                    src,
                    tgt,
                    lowercase,
                },
                out,
            ),
            ImportCommand::Pharaoh { alignments, out } => (Source::Pharaoh { alignments }, out),
            ImportCommand::Meteor {
                alignments,
                out,
                modules,
            } => (
                Source::Meteor {
                    alignments,
                    modules: Module::parse_list(&modules)?,
                },
                out,
            ),
            ImportCommand::Conllu { src, tgt, out } => (Source::Conllu { src, tgt }, out),
            ImportCommand::MosesPhraseTable { table, out } => {
                (Source::MosesPhraseTable { table }, out)
            }
            ImportCommand::MosesNbest { nbest, out } => (Source::MosesNbest { nbest }, out),
            ImportCommand::Semeval2014t5 { file, out } => (Source::Semeval2014t5 { file }, out),
            ImportCommand::SyntacticNgrams {
                files,
                out,
                lowercase,
            } => (Source::SyntacticNgrams { files, lowercase }, out),
        })
    }
}

/// `score --help`'s list of metrics, from the metric table.
fn metrics_help() -> String {
    let metrics: Vec<String> = score::METRICS
        .iter()
        .map(|m| {
            let opt_in = if m.by_default { "" } else { " (opt-in)" };
            format!("  {}{opt_in}: {}", m.name, m.about)
        })
        .collect();
    format!(
        "The metrics to compute, comma-separated. Default: every metric whose inputs are given, \
         except the opt-in ones. A metric named here without its inputs is an error.\n\n{}",
        metrics.join("\n")
    )
}

/// `score --align meteor[:MODULES]` on top of the aligner flags.
fn score_aligner(spec: &str, base: &AlignerOptions) -> Result<AlignerOptions> {
    let (name, modules) = spec.split_once(':').unwrap_or((spec, ""));
    if name != "meteor" {
        anyhow::bail!(
            "--align {spec}: the aligner is `meteor` (METEOR 1.5), as meteor or meteor:MODULES"
        );
    }
    let mut options = base.clone();
    if !modules.is_empty() {
        options.modules = Some(Module::parse_list(modules)?);
    }
    Ok(options)
}

fn parse_table(value: &str) -> Result<(String, PathBuf), String> {
    match value.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH, got `{value}`")),
    }
}

async fn run(cli: Cli) -> Result<()> {
    let stdout = &mut std::io::stdout().lock();
    match cli.command {
        Command::Score {
            pairs,
            alignments,
            align,
            arcs,
            out,
            layout,
            lowercase,
            punct,
            metrics,
            resources,
            tuning,
            compression,
            strict,
            explain,
            cluster,
        } => {
            let resources = resources.options()?;
            let align = align
                .map(|spec| score_aligner(&spec, &resources.aligner))
                .transpose()?;
            let options = score::ScoreOptions {
                pairs,
                alignments,
                align,
                arcs,
                out,
                layout: layout.into(),
                lowercase,
                punct,
                metrics,
                resources,
                tuning: tuning.into(),
                compression,
                strict,
                progress: std::io::stderr().is_terminal() && cluster.is_none(),
                cluster,
            };
            if explain {
                writeln!(stdout, "{}", score::explain(&options).await?)?;
            } else {
                let summary = score::score(&options).await?;
                writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
            }
        }
        Command::Sql {
            tables,
            sorted,
            format,
            out,
            layout,
            resources: wanted,
            tuning,
            cluster,
            query,
        } => {
            let (resources, loaded) = resources::load(&wanted.options()?).await?;
            for line in loaded {
                eprintln!("{line}");
            }
            let ctx = sql::context_on(
                &tables,
                &sorted,
                &resources,
                &tuning.into(),
                cluster.as_deref(),
            )
            .await?;
            sql::run(&ctx, &query, format, out.as_deref(), &layout.into(), stdout).await?;
            if let Some(out) = out {
                eprintln!("wrote {}", out.display());
            }
        }
        Command::Cluster(command) => run_cluster(command).await?,
        Command::Import(command) => {
            let (source, out) = command.into_job()?;
            let summary = import::import(&source, &out)?;
            writeln!(
                stdout,
                "wrote {}: {} rows in {:.2} s ({:.0} rows/s)",
                out.display(),
                summary.rows,
                summary.seconds,
                summary.rows as f64 / summary.seconds.max(1e-9)
            )?;
        }
        Command::Align {
            test,
            reference,
            aligner,
            out,
            threads,
        } => {
            let aligner = Aligner::new(aligner.options()?)?;
            let progress = std::io::stderr().is_terminal();
            let threads = threads.unwrap_or_else(cores);
            match out {
                Some(path) => {
                    let summary = align::run(
                        &test,
                        &reference,
                        &aligner,
                        threads,
                        align::Output::Parquet(&path),
                        progress,
                    )?;
                    let rate = summary.pairs as f64 / summary.seconds.max(1e-9);
                    writeln!(
                        stdout,
                        "wrote {}: {} pairs, {} links in {:.2} s ({rate:.0} pairs/s)",
                        path.display(),
                        summary.pairs,
                        summary.links,
                        summary.seconds
                    )?;
                }
                None => {
                    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *stdout);
                    align::run(
                        &test,
                        &reference,
                        &aligner,
                        threads,
                        align::Output::Matcher(&mut out),
                        progress,
                    )?;
                }
            }
        }
        Command::Sacrebleu {
            refs,
            input,
            num_refs,
            metrics,
            sentence_level,
            smooth_method,
            smooth_value,
            tokenize,
            lowercase,
            force: _,
            chrf_char_order,
            chrf_word_order,
            chrf_beta,
            chrf_whitespace,
            chrf_lowercase,
            chrf_eps_smoothing,
            ter_case_sensitive,
            ter_asian_support,
            ter_no_punct,
            ter_normalized,
            confidence,
            confidence_n,
            paired_ar,
            paired_bs,
            paired_ar_n,
            paired_bs_n,
            paired_jobs: _,
            quiet: _,
            short,
            score_only,
            width,
            no_color: _,
            format,
            encoding,
        } => {
            if !encoding.eq_ignore_ascii_case("utf-8") && !encoding.eq_ignore_ascii_case("utf8") {
                anyhow::bail!("--encoding {encoding}: pairmetrics sacrebleu reads UTF-8 only");
            }
            let format = match std::env::var("SACREBLEU_FORMAT")
                .map(|f| f.to_lowercase())
                .as_deref()
            {
                Ok("json") => sacrebleu::Format::Json,
                Ok("text") => sacrebleu::Format::Text,
                Ok("latex") => sacrebleu::Format::Latex,
                _ => format,
            };
            let options = sacrebleu::SacrebleuOptions {
                refs,
                inputs: input,
                num_refs,
                metrics,
                sentence_level,
                bleu: sacrebleu::BleuArgs {
                    smooth_method,
                    smooth_value,
                    tokenize,
                    lowercase,
                },
                chrf: pairmetrics::metrics::chrf::ChrfOptions {
                    char_order: chrf_char_order,
                    word_order: chrf_word_order,
                    beta: chrf_beta,
                    lowercase: chrf_lowercase,
                    whitespace: chrf_whitespace,
                    eps_smoothing: chrf_eps_smoothing,
                },
                ter: pairmetrics::metrics::ter::TerOptions {
                    normalized: ter_normalized,
                    no_punct: ter_no_punct,
                    asian_support: ter_asian_support,
                    case_sensitive: ter_case_sensitive,
                },
                confidence,
                confidence_n,
                paired_bs,
                paired_ar,
                paired_bs_n,
                paired_ar_n,
                short,
                score_only,
                width,
                format,
                seed: std::env::var("SACREBLEU_SEED").unwrap_or_else(|_| "12345".to_string()),
                threads: cores(),
            };
            let mut out = std::io::BufWriter::new(&mut *stdout);
            sacrebleu::run(&options, &mut std::io::stdin().lock(), &mut out)?;
            out.flush()?;
        }
        Command::Lepod {
            alignment,
            files,
            digits,
            punctuations,
            lowercase,
            verbose,
            prefix,
            simple,
        } => {
            let [f1, f2]: [PathBuf; 2] = files.try_into().expect("clap takes two files");
            let options = lepod::LepodOptions {
                alignment,
                files: [f1, f2],
                digits,
                punctuations,
                lowercase,
                verbose,
                prefix,
                simple,
                threads: cores(),
            };
            let mut out = std::io::BufWriter::new(&mut *stdout);
            lepod::run(&options, &mut out, &mut std::io::stderr())?;
            out.flush()?;
        }
        Command::Pivot {
            table,
            out,
            min_product,
            max_cluster,
            keep,
            no_self_pairs,
            tuning,
        } => {
            let options = pivot::PivotOptions {
                table,
                out,
                min_product,
                max_cluster,
                keep,
                self_pairs: !no_self_pairs,
                tuning: tuning.into(),
            };
            let summary = pivot::pivot(&options).await?;
            writeln!(
                stdout,
                "wrote {}: {} paraphrase rules\nsignature: {}",
                options.out.display(),
                summary.rows,
                summary.signature
            )?;
        }
        Command::Rerank {
            nbest,
            sources,
            model,
            sizes,
            tolerance,
            out,
            tuning,
        } => {
            let options = rerank::RerankOptions {
                nbest,
                sources,
                phrase_table: model.phrase_table(),
                weights: model.weights(),
                lm: model.lm,
                sizes: if sizes.is_empty() {
                    rerank::default_sizes()
                } else {
                    sizes
                },
                tolerance,
                out,
                tuning: tuning.into(),
            };
            let (summary, loaded) = rerank::rerank(&options).await?;
            for line in loaded {
                eprintln!("{line}");
            }
            writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        }
        Command::Paraphrase {
            input,
            column,
            model,
            mode,
            episodes,
            nbest,
            seed,
            rules_per_phrase,
            out,
            threads,
        } => {
            let options = paraphrase::ParaphraseOptions {
                input,
                column,
                phrase_table: model.phrase_table(),
                mcpg: mcpg::Options {
                    mode: Mode::parse(&mode).expect("clap checked it"),
                    episodes,
                    nbest,
                    seed,
                    weights: model.weights(),
                    rules_per_phrase,
                },
                lm: model.lm,
                out,
                threads: threads.unwrap_or_else(cores),
                progress: std::io::stderr().is_terminal(),
            };
            let (summary, loaded) = paraphrase::paraphrase(&options, &mut *stdout).await?;
            for line in loaded {
                eprintln!("{line}");
            }
            match &options.out {
                Some(out) => writeln!(stdout, "wrote {}\n{summary}", out.display())?,
                None => eprintln!("{summary}"),
            }
        }
        Command::Extract {
            pairs,
            alignments,
            out,
            max_phrase_length,
            tuning,
        } => {
            let options = extract::ExtractOptions {
                pairs,
                alignments,
                out,
                max_length: max_phrase_length.into(),
                tuning: tuning.into(),
            };
            let summary = extract::extract(&options).await?;
            writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        }
        Command::Export(ExportCommand::MosesPhraseTable { table, out }) => {
            let summary = export::moses_phrase_table(&table, &out).await?;
            writeln!(stdout, "wrote {}: {} rules", out.display(), summary.rows)?;
            if summary.missing_lexical_weights > 0 {
                eprintln!(
                    "note: {} rules had no lexical weights (a pivoted table has none): written as 1, which Moses' log-linear model ignores (log 1 = 0)",
                    summary.missing_lexical_weights
                );
            }
        }
        Command::Export(ExportCommand::Semeval2014t5 {
            table,
            out,
            answer,
            alternatives,
            best_only,
        }) => {
            let alternatives = match (alternatives, best_only) {
                (_, true) => None,
                (Some(column), false) => Some(column),
                (None, false) => (answer == export::RunColumns::default().answer)
                    .then(|| "output_alternatives".to_string()),
            };
            let written = export::semeval2014t5(
                &table,
                &out,
                &export::RunColumns {
                    answer,
                    alternatives,
                },
            )
            .await?;
            writeln!(stdout, "wrote {}: {written} fragments", out.display())?;
        }
        Command::Triples {
            pairs,
            arcs,
            side,
            out,
            lowercase,
            tuning,
        } => {
            let options = triples::TriplesOptions {
                pairs,
                arcs,
                side,
                out,
                lowercase,
                tuning: tuning.into(),
            };
            let summary = triples::triples(&options).await?;
            writeln!(stdout, "wrote {}\n{summary}", options.out.display())?;
        }
        Command::Compare {
            files,
            metrics,
            significance,
            format,
            tuning,
        } => {
            let options = significance.options(metrics);
            let comparison = compare::compare(&files, &options, &tuning.into()).await?;
            match format {
                CompareFormat::Table => write!(stdout, "{}", comparison.text())?,
                CompareFormat::Json => writeln!(stdout, "{:#}", comparison.json())?,
            }
        }
        Command::Show {
            table,
            pair_id,
            alignments,
        } => {
            write!(
                stdout,
                "{}",
                show::show(&table, pair_id, alignments.as_ref()).await?
            )?;
        }
        Command::Report {
            files,
            out,
            alignments,
            arcs,
            pairs,
            significance,
            tuning,
        } => {
            let options = report::ReportOptions {
                tables: files,
                alignments,
                arcs,
                pairs,
                compare: significance.options(None),
                out,
            };
            let written = report::report(&options, &tuning.into()).await?;
            for note in &written.notes {
                eprintln!("note: {note}");
            }
            writeln!(
                stdout,
                "wrote {} ({} bytes, {} pairs drawn)",
                options.out.display(),
                written.bytes,
                written.pairs_drawn
            )?;
        }
        Command::L2Assist {
            mut assist,
            weights,
            out,
            out_of_five,
            table,
        } => {
            let Some(input) = assist.input.take() else {
                anyhow::bail!("l2-assist needs --input FILE.xml")
            };
            let options = assist.options(input);
            let weights = match &weights {
                Some(path) => l2_assist::Weights::read(path)?,
                None => l2_assist::Weights::default(),
            };
            let generated = l2_assist::generate(&options).await?;
            report_generated(&generated);
            l2_assist::assist(&generated, &weights, out_of_five, &out, table.as_deref())?;
            writeln!(
                stdout,
                "wrote {}: {} fragments",
                out.display(),
                generated.fragments.len()
            )?;
        }
        Command::Tune {
            dev,
            assist,
            candidates,
            metric,
            features,
            restarts,
            random_directions,
            seed,
            out,
        } => {
            let options = l2_assist::TuneOptions {
                features,
                mert: mert::MertOptions {
                    restarts,
                    random_directions,
                    seed,
                    ..Default::default()
                },
            };
            if let Some(input) = &assist.input {
                anyhow::bail!(
                    "tune reads a dev set (--dev DEV.xml) or a candidates table (--candidates), not --input {}",
                    input.display()
                );
            }
            let result = match (dev, candidates) {
                (Some(dev), _) => {
                    let generated = l2_assist::generate(&assist.options(dev.clone())).await?;
                    report_generated(&generated);
                    l2_assist::tune_generated(&generated, &options, &dev.display().to_string())?
                }
                (None, Some(table)) => l2_assist::tune_table(&table, &metric, &options).await?,
                (None, None) => unreachable!("clap requires --dev or --candidates"),
            };
            result.write(&out)?;
            let weights: Vec<String> = FEATURE_NAMES
                .iter()
                .zip(result.weights.values)
                .map(|(n, w)| format!("{n}={w:.6}"))
                .collect();
            writeln!(stdout, "wrote {}: {}", out.display(), weights.join(" "))?;
            writeln!(
                stdout,
                "mean metric over {} lists: {:.6} with every weight 1, {:.6} tuned ({} skipped: no reference or no candidate)",
                result.lists, result.initial, result.tuned, result.skipped
            )?;
        }
        Command::SemevalEval {
            reference,
            run,
            ignore_case,
            out_of_five,
            ignore_input_mismatch,
            stem,
            per_sentence,
        } => {
            let options = semeval_eval::EvalOptions {
                ignore_case,
                out_of_five,
                ignore_input_mismatch,
                stem,
                per_sentence,
            };
            let evaluation = semeval_eval::evaluate(&reference, &run, &options)?;
            for warning in &evaluation.warnings {
                eprintln!("warning: {warning}");
            }
            write!(stdout, "{}", evaluation.summary())?;
        }
        Command::Demo { data, out } => {
            let out = out.unwrap_or_else(|| std::env::temp_dir().join("pairmetrics-demo.parquet"));
            demo::run(&data, &out, stdout).await?;
        }
    }
    stdout.flush().context("writing to stdout")?;
    Ok(())
}

/// glibc raises its mmap threshold each time a large block is freed, up to 32 MiB, so the
/// encoder's large buffers go back to the heap and `score`'s peak grew with the run (449 MB
/// at 1M pairs, 716 MB at 10M). A fixed threshold keeps them mmapped and the peak flat.
fn fix_malloc_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

#[cfg(feature = "cluster")]
async fn run_cluster(command: ClusterCommand) -> Result<()> {
    use pairmetrics::pipeline::cluster;
    match command {
        ClusterCommand::Scheduler {
            bind,
            executor_timeout,
        } => {
            cluster::run_scheduler(cluster::SchedulerOptions {
                bind,
                executor_timeout_seconds: executor_timeout,
            })
            .await
        }
        ClusterCommand::Executor {
            scheduler,
            bind,
            grpc_port,
            work_dir,
            slots,
            heartbeat,
            resources: wanted,
        } => {
            let (resources, loaded) = resources::load(&wanted.options()?).await?;
            for line in loaded {
                eprintln!("{line}");
            }
            let grpc_port = match grpc_port {
                Some(port) => port,
                None => bind
                    .port()
                    .checked_add(1)
                    .context("--bind: no port after it for --grpc-port")?,
            };
            let options = cluster::ExecutorOptions {
                scheduler,
                bind,
                grpc_port,
                work_dir,
                slots,
                heartbeat_seconds: heartbeat,
            };
            cluster::run_executor(options, &resources).await
        }
    }
}

#[cfg(not(feature = "cluster"))]
async fn run_cluster(_: ClusterCommand) -> Result<()> {
    anyhow::bail!(
        "this pairmetrics was built without the `cluster` feature: cargo build --release --features cluster"
    )
}

/// sacrebleu's short options of several letters (`-sl`, `-tok`, ...), which clap cannot
/// declare, as their long forms: only after the `sacrebleu` subcommand.
fn sacrebleu_short_options(
    args: impl Iterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    const LONG: &[(&str, &str)] = &[
        ("-nr", "--num-refs"),
        ("-sl", "--sentence-level"),
        ("-sv", "--smooth-value"),
        ("-tok", "--tokenize"),
        ("-lc", "--lowercase"),
        ("-cc", "--chrf-char-order"),
        ("-cw", "--chrf-word-order"),
        ("-ci", "--confidence"),
        ("-cin", "--confidence-n"),
        ("-par", "--paired-ar"),
        ("-pbs", "--paired-bs"),
        ("-parn", "--paired-ar-n"),
        ("-pbsn", "--paired-bs-n"),
        ("-sh", "--short"),
        ("-nc", "--no-color"),
    ];
    let mut in_sacrebleu = false;
    args.map(|arg| {
        if in_sacrebleu
            && let Some(long) = arg
                .to_str()
                .and_then(|a| LONG.iter().find(|(short, _)| *short == a))
        {
            return long.1.into();
        }
        in_sacrebleu |= arg == "sacrebleu";
        arg
    })
    .collect()
}

fn main() -> ExitCode {
    fix_malloc_thresholds();
    let cli = Cli::parse_from(sacrebleu_short_options(std::env::args_os()));
    pairmetrics::storage::set_options(cli.storage_options.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    let result = runtime
        .context("starting the runtime")
        .and_then(|rt| rt.block_on(run(cli)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            match err
                .chain()
                .find_map(|e| e.downcast_ref::<MissingResource>())
            {
                Some(missing) => eprintln!("error: {}", resource_hint(missing)),
                None if format!("{err:#}").contains("Resources exhausted") => {
                    eprintln!("error: {}", memory_hint(&err))
                }
                None => eprintln!("error: {err:#}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// DataFusion out of the memory pool --memory-limit made (without the flag there is no limit),
/// said in the command line's terms: DataFusion's own message names its operators and keys.
fn memory_hint(err: &anyhow::Error) -> String {
    let said = err.root_cause().to_string();
    // DataFusion repeats its message once per layer: the first is enough.
    let said = said
        .splitn(3, "Resources exhausted: ")
        .nth(1)
        .map_or(said.as_str(), |s| s.trim_end_matches(": "))
        .to_string();
    format!(
        "the job needed more memory than --memory-limit gives it (sorts and most aggregations spill beyond \
         the limit, but not every buffer can): give it more, e.g. --memory-limit 512, or leave the flag out \
         (DataFusion: {said})"
    )
}

/// A function used without its resource, said in the command line's terms.
fn resource_hint(missing: &MissingResource) -> String {
    let flag = match missing.resource {
        Resource::PhraseTable => "--phrase-table PATH",
        Resource::Triples => {
            "--triples PATH (make them with `pairmetrics triples` or `import syntactic-ngrams`)"
        }
        Resource::Lm => "--lm PATH (an ARPA file, plain, .gz or .zst)",
    };
    format!(
        "{} needs {}: pass {flag} to pairmetrics sql or score",
        missing.function,
        missing.resource.what()
    )
}

/// What l2-assist and tune loaded and made, on stderr.
fn report_generated(generated: &l2_assist::Generated) {
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
