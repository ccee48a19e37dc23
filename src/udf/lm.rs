//! `lm_logprob(tokens)`: the log10 probability of a sentence under the session's n-gram model.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::Float64Builder;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use super::docs::DOC_SECTION;
use super::args::{Shapes, TokenLists, checked_arguments, signature};
use crate::resources::{MissingResource, Resource};
use crate::schema::{ColumnType};
use crate::metrics::ngram::NgramModel;
use crate::resources::Shared;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LmUdf {
    model: Shared<NgramModel>,
    signature: Signature,
}

impl LmUdf {
    pub fn new(model: Shared<NgramModel>) -> Self {
        LmUdf { model, signature: signature(SHAPES) }
    }
}

const SHAPES: Shapes = &[&[("tokens", ColumnType::Tokens)]];

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "log10 probability of a sentence under the session's ARPA back-off n-gram model, with <s> \
         before and </s> after, backing off as SRILM and KenLM do (KenLM's full-sentence \
         Model.score). Words the model does not know score as <unk> (-100 when the model has no \
         <unk>). NULL for a NULL list or a NULL token. Needs --lm.",
        "lm_logprob(tokens)",
    )
    .with_argument("tokens", "The sentence: a list of tokens, cased and tokenised as the model's training text.")
    .with_sql_example("SELECT avg(lm_logprob(tgt) / (cardinality(tgt) + 1)) AS per_word FROM pairs;")
    .build()
});

impl ScalarUDFImpl for LmUdf {
    fn name(&self) -> &str {
        "lm_logprob"
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        if self.model.get().is_none() {
            return Err(MissingResource::error(self.name(), Resource::Lm));
        }
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let model = self.model.get().expect("return_type refuses a session without a model");
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let sentences = TokenLists::new("tokens", &arrays[0])?;
        let (mut words, mut ids) = (Vec::new(), Vec::new());
        let mut out = Float64Builder::with_capacity(args.number_rows);
        for row in 0..args.number_rows {
            let score = sentences.row(row, &mut words).ok().map(|()| model.sentence_log10(&words, &mut ids));
            out.append_option(score);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
