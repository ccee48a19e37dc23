//! Statistical MT: phrase extraction ([`phrases`]), synthetic phrases ([`synthetic`]), the
//! phrase-based decoder ([`decode`]), MCPG's paraphrase search ([`mcpg`]), MERT ([`mert`]) and
//! the IUCL system's l2-assist ([`l2_assist`]).

pub mod decode;
pub mod l2_assist;
pub mod mcpg;
pub mod mert;
pub mod phrases;
pub mod synthetic;
