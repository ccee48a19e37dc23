//! `pairmetrics fast-align` prints what fast_align (clab/fast_align, one thread) prints, byte for
//! byte, on 2,994 Europarl fr-en lines under every case of tests/data/fast_align/cases.tsv, and
//! `pairmetrics atools` what its atools prints for every command; the expected files come from
//! the tools themselves (scripts/make_fast_align_vectors.sh).

use std::io::Read;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{pairmetrics, stdout};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fast_align")
}

fn gunzip(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn prints_what_fast_align_prints() {
    let corpus = data().join("europarl.fr-en.gz");
    let cases = std::fs::read_to_string(data().join("cases.tsv")).unwrap();
    let mut checked = 0;
    for line in cases
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, flags) = line.split_once('\t').unwrap();
        let mut args = vec!["fast-align", "-i", corpus.to_str().unwrap()];
        args.extend(flags.split_whitespace());
        let output = pairmetrics(&args);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        let expected = gunzip(&data().join(format!("{name}.align.gz")));
        let printed = stdout(&output);
        if printed != expected {
            let first = printed
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b);
            panic!("{name} ({flags}): first differing line {first:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn any_number_of_threads_prints_the_same() {
    let corpus = data().join("europarl.fr-en.gz");
    let expected = gunzip(&data().join("dov.align.gz"));
    for threads in ["1", "3"] {
        let output = pairmetrics(&[
            "fast-align",
            "-i",
            corpus.to_str().unwrap(),
            "-dov",
            "--threads",
            threads,
        ]);
        assert!(stdout(&output) == expected, "--threads {threads} differs");
    }
}

#[test]
fn bad_input_is_named() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "a b ||| c\nd e |||\n").unwrap();
    let output = pairmetrics(&["fast-align", "-i", corpus.to_str().unwrap()]);
    assert!(!output.status.success());
    let said = stderr(&output);
    assert!(
        said.contains("corpus.txt:2") && said.contains("empty"),
        "{said}"
    );

    let output = pairmetrics(&["fast-align", "-i", corpus.to_str().unwrap(), "-s"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("not supported"));

    let output = pairmetrics(&[
        "fast-align",
        "-i",
        corpus.to_str().unwrap(),
        "-v",
        "-a",
        "0",
    ]);
    assert!(stderr(&output).contains("--alpha must be > 0"));
}

#[test]
fn no_iterations_print_nothing() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "a b ||| c\n").unwrap();
    let output = pairmetrics(&["fast-align", "-i", corpus.to_str().unwrap(), "-I", "0"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "");
}

#[test]
fn atools_prints_what_atools_prints() {
    let dir = TempDir::new().unwrap();
    let unpack = |name: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, gunzip(&data().join(format!("{name}.align.gz")))).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (forward, reverse) = (unpack("dov"), unpack("dov-r"));
    for command in [
        "intersect",
        "union",
        "grow-diag",
        "grow-diag-final",
        "grow-diag-final-and",
        "convert",
        "invert",
    ] {
        let mut args = vec!["atools", "-i", &forward, "-c", command];
        if !matches!(command, "convert" | "invert") {
            args.extend(["-j", &reverse]);
        }
        let expected = gunzip(&data().join(format!("atools-{command}.align.gz")));
        assert!(
            stdout(&pairmetrics(&args)) == expected,
            "atools -c {command} differs"
        );
    }
}

#[test]
fn atools_names_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    let (a, b) = (dir.path().join("a.al"), dir.path().join("b.al"));
    std::fs::write(&a, "0-0 1-1\n0-0 1-x\n").unwrap();
    std::fs::write(&b, "0-0\n").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let said = stderr(&pairmetrics(&["atools", "-i", a, "-c", "convert"]));
    assert!(said.contains("a.al:2") && said.contains("1-x"), "{said}");
    let said = stderr(&pairmetrics(&["atools", "-i", a, "-j", b, "-c", "union"]));
    assert!(said.contains("different numbers of lines"), "{said}");
    let said = stderr(&pairmetrics(&["atools", "-i", a, "-c", "union"]));
    assert!(said.contains("requires two alignment files"), "{said}");
    let said = stderr(&pairmetrics(&["atools", "-i", a, "-c", "fmeasure"]));
    assert!(said.contains("Don't understand command"), "{said}");
}

#[test]
fn the_translation_table_is_fast_aligns() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.100");
    let text = gunzip(&data().join("europarl.fr-en.gz"));
    let head: Vec<&str> = text.lines().take(100).collect();
    std::fs::write(&corpus, head.join("\n") + "\n").unwrap();
    for (name, flags) in [
        ("dov", "-d -o -v"),
        ("model1", ""),
        ("vb-threshold", "-v -a 0.1 -t -2"),
    ] {
        let table = dir.path().join(format!("{name}.tsv"));
        let mut args = vec![
            "fast-align",
            "-i",
            corpus.to_str().unwrap(),
            "-p",
            table.to_str().unwrap(),
        ];
        args.extend(flags.split_whitespace());
        stdout(&pairmetrics(&args));
        let expected = gunzip(&data().join(format!("table-{name}.100.tsv.gz")));
        assert!(
            std::fs::read_to_string(&table).unwrap() == expected,
            "the -p table of {name} ({flags}) differs"
        );
    }
}
