//! `pairmetrics hardrules`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use pairmetrics::clean::hardrules::Config;
use pairmetrics::formats::hardrules_config;
use pairmetrics::pipeline::hardrules::{self, HardrulesOptions};

use super::args::cores;

/// Drop-in replacement for bicleaner-hardrules 2.10.8 (`bicleaner-hardrules`) run without its
/// models, byte for byte.
///
/// Reads tab-separated lines (a sentence pair in columns --scol and --tcol) and writes each line
/// followed by a tab and 1 (keep) or 0 (discard); with --annotated_output a further column gives
/// `keep` or the reason: the first failing rule, or with -A every one joined by `+`, as
/// `name(left)`, `name(right)` or `name(left,right)`. Lines with too few columns are
/// `missing_columns`; sides over 10,000 characters are `not_too_long` without running the rules
/// (unless --dont_ignore_long). The rules and their order: no_empty, not_too_long,
/// not_too_short, length_ratio, no_identical, no_literals, no_only_symbols, no_only_numbers,
/// no_urls (off by default), no_breadcrumbs, no_glued_words, no_repeated_words,
/// no_unicode_noise, no_space_noise, no_paren, no_escaped_unicode, no_bad_encoding, no_titles,
/// no_number_inconsistencies and no_script_inconsistencies (both off by default); -c sets them
/// as the tool's YAML does (`no_urls: true`, `length_ratio: 2.0`, `no_literals: [...]`). The same
/// rules are SQL functions: `hardrules(src, tgt, src_lang, tgt_lang)`.
///
/// Input is read as the tool reads it: invalid UTF-8 replaced by U+FFFD, and `\r\n` or a lone
/// `\r` ending a line as `\n` does.
///
/// Differences: the model rules (no_wrong_language, no_porn, lm_filter) are not run, as with
/// the tool's --disable_lang_ident --disable_porn_removal --disable_lm_filter, which are
/// accepted; --metadata is read for the languages only. Where the tool crashes, this does the
/// sensible thing: --annotated_output without -A prints `missing_columns` or `not_too_long`
/// (the tool raises a TypeError and loses the block); with no_empty disabled an empty target
/// fails length_ratio (the tool divides by zero). OUTPUT appears whole or not at all. Logging
/// options are accepted; a summary goes to standard error unless -q.
#[derive(clap::Args)]
pub struct Args {
    /// Tab-separated bilingual file (default or `-`: standard input).
    #[arg(value_name = "INPUT", default_value = "-")]
    input: PathBuf,
    /// Output of the classification (default or `-`: standard output).
    #[arg(value_name = "OUTPUT", default_value = "-")]
    output: PathBuf,
    /// Source language (SL) of the input.
    #[arg(short = 's', long = "source_lang")]
    source_lang: Option<String>,
    /// Target language (TL) of the input.
    #[arg(short = 't', long = "target_lang")]
    target_lang: Option<String>,
    /// Source sentence column (starting in 1).
    #[arg(long = "scol", default_value_t = 1, value_parser = positive)]
    scol: usize,
    /// Target sentence column (starting in 1).
    #[arg(long = "tcol", default_value_t = 2, value_parser = positive)]
    tcol: usize,
    /// Rules configuration file (YAML: rule name to value, over the defaults).
    #[arg(short = 'c', long = "rules_config")]
    rules_config: Option<PathBuf>,
    /// Add a column with each sentence's evaluation: `keep`, or the reason for rejecting.
    #[arg(long = "annotated_output")]
    annotated_output: bool,
    /// Only output the tag column: 1 (keep), 0 (discard).
    #[arg(long = "score_only")]
    score_only: bool,
    /// Run all rules for each sentence instead of stopping at the first discard.
    #[arg(short = 'A', long = "run_all_rules")]
    run_all_rules: bool,
    /// Don't apply the minimal length rule (not_too_short).
    #[arg(long = "disable_minimal_length")]
    disable_minimal_length: bool,
    /// Don't ignore sentences over 10,000 characters: run the rules on them.
    #[arg(long = "dont_ignore_long")]
    dont_ignore_long: bool,
    /// Worker threads (the tool's processes; default: the number of cores). The output is the
    /// same for any number.
    #[arg(short = 'p', long = "processes")]
    processes: Option<usize>,
    /// Bicleaner metadata (YAML): read for source_lang and target_lang when -s/-t are not given.
    #[arg(long = "metadata")]
    metadata: Option<PathBuf>,
    /// Accepted: the language identification rule is not run here.
    #[arg(long = "disable_lang_ident")]
    disable_lang_ident: bool,
    /// Accepted: the LM fluency rule is not run here.
    #[arg(long = "disable_lm_filter")]
    disable_lm_filter: bool,
    /// Accepted: the porn classifier is not run here.
    #[arg(long = "disable_porn_removal")]
    disable_porn_removal: bool,
    /// Accepted and unused (the threshold of the LM rule).
    #[arg(long = "lm_threshold")]
    lm_threshold: Option<f64>,
    /// Accepted and unused (nothing is written to a temporary directory).
    #[arg(long = "tmp_dir")]
    tmp_dir: Option<PathBuf>,
    /// Accepted and unused (lines are handed to threads in blocks of their own size).
    #[arg(short = 'b', long = "block_size")]
    block_size: Option<usize>,
    /// Accepted and unused (the tokenizers of the model rules).
    #[arg(short = 'S', long = "source_tokenizer_command")]
    source_tokenizer_command: Option<String>,
    /// Accepted and unused (the tokenizers of the model rules).
    #[arg(short = 'T', long = "target_tokenizer_command")]
    target_tokenizer_command: Option<String>,
    /// Silent mode: no summary.
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Accepted (there is no debug log).
    #[arg(long = "debug")]
    debug: bool,
    /// Append the summary to this file instead of standard error.
    #[arg(long = "logfile")]
    logfile: Option<PathBuf>,
}

