//! `derp`, `derp_detail`, `derp_problem` and the aggregate `derp_pooled`: thin adapters from
//! Arrow columns to the DERP kernel.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int32Array, Int32Builder, Int64Builder, ListArray,
    StringBuilder, StructArray, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl,
    Signature,
};

use super::args::{Shapes, checked_arguments, problem_column, signature};
use super::docs::DOC_SECTION;
use super::expr;
use crate::arrow::read::{HeadLists, LinkLists, TokenIds};
use crate::kernels::Link;
use crate::pair::derp::{self, Derp, DerpError, LabelledParse, Scratch};
use crate::schema::ColumnType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Score,
    Detail,
    Problem,
}

/// One UDF type for the three scalar DERP functions: they decode the same arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DerpUdf {
    kind: Kind,
    signature: Signature,
}

impl DerpUdf {
    pub fn new(kind: Kind) -> Self {
        DerpUdf {
            kind,
            signature: signature(SHAPES),
        }
    }
}

const SHAPES: Shapes = &[&[
    ("src_head", ColumnType::Heads),
    ("src_deprel", ColumnType::Labels),
    ("tgt_head", ColumnType::Heads),
    ("tgt_deprel", ColumnType::Labels),
    ("links", ColumnType::Links),
]];

const SYNTAX_ARGS: &str = "src_head, src_deprel, tgt_head, tgt_deprel, links";

fn with_arguments(builder: datafusion::logical_expr::DocumentationBuilder) -> Documentation {
    builder
        .with_argument(
            "src_head",
            "Heads of the reference (src) parse: List<Int32>, 1-based, 0 = root.",
        )
        .with_argument(
            "src_deprel",
            "Dependency labels of the src parse: a list of strings.",
        )
        .with_argument("tgt_head", "Heads of the hypothesis (tgt) parse.")
        .with_argument("tgt_deprel", "Dependency labels of the tgt parse.")
        .with_argument(
            "links",
            "Alignment: List<Struct<src Int32, tgt Int32>>, 0-based.",
        )
        .with_related_udf(expr::DERP)
        .with_related_udf(expr::DERP_DETAIL)
        .with_related_udf(expr::DERP_PROBLEM)
        .with_related_udf(expr::DERP_POOLED)
        .build()
}

static DERP_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    with_arguments(
        Documentation::builder(
            DOC_SECTION,
            "DERP, the dependency-path ordering score (McCaffery 2017, ch. 5): the paths between \
             aligned words in the src tree are compared with the paths between their \
             counterparts in the tgt tree (Levenshtein over labels, direction), and over the \
             minimum spanning tree of those disparities the score is 1 - sum(L) / sum(Lmax). \
             1 = the same order. NULL when fewer than two words are aligned, for a malformed \
             parse (cycle, head out of range, lengths differ) or a link outside a sentence; \
             derp_problem says why.",
            format!("derp({SYNTAX_ARGS})"),
        )
        .with_sql_example(
            "SELECT avg(derp(src_head, src_deprel, tgt_head, tgt_deprel, links)) \
             FROM arcs JOIN alignments USING (pair_id);",
        ),
    )
});

static DETAIL_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    with_arguments(
        Documentation::builder(
            DOC_SECTION,
            "Why a pair has the DERP it has: Struct{score, sum_l, sum_lmax, nodes (aligned nodes \
             in the meta-graph), side ('src' or 'tgt': the tree whose nodes make the meta-graph), \
             mst: List<Struct{a, b, l, lmax}> (the spanning tree's edges as 0-based positions on \
             that side, in the order Kruskal took them)}. NULL when derp is NULL.",
            format!("derp_detail({SYNTAX_ARGS})"),
        )
        .with_sql_example(
            "SELECT d.score, d.mst FROM (SELECT derp_detail(src_head, src_deprel, tgt_head, \
             tgt_deprel, links) AS d FROM arcs JOIN alignments USING (pair_id));",
        ),
    )
});

static PROBLEM_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    with_arguments(
        Documentation::builder(
            DOC_SECTION,
            "Why derp is NULL for a row: 'src parse: token 3 is on a cycle of heads', 'fewer than \
             two aligned nodes (1)', 'tgt_head is NULL', 'link position 9 outside the tgt \
             sentence of 7 tokens', ...; NULL when the row has a score.",
            format!("derp_problem({SYNTAX_ARGS})"),
        )
        .with_sql_example(
            "SELECT derp_problem(src_head, src_deprel, tgt_head, tgt_deprel, links) AS why, \
             count(*) FROM arcs JOIN alignments USING (pair_id) GROUP BY why;",
        ),
    )
});

