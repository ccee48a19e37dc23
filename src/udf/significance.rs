//! `bootstrap_ci`, `paired_bootstrap`, `approx_randomization` and their `pooled_` forms:
//! aggregates around `metrics::significance`. Each partition keeps its distinct rows with their
//! counts; the answer is computed once, after the merge.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, Float64Array, StructArray, UInt64Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Float64Type};
use datafusion::common::{Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Documentation, Signature};

use super::args::{Shapes, checked_arguments, constant, optional_tail, scalar_text, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::schema::ColumnType::{Float, Int};
use crate::stats::significance::{self as kernel, Row, Sample};

/// Which test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Test {
    BootstrapCi,
    PairedBootstrap,
    ApproxRandomization,
}

/// Defaults: sacrebleu's (its seed is 12345; 1,000 bootstrap resamples, 10,000 AR trials).
pub const DEFAULT_LEVEL: f64 = 0.95;
pub const DEFAULT_RESAMPLES: u64 = 1000;
pub const DEFAULT_TRIALS: u64 = 10_000;
pub const DEFAULT_SEED: u64 = 12345;
/// More draws than this is a typo, not a wish for precision.
const MAX_DRAWS: u64 = 10_000_000;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SignificanceUdf {
    test: Test,
    /// Ratios of sums (numerator and denominator columns) instead of means.
    pooled: bool,
    signature: Signature,
}

impl SignificanceUdf {
    pub fn new(test: Test, pooled: bool) -> Self {
        SignificanceUdf {
            test,
            pooled,
            signature: signature(shapes(test, pooled)),
        }
    }

    /// The value columns: 1 (x), 2 (a, b, or num, den) or 4.
    fn values(&self) -> usize {
        let systems = if self.test == Test::BootstrapCi { 1 } else { 2 };
        systems * if self.pooled { 2 } else { 1 }
    }

    fn estimate_name(&self) -> &'static str {
        if self.pooled { "value" } else { "mean" }
    }
}

fn shapes(test: Test, pooled: bool) -> Shapes {
    const CI: Shapes = &optional_tail::<4>(
        &[
            ("x", Float),
            ("level", Float),
            ("resamples", Int),
            ("seed", Int),
        ],
        1,
    );
    const POOLED_CI: Shapes = &optional_tail::<4>(
        &[
            ("num", Float),
            ("den", Float),
            ("level", Float),
            ("resamples", Int),
            ("seed", Int),
        ],
        2,
    );
    const PAIRED: Shapes = &optional_tail::<4>(
        &[
            ("a", Float),
            ("b", Float),
            ("resamples", Int),
            ("seed", Int),
            ("level", Float),
        ],
        2,
    );
    const POOLED_PAIRED: Shapes = &optional_tail::<4>(
        &[
            ("num_a", Float),
            ("den_a", Float),
            ("num_b", Float),
            ("den_b", Float),
            ("resamples", Int),
            ("seed", Int),
            ("level", Float),
        ],
        4,
    );
    const AR: Shapes = &optional_tail::<3>(
        &[("a", Float), ("b", Float), ("trials", Int), ("seed", Int)],
        2,
    );
    const POOLED_AR: Shapes = &optional_tail::<3>(
        &[
            ("num_a", Float),
            ("den_a", Float),
            ("num_b", Float),
            ("den_b", Float),
            ("trials", Int),
            ("seed", Int),
        ],
        4,
    );
    match (test, pooled) {
        (Test::BootstrapCi, false) => CI,
        (Test::BootstrapCi, true) => POOLED_CI,
        (Test::PairedBootstrap, false) => PAIRED,
        (Test::PairedBootstrap, true) => POOLED_PAIRED,
        (Test::ApproxRandomization, false) => AR,
        (Test::ApproxRandomization, true) => POOLED_AR,
    }
}

const STREAMING: &str = "Rows with a NULL or non-finite argument are left out (`n` counts those used). \
    Resampling is a Poisson bootstrap keyed by (seed, the row's values, the resample), so the \
    result does not depend on partitions or batches; the state is the distinct rows with their \
    counts. docs/significance.md gives every definition.";

