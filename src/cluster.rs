//! Apache DataFusion Ballista, the client side: the session that sends plans to a scheduler,
//! and the codecs through which our plan nodes travel. The scheduler and executor processes
//! are a command (`pipeline/cluster.rs`); docs/cluster.md tells the whole.
//!
//! Ballista ships plans by function name: an executor runs `true_score` with its own phrase
//! table, so every executor must load the same resources as the client.

use std::any::Any;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{Result as DFResult, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use crate::parquet::encoded::external;
use crate::parquet::lockstep_table::{LockstepExec, LockstepTable};
use crate::parquet::shares::{SharesSink, WriteSharesExec};

/// The client side: `state` (with its config) planning on the scheduler at `url`
/// (`df://HOST:PORT`). Functions registered before this are dropped by Ballista's upgrade, so
/// the caller registers ours on the result.
/// Fails at once, naming the scheduler, when nothing answers there.
pub fn client_state(state: SessionState, url: &str) -> Result<SessionState> {
    let parsed = url::Url::parse(url)
        .with_context(|| format!("--cluster {url}: expected df://HOST:PORT"))?;
    let (host, port) = match (parsed.scheme(), parsed.host_str(), parsed.port()) {
        ("df", Some(host), Some(port)) => (host, port),
        _ => bail!("--cluster {url}: expected df://HOST:PORT, the scheduler's address"),
    };
    let reachable = (host, port)
        .to_socket_addrs()
        .ok()
        .into_iter()
        .flatten()
        .any(|address| TcpStream::connect_timeout(&address, Duration::from_secs(10)).is_ok());
    if !reachable {
        bail!(
            "--cluster {url}: no scheduler answers there (start one with `pairmetrics cluster scheduler`)"
        );
    }
    let config = state
        .config()
        .clone()
        .with_ballista_logical_extension_codec(Codecs::logical());
    let state = SessionStateBuilder::new_from_existing(state)
        .with_config(config)
        .build();
    Ok(state.upgrade_for_ballista(format!("http://{host}:{port}"))?)
}

/// Ballista's codecs, which also carry our plan nodes: [`LockstepTable`] and [`SharesSink`]
/// from the client to the scheduler, [`LockstepExec`] and [`WriteSharesExec`] from the
/// scheduler to the executors. Everything else is Ballista's.
#[derive(Debug, Default)]
pub struct Codecs {
    logical: BallistaLogicalExtensionCodec,
    physical: BallistaPhysicalExtensionCodec,
}

impl Codecs {
    pub fn logical() -> Arc<dyn LogicalExtensionCodec> {
        Arc::new(Codecs::default())
    }

    pub fn physical() -> Arc<dyn PhysicalExtensionCodec> {
        Arc::new(Codecs::default())
    }
}

impl LogicalExtensionCodec for Codecs {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> DFResult<Extension> {
        self.logical.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> DFResult<()> {
        self.logical.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> DFResult<Arc<dyn TableProvider>> {
        if let Some(table) = LockstepTable::from_bytes(buf).map_err(external)? {
            return Ok(Arc::new(table));
        }
        if let Some(sink) = SharesSink::from_bytes(buf).map_err(external)? {
            return Ok(Arc::new(sink));
        }
        self.logical
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> DFResult<()> {
        let any = node.as_ref() as &dyn Any;
        let ours = match (
            any.downcast_ref::<LockstepTable>(),
            any.downcast_ref::<SharesSink>(),
        ) {
            (Some(table), _) => table.to_bytes(),
            (_, Some(sink)) => sink.to_bytes(),
            _ => return self.logical.try_encode_table_provider(table_ref, node, buf),
        };
        Ok(buf.extend(ours.map_err(external)?))
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> DFResult<Arc<dyn FileFormatFactory>> {
        self.logical.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> DFResult<()> {
        self.logical.try_encode_file_format(buf, node)
    }
}

impl PhysicalExtensionCodec for Codecs {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        if let Some(exec) = LockstepExec::from_bytes(buf, inputs).map_err(external)? {
            return Ok(Arc::new(exec));
        }
        if let [input] = inputs
            && let Some(exec) = WriteSharesExec::from_bytes(buf, input.clone()).map_err(external)?
        {
            return Ok(Arc::new(exec));
        }
        self.physical.try_decode(buf, inputs, ctx, converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DFResult<()> {
        let ours = match (
            node.downcast_ref::<LockstepExec>(),
            node.downcast_ref::<WriteSharesExec>(),
        ) {
            (Some(exec), _) => exec.to_bytes(),
            (_, Some(exec)) => exec.to_bytes(),
            _ => return self.physical.try_encode(node, buf, converter),
        };
        Ok(buf.extend(ours.map_err(external)?))
    }
}
