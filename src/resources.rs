//! What some functions need beyond their arguments — a phrase table for `true_score` — loaded
//! once per session and shared by every partition. Pass to [`crate::register_all_with`].

use std::sync::Arc;

use crate::metrics::true_score::PhraseIndex;

#[derive(Debug, Clone, Default)]
pub struct Resources {
    pub phrase_index: Option<Arc<PhraseIndex>>,
}

impl Resources {
    /// Score `true_score` / `true_score_detail` under this phrase table (build it with
    /// `metrics::true_score::PhraseIndexBuilder`, or load a phrase_table Parquet file with
    /// `pipeline::resources::load_phrase_index`).
    pub fn with_phrase_table(mut self, index: PhraseIndex) -> Self {
        self.phrase_index = Some(Arc::new(index));
        self
    }
}
