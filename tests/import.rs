//! `pairmetrics import`: round trips through Parquet and SQL, and errors that name file and line.

use std::fs;
use std::io::Write;
use std::path::Path;

use tempfile::TempDir;

use crate::common::*;

/// The single CSV column of a query, without the header.
fn column(tables: &[(&str, &Path)], query: &str) -> Vec<String> {
    let mut args = vec!["sql".to_string(), "--format".into(), "csv".into()];
    for (name, path) in tables {
        args.extend(["--table".to_string(), format!("{name}={}", path.display())]);
    }
    args.push(query.to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args)
        .lines()
        .skip(1)
        .map(|l| l.trim_matches('"').to_string())
        .collect()
}

#[test]
fn text_round_trips_through_parquet_and_sql() {
    let dir = TempDir::new().unwrap();
    let src_lines = [
        "Resumption of the session",
        "",
        "I declare resumed the session .",
    ];
    let tgt_lines = [
        "Reprise de la session",
        "Vide",
        "Je déclare reprise la session .",
    ];
    // gzip, zstd and a CRLF file without a final newline all read the same.
    let src = dir.path().join("src.gz");
    let mut gz = flate2::write::GzEncoder::new(fs::File::create(&src).unwrap(), Default::default());
    gz.write_all((src_lines.join("\n") + "\n").as_bytes())
        .unwrap();
    gz.finish().unwrap();
    let tgt = dir.path().join("tgt.zst");
    fs::write(
        &tgt,
        zstd::encode_all(tgt_lines.join("\r\n").as_bytes(), 3).unwrap(),
    )
    .unwrap();
    let out = dir.path().join("pairs.parquet");
    let text = import_text(&src, &tgt, &out);
    assert!(text.contains(": 3 rows"), "{text}");
    let t = [("p", out.as_path())];
    assert_eq!(
        column(
            &t,
            "SELECT array_to_string(src, ' ') FROM p ORDER BY pair_id"
        ),
        src_lines
    );
    assert_eq!(
        column(
            &t,
            "SELECT array_to_string(tgt, ' ') FROM p ORDER BY pair_id"
        ),
        tgt_lines
    );
    assert_eq!(
        column(&t, "SELECT pair_id FROM p ORDER BY pair_id"),
        ["0", "1", "2"]
    );

    let lower = dir.path().join("lower.parquet");
    ok(&[
        "import",
        "text",
        "--src",
        path_str(&src),
        "--tgt",
        path_str(&tgt),
        "--out",
        path_str(&lower),
        "--lowercase",
    ]);
    let l = [("p", lower.as_path())];
    assert_eq!(
        column(
            &l,
            "SELECT array_to_string(src, ' ') FROM p WHERE pair_id = 0"
        ),
        ["resumption of the session"]
    );
}

#[test]
fn text_files_of_different_lengths_are_an_error() {
    let dir = TempDir::new().unwrap();
    let (src, tgt, out) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("o.parquet"),
    );
    fs::write(&src, "a\nb\nc\n").unwrap();
    fs::write(&tgt, "a\nb\n").unwrap();
    let e = err(&[
        "import",
        "text",
        "--src",
        path_str(&src),
        "--tgt",
        path_str(&tgt),
        "--out",
        path_str(&out),
    ]);
    assert!(
        e.contains(&format!(
            "{} has more lines than {} (2 lines)",
            src.display(),
            tgt.display()
        )),
        "{e}"
    );
    assert!(!out.exists());
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no partial file is left"
    );
}

#[test]
fn invalid_utf8_names_file_and_line() {
    let dir = TempDir::new().unwrap();
    let (src, tgt, out) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("o.parquet"),
    );
    fs::write(&src, b"a\n\xc3\x28\n").unwrap();
    fs::write(&tgt, "a\nb\n").unwrap();
    let e = err(&[
        "import",
        "text",
        "--src",
        path_str(&src),
        "--tgt",
        path_str(&tgt),
        "--out",
        path_str(&out),
    ]);
    assert!(
        e.contains(&format!("{}:2: invalid UTF-8", src.display())),
        "{e}"
    );
}

#[test]
fn pharaoh_round_trips_and_rejects_malformed_lines() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("fwd.align");
    fs::write(&input, "0-0 1-2 2-1\n\n3-3\n").unwrap();
    let out = dir.path().join("alignments.parquet");
    ok(&[
        "import",
        "pharaoh",
        "--alignments",
        path_str(&input),
        "--out",
        path_str(&out),
    ]);
    let t = [("a", out.as_path())];
    let links = column(
        &t,
        "SELECT concat(pair_id, ':', array_to_string(array_agg(concat(l['src'], '-', l['tgt'])), ' ')) FROM \
         (SELECT pair_id, unnest(links) AS l FROM a) GROUP BY pair_id ORDER BY pair_id",
    );
    assert_eq!(links, ["0:0-0 1-2 2-1", "2:3-3"]);
    assert_eq!(
        column(&t, "SELECT cardinality(links) FROM a ORDER BY pair_id"),
        ["3", "0", "1"]
    );

    fs::write(&input, "0-0\n0-0 1-x\n").unwrap();
    let e = err(&[
        "import",
        "pharaoh",
        "--alignments",
        path_str(&input),
        "--out",
        path_str(&out),
    ]);
    assert!(
        e.contains(&format!(
            "{}:2: alignment entry 2 is `1-x`",
            input.display()
        )),
        "{e}"
    );
}

