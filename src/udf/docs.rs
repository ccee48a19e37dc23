//! Where pairmetrics' functions appear in DataFusion's generated function documentation.

use datafusion::logical_expr::DocSection;

pub(crate) const DOC_SECTION: DocSection = DocSection {
    include: true,
    label: "pairmetrics",
    description: Some("Sentence-pair metrics and the helpers that prepare their inputs."),
};
