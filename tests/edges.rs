//! The edges a careful user probes: positions of every integer type, special files and inputs
//! as outputs, permissions, leftovers, flags of zero, NaN in JSON, terminal escapes. Each test
//! failed before its fix.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Array, ListArray, StructArray, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use proptest::prelude::*;
use tempfile::TempDir;

use crate::common::{
    batch, context, err, floats, ok, pairmetrics, path_str, register, sentences, strings,
    write_parquet,
};

/// Every integer type a links column may store its positions as.
const POSITION_TYPES: [DataType; 8] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
];

/// The range of values `t` holds, as i128.
fn range_of(t: &DataType) -> (i128, i128) {
    match t {
        DataType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DataType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DataType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DataType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DataType::UInt8 => (0, u8::MAX as i128),
        DataType::UInt16 => (0, u16::MAX as i128),
        DataType::UInt32 => (0, u32::MAX as i128),
        DataType::UInt64 => (0, u64::MAX as i128),
        other => unreachable!("{other}"),
    }
}

/// A column of the values as type `t` (each within its range).
fn positions(values: &[i128], t: &DataType) -> ArrayRef {
    let wide: ArrayRef = match t {
        DataType::UInt64 => Arc::new(UInt64Array::from_iter_values(
            values.iter().map(|&v| v as u64),
        )),
        _ => Arc::new(Int64Array::from_iter_values(
            values.iter().map(|&v| v as i64),
        )),
    };
    cast(&wide, t).unwrap()
}

/// A links column whose positions are of type `t`.
fn links_of_type(rows: &[Vec<(i128, i128)>], t: &DataType) -> ArrayRef {
    let src: Vec<i128> = rows.iter().flatten().map(|l| l.0).collect();
    let tgt: Vec<i128> = rows.iter().flatten().map(|l| l.1).collect();
    let fields = Fields::from(vec![
        Field::new("src", t.clone(), false),
        Field::new("tgt", t.clone(), false),
    ]);
    let links = StructArray::new(
        fields.clone(),
        vec![positions(&src, t), positions(&tgt, t)],
        None,
    );
    let offsets = OffsetBuffer::from_lengths(rows.iter().map(Vec::len));
    let item = Arc::new(Field::new_list_field(DataType::Struct(fields), true));
    Arc::new(ListArray::new(item, offsets, Arc::new(links), None))
}

/// A position of type `t`: mostly inside a 3-token sentence, sometimes past it, at the type's
/// ends, or anywhere in its range.
fn position(t: &DataType) -> impl Strategy<Value = i128> + Clone + use<> {
    let (min, max) = range_of(t);
    let beyond_u32 = (u32::MAX as i128 + 1).min(max);
    prop_oneof![
        6 => 0i128..3,
        1 => 3i128..6,
        1 => prop::sample::select(vec![min, max, beyond_u32, (u32::MAX as i128).min(max), (-1i128).max(min)]),
        1 => min..=max,
    ]
}

/// What a row's `lepod_problem` must say: the first link with a position outside 0..=u32::MAX
/// is named with its value; else positions past the sentence are the kernel's to report.
fn expected_problem(links: &[(i128, i128)]) -> Option<String> {
    let outside = |v: i128| !(0..=u32::MAX as i128).contains(&v);
    let (index, value) = links
        .iter()
        .enumerate()
        .find_map(|(i, &(a, b))| [a, b].into_iter().find(|&v| outside(v)).map(|v| (i, v)))?;
    Some(match value < 0 {
        true => format!("links[{index}] has a negative position"),
        false => {
            format!("links[{index}] has position {value}, past any sentence (at most 4294967295)")
        }
    })
}

