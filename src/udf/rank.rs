//! `kendall_tau_a(x, y)`: an aggregate over the rows of each group (e.g. one source sentence's
//! n-best list), with a row accumulator and a groups accumulator around the kernel in
//! `metrics::rank`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Float64Builder, ListArray, ListBuilder,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type};
use datafusion::common::{Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, Documentation, EmitTo, GroupsAccumulator, Signature, Volatility,
};

use super::docs::DOC_SECTION;
use super::expr;
use crate::pair::rank::kendall_tau_a;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct KendallTauA {
    signature: Signature,
}

impl Default for KendallTauA {
    fn default() -> Self {
        KendallTauA {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "Kendall tau_A between two scorings of the rows of a group: 2 (n_p - n_i) / (n (n - 1)), \
         n_p the pairs of rows ordered the same way by x and y, n_i those ordered oppositely; \
         pairs tied in x or y count in the denominator only. Rows with a NULL x or y are left \
         out; NULL for fewer than two rows. O(n log n) per group.",
        "kendall_tau_a(x, y)",
    )
    .with_argument("x", "A numeric scoring of the rows (e.g. the n-best rank).")
    .with_argument(
        "y",
        "Another numeric scoring of the same rows (e.g. the true score).",
    )
    .with_sql_example("SELECT id, kendall_tau_a(rank, -true_score) FROM scored_nbest GROUP BY id;")
    .build()
});

fn state_list(name: &str, part: &str) -> FieldRef {
    let item = Field::new_list_field(DataType::Float64, false);
    Arc::new(Field::new(
        format_state_name(name, part),
        DataType::List(item.into()),
        true,
    ))
}

impl AggregateUDFImpl for KendallTauA {
    fn name(&self) -> &str {
        expr::KENDALL_TAU_A
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 2 {
            return plan_err!(
                "kendall_tau_a takes kendall_tau_a(x, y), not {} arguments",
                arg_types.len()
            );
        }
        for (name, dt) in ["x", "y"].iter().zip(arg_types) {
            if !(dt.is_numeric() || dt.is_null()) {
                return plan_err!("kendall_tau_a: argument `{name}` must be numeric, got {dt}");
            }
        }
        Ok(vec![DataType::Float64, DataType::Float64])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![state_list(args.name, "x"), state_list(args.name, "y")])
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::<RowsAccumulator>::default())
    }

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::<GroupsTauA>::default())
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

/// The (x, y) pairs of `values` (two numeric columns) where both are set and the filter passes,
/// with their row numbers.
fn rows<'a>(
    values: &'a [ArrayRef],
    filter: Option<&'a BooleanArray>,
) -> Result<impl Iterator<Item = (usize, (f64, f64))> + 'a> {
    let column = |i: usize| -> Result<Float64Array> {
        Ok(cast(&values[i], &DataType::Float64)?
            .as_primitive::<Float64Type>()
            .clone())
    };
    let (x, y) = (column(0)?, column(1)?);
    Ok((0..x.len()).filter_map(move |i| {
        let kept = filter.is_none_or(|f| f.is_valid(i) && f.value(i));
        (kept && x.is_valid(i) && y.is_valid(i)).then(|| (i, (x.value(i), y.value(i))))
    }))
}

/// The pairs held by state row `i` (a list of x and a list of y).
fn state_rows<'a>(
    xs: &'a ListArray,
    ys: &'a ListArray,
    i: usize,
) -> impl Iterator<Item = (f64, f64)> + 'a {
    let values = |lists: &'a ListArray| {
        let range = lists.value_offsets()[i] as usize..lists.value_offsets()[i + 1] as usize;
        let all = lists.values().as_primitive::<Float64Type>();
        all.values()[range].iter().copied()
    };
    let valid = xs.is_valid(i) && ys.is_valid(i);
    values(xs).zip(values(ys)).filter(move |_| valid)
}

fn to_state(groups: &[Vec<(f64, f64)>]) -> Vec<ArrayRef> {
    let build = |pick: fn(&(f64, f64)) -> f64| -> ArrayRef {
        let item = Arc::new(Field::new_list_field(DataType::Float64, false));
        let mut b = ListBuilder::new(Float64Builder::new()).with_field(item);
        for group in groups {
            b.values()
                .append_slice(&group.iter().map(pick).collect::<Vec<_>>());
            b.append(true);
        }
        Arc::new(b.finish())
    };
    vec![build(|p| p.0), build(|p| p.1)]
}

#[derive(Debug, Default)]
struct RowsAccumulator {
    pairs: Vec<(f64, f64)>,
    scratch: Vec<f64>,
}

impl Accumulator for RowsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.pairs.extend(rows(values, None)?.map(|(_, pair)| pair));
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (xs, ys) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for i in 0..xs.len() {
            self.pairs.extend(state_rows(xs, ys, i));
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        to_state(std::slice::from_ref(&self.pairs))
            .iter()
            .map(|array| ScalarValue::try_from_array(array, 0))
            .collect()
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(kendall_tau_a(
            &mut self.pairs,
            &mut self.scratch,
        )))
    }

    fn size(&self) -> usize {
        size_of_val(self) + (self.pairs.capacity() * 2 + self.scratch.capacity()) * size_of::<f64>()
    }
}

/// One list of (x, y) pairs per group.
#[derive(Debug, Default)]
struct GroupsTauA {
    groups: Vec<Vec<(f64, f64)>>,
    scratch: Vec<f64>,
}

impl GroupsAccumulator for GroupsTauA {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.groups.resize_with(total_num_groups, Vec::new);
        for (i, pair) in rows(values, opt_filter)? {
            self.groups[group_indices[i]].push(pair);
        }
        Ok(())
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.groups.resize_with(total_num_groups, Vec::new);
        let (xs, ys) = (values[0].as_list::<i32>(), values[1].as_list::<i32>());
        for (i, &group) in group_indices.iter().enumerate() {
            self.groups[group].extend(state_rows(xs, ys, i));
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let groups = emit_to.take_needed(&mut self.groups);
        let scratch = &mut self.scratch;
        let taus: Float64Array = groups
            .into_iter()
            .map(|mut pairs| kendall_tau_a(&mut pairs, scratch))
            .collect();
        Ok(Arc::new(taus))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        Ok(to_state(&emit_to.take_needed(&mut self.groups)))
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let mut groups = vec![Vec::new(); values[0].len()];
        for (i, pair) in rows(values, opt_filter)? {
            groups[i].push(pair);
        }
        Ok(to_state(&groups))
    }

    fn size(&self) -> usize {
        let pairs: usize = self.groups.iter().map(Vec::capacity).sum();
        size_of_val(self)
            + self.groups.capacity() * size_of::<Vec<(f64, f64)>>()
            + pairs * size_of::<(f64, f64)>()
            + self.scratch.capacity() * size_of::<f64>()
    }
}
