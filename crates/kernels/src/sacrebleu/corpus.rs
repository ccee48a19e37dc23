//! sacrebleu's three metrics behind one face, as its command line and its significance tests
//! use them (`pairmetrics sacrebleu`, [`crate::sacrebleu::paired`]): a segment's statistics
//! as sacrebleu holds them, the score of their sum, and the score of a resample's sum taken in
//! numpy's float32 as sacrebleu's tests take it.
//!
//! sacrebleu keeps a segment's statistics as Python numbers: BLEU's and chrF's are integers,
//! TER's are its edits and the mean reference length (a float). Here they are f64, which holds
//! both exactly. Its bootstrap converts them to a float32 array and scores each resample's sum
//! with the same Python code, where numpy 2's promotion rules (NEP 50) make a float32 meeting a
//! Python number stay float32: [`Py`] follows those rules step by step.

use std::ops::{Add, Div, Mul};

use crate::text::python::fixed;

use crate::sacrebleu::bleu::{self, BleuOptions, Smoothing};
use crate::sacrebleu::chrf::{self, ChrfOptions};
use crate::sacrebleu::ter::{self, TerOptions};

/// One of sacrebleu's metrics with its options.
#[derive(Debug, Clone, PartialEq)]
pub enum SacreMetric {
    Bleu(BleuOptions),
    Chrf(ChrfOptions),
    Ter(TerOptions),
}

/// Buffers the metrics reuse from segment to segment.
#[derive(Debug, Default)]
pub struct Scratch {
    bleu: bleu::Scratch,
    chrf: chrf::Scratch,
    ter: ter::Scratch,
    counts: Vec<u64>,
}

/// A score as Python holds it: a Python float, or a numpy float32 (chrF and TER of float32
/// statistics). Which one it is decides the arithmetic and the dtype of arrays of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Py {
    Float(f64),
    Float32(f32),
}

impl Py {
    pub fn value(self) -> f64 {
        match self {
            Py::Float(x) => x,
            Py::Float32(x) => f64::from(x),
        }
    }

    fn is_zero(self) -> bool {
        self.value() == 0.0
    }
}

/// NEP 50: a Python float meeting a float32 is cast to float32 and the operation is float32's.
macro_rules! python_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for Py {
            type Output = Py;
            fn $method(self, other: Py) -> Py {
                match (self, other) {
                    (Py::Float(a), Py::Float(b)) => Py::Float(a $op b),
                    (Py::Float32(a), Py::Float32(b)) => Py::Float32(a $op b),
                    (Py::Float(a), Py::Float32(b)) => Py::Float32(a as f32 $op b),
                    (Py::Float32(a), Py::Float(b)) => Py::Float32(a $op b as f32),
                }
            }
        }
    };
}
python_op!(Add, add, +);
python_op!(Mul, mul, *);
python_op!(Div, div, /);

impl SacreMetric {
    /// The score's name: `BLEU`, `chrF2`, `chrF2++`, `TER`.
    pub fn name(&self) -> String {
        match self {
            SacreMetric::Bleu(_) => "BLEU".to_string(),
            SacreMetric::Chrf(options) => options.name(),
            SacreMetric::Ter(_) => "TER".to_string(),
        }
    }

