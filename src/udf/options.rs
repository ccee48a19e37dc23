//! pairmetrics' settings of a session, read by functions when they run: a DataFusion config
//! extension, so SQL sets them (`SET pairmetrics.derp_max_nodes = 2000`) and every session
//! pairmetrics builds holds them (the session's tuning sets them from the command line).

use datafusion::common::config::{ConfigExtension, ConfigOptions};
use datafusion::common::extensions_options;

use crate::pair::derp;

extensions_options! {
    /// The settings under the `pairmetrics.` prefix.
    pub struct PairmetricsOptions {
        /// DERP's per-pair size limit: a pair with more aligned nodes, or an aligned word deeper
        /// in its tree, gets NULL and a reason (the meta-graph is complete, so the cost grows
        /// with the square of the nodes, and each word's table with the square of its depth). At
        /// most [`derp::MAX_NODES_CEILING`]; more means the ceiling.
        pub derp_max_nodes: usize, default = derp::MAX_NODES
    }
}

impl ConfigExtension for PairmetricsOptions {
    const PREFIX: &'static str = "pairmetrics";
}

/// The settings in `config`; the defaults in a session that has none (one not built by
/// pairmetrics, e.g. datafusion-python's).
pub fn of(config: &ConfigOptions) -> PairmetricsOptions {
    config
        .extensions
        .get::<PairmetricsOptions>()
        .cloned()
        .unwrap_or_default()
}
