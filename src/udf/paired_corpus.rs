//! Paired tests of corpus BLEU, chrF and TER over rows of their sufficient statistics (what
//! `bleu_stats`, `chrf_stats` and `ter_stats` give), one system against a baseline on the same
//! segments; many systems in one `GROUP BY`. Every row is known by its segment. Two kinds:
//!
//! - `bleu_paired_bootstrap`, `bleu_approx_randomization` (and chrF's, TER's) stream in constant
//!   memory: each segment's draws come from a generator keyed by (seed, segment)
//!   ([`KeyedTotals`]), so any corpus size gives one answer however its rows are partitioned, and
//!   a resample is scored as the corpus aggregate scores its summed statistics.
//! - `bleu_paired_bs`, `bleu_paired_ar` are sacrebleu's `--paired-bs` and `--paired-ar` number
//!   for number ([`crate::sacrebleu::paired`]): numpy's generator resamples the
//!   segments in their order, so every row is held until the end, and resamples are scored as
//!   sacrebleu scores them ([`SacreMetric`]).

use std::marker::PhantomData;
use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, Int64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Int64Type};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Documentation, Signature};

use super::args::{Shapes, checked_arguments, optional_tail, signature};
use super::docs::DOC_SECTION;
use super::sacrebleu::Metric;
use super::significance::{Constants, DEFAULT_RESAMPLES, DEFAULT_TRIALS, answer, rows_state};
use crate::sacrebleu::corpus::SacreMetric;
use crate::sacrebleu::paired::{
    Baseline, Stats, bootstrap_indices, estimate_ci, paired_bootstrap, paired_randomization,
    randomization_flips,
};
use crate::schema::ColumnType::{Float, Floats, Int, Text};
use crate::stats::keyed_totals::{KeyedRows, KeyedTotals, PairedTest as Test};

/// Which generator: the streaming Poisson bootstrap, or numpy's as sacrebleu draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Draws {
    Streaming,
    Sacrebleu,
}

/// A paired test of metric `M`'s corpus score.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CorpusTestUdf<M> {
    test: Test,
    draws: Draws,
    signature: Signature,
    metric: PhantomData<M>,
}

impl<M: Metric> CorpusTestUdf<M> {
    pub fn new(test: Test, draws: Draws) -> Self {
        CorpusTestUdf {
            test,
            draws,
            signature: signature(shapes(test, draws)),
            metric: PhantomData,
        }
    }

    /// The four tests of `M`.
    pub fn all() -> [Self; 4] {
        [
            Self::new(Test::Bootstrap, Draws::Streaming),
            Self::new(Test::Randomization, Draws::Streaming),
            Self::new(Test::Bootstrap, Draws::Sacrebleu),
            Self::new(Test::Randomization, Draws::Sacrebleu),
        ]
    }

    fn name_str(&self) -> &'static str {
        match (self.test, self.draws) {
            (Test::Bootstrap, Draws::Streaming) => M::TEST_NAMES[0],
            (Test::Randomization, Draws::Streaming) => M::TEST_NAMES[1],
            (Test::Bootstrap, Draws::Sacrebleu) => M::TEST_NAMES[2],
            (Test::Randomization, Draws::Sacrebleu) => M::TEST_NAMES[3],
        }
    }

    /// The value columns before the constants: segment, stats_a, stats_b.
    const VALUES: usize = 3;
}

const BOOTSTRAP: Shapes = &optional_tail::<5>(
    &[
        ("segment", Int),
        ("stats_a", Floats),
        ("stats_b", Floats),
        ("resamples", Int),
        ("seed", Int),
        ("level", Float),
        ("options", Text),
    ],
    3,
);
const SACREBLEU_BOOTSTRAP: Shapes = &optional_tail::<4>(
    &[
        ("segment", Int),
        ("stats_a", Floats),
        ("stats_b", Floats),
        ("resamples", Int),
        ("seed", Int),
        ("options", Text),
    ],
    3,
);
const RANDOMIZATION: Shapes = &optional_tail::<4>(
    &[
        ("segment", Int),
        ("stats_a", Floats),
        ("stats_b", Floats),
        ("trials", Int),
        ("seed", Int),
        ("options", Text),
    ],
    3,
);

fn shapes(test: Test, draws: Draws) -> Shapes {
    match (test, draws) {
        (Test::Bootstrap, Draws::Streaming) => BOOTSTRAP,
        (Test::Randomization, Draws::Streaming) => RANDOMIZATION,
        (Test::Bootstrap, Draws::Sacrebleu) => SACREBLEU_BOOTSTRAP,
        (Test::Randomization, Draws::Sacrebleu) => RANDOMIZATION,
    }
}