fn documentation(test: Test, pooled: bool) -> Documentation {
    let (what, syntax, example, arguments): (&str, &str, &str, &[&str]) = match (test, pooled) {
        (Test::BootstrapCi, false) => (
            "The mean of x with a percentile bootstrap confidence interval: Struct{mean, low, high, n}. \
             level defaults to 0.95, resamples to 1000, seed to 12345.",
            "bootstrap_ci(x [, level [, resamples [, seed]]])",
            "SELECT bootstrap_ci(led, 0.95, 1000, 12345)['low'] FROM scored;",
            &["x", "level", "resamples", "seed"],
        ),
        (Test::BootstrapCi, true) => (
            "A pooled score, sum(num) / sum(den), with a percentile bootstrap confidence interval \
             that resamples each row's num and den together: Struct{value, low, high, n}.",
            "pooled_bootstrap_ci(num, den [, level [, resamples [, seed]]])",
            "SELECT pooled_bootstrap_ci(d['sum_lmax'] - d['sum_l'], d['sum_lmax']) FROM \
             (SELECT derp_detail(src_head, tgt_head, links) AS d FROM t);",
            &["num", "den", "level", "resamples", "seed"],
        ),
        (Test::PairedBootstrap, false) => (
            "System b against system a on the same rows: delta = mean(b) - mean(a), its \
             percentile interval (level defaults to 0.95), and sacrebleu's paired bootstrap p-value (1 when delta is 0): \
             Struct{delta, low, high, p_value, n}.",
            "paired_bootstrap(a, b [, resamples [, seed [, level]]])",
            "SELECT paired_bootstrap(a.pod, b.pod, 10000, 12345)['p_value'] FROM a JOIN b USING (pair_id);",
            &["a", "b", "resamples", "seed", "level"],
        ),
        (Test::PairedBootstrap, true) => (
            "paired_bootstrap for pooled scores: delta = sum(num_b)/sum(den_b) - sum(num_a)/sum(den_a).",
            "pooled_paired_bootstrap(num_a, den_a, num_b, den_b [, resamples [, seed [, level]]])",
            "SELECT pooled_paired_bootstrap(a.correct, a.words, b.correct, b.words) FROM a JOIN b USING (pair_id);",
            &[
                "num_a",
                "den_a",
                "num_b",
                "den_b",
                "resamples",
                "seed",
                "level",
            ],
        ),
        (Test::ApproxRandomization, false) => (
            "The p-value of sacrebleu's paired approximate randomization test of mean(b) - mean(a) \
             (each trial swaps a row's a and b with probability 1/2); 1 when the means are equal. \
             trials defaults to 10000.",
            "approx_randomization(a, b [, trials [, seed]])",
            "SELECT approx_randomization(a.led, b.led) FROM a JOIN b USING (pair_id);",
            &["a", "b", "trials", "seed"],
        ),
        (Test::ApproxRandomization, true) => (
            "approx_randomization for pooled scores (each trial swaps a row's (num, den) pairs).",
            "pooled_approx_randomization(num_a, den_a, num_b, den_b [, trials [, seed]])",
            "SELECT pooled_approx_randomization(a.correct, a.words, b.correct, b.words) FROM a JOIN b USING (pair_id);",
            &["num_a", "den_a", "num_b", "den_b", "trials", "seed"],
        ),
    };
    let mut builder = Documentation::builder(DOC_SECTION, format!("{what} {STREAMING}"), syntax)
        .with_sql_example(example);
    const ARGUMENTS: &[(&str, &str)] = &[
        ("x", "A score per row (e.g. led)."),
        ("a", "System a's score per row (the baseline)."),
        ("b", "System b's score on the same row."),
        ("num", "A row's numerator of the pooled score."),
        ("den", "A row's denominator of the pooled score."),
        ("num_a", "System a's numerator on a row."),
        ("den_a", "System a's denominator on a row."),
        ("num_b", "System b's numerator on the same row."),
        ("den_b", "System b's denominator on the same row."),
        (
            "level",
            "Confidence level, a constant in (0, 1); default 0.95.",
        ),
        (
            "resamples",
            "Bootstrap resamples, a constant; default 1000.",
        ),
        ("trials", "Randomization trials, a constant; default 10000."),
        ("seed", "A non-negative integer constant; default 12345."),
    ];
    for name in arguments {
        let (_, about) = ARGUMENTS
            .iter()
            .find(|(n, _)| n == name)
            .expect("every argument is described");
        builder = builder.with_argument(*name, *about);
    }
    builder.build()
}

static DOCS: LazyLock<Vec<((Test, bool), Documentation)>> = LazyLock::new(|| {
    [
        Test::BootstrapCi,
        Test::PairedBootstrap,
        Test::ApproxRandomization,
    ]
    .into_iter()
    .flat_map(|t| [false, true].map(|p| ((t, p), documentation(t, p))))
    .collect()
});

