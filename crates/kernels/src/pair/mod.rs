//! Pair metrics: scores of one sentence against another.
//!
//! - [`lepod`]: LeD and PoD (Niu & Carpuat 2020);
//! - [`derp`]: DERP's word-order score over two dependency parses (McCaffery 2017);
//! - [`true_score`]: the true score of a paraphrase under a phrase table (Chevelu et al. 2010);
//! - [`dep_fit`]: dependency fitness of a phrase in its sentence (IUCL, SemEval-2014 Task 5);
//! - [`word_accuracy`]: SemEval-2014 Task 5's word accuracy;
//! - [`rank`]: rank agreement (Kendall's tau_A).

pub mod dep_fit;
pub mod derp;
pub mod lepod;
pub mod rank;
pub mod true_score;
pub mod word_accuracy;