/// The answer's fields, all Float64 but `n` (the segments used).
fn fields(test: Test, draws: Draws) -> Fields {
    let names: &[&str] = match (test, draws) {
        (Test::Bootstrap, Draws::Streaming) => &["a", "b", "delta", "low", "high", "p_value"],
        (Test::Bootstrap, Draws::Sacrebleu) => {
            &["a", "b", "p_value", "a_mean", "a_ci", "b_mean", "b_ci"]
        }
        (Test::Randomization, _) => &["a", "b", "p_value"],
    };
    names
        .iter()
        .map(|name| Field::new(*name, DataType::Float64, true))
        .chain([Field::new("n", DataType::UInt64, false)])
        .collect()
}

/// The documentation of test `name` of the metric scored as `score` ("BLEU"), whose statistics
/// and corpus functions are `stats` and `corpus`.
fn documentation(
    name: &str,
    score: &str,
    stats: &str,
    corpus: &str,
    test: Test,
    draws: Draws,
) -> Documentation {
    let prefix = stats.trim_end_matches("_stats");
    let (what, syntax, example) = match (test, draws) {
        (Test::Bootstrap, Draws::Streaming) => (
            format!(
                "Paired bootstrap of corpus {score}: system b against the baseline a on the same \
                 segments, each resample's {score} computed from the resampled statistics (not a mean \
                 of sentence scores). Struct{{a, b, delta, low, high, p_value, n}}: the two corpus \
                 scores (as {corpus} gives them), delta = b - a with its percentile interval at level \
                 (default 0.95), sacrebleu's p-value (1 when delta is 0), the segments used. Streams \
                 in constant memory: a Poisson bootstrap whose draws are keyed by (seed, segment), \
                 the same answer however rows are partitioned (each segment once a group). For \
                 sacrebleu's own resamples, {prefix}_paired_bs."
            ),
            format!(
                "{name}(segment, stats_a, stats_b [, resamples [, seed [, level [, options]]]])"
            ),
            format!(
                "SELECT s.system, {name}(segment, b.stats, s.stats)['p_value'] FROM s JOIN b USING (segment) GROUP BY s.system;"
            ),
        ),
        (Test::Randomization, Draws::Streaming) => (
            format!(
                "Paired approximate randomization of corpus {score}: in each trial every segment's \
                 statistics swap systems with probability 1/2. Struct{{a, b, p_value, n}}; p = \
                 (trials with |b - a| beyond the observed + 1) / (trials + 1), 1 when the scores \
                 are equal. Streams, its coins keyed by (seed, segment), as {prefix}_paired_bootstrap."
            ),
            format!("{name}(segment, stats_a, stats_b [, trials [, seed [, options]]])"),
            format!(
                "SELECT s.system, {name}(segment, b.stats, s.stats) FROM s JOIN b USING (segment) GROUP BY s.system;"
            ),
        ),
        (Test::Bootstrap, Draws::Sacrebleu) => (
            format!(
                "sacrebleu's paired bootstrap of corpus {score} (`--paired-bs`), number for number: \
                 the segments in the order of `segment` (each once), resampled with numpy's \
                 default_rng(seed). Struct{{a, b, p_value, a_mean, a_ci, b_mean, b_ci, n}}: the \
                 baseline's and the system's scores, the system's p-value, each one's resampled mean \
                 and 95% half-interval, as sacrebleu prints them. Holds every row; segments x \
                 resamples at most 2^28 (for more, {prefix}_paired_bootstrap)."
            ),
            format!("{name}(segment, stats_a, stats_b [, resamples [, seed [, options]]])"),
            format!(
                "SELECT s.system, {name}(segment, b.stats, s.stats) FROM s JOIN b USING (segment) GROUP BY s.system;"
            ),
        ),
        (Test::Randomization, Draws::Sacrebleu) => (
            format!(
                "sacrebleu's paired approximate randomization of corpus {score} (`--paired-ar`), \
                 number for number: the segments in the order of `segment`, numpy's coin flips from \
                 default_rng(seed). Struct{{a, b, p_value, n}}. Holds every row; segments x trials \
                 at most 2^28."
            ),
            format!("{name}(segment, stats_a, stats_b [, trials [, seed [, options]]])"),
            format!(
                "SELECT s.system, {name}(segment, b.stats, s.stats) FROM s JOIN b USING (segment) GROUP BY s.system;"
            ),
        ),
    };
    let draws_doc = match test {
        Test::Bootstrap => (
            "resamples",
            "Bootstrap resamples, a constant; default 1000.",
        ),
        Test::Randomization => ("trials", "Randomization trials, a constant; default 10000."),
    };
    let mut builder = Documentation::builder(
        DOC_SECTION,
        format!("{what} Rows with a NULL argument are left out; docs/significance.md gives every definition."),
        syntax,
    )
    .with_sql_example(example);
    let segment = match draws {
        Draws::Streaming => {
            "The segment's number, each once in a group: its draws are keyed by it."
        }
        Draws::Sacrebleu => {
            "The segment's place in the test set: resamples draw segments in this order."
        }
    };
    builder = builder
        .with_argument("segment", segment)
        .with_argument(
            "stats_a",
            format!("The baseline's statistics of the segment, from {stats}."),
        )
        .with_argument(
            "stats_b",
            format!(
                "The system's statistics of the same segment, from {stats} with the same options."
            ),
        )
        .with_argument(draws_doc.0, draws_doc.1)
        .with_argument("seed", "A non-negative integer constant; default 12345.");
    if (test, draws) == (Test::Bootstrap, Draws::Streaming) {
        builder = builder.with_argument(
            "level",
            "Confidence level, a constant in (0, 1); default 0.95.",
        );
    }
    builder
        .with_argument(
            "options",
            format!(
                "A constant: the options the statistics were made with, in the words of sacrebleu's \
                 signature, as {corpus} takes them (how a total is scored: smoothing, order...)."
            ),
        )
        .build()
}

