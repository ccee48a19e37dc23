//! What some functions need beyond their arguments — a phrase table for `true_score` and
//! `synthetic_phrases`, triple counts for `dep_fit`, a language model for `lm_logprob` — loaded
//! once per session and shared by every partition. Pass to [`crate::register_all_with`].

mod load;
pub mod options;

pub use load::{
    DEFAULT_PROB_COLUMN, Given, PhraseTableOptions, ResourceOptions, load, load_lm,
    load_phrase_index, load_triples,
};

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::align::{Aligner, AlignerOptions};
use crate::lid::fasttext;
use crate::lm::ngram::NgramModel;
use crate::pair::dep_fit::TripleIndex;
use crate::pair::true_score::PhraseIndex;

/// A kind of resource a function can need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    PhraseTable,
    Triples,
    Lm,
    FastText,
}

impl Resource {
    /// What it is, in a sentence: "true_score needs a phrase table".
    pub fn what(self) -> &'static str {
        match self {
            Resource::PhraseTable => "a phrase table",
            Resource::Triples => "triple counts",
            Resource::Lm => "a language model",
            Resource::FastText => "a fastText model",
        }
    }

    /// The [`Resources`] method that binds it.
    fn binding(self) -> &'static str {
        match self {
            Resource::PhraseTable => "Resources::with_phrase_table",
            Resource::Triples => "Resources::with_triples",
            Resource::Lm => "Resources::with_lm",
            Resource::FastText => "Resources::with_fasttext",
        }
    }
}

/// A function used in a session that was built without the resource it needs. Front ends find
/// it in the error's chain and say how to give the resource in their own terms (the CLI names
/// its flag).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{function} needs {}: bind one with {} before the functions are registered", resource.what(), resource.binding())]
pub struct MissingResource {
    pub function: String,
    pub resource: Resource,
}

impl MissingResource {
    /// The error a function returns at plan time.
    pub fn error(function: &str, resource: Resource) -> datafusion::error::DataFusionError {
        let missing = MissingResource {
            function: function.to_string(),
            resource,
        };
        datafusion::error::DataFusionError::External(Box::new(missing))
    }
}

#[derive(Debug, Clone, Default)]
pub struct Resources {
    pub phrase_index: Shared<PhraseIndex>,
    pub triples: Shared<TripleIndex>,
    pub lm: Shared<NgramModel>,
    /// The model of `fasttext_lid`, `fasttext_predict` and `language_id_score(.., 'fasttext')`.
    pub fasttext: Shared<fasttext::Model>,
    /// How `meteor_align` aligns when its arguments do not say: beam, objective, resource files
    /// (read when the function is first used), default modules and language.
    pub aligner: AlignerOptions,
    /// An aligner already built from `aligner`, which `meteor_align` then uses as is.
    pub built_aligner: Shared<Aligner>,
}

impl Resources {
    /// What a cluster's scheduler plans with: none of the resources, which every executor
    /// loads for itself; the functions that need one plan without it.
    pub fn on_executors() -> Self {
        Resources {
            phrase_index: Shared::elsewhere(),
            triples: Shared::elsewhere(),
            lm: Shared::elsewhere(),
            fasttext: Shared::elsewhere(),
            ..Default::default()
        }
    }

    /// Score `true_score` / `true_score_detail` and list `synthetic_phrases` under this phrase
    /// table (build it with `metrics::true_score::PhraseIndexBuilder`, or load a phrase_table
    /// Parquet file with [`load_phrase_index`]).
    pub fn with_phrase_table(mut self, index: PhraseIndex) -> Self {
        self.phrase_index = Shared::new(index);
        self
    }

    /// Compute `dep_fit` and friends from these triple counts ([`load_triples`]
    /// reads a triples Parquet file).
    pub fn with_triples(mut self, triples: TripleIndex) -> Self {
        self.triples = Shared::new(triples);
        self
    }

    /// Align with these options in `meteor_align` (see [`AlignerOptions`]); its resources are
    /// read when the function is first used.
    pub fn with_aligner(mut self, options: AlignerOptions) -> Self {
        self.aligner = options;
        self.built_aligner = Shared::default();
        self
    }

    /// Align with this aligner in `meteor_align` (its resources are already read).
    pub fn with_built_aligner(mut self, aligner: Aligner) -> Self {
        self.aligner = aligner.options().clone();
        self.built_aligner = Shared::new(aligner);
        self
    }

    /// Label texts with this fastText model in `fasttext_lid` and `fasttext_predict`
    /// (`pipeline::fasttext::load_model` reads a .bin or .ftz file).
    pub fn with_fasttext(mut self, model: fasttext::Model) -> Self {
        self.fasttext = Shared::new(model);
        self
    }

    /// Score the `lm_*` functions under this model (`formats::arpa::read` loads an ARPA file).
    pub fn with_lm(mut self, model: NgramModel) -> Self {
        self.lm = Shared::new(model);
        self
    }
}

/// A resource shared by the functions bound to it, or none. Two are equal when they are the
/// same resource (pointer equality), which is what DataFusion needs to tell functions apart.
#[derive(Debug)]
pub struct Shared<T> {
    value: Option<Arc<T>>,
    /// None here, but every executor of the cluster this session plans for loaded its own.
    on_executors: bool,
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared {
            value: Some(Arc::new(value)),
            on_executors: false,
        }
    }

    fn elsewhere() -> Self {
        Shared {
            value: None,
            on_executors: true,
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_deref()
    }

    pub fn arc(&self) -> Option<Arc<T>> {
        self.value.clone()
    }

    /// Whether a function bound to this cannot be planned: the resource was not given, here or
    /// on the executors that will run the function.
    pub fn is_missing(&self) -> bool {
        self.value.is_none() && !self.on_executors
    }
}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared {
            value: None,
            on_executors: false,
        }
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            value: self.value.clone(),
            on_executors: self.on_executors,
        }
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        match (&self.value, &other.value) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => self.on_executors == other.on_executors,
            _ => false,
        }
    }
}

impl<T> Eq for Shared<T> {}

impl<T> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value.as_ref().map(Arc::as_ptr).hash(state);
    }
}
