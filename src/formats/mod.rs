//! Readers of external formats.

pub mod meteor;
pub mod pharaoh;
