//! What plan nodes of ours that travel to a cluster ([`LockstepTable`], [`LockstepExec`],
//! [`SharesSink`], [`WriteSharesExec`]) have in common: JSON bytes under a key naming the
//! node, Arrow schemas in IPC form, anyhow errors as DataFusion's.
//!
//! [`LockstepTable`]: super::lockstep_table::LockstepTable
//! [`LockstepExec`]: super::lockstep_table::LockstepExec
//! [`SharesSink`]: super::shares::SharesSink
//! [`WriteSharesExec`]: super::shares::WriteSharesExec

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::common::DataFusionError;
use serde_json::{Value, json};

/// `value` as the bytes of node `key`.
pub fn encode(key: &str, value: Value) -> anyhow::Result<Vec<u8>> {
    Ok(serde_json::to_vec(&json!({ key: value }))?)
}

/// The value of node `key` in bytes written by [`encode`]; None for bytes of anything else.
pub fn decode(bytes: &[u8], key: &str) -> Option<Value> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    Some(value.get_mut(key)?.take())
}

pub fn schema_to_json(schema: &SchemaRef) -> anyhow::Result<Value> {
    let mut bytes = Vec::new();
    StreamWriter::try_new(&mut bytes, schema)?.finish()?;
    Ok(json!(bytes))
}

pub fn schema_from_json(value: &Value) -> anyhow::Result<SchemaRef> {
    let bytes: Vec<u8> = serde_json::from_value(value.clone())?;
    Ok(StreamReader::try_new(bytes.as_slice(), None)?.schema())
}

pub fn external(error: anyhow::Error) -> DataFusionError {
    DataFusionError::External(error.into())
}