fn check_positions(t: &DataType, rows: Vec<Vec<(i128, i128)>>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ctx = context();
    let n = rows.len();
    let src = sentences(&vec!["a b c"; n]);
    let tgt = sentences(&vec!["a c b"; n]);
    register(
        &ctx,
        "t",
        batch(vec![
            ("src", src.clone()),
            ("tgt", tgt.clone()),
            ("links", links_of_type(&rows, t)),
        ]),
    );
    // The same links as Int64, where they fit: the reference for the rows that score.
    let fits: Vec<Vec<(i128, i128)>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|&(a, b)| (a.clamp(0, 100), b.clamp(0, 100)))
                .collect()
        })
        .collect();
    register(
        &ctx,
        "r",
        batch(vec![
            ("src", src),
            ("tgt", tgt),
            ("links", links_of_type(&fits, &DataType::Int64)),
        ]),
    );
    let query = |table: &str| {
        format!(
            "SELECT led(src, tgt, links), lepod_problem(src, tgt, links) FROM {table} ORDER BY pair_id"
        )
    };
    let (led, problems, reference) = runtime.block_on(async {
        (
            floats(&ctx, &query("t"), 0).await,
            strings(&ctx, &query("t"), 1).await,
            floats(&ctx, &query("r"), 0).await,
        )
    });
    for (i, links) in rows.iter().enumerate() {
        let in_sentence = links
            .iter()
            .all(|&(a, b)| (0..3).contains(&a) && (0..3).contains(&b));
        match expected_problem(links) {
            Some(said) => {
                prop_assert_eq!(led[i], None, "{} row {}: {:?}", t, i, links);
                prop_assert_eq!(
                    problems[i].as_deref(),
                    Some(said.as_str()),
                    "{} row {}",
                    t,
                    i
                );
            }
            None if in_sentence => {
                prop_assert_eq!(problems[i].as_deref(), None, "{} row {}: {:?}", t, i, links);
                prop_assert_eq!(led[i], reference[i], "{} row {}: {:?}", t, i, links);
            }
            None => {
                // Past the sentence but within u32: the kernel names the position as stored.
                prop_assert_eq!(led[i], None, "{} row {}: {:?}", t, i, links);
                let said = problems[i].clone().unwrap_or_default();
                let past = links
                    .iter()
                    .flat_map(|&(a, b)| [a, b])
                    .filter(|v| *v >= 3)
                    .collect::<Vec<_>>();
                prop_assert!(
                    past.iter().any(|v| said.contains(&v.to_string())),
                    "{} row {}: {} for {:?}",
                    t,
                    i,
                    said,
                    links
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Link positions of every integer type and width score as their values say, or give NULL
    /// with a reason naming the value: never a position read as another (UInt64 past 2^63 was
    /// read as 0, any value past u32 as 4294967295).
    #[test]
    fn link_positions_of_every_integer_type_score_as_stored_or_name_the_value(
        (t, rows) in prop::sample::select(POSITION_TYPES.to_vec()).prop_flat_map(|t| {
            let link = (position(&t), position(&t));
            (Just(t), prop::collection::vec(prop::collection::vec(link, 0..4), 1..6))
        })
    ) {
        check_positions(&t, rows)?;
    }
}

/// The probe's case: UInt64 positions at and past 2^63, through `score` on Parquet files.
#[test]
fn uint64_positions_past_i64_are_refused_by_score_naming_the_value() {
    let dir = TempDir::new().unwrap();
    let (pairs, alignments, out) = (
        dir.path().join("p.parquet"),
        dir.path().join("a.parquet"),
        dir.path().join("o.parquet"),
    );
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![0, 1]));
    write_parquet(
        &pairs,
        vec![
            ("pair_id", ids.clone()),
            ("src", sentences(&["a b", "a b"])),
            ("tgt", sentences(&["b a", "b a"])),
        ],
    );
    let big = 1i128 << 63;
    write_parquet(
        &alignments,
        vec![
            ("pair_id", ids),
            (
                "links",
                links_of_type(
                    &[vec![(0, 1), (big, 0)], vec![(0, 1), (1, 0)]],
                    &DataType::UInt64,
                ),
            ),
        ],
    );
    ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--out",
        path_str(&out),
    ]);
    let rows = crate::common::csv_rows(
        &[],
        &[("s", &out)],
        "SELECT pair_id, led, lepod_problem FROM s ORDER BY pair_id",
    );
    assert_eq!(
        rows,
        [
            "0,,\"links[1] has position 9223372036854775808, past any sentence (at most 4294967295)\"",
            "1,0.0,"
        ]
    );
}

fn sample_table(name: &str) -> PathBuf {
    crate::common::sample().join(format!("{name}.parquet"))
}

/// `score` of the bundled sample's pairs and alignments into `out`.
fn score_to(out: &Path) -> Output {
    pairmetrics(&[
        "score",
        "--pairs",
        path_str(&sample_table("pairs")),
        "--alignments",
        path_str(&sample_table("alignments")),
        "--out",
        path_str(out),
    ])
}

