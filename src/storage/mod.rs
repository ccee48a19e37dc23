//! Where inputs and outputs live: a local path, or an object in a store named by its URL
//! (`s3://`, `gs://`, `az://`/`abfss://`, `http(s)://` to read, `file://`).
//!
//! Every command takes paths as it always did; a path that is a URL is resolved here, so the
//! Parquet layer, the text reader and the writers are the only places that tell the two apart.
//! Credentials and endpoints come from the environment as each store's own tools read them
//! (`AWS_*`, `GOOGLE_*`, `AZURE_*`), then from `--storage-option KEY=VALUE` ([`set_options`]).

#[cfg(feature = "delta")]
pub mod delta;
mod inputs;
mod pinned;
mod read;
pub use pairmetrics_kernels::spill;
mod write;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

use anyhow::{Context, Result, anyhow, bail};
use datafusion::error::DataFusionError;
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::prelude::SessionContext;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use url::Url;

pub use inputs::{note as note_input, refuse_input};
pub use read::RemoteFile;
pub use write::{Output, is_partial, partial_path, write_whole};

/// What writing a Delta table does when the table exists (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Mode {
    /// Fail if the table exists (nothing is written).
    #[default]
    Error,
    /// Add the rows to the table (the schemas must agree).
    Append,
    /// Replace the table's rows with these (a new version; older ones stay readable).
    Overwrite,
}

/// Where a path argument points.
#[derive(Debug, Clone)]
pub enum Location {
    Local(PathBuf),
    Remote(Remote),
}

/// An object (or a prefix of objects) in a store.
#[derive(Debug, Clone)]
pub struct Remote {
    /// The URL as given, for messages and for DataFusion's table paths.
    pub url: Url,
    /// The store's root (`s3://bucket`), under which DataFusion finds the store.
    pub root: Url,
    pub key: ObjectPath,
    /// The store our own reads and writes go through (see [`block_on`]).
    pub store: Arc<dyn ObjectStore>,
}

impl Location {
    /// Resolve a path argument: a URL with a store scheme is remote, `file://` and anything
    /// else is a local path.
    pub fn parse(path: &Path) -> Result<Location> {
        let Some(url) = path.to_str().filter(|s| looks_like_url(s)) else {
            return Ok(Location::Local(path.to_path_buf()));
        };
        let url = Url::parse(url).with_context(|| format!("{url} is not a valid URL"))?;
        if url.scheme() == "file" {
            let local = url
                .to_file_path()
                .map_err(|()| anyhow!("{url} is not a local file URL"))?;
            return Ok(Location::Local(local));
        }
        let root = root_of(&url)?;
        let key = ObjectPath::from_url_path(url.path())
            .with_context(|| format!("{url}: not a valid object path"))?;
        let store = cached_store(&root)?;
        Ok(Location::Remote(Remote {
            url,
            root,
            key,
            store,
        }))
    }
}

impl Remote {
    /// The URL of `key` in this store (an object found under a prefix).
    pub fn url_of(&self, key: &ObjectPath) -> String {
        format!("{}/{}", self.root.as_str().trim_end_matches('/'), key)
    }
}

/// A local path made absolute, a URL as it is: how processes elsewhere (a cluster's scheduler
/// and executors, in other working directories) find the same data.
pub fn absolute(path: &Path) -> Result<PathBuf> {
    match path.to_str().is_some_and(looks_like_url) {
        true => Ok(path.to_path_buf()),
        false => Ok(std::path::absolute(path)?),
    }
}

/// Whether anything is at `path`: a local file or directory, an object, or objects under it as
/// a prefix. An error when a store cannot be asked (credentials, network).
pub fn exists(path: &Path) -> Result<bool> {
    let remote = match Location::parse(path)? {
        Location::Local(local) => return Ok(local.exists()),
        Location::Remote(remote) => remote,
    };
    let (store, key) = (remote.store.clone(), remote.key.clone());
    let found = block_on(async move {
        use futures::TryStreamExt;
        match store.head(&key).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => {
                Ok(store.list(Some(&key)).try_next().await?.is_some())
            }
            Err(e) => Err(e),
        }
    });
    found.map_err(|e| explain(remote.url.as_str(), e))
}

