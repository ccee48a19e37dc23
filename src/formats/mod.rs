//! Readers of external formats.

pub mod pharaoh;
