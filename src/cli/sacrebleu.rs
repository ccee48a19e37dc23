//! `pairmetrics sacrebleu`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::sacrebleu;

use super::Stdout;
use super::args::cores;

/// Drop-in replacement for sacrebleu 2.6's command line: BLEU, chrF/chrF++ and TER.
///
/// On plain-text files, with `--confidence`, `--paired-bs` and `--paired-ar`, printing what
/// sacrebleu prints (JSON, text or LaTeX), from pairmetrics' kernels.
/// `pairmetrics sacrebleu REF [REF ...] -i SYS [SYS ...] -m bleu chrf ter`. Without -i, the
/// systems are read from standard input, tab-separated. Paired tests and --confidence draw
/// sacrebleu's resamples (numpy's default_rng seeded with SACREBLEU_SEED, 12345 by default),
/// so they print sacrebleu's p-values, means and intervals; SACREBLEU_FORMAT overrides -f.
/// sacrebleu's short options (-sl, -tok, -lc, -cc, -cw, -ci, -cin, -par, -pbs, -parn,
/// -pbsn, -sh, -nc, -nr, -sv) work too. Not here: sacrebleu's test sets (-t, -l, --echo,
/// downloads) and BLEU's ja-mecab, ko-mecab, spm and flores tokenizers. See
/// docs/guide/sacrebleu.md.
#[derive(clap::Args)]
pub struct Args {
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
    #[arg(long = "smooth-value", allow_negative_numbers = true)]
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
    #[arg(long = "chrf-beta", default_value_t = 2, allow_negative_numbers = true)]
    chrf_beta: i32,
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
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Args {
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
        } = self;
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
            chrf: pairmetrics::sacrebleu::chrf::ChrfOptions {
                char_order: chrf_char_order,
                word_order: chrf_word_order,
                beta: chrf_beta,
                lowercase: chrf_lowercase,
                whitespace: chrf_whitespace,
                eps_smoothing: chrf_eps_smoothing,
            },
            ter: pairmetrics::sacrebleu::ter::TerOptions {
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
        Ok(())
    }
}

/// sacrebleu's short options of several letters (`-sl`, `-tok`, ...), which clap cannot
/// declare, as their long forms: only after the `sacrebleu` subcommand.
pub fn long_options(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
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