fn stderr(out: &Output) -> String {
    assert!(!out.status.success(), "should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// On a node of its own (the null device's numbers, made with mknod, as root): were the bug
/// back, it would replace that node, not the machine's /dev/null.
#[test]
fn an_output_on_a_character_device_is_written_through_not_replaced() {
    let dir = TempDir::new().unwrap();
    let null = dir.path().join("null");
    let made = std::process::Command::new("mknod")
        .args([path_str(&null), "c", "1", "3"])
        .status()
        .unwrap();
    assert!(
        made.success(),
        "mknod needs root, as the tests run under CI"
    );
    let out = score_to(&null);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::metadata(&null)
            .unwrap()
            .file_type()
            .is_char_device(),
        "the device is still a device"
    );
}

#[test]
fn an_output_on_a_fifo_is_written_through_to_its_reader() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (sender, read) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || sender.send(std::fs::read(&fifo).unwrap()));
    }
    let out = score_to(&fifo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A FIFO replaced by a file leaves its reader waiting for ever: fail instead of hanging.
    let bytes = read
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the FIFO's reader got the output");
    // Exactly the file a regular output gets: score starts its writer again for an input
    // without a page index, and the first writer's header must not reach the stream.
    let file = dir.path().join("scored.parquet");
    assert!(score_to(&file).status.success());
    assert!(
        bytes == std::fs::read(&file).unwrap(),
        "the reader got the file a regular output holds"
    );
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "still a FIFO"
    );
}

#[test]
fn a_symlink_or_a_directory_as_output_is_refused_and_left_alone() {
    let dir = TempDir::new().unwrap();
    let (target, link) = (
        dir.path().join("target.parquet"),
        dir.path().join("link.parquet"),
    );
    std::fs::write(&target, b"keep me").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let said = stderr(&score_to(&link));
    assert!(
        said.contains("is a symbolic link to") && said.contains("target.parquet"),
        "{said}"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    // A dangling link is named with what it points to.
    let dangling = dir.path().join("dangling.parquet");
    std::os::unix::fs::symlink(dir.path().join("nowhere.parquet"), &dangling).unwrap();
    let said = stderr(&score_to(&dangling));
    assert!(
        said.contains("is a symbolic link to") && said.contains("nowhere.parquet"),
        "{said}"
    );
    let said = stderr(&score_to(dir.path()));
    assert!(said.contains("is a directory"), "{said}");
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = TempDir::new().unwrap();
    let alignments = dir.path().join("alignments.parquet");
    std::fs::copy(sample_table("alignments"), &alignments).unwrap();
    let before = std::fs::read(&alignments).unwrap();
    let pairs = sample_table("pairs");
    // The same file by another spelling, and through a hard link.
    let other_spelling = dir.path().join(".").join("alignments.parquet");
    let hard_link = dir.path().join("hard.parquet");
    std::fs::hard_link(&alignments, &hard_link).unwrap();
    for out in [&alignments, &other_spelling, &hard_link] {
        let said = stderr(&pairmetrics(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--alignments",
            path_str(&alignments),
            "--out",
            path_str(out),
        ]));
        assert!(said.contains("is an input of this command"), "{said}");
    }
    assert_eq!(std::fs::read(&alignments).unwrap(), before);
    // Inside an input directory (a dataset) too.
    let tables = dir.path().join("tables");
    std::fs::create_dir(&tables).unwrap();
    std::fs::copy(&pairs, tables.join("pairs.parquet")).unwrap();
    let table = format!("t={}", path_str(&tables));
    let said = stderr(&pairmetrics(&[
        "sql",
        "--table",
        &table,
        "--out",
        path_str(&tables.join("count.parquet")),
        "SELECT count(*) FROM t",
    ]));
    assert!(
        said.contains("is inside") && said.contains("an input of this command"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_dir(&tables).unwrap().count(),
        1,
        "nothing written into the input"
    );
}

#[test]
fn a_replaced_output_keeps_its_permissions() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("scored.parquet");
    assert!(score_to(&out).status.success());
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(score_to(&out).status.success());
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

/// New content never inherits set-user-ID or set-group-ID; the owner is kept where the process
/// may give it (as root; another user's process owns what it writes, as any new file).
#[test]
fn a_replaced_output_drops_set_id_bits_and_keeps_its_owner() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("scored.parquet");
    assert!(score_to(&out).status.success());
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&out, Some(1234), Some(1234)).unwrap();
    }
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o6755)).unwrap();
    assert!(score_to(&out).status.success());
    let metadata = std::fs::metadata(&out).unwrap();
    assert_eq!(metadata.permissions().mode() & 0o7777, 0o755);
    if root {
        assert_eq!((metadata.uid(), metadata.gid()), (1234, 1234));
    }
}