#[test]
fn conllu_imports_heads_across_multiword_tokens_and_empty_nodes() {
    let dir = TempDir::new().unwrap();
    let src = dir.path().join("fr.conllu");
    fs::write(
        &src,
        "# text = Il n'y en a plus.\n\
         1\tIl\til\tPRON\t_\t_\t5\tnsubj\t_\t_\n\
         2-3\tn'y\t_\t_\t_\t_\t_\t_\t_\t_\n\
         2\tn'\tne\tADV\t_\t_\t5\tadvmod\t_\t_\n\
         3\ty\ty\tPRON\t_\t_\t5\texpl\t_\t_\n\
         3.1\tx\tx\tX\t_\t_\t_\t_\t5:dep\t_\n\
         4\ten\ten\tPRON\t_\t_\t5\tobj\t_\t_\n\
         5\ta\tavoir\tVERB\t_\t_\t0\troot\t_\t_\n\
         6\tplus\tplus\tADV\t_\t_\t5\tadvmod\t_\t_\n\n\
         1\tdu\tdu\tDET\t_\t_\t2\tdet\t_\t_\n\
         2\tpain\tpain\tNOUN\t_\t_\t0\troot\t_\t_\n\n",
    )
    .unwrap();
    let tgt = dir.path().join("en.conllu");
    fs::write(
        &tgt,
        "1\tThere\tthere\tPRON\t_\t_\t2\texpl\t_\t_\n2\tis\tbe\tVERB\t_\t_\t0\troot\t_\t_\n\n\
         1\tbread\tbread\tNOUN\t_\t_\t0\troot\t_\t_\n",
    )
    .unwrap();
    let out = dir.path().join("arcs.parquet");
    ok(&[
        "import",
        "conllu",
        "--src",
        path_str(&src),
        "--tgt",
        path_str(&tgt),
        "--out",
        path_str(&out),
    ]);
    let t = [("r", out.as_path())];
    assert_eq!(
        column(
            &t,
            "SELECT array_to_string(src_head, ' ') FROM r ORDER BY pair_id"
        ),
        ["5 5 5 5 0 5", "2 0"]
    );
    assert_eq!(
        column(
            &t,
            "SELECT array_to_string(src_deprel, ' ') FROM r WHERE pair_id = 0"
        ),
        ["nsubj advmod expl obj root advmod"]
    );
    assert_eq!(
        column(
            &t,
            "SELECT array_to_string(tgt_upos, ' ') FROM r ORDER BY pair_id"
        ),
        ["PRON VERB", "NOUN"]
    );

    fs::write(
        &tgt,
        "1\tThere\tthere\tPRON\t_\t_\t2\texpl\t_\t_\n2\tis\tbe\tVERB\t_\t_\t0\troot\t_\t_\n",
    )
    .unwrap();
    let e = err(&[
        "import",
        "conllu",
        "--src",
        path_str(&src),
        "--tgt",
        path_str(&tgt),
        "--out",
        path_str(&out),
    ]);
    assert!(e.contains("has more sentences than"), "{e}");
}

#[test]
fn meteor_import_reports_the_bad_line() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("m.align");
    fs::write(&input, "Alignment 1\na b\na b\nLine2Start:Length\tLine1Start:Length\tModule\t\tScore\n0:1\t\t\t0:x\t\t\t0\t\t1.0\n\n").unwrap();
    let e = err(&[
        "import",
        "meteor",
        "--alignments",
        path_str(&input),
        "--out",
        path_str(&dir.path().join("o.parquet")),
    ]);
    assert!(
        e.contains(&format!("{}:5: expected `start:len", input.display())),
        "{e}"
    );
}

/// `import dictionary`: entries with and without a probability, phrases' spaces normalised,
/// blank lines skipped; a malformed line is an error naming file and line, and nothing is
/// written.
#[test]
fn dictionary_imports_tab_separated_entries() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("dictionary.tsv");
    fs::write(
        &input,
        "chat\tcat\t0.75\nchat\tpussy cat\t0.25\n\nchat  noir\t black  cat \nnoir\tblack\t\n",
    )
    .unwrap();
    let out = dir.path().join("dictionary.parquet");
    let printed = ok(&[
        "import",
        "dictionary",
        path_str(&input),
        "--out",
        path_str(&out),
    ]);
    assert!(printed.contains(": 4 rows"), "{printed}");
    let rows = column(
        &[("d", out.as_path())],
        "SELECT concat(src, '|', tgt, '|', coalesce(CAST(p AS VARCHAR), 'NULL')) FROM d",
    );
    assert_eq!(
        rows,
        [
            "chat|cat|0.75",
            "chat|pussy cat|0.25",
            "chat noir|black cat|NULL",
            "noir|black|NULL"
        ]
    );

    for (text, message) in [
        ("chat\tcat\nchien dog\n", ":2: 1 tab-separated field(s)"),
        ("chat\tcat\t2\n", ":1: probability 2 is not in (0, 1]"),
    ] {
        fs::write(&input, text).unwrap();
        let refused = dir.path().join("refused.parquet");
        let e = err(&[
            "import",
            "dictionary",
            path_str(&input),
            "--out",
            path_str(&refused),
        ]);
        assert!(e.contains(&format!("{}{message}", input.display())), "{e}");
        assert!(!refused.exists());
    }
}
