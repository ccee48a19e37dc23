//! The stores DataFusion reads through, pinned to the version of each file a query listed.
//!
//! Each time a table's files are listed (or a file table's file is headed: a query plans), the
//! version of each is recorded: its ETag (for local files `LocalFileSystem`'s: inode,
//! modification time, size). Then:
//! - local files: the first read opens the file and checks it is still that version, and every
//!   later byte range comes from the open file. object_store's `LocalFileSystem` opens the path
//!   again for each range, so a file replaced during a scan (an atomic rename of a new version)
//!   mixed two versions: torn sums with the same layout, "Corrupt footer" blamed on a sound file
//!   with another. A replaced file's old version lives on while it is open, so the scan reads
//!   it whole;
//! - remote objects: every read carries the recorded ETag as `If-Match`, so an object replaced
//!   during a scan fails the read, naming it.
//!
//! A later listing that sees another version unpins the old one; a file that changed between
//! its listing and its first read is an error naming it, never a silent mix. Everything but
//! reads is the inner store's.

use std::collections::HashMap;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// A version of a file as listed, and (local files) the open file once a read has pinned it,
/// with when, to close the oldest first.
#[derive(Debug)]
struct Version {
    e_tag: String,
    file: Option<(Arc<File>, u64)>,
}

/// The most files kept open. Past it the longest-open is closed: a later read of it opens it
/// again and checks it is still the listed version, so a replaced file is then an error, never
/// a mix. (A dataset of thousands of files would otherwise exhaust the process's descriptors.)
const MAX_OPEN: usize = 256;

type Versions = Arc<Mutex<HashMap<Path, Version>>>;

/// A store whose reads are pinned (see the module's documentation).
#[derive(Debug)]
pub struct Pinned {
    inner: Arc<dyn ObjectStore>,
    /// The local file system, when `inner` is it: reads then come from the files kept open.
    local: Option<Arc<LocalFileSystem>>,
    versions: Versions,
}

impl Pinned {
    /// The local file system.
    pub fn local() -> Self {
        let local = Arc::new(LocalFileSystem::new());
        Pinned {
            inner: local.clone(),
            local: Some(local),
            versions: Versions::default(),
        }
    }

    /// A remote store: its reads carry the listed ETag as `If-Match`.
    pub fn remote(inner: Arc<dyn ObjectStore>) -> Self {
        Pinned {
            inner,
            local: None,
            versions: Versions::default(),
        }
    }
}

impl std::fmt::Display for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pinned({})", self.inner)
    }
}

/// `LocalFileSystem`'s ETag of a file's metadata: inode, modification time (µs), size.
fn e_tag(metadata: &std::fs::Metadata) -> String {
    let mtime = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .unwrap_or_default()
        .as_micros();
    format!("{:x}-{mtime:x}-{:x}", metadata.ino(), metadata.len())
}

/// Record what a listing saw: a version that differs from the one recorded unpins it.
fn record(versions: &Versions, meta: &ObjectMeta) {
    let Some(e_tag) = &meta.e_tag else {
        return;
    };
    let mut versions = versions.lock().unwrap_or_else(|e| e.into_inner());
    match versions.get_mut(&meta.location) {
        Some(version) if &version.e_tag == e_tag => {}
        _ => {
            versions.insert(
                meta.location.clone(),
                Version {
                    e_tag: e_tag.clone(),
                    file: None,
                },
            );
        }
    }
}