#[test]
fn partials_of_dead_runs_are_removed_and_a_live_runs_kept() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("scored.parquet");
    // No process has a PID above the kernel's largest (4194304); PID 1 always runs.
    let dead = dir.path().join(".scored.parquet.4194305.partial");
    let live = dir.path().join(".scored.parquet.1.partial");
    let other = dir.path().join(".other.parquet.4194305.partial");
    for partial in [&dead, &live, &other] {
        std::fs::write(partial, b"left by a killed run").unwrap();
    }
    let dead_dir = dir.path().join(".scored.parquet.4194306.partial");
    std::fs::create_dir(&dead_dir).unwrap();
    std::fs::write(dead_dir.join("part-00000.parquet"), b"x").unwrap();
    assert!(score_to(&out).status.success());
    assert!(
        !dead.exists() && !dead_dir.exists(),
        "a dead run's partials are removed"
    );
    assert!(
        live.exists(),
        "a live process's partial is its work in progress"
    );
    assert!(
        other.exists(),
        "another output's partial is not this run's to remove"
    );
}

/// A dataset written by `sql --out DIR/`, with rows whose `k` is NULL.
fn write_dataset(dir: &Path) -> PathBuf {
    let out = dir.join("ds");
    ok(&[
        "sql",
        "--out",
        &format!("{}/", path_str(&out)),
        "--partition-by",
        "k",
        "SELECT column1 AS k, column2 AS v FROM (VALUES ('a', 1), (NULL, 2), ('b', 3), (NULL, 4))",
    ]);
    out
}

#[test]
fn a_null_partition_reads_back_as_null() {
    let dir = TempDir::new().unwrap();
    let ds = write_dataset(dir.path());
    assert!(ds.join("k=__HIVE_DEFAULT_PARTITION__").is_dir());
    let rows = crate::common::csv_rows(&[], &[("t", &ds)], "SELECT k IS NULL, v FROM t ORDER BY v");
    assert_eq!(rows, ["false,1", "true,2", "false,3", "true,4"]);
}

#[test]
fn a_dataset_without_its_completion_marker_is_refused_unless_asked() {
    let dir = TempDir::new().unwrap();
    let ds = write_dataset(dir.path());
    let table = format!("t={}", path_str(&ds));
    assert_eq!(
        ok(&[
            "sql",
            "--format",
            "csv",
            "--table",
            &table,
            "SELECT count(*) AS n FROM t"
        ]),
        "n\n4\n"
    );
    // As a run killed while writing to an object store leaves it: files, and no _SUCCESS.
    std::fs::remove_file(ds.join("_SUCCESS")).unwrap();
    let said = err(&["sql", "--table", &table, "SELECT count(*) FROM t"]);
    assert!(
        said.contains("is a pairmetrics dataset without its _SUCCESS marker")
            && said.contains("PAIRMETRICS_READ_INCOMPLETE=1"),
        "{said}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args([
            "sql",
            "--format",
            "csv",
            "--table",
            &table,
            "SELECT count(*) AS n FROM t",
        ])
        .env("PAIRMETRICS_READ_INCOMPLETE", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n\n4\n");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warning: table t:"),
        "a loud warning"
    );
    // A directory of files pairmetrics wrote one by one is no dataset: nothing to refuse.
    let gathered = dir.path().join("gathered");
    std::fs::create_dir(&gathered).unwrap();
    assert!(score_to(&gathered.join("a.parquet")).status.success());
    let table = format!("t={}", path_str(&gathered));
    assert_eq!(
        ok(&[
            "sql",
            "--format",
            "csv",
            "--table",
            &table,
            "SELECT count(*) AS n FROM t"
        ]),
        "n\n3000\n"
    );
}

#[test]
fn a_partition_value_too_long_for_a_file_name_is_named() {
    let dir = TempDir::new().unwrap();
    let said = err(&[
        "sql",
        "--out",
        &format!("{}/", path_str(&dir.path().join("ds"))),
        "--partition-by",
        "k",
        "SELECT repeat('x', 5000) AS k, 1 AS v",
    ]);
    assert!(
        said.contains("--partition-by k: the value \"xxxx") && said.contains("(5000 bytes)"),
        "{said}"
    );
}

/// A phrase table from one VALUES list of (src_tokens, tgt_tokens).
fn phrase_table(dir: &Path, rows: &str) -> PathBuf {
    let table = dir.join("pt.parquet");
    let query = format!(
        "SELECT column1 AS src_tokens, column2 AS tgt_tokens, 0.5 AS p_f_e, 1.0 AS lex_f_e, 0.5 AS p_e_f, 1.0 AS lex_e_f \
         FROM (VALUES {rows})"
    );
    ok(&["sql", "--out", path_str(&table), &query]);
    table
}

