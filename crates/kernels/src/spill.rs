//! Lists of fixed-size records that keep up to a capacity in memory and append the rest to a
//! file of one scratch directory, so that a computation's memory is bounded whatever its input.
//! A list with room for all its records never touches the disk.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A record as little-endian bytes.
pub trait Record: Copy {
    const SIZE: usize;
    fn put(self, to: &mut Vec<u8>);
    fn get(from: &[u8]) -> Self;
}

/// Numbers as their little-endian bytes.
macro_rules! number_records {
    ($($t:ty),*) => {$(
        impl Record for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, to: &mut Vec<u8>) {
                to.extend_from_slice(&self.to_le_bytes());
            }
            fn get(from: &[u8]) -> Self {
                <$t>::from_le_bytes(from.try_into().expect("SIZE bytes"))
            }
        }
    )*};
}

number_records!(u32, u64, f32, u128);

/// Two records side by side (a key and a count, a key and a row).
impl<A: Record, B: Record> Record for (A, B) {
    const SIZE: usize = A::SIZE + B::SIZE;
    fn put(self, to: &mut Vec<u8>) {
        self.0.put(to);
        self.1.put(to);
    }
    fn get(from: &[u8]) -> Self {
        (A::get(&from[..A::SIZE]), B::get(&from[A::SIZE..]))
    }
}

/// How every scratch directory's name begins: `pairmetrics-scratch.PID.` and a random suffix, so
/// that a later run can tell the directory of a process that no longer runs (killed) and
/// remove it.
const PREFIX: &str = "pairmetrics-scratch.";

/// The scratch directories this process has made and not yet removed, for
/// [`remove_scratch_directories`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remove every scratch directory this process has made: what a front end calls when the
/// process is told to stop (SIGINT, SIGTERM), as dropping the lists would have.
pub fn remove_scratch_directories() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for dir in live {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Whether process `pid` exists on this machine (signal 0 sends nothing, it only asks).
pub fn process_runs(pid: u32) -> bool {
    crate::sys::process_runs(pid)
}

/// Remove the scratch directories in `parent` of processes that no longer run (a run killed
/// with SIGKILL leaves its own). Only directories named as ours are touched, and a symbolic
/// link is never followed. Best effort: what cannot be removed stays.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|name| {
            let (pid, _) = name.strip_prefix(PREFIX)?.split_once('.')?;
            pid.parse::<u32>().ok()
        }) else {
            continue;
        };
        // The entry's own type: a symbolic link is not a directory here.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && pid != std::process::id() && !process_runs(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The directory spilled lists write to: made in `parent` (the system's temporary directory
/// without one) when the first list spills, and removed with everything in it when the last
/// list that shares it is dropped, or by [`remove_scratch_directories`]. Making one first
/// removes what killed runs left in `parent`.
#[derive(Debug)]
pub struct Scratch {
    parent: Option<PathBuf>,
    dir: Mutex<Option<tempfile::TempDir>>,
    files: AtomicU64,
}

impl Scratch {
    pub fn new(parent: Option<PathBuf>) -> Arc<Scratch> {
        sweep(&parent.clone().unwrap_or_else(std::env::temp_dir));
        Arc::new(Scratch {
            parent,
            dir: Mutex::new(None),
            files: AtomicU64::new(0),
        })
    }

    /// Where the scratch directory is (or will be), for messages.
    pub fn location(&self) -> PathBuf {
        match &*self.dir.lock().expect("not poisoned") {
            Some(dir) => dir.path().to_path_buf(),
            None => self.parent.clone().unwrap_or_else(std::env::temp_dir),
        }
    }

    /// `error`, met writing or reading back this directory's files, saying where they are.
    pub fn error(&self, error: io::Error) -> io::Error {
        let location = self.location();
        io::Error::new(
            error.kind(),
            format!(
                "spilling to the scratch directory {}: {error}",
                location.display()
            ),
        )
    }

    fn new_file(&self) -> io::Result<PathBuf> {
        let mut dir = self.dir.lock().expect("not poisoned");
        if dir.is_none() {
            let prefix = format!("{PREFIX}{}.", std::process::id());
            let parent = self.parent.clone().unwrap_or_else(std::env::temp_dir);
            let made = tempfile::Builder::new()
                .prefix(&prefix)
                .tempdir_in(parent)?;
            LIVE.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(made.path().to_path_buf());
            *dir = Some(made);
        }
        let number = self.files.fetch_add(1, Ordering::Relaxed);
        Ok(dir
            .as_ref()
            .expect("made")
            .path()
            .join(format!("{number}.bin")))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The directory itself goes with its TempDir.
        if let Some(dir) = self.dir.get_mut().unwrap_or_else(|e| e.into_inner()) {
            let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
            live.retain(|d| d != dir.path());
        }
    }
}

/// Records in the order pushed: the first ones in a file once the memory held more than the
/// capacity, the last ones in memory.
#[derive(Debug)]
pub struct Spill<T: Record> {
    scratch: Arc<Scratch>,
    capacity: usize,
    memory: Vec<T>,
    file: Option<PathBuf>,
    on_disk: usize,
}