impl AggregateUDFImpl for SignificanceUdf {
    fn name(&self) -> &str {
        match (self.test, self.pooled) {
            (Test::BootstrapCi, false) => expr::BOOTSTRAP_CI,
            (Test::BootstrapCi, true) => expr::POOLED_BOOTSTRAP_CI,
            (Test::PairedBootstrap, false) => expr::PAIRED_BOOTSTRAP,
            (Test::PairedBootstrap, true) => expr::POOLED_PAIRED_BOOTSTRAP,
            (Test::ApproxRandomization, false) => expr::APPROX_RANDOMIZATION,
            (Test::ApproxRandomization, true) => expr::POOLED_APPROX_RANDOMIZATION,
        }
    }

    checked_arguments!(|udf| shapes(udf.test, udf.pooled));

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        let float = |name: &str| Field::new(name, DataType::Float64, true);
        let n = Field::new("n", DataType::UInt64, false);
        Ok(match self.test {
            Test::BootstrapCi => DataType::Struct(Fields::from(vec![
                float(self.estimate_name()),
                float("low"),
                float("high"),
                n,
            ])),
            Test::PairedBootstrap => DataType::Struct(Fields::from(vec![
                float("delta"),
                float("low"),
                float("high"),
                float("p_value"),
                n,
            ])),
            Test::ApproxRandomization => DataType::Float64,
        })
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(rows_state(args))
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let constants = Constants {
            function: self.name(),
            args: &args,
            first: self.values(),
        };
        let params = match self.test {
            Test::BootstrapCi => Params {
                level: constants.level(0)?,
                draws: constants.draws(1, "resamples", DEFAULT_RESAMPLES)?,
                seed: constants.seed(2)?,
            },
            Test::PairedBootstrap => Params {
                draws: constants.draws(0, "resamples", DEFAULT_RESAMPLES)?,
                seed: constants.seed(1)?,
                level: constants.level(2)?,
            },
            Test::ApproxRandomization => Params {
                draws: constants.draws(0, "trials", DEFAULT_TRIALS)?,
                seed: constants.seed(1)?,
                level: DEFAULT_LEVEL,
            },
        };
        let fields = match args.return_type() {
            DataType::Struct(fields) => fields.clone(),
            _ => Fields::empty(),
        };
        Ok(Box::new(SampleAccumulator {
            test: self.test,
            pooled: self.pooled,
            values: self.values(),
            fields,
            params,
            sample: Sample::default(),
        }))
    }

    fn documentation(&self) -> Option<&Documentation> {
        DOCS.iter()
            .find(|(key, _)| *key == (self.test, self.pooled))
            .map(|(_, doc)| doc)
    }
}

/// The constant arguments of an aggregate's call, those after its `first` value columns:
/// checked when the accumulator is made, so a bad one is a planning error naming it.
pub(super) struct Constants<'a> {
    pub function: &'a str,
    pub args: &'a AccumulatorArgs<'a>,
    pub first: usize,
}

impl Constants<'_> {
    /// Constant `i` (counted from `first`), None when the call stops before it.
    fn get(&self, i: usize, what: &str) -> Result<Option<ScalarValue>> {
        let Some(expr) = self.args.exprs.get(self.first + i) else {
            return Ok(None);
        };
        match constant(expr.as_ref()) {
            Some(value) if !value.is_null() => Ok(Some(value)),
            _ => plan_err!(
                "{}: `{what}` must be a constant that is not NULL, got {expr}",
                self.function
            ),
        }
    }

    fn integer(&self, i: usize, what: &str, default: u64, range: (u64, u64)) -> Result<u64> {
        let Some(value) = self.get(i, what)? else {
            return Ok(default);
        };
        match value.cast_to(&DataType::Int64)? {
            ScalarValue::Int64(Some(n)) if n >= range.0 as i64 && n as u64 <= range.1 => {
                Ok(n as u64)
            }
            _ => plan_err!(
                "{}: `{what}` must be an integer in [{}, {}], got {value}",
                self.function,
                range.0,
                range.1
            ),
        }
    }

    /// Resamples or trials.
    pub fn draws(&self, i: usize, what: &str, default: u64) -> Result<u64> {
        self.integer(i, what, default, (1, MAX_DRAWS))
    }

    pub fn seed(&self, i: usize) -> Result<u64> {
        self.integer(i, "seed", DEFAULT_SEED, (0, i64::MAX as u64))
    }

    pub fn level(&self, i: usize) -> Result<f64> {
        let Some(value) = self.get(i, "level")? else {
            return Ok(DEFAULT_LEVEL);
        };
        match value.cast_to(&DataType::Float64)? {
            ScalarValue::Float64(Some(level)) if level > 0.0 && level < 1.0 => Ok(level),
            _ => plan_err!(
                "{}: `level` must be in (0, 1), e.g. 0.95, got {value}",
                self.function
            ),
        }
    }

    pub fn text(&self, i: usize, what: &str) -> Result<Option<String>> {
        match self.get(i, what)? {
            None => Ok(None),
            Some(value) => match scalar_text(&value) {
                Ok(text) => Ok(text),
                Err(_) => plan_err!(
                    "{}: `{what}` must be a constant string, got {value}",
                    self.function
                ),
            },
        }
    }
}

