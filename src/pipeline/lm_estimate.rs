//! `lm estimate` and the `lmplz` drop-in: text (read as lmplz reads it) or a Parquet column
//! into a corpus, the model estimated by `metrics::kneser_ney`, written as lmplz's ARPA, whole
//! or not at all.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow};

use crate::formats::arpa;
use crate::metrics::kneser_ney::{self, Corpus, Model, Options, SpecialWords};
use crate::storage::Output;

/// lmplz's input: lines of words separated by spaces, tabs, carriage returns or NULs. A last
/// line without its line end is counted without `</s>`, as lmplz counts it.
pub fn read_text(mut reader: impl BufRead, name: &str, special: SpecialWords) -> Result<Corpus> {
    let mut corpus = Corpus::new(special);
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        if reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("reading {name}"))?
            == 0
        {
            break;
        }
        let closed = line.last() == Some(&b'\n');
        let text = std::str::from_utf8(&line)
            .map_err(|e| anyhow!("{name}:{number}: not UTF-8 text ({e})"))?;
        let words = text
            .split(['\0', '\t', '\n', '\r', ' '])
            .filter(|w| !w.is_empty());
        corpus
            .push(words, closed)
            .map_err(|e| anyhow!("{name}:{number}: {e}"))?;
    }
    Ok(corpus)
}

/// The sentences of a text file or a Parquet column (see `sentences::read`), in file order.
pub async fn read_sentences(input: &Path, column: &str, special: SpecialWords) -> Result<Corpus> {
    let mut corpus = Corpus::new(special);
    let mut row = 0u64;
    super::sentences::visit(input, column, |_, tokens| {
        row += 1;
        corpus
            .push(tokens.iter().copied(), true)
            .map_err(|e| anyhow!("{}: sentence {}: {e}", input.display(), row - 1))
    })
    .await?;
    Ok(corpus)
}

/// Estimate, saying on `log` what lmplz says of the corpus and the discounts.
pub fn estimate(corpus: &Corpus, options: &Options, log: &mut dyn Write) -> Result<Model> {
    let _ = writeln!(
        log,
        "Unigram tokens {} types {}",
        corpus.tokens(),
        corpus.vocabulary().len()
    );
    if corpus.skipped > 0 {
        let _ = writeln!(
            log,
            "Skipped {} instances of <s>, </s> and <unk> in the text",
            corpus.skipped
        );
    }
    let model = kneser_ney::estimate(corpus, options)?;
    let _ = writeln!(log, "Statistics:");
    for (n, (grams, (discount, fallback))) in model.orders.iter().zip(&model.discounts).enumerate()
    {
        let mut line = format!("{} {}", n + 1, grams.len());
        for (d, name) in [(1, "D1="), (2, "D2="), (3, "D3+=")] {
            line.push(' ');
            line.push_str(name);
            arpa::shortest(discount.0[d], &mut line);
        }
        if *fallback {
            line.push_str(" (fallback)");
        }
        let _ = writeln!(log, "{line}");
    }
    Ok(model)
}

/// Write `model` as ARPA to `target` (atomically) or, without one, to `stdout`.
pub fn write(model: &Model, target: Option<&Path>, stdout: &mut dyn Write) -> Result<()> {
    match target {
        Some(path) => {
            let mut out = Output::create(path)?;
            arpa::write(model, &mut out).with_context(|| format!("writing {}", path.display()))?;
            out.commit()
        }
        None => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
            arpa::write(model, &mut out).context("writing the model to stdout")?;
            out.flush().context("writing the model to stdout")
        }
    }
}