#[test]
fn export_refuses_phrases_its_importer_would_misread() {
    let cases = [
        (
            "(['a', 'x|||y'], ['b'])",
            "rule 1: its source phrase cannot be written as Moses text: token 1 \"x|||y\" contains the field separator `|||`",
        ),
        (
            "(['a'], ['b c'])",
            "rule 1: its target phrase cannot be written as Moses text: token 0 \"b c\" contains white space or a line end",
        ),
        (
            "(['a'], [concat('b', chr(10), 'c')])",
            "token 0 \"b\\nc\" contains white space or a line end",
        ),
        (
            "(['a'], ['b']), (['a'], CAST([] AS VARCHAR[]))",
            "rule 2: its target phrase cannot be written as Moses text: has no tokens",
        ),
        ("(['a'], [''])", "token 0 \"\" is empty"),
    ];
    for (rows, expected) in cases {
        let dir = TempDir::new().unwrap();
        let (table, text) = (phrase_table(dir.path(), rows), dir.path().join("pt.txt"));
        let said = err(&[
            "export",
            "moses-phrase-table",
            "--table",
            path_str(&table),
            "--out",
            path_str(&text),
        ]);
        assert!(said.contains(expected), "{rows}: {said}");
        assert!(!text.exists());
    }
    // What it does write, its importer reads back to the same tokens.
    let dir = TempDir::new().unwrap();
    let (table, text, back) = (
        phrase_table(dir.path(), "(['a|', '||b'], ['|', 'c'])"),
        dir.path().join("pt.txt"),
        dir.path().join("back.parquet"),
    );
    ok(&[
        "export",
        "moses-phrase-table",
        "--table",
        path_str(&table),
        "--out",
        path_str(&text),
    ]);
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&text),
        "--out",
        path_str(&back),
    ]);
    let rows = crate::common::csv_rows(
        &[],
        &[("t", &back)],
        "SELECT array_to_string(src_tokens, '+'), array_to_string(tgt_tokens, '+') FROM t",
    );
    assert_eq!(rows, ["a|+||b,|+c"]);
}

#[test]
fn counts_of_zero_are_refused() {
    let (pairs, dir) = (sample_table("pairs"), TempDir::new().unwrap());
    let out = dir.path().join("scored.parquet");
    for flag in [
        "--batch-size",
        "--partitions",
        "--memory-limit",
        "--derp-max-nodes",
    ] {
        let said = err(&[
            "score",
            "--pairs",
            path_str(&pairs),
            "--out",
            path_str(&out),
            flag,
            "0",
        ]);
        assert!(
            said.contains(&format!("invalid value '0' for '{flag}"))
                && said.contains("must be at least 1"),
            "{said}"
        );
    }
}

#[test]
fn json_tells_nan_and_infinities_from_null() {
    let out = ok(&[
        "sql",
        "--format",
        "json",
        "SELECT column1 AS x, CAST(column1 AS FLOAT) AS y FROM (VALUES (CAST('NaN' AS DOUBLE)), (CAST('inf' AS DOUBLE)), (CAST('-inf' AS DOUBLE)), (NULL), (0.25))",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"x":"NaN","y":"NaN"}"#,
            r#"{"x":"Infinity","y":"Infinity"}"#,
            r#"{"x":"-Infinity","y":"-Infinity"}"#,
            r#"{}"#,
            r#"{"x":0.25,"y":0.25}"#,
        ]
    );
}

#[test]
fn terminal_escapes_in_data_are_shown_escaped() {
    let dir = TempDir::new().unwrap();
    let table = dir.path().join("t.parquet");
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![0]));
    write_parquet(
        &table,
        vec![
            ("pair_id", ids),
            ("src", sentences(&["\u{1b}]0;owned\u{7} a"])),
            ("tgt", sentences(&["\u{1b}[2J b"])),
        ],
    );
    let shown = ok(&["show", path_str(&table), "--pair-id", "0"]);
    assert!(
        !shown.contains('\u{1b}')
            && shown.contains("\\u{1b}]0;owned\\u{7}")
            && shown.contains("\\u{1b}[2J"),
        "{shown}"
    );
    let table_arg = format!("t={}", path_str(&table));
    let printed = ok(&["sql", "--table", &table_arg, "SELECT src, tgt FROM t"]);
    assert!(
        !printed.contains('\u{1b}')
            && printed.contains("\\u{1b}]0;owned")
            && printed.contains("\\u{1b}[2J"),
        "{printed}"
    );
    // CSV to a terminal (a pseudo-terminal from util-linux's `script`) is escaped too; to a
    // pipe it is the data as it is.
    let csv = format!(
        "{} sql --format csv --table {table_arg} \"SELECT array_to_string(tgt, ' ') AS tgt FROM t\"",
        env!("CARGO_BIN_EXE_pairmetrics")
    );
    let tty = std::process::Command::new("script")
        .args(["-qec", &csv, "/dev/null"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(
        tty.status.success() && !shown.contains('\u{1b}') && shown.contains("\\u{1b}[2J"),
        "{shown}"
    );
    let piped = ok(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &table_arg,
        "SELECT array_to_string(tgt, ' ') AS tgt FROM t",
    ]);
    assert!(piped.contains('\u{1b}'), "{piped}");
    // Measured after escaping: every line of the table is as wide as its border.
    let widths: Vec<usize> = printed.lines().map(|l| l.chars().count()).collect();
    assert!(widths.iter().all(|&w| w == widths[0]), "{printed}");
}