/// The root of the store `url` is in (`s3://bucket`), which names the store.
fn root_of(url: &Url) -> Result<Url> {
    Ok(Url::parse(&format!(
        "{}://{}",
        url.scheme(),
        &url[url::Position::BeforeUsername..url::Position::AfterPort]
    ))?)
}

/// An object-store registry that makes the store of any URL it is asked for from the
/// environment and --storage-option, as [`register`] does: what the scheduler and executors of
/// a cluster read and write through, since a client's registrations do not travel with a plan.
/// Local files are read pinned ([`pinned`]): a scan reads the version it began with.
#[derive(Debug)]
pub struct StoresFromEnvironment(DefaultObjectStoreRegistry);

impl Default for StoresFromEnvironment {
    fn default() -> Self {
        let stores = DefaultObjectStoreRegistry::new();
        let local = Url::parse("file://").expect("a URL");
        stores.register_store(&local, Arc::new(pinned::Pinned::local()));
        StoresFromEnvironment(stores)
    }
}

impl ObjectStoreRegistry for StoresFromEnvironment {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.0.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> datafusion::common::Result<Arc<dyn ObjectStore>> {
        self.0.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> datafusion::common::Result<Arc<dyn ObjectStore>> {
        if let Ok(store) = self.0.get_store(url) {
            return Ok(store);
        }
        let made = root_of(url).and_then(|root| Ok((query_store(&root)?, root)));
        let (store, root) = made.map_err(|e| DataFusionError::External(e.into()))?;
        self.0.register_store(&root, store.clone());
        Ok(store)
    }
}

fn looks_like_url(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once("://") else {
        return false;
    };
    scheme.len() > 1
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+')
}

/// `KEY=VALUE` settings for the stores, on top of the environment (the CLI's
/// `--storage-option`). They apply to stores first used after the call.
pub fn set_options(options: Vec<(String, String)>) {
    *OPTIONS.write().expect("not poisoned") = options;
    STORES.lock().expect("not poisoned").clear();
}

static OPTIONS: RwLock<Vec<(String, String)>> = RwLock::new(Vec::new());

/// Stores for our own reads and writes, one per root, made on first use.
static STORES: LazyLock<Mutex<Vec<(Url, Arc<dyn ObjectStore>)>>> = LazyLock::new(Default::default);

fn cached_store(root: &Url) -> Result<Arc<dyn ObjectStore>> {
    let mut stores = STORES.lock().expect("not poisoned");
    if let Some((_, store)) = stores.iter().find(|(r, _)| r == root) {
        return Ok(store.clone());
    }
    let store = build_store(root)?;
    stores.push((root.clone(), store.clone()));
    Ok(store)
}

/// Make DataFusion able to read `remote` in `ctx`: its store is registered under its root.
/// DataFusion gets a store of its own: its requests run on the query's runtime, ours on
/// [`block_on`]'s, and an HTTP connection belongs to the runtime that opened it.
pub fn register(ctx: &SessionContext, remote: &Remote) -> Result<()> {
    let root = datafusion::execution::object_store::ObjectStoreUrl::parse(remote.root.as_str())?;
    if ctx.runtime_env().object_store(&root).is_err() {
        ctx.register_object_store(&remote.root, query_store(&remote.root)?);
    }
    Ok(())
}

/// The store DataFusion reads `root` through: ours, its reads pinned to the versions a query
/// listed ([`pinned::Pinned`]).
fn query_store(root: &Url) -> Result<Arc<dyn ObjectStore>> {
    Ok(Arc::new(pinned::Pinned::remote(build_store(root)?)))
}

/// The store at `root`, configured from the environment and then the options.
fn build_store(root: &Url) -> Result<Arc<dyn ObjectStore>> {
    let options = OPTIONS.read().expect("not poisoned").clone();
    cloud::build(root, &options).with_context(|| format!("cannot use {root}"))
}

#[cfg(feature = "cloud")]
mod cloud {
    use super::*;
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
    use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
    use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
    use object_store::http::HttpBuilder;
    use object_store::{ClientConfigKey, ClientOptions, RetryConfig};

