//! `pairmetrics semeval-eval`: SemEval-2014 Task 5's official scorer (`evaluation.py` 2.1, the
//! one that produced the published results), rule for rule: it prints `Accuracy Word-Accuracy
//! Recall` and the three figures as Python prints them. docs/semeval2014t5.md lists the rules,
//! including the ones the task's description does not mention.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use datafusion::arrow::array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use rust_stemmers::Stemmer;

use crate::align::stem::snowball;
use crate::formats::semeval2014t5::{self, Sentence, ShowId, fragment_score};
use crate::pair::word_accuracy::Rules;
use crate::parquet::AtomicParquetWriter;

#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// `-i`: compare without regard to case.
    pub ignore_case: bool,
    /// `-a`: out of five: the answer and up to four `<alt>`s, the best counts.
    pub out_of_five: bool,
    /// `-I`: a run whose input differs from the gold's is scored all the same.
    pub ignore_input_mismatch: bool,
    /// `-S LANG`: stem every token first (Snowball, lowercased as NLTK's stemmer lowercases).
    pub stem: Option<String>,
    /// Per-fragment figures as Parquet.
    pub per_sentence: Option<PathBuf>,
}

/// The scorer's figures, and what it warned of.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub accuracy: f64,
    pub word_accuracy: f64,
    pub recall: f64,
    pub warnings: Vec<String>,
}

impl Evaluation {
    /// What `evaluation.py` prints (and writes to its `.summary.score`).
    pub fn summary(&self) -> String {
        format!(
            "Accuracy Word-Accuracy Recall\n{} {} {}\n",
            python_float(self.accuracy),
            python_float(self.word_accuracy),
            python_float(self.recall)
        )
    }
}

/// One line of the per-sentence figures: after each input fragment, the sentence's figures so
/// far (as the official `.persentence.score`, one line per fragment).
struct Line {
    sentence: String,
    fragment: String,
    /// The fragment's own word accuracy; None when it was not answered.
    score: Option<f64>,
    accuracy: f64,
    word_accuracy: f64,
    recall: f64,
}

/// Score the run `out` against the gold `reference`.
pub fn evaluate(reference: &Path, out: &Path, options: &EvalOptions) -> Result<Evaluation> {
    let gold = semeval2014t5::read(reference)?;
    let run = semeval2014t5::read(out)?;
    let l2 = match (&gold.l1, &gold.l2) {
        (Some(l1), Some(l2)) if l1 != "unknown" && l2 != "unknown" => l2.clone(),
        _ => bail!(
            "{}: the reference must give L1 and L2 (<sentencepairs L1=\"..\" L2=\"..\">)",
            reference.display()
        ),
    };
    let stemmer = match &options.stem {
        Some(language) => match snowball(language) {
            Some(algorithm) => Some(Stemmer::create(algorithm)),
            None => bail!(
                "-S {language}: no Snowball stemmer of that name (english, german, spanish, dutch, french, ...)"
            ),
        },
        None => None,
    };
    let rules = Rules {
        ignore_case: options.ignore_case,
        spanish: l2 == "es",
    };
    let at = |path: &Path, s: &Sentence| {
        format!(
            "{} line {}, sentence {}",
            path.display(),
            s.line,
            ShowId(&s.id)
        )
    };
    let mut warnings = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut outputs = run.sentences.iter();
    // As the official loop: stop when either file ends; when the ids differ, skip one output
    // sentence (a sentence missing from the reference) and try again, once.
    for ref_s in &gold.sentences {
        let Some(mut out_s) = outputs.next() else {
            break;
        };
        if out_s.id != ref_s.id {
            warnings.push(format!(
                "sentence id mismatch ({} against {}): skipping output sentence {}, as if missing from the reference",
                at(out, out_s),
                ShowId(&ref_s.id),
                ShowId(&out_s.id)
            ));
            match outputs.next() {
                Some(next) => out_s = next,
                None => break,
            }
        }
        if ref_s.id != out_s.id {
            bail!(
                "sentence id mismatch: {} against {}",
                at(reference, ref_s),
                at(out, out_s)
            );
        } else if out_s.input.as_ref().is_some_and(|i| !i.is_empty()) && ref_s.input != out_s.input
        {
            if !options.ignore_input_mismatch {
                bail!(
                    "the input of {} differs from the reference's ({}); -I scores it all the same",
                    at(out, out_s),
                    at(reference, ref_s)
                );
            }
        } else if ref_s.reference.as_ref().is_none_or(Vec::is_empty) {
            bail!("no reference for {}", at(reference, ref_s));
        } else if out_s.output.as_ref().is_none_or(Vec::is_empty) {
            bail!("no output for {}", at(out, out_s));
        }
        let answers = Sentence::fragments(out_s.output.as_ref());
        let references = Sentence::fragments(ref_s.reference.as_ref());
        let (mut matches, mut misses, mut missed_recall) = (0u64, 0u64, 0u64);
        let (mut word_matches, mut word_misses) = (0.0f64, 0.0f64);
        for input in Sentence::fragments(ref_s.input.as_ref()) {
            let Some(gold_fragment) = references.iter().find(|f| f.id == input.id) else {
                bail!(
                    "no reference fragment {} in {}",
                    ShowId(&input.id),
                    at(reference, ref_s)
                );
            };
            let score = match answers.iter().find(|f| f.id == input.id) {
                None => {
                    warnings.push(format!(
                        "input fragment {} of {} is not translated",
                        ShowId(&input.id),
                        at(out, out_s)
                    ));
                    (misses, word_misses, missed_recall) =
                        (misses + 1, word_misses + 1.0, missed_recall + 1);
                    None
                }
                Some(answer) if answer.value.as_ref().is_none_or(Vec::is_empty) => {
                    (misses, word_misses, missed_recall) =
                        (misses + 1, word_misses + 1.0, missed_recall + 1);
                    None
                }
                Some(answer) => {
                    let score = fragment_score(
                        answer,
                        gold_fragment,
                        options.out_of_five,
                        rules,
                        stemmer.as_ref(),
                    );
                    word_matches += score;
                    word_misses += 1.0 - score;
                    if score == 1.0 {
                        matches += 1
                    } else {
                        misses += 1
                    }
                    Some(score)
                }
            };
            let all = matches + misses;
            let recall = if missed_recall == all {
                0.0
            } else {
                all as f64 / (all - missed_recall) as f64
            };
            lines.push(Line {
                sentence: ShowId(&ref_s.id).to_string(),
                fragment: ShowId(&input.id).to_string(),
                score,
                accuracy: matches as f64 / all as f64,
                word_accuracy: word_matches / (word_matches + word_misses),
                recall,
            });
        }
    }
    if lines.is_empty() {
        bail!(
            "no fragment was scored: {} and {} have no sentence in common",
            reference.display(),
            out.display()
        );
    }
    if let Some(path) = &options.per_sentence {
        write_lines(path, &lines)?;
    }
    // Python's sum(): left to right.
    let mean =
        |f: fn(&Line) -> f64| lines.iter().map(f).fold(0.0, |a, b| a + b) / lines.len() as f64;
    Ok(Evaluation {
        accuracy: mean(|l| l.accuracy),
        word_accuracy: mean(|l| l.word_accuracy),
        recall: mean(|l| l.recall),
        warnings,
    })
}

