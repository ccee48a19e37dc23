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

use super::{IO, Location, Remote, explain, refuse_input};

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
    /// A new file beside the target, renamed over it by [`Output::commit`].
    Local {
        file: BufWriter<File>,
        temp: PathBuf,
        target: PathBuf,
    },
    /// A character device or FIFO.
    Through(Stream),
    Object(Upload),
}

/// What is at a local output's path now, and so how the output is written there.
enum Existing {
    /// Nothing, or a regular file: written beside it and renamed; a file keeps its permissions
    /// (but set-user-ID and set-group-ID, which new content must not inherit) and, where the
    /// process may give it, its owner.
    Replace(Option<fs::Metadata>),
    /// A character device or a FIFO: written through.
    WriteThrough,
}

impl Existing {
    /// Refuses what must not be replaced: a symbolic link (replacing it would not write where
    /// it points, and writing where it points is a surprise too), a directory, a block device
    /// or a socket.
    fn of(target: &Path) -> Result<Existing> {
        use std::os::unix::fs::FileTypeExt;
        let metadata = match fs::symlink_metadata(target) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Replace(None)),
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot inspect output {}", target.display()));
            }
        };
        let kind = metadata.file_type();
        let what = match () {
            _ if kind.is_file() => return Ok(Existing::Replace(Some(metadata))),
            _ if kind.is_char_device() || kind.is_fifo() => return Ok(Existing::WriteThrough),
            _ if kind.is_symlink() => match (fs::canonicalize(target), fs::read_link(target)) {
                (Ok(to), _) => format!(
                    "a symbolic link to {}; give that path to replace it",
                    to.display()
                ),
                // Dangling (or in a loop): name what it says it points to.
                (Err(_), Ok(to)) => format!(
                    "a symbolic link to {}, which does not resolve; give a path to write",
                    to.display()
                ),
                (Err(_), Err(_)) => "a symbolic link".to_string(),
            },
            _ if kind.is_dir() => {
                "a directory (end the path with / to write a dataset into a new one)".to_string()
            }
            _ if kind.is_block_device() => "a block device".to_string(),
            _ => "a socket".to_string(),
        };
        bail!(
            "output {} is {what}; pairmetrics replaces only regular files",
            target.display()
        )
    }
}

/// Give `file` the owner (where this process may: root, or the owner already) and the mode of
/// the file it replaces, without set-user-ID and set-group-ID.
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // Changing the owner is refused (EPERM) to a process that is not root: it then owns the
    // new file, as any new file it writes. chown also clears the set-ID bits on its own.
    match std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())) {
        Err(e) if e.kind() != io::ErrorKind::PermissionDenied => return Err(e),
        _ => {}
    }
    let mode = old.permissions().mode() & !crate::kernels::sys::SET_ID_BITS;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

impl Output {
    /// Start writing `target`, a local path or a URL. A local target's directory must exist.
    pub fn create(target: &Path) -> Result<Output> {
        refuse_input(target)?;
        let sink = match Location::parse(target)? {
            Location::Local(target) => match Existing::of(&target)? {
                Existing::Replace(replaced) => {
                    // A partial is a temporary file already (a job's staging): written in place.
                    let temp = match target
                        .file_name()
                        .is_some_and(|n| is_partial(&n.to_string_lossy()))
                    {
                        true => target.clone(),
                        false => partial_path(&target)?,
                    };
                    let file = File::create(&temp)
                        .with_context(|| format!("cannot create {}", temp.display()))?;
                    if let Some(Err(e)) = replaced.map(|old| keep_owner_and_mode(&file, &old)) {
                        let _ = fs::remove_file(&temp);
                        return Err(e).with_context(|| {
                            format!(
                                "cannot give {} the permissions of the file it replaces",
                                temp.display()
                            )
                        });
                    }
                    Sink::Local {
                        file: BufWriter::with_capacity(LOCAL_BUFFER, file),
                        temp,
                        target,
                    }
                }
                Existing::WriteThrough => Sink::Through(Stream {
                    target,
                    file: None,
                    buffer: Vec::with_capacity(LOCAL_BUFFER),
                }),
            },
            Location::Remote(remote) => Sink::Object(Upload::start(remote)),
        };
        Ok(Output { sink: Some(sink) })
    }

    /// Fail early, before any work, if `target` cannot be written (a local directory that
    /// does not exist; a store that cannot be configured).
    pub fn check(target: &Path) -> Result<()> {
        refuse_input(target)?;
        match Location::parse(target)? {
            Location::Local(target) => match Existing::of(&target)? {
                Existing::Replace(_) => partial_path(&target).map(drop),
                Existing::WriteThrough => Ok(()),
            },
            Location::Remote(_) => Ok(()),
        }
    }

    /// The local file being written, for hints to the kernel (`lepod`'s early write-back);
    /// None for an object.
    pub fn local_file(&self) -> Option<&File> {
        match self.sink.as_ref()? {
            Sink::Local { file, .. } => Some(file.get_ref()),
            Sink::Through(stream) => stream.file.as_ref(),
            Sink::Object(_) => None,
        }
    }

