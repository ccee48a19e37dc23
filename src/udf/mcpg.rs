//! `mcpg(sentence [, mode [, episodes [, nbest [, seed]]]])`: a table function listing the
//! paraphrases the Monte-Carlo paraphrase generator finds for one sentence with the session's
//! phrase table and language model (`metrics::mcpg`).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Float64Builder, Int32Builder, ListBuilder, RecordBatch, StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Result, plan_err};
use datafusion::datasource::MemTable;

use super::args::{literal_integer, literal_string};
use super::expr;
use crate::lm::ngram::NgramModel;
use crate::pair::true_score::PhraseIndex;
use crate::resources::{MissingResource, Resource, Shared};
use crate::schema::token_list_type;
use crate::smt::mcpg::{Mode, Options, Paraphrase, mcpg};
use crate::text::whitespace;

pub const NAME: &str = expr::MCPG;
const USAGE: &str =
    "mcpg('a sentence' [, 'true-score' | 'translator' [, episodes [, nbest [, seed]]]])";

#[derive(Debug)]
pub struct Mcpg {
    index: Shared<PhraseIndex>,
    lm: Shared<NgramModel>,
}

impl Mcpg {
    pub fn new(index: Shared<PhraseIndex>, lm: Shared<NgramModel>) -> Self {
        Mcpg { index, lm }
    }
}

/// The columns describing one paraphrase, in the table function and in `paraphrase --out`.
pub fn fields() -> Vec<Field> {
    vec![
        Field::new("rank", DataType::Int32, true),
        Field::new("paraphrase", DataType::Utf8, true),
        Field::new("tokens", token_list_type(), true),
        Field::new("reward", DataType::Float64, true),
        Field::new("model_score", DataType::Float64, true),
        Field::new("true_score", DataType::Float64, true),
        Field::new("lm_log10", DataType::Float64, true),
        Field::new("rules", DataType::Int32, true),
    ]
}

/// Builds the [`fields`] columns row by row.
#[derive(Default)]
pub struct ParaphraseColumns {
    rank: Int32Builder,
    paraphrase: StringBuilder,
    tokens: ListBuilder<StringBuilder>,
    reward: Float64Builder,
    model_score: Float64Builder,
    true_score: Float64Builder,
    lm_log10: Float64Builder,
    rules: Int32Builder,
}

impl ParaphraseColumns {
    /// A paraphrase and its 1-based rank.
    pub fn append(&mut self, rank: usize, p: &Paraphrase) {
        self.rank.append_value(rank as i32);
        self.paraphrase.append_value(p.tokens.join(" "));
        for token in &p.tokens {
            self.tokens.values().append_value(token);
        }
        self.tokens.append(true);
        self.reward.append_value(p.reward);
        self.model_score.append_value(p.model_score);
        self.true_score.append_value(p.true_score);
        self.lm_log10.append_option(p.lm_log10);
        self.rules.append_value(p.rules as i32);
    }

    /// A row without a paraphrase: every column NULL.
    pub fn append_null(&mut self) {
        self.rank.append_null();
        self.paraphrase.append_null();
        self.tokens.append(false);
        for column in [
            &mut self.reward,
            &mut self.model_score,
            &mut self.true_score,
            &mut self.lm_log10,
        ] {
            column.append_null();
        }
        self.rules.append_null();
    }

    pub fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.rank.finish()),
            Arc::new(self.paraphrase.finish()),
            Arc::new(self.tokens.finish()),
            Arc::new(self.reward.finish()),
            Arc::new(self.model_score.finish()),
            Arc::new(self.true_score.finish()),
            Arc::new(self.lm_log10.finish()),
            Arc::new(self.rules.finish()),
        ]
    }
}

impl TableFunctionImpl for Mcpg {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let Some(index) = self.index.get() else {
            return Err(MissingResource::error(NAME, Resource::PhraseTable));
        };
        let exprs = args.exprs();
        if exprs.is_empty() || exprs.len() > 5 {
            return plan_err!("{USAGE}: takes 1 to 5 arguments, got {}", exprs.len());
        }
        let sentence = literal_string(&exprs[0], USAGE, "the sentence")?;
        let mut options = Options::default();
        if let Some(mode) = exprs.get(1) {
            let mode = literal_string(mode, USAGE, "the mode")?;
            let Some(mode) = Mode::parse(mode) else {
                return plan_err!(
                    "{USAGE}: the mode is '{}' or '{}', got '{mode}'",
                    Mode::NAMES[0],
                    Mode::NAMES[1]
                );
            };
            options.mode = mode;
        }
        if let Some(episodes) = exprs.get(2) {
            options.episodes = literal_integer(episodes, USAGE, "episodes", 1)? as u64;
        }
        if let Some(nbest) = exprs.get(3) {
            options.nbest = literal_integer(nbest, USAGE, "nbest", 1)? as usize;
        }
        if let Some(seed) = exprs.get(4) {
            options.seed = literal_integer(seed, USAGE, "seed", 0)? as u64;
        }
        let words: Vec<&str> = whitespace::split(sentence).collect();
        let outcome = mcpg(index, self.lm.get(), &words, &options);
        let mut columns = ParaphraseColumns::default();
        for (rank, p) in (1..).zip(&outcome.paraphrases) {
            columns.append(rank, p);
        }
        let schema = Arc::new(Schema::new(fields()));
        let batch = RecordBatch::try_new(schema.clone(), columns.finish())?;
        Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
    }
}