    /// sacrebleu's signature for `refs` references per segment, with the entries of a
    /// statistical test (`bs:1000|seed:12345`, say) after `nrefs` as sacrebleu places them;
    /// `short` abbreviates the keys as `--short` does.
    pub fn signature(&self, refs: usize, test: &[(&str, String)], short: bool) -> String {
        let long = match self {
            SacreMetric::Bleu(options) => options.signature(Some(refs)),
            SacreMetric::Chrf(options) => options.signature(Some(refs)),
            SacreMetric::Ter(options) => options.signature(Some(refs)),
        };
        let mut items: Vec<(String, String)> = long
            .split('|')
            .map(|item| {
                item.split_once(':')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .expect("key:value")
            })
            .collect();
        let after_nrefs = 1;
        for (i, (key, value)) in test.iter().enumerate() {
            items.insert(after_nrefs + i, (key.to_string(), value.clone()));
        }
        let abbreviation = |key: &str| -> String {
            let short_key = match (self, key) {
                (_, "version") => "v",
                (_, "nrefs") => "#",
                (_, "seed") => "rs",
                (_, "case") => "c",
                (_, "eff") => "e",
                (SacreMetric::Ter(_), "tok") => "t",
                (_, "smooth" | "space") => "s",
                (_, "norm") => "nr",
                (_, "punct") => "pn",
                (_, "asian") => "as",
                (_, other) => other,
            };
            short_key.to_string()
        };
        items
            .iter()
            .map(|(key, value)| {
                format!(
                    "{}:{value}",
                    if short {
                        abbreviation(key)
                    } else {
                        key.clone()
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    /// Options written in the words of sacrebleu's signature (`tok:char|smooth:floor[0.1]`, say),
    /// over these.
    pub fn parse_over(&self, text: &str) -> Result<SacreMetric, String> {
        Ok(match self {
            SacreMetric::Bleu(options) => {
                SacreMetric::Bleu(options.parse(text).map_err(|e| e.to_string())?)
            }
            SacreMetric::Chrf(options) => {
                SacreMetric::Chrf(options.parse(text).map_err(|e| e.to_string())?)
            }
            SacreMetric::Ter(options) => {
                SacreMetric::Ter(options.parse(text).map_err(|e| e.to_string())?)
            }
        })
    }

    /// How many integers a segment's counts are (what the `*_stats` functions give: TER's
    /// are `[edits, reference words, references]`).
    pub fn counts_len(&self) -> usize {
        match self {
            SacreMetric::Bleu(options) => options.stats_len(),
            SacreMetric::Chrf(options) => options.stats_len(),
            SacreMetric::Ter(_) => 3,
        }
    }

    /// A segment's counts into `counts` (resized to fit).
    pub fn counts(
        &self,
        hyp: &str,
        refs: &[&str],
        scratch: &mut Scratch,
        counts: &mut Vec<u64>,
    ) -> Result<(), String> {
        counts.resize(self.counts_len(), 0);
        match self {
            SacreMetric::Bleu(options) => {
                bleu::segment_stats(hyp, refs, options, &mut scratch.bleu, counts)
                    .map_err(|e| e.to_string())
            }
            SacreMetric::Chrf(options) => {
                chrf::segment_stats(hyp, refs, options, &mut scratch.chrf, counts)
                    .map_err(|e| e.to_string())
            }
            SacreMetric::Ter(options) => {
                ter::segment_stats(hyp, refs, options, &mut scratch.ter, counts)
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// The sentence score of one segment's counts.
    pub fn sentence_score(&self, counts: &[u64]) -> f64 {
        match self {
            SacreMetric::Bleu(options) => bleu::bleu(counts, options).score,
            SacreMetric::Chrf(options) => chrf::f_score(counts, options),
            SacreMetric::Ter(_) => ter::sentence_score(counts),
        }
    }

    /// Add a segment's counts to a corpus total, which starts empty (element-wise but for TER,
    /// whose total keeps reference words apart by number of references). Totals always merge
    /// element-wise.
    pub fn add_counts(&self, total: &mut Vec<u64>, counts: &[u64]) {
        match self {
            SacreMetric::Ter(_) => ter::add_stats(total, counts),
            _ => crate::add_stats(total, counts),
        }
    }

    /// The corpus score of a total of counts.
    pub fn corpus_score(&self, total: &[u64]) -> f64 {
        match self {
            SacreMetric::Ter(_) => ter::corpus_score(total),
            _ => self.sentence_score(total),
        }
    }

    /// How many numbers a segment's statistics are as sacrebleu holds them: its counts, but TER's
    /// three are two (edits, mean reference length).
    pub fn stats_len(&self) -> usize {
        match self {
            SacreMetric::Ter(_) => 2,
            _ => self.counts_len(),
        }
    }

    /// A segment's statistics as sacrebleu holds them, appended to `out`.
    pub fn segment_stats(
        &self,
        hyp: &str,
        refs: &[&str],
        scratch: &mut Scratch,
        out: &mut Vec<f64>,
    ) -> Result<(), String> {
        // The counts' buffer is lent out of the scratch that `counts` borrows whole.
        let mut counts = std::mem::take(&mut scratch.counts);
        let counted = self.counts(hyp, refs, scratch, &mut counts);
        if counted.is_ok() {
            self.row_of_stats(&counts, out);
        }
        scratch.counts = counts;
        counted
    }

    /// A segment's statistics as the `*_stats` functions give them (TER's as `[edits, reference
    /// words, references]`), appended to `out` as sacrebleu holds them (TER's as `[edits, mean
    /// reference length]`, Python floats).
    pub fn row_of_stats(&self, stats: &[u64], out: &mut Vec<f64>) {
        match self {
            SacreMetric::Ter(_) => out.extend([stats[0] as f64, stats[1] as f64 / stats[2] as f64]),
            _ => out.extend(stats.iter().map(|&x| x as f64)),
        }
    }

    /// The score of summed statistics (sacrebleu's `_aggregate_and_compute`: Python integers
    /// for BLEU and chrF, a float sum for TER).
    pub fn score(&self, sums: &[f64]) -> f64 {
        match self {
            SacreMetric::Bleu(options) => bleu::bleu(&integers(sums), options).score,
            SacreMetric::Chrf(options) => chrf::f_score(&integers(sums), options),
            SacreMetric::Ter(_) => ter_rate(Py::Float(sums[0]), Py::Float(sums[1])).value(),
        }
    }

    /// What sacrebleu prints after a score: BLEU's precisions, brevity penalty and lengths.
    pub fn verbose(&self, sums: &[f64]) -> Option<String> {
        let SacreMetric::Bleu(options) = self else {
            return None;
        };
        let result = bleu::bleu(&integers(sums), options);
        let precisions: Vec<String> = result.precisions.iter().map(|&p| fixed(p, 1)).collect();
        let ratio = if result.ref_len > 0 {
            result.sys_len as f64 / result.ref_len as f64
        } else {
            0.0
        };
        Some(format!(
            "{} (BP = {} ratio = {} hyp_len = {} ref_len = {})",
            precisions.join("/"),
            fixed(result.bp, 3),
            fixed(ratio, 3),
            result.sys_len,
            result.ref_len
        ))
    }

    /// The score of a bootstrap resample's float32 sums, as sacrebleu's
    /// `_compute_score_from_stats` computes it on a numpy float32 row.
    pub fn resample_score(&self, sums: &[f32]) -> Py {
        match self {
            SacreMetric::Bleu(options) => Py::Float(bleu_of_float32(sums, options)),
            SacreMetric::Chrf(options) => chrf_of_float32(sums, options),
            SacreMetric::Ter(_) => ter_rate(Py::Float32(sums[0]), Py::Float32(sums[1])),
        }
    }

    /// The score of an approximate-randomisation trial's sums: numpy int64 rows for BLEU and
    /// chrF (float64 scores, as for Python integers, except that add-k's value is truncated on
    /// its way into the integer row), float64 for TER.
    pub fn trial_score(&self, sums: &[f64]) -> f64 {
        match self {
            SacreMetric::Bleu(options) => {
                let mut options = options.clone();
                if let Smoothing::AddK(k) = options.smoothing {
                    options.smoothing = Smoothing::AddK(k.trunc());
                }
                bleu::bleu(&integers(sums), &options).score
            }
            _ => self.score(sums),
        }
    }
}

fn integers(sums: &[f64]) -> Vec<u64> {
    sums.iter().map(|&x| x as u64).collect()
}

/// TER's `_compute_score_from_stats`: 100 × edits / reference length.
fn ter_rate(edits: Py, ref_length: Py) -> Py {
    let rate = if ref_length.value() > 0.0 {
        edits / ref_length
    } else if edits.value() > 0.0 {
        Py::Float(1.0)
    } else {
        Py::Float(0.0)
    };
    Py::Float(100.0) * rate
}

/// `BLEU.compute_bleu` on a float32 row: the lengths become Python integers, the precisions
/// float32, their logarithms and the score Python floats.
fn bleu_of_float32(sums: &[f32], options: &BleuOptions) -> f64 {
    let order = options.max_order;
    let lengths = (sums[0] as i64 as u64, sums[1] as i64 as u64);
    let (correct, total) = (&sums[2..2 + order], &sums[2 + order..2 + 2 * order]);
    bleu::compute_bleu::<f32>(lengths, correct.to_vec(), total.to_vec(), options).0
}

/// `CHRF._compute_f_score` on a float32 row, each operation typed as Python types it.
fn chrf_of_float32(sums: &[f32], options: &ChrfOptions) -> Py {
    let eps = Py::Float(1e-16);
    let factor = Py::Float(f64::from(options.beta * options.beta));
    let one_plus_factor = Py::Float(f64::from(1 + options.beta * options.beta));
    let (mut score, mut avg_precision, mut avg_recall, mut effective) =
        (Py::Float(0.0), Py::Float(0.0), Py::Float(0.0), 0u32);
    for order in sums.chunks_exact(3) {
        let (hyp, reference, matched) = (order[0], order[1], Py::Float32(order[2]));
        let precision = if hyp > 0.0 {
            matched / Py::Float32(hyp)
        } else {
            eps
        };
        let recall = if reference > 0.0 {
            matched / Py::Float32(reference)
        } else {
            eps
        };
        let denominator = factor * precision + recall;
        score = score
            + if denominator.value() > 0.0 {
                one_plus_factor * precision * recall / denominator
            } else {
                eps
            };
        if hyp > 0.0 && reference > 0.0 {
            avg_precision = avg_precision + precision;
            avg_recall = avg_recall + recall;
            effective += 1;
        }
    }
    if options.eps_smoothing {
        return Py::Float(100.0) * score / Py::Float(options.orders() as f64);
    }
    if effective == 0 {
        return Py::Float(0.0);
    }
    avg_precision = avg_precision / Py::Float(f64::from(effective));
    avg_recall = avg_recall / Py::Float(f64::from(effective));
    if (avg_precision + avg_recall).is_zero() {
        return Py::Float(0.0);
    }
    let score = one_plus_factor * avg_precision * avg_recall;
    let score = score / (factor * avg_precision + avg_recall);
    Py::Float(100.0) * score
}
