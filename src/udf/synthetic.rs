//! `synthetic_phrases(phrase [, max_candidates [, max_decompositions]])`: a table function listing translations of a
//! phrase built from the session's phrase table (`metrics::synthetic`).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Float64Array, Int32Array, ListBuilder, RecordBatch, StringArray, StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Result, plan_err};
use datafusion::datasource::MemTable;

use super::args::{literal_integer, literal_string};
use super::expr;
use crate::pair::true_score::PhraseIndex;
use crate::resources::Shared;
use crate::resources::{MissingResource, Resource};
use crate::schema::token_list_type;
use crate::smt::synthetic::{Candidate, Limits, MAX_TOKENS, synthetic_phrases};
use crate::text::whitespace;

pub const NAME: &str = expr::SYNTHETIC_PHRASES;
/// Candidates listed when the call does not say.
pub const DEFAULT_MAX: usize = 100;

#[derive(Debug)]
pub struct SyntheticPhrases {
    index: Shared<PhraseIndex>,
}

impl SyntheticPhrases {
    pub fn new(index: Shared<PhraseIndex>) -> Self {
        SyntheticPhrases { index }
    }
}

/// The columns of the table it returns.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("rank", DataType::Int32, false),
        Field::new("candidate", DataType::Utf8, false),
        Field::new("candidate_tokens", token_list_type(), false),
        Field::new("p_e_f", DataType::Float64, false),
        Field::new("p_f_e", DataType::Float64, false),
        Field::new("pieces", DataType::Int32, false),
        Field::new("split", token_list_type(), false),
    ]))
}

const USAGE: &str = "synthetic_phrases('a phrase' [, max_candidates [, max_decompositions]])";

impl TableFunctionImpl for SyntheticPhrases {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let Some(index) = self.index.get() else {
            return Err(MissingResource::error(NAME, Resource::PhraseTable));
        };
        let count = |expr, name| {
            Ok::<_, datafusion::error::DataFusionError>(
                literal_integer(expr, USAGE, name, 0)? as usize
            )
        };
        let (phrase, limits) = match args.exprs() {
            [phrase] => (phrase, Limits::at_most(DEFAULT_MAX)),
            [phrase, max] => (phrase, Limits::at_most(count(max, "max_candidates")?)),
            [phrase, max, splits] => (
                phrase,
                Limits {
                    candidates: count(max, "max_candidates")?,
                    decompositions: count(splits, "max_decompositions")?,
                },
            ),
            other => return plan_err!("{USAGE}: takes 1 to 3 arguments, got {}", other.len()),
        };
        let phrase = literal_string(phrase, USAGE, "the phrase")?;
        let words: Vec<&str> = whitespace::split(phrase).collect();
        if words.len() > MAX_TOKENS {
            return plan_err!(
                "{NAME}: the phrase has {} tokens; at most {MAX_TOKENS} are split",
                words.len()
            );
        }
        let batch = batch(&synthetic_phrases(Some(index), None, &words, limits))?;
        Ok(Arc::new(MemTable::try_new(schema(), vec![vec![batch]])?))
    }
}

fn batch(candidates: &[Candidate]) -> Result<RecordBatch> {
    let list = |pick: fn(&Candidate) -> &Vec<String>| -> ArrayRef {
        let mut b = ListBuilder::new(StringBuilder::new());
        for c in candidates {
            for s in pick(c) {
                b.values().append_value(s);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(1..=candidates.len() as i32)),
        Arc::new(StringArray::from_iter_values(
            candidates.iter().map(|c| c.tokens.join(" ")),
        )),
        list(|c| &c.tokens),
        Arc::new(Float64Array::from_iter_values(
            candidates.iter().map(|c| c.direct),
        )),
        Arc::new(Float64Array::from_iter_values(
            candidates.iter().map(|c| c.inverse),
        )),
        Arc::new(Int32Array::from_iter_values(
            candidates.iter().map(|c| c.split.len() as i32),
        )),
        list(|c| &c.split),
    ];
    Ok(RecordBatch::try_new(schema(), columns)?)
}