/// The state of a test's accumulator: its rows, serialised.
pub(super) fn rows_state(args: StateFieldsArgs) -> Vec<FieldRef> {
    vec![Arc::new(Field::new(
        format_state_name(args.name, "rows"),
        DataType::Binary,
        true,
    ))]
}

/// A test's answer as a struct of `fields`: the values, then `n`, the rows used.
pub(super) fn answer(fields: &Fields, values: Vec<Option<f64>>, n: u64) -> Result<ScalarValue> {
    let mut columns: Vec<ArrayRef> = values
        .into_iter()
        .map(|v| Arc::new(Float64Array::from(vec![v])) as ArrayRef)
        .collect();
    columns.push(Arc::new(UInt64Array::from(vec![n])));
    Ok(ScalarValue::Struct(Arc::new(StructArray::try_new(
        fields.clone(),
        columns,
        None,
    )?)))
}

/// A test's parameters, from its constant arguments.
#[derive(Debug, Clone, Copy)]
struct Params {
    level: f64,
    /// Resamples or trials.
    draws: u64,
    seed: u64,
}

#[derive(Debug)]
struct SampleAccumulator {
    test: Test,
    pooled: bool,
    /// The value columns (the rest are constants).
    values: usize,
    /// The result's fields, for the struct-valued tests.
    fields: Fields,
    params: Params,
    sample: Sample,
}

impl Accumulator for SampleAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let columns = values[..self.values]
            .iter()
            .map(|v| {
                Ok(cast(v, &DataType::Float64)?
                    .as_primitive::<Float64Type>()
                    .clone())
            })
            .collect::<Result<Vec<_>>>()?;
        for i in 0..values[0].len() {
            if columns.iter().any(|c| c.is_null(i)) {
                continue;
            }
            let v = |k: usize| columns[k].value(i);
            let row: Row = match (self.values, self.pooled) {
                (1, _) => [v(0), 1.0, 0.0, 1.0],
                (2, true) => [v(0), v(1), 0.0, 1.0],
                (2, false) => [v(0), 1.0, v(1), 1.0],
                _ => [v(0), v(1), v(2), v(3)],
            };
            // A non-finite value is left out, as a NULL is.
            self.sample.add(row, 1);
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let states: &BinaryArray = states[0].as_binary();
        for bytes in states.iter().flatten() {
            if let Err(e) = self.sample.merge_bytes(bytes) {
                return exec_err!("{e}");
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.sample.to_bytes()))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let Params { level, draws, seed } = self.params;
        let values = match self.test {
            Test::ApproxRandomization => {
                return Ok(ScalarValue::Float64(kernel::approx_randomization(
                    &self.sample,
                    draws,
                    seed,
                )));
            }
            Test::BootstrapCi => {
                let ci = kernel::bootstrap_ci(&self.sample, level, draws, seed);
                vec![
                    ci.map(|c| c.estimate),
                    ci.map(|c| c.low),
                    ci.map(|c| c.high),
                ]
            }
            Test::PairedBootstrap => {
                let p = kernel::paired_bootstrap(&self.sample, level, draws, seed);
                vec![
                    p.map(|p| p.delta.estimate),
                    p.map(|p| p.delta.low),
                    p.map(|p| p.delta.high),
                    p.map(|p| p.p_value),
                ]
            }
        };
        answer(&self.fields, values, self.sample.rows())
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.sample.size()
    }
}