    /// Make the output appear under its target, complete.
    pub fn commit(mut self) -> Result<()> {
        match self.sink.take().expect("committed once") {
            Sink::Local { file, temp, target } => {
                // Checked again: an input may have been read after the output was started.
                let moved = refuse_input(&target)
                    .and_then(|()| {
                        let file = file.into_inner().map_err(|e| e.into_error());
                        file.and_then(|file| file.sync_all())
                            .with_context(|| format!("writing {}", temp.display()))
                    })
                    .and_then(|()| {
                        fs::rename(&temp, &target).with_context(|| {
                            format!("moving {} to {}", temp.display(), target.display())
                        })
                    });
                if moved.is_err() {
                    let _ = fs::remove_file(&temp);
                }
                moved
            }
            Sink::Through(mut stream) => stream
                .drain()
                .with_context(|| format!("writing {}", stream.target.display())),
            Sink::Object(upload) => upload.complete(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sink.as_mut().expect("open until commit") {
            Sink::Local { file, .. } => file.write(buf),
            Sink::Through(stream) => stream.write(buf),
            Sink::Object(upload) => upload.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.sink.as_mut().expect("open until commit") {
            Sink::Local { file, .. } => file.flush(),
            // Bytes leave a stream's buffer when it is full or at the commit (see Stream).
            Sink::Through(_) | Sink::Object(_) => Ok(()),
        }
    }
}

impl Drop for Output {
    /// An output not committed is discarded: the temporary file removed, the upload aborted.
    fn drop(&mut self) {
        match self.sink.take() {
            Some(Sink::Local { temp, .. }) => drop(fs::remove_file(temp)),
            Some(Sink::Object(upload)) => upload.abort(),
            // What is still buffered is not sent: a writer that starts again (`copy_columns`)
            // leaves nothing in the stream.
            Some(Sink::Through(_)) | None => {}
        }
    }
}

/// A character device or FIFO (`/dev/null`, `/dev/stdout`, a named pipe), written to as it is:
/// renaming a file over it would replace the device node or the pipe. It is opened only when
/// the first bytes leave the buffer, so that an output dropped before then sends nothing: a
/// FIFO's reader would otherwise see one stream end and another begin.
struct Stream {
    target: PathBuf,
    file: Option<File>,
    buffer: Vec<u8>,
}

impl Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        if self.buffer.len() >= LOCAL_BUFFER {
            self.drain()?;
        }
        Ok(buf.len())
    }

    /// Send the buffer, opening the target first if this is the first time.
    fn drain(&mut self) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let opened = fs::OpenOptions::new().write(true).open(&self.target);
                let opened = opened.map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot open {} for writing: {e}", self.target.display()),
                    )
                })?;
                self.file.insert(opened)
            }
        };
        file.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
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
        Upload {
            buffer: Vec::with_capacity(PART),
            parts: Some(parts),
            thread: Some(thread),
        }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        if self.buffer.len() >= PART {
            let part = Bytes::from(std::mem::replace(
                &mut self.buffer,
                Vec::with_capacity(PART),
            ));
            self.send(Part::Data(part))?;
        }
        Ok(buf.len())
    }

    fn send(&mut self, part: Part) -> io::Result<()> {
        if self.parts.as_ref().expect("open").send(part).is_ok() {
            return Ok(());
        }
        // The upload thread stopped on an error: its result says which.
        let why = self
            .stop()
            .err()
            .unwrap_or_else(|| anyhow::anyhow!("the upload stopped"));
        Err(io::Error::other(format!("{why:#}")))
    }

    fn stop(&mut self) -> Result<()> {
        self.parts = None;
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
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
    let started = remote
        .store
        .put_multipart(&remote.key)
        .await
        .map_err(|e| explain(url, e))?;
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
            Ok(Part::Complete) => {
                return upload.finish().await.map(drop).map_err(|e| explain(url, e));
            }
            Err(_) => {
                let _ = upload.abort().await;
                bail!("{url}: the upload was abandoned and aborted");
            }
        }
    }
}

/// Where a local output is written before it is complete: a hidden file beside `target` (so the
/// final rename stays on one file system), after checking the directory exists. What earlier
/// runs left there for the same target, killed before they could remove it, is removed now.
pub fn partial_path(target: &Path) -> Result<PathBuf> {
    let name = target
        .file_name()
        .with_context(|| format!("output path {} has no file name", target.display()))?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!("output directory {} does not exist", dir.display());
    }
    let name = name.to_string_lossy();
    remove_stale_partials(&dir, &name);
    Ok(dir.join(format!(".{name}.{}.partial", std::process::id())))
}

/// Whether a file name is that of a [`partial_path`] (an output left incomplete by a process
/// that died).
pub fn is_partial(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".partial")
}

/// Remove the partial outputs of `name` in `dir` whose process no longer runs on this machine
/// (a partial of a live process is another run's work in progress). Best effort: what cannot
/// be removed stays, as it did before.
fn remove_stale_partials(dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| {
            f.strip_prefix(&prefix)?
                .strip_suffix(".partial")?
                .parse::<u32>()
                .ok()
        }) else {
            continue;
        };
        if pid == std::process::id() || pairmetrics_kernels::spill::process_runs(pid) {
            continue;
        }
        let path = entry.path();
        let _ = match entry.file_type().is_ok_and(|t| t.is_dir()) {
            true => fs::remove_dir_all(&path),
            false => fs::remove_file(&path),
        };
    }
}

/// Write `bytes` to `target` all at once, atomically.
pub fn write_whole(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut output = Output::create(target)?;
    output
        .write_all(bytes)
        .with_context(|| format!("writing {}", target.display()))?;
    output.commit()
}