static POOLED_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    with_arguments(
        Documentation::builder(
            DOC_SECTION,
            "Pooled corpus DERP: 1 - sum(sum_l) / sum(sum_lmax) over the rows that have a score, \
             so long sentences weigh more than in avg(derp(...)). NULL when no row has one.",
            format!("derp_pooled({SYNTAX_ARGS})"),
        )
        .with_sql_example(
            "SELECT derp_pooled(src_head, src_deprel, tgt_head, tgt_deprel, links) \
             FROM arcs JOIN alignments USING (pair_id);",
        ),
    )
});

/// `Struct<a Int32, b Int32, l Int32, lmax Int32>`: one spanning-tree edge.
fn edge_fields() -> Fields {
    ["a", "b", "l", "lmax"]
        .into_iter()
        .map(|n| Field::new(n, DataType::Int32, false))
        .collect()
}

/// The type `derp_detail` returns.
pub fn detail_fields() -> Fields {
    let edge = Field::new_list_field(DataType::Struct(edge_fields()), false);
    Fields::from(vec![
        Field::new("score", DataType::Float64, true),
        Field::new("sum_l", DataType::Int64, true),
        Field::new("sum_lmax", DataType::Int64, true),
        Field::new("nodes", DataType::Int32, true),
        Field::new("side", DataType::Utf8, true),
        Field::new("mst", DataType::List(edge.into()), true),
    ])
}

impl ScalarUDFImpl for DerpUdf {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Score => expr::DERP,
            Kind::Detail => expr::DERP_DETAIL,
            Kind::Problem => expr::DERP_PROBLEM,
        }
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Score => DataType::Float64,
            Kind::Detail => DataType::Struct(detail_fields()),
            Kind::Problem => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let mut buffers = Buffers::default();
        let input = Input::new(
            &arrays,
            super::options::of(&args.config_options).derp_max_nodes,
            &mut buffers.scratch,
        )?;
        let output: ArrayRef = match self.kind {
            Kind::Score => {
                let mut out = Float64Builder::with_capacity(rows);
                for row in 0..rows {
                    out.append_option(input.score(row, &mut buffers).ok().map(|d| d.score));
                }
                Arc::new(out.finish())
            }
            Kind::Problem => problem_column(rows, |row| input.score(row, &mut buffers)),
            Kind::Detail => {
                let mut out = DetailBuilder::with_capacity(rows);
                for row in 0..rows {
                    let result = input.score(row, &mut buffers).ok();
                    out.append(result.as_ref(), buffers.scratch.mst());
                }
                Arc::new(out.finish()?)
            }
        };
        Ok(ColumnarValue::Array(output))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Score => &DERP_DOC,
            Kind::Detail => &DETAIL_DOC,
            Kind::Problem => &PROBLEM_DOC,
        })
    }
}

/// Builds the `derp_detail` struct column, one row at a time.
struct DetailBuilder {
    score: Float64Builder,
    sum_l: Int64Builder,
    sum_lmax: Int64Builder,
    nodes: Int32Builder,
    side: StringBuilder,
    valid: Vec<bool>,
    offsets: Vec<i32>,
    edges: [Vec<i32>; 4],
}

impl DetailBuilder {
    fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        DetailBuilder {
            score: Float64Builder::with_capacity(rows),
            sum_l: Int64Builder::with_capacity(rows),
            sum_lmax: Int64Builder::with_capacity(rows),
            nodes: Int32Builder::with_capacity(rows),
            side: StringBuilder::with_capacity(rows, rows * 3),
            valid: Vec::with_capacity(rows),
            offsets,
            edges: Default::default(),
        }
    }

    fn append(&mut self, result: Option<&Derp>, mst: &[derp::Edge]) {
        self.valid.push(result.is_some());
        self.score.append_option(result.map(|d| d.score));
        self.sum_l.append_option(result.map(|d| d.sum_l as i64));
        self.sum_lmax
            .append_option(result.map(|d| d.sum_lmax as i64));
        self.nodes.append_option(result.map(|d| d.nodes as i32));
        self.side.append_option(result.map(|d| d.side.to_string()));
        if result.is_some() {
            for e in mst {
                for (column, value) in self.edges.iter_mut().zip([e.a, e.b, e.l, e.lmax]) {
                    column.push(value as i32);
                }
            }
        }
        self.offsets.push(self.edges[0].len() as i32);
    }

    fn finish(mut self) -> Result<StructArray> {
        let nulls = Some(NullBuffer::from(std::mem::take(&mut self.valid)));
        let edge_columns: Vec<ArrayRef> = self
            .edges
            .map(|values| Arc::new(Int32Array::from(values)) as ArrayRef)
            .into();
        let edges = StructArray::try_new(edge_fields(), edge_columns, None)?;
        let DataType::List(edge_field) = detail_fields()[5].data_type().clone() else {
            unreachable!("mst is a list")
        };
        let mst = ListArray::try_new(
            edge_field,
            OffsetBuffer::new(self.offsets.into()),
            Arc::new(edges),
            nulls.clone(),
        )?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.score.finish()),
            Arc::new(self.sum_l.finish()),
            Arc::new(self.sum_lmax.finish()),
            Arc::new(self.nodes.finish()),
            Arc::new(self.side.finish()),
            Arc::new(mst),
        ];
        Ok(StructArray::try_new(detail_fields(), columns, nulls)?)
    }
}

