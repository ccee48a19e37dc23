//! Opening text inputs (plain, gzip or zstd, told apart by their first bytes; local or remote),
//! and reading several one after the other. The line reader and its errors are the kernels'
//! (`pairmetrics_kernels::formats::lines`), re-exported here.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

use crate::storage::{Location, RemoteFile};
pub use pairmetrics_kernels::formats::lines::*;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// [`open`] as the kernels take an opener for their resource files ([`crate::align::Open`]).
pub fn open_resource(path: &Path) -> Result<Box<dyn BufRead + Send>, String> {
    open(path).map_err(|e| e.message)
}

/// Open `path` (a local path or a URL) for reading, decompressing gzip or zstd transparently.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, InputError> {
    let fail = |e: io::Error| InputError {
        file: path.to_path_buf(),
        line: None,
        message: e.to_string(),
    };
    let location = Location::parse(path).map_err(|e| fail(io::Error::other(format!("{e:#}"))))?;
    crate::storage::note_input(path);
    let raw: Box<dyn Read + Send> = match location {
        Location::Local(path) => Box::new(File::open(path).map_err(fail)?),
        Location::Remote(remote) => Box::new(
            RemoteFile::open(&remote)
                .map_err(|e| fail(io::Error::other(format!("{e:#}"))))?
                .reader(0),
        ),
    };
    let mut reader = BufReader::with_capacity(1 << 16, raw);
    let head = reader.fill_buf().map_err(fail)?;
    Ok(if head.starts_with(GZIP_MAGIC) {
        Box::new(BufReader::with_capacity(
            1 << 16,
            Decompressing {
                inner: MultiGzDecoder::new(reader),
                format: "gzip",
            },
        ))
    } else if head.starts_with(ZSTD_MAGIC) {
        let inner = zstd::Decoder::with_buffer(reader).map_err(fail)?;
        Box::new(BufReader::with_capacity(
            1 << 16,
            Decompressing {
                inner,
                format: "zstd",
            },
        ))
    } else {
        Box::new(reader)
    })
}

/// A decompressor whose errors say that the data is not what its first bytes announced (the
/// decoders' own words, e.g. zstd's "Dictionary mismatch" for garbage, say nothing of it).
struct Decompressing<R> {
    inner: R,
    format: &'static str,
}

impl<R: Read> Read for Decompressing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData
            | io::ErrorKind::InvalidInput
            | io::ErrorKind::Other
            | io::ErrorKind::UnexpectedEof => io::Error::new(
                e.kind(),
                format!("corrupt or truncated {} data ({e})", self.format),
            ),
            _ => e,
        })
    }
}

/// The lines of several files one after the other, each with its file's index in `paths` and
/// its line number; each file is opened when the one before it ends.
pub struct Concatenated {
    paths: Vec<PathBuf>,
    next: usize,
    current: Option<Lines<Box<dyn BufRead + Send>>>,
}

impl Concatenated {
    pub fn new(paths: Vec<PathBuf>) -> Self {
        Concatenated {
            paths,
            next: 0,
            current: None,
        }
    }
}

impl Iterator for Concatenated {
    type Item = Result<(usize, u64, String), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(lines) = self.current.as_mut() else {
                let path = self.paths.get(self.next)?;
                self.next += 1;
                match open(path) {
                    Ok(reader) => self.current = Some(Lines::new(reader, path)),
                    Err(e) => return Some(Err(e)),
                }
                continue;
            };
            match lines.next() {
                Some(line) => {
                    return Some(line.map(|line| (self.next - 1, lines.line_number(), line)));
                }
                None => self.current = None,
            }
        }
    }
}

/// Read all of a small file's lines (used by tests and tools, never for corpora).
pub fn read_lines(path: &Path) -> Result<Vec<String>, InputError> {
    Lines::new(open(path)?, path).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn concatenated_files_number_their_own_lines() {
        let dir = std::env::temp_dir().join(format!("pm-concat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "1\n2\n").unwrap();
        std::fs::write(&b, "3\n").unwrap();
        let got: Vec<_> = Concatenated::new(vec![a, b]).map(Result::unwrap).collect();
        assert_eq!(
            got,
            [
                (0, 1, "1".to_string()),
                (0, 2, "2".to_string()),
                (1, 1, "3".to_string())
            ]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reads_gzip_and_zstd() {
        let dir = std::env::temp_dir().join(format!("pm-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gz = dir.join("a.gz");
        let mut enc = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), Default::default());
        enc.write_all(b"x y\nz\n").unwrap();
        enc.finish().unwrap();
        let zst = dir.join("a.zst");
        std::fs::write(&zst, zstd::encode_all(&b"x y\nz\n"[..], 3).unwrap()).unwrap();
        for path in [gz, zst] {
            assert_eq!(read_lines(&path).unwrap(), ["x y", "z"]);
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
