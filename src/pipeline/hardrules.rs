//! `pairmetrics hardrules`: a drop-in for `bicleaner-hardrules` 2.10.8 run without its models,
//! printing what it prints byte for byte, from `clean::hardrules`.
//!
//! The input is read as the tool's text files read it: UTF-8 with each invalid sequence
//! replaced by U+FFFD (`errors="replace"`), and universal newlines (`\r\n`, `\r` and `\n` all end
//! a line).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::clean::hardrules::{Config, Failure, Hardrules, ignored_as_too_long};
use crate::parallel::{Chunk, map_ordered};
use crate::storage::Output;

#[derive(Debug, Clone)]
pub struct HardrulesOptions {
    /// The tab-separated input (`-`: standard input).
    pub input: PathBuf,
    /// Where to write (`-`: standard output).
    pub output: PathBuf,
    pub src_lang: String,
    pub tgt_lang: String,
    /// 1-based columns of the two sentences.
    pub src_column: usize,
    pub tgt_column: usize,
    pub config: Config,
    pub run_all_rules: bool,
    pub annotated_output: bool,
    pub score_only: bool,
    pub disable_minimal_length: bool,
    pub dont_ignore_long: bool,
    pub threads: usize,
}

/// What a run met.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HardrulesSummary {
    pub lines: u64,
    pub kept: u64,
    /// Lines with fewer columns than the sentence columns, and the first of them (1-based).
    pub missing_columns: u64,
    pub first_missing: Option<u64>,
}

/// Run the rules over every line of the input.
pub fn run(options: &HardrulesOptions) -> Result<HardrulesSummary> {
    let input: Box<dyn BufRead + Send> = if options.input.as_os_str() == "-" {
        Box::new(std::io::BufReader::with_capacity(1 << 16, std::io::stdin()))
    } else {
        let file = std::fs::File::open(&options.input)
            .with_context(|| format!("opening {}", options.input.display()))?;
        Box::new(std::io::BufReader::with_capacity(1 << 16, file))
    };
    if options.output.as_os_str() == "-" {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let summary = filter(options, input, &mut out)?;
        out.flush()?;
        Ok(summary)
    } else {
        let mut out = Output::create(&options.output)?;
        let summary = filter(options, input, &mut out)?;
        out.commit()?;
        Ok(summary)
    }
}

/// The lines of `input` with the rules' verdict, written to `out`.
pub fn filter(
    options: &HardrulesOptions,
    input: impl BufRead + Send,
    out: &mut dyn Write,
) -> Result<HardrulesSummary> {
    let rules = Hardrules::new(
        options.config.clone(),
        &options.src_lang,
        &options.tgt_lang,
        options.disable_minimal_length,
    );
    let name = options.input.display().to_string();
    let mut summary = HardrulesSummary::default();
    map_ordered(
        Lines {
            input,
            name: &name,
            pending_cr: false,
        },
        options.threads,
        || (),
        |(), chunk: Chunk<Vec<u8>>| {
            let mut text = Vec::with_capacity(chunk.records.iter().map(|l| l.len() + 8).sum());
            let mut tally = HardrulesSummary::default();
            for (i, line) in chunk.records.iter().enumerate() {
                let line_number = chunk.first + i as u64 + 1;
                verdict(
                    &rules,
                    options,
                    &String::from_utf8_lossy(line),
                    line_number,
                    &mut tally,
                    &mut text,
                );
            }
            Ok((text, tally))
        },
        |(text, tally)| {
            out.write_all(&text)?;
            summary.lines += tally.lines;
            summary.kept += tally.kept;
            summary.missing_columns += tally.missing_columns;
            summary.first_missing = summary.first_missing.or(tally.first_missing);
            Ok(())
        },
    )
    .with_context(|| format!("writing {}", options.output.display()))?;
    Ok(summary)
}

/// One line's output: the line (unless `score_only`), 1 (keep) or 0, and the reasons.
fn verdict(
    rules: &Hardrules,
    options: &HardrulesOptions,
    line: &str,
    line_number: u64,
    tally: &mut HardrulesSummary,
    out: &mut Vec<u8>,
) {
    tally.lines += 1;
    let parts: Vec<&str> = line.split('\t').collect();
    let failures: Vec<String> = match (
        parts.get(options.src_column - 1),
        parts.get(options.tgt_column - 1),
    ) {
        (Some(left), Some(right)) => {
            if !options.dont_ignore_long && ignored_as_too_long(left, right) {
                vec!["not_too_long".into()]
            } else {
                rules
                    .check(left, right, options.run_all_rules)
                    .iter()
                    .map(Failure::to_string)
                    .collect()
            }
        }
        _ => {
            tally.missing_columns += 1;
            tally.first_missing = tally.first_missing.or(Some(line_number));
            vec!["missing_columns".into()]
        }
    };
    if !options.score_only {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\t');
    }
    if failures.is_empty() {
        tally.kept += 1;
        out.push(b'1');
        if options.annotated_output {
            out.extend_from_slice(b"\tkeep");
        }
    } else {
        out.push(b'0');
        if options.annotated_output {
            // Without -A the tool prints the first reason; for `missing_columns` and ignored
            // long lines it fails there (a TypeError that loses the block) where this prints it.
            out.push(b'\t');
            out.extend_from_slice(failures.join("+").as_bytes());
        }
    }
    out.push(b'\n');
}

/// The input's lines without their ends, split at `\n`, `\r\n` and `\r` as Python's universal
/// newlines do.
struct Lines<'a, R> {
    input: R,
    name: &'a str,
    /// The previous line ended at a `\r`: a `\n` starting this read belongs to it.
    pending_cr: bool,
}

impl<R: BufRead> Iterator for Lines<'_, R> {
    type Item = Result<Vec<u8>>;

    fn next(&mut self) -> Option<Result<Vec<u8>>> {
        let mut line = Vec::new();
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) => {
                    return Some(Err(
                        anyhow::Error::new(e).context(format!("reading {}", self.name))
                    ));
                }
            };
            if buffer.is_empty() {
                return (!line.is_empty()).then_some(Ok(line));
            }
            if std::mem::take(&mut self.pending_cr) && buffer[0] == b'\n' {
                self.input.consume(1);
                continue;
            }
            match memchr::memchr2(b'\n', b'\r', buffer) {
                Some(end) => {
                    line.extend_from_slice(&buffer[..end]);
                    self.pending_cr = buffer[end] == b'\r';
                    self.input.consume(end + 1);
                    return Some(Ok(line));
                }
                None => {
                    let n = buffer.len();
                    line.extend_from_slice(buffer);
                    self.input.consume(n);
                }
            }
        }
    }
}
