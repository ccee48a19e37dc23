//! The inputs this process has read, so that no output replaces one: `score --alignments A
//! --out A` would otherwise rename the scored table over the alignments. Every reader of a
//! table or text notes its path here ([`note`]); every writer asks [`refuse_input`] before it
//! starts and again before it makes its output appear.
//!
//! A local input is known by its file's identity (device and inode), so another spelling of
//! the same path, a hard link or a symbolic link to it is recognised too; an output inside an
//! input directory (a dataset) is refused as well. A remote input is known by its URL.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Result, bail};

use super::Location;

/// What identifies an input.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// A local file or directory: (device, inode).
    Local(u64, u64),
    /// An object or prefix, its URL without a trailing `/`.
    Remote(String),
}

static INPUTS: Mutex<Vec<(Identity, String)>> = Mutex::new(Vec::new());

/// Note that `path` (a local path or a URL) is read by this process. A path that cannot be
/// inspected is not noted: reading it fails anyway.
pub fn note(path: &Path) {
    let identity = match Location::parse(path) {
        Ok(Location::Local(local)) => match std::fs::metadata(&local) {
            Ok(m) => Identity::Local(m.dev(), m.ino()),
            Err(_) => return,
        },
        Ok(Location::Remote(remote)) => {
            Identity::Remote(remote.url.as_str().trim_end_matches('/').to_string())
        }
        Err(_) => return,
    };
    let mut inputs = INPUTS.lock().expect("not poisoned");
    if !inputs.iter().any(|(known, _)| *known == identity) {
        inputs.push((identity, path.display().to_string()));
    }
}

/// Fail if writing `target` would replace an input of this process or write inside one.
pub fn refuse_input(target: &Path) -> Result<()> {
    let inputs = INPUTS.lock().expect("not poisoned");
    if inputs.is_empty() {
        return Ok(());
    }
    let found = match Location::parse(target)? {
        Location::Local(local) => {
            // The target itself, then each directory above it.
            let absolute = std::path::absolute(&local)?;
            absolute.ancestors().find_map(|place| {
                let m = std::fs::metadata(place).ok()?;
                let (_, name) = inputs
                    .iter()
                    .find(|(known, _)| *known == Identity::Local(m.dev(), m.ino()))?;
                Some((name.clone(), place != absolute))
            })
        }
        Location::Remote(remote) => {
            let url = remote.url.as_str().trim_end_matches('/');
            inputs.iter().find_map(|(known, name)| match known {
                Identity::Remote(input) if url == input => Some((name.clone(), false)),
                Identity::Remote(input) if url.starts_with(&format!("{input}/")) => {
                    Some((name.clone(), true))
                }
                _ => None,
            })
        }
    };
    match found {
        None => Ok(()),
        Some((input, false)) => bail!(
            "output {} is an input of this command ({input}); write to another path",
            target.display()
        ),
        Some((input, true)) => {
            bail!(
                "output {} is inside {input}, an input of this command; write to another path",
                target.display()
            )
        }
    }
}