    pub fn build(root: &Url, options: &[(String, String)]) -> Result<Arc<dyn ObjectStore>> {
        let key = |k: &str| k.to_ascii_lowercase();
        let unknown = |k: &str| {
            anyhow!(
                "unknown --storage-option `{k}` for {} stores",
                root.scheme()
            )
        };
        let (ours, options): (Vec<_>, Vec<_>) = options
            .iter()
            .cloned()
            .partition(|(k, _)| key(k) == RETRY_TIMEOUT);
        let retry = retry_config(ours.last().map(|(_, v)| v.as_str()))?;
        let options = options.as_slice();
        Ok(match root.scheme() {
            "s3" | "s3a" => {
                let mut builder = AmazonS3Builder::from_env()
                    .with_url(root.as_str())
                    .with_retry(retry);
                for (k, v) in options {
                    builder = builder.with_config(
                        key(k)
                            .parse::<AmazonS3ConfigKey>()
                            .map_err(|_| unknown(k))?,
                        v,
                    );
                }
                Arc::new(builder.build()?)
            }
            "gs" => {
                let mut builder = GoogleCloudStorageBuilder::from_env()
                    .with_url(root.as_str())
                    .with_retry(retry);
                for (k, v) in options {
                    builder = builder.with_config(
                        key(k).parse::<GoogleConfigKey>().map_err(|_| unknown(k))?,
                        v,
                    );
                }
                Arc::new(builder.build()?)
            }
            "az" | "azure" | "abfs" | "abfss" | "adl" => {
                let mut builder = MicrosoftAzureBuilder::from_env()
                    .with_url(root.as_str())
                    .with_retry(retry);
                for (k, v) in options {
                    builder = builder
                        .with_config(key(k).parse::<AzureConfigKey>().map_err(|_| unknown(k))?, v);
                }
                Arc::new(builder.build()?)
            }
            "http" | "https" => {
                // object_store refuses plain HTTP unless allowed, with only "builder error".
                let allowed = options
                    .iter()
                    .any(|(k, v)| key(k) == "allow_http" && v.eq_ignore_ascii_case("true"));
                if root.scheme() == "http" && !allowed {
                    bail!(
                        "{root} is plain HTTP, which sends the data unencrypted: allow it with \
                         --storage-option allow_http=true, or use https://"
                    );
                }
                let mut client = ClientOptions::new();
                for (k, v) in options {
                    client = client.with_config(
                        key(k).parse::<ClientConfigKey>().map_err(|_| unknown(k))?,
                        v,
                    );
                }
                Arc::new(
                    HttpBuilder::new()
                        .with_url(root.as_str())
                        .with_client_options(client)
                        .with_retry(retry)
                        .build()?,
                )
            }
            other => bail!(
                "`{other}://` is not a store pairmetrics can use (s3, gs, az, abfss, http(s) or file)"
            ),
        })
    }

    /// `--storage-option retry_timeout=SECONDS`: how long a failing request is retried before
    /// the error is reported. object_store's own default, 3 minutes, made an unreachable
    /// endpoint look like a hang.
    const RETRY_TIMEOUT: &str = "retry_timeout";
    const DEFAULT_RETRY_SECONDS: f64 = 30.0;

    fn retry_config(seconds: Option<&str>) -> Result<RetryConfig> {
        let seconds = match seconds {
            None => DEFAULT_RETRY_SECONDS,
            Some(text) => text
                .trim()
                .trim_end_matches('s')
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| {
                    anyhow!("--storage-option {RETRY_TIMEOUT}={text}: expected a number of seconds")
                })?,
        };
        Ok(RetryConfig {
            retry_timeout: std::time::Duration::from_secs_f64(seconds),
            ..RetryConfig::default()
        })
    }
}

