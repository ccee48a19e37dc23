//! Statistics: bootstrap and approximate-randomisation tests over per-segment scores
//! ([`significance`]) and over keyed totals streamed by a query ([`keyed_totals`]), and the
//! generators they draw from (SplitMix64, [`random`]; numpy's `RandomState`, [`numpy_random`]).

pub mod keyed_totals;
pub mod numpy_legacy;
pub mod numpy_random;
pub mod random;
pub mod significance;