/// Every test's documentation, by function name.
static DOCS: LazyLock<Vec<(&'static str, Documentation)>> = LazyLock::new(|| {
    use super::bleu::Bleu;
    use super::chrf::Chrf;
    use super::ter::Ter;
    fn of<M: Metric>() -> Vec<(&'static str, Documentation)> {
        CorpusTestUdf::<M>::all()
            .iter()
            .map(|udf| {
                let name = udf.name_str();
                let score = M::corpus_options().name();
                let doc =
                    documentation(name, &score, M::NAMES[1], M::NAMES[2], udf.test, udf.draws);
                (name, doc)
            })
            .collect()
    }
    [of::<Bleu>(), of::<Chrf>(), of::<Ter>()].concat()
});

impl<M: Metric> AggregateUDFImpl for CorpusTestUdf<M> {
    fn name(&self) -> &str {
        self.name_str()
    }

    checked_arguments!(|udf| shapes(udf.test, udf.draws));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Struct(fields(self.test, self.draws)))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(rows_state(args))
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let name = self.name_str();
        let constants = Constants {
            function: name,
            args: &args,
            first: Self::VALUES,
        };
        let draws = match self.test {
            Test::Bootstrap => constants.draws(0, "resamples", DEFAULT_RESAMPLES)?,
            Test::Randomization => constants.draws(0, "trials", DEFAULT_TRIALS)?,
        };
        let seed = constants.seed(1)?;
        let streaming_bootstrap = (self.test, self.draws) == (Test::Bootstrap, Draws::Streaming);
        let level = match streaming_bootstrap {
            true => constants.level(2)?,
            false => 0.95,
        };
        let options_at = if streaming_bootstrap { 3 } else { 2 };
        let metric = match constants.text(options_at, "options")? {
            None => M::corpus_options(),
            Some(text) => match M::corpus_options().parse_over(&text) {
                Ok(options) => options,
                Err(e) => return plan_err!("{name}: {e}"),
            },
        };
        let rows = match self.draws {
            Draws::Streaming => Rows::Streaming(KeyedTotals::new(self.test, draws, seed)),
            Draws::Sacrebleu => Rows::Sacrebleu {
                width: metric.stats_len(),
                segments: Vec::new(),
                values: Vec::new(),
            },
        };
        Ok(Box::new(TestAccumulator {
            name,
            stats_function: M::NAMES[1],
            streaming_twin: match self.test {
                Test::Bootstrap => M::TEST_NAMES[0],
                Test::Randomization => M::TEST_NAMES[1],
            },
            test: self.test,
            fields: fields(self.test, self.draws),
            metric,
            params: (draws, seed, level),
            rows,
            counts: Vec::new(),
            sides: Default::default(),
            values: Vec::new(),
            batch: KeyedRows::default(),
        }))
    }

    fn documentation(&self) -> Option<&Documentation> {
        DOCS.iter()
            .find(|(name, _)| *name == self.name_str())
            .map(|(_, doc)| doc)
    }
}