fn generic(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> object_store::Error {
    object_store::Error::Generic {
        store: "LocalFileSystem",
        source: source.into(),
    }
}

/// The open file of `location`'s pinned version in `versions`, opening it on its first read.
fn pinned(
    local: &LocalFileSystem,
    versions: &Versions,
    location: &Path,
) -> Result<(Arc<File>, ObjectMeta)> {
    let path = local.path_to_filesystem(location)?;
    let mut versions = versions.lock().unwrap_or_else(|e| e.into_inner());
    let file = match versions.get(location).and_then(|v| v.file.clone()) {
        Some((file, _)) => file,
        None => {
            let file = File::open(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => object_store::Error::NotFound {
                    path: path.display().to_string(),
                    source: e.into(),
                },
                _ => generic(e),
            })?;
            let opened = e_tag(&file.metadata().map_err(generic)?);
            let file = Arc::new(file);
            let open: Vec<(u64, Path)> = versions
                .iter()
                .filter_map(|(path, v)| Some((v.file.as_ref()?.1, path.clone())))
                .collect();
            let when = open.iter().map(|(when, _)| when + 1).max().unwrap_or(0);
            if open.len() >= MAX_OPEN
                && let Some((_, oldest)) = open.iter().min()
                && let Some(version) = versions.get_mut(oldest)
            {
                version.file = None;
            }
            match versions.get_mut(location) {
                Some(version) if version.e_tag != opened => {
                    return Err(generic(format!(
                        "{} changed after its table was listed (replaced or rewritten during \
                             the query): run it again",
                        path.display()
                    )));
                }
                Some(version) => version.file = Some((file.clone(), when)),
                None => {
                    versions.insert(
                        location.clone(),
                        Version {
                            e_tag: opened,
                            file: Some((file.clone(), when)),
                        },
                    );
                }
            }
            file
        }
    };
    let metadata = file.metadata().map_err(generic)?;
    let meta = ObjectMeta {
        location: location.clone(),
        last_modified: metadata.modified().map_err(generic)?.into(),
        size: metadata.len(),
        e_tag: Some(e_tag(&metadata)),
        version: None,
    };
    Ok((file, meta))
}

#[async_trait]
impl ObjectStore for Pinned {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        if options.head {
            // A file table's planning heads its file, as a directory's lists its files: the
            // version now is the one this query reads.
            let result = self.inner.get_opts(location, options).await?;
            record(&self.versions, &result.meta);
            return Ok(result);
        }
        let Some(local) = &self.local else {
            return self.get_remote(location, options).await;
        };
        let (file, meta) = pinned(local, &self.versions, location)?;
        options.check_preconditions(&meta)?;
        let range: Range<u64> = match &options.range {
            Some(range) => range.as_range(meta.size).map_err(generic)?,
            None => 0..meta.size,
        };
        let bytes = {
            let range = range.clone();
            tokio::task::spawn_blocking(move || {
                let mut buffer = vec![0; (range.end - range.start) as usize];
                file.read_exact_at(&mut buffer, range.start)
                    .map(|()| Bytes::from(buffer))
            })
            .await
            .map_err(generic)?
            .map_err(generic)?
        };
        Ok(GetResult {
            payload: GetResultPayload::Stream(futures::stream::once(async { Ok(bytes) }).boxed()),
            meta,
            range,
            attributes: Default::default(),
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let versions = self.versions.clone();
        self.inner
            .list(prefix)
            .map(move |meta| {
                if let Ok(meta) = &meta {
                    record(&versions, meta);
                }
                meta
            })
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let listed = self.inner.list_with_delimiter(prefix).await?;
        for meta in &listed.objects {
            record(&self.versions, meta);
        }
        Ok(listed)
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

impl Pinned {
    /// A remote read with the listed version's ETag as `If-Match`.
    async fn get_remote(&self, location: &Path, mut options: GetOptions) -> Result<GetResult> {
        if options.if_match.is_none() {
            let versions = self.versions.lock().unwrap_or_else(|e| e.into_inner());
            options.if_match = versions.get(location).map(|v| v.e_tag.clone());
        }
        let pinned = options.if_match.clone();
        self.inner
            .get_opts(location, options)
            .await
            .map_err(|e| match (e, pinned) {
                (object_store::Error::Precondition { path, .. }, Some(e_tag)) => generic(format!(
                    "{path} changed while it was read (its ETag was {e_tag} when the query \
                     listed it): run the query again"
                )),
                (e, _) => e,
            })
    }
}
