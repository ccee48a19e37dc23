//! `pairmetrics fast-align` prints what fast_align (clab/fast_align, one thread) prints, byte for
//! byte, on 2,994 Europarl fr-en lines under every case of tests/data/fast_align/cases.tsv, and
//! `pairmetrics atools` what its atools prints for every command; the expected files come from
//! the tools themselves (scripts/make_fast_align_vectors.sh).

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{err, file_names, gunzip, ok, path_str, root};

fn data() -> PathBuf {
    root().join("tests/data/fast_align")
}

/// The arguments of `pairmetrics align-words --pairs PAIRS --out OUT EXTRA...`.
fn align_words<'a>(pairs: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    [
        &[
            "align-words",
            "--pairs",
            path_str(pairs),
            "--out",
            path_str(out),
        ][..],
        extra,
    ]
    .concat()
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

/// The corpus and each line's table slots go to the scratch directory (3,000 lines' slots are
/// more than the few megabytes kept in memory), which is removed afterwards.
#[test]
fn the_corpus_spills_to_the_temp_dir_and_is_removed() {
    let corpus = data().join("europarl.fr-en.gz");
    let expected = gunzip(&data().join("dov.align.gz"));
    let dir = TempDir::new().unwrap();
    let temp = path_str(dir.path());
    let printed = ok(&[
        "fast-align",
        "-i",
        path_str(&corpus),
        "-dov",
        "--temp-dir",
        temp,
    ]);
    assert!(printed == expected, "spilled, the links differ");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let missing = dir.path().join("missing");
    let said = err(&[
        "fast-align",
        "-i",
        path_str(&corpus),
        "-dov",
        "--temp-dir",
        path_str(&missing),
    ]);
    assert!(
        said.contains("scratch directory") && said.contains(path_str(&missing)),
        "{said}"
    );
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
    let said = err(&["atools", "-i", "-", "-j", "-", "-c", "union"]);
    assert!(said.contains("both `-`"), "{said}");
    // A link far past any sentence is an error naming the line, at once (atools sizes its grid
    // by it: 100 GB for the first, minutes of grow-diag-final-and for the second).
    let huge = dir.path().join("huge.al");
    std::fs::write(&huge, "0-0\n0-99999999999\n").unwrap();
    let said = err(&["atools", "-i", path_str(&huge), "-c", "invert"]);
    assert!(
        said.contains("huge.al:2") && said.contains("over the limit"),
        "{said}"
    );
    std::fs::write(&huge, "0-4294967295\n").unwrap();
    let said = err(&[
        "atools",
        "-i",
        path_str(&huge),
        "-j",
        path_str(&huge),
        "-c",
        "grow-diag-final-and",
    ]);
    assert!(
        said.contains("huge.al:1") && said.contains("over the limit"),
        "{said}"
    );
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

#[test]
fn align_words_gives_the_links_of_fast_align_and_atools() {
    let dir = TempDir::new().unwrap();
    let pairs = crate::common::europarl_pairs(dir.path(), None);
    for (links, expected) in [
        ("grow-diag-final-and", "atools-grow-diag-final-and"),
        ("forward", "dov"),
    ] {
        let (out, text) = (
            dir.path().join(format!("{links}.parquet")),
            dir.path().join(format!("{links}.align")),
        );
        let said = ok(&align_words(
            &pairs,
            &out,
            &["--pharaoh", path_str(&text), "--links", links],
        ));
        assert!(said.contains("aligned 2994 pairs"), "{said}");
        let expected = gunzip(&data().join(format!("{expected}.align.gz")));
        assert!(
            std::fs::read_to_string(&text).unwrap() == expected,
            "--links {links}: the Pharaoh lines differ from fast_align's and atools'"
        );
        // The table holds the same links, one row per pair, by pair_id.
        let imported = dir.path().join(format!("{links}.imported.parquet"));
        ok(&[
            "import",
            "pharaoh",
            "--alignments",
            path_str(&text),
            "--out",
            path_str(&imported),
        ]);
        let differ = crate::common::csv_rows(
            &[],
            &[("a", &out), ("e", &imported)],
            "SELECT count(*), count(e.pair_id), sum(CASE WHEN a.links = e.links THEN 1 ELSE 0 END) \
             FROM a LEFT JOIN e USING (pair_id)",
        );
        assert_eq!(differ, ["2994,2994,2994"], "--links {links}");
    }
}

/// The Europarl lines as a directory of two files of many row groups, text columns: read in
/// file order at any thread count, they give fast_align's and atools' links.
#[test]
fn align_words_gives_the_same_links_whatever_the_layout_and_threads() {
    use std::sync::Arc;

    use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};

    let dir = TempDir::new().unwrap();
    let text = gunzip(&data().join("europarl.fr-en.gz"));
    let lines: Vec<(&str, &str)> = (text.lines())
        .map(|line| line.split_once(" ||| ").unwrap())
        .collect();
    let pairs = dir.path().join("pairs");
    crate::common::write_two_parts(&pairs, lines.len(), 211, |range| {
        let (fr, en): (Vec<&str>, Vec<&str>) = lines[range.clone()].iter().copied().unzip();
        let text = |side: Vec<&str>| Arc::new(StringArray::from_iter_values(side)) as ArrayRef;
        let ids = Int64Array::from_iter_values(range.map(|i| i as i64));
        // Not common::batch, which adds a pair_id of its own (0.. in each part).
        RecordBatch::try_from_iter(vec![
            ("pair_id", Arc::new(ids) as ArrayRef),
            ("src", text(fr)),
            ("tgt", text(en)),
        ])
        .unwrap()
    });
    let expected = gunzip(&data().join("atools-grow-diag-final-and.align.gz"));
    for threads in ["1", "2"] {
        let (out, text) = (
            dir.path().join(format!("{threads}.parquet")),
            dir.path().join(format!("{threads}.align")),
        );
        ok(&align_words(
            &pairs,
            &out,
            &["--pharaoh", path_str(&text), "--threads", threads],
        ));
        assert!(
            std::fs::read_to_string(&text).unwrap() == expected,
            "--threads {threads}: the Pharaoh lines differ from fast_align's and atools'"
        );
    }
}