type Problem = super::args::Problem<DerpError>;

impl From<DerpError> for Problem {
    fn from(p: DerpError) -> Self {
        Problem::Metric(p)
    }
}

/// The five argument columns, decoded once per batch, labels as ids of the scratch's.
struct Input<'a> {
    src_head: HeadLists,
    src_deprel: TokenIds<'a>,
    tgt_head: HeadLists,
    tgt_deprel: TokenIds<'a>,
    links: LinkLists<'a>,
    max_nodes: usize,
}

#[derive(Default)]
struct Buffers {
    links: Vec<Link>,
    scratch: Scratch,
}

impl<'a> Input<'a> {
    fn new(arrays: &'a [ArrayRef], max_nodes: usize, scratch: &mut Scratch) -> Result<Self> {
        let labels = scratch.labels();
        Ok(Input {
            src_head: HeadLists::new("src_head", &arrays[0])?,
            src_deprel: TokenIds::new("src_deprel", &arrays[1], |l| labels.intern(l))?,
            tgt_head: HeadLists::new("tgt_head", &arrays[2])?,
            tgt_deprel: TokenIds::new("tgt_deprel", &arrays[3], |l| labels.intern(l))?,
            links: LinkLists::new(&arrays[4])?,
            max_nodes,
        })
    }

    fn score(&self, row: usize, b: &mut Buffers) -> Result<Derp, Problem> {
        let src = LabelledParse {
            head: self.src_head.row(row)?,
            label: self.src_deprel.row(row)?,
        };
        let tgt = LabelledParse {
            head: self.tgt_head.row(row)?,
            label: self.tgt_deprel.row(row)?,
        };
        self.links.row(row, &mut b.links)?;
        Ok(derp::derp_labelled(
            src,
            tgt,
            &b.links,
            self.max_nodes,
            &mut b.scratch,
        )?)
    }
}

/// `derp_pooled(...)`: the corpus DERP of SPEC §2, pooled over the pairs that have a score.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DerpPooled {
    signature: Signature,
}

impl Default for DerpPooled {
    fn default() -> Self {
        DerpPooled {
            signature: signature(SHAPES),
        }
    }
}

impl AggregateUDFImpl for DerpPooled {
    fn name(&self) -> &str {
        expr::DERP_POOLED
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::<PooledAccumulator>::default())
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(["sum_l", "sum_lmax"]
            .into_iter()
            .map(|part| {
                Arc::new(Field::new(
                    format_state_name(args.name, part),
                    DataType::UInt64,
                    false,
                ))
            })
            .collect())
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&POOLED_DOC)
    }
}

#[derive(Debug, Default)]
struct PooledAccumulator {
    sum_l: u64,
    sum_lmax: u64,
    scratch: Scratch,
}

impl Accumulator for PooledAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let mut buffers = Buffers {
            scratch: std::mem::take(&mut self.scratch),
            ..Default::default()
        };
        // An aggregate is not given the session's settings: the default limit applies.
        let input = Input::new(values, derp::MAX_NODES, &mut buffers.scratch)?;
        for row in 0..values[0].len() {
            if let Ok(d) = input.score(row, &mut buffers) {
                self.sum_l += d.sum_l;
                self.sum_lmax += d.sum_lmax;
            }
        }
        self.scratch = buffers.scratch;
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let sum = |array: &ArrayRef| -> u64 {
            let values: &UInt64Array = array.as_primitive::<UInt64Type>();
            values.iter().flatten().sum()
        };
        self.sum_l += sum(&states[0]);
        self.sum_lmax += sum(&states[1]);
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            ScalarValue::UInt64(Some(self.sum_l)),
            ScalarValue::UInt64(Some(self.sum_lmax)),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let score = (self.sum_lmax > 0).then(|| 1.0 - self.sum_l as f64 / self.sum_lmax as f64);
        Ok(ScalarValue::Float64(score))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}