#[cfg(not(feature = "cloud"))]
mod cloud {
    use super::*;

    pub fn build(root: &Url, _: &[(String, String)]) -> Result<Arc<dyn ObjectStore>> {
        bail!(
            "this pairmetrics was built without the `cloud` feature, so it cannot use {}:// URLs",
            root.scheme()
        )
    }
}

/// The runtime our own object-store requests run on, apart from DataFusion's: the Parquet
/// reader and writer are synchronous, and may be called from a task of the query's runtime.
static IO: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("pairmetrics-io")
        .enable_all()
        .build()
        .expect("an I/O runtime can be started")
});

/// Run `future` on the I/O runtime and wait for it, from any thread but the I/O runtime's own.
pub fn block_on<T: Send + 'static>(future: impl Future<Output = T> + Send + 'static) -> T {
    let (done, result) = std::sync::mpsc::sync_channel(1);
    IO.spawn(async move {
        let _ = done.send(future.await);
    });
    result
        .recv()
        .expect("the I/O runtime runs until the process ends")
}

/// What a store's error means for `url`, in words a user can act on: the store's own error
/// code and message where it sent one (S3's `<Code>`), with a hint for the common ones.
pub fn explain(url: &str, error: object_store::Error) -> anyhow::Error {
    use object_store::Error as E;
    let text = error.to_string();
    let tag = |name: &str| xml_tag(&text, name);
    let hint = tag("Code").as_deref().and_then(code_hint).unwrap_or(match &error {
        E::PermissionDenied { .. } => code_hint("AccessDenied").expect("a known code"),
        E::Unauthenticated { .. } => "not authenticated (check the credentials)",
        E::NotFound { .. } => "not found (check the bucket and the key)",
        _ if text.contains("error sending request") => "cannot reach the store (check the endpoint, e.g. AWS_ENDPOINT_URL, and the network)",
        _ => "",
    });
    let said = match (tag("Code"), tag("Message")) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        _ => text.clone(),
    };
    match hint {
        "" => anyhow!("{url}: {said}"),
        hint => anyhow!("{url}: {hint} ({said})"),
    }
}

/// The text of `<name>...</name>` in a store's error body, as it reaches us inside a message.
fn xml_tag(text: &str, name: &str) -> Option<String> {
    let start = text.find(&format!("<{name}>"))? + name.len() + 2;
    let end = start + text[start..].find(&format!("</{name}>"))?;
    Some(text[start..end].to_string())
}

/// What an S3 error code means, in words a user can act on.
fn code_hint(code: &str) -> Option<&'static str> {
    Some(match code {
        "NoSuchBucket" => "the bucket does not exist",
        "InvalidAccessKeyId" => "the store does not know this access key (check AWS_ACCESS_KEY_ID)",
        "SignatureDoesNotMatch" => "the secret key is wrong (check AWS_SECRET_ACCESS_KEY)",
        "AccessDenied" => {
            "access denied: the credentials are wrong or may not do this (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and their permissions)"
        }
        _ => return None,
    })
}

/// A message from a library that passes a store's XML error body on as it came (delta-rs):
/// the body replaced by its code, message and hint.
pub fn without_xml(text: &str) -> String {
    let (Some(code), Some(start)) = (
        xml_tag(text, "Code"),
        text.find("<?xml").or_else(|| text.find("<Error>")),
    ) else {
        return text.to_string();
    };
    let message = xml_tag(text, "Message").unwrap_or_default();
    let end = text
        .rfind("</Error>")
        .map_or(text.len(), |i| i + "</Error>".len());
    let said = match code_hint(&code) {
        Some(hint) => format!("{hint} ({code}: {message})"),
        None => format!("{code}: {message}"),
    };
    format!("{}{said}{}", &text[..start], &text[end..])
}
