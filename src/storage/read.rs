//! Reading an object as the synchronous Parquet reader and the text reader read a file: by
//! ranges, through a small cache of blocks, so that the reader's many small reads (a page
//! header, then the page) become a few large requests and memory stays bounded.

use std::io::Read;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use datafusion::parquet::errors::{ParquetError, Result as ParquetResult};
use datafusion::parquet::file::reader::{ChunkReader, Length};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};

use super::{Remote, block_on, explain};

/// Requests fetch this much at a time, aligned: a page header and its page are one request.
const BLOCK: u64 = 8 << 20;
/// Blocks kept per object: enough for the interleaved reads of every column of a row group.
const BLOCKS_KEPT: usize = 12;

/// One object, opened: its size is known and its blocks are cached. Clones share the cache.
#[derive(Clone)]
pub struct RemoteFile {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    store: Arc<dyn ObjectStore>,
    key: ObjectPath,
    size: u64,
    /// Most recently used last.
    blocks: Mutex<Vec<(u64, Bytes)>>,
}

impl std::fmt::Debug for RemoteFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RemoteFile({}, {} bytes)",
            self.inner.url, self.inner.size
        )
    }
}

impl RemoteFile {
    /// The object `key` of `remote`'s store, of `size` bytes (as a listing gave it).
    pub fn new(remote: &Remote, key: ObjectPath, size: u64) -> RemoteFile {
        let url = remote.url_of(&key);
        let inner = Inner {
            url,
            store: remote.store.clone(),
            key,
            size,
            blocks: Mutex::new(Vec::new()),
        };
        RemoteFile {
            inner: Arc::new(inner),
        }
    }

    /// The object at `remote`'s key; an error names the URL and why (missing, denied).
    pub fn open(remote: &Remote) -> anyhow::Result<RemoteFile> {
        let (store, key) = (remote.store.clone(), remote.key.clone());
        let meta = block_on(async move { store.head(&key).await })
            .map_err(|e| explain(remote.url.as_str(), e))?;
        Ok(RemoteFile::new(remote, remote.key.clone(), meta.size))
    }

    pub fn url(&self) -> &str {
        &self.inner.url
    }

    pub fn size(&self) -> u64 {
        self.inner.size
    }

    /// Bytes `range` of the object.
    pub fn read_range(&self, range: Range<u64>) -> anyhow::Result<Bytes> {
        let range = range.start.min(self.inner.size)..range.end.min(self.inner.size);
        let first = range.start / BLOCK;
        let last = range.end.saturating_sub(1) / BLOCK;
        if range.is_empty() {
            return Ok(Bytes::new());
        }
        if first == last {
            let block = self.block(first)?;
            let offset = (range.start - first * BLOCK) as usize;
            return Ok(block.slice(offset..offset + (range.end - range.start) as usize));
        }
        let mut out = BytesMut::with_capacity((range.end - range.start) as usize);
        for index in first..=last {
            let block = self.block(index)?;
            let start = range.start.max(index * BLOCK) - index * BLOCK;
            let end = range.end.min((index + 1) * BLOCK) - index * BLOCK;
            out.extend_from_slice(&block[start as usize..end as usize]);
        }
        Ok(out.freeze())
    }

    fn block(&self, index: u64) -> anyhow::Result<Bytes> {
        let inner = &self.inner;
        {
            let mut blocks = inner.blocks.lock().expect("not poisoned");
            if let Some(at) = blocks.iter().position(|(i, _)| *i == index) {
                let hit = blocks.remove(at);
                blocks.push(hit.clone());
                return Ok(hit.1);
            }
        }
        let range = index * BLOCK..((index + 1) * BLOCK).min(inner.size);
        let (store, key) = (inner.store.clone(), inner.key.clone());
        let bytes = block_on(async move { store.get_range(&key, range).await })
            .map_err(|e| explain(&inner.url, e))?;
        let mut blocks = inner.blocks.lock().expect("not poisoned");
        if blocks.len() == BLOCKS_KEPT {
            blocks.remove(0);
        }
        blocks.push((index, bytes.clone()));
        Ok(bytes)
    }

    /// A reader of the object from `start` to its end.
    pub fn reader(&self, start: u64) -> RemoteReader {
        RemoteReader {
            file: self.clone(),
            position: start,
        }
    }
}

/// Reads an object sequentially, a block at a time.
pub struct RemoteReader {
    file: RemoteFile,
    position: u64,
}

impl Read for RemoteReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = (self.position + buf.len() as u64)
            .min(self.file.size())
            .min((self.position / BLOCK + 1) * BLOCK);
        let bytes = self
            .file
            .read_range(self.position..end)
            .map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        self.position += bytes.len() as u64;
        Ok(bytes.len())
    }
}

impl Length for RemoteFile {
    fn len(&self) -> u64 {
        self.inner.size
    }
}

impl ChunkReader for RemoteFile {
    type T = RemoteReader;

    fn get_read(&self, start: u64) -> ParquetResult<RemoteReader> {
        Ok(self.reader(start))
    }

    fn get_bytes(&self, start: u64, length: usize) -> ParquetResult<Bytes> {
        let bytes = self
            .read_range(start..start + length as u64)
            .map_err(|e| ParquetError::External(e.into()))?;
        if bytes.len() < length {
            return Err(ParquetError::EOF(format!(
                "{}: {length} bytes at {start} past its end",
                self.url()
            )));
        }
        Ok(bytes)
    }
}