fn write_lines(path: &Path, lines: &[Line]) -> Result<()> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("sentence_id", DataType::Utf8, false),
        Field::new("fragment_id", DataType::Utf8, false),
        Field::new("fragment_word_accuracy", DataType::Float64, true),
        Field::new("accuracy", DataType::Float64, false),
        Field::new("word_accuracy", DataType::Float64, false),
        Field::new("recall", DataType::Float64, false),
    ]));
    let floats = |f: fn(&Line) -> Option<f64>| {
        Arc::new(Float64Array::from(lines.iter().map(f).collect::<Vec<_>>())) as ArrayRef
    };
    let strings = |f: fn(&Line) -> &str| {
        Arc::new(StringArray::from(lines.iter().map(f).collect::<Vec<_>>())) as ArrayRef
    };
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            strings(|l| &l.sentence),
            strings(|l| &l.fragment),
            floats(|l| l.score),
            floats(|l| Some(l.accuracy)),
            floats(|l| Some(l.word_accuracy)),
            floats(|l| Some(l.recall)),
        ],
    )?;
    let mut writer = AtomicParquetWriter::create(path, schema, vec![])?;
    writer.write(&batch)?;
    writer.finish()
}

/// `str(x)` of a Python 3 float: the shortest digits that read back as `x` (as Rust's), in
/// fixed notation when the decimal exponent is in -4..16 (with `.0` when integral), else as
/// `1.5e-05` / `1e+16`.
pub fn python_float(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    let text = if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let point = exponent as usize + 1;
            if digits.len() <= point {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exponent - 1) as usize))
        }
    } else {
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{mantissa}e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.abs()
        )
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use super::python_float;

    #[test]
    fn floats_print_as_python_prints_them() {
        for (x, python) in [
            (1.0, "1.0"),
            (0.6325301204819277, "0.6325301204819277"),
            (0.8004329004329007, "0.8004329004329007"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (1e16, "1e+16"),
            (123456789012345.6, "123456789012345.6"),
            (1.5, "1.5"),
            (100.0, "100.0"),
            (-0.25, "-0.25"),
            (0.0, "0.0"),
            (2.0 / 3.0, "0.6666666666666666"),
        ] {
            assert_eq!(python_float(x), python, "{x:e}");
        }
    }
}