#[test]
fn misleading_messages_say_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    // One table name twice.
    let (a, b) = (
        format!("x={}", path_str(&sample_table("pairs"))),
        format!("X={}", path_str(&sample_table("arcs"))),
    );
    let said = err(&["sql", "--table", &a, "--table", &b, "SELECT 1"]);
    assert!(said.contains("table X is given twice"), "{said}");
    // METEOR's `xx` has no stemmer.
    let text = dir.path().join("t.txt");
    std::fs::write(&text, "a b\n").unwrap();
    let said = err(&["align", "-l", "xx", path_str(&text), path_str(&text)]);
    assert!(
        said.contains("language `xx` is `other`") && said.contains("no Snowball stemmer"),
        "{said}"
    );
    // Garbage after a zstd magic number.
    let zst = dir.path().join("t.txt.zst");
    std::fs::write(&zst, [0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    let out = dir.path().join("o.parquet");
    let said = err(&[
        "import",
        "text",
        "--src",
        path_str(&zst),
        "--tgt",
        path_str(&zst),
        "--out",
        path_str(&out),
    ]);
    assert!(said.contains("corrupt or truncated zstd data"), "{said}");
}

#[test]
fn extract_stages_in_the_temporary_directory_and_removes_a_killed_runs_staging() {
    let tmp = TempDir::new().unwrap();
    let stale = tmp
        .path()
        .join(".pairmetrics-extract.phrase-pairs.parquet.4194305.partial");
    std::fs::write(&stale, b"left by a killed extract").unwrap();
    let out = TempDir::new().unwrap();
    let table = out.path().join("pt.parquet");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args([
            "extract",
            "--pairs",
            path_str(&sample_table("pairs")),
            "--alignments",
            path_str(&sample_table("alignments")),
        ])
        .args(["--out", path_str(&table), "--max-phrase-length", "2"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the temporary directory is left empty: {left:?}"
    );
    assert!(table.exists());
}

/// An endpoint that accepts connections and never answers (a black hole): the request fails
/// once its retries time out, not after object_store's 3 minutes.
#[test]
fn an_unreachable_store_fails_within_its_retry_timeout() {
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", hole.local_addr().unwrap());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pairmetrics"));
    command
        .args([
            "--storage-option",
            "retry_timeout=1",
            "--storage-option",
            "timeout=2s",
        ])
        .args(["sql", "--table", "t=s3://bucket/x.parquet", "SELECT 1"])
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "k")
        .env("AWS_SECRET_ACCESS_KEY", "s")
        .env("AWS_REGION", "us-east-1");
    let out = crate::common::output_within(&mut command, std::time::Duration::from_secs(60))
        .expect("no hang");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("s3://bucket/x.parquet"), "{said}");
    let said = err(&[
        "--storage-option",
        "retry_timeout=soon",
        "sql",
        "--table",
        "t=s3://bucket/x.parquet",
        "SELECT 1",
    ]);
    assert!(
        said.contains("--storage-option retry_timeout=soon: expected a number of seconds"),
        "{said}"
    );
}