fn positive(text: &str) -> Result<usize, String> {
    match text.trim().parse::<i64>() {
        Ok(n) if n > 0 => Ok(n as usize),
        _ => Err(format!("{text} is an invalid positive int value")),
    }
}

impl Args {
    pub fn run(self) -> Result<()> {
        let (source_lang, target_lang) = self.languages()?;
        let config = match &self.rules_config {
            Some(path) => hardrules_config::read(path)?,
            None => Config::default(),
        };
        let options = HardrulesOptions {
            input: self.input,
            output: self.output,
            src_lang: source_lang,
            tgt_lang: target_lang,
            src_column: self.scol,
            tgt_column: self.tcol,
            config,
            run_all_rules: self.run_all_rules,
            annotated_output: self.annotated_output,
            score_only: self.score_only,
            disable_minimal_length: self.disable_minimal_length,
            dont_ignore_long: self.dont_ignore_long,
            threads: self.processes.unwrap_or_else(cores).max(1),
        };
        let summary = hardrules::run(&options)?;
        if !self.quiet {
            let mut message = format!(
                "hardrules: {} lines, {} kept, {} discarded\n",
                summary.lines,
                summary.kept,
                summary.lines - summary.kept
            );
            if let Some(first) = summary.first_missing {
                message += &format!(
                    "hardrules: {} lines have fewer than {} columns (missing_columns; the first is line {first})\n",
                    summary.missing_columns,
                    options.src_column.max(options.tgt_column)
                );
            }
            match &self.logfile {
                Some(path) => {
                    use std::io::Write;
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                        .and_then(|mut f| f.write_all(message.as_bytes()))
                        .with_context(|| format!("writing the log {}", path.display()))?;
                }
                None => eprint!("{message}"),
            }
        }
        Ok(())
    }

    /// -s and -t, or the metadata's source_lang and target_lang.
    fn languages(&self) -> Result<(String, String)> {
        if let (Some(s), Some(t)) = (&self.source_lang, &self.target_lang) {
            return Ok((s.clone(), t.clone()));
        }
        let Some(path) = &self.metadata else {
            bail!("No source or target languages provided: give -s SRC -t TGT (or --metadata)");
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the metadata {}", path.display()))?;
        let yaml: serde_yaml::Value =
            serde_yaml::from_str(&text).with_context(|| format!("{}: not YAML", path.display()))?;
        let lang = |key: &str, given: &Option<String>| -> Result<String> {
            if let Some(given) = given {
                return Ok(given.clone());
            }
            yaml.get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .with_context(|| format!("{}: no {key} in the metadata", path.display()))
        };
        Ok((
            lang("source_lang", &self.source_lang)?,
            lang("target_lang", &self.target_lang)?,
        ))
    }
}
