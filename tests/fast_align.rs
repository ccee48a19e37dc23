//! `pairmetrics fast-align` prints what fast_align (clab/fast_align, one thread) prints, byte for
//! byte, on 2,994 Europarl fr-en lines under every case of tests/data/fast_align/cases.tsv, and
//! `pairmetrics atools` what its atools prints for every command; the expected files come from
//! the tools themselves (scripts/make_fast_align_vectors.sh).

use std::path::PathBuf;

use tempfile::TempDir;

use crate::common::{err, gunzip, ok, path_str, root};

fn data() -> PathBuf {
    root().join("tests/data/fast_align")
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
        let mut args = vec!["fast-align", "-i", path_str(&corpus)];
        args.extend(flags.split_whitespace());
        let expected = gunzip(&data().join(format!("{name}.align.gz")));
        let printed = ok(&args);
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
        let printed = ok(&[
            "fast-align",
            "-i",
            path_str(&corpus),
            "-dov",
            "--threads",
            threads,
        ]);
        assert!(printed == expected, "--threads {threads} differs");
    }
}

#[test]
fn bad_input_is_named() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "a b ||| c\nd e |||\n").unwrap();
    let corpus = path_str(&corpus);
    let said = err(&["fast-align", "-i", corpus]);
    assert!(
        said.contains("corpus.txt:2") && said.contains("empty"),
        "{said}"
    );
    assert!(err(&["fast-align", "-i", corpus, "-s"]).contains("not supported"));
    assert!(err(&["fast-align", "-i", corpus, "-v", "-a", "0"]).contains("--alpha must be > 0"));
}

#[test]
fn no_iterations_print_nothing() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "a b ||| c\n").unwrap();
    assert_eq!(ok(&["fast-align", "-i", path_str(&corpus), "-I", "0"]), "");
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
        assert!(ok(&args) == expected, "atools -c {command} differs");
    }
}

#[test]
fn atools_names_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    let (a, b) = (dir.path().join("a.al"), dir.path().join("b.al"));
    std::fs::write(&a, "0-0 1-1\n0-0 1-x\n").unwrap();
    std::fs::write(&b, "0-0\n").unwrap();
    let (a, b) = (path_str(&a), path_str(&b));
    let said = err(&["atools", "-i", a, "-c", "convert"]);
    assert!(said.contains("a.al:2") && said.contains("1-x"), "{said}");
    let said = err(&["atools", "-i", a, "-j", b, "-c", "union"]);
    assert!(said.contains("different numbers of lines"), "{said}");
    let said = err(&["atools", "-i", a, "-c", "union"]);
    assert!(said.contains("requires two alignment files"), "{said}");
    let said = err(&["atools", "-i", a, "-c", "fmeasure"]);
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
            path_str(&corpus),
            "-p",
            path_str(&table),
        ];
        args.extend(flags.split_whitespace());
        ok(&args);
        let expected = gunzip(&data().join(format!("table-{name}.100.tsv.gz")));
        assert!(
            std::fs::read_to_string(&table).unwrap() == expected,
            "the -p table of {name} ({flags}) differs"
        );
    }
}
