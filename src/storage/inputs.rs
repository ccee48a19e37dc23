//! The inputs this process has read, so that no output replaces one: `score --alignments A
//! --out A` would otherwise rename the scored table over the alignments. Every reader of a
//! table or text notes its path here ([`note`]); every writer asks [`refuse_input`] before it
//! starts and again before it makes its output appear.
//!
//! A local input is known by its file's identity (device and inode), so another spelling of
//! the same path, a hard link or a symbolic link to it is recognised too; an output inside an
//! input directory (a dataset) is refused as well. An input deleted since it was read no longer
//! counts (its inode may be handed to a new file: a long-lived process, a library user or the
//! test suite, must not be refused a fresh path). A remote input is known by its URL.

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

/// Each input: its identity, its name as given, and for a local one its absolute path, to
/// check that the identity is still its.
static INPUTS: Mutex<Vec<(Identity, String, Option<std::path::PathBuf>)>> = Mutex::new(Vec::new());

/// Whether the local file or directory noted at `path` still has `identity`.
fn still_there(identity: &Identity, path: &Option<std::path::PathBuf>) -> bool {
    match path {
        Some(path) => {
            std::fs::metadata(path).is_ok_and(|m| Identity::Local(m.dev(), m.ino()) == *identity)
        }
        None => true,
    }
}

/// Note that `path` (a local path or a URL) is read by this process. A path that cannot be
/// inspected is not noted: reading it fails anyway.
pub fn note(path: &Path) {
    let (identity, absolute) = match Location::parse(path) {
        Ok(Location::Local(local)) => match std::fs::metadata(&local) {
            Ok(m) => (
                Identity::Local(m.dev(), m.ino()),
                std::path::absolute(&local).ok(),
            ),
            Err(_) => return,
        },
        Ok(Location::Remote(remote)) => (
            Identity::Remote(remote.url.as_str().trim_end_matches('/').to_string()),
            None,
        ),
        Err(_) => return,
    };
    let mut inputs = INPUTS.lock().expect("not poisoned");
    inputs.retain(|(known, _, path)| *known != identity || still_there(known, path));
    if !inputs.iter().any(|(known, _, _)| *known == identity) {
        inputs.push((identity, path.display().to_string(), absolute));
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
                let identity = Identity::Local(m.dev(), m.ino());
                let (_, name, _) = inputs
                    .iter()
                    .find(|(known, _, path)| *known == identity && still_there(known, path))?;
                Some((name.clone(), place != absolute))
            })
        }
        Location::Remote(remote) => {
            let url = remote.url.as_str().trim_end_matches('/');
            inputs.iter().find_map(|(known, name, _)| match known {
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
