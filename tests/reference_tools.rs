//! The committed expected outputs of tests/lmplz.rs and tests/fast_align.rs are what the
//! reference tools print today: with a checkout (or bare mirror) of KenLM in
//! PAIRMETRICS_KENLM_CHECKOUT or of fast_align in PAIRMETRICS_FAST_ALIGN_CHECKOUT, this builds
//! the tool from its sources (g++, cmake; Boost and zlib for KenLM), remakes every expected file
//! into a temporary directory with the script that made them, and compares them with the
//! committed ones. pairmetrics matches the committed files in the other tests, so it then
//! matches the tool itself. Without a checkout (as in CI) there is nothing to build: the test
//! says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use crate::common::{gunzip, root};

/// Run `script` against `checkout` with its outputs in a new directory; then every file it
/// wrote must equal the committed file of `committed` (gzipped files by their text).
fn remake_and_compare(script: &str, checkout: &Path, committed: &Path) {
    let out = TempDir::new().unwrap();
    let status = Command::new("bash")
        .arg(root().join("scripts").join(script))
        .arg(checkout)
        .env("OUT", out.path())
        .status()
        .unwrap();
    assert!(status.success(), "{script} {} failed", checkout.display());
    let mut compared = 0;
    for entry in std::fs::read_dir(out.path()).unwrap() {
        let made = entry.unwrap().path();
        let name = made.file_name().unwrap();
        let text = |path: &Path| match path.extension().and_then(|e| e.to_str()) {
            Some("gz") => gunzip(path),
            _ => std::fs::read_to_string(path).unwrap(),
        };
        let kept = committed.join(name);
        assert!(
            kept.exists(),
            "{script} made {name:?}, which is not committed"
        );
        assert!(
            text(&made) == text(&kept),
            "{name:?}: the tool now prints other bytes than the committed file"
        );
        compared += 1;
    }
    assert!(compared > 0, "{script} made nothing");
    eprintln!("{script}: {compared} files equal to the committed ones");
}

fn checkout(variable: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os(variable)?);
    assert!(
        path.exists(),
        "{variable}={} does not exist",
        path.display()
    );
    Some(path)
}

#[test]
fn committed_outputs_are_what_the_reference_tools_print() {
    let data = root().join("tests/data");
    let mut ran = false;
    if let Some(kenlm) = checkout("PAIRMETRICS_KENLM_CHECKOUT") {
        remake_and_compare("make_lmplz_vectors.sh", &kenlm, &data.join("lmplz"));
        ran = true;
    }
    if let Some(fast_align) = checkout("PAIRMETRICS_FAST_ALIGN_CHECKOUT") {
        remake_and_compare(
            "make_fast_align_vectors.sh",
            &fast_align,
            &data.join("fast_align"),
        );
        ran = true;
    }
    if !ran {
        eprintln!(
            "not built: set PAIRMETRICS_KENLM_CHECKOUT and/or PAIRMETRICS_FAST_ALIGN_CHECKOUT \
             to a checkout to compare the committed outputs with the tools themselves"
        );
    }
}
