//! DataFusion adapters: each UDF decodes Arrow arguments (through `args`), hands plain slices
//! to a kernel in `metrics`, and builds the output array.

pub mod args;
pub mod bleu;
pub mod chrf;
pub mod clean;
pub mod dedup;
pub mod dep_fit;
pub mod derp;
pub mod docs;
pub mod expr;
pub mod hardrules;
pub mod lepod;
pub mod lid;
pub mod lm;
pub mod loglinear;
pub mod mcpg;
pub mod meteor_align;
pub mod model_score;
pub mod options;
pub mod opusfilter;
pub mod paired_corpus;
pub mod phrases;
pub mod rank;
pub mod sacrebleu;
pub mod significance;
pub mod synthetic;
pub mod ter;
pub mod text;
pub mod true_score;
pub mod word_accuracy;

use std::sync::Arc;

use datafusion::catalog::TableFunctionImpl;
use datafusion::common::Result;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

use crate::Resources;

/// Every scalar UDF of pairmetrics, those that need resources without them.
pub fn all_scalar_udfs() -> Vec<Arc<ScalarUDF>> {
    all_scalar_udfs_with(&Resources::default())
}

/// Every scalar UDF of pairmetrics, bound to `resources`.
pub fn all_scalar_udfs_with(resources: &Resources) -> Vec<Arc<ScalarUDF>> {
    use crate::pair::dep_fit::Formula::{Iucl, Paper};
    use bleu::Bleu;
    use chrf::Chrf;
    use dep_fit::{
        DepFitUdf, Kind as F,
        Level::{Form, Upos},
    };
    use derp::{DerpUdf, Kind as D};
    use lepod::{Kind as L, LepodUdf};
    use sacrebleu::{
        Kind::{Sentence, Stats},
        SegmentUdf,
    };
    use ter::Ter;
    use text::{Kind as T, TextUdf};
    use true_score::{Kind as S, TrueScoreUdf};
    let phrases = || resources.phrase_index.clone();
    let triples = || resources.triples.clone();
    let fasttext = || resources.fasttext.clone();
    let cleaning = clean::ALL
        .into_iter()
        .map(|kind| Arc::new(ScalarUDF::from(clean::CleanUdf::new(kind))));
    let mut udfs = vec![
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Led))),
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Pod))),
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Problem))),
        Arc::new(ScalarUDF::from(LepodUdf::new(L::Both))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Score))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Detail))),
        Arc::new(ScalarUDF::from(DerpUdf::new(D::Problem))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::Tokenize))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::LowercaseTokens))),
        Arc::new(ScalarUDF::from(TextUdf::new(T::Pharaoh))),
        Arc::new(ScalarUDF::from(TrueScoreUdf::new(S::Score, phrases()))),
        Arc::new(ScalarUDF::from(TrueScoreUdf::new(S::Detail, phrases()))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(
            F::Fit(Form, Paper),
            triples(),
        ))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(
            F::Fit(Upos, Paper),
            triples(),
        ))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(
            F::Fit(Form, Iucl),
            triples(),
        ))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(
            F::Fit(Upos, Iucl),
            triples(),
        ))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(F::Problem, triples()))),
        Arc::new(ScalarUDF::from(DepFitUdf::new(F::Triples, triples()))),
        Arc::new(ScalarUDF::from(lm::LmUdf::new(
            lm::Kind::LogProb,
            resources.lm.clone(),
        ))),
        Arc::new(ScalarUDF::from(lm::LmUdf::new(
            lm::Kind::FullScores,
            resources.lm.clone(),
        ))),
        Arc::new(ScalarUDF::from(lm::LmUdf::new(
            lm::Kind::Perplexity,
            resources.lm.clone(),
        ))),
        Arc::new(ScalarUDF::from(lm::LmUdf::new(
            lm::Kind::OovCount,
            resources.lm.clone(),
        ))),
        Arc::new(ScalarUDF::from(model_score::ModelScoreUdf::new(
            phrases(),
            resources.lm.clone(),
        ))),
        Arc::new(ScalarUDF::from(hardrules::HardrulesUdf::new())),
        Arc::new(ScalarUDF::from(opusfilter::OpusfilterUdf::new())),
        Arc::new(ScalarUDF::from(lid::LidUdf::new(
            lid::Kind::Langid,
            fasttext(),
        ))),
        Arc::new(ScalarUDF::from(lid::LidUdf::new(
            lid::Kind::Lingua,
            fasttext(),
        ))),
        Arc::new(ScalarUDF::from(lid::LidUdf::new(
            lid::Kind::FasttextLid,
            fasttext(),
        ))),
        Arc::new(ScalarUDF::from(lid::LidUdf::new(
            lid::Kind::FasttextPredict,
            fasttext(),
        ))),
        Arc::new(ScalarUDF::from(lid::LidUdf::new(
            lid::Kind::Score,
            fasttext(),
        ))),
        Arc::new(ScalarUDF::from(word_accuracy::WordAccuracyUdf::default())),
        Arc::new(ScalarUDF::from(loglinear::LoglinearUdf::default())),
        Arc::new(ScalarUDF::from(SegmentUdf::<Chrf>::new(Sentence))),
        Arc::new(ScalarUDF::from(SegmentUdf::<Chrf>::new(Stats))),
        Arc::new(ScalarUDF::from(SegmentUdf::<Bleu>::new(Sentence))),
        Arc::new(ScalarUDF::from(SegmentUdf::<Bleu>::new(Stats))),
        Arc::new(ScalarUDF::from(SegmentUdf::<Ter>::new(Sentence))),
        Arc::new(ScalarUDF::from(SegmentUdf::<Ter>::new(Stats))),
        Arc::new(ScalarUDF::from(phrases::ExtractPhrasesUdf::default())),
        Arc::new(ScalarUDF::from(meteor_align::MeteorAlignUdf::new(
            resources.aligner.clone(),
            resources.built_aligner.arc(),
        ))),
    ];
    udfs.extend(cleaning);
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::MinHash,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::CharNgrams,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::LshParams,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::LshBands,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::Jaccard,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::MinhashJaccard,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::PairHash,
    ))));
    udfs.push(Arc::new(ScalarUDF::from(dedup::DedupUdf::new(
        dedup::Kind::SegmentHash,
    ))));
    udfs
}

