//! The guides cannot drift: every shell block of README.md and docs/guide/*.md runs here, on the
//! bundled data, and prints what the guide shows.
//!
//! - A ```` ```sh ```` block runs (bash, `set -eu`) in a scratch directory of its guide, where
//!   `data/`, `tests/` and `scripts/` are the repository's and `pairmetrics` is this build; the
//!   blocks of one guide run in order in the same directory, so a later block uses what an
//!   earlier one wrote.
//! - The fenced block right after it without a language (or `text`), if there is one, is what
//!   the block prints on stdout. A line `...` there stands for any lines, `[..]` in a line for
//!   any text.
//! - ```` ```sh not-run ```` marks a block that cannot run on the bundled data (placeholder
//!   paths, a cluster, a model the repository does not carry); the prose around it says why.
//!
//! `PAIRMETRICS_BLESS=1 cargo test --test main guides::` writes what the blocks print into the
//! guides' output blocks instead of comparing.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// One fenced block: where its lines start in the file, its info string and its text.
struct Block {
    /// 0-based index of the block's first line of text.
    start: usize,
    /// Its lines of text.
    lines: Vec<String>,
    info: String,
}

fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(info) = lines[i].strip_prefix("```") {
            let start = i + 1;
            let mut end = start;
            while !lines[end].starts_with("```") {
                end += 1;
            }
            blocks.push(Block {
                start,
                lines: lines[start..end].iter().map(|l| l.to_string()).collect(),
                info: info.trim().to_string(),
            });
            i = end;
        }
        i += 1;
    }
    blocks
}

/// Whether `actual` is what `expected` shows: line by line, `...` any lines, `[..]` any text.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && matches(rest, more)),
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.trim_end().split("[..]");
    let actual = actual.trim_end();
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (k, part) in parts.iter().enumerate() {
        if k == parts.len() - 1 {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Run every shell block of `guide` (a path from the repository's root) and compare what it
/// prints with the output block after it.
fn run_guide(guide: &str) {
    let path = root().join(guide);
    let text = std::fs::read_to_string(&path).unwrap();
    let blocks = blocks(&text);
    let lines: Vec<&str> = text.lines().collect();
    let scratch = tempfile::tempdir().unwrap();
    for name in ["data", "tests", "scripts"] {
        std::os::unix::fs::symlink(root().join(name), scratch.path().join(name)).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .parent()
        .unwrap();
    let path_var = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut blessed: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut failures = Vec::new();
    for (k, block) in blocks.iter().enumerate() {
        if block.info != "sh" {
            assert!(
                !block.info.starts_with("sh") || block.info == "sh not-run",
                "{guide}:{}: a shell block is ```sh or ```sh not-run, not ```{}",
                block.start,
                block.info
            );
            continue;
        }
        let script = block.lines.join("\n");
        let out = Command::new("bash")
            .args(["-c", &format!("set -eu\n{script}")])
            .current_dir(scratch.path())
            .env("PATH", &path_var)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{guide}:{}: the block failed ({})\n{script}\nstdout:\n{stdout}\nstderr:\n{}",
            block.start,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let Some(shown) = blocks.get(k + 1).filter(|next| {
            (next.info.is_empty() || next.info == "text")
                && lines[block.start + block.lines.len() + 1..next.start - 1]
                    .iter()
                    .all(|l| l.trim().is_empty())
        }) else {
            continue;
        };
        let actual: Vec<&str> = stdout.lines().collect();
        if !matches(&shown.lines, &actual) {
            let got: Vec<String> = actual.iter().map(|l| l.trim_end().to_string()).collect();
            blessed.push((shown.start, shown.lines.len(), got));
            failures.push(format!(
                "{guide}:{}: the block prints\n{}\nbut the guide shows\n{}",
                block.start,
                stdout,
                shown.lines.join("\n")
            ));
        }
    }
    if failures.is_empty() {
        return;
    }
    if std::env::var_os("PAIRMETRICS_BLESS").is_some() {
        let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        for (start, len, got) in blessed.into_iter().rev() {
            lines.splice(start..start + len, got);
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return;
    }
    panic!(
        "{}\n(update with `PAIRMETRICS_BLESS=1 cargo test --test main guides::`)",
        failures.join("\n\n")
    );
}

macro_rules! guides {
    ($($name:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $name() {
                run_guide($path);
            }
        )*

        /// Every guide is run here.
        #[test]
        fn every_guide_is_run() {
            let listed = [$($path),*];
            let mut guides = vec!["README.md".to_string()];
            for entry in std::fs::read_dir(root().join("docs/guide")).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                if name.ends_with(".md") {
                    guides.push(format!("docs/guide/{name}"));
                }
            }
            for guide in guides {
                assert!(listed.contains(&guide.as_str()), "{guide} is not run by tests/guides.rs");
            }
        }
    };
}

guides! {
    readme => "README.md",
    align_and_import => "docs/guide/align-and-import.md",
    chevelu => "docs/guide/chevelu.md",
    cluster => "docs/guide/cluster.md",
    compare => "docs/guide/compare.md",
    data_lake => "docs/guide/data-lake.md",
    dedup => "docs/guide/dedup.md",
    fitness_lm_semeval => "docs/guide/fitness-lm-semeval.md",
    hardrules => "docs/guide/hardrules.md",
    language_id => "docs/guide/language-id.md",
    language_models => "docs/guide/language-models.md",
    lepod_score => "docs/guide/lepod-score.md",
    library => "docs/guide/library.md",
    opusfilter => "docs/guide/opusfilter.md",
    python => "docs/guide/python.md",
    raw_text => "docs/guide/raw-text.md",
    reliability => "docs/guide/reliability.md",
    sacrebleu => "docs/guide/sacrebleu.md",
    scoring => "docs/guide/scoring.md",
    sql => "docs/guide/sql.md",
}

#[test]
fn output_patterns() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(matches(&lines("a\n...\nd"), &["a", "d"]));
    assert!(!matches(&lines("a\nd"), &["a", "b", "d"]));
    assert!(matches(
        &lines("took [..] s ([..] MiB)"),
        &["took 1.5 s (3 MiB)"]
    ));
    assert!(!matches(&lines("took [..] s"), &["took 1.5 ms"]));
    assert!(matches(&lines("x"), &["x   "]));
}