/// The rows seen so far: the draws' totals, or every (segment, a, b) row for sacrebleu's.
#[derive(Debug)]
enum Rows {
    Streaming(KeyedTotals),
    Sacrebleu {
        width: usize,
        segments: Vec<i64>,
        /// Each row's a then b as sacrebleu holds them, `2 * width` values a row.
        values: Vec<f64>,
    },
}

impl Rows {
    fn len(&self) -> u64 {
        match self {
            Rows::Streaming(totals) => totals.rows(),
            Rows::Sacrebleu { segments, .. } => segments.len() as u64,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Rows::Streaming(totals) => totals.to_bytes(),
            Rows::Sacrebleu {
                width,
                segments,
                values,
            } => {
                let mut bytes = Vec::with_capacity(segments.len() * (2 * width + 1) * 8);
                for (segment, row) in segments.iter().zip(values.chunks_exact(2 * width)) {
                    bytes.extend_from_slice(&segment.to_le_bytes());
                    row.iter()
                        .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
                }
                bytes
            }
        }
    }

    fn merge_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Rows::Streaming(totals) => totals.merge_bytes(bytes),
            Rows::Sacrebleu {
                width,
                segments,
                values,
            } => {
                let record = (2 * *width + 1) * 8;
                if bytes.len() % record != 0 {
                    return Err(format!(
                        "a state of {} bytes is not a whole number of {record}-byte rows",
                        bytes.len()
                    ));
                }
                for words in bytes.chunks_exact(record) {
                    let word = |i: usize| words[i * 8..][..8].try_into().expect("8 bytes");
                    segments.push(i64::from_le_bytes(word(0)));
                    values.extend((1..=2 * *width).map(|i| f64::from_le_bytes(word(i))));
                }
                Ok(())
            }
        }
    }

    fn size(&self) -> usize {
        match self {
            Rows::Streaming(totals) => totals.size(),
            Rows::Sacrebleu {
                segments, values, ..
            } => (segments.capacity() + values.capacity()) * 8,
        }
    }
}

#[derive(Debug)]
struct TestAccumulator {
    name: &'static str,
    /// The function that makes the statistics the test reads.
    stats_function: &'static str,
    /// The streaming test that answers the same question.
    streaming_twin: &'static str,
    test: Test,
    fields: Fields,
    metric: SacreMetric,
    /// Resamples or trials, the seed, the bootstrap's level.
    params: (u64, u64, f64),
    rows: Rows,
    /// One side's counts as read, and the row's two sides as the rows keep them.
    counts: Vec<u64>,
    sides: [Vec<u64>; 2],
    values: Vec<f64>,
    /// A batch's rows for the streaming tests, added at once.
    batch: KeyedRows,
}

impl TestAccumulator {
    /// Row `row` of a statistics column into `self.counts`; false when it is NULL or holds a
    /// NULL.
    fn read(
        &mut self,
        column: &str,
        lists: &ListArray,
        items: &Int64Array,
        row: usize,
    ) -> Result<bool> {
        let offsets = lists.value_offsets();
        let range = offsets[row] as usize..offsets[row + 1] as usize;
        if lists.is_null(row) || items.null_count() > 0 && range.clone().any(|i| items.is_null(i)) {
            return Ok(false);
        }
        let counts = &items.values()[range];
        let expected = self.metric.counts_len();
        if counts.len() != expected || counts.iter().any(|&x| x < 0) {
            return exec_err!(
                "{}: {column} is {counts:?}, where {} with these options gives {expected} counts, \
                 none negative (were the statistics made with other options than the test's?)",
                self.name,
                self.stats_function
            );
        }
        self.counts.clear();
        self.counts.extend(counts.iter().map(|&x| x as u64));
        Ok(true)
    }

    /// Keep `self.counts` as side `side` of the row: lifted to what it adds to a corpus total
    /// (streaming), or as sacrebleu holds it.
    fn keep(&mut self, side: usize) {
        match self.rows {
            Rows::Streaming(_) => {
                self.sides[side].clear();
                self.metric.add_counts(&mut self.sides[side], &self.counts);
            }
            Rows::Sacrebleu { .. } => self.metric.row_of_stats(&self.counts, &mut self.values),
        }
    }