/// Every aggregate UDF of pairmetrics.
pub fn all_aggregate_udfs() -> Vec<Arc<AggregateUDF>> {
    use bleu::Bleu;
    use chrf::Chrf;
    use paired_corpus::CorpusTestUdf;
    use sacrebleu::CorpusUdf;
    use significance::{SignificanceUdf as S, Test as T};
    use ter::Ter;
    let corpus_tests = CorpusTestUdf::<Bleu>::all()
        .map(AggregateUDF::from)
        .into_iter()
        .chain(CorpusTestUdf::<Chrf>::all().map(AggregateUDF::from))
        .chain(CorpusTestUdf::<Ter>::all().map(AggregateUDF::from))
        .map(Arc::new);
    let mut udfs = vec![
        Arc::new(AggregateUDF::from(derp::DerpPooled::default())),
        Arc::new(AggregateUDF::from(CorpusUdf::<Bleu>::default())),
        Arc::new(AggregateUDF::from(CorpusUdf::<Chrf>::default())),
        Arc::new(AggregateUDF::from(CorpusUdf::<Ter>::default())),
        Arc::new(AggregateUDF::from(rank::KendallTauA::default())),
        Arc::new(AggregateUDF::from(S::new(T::BootstrapCi, false))),
        Arc::new(AggregateUDF::from(S::new(T::BootstrapCi, true))),
        Arc::new(AggregateUDF::from(S::new(T::PairedBootstrap, false))),
        Arc::new(AggregateUDF::from(S::new(T::PairedBootstrap, true))),
        Arc::new(AggregateUDF::from(S::new(T::ApproxRandomization, false))),
        Arc::new(AggregateUDF::from(S::new(T::ApproxRandomization, true))),
    ];
    udfs.extend(corpus_tests);
    udfs
}

/// Register every pairmetrics function with a DataFusion registry (a `SessionContext`, say);
/// those that need resources (a phrase table) say so when called.
pub fn register_all(registry: &mut dyn FunctionRegistry) -> Result<()> {
    register_all_with(registry, &Resources::default())
}

/// Register pairmetrics' table functions (`synthetic_phrases`, `mcpg`) with a session, bound to
/// `resources`; a `FunctionRegistry` cannot hold them.
pub fn register_table_functions(ctx: &SessionContext, resources: &Resources) {
    for (name, function) in all_table_functions(resources) {
        ctx.register_udtf(name, function);
    }
}

/// On a cluster, each table function in name only, failing with why: its rows come from a
/// table provider of ours, which Ballista cannot ship to executors.
pub fn register_local_only_table_functions(ctx: &SessionContext) {
    for (name, _) in all_table_functions(&Resources::default()) {
        ctx.register_udtf(name, Arc::new(LocalOnly(name)));
    }
}

#[derive(Debug)]
struct LocalOnly(&'static str);

impl TableFunctionImpl for LocalOnly {
    fn call_with_args(
        &self,
        _: datafusion::catalog::TableFunctionArgs,
    ) -> Result<Arc<dyn datafusion::catalog::TableProvider>> {
        datafusion::common::plan_err!(
            "{}() runs only in a local session: its rows come from a table provider Ballista cannot \
             ship to executors. Run it without --cluster (write its rows to Parquet, then use them on \
             the cluster)",
            self.0
        )
    }
}

/// Every table function of pairmetrics with its name, bound to `resources`.
pub fn all_table_functions(
    resources: &Resources,
) -> Vec<(&'static str, Arc<dyn TableFunctionImpl>)> {
    vec![
        (
            synthetic::NAME,
            Arc::new(synthetic::SyntheticPhrases::new(
                resources.phrase_index.clone(),
            )),
        ),
        (
            mcpg::NAME,
            Arc::new(mcpg::Mcpg::new(
                resources.phrase_index.clone(),
                resources.lm.clone(),
            )),
        ),
    ]
}

/// Register every pairmetrics scalar and aggregate function, bound to `resources`.
pub fn register_all_with(registry: &mut dyn FunctionRegistry, resources: &Resources) -> Result<()> {
    for udf in all_scalar_udfs_with(resources) {
        registry.register_udf(udf)?;
    }
    for udaf in all_aggregate_udfs() {
        registry.register_udaf(udaf)?;
    }
    Ok(())
}