impl<T: Record> Spill<T> {
    /// A list holding at most `capacity_bytes` of records in memory.
    pub fn new(scratch: &Arc<Scratch>, capacity_bytes: usize) -> Spill<T> {
        Spill {
            scratch: scratch.clone(),
            capacity: (capacity_bytes / T::SIZE).max(1),
            memory: Vec::new(),
            file: None,
            on_disk: 0,
        }
    }

    /// The scratch directory the list spills to.
    pub fn scratch(&self) -> &Arc<Scratch> {
        &self.scratch
    }

    pub fn len(&self) -> usize {
        self.on_disk + self.memory.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn push(&mut self, record: T) -> io::Result<()> {
        if self.memory.len() >= self.capacity {
            self.write_out()?;
        }
        self.memory.push(record);
        Ok(())
    }

    /// Append the records in memory to the file.
    fn write_out(&mut self) -> io::Result<()> {
        let path = match &self.file {
            Some(path) => path.clone(),
            None => {
                let path = self.scratch.new_file()?;
                self.file = Some(path.clone());
                path
            }
        };
        let mut bytes = Vec::with_capacity(self.memory.len() * T::SIZE);
        for &record in &self.memory {
            record.put(&mut bytes);
        }
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?
            .write_all(&bytes)?;
        self.on_disk += self.memory.len();
        self.memory.clear();
        Ok(())
    }

    /// The records of `range`, in order.
    pub fn iter(&self, range: Range<usize>) -> io::Result<Records<'_, T>> {
        assert!(range.start <= range.end && range.end <= self.len());
        let from_file = range.start.min(self.on_disk)..range.end.min(self.on_disk);
        let file = match &self.file {
            Some(path) if !from_file.is_empty() => {
                let mut file = File::open(path)?;
                file.seek(SeekFrom::Start((from_file.start * T::SIZE) as u64))?;
                Some(BufReader::with_capacity(1 << 16, file))
            }
            _ => None,
        };
        let end = range.end.saturating_sub(self.on_disk);
        let in_memory = range.start.saturating_sub(self.on_disk).min(end)..end;
        Ok(Records {
            file,
            left: from_file.len(),
            memory: self.memory[in_memory].iter(),
            bytes: vec![0; T::SIZE],
        })
    }

    /// The records of `range` appended to `out`, read in one go. Lists are read from several
    /// threads at once: the file is read at an offset, with no position shared.
    pub fn read_into(&self, range: Range<usize>, out: &mut Vec<T>) -> io::Result<()> {
        assert!(range.start <= range.end && range.end <= self.len());
        let from_file = range.start.min(self.on_disk)..range.end.min(self.on_disk);
        if let Some(path) = self.file.as_ref().filter(|_| !from_file.is_empty()) {
            let mut bytes = vec![0; from_file.len() * T::SIZE];
            File::open(path)?.read_exact_at(&mut bytes, (from_file.start * T::SIZE) as u64)?;
            out.extend(bytes.chunks_exact(T::SIZE).map(T::get));
        }
        let end = range.end.saturating_sub(self.on_disk);
        let start = range.start.saturating_sub(self.on_disk).min(end);
        out.extend_from_slice(&self.memory[start..end]);
        Ok(())
    }

    /// Every record, in memory.
    pub fn to_vec(&self) -> io::Result<Vec<T>> {
        let mut all = Vec::with_capacity(self.len());
        for record in self.iter(0..self.len())? {
            all.push(record?);
        }
        Ok(all)
    }
}

impl<T: Record> Drop for Spill<T> {
    fn drop(&mut self) {
        if let Some(path) = &self.file {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A range of a [`Spill`]'s records.
pub struct Records<'a, T> {
    file: Option<BufReader<File>>,
    left: usize,
    memory: std::slice::Iter<'a, T>,
    bytes: Vec<u8>,
}

impl<T: Record> Iterator for Records<'_, T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        if self.left > 0 {
            self.left -= 1;
            let file = self.file.as_mut().expect("records left on disk");
            return Some(
                file.read_exact(&mut self.bytes)
                    .map(|()| T::get(&self.bytes)),
            );
        }
        self.memory.next().copied().map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_records_read_back_in_order() {
        let scratch = Scratch::new(None);
        let mut spill: Spill<u128> = Spill::new(&scratch, 3 * 16);
        for i in 0..10u128 {
            spill.push(i * 7).unwrap();
        }
        assert_eq!(spill.len(), 10);
        assert!(spill.file.is_some());
        let all: Vec<u128> = (0..10).map(|i| i * 7).collect();
        assert_eq!(spill.to_vec().unwrap(), all);
        for range in [0..0, 0..4, 2..9, 8..10, 9..10, 5..5] {
            let part: Vec<u128> = spill
                .iter(range.clone())
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(part, all[range.clone()]);
            let mut read = vec![1];
            spill.read_into(range.clone(), &mut read).unwrap();
            assert_eq!(read[1..], all[range]);
        }
        let path = spill.file.clone().unwrap();
        drop(spill);
        assert!(!path.exists());
    }

    #[test]
    fn a_list_with_room_stays_in_memory() {
        let scratch = Scratch::new(None);
        let mut spill: Spill<f32> = Spill::new(&scratch, usize::MAX);
        for i in 0..1000 {
            spill.push(i as f32).unwrap();
        }
        assert!(spill.file.is_none());
        assert!(scratch.dir.lock().unwrap().is_none());
        assert_eq!(spill.to_vec().unwrap()[999], 999.0);
    }
}