#[test]
fn align_words_writes_no_links_for_a_pair_with_an_empty_side() {
    use crate::common::{ids, token_lists, write_parquet};
    let dir = TempDir::new().unwrap();
    let pairs = dir.path().join("pairs.parquet");
    fn tokens(t: &'static str) -> Option<Vec<Option<&'static str>>> {
        Some(t.split(' ').map(Some).collect())
    }
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids(&[10, 11, 12, 13])),
            (
                "src",
                token_lists(&[tokens("le chat"), Some(vec![]), tokens("le"), None]),
            ),
            (
                "tgt",
                token_lists(&[tokens("the cat"), tokens("a"), tokens("the"), tokens("b")]),
            ),
        ],
    );
    let out = dir.path().join("a.parquet");
    let said = ok(&align_words(&pairs, &out, &[]));
    assert!(
        said.contains("2 pairs have an empty or NULL side"),
        "{said}"
    );
    let rows = crate::common::csv_rows(
        &[],
        &[("a", &out)],
        "SELECT pair_id, cardinality(links) FROM a ORDER BY pair_id",
    );
    assert_eq!(rows, ["10,2", "11,0", "12,1", "13,0"]);
    // Nothing to train on is an error, and no table appears.
    let empty = dir.path().join("empty.parquet");
    write_parquet(
        &empty,
        vec![
            ("pair_id", ids(&[0])),
            ("src", token_lists(&[Some(vec![])])),
            ("tgt", token_lists(&[tokens("a")])),
        ],
    );
    let none = dir.path().join("none.parquet");
    let said = err(&align_words(&empty, &none, &[]));
    assert!(said.contains("no pair has words on both sides"), "{said}");
    assert!(!none.exists());
    let said = err(&align_words(&pairs, &none, &["--src-column", "fr"]));
    assert!(said.contains("no column \"fr\""), "{said}");
    assert!(said.contains("--src-column and --tgt-column"), "{said}");
    // An output that is the input is refused, and nothing is written.
    for flag in ["--out", "--pharaoh"] {
        let said = match flag {
            "--out" => err(&align_words(&pairs, &pairs, &[])),
            _ => err(&align_words(&pairs, &none, &[flag, path_str(&pairs)])),
        };
        assert!(said.contains("is an input of this command"), "{said}");
        assert!(!none.exists());
    }
}

