//! `pairmetrics fasttext predict|predict-prob`: a drop-in for fastText 0.9.2's command line,
//! printing what it prints byte for byte, from `lid::fasttext`.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::formats::opusfilter_config::read_fasttext;
use crate::lid::fasttext::{Model, Scratch, next_line};
use crate::text::cpp;

#[derive(Debug, Clone)]
pub struct PredictOptions {
    pub model: PathBuf,
    /// The text to label, a line at a time (`-`: standard input).
    pub input: PathBuf,
    /// How many labels per line; -1 for every label.
    pub k: i32,
    /// The lowest probability a label is printed with.
    pub threshold: f32,
    /// Print each label's probability after it (`predict-prob`).
    pub print_prob: bool,
}

/// Predict every line of the input, printing a line of labels each.
pub fn predict(options: &PredictOptions, out: &mut dyn Write) -> Result<()> {
    if options.k == 0 || options.k < -1 {
        anyhow::bail!(
            "k needs to be 1 or higher, or -1 for every label (got {})",
            options.k
        );
    }
    let model = read_fasttext(&options.model)?;
    let input: Box<dyn BufRead> = if options.input.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(&options.input).with_context(|| {
            format!("Input file cannot be opened! ({})", options.input.display())
        })?;
        Box::new(std::io::BufReader::with_capacity(1 << 16, file))
    };
    predict_lines(&model, input, options, out)
}

fn predict_lines(
    model: &Model,
    mut input: Box<dyn BufRead + '_>,
    options: &PredictOptions,
    out: &mut dyn Write,
) -> Result<()> {
    let (mut segment, mut scratch, mut predictions) = (Vec::new(), Scratch::default(), Vec::new());
    let mut line_number = 0u64;
    loop {
        segment.clear();
        let read = input
            .read_until(b'\n', &mut segment)
            .with_context(|| format!("reading {}", options.input.display()))?;
        if read == 0 {
            return Ok(());
        }
        line_number += 1;
        let (mut at, mut tokens) = (0, Vec::new());
        while next_line(&segment, &mut at, &mut tokens) {
            model
                .predict(
                    tokens.iter().copied(),
                    options.k,
                    options.threshold,
                    &mut scratch,
                    &mut predictions,
                )
                .with_context(|| format!("{}:{line_number}", options.input.display()))?;
            for (i, &(prob, label)) in predictions.iter().enumerate() {
                if i > 0 {
                    out.write_all(b" ")?;
                }
                out.write_all(model.label(label))?;
                if options.print_prob {
                    write!(out, " {}", cpp::double(f64::from(prob)))?;
                }
            }
            out.write_all(b"\n")?;
        }
    }
}