/// DERP's per-pair size limit is a setting: `--derp-max-nodes`, or `SET` in SQL.
#[test]
fn derp_s_size_limit_is_a_setting() {
    let tables = [
        ("arcs", sample_table("arcs")),
        ("al", sample_table("alignments")),
    ];
    let tables: Vec<(&str, &Path)> = tables.iter().map(|(n, p)| (*n, p.as_path())).collect();
    let query = "SELECT count(*) FILTER (WHERE derp_problem(src_head, src_deprel, tgt_head, tgt_deprel, links) \
                 LIKE '%more than the 5 DERP scores (pairmetrics.derp_max_nodes)'), count(derp(src_head, src_deprel, tgt_head, tgt_deprel, links)) \
                 FROM arcs JOIN al USING (pair_id)";
    let limited = crate::common::csv_rows(&["--derp-max-nodes", "5"], &tables, query);
    let default = crate::common::csv_rows(&[], &tables, query);
    let counts = |rows: &[String]| -> (u64, u64) {
        let (a, b) = rows[0].split_once(',').unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    };
    let ((refused, scored), (none_refused, all_scored)) = (counts(&limited), counts(&default));
    assert!(
        refused > 1000 && none_refused == 0,
        "{limited:?} {default:?}"
    );
    assert_eq!(
        scored + refused,
        all_scored,
        "only the pairs past the limit lose their score"
    );
    // The same in SQL, in a session of the library.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let ctx = context();
        ctx.sql("SET pairmetrics.derp_max_nodes = 5")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let arcs = sample_table("arcs");
        ctx.register_parquet("arcs", path_str(&arcs), Default::default())
            .await
            .unwrap();
        let al = sample_table("alignments");
        ctx.register_parquet("al", path_str(&al), Default::default())
            .await
            .unwrap();
        let got = strings(&ctx, query, 0).await;
        assert_eq!(got, [Some(refused.to_string())]);
    });
}

