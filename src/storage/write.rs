//! Outputs that appear whole or not at all. A local file is written beside its target under a
//! hidden name, synced and renamed; an object is a multipart upload, streamed part by part and
//! completed only by [`Output::commit`], so until then nothing exists under its key, and a
//! dropped output (an error, a panic) aborts the upload. A killed process leaves an incomplete
//! upload, which is never visible under the key (stores expire them by lifecycle rule).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use object_store::{ObjectStoreExt, WriteMultipart};

use super::{IO, Location, Remote, explain};

/// Parts of an upload (S3 wants at least 5 MiB for every part but the last).
const PART: usize = 10 << 20;
/// Parts in flight at once: memory is bounded by about this many parts, plus the one filling.
const PARTS_IN_FLIGHT: usize = 4;

/// Bytes gathered before each write to a local file: the Parquet writer hands over 8 KiB at a
/// time (as does the chunk copy of `score`), a system call each.
const LOCAL_BUFFER: usize = 1 << 20;

/// An output being written.
pub struct Output {
    sink: Option<Sink>,
}

enum Sink {
    Local { file: BufWriter<File>, temp: PathBuf, target: PathBuf },
    Object(Upload),
}

impl Output {
    /// Start writing `target`, a local path or a URL. A local target's directory must exist.
    pub fn create(target: &Path) -> Result<Output> {
        let sink = match Location::parse(target)? {
            Location::Local(target) => {
                let temp = partial_path(&target)?;
                let file = File::create(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
                Sink::Local { file: BufWriter::with_capacity(LOCAL_BUFFER, file), temp, target }
            }
            Location::Remote(remote) => Sink::Object(Upload::start(remote)),
        };
        Ok(Output { sink: Some(sink) })
    }

    /// Fail early, before any work, if `target` cannot be written (a local directory that
    /// does not exist; a store that cannot be configured).
    pub fn check(target: &Path) -> Result<()> {
        match Location::parse(target)? {
            Location::Local(target) => partial_path(&target).map(drop),
            Location::Remote(_) => Ok(()),
        }
    }

    /// Make the output appear under its target, complete.
    pub fn commit(mut self) -> Result<()> {
        match self.sink.take().expect("committed once") {
            Sink::Local { file, temp, target } => {
                let moved = file
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(|file| file.sync_all())
                    .with_context(|| format!("writing {}", temp.display()))
                    .and_then(|()| fs::rename(&temp, &target).with_context(|| format!("moving {} to {}", temp.display(), target.display())));
                if moved.is_err() {
                    let _ = fs::remove_file(&temp);
                }
                moved
            }
            Sink::Object(upload) => upload.complete(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sink.as_mut().expect("open until commit") {
            Sink::Local { file, .. } => file.write(buf),
            Sink::Object(upload) => upload.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.sink.as_mut().expect("open until commit") {
            Sink::Local { file, .. } => file.flush(),
            Sink::Object(_) => Ok(()),
        }
    }
}

impl Drop for Output {
    /// An output not committed is discarded: the temporary file removed, the upload aborted.
    fn drop(&mut self) {
        match self.sink.take() {
            Some(Sink::Local { temp, .. }) => drop(fs::remove_file(temp)),
            Some(Sink::Object(upload)) => upload.abort(),
            None => {}
        }
    }
}

/// A multipart upload, run on a thread of its own so that writing is a plain blocking `Write`
/// whatever calls it: full parts go to that thread through a bounded queue (backpressure), and
/// it keeps up to [`PARTS_IN_FLIGHT`] uploads running on the I/O runtime.
struct Upload {
    buffer: Vec<u8>,
    parts: Option<SyncSender<Part>>,
    thread: Option<JoinHandle<Result<()>>>,
}

enum Part {
    Data(Bytes),
    Complete,
}

impl Upload {
    fn start(remote: Remote) -> Upload {
        let (parts, queue) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("pairmetrics-upload".into())
            .spawn(move || IO.block_on(upload(remote, queue)))
            .expect("a thread can be started");
        Upload { buffer: Vec::with_capacity(PART), parts: Some(parts), thread: Some(thread) }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        if self.buffer.len() >= PART {
            let part = Bytes::from(std::mem::replace(&mut self.buffer, Vec::with_capacity(PART)));
            self.send(Part::Data(part))?;
        }
        Ok(buf.len())
    }

    fn send(&mut self, part: Part) -> io::Result<()> {
        if self.parts.as_ref().expect("open").send(part).is_ok() {
            return Ok(());
        }
        // The upload thread stopped on an error: its result says which.
        let why = self.stop().err().unwrap_or_else(|| anyhow::anyhow!("the upload stopped"));
        Err(io::Error::other(format!("{why:#}")))
    }

    fn stop(&mut self) -> Result<()> {
        self.parts = None;
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => bail!("the upload already stopped"),
        }
    }

    fn complete(mut self) -> Result<()> {
        let last = Bytes::from(std::mem::take(&mut self.buffer));
        if !last.is_empty() {
            self.send(Part::Data(last))?;
        }
        self.send(Part::Complete)?;
        self.stop()
    }

    /// Drop the queue without completing: the thread aborts the upload; wait for it.
    fn abort(mut self) {
        let _ = self.stop();
    }
}

/// The upload thread: parts in order until `Complete`; the queue closing first aborts.
async fn upload(remote: Remote, queue: Receiver<Part>) -> Result<()> {
    let url = remote.url.as_str();
    let started = remote.store.put_multipart(&remote.key).await.map_err(|e| explain(url, e))?;
    let mut upload = WriteMultipart::new_with_chunk_size(started, PART);
    loop {
        // A blocking wait, on this thread only: the parts in flight run on the runtime's workers.
        match queue.recv() {
            Ok(Part::Data(bytes)) => {
                if let Err(e) = upload.wait_for_capacity(PARTS_IN_FLIGHT).await {
                    let _ = upload.abort().await;
                    return Err(explain(url, e));
                }
                upload.put(bytes);
            }
            Ok(Part::Complete) => return upload.finish().await.map(drop).map_err(|e| explain(url, e)),
            Err(_) => {
                let _ = upload.abort().await;
                bail!("{url}: the upload was abandoned and aborted");
            }
        }
    }
}

/// Where a local output is written before it is complete: a hidden file beside `target` (so the
/// final rename stays on one file system), after checking the directory exists.
pub fn partial_path(target: &Path) -> Result<PathBuf> {
    let name = target.file_name().with_context(|| format!("output path {} has no file name", target.display()))?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!("output directory {} does not exist", dir.display());
    }
    Ok(dir.join(format!(".{}.{}.partial", name.to_string_lossy(), std::process::id())))
}

/// Whether a file name is that of a [`partial_path`] (an output left incomplete by a process
/// that died).
pub fn is_partial(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".partial")
}

/// Write `bytes` to `target` all at once, atomically.
pub fn write_whole(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut output = Output::create(target)?;
    output.write_all(bytes).with_context(|| format!("writing {}", target.display()))?;
    output.commit()
}