    fn evaluate_sacrebleu(
        &self,
        width: usize,
        segments: &[i64],
        values: &[f64],
    ) -> Result<Vec<Option<f64>>> {
        let (draws, seed, _) = self.params;
        let n = segments.len();
        if let Err(why) = crate::sacrebleu::paired::check_draws(n, draws) {
            return exec_err!(
                "{}: {why}; {} streams and takes any size",
                self.name,
                self.streaming_twin
            );
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&r| segments[r]);
        if let Some(pair) = order.windows(2).find(|w| segments[w[0]] == segments[w[1]]) {
            return exec_err!(
                "{}: segment {} appears twice in a group (each segment is one row of the test set)",
                self.name,
                segments[pair[0]]
            );
        }
        let side = |half: usize| Stats {
            width,
            values: order
                .iter()
                .flat_map(|&r| &values[(2 * r + half) * width..][..width])
                .copied()
                .collect(),
        };
        let (a, b) = (side(0), side(1));
        let seed = u128::from(seed);
        Ok(match self.test {
            Test::Bootstrap => {
                let indices = bootstrap_indices(seed, n, draws as usize);
                let baseline = Baseline::new(&self.metric, &a, &indices);
                let (a_mean, a_ci) = estimate_ci(&baseline.resampled);
                let tested = paired_bootstrap(&self.metric, &baseline, &b, &indices);
                vec![
                    Some(baseline.score),
                    Some(tested.score),
                    tested.p_value,
                    Some(a_mean.value()),
                    Some(a_ci.value()),
                    tested.mean.map(|x| x.value()),
                    tested.ci.map(|x| x.value()),
                ]
            }
            Test::Randomization => {
                let flips = randomization_flips(seed, n, draws as usize);
                let tested = paired_randomization(&self.metric, &a, &b, &flips);
                vec![
                    Some(self.metric.score(&a.sums())),
                    Some(tested.score),
                    tested.p_value,
                ]
            }
        })
    }

    fn evaluate_streaming(&self, totals: &KeyedTotals) -> Vec<Option<f64>> {
        let (_, _, level) = self.params;
        let score = |total: &[u64]| self.metric.corpus_score(total);
        match self.test {
            Test::Bootstrap => {
                let p = totals.paired_bootstrap(level, score);
                vec![
                    p.map(|p| p.a),
                    p.map(|p| p.b),
                    p.map(|p| p.delta.estimate),
                    p.map(|p| p.delta.low),
                    p.map(|p| p.delta.high),
                    p.map(|p| p.p_value),
                ]
            }
            Test::Randomization => {
                let t = totals.approx_randomization(score);
                vec![t.map(|t| t.0), t.map(|t| t.1), t.map(|t| t.2)]
            }
        }
    }
}

impl Accumulator for TestAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let segments = cast(&values[0], &DataType::Int64)?;
        let segments = segments.as_primitive::<Int64Type>();
        let item = DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true)));
        let (a, b) = (cast(&values[1], &item)?, cast(&values[2], &item)?);
        let (a, b) = (a.as_list::<i32>(), b.as_list::<i32>());
        let (items_a, items_b) = (a.values().as_primitive(), b.values().as_primitive());
        for row in 0..segments.len() {
            if segments.is_null(row) {
                continue;
            }
            self.values.clear();
            if !self.read("stats_a", a, items_a, row)? {
                continue;
            }
            self.keep(0);
            if !self.read("stats_b", b, items_b, row)? {
                continue;
            }
            self.keep(1);
            let segment = segments.value(row);
            match &mut self.rows {
                Rows::Streaming(_) => {
                    self.batch
                        .push(segment as u64, &self.sides[0], &self.sides[1])
                }
                Rows::Sacrebleu {
                    segments, values, ..
                } => {
                    segments.push(segment);
                    values.extend_from_slice(&self.values);
                }
            }
        }
        if let Rows::Streaming(totals) = &mut self.rows {
            totals.add(&self.batch);
            self.batch.clear();
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let states: &BinaryArray = states[0].as_binary();
        for bytes in states.iter().flatten() {
            if let Err(e) = self.rows.merge_bytes(bytes) {
                return exec_err!("{}: {e}", self.name);
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.rows.to_bytes()))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let n = self.rows.len();
        let values = match &self.rows {
            Rows::Streaming(totals) => self.evaluate_streaming(totals),
            Rows::Sacrebleu { .. } if n == 0 => vec![None; self.fields.len() - 1],
            Rows::Sacrebleu {
                width,
                segments,
                values,
            } => self.evaluate_sacrebleu(*width, segments, values)?,
        };
        answer(&self.fields, values, n)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.rows.size()
    }
}