/// Phrase-table rules whose probability is no probability are left out with a counted warning
/// naming the first; incomplete rules too.
#[test]
fn phrase_table_rules_without_a_probability_are_counted_and_named() {
    let dir = TempDir::new().unwrap();
    let table = dir.path().join("pt.parquet");
    let query = "SELECT column1 AS src_tokens, column2 AS tgt_tokens, column3 AS p_f_e, 1.0 AS lex_f_e, 0.5 AS p_e_f, \
                 1.0 AS lex_e_f FROM (VALUES (['a'], ['b'], 0.5), (['a'], ['c'], 1.5), (['b'], ['c'], 0.0), \
                 (['c'], ['d'], CAST('NaN' AS DOUBLE)), (['d'], ['e'], -0.25), (['e'], ['f'], CAST('inf' AS DOUBLE)), \
                 (['f'], CAST([] AS VARCHAR[]), 0.5), (['g'], ['h'], CAST(NULL AS DOUBLE)), (['h'], [''], 0.5))";
    ok(&["sql", "--out", path_str(&table), query]);
    let out = pairmetrics(&[
        "sql",
        "--phrase-table",
        path_str(&table),
        "SELECT true_score(['a'], ['b']) AS s",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(": 1 rules indexed"), "{said}");
    assert!(
        said.contains("warning: phrase table")
            && said.contains(
                "3 rules left out: a NULL or empty phrase (or an empty token) or p_f_e (the first is rule 7)"
            ),
        "{said}"
    );
    assert!(said.contains("5 rules left out: their p_f_e is not a probability in (0, 1] (the first is rule 2, with 1.5)"), "{said}");
}

/// `lepod -r PREFIX` writes PREFIX.led and PREFIX.pod as every output is written: no symlink or
/// input replaced, permissions kept.
#[test]
fn lepod_score_files_are_written_as_every_output() {
    let dir = TempDir::new().unwrap();
    let v = crate::common::vectors().join("lepod");
    let input = |ext: &str| v.join(format!("edge.{ext}")).display().to_string();
    let (align, s1, s2) = (input("alignment"), input("s1"), input("s2"));
    let prefix = dir.path().join("out");
    let run = |prefix: &str| pairmetrics(&["lepod", "-a", &align, "-f", &s1, &s2, "-r", prefix]);
    assert!(run(path_str(&prefix)).status.success());
    let led = dir.path().join("out.led");
    std::fs::set_permissions(&led, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(run(path_str(&prefix)).status.success());
    assert_eq!(
        std::fs::metadata(&led).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // PREFIX.led a symbolic link: refused, nothing replaced.
    let kept = dir.path().join("kept");
    std::fs::write(&kept, b"keep me").unwrap();
    std::os::unix::fs::symlink(&kept, dir.path().join("link.led")).unwrap();
    let said = stderr(&run(path_str(&dir.path().join("link"))));
    assert!(said.contains("is a symbolic link"), "{said}");
    assert_eq!(std::fs::read(&kept).unwrap(), b"keep me");
    // The first sentences' file as PREFIX.led: an input, refused.
    let copy = dir.path().join("s1.led");
    std::fs::copy(&s1, &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let out = pairmetrics(&[
        "lepod",
        "-a",
        &align,
        "-f",
        path_str(&copy),
        &s2,
        "-r",
        path_str(&dir.path().join("s1")),
    ]);
    let said = stderr(&out);
    assert!(said.contains("is an input of this command"), "{said}");
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

/// A job out of its --memory-limit is told so in the command line's terms.
#[test]
fn running_out_of_the_memory_limit_names_the_flag() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("pt.parquet");
    let said = err(&[
        "extract",
        "--pairs",
        path_str(&sample_table("pairs")),
        "--alignments",
        path_str(&sample_table("alignments")),
        "--out",
        path_str(&out),
        "--memory-limit",
        "1",
    ]);
    assert!(
        said.starts_with("error: the job needed more memory than --memory-limit gives it"),
        "{said}"
    );
    assert!(
        said.contains("--memory-limit 512") && said.matches("Resources exhausted").count() == 0,
        "{said}"
    );
    assert!(!out.exists());
}

/// A NaN among equal values reads back as NaN, for Float64 and Float32, in files pairmetrics
/// writes and files pyarrow writes: Parquet's min/max leave NaN out, and DataFusion 55.2 read a
/// column whose min equals its max as a constant (0.5 three times, `isnan` false, NaN lost).
#[test]
fn nan_among_equal_values_reads_back_as_nan() {
    let dir = TempDir::new().unwrap();
    for float in ["double", "float"] {
        let out = dir.path().join(format!("nan_{float}.parquet"));
        ok(&[
            "sql",
            "--out",
            path_str(&out),
            &format!(
                "SELECT CAST(column1 AS {float}) AS m FROM (VALUES ('NaN'), ('0.5'), ('0.5'), ('0.5'))"
            ),
        ]);
        let table = format!("t={}", path_str(&out));
        let counts = |query: &str| ok(&["sql", "--format", "csv", "--table", &table, query]);
        assert_eq!(
            counts(
                "SELECT count(*) FILTER (WHERE isnan(m)) AS nan, count(*) FILTER (WHERE m = 0.5) AS half FROM t"
            ),
            "nan,half\n1,3\n",
            "{float}"
        );
        assert_eq!(
            counts("SELECT count(*) AS n FROM t WHERE isnan(m)"),
            "n\n1\n",
            "{float}"
        );
        assert_eq!(
            counts("SELECT isnan(max(m)) AS nan FROM t"),
            "nan\ntrue\n",
            "{float}: the maximum is NaN, as DataFusion orders floats"
        );
    }
    // pyarrow's file (scripts/make_fixtures.py): two row groups of four rows, all 0.5 but one
    // NaN, in the first row group of the Float64 column and in the second of the Float32 one.
    let fixture = crate::common::root().join("tests/data/pyarrow_nan.parquet");
    let table = format!("t={}", fixture.display());
    assert_eq!(
        ok(&[
            "sql",
            "--format",
            "csv",
            "--table",
            &table,
            "SELECT count(*) FILTER (WHERE isnan(m64)) AS a, count(*) FILTER (WHERE isnan(m32)) AS b, \
             count(*) FILTER (WHERE m64 = 0.5) AS c FROM t"
        ]),
        "a,b,c\n1,1,7\n"
    );
}

/// Control characters echoed in an error (a path, SQL) are shown escaped: a terminal would
/// obey them.
#[test]
fn terminal_escapes_in_errors_are_shown_escaped() {
    let dir = TempDir::new().unwrap();
    let table = format!(
        "t={}",
        dir.path().join("a\u{1b}]0;owned\u{7}.parquet").display()
    );
    let out = pairmetrics(&["sql", "--table", &table, "SELECT 1"]);
    assert!(!out.status.success());
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(said.contains("a\\u{1b}]0;owned\\u{7}.parquet"), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}'),
        "{said}"
    );
    let out = pairmetrics(&["sql", "SELECT * FROM \"x\u{1b}[2J\""]);
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        !said.contains('\u{1b}') && said.contains("\\u{1b}[2J"),
        "{said}"
    );
}

/// Errors say each thing once, in words a user can act on.
#[test]
fn errors_say_each_cause_once() {
    let said = err(&["sql", "SELEC 1"]);
    assert_eq!(
        said.matches("Expected: an SQL statement, found: SELEC")
            .count(),
        1,
        "{said}"
    );
    let said = err(&[
        "sql",
        "--table",
        "t=http://127.0.0.1:9/x.parquet",
        "SELECT 1",
    ]);
    assert!(
        said.contains("plain HTTP") && said.contains("--storage-option allow_http=true"),
        "{said}"
    );
}