/// Wait until a scratch directory of `pid` appears in `dir` (at most 120 s).
fn wait_for_scratch(dir: &Path, pid: u32) -> bool {
    let prefix = format!("pairmetrics-scratch.{pid}.");
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(120) {
        if file_names(dir).iter().any(|e| e.starts_with(&prefix)) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}

/// A run stopped by SIGTERM or SIGINT removes its scratch directory before it dies of the
/// signal; one killed by SIGKILL leaves it, and the next run that makes one in the same place
/// removes it, but neither another live process's nor a symbolic link named like one.
#[test]
fn scratch_directories_go_on_signals_and_after_a_kill() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let dir = TempDir::new().unwrap();
    // Ten copies of the sample: long enough to be stopped while it spills.
    let text = gunzip(&data().join("europarl.fr-en.gz"));
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, text.repeat(10)).unwrap();
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
            .args(["fast-align", "-i", path_str(&corpus), "-dov", "--temp-dir"])
            .arg(&scratch)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut child = start();
        assert!(wait_for_scratch(&scratch, child.id()), "the run spills");
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "dies of the signal");
        assert_eq!(
            file_names(&scratch),
            Vec::<String>::new(),
            "signal {signal}"
        );
    }
    let mut child = start();
    assert!(wait_for_scratch(&scratch, child.id()), "the run spills");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        file_names(&scratch).len(),
        1,
        "SIGKILL leaves the directory"
    );
    // PID 1 always runs; no process has a PID above the kernel's largest (4194304).
    std::fs::create_dir(scratch.join("pairmetrics-scratch.1.live")).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "x").unwrap();
    std::os::unix::fs::symlink(&elsewhere, scratch.join("pairmetrics-scratch.4194305.link"))
        .unwrap();
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "a b ||| c d\n").unwrap();
    ok(&[
        "fast-align",
        "-i",
        path_str(&small),
        "--temp-dir",
        path_str(&scratch),
    ]);
    assert_eq!(
        file_names(&scratch),
        [
            "pairmetrics-scratch.1.live",
            "pairmetrics-scratch.4194305.link"
        ]
    );
    assert!(
        elsewhere.join("keep.txt").exists(),
        "a link is not followed"
    );
}

/// An output that is the input is refused before the work, not after it: fast-align's table
/// (-p), lmplz's --arpa and lm estimate's --out. The corpus would fail the work itself (an
/// empty side for fast-align; discounts that cannot be estimated for the LMs), so only a check
/// made first names the output.
#[test]
fn an_output_that_is_the_input_is_refused_first() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "a b |||\n").unwrap();
    let c = path_str(&corpus);
    for args in [
        vec!["fast-align", "-i", c, "-p", c],
        vec!["lmplz", "-o", "2", "--text", c, "--arpa", c],
        vec!["lm", "estimate", "-o", "2", "--input", c, "--out", c],
    ] {
        let said = err(&args);
        assert!(
            said.contains("is an input of this command"),
            "{args:?}: {said}"
        );
        assert_eq!(std::fs::read_to_string(&corpus).unwrap(), "a b |||\n");
    }
}

/// A line whose cost would be pathological (4,097 words a side: the product is past 2^24) is
/// an error naming it, at once.
#[test]
fn a_line_past_the_word_pair_limit_is_named() {
    let dir = TempDir::new().unwrap();
    let corpus = dir.path().join("corpus.txt");
    let side = vec!["w"; 4097].join(" ");
    std::fs::write(&corpus, format!("a b ||| c d\n{side} ||| {side}\n")).unwrap();
    let said = err(&["fast-align", "-i", path_str(&corpus)]);
    assert!(
        said.contains("corpus.txt:2") && said.contains("4097 source x 4097 target words"),
        "{said}"
    );
}

/// `align-words` killed by SIGKILL while it spills leaves its scratch directory; the next run
/// that spills in the same place removes it, and leaves nothing of its own.
#[test]
fn a_killed_align_words_leaves_nothing_after_the_next_run() {
    use std::process::{Command, Stdio};
    let dir = TempDir::new().unwrap();
    let pairs = crate::common::europarl_pairs(dir.path(), None);
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let out = dir.path().join("links.parquet");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(align_words(
            &pairs,
            &out,
            &["--temp-dir", path_str(&scratch)],
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_for_scratch(&scratch, child.id()), "the run spills");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        file_names(&scratch).len(),
        1,
        "SIGKILL leaves the directory"
    );
    // The next run sweeps when it starts, spilling or not: ten pairs are enough.
    let few = TempDir::new().unwrap();
    let few_pairs = crate::common::europarl_pairs(few.path(), Some(10));
    ok(&align_words(
        &few_pairs,
        &out,
        &["--temp-dir", path_str(&scratch)],
    ));
    assert_eq!(file_names(&scratch), Vec::<String>::new());
}
