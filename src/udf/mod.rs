//! DataFusion adapters: each UDF decodes Arrow arguments (through `args`), hands plain slices
//! to a kernel in `metrics`, and builds the output array.

pub mod args;
pub mod derp;
pub mod lepod;
pub mod rank;
pub mod text;

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{AggregateUDF, DocSection, ScalarUDF};

pub(crate) const DOC_SECTION: DocSection = DocSection {
    include: true,
    label: "pairmetrics",
    description: Some("Sentence-pair metrics and the helpers that prepare their inputs."),
};

/// Every scalar UDF of pairmetrics.
pub fn all_scalar_udfs() -> Vec<Arc<ScalarUDF>> {
    use derp::{DerpUdf, Kind as D};
    use lepod::{Kind as L, LepodUdf};
    use text::{Kind as T, TextUdf};
    vec![
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Led))),
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Pod))),
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Problem))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Score))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Detail))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Problem))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::Tokenize))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::LowercaseTokens))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::Pharaoh))),
    ]
}

/// Every aggregate UDF of pairmetrics.
pub fn all_aggregate_udfs() -> Vec<Arc<AggregateUDF>> {
    vec![
        Arc::new(AggregateUDF::from(derp::DerpPooled::default())),
        Arc::new(AggregateUDF::from(rank::KendallTauA::default())),
    ]
}

/// Register every pairmetrics function with a DataFusion registry (a `SessionContext`, say).
pub fn register_all(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for udf in all_scalar_udfs() {
        registry.register_udf(udf)?;
    }
    for udaf in all_aggregate_udfs() {
        registry.register_udaf(udaf)?;
    }
    Ok(())
}
