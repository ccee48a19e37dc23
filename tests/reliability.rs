//! Reliability: a killed run leaves no output that looks finished, the output does not depend on
//! parallelism or batch size, and a memory limit makes large operators spill instead of failing.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use std::sync::Arc;

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{Int64Type, UInt64Type};
use datafusion::catalog::TableProvider;
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use datafusion::parquet::file::metadata::PageIndexPolicy;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;
use tempfile::TempDir;

use datafusion::arrow::array::UInt32Array;
use datafusion::arrow::compute::take;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::Compression;
use datafusion::parquet::file::properties::WriterProperties;
use pairmetrics::parquet::ParquetInput;
use pairmetrics::parquet::lockstep::{Source, Zip, zipped_schema};
use pairmetrics::parquet::lockstep_table::{LockstepExec, LockstepTable, RowSplit, in_dealt_order};
use pairmetrics::parquet::shares::SharesSink;
use pairmetrics::parquet::{Codec, Encoding};

use crate::common::{file_names, ids, read_batch, sample, write_parquet};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
}

fn run(args: &[&str]) -> Output {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `score` of these tables into `out`, lowercased and ignoring "," and "." for PoD, then `extra`.
fn score_args<'a>(tables: [&'a Path; 3], out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let [pairs, alignments, arcs] = tables;
    let mut args = vec![
        "score",
        "--pairs",
        s(pairs),
        "--alignments",
        s(alignments),
        "--arcs",
        s(arcs),
        "--out",
        s(out),
        "--lowercase",
        "--punct",
        ",.",
    ];
    args.extend(extra);
    args
}

fn score_sample(out: &Path, extra: &[&str]) {
    let tables = ["pairs", "alignments", "arcs"].map(|t| sample().join(format!("{t}.parquet")));
    run(&score_args(
        tables.each_ref().map(PathBuf::as_path),
        out,
        extra,
    ));
}

#[test]
fn output_is_the_same_for_any_partitions_and_batch_size() {
    let dir = TempDir::new().unwrap();
    let reference = dir.path().join("reference.parquet");
    score_sample(&reference, &["--partitions", "1", "--batch-size", "8192"]);
    let want = read_batch(&reference);
    assert_eq!(want.num_rows(), 3000);
    for (partitions, batch) in [
        ("1", "1"),
        ("1", "1000"),
        ("2", "1"),
        ("2", "1000"),
        ("2", "8192"),
        ("8", "1"),
        ("8", "7"),
        ("8", "8192"),
    ] {
        let out = dir.path().join(format!("p{partitions}_b{batch}.parquet"));
        score_sample(&out, &["--partitions", partitions, "--batch-size", batch]);
        assert_eq!(
            read_batch(&out),
            want,
            "--partitions {partitions} --batch-size {batch}"
        );
    }
}

/// `from` rewritten with row groups of `rows` rows, its rows reversed when `reverse`.
fn rewrite(from: &Path, to: &Path, rows: usize, reverse: bool) {
    let mut batch = read_batch(from);
    if reverse {
        let n = batch.num_rows() as u32;
        let back = UInt32Array::from_iter_values((0..n).rev());
        let columns = batch
            .columns()
            .iter()
            .map(|c| take(c, &back, None).unwrap())
            .collect();
        batch = RecordBatch::try_new(batch.schema(), columns).unwrap();
    }
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows))
        .build();
    let mut writer =
        ArrowWriter::try_new(File::create(to).unwrap(), batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn lockstep_reading_and_the_join_give_the_same_output() {
    let dir = TempDir::new().unwrap();
    let reference = dir.path().join("reference.parquet");
    score_sample(&reference, &[]);
    let want = read_batch(&reference);
    let data = sample();
    // Row groups of different sizes per table: batches of the three tables never line up.
    // Reversed alignments and arcs: the tables no longer list the same ids in the same order.
    for (case, reverse) in [("lockstep", false), ("join", true)] {
        let tables =
            ["pairs", "alignments", "arcs"].map(|t| dir.path().join(format!("{case}_{t}.parquet")));
        rewrite(&data.join("pairs.parquet"), &tables[0], 7, false);
        rewrite(&data.join("alignments.parquet"), &tables[1], 5, reverse);
        rewrite(&data.join("arcs.parquet"), &tables[2], 11, reverse);
        let out = dir.path().join(format!("{case}.parquet"));
        let mut args = score_args(
            tables.each_ref().map(PathBuf::as_path),
            &out,
            &["--batch-size", "3"],
        );
        run(&args);
        // The same values; the metadata differs, as it holds the query each way ran.
        let got = read_batch(&out);
        assert_eq!(got.schema().fields(), want.schema().fields(), "{case}");
        assert_eq!(got.columns(), want.columns(), "{case}");
        args.push("--explain");
        let plan = String::from_utf8(run(&args).stdout).unwrap();
        assert_eq!(
            plan.starts_with("-- lockstep: pairs, alignments, arcs list the same pair_ids"),
            !reverse,
            "{plan}"
        );
        assert_eq!(plan.contains("SortMergeJoin"), reverse, "{plan}");
    }
}

/// The codec of each column chunk of `path`'s row groups, and the rows of each row group.
fn layout(path: &Path) -> (Vec<Vec<Compression>>, Vec<i64>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let groups = builder.metadata().row_groups();
    (
        groups
            .iter()
            .map(|g| g.columns().iter().map(|c| c.compression()).collect())
            .collect(),
        groups.iter().map(|g| g.num_rows()).collect(),
    )
}

/// In lockstep, the pairs file's own columns are copied into the output as stored (no decoding
/// and encoding again), its row groups become the output's, and the values are the same as
/// when they are encoded anew.
#[test]
fn score_copies_the_pairs_columns_as_they_are_stored() {
    let dir = TempDir::new().unwrap();
    let reference = dir.path().join("reference.parquet");
    score_sample(&reference, &[]);
    let want = read_batch(&reference);
    let data = sample();
    // Uncompressed (ArrowWriter's default), with an offset index, in row groups of 7 rows.
    let pairs = dir.path().join("pairs.parquet");
    rewrite(&data.join("pairs.parquet"), &pairs, 7, false);
    let pairs_dir = dir.path().join("pairs_dir");
    std::fs::create_dir(&pairs_dir).unwrap();
    std::fs::copy(&pairs, pairs_dir.join("part-0.parquet")).unwrap();
    // The bundled sample was written by pyarrow, in one row group without a page index, as
    // pyarrow writes by default: it is copied too, and the output then has no page index.
    let cases = [
        (pairs.clone(), true),
        (pairs_dir, false),
        (data.join("pairs.parquet"), true),
    ];
    for (i, (pairs, copied)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("{i}.parquet"));
        let (alignments, arcs) = (data.join("alignments.parquet"), data.join("arcs.parquet"));
        let extra = ["--batch-size", "3", "--compression", "zstd"];
        let printed = run(&score_args([&pairs, &alignments, &arcs], &out, &extra));
        let note = format!(
            "note: pair_id, src, tgt, src_text, tgt_text copied from {} as stored",
            pairs.display()
        );
        assert_eq!(
            String::from_utf8(printed.stdout).unwrap().contains(&note),
            copied,
            "{pairs:?}"
        );
        let got = read_batch(&out);
        assert_eq!(got.schema().fields(), want.schema().fields(), "{pairs:?}");
        assert_eq!(got.columns(), want.columns(), "{pairs:?}");
        let (codecs, rows) = layout(&out);
        let src = got.schema().index_of("src").unwrap();
        let led = got.schema().index_of("led").unwrap();
        for group in &codecs {
            assert!(
                matches!(group[led], Compression::ZSTD(_)),
                "{pairs:?}: computed columns as --compression says"
            );
            // Copied chunks keep the input's codec (the rewritten file's none, the sample's zstd).
            let src_codec = group[src];
            let want = if copied {
                layout(&pairs).0[0][read_batch(&pairs).schema().index_of("src").unwrap()]
            } else {
                Compression::ZSTD(Default::default())
            };
            assert_eq!(src_codec, want, "{pairs:?}: src {src_codec:?}");
        }
        if copied {
            assert_eq!(rows, layout(&pairs).1, "row groups follow the pairs file's");
        }
        let has_page_index = |path: &Path| {
            let options =
                ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional);
            let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(
                File::open(path).unwrap(),
                options,
            )
            .unwrap();
            builder.metadata().offset_index().is_some()
        };
        assert_eq!(
            has_page_index(&out),
            !copied || has_page_index(&pairs),
            "{pairs:?}"
        );
    }
}

/// Tables chosen for lockstep that no longer match (a file changed during the run) are an
/// error naming the row, never rows of different pairs side by side.
#[tokio::test]
async fn lockstep_reading_stops_where_the_ids_differ() {
    let dir = TempDir::new().unwrap();
    let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
    write_parquet(
        &a,
        vec![("pair_id", ids(&[1, 2, 3, 4])), ("x", ids(&[0, 0, 0, 0]))],
    );
    write_parquet(
        &b,
        vec![("pair_id", ids(&[1, 2, 5, 6])), ("y", ids(&[0, 0, 0, 0]))],
    );
    let source = |name: &'static str, path: &Path, alias, column: &str| {
        let columns = vec!["pair_id".to_string(), column.to_string()];
        Source {
            input: ParquetInput::open(name, path).unwrap(),
            schema: read_batch(path).schema(),
            alias,
            columns,
        }
    };
    let sources = vec![
        source("pairs", &a, None, "x"),
        source("alignments", &b, Some("a".to_string()), "y"),
    ];
    let zipped = zipped_schema(&sources).unwrap();
    let names: Vec<&str> = zipped.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["pair_id", "x", "__a_pair_id", "__a_y"]);
    let mut zip = Zip::open(sources.clone(), zipped.clone(), 2).unwrap();
    assert_eq!(zip.next().await.unwrap().unwrap().num_rows(), 2);
    let error = zip.next().await.unwrap_err().to_string();
    assert_eq!(
        error,
        "row 2 (0-based): pair_id 3 in pairs but 5 in alignments; did a file change during the run?"
    );
    // Read from a share of the rows (as a cluster's task reads), the error names the same row.
    let mut zip = Zip::open_rows(sources, zipped, 2, 1..4).unwrap();
    let error = zip.next().await.unwrap_err().to_string();
    assert_eq!(
        error,
        "row 2 (0-based): pair_id 3 in pairs but 5 in alignments; did a file change during the run?"
    );
}

/// A lockstep table's scan (what a cluster's executors run) gives each partition a share of the
/// rows of every table, across files and within row groups; the shares, in partition order,
/// are the whole tables side by side, and so are they after the scan is encoded and decoded.
/// Written through a SharesSink, each share becomes a file, in order.
#[tokio::test]
async fn a_lockstep_scan_shares_the_rows_of_every_table() {
    let dir = TempDir::new().unwrap();
    let rows: Vec<i64> = (0..120_000).collect();
    // pairs as three files, alignments as one: the shares cut through both differently.
    std::fs::create_dir(dir.path().join("pairs")).unwrap();
    for (k, part) in rows.chunks(40_000).enumerate() {
        let x: Vec<i64> = part.iter().map(|i| i * 7).collect();
        write_parquet(
            &dir.path().join(format!("pairs/part-{k}.parquet")),
            vec![("pair_id", ids(part)), ("x", ids(&x))],
        );
    }
    let b = dir.path().join("b.parquet");
    let y: Vec<i64> = rows.iter().map(|i| -i).collect();
    write_parquet(&b, vec![("pair_id", ids(&rows)), ("y", ids(&y))]);
    let pairs = ParquetInput::open("pairs", &dir.path().join("pairs")).unwrap();
    let source = |input: ParquetInput, path: &Path, alias: Option<String>, column: &str| {
        let columns = vec!["pair_id".to_string(), column.to_string()];
        Source {
            input,
            schema: read_batch(path).schema(),
            alias,
            columns,
        }
    };
    let sources = vec![
        source(pairs, &dir.path().join("pairs/part-0.parquet"), None, "x"),
        source(
            ParquetInput::open("alignments", &b).unwrap(),
            &b,
            Some("a".to_string()),
            "y",
        ),
    ];
    let table = LockstepTable::new(sources, rows.len() as u64, RowSplit::Shares).unwrap();
    let ctx = SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(2)
            .with_batch_size(7_000),
    );
    let plan = table
        .scan(&ctx.state(), Some(&vec![3, 1, 0]), &[], None)
        .await
        .unwrap();
    let exec = plan.downcast_ref::<LockstepExec>().unwrap();
    let decoded: Arc<dyn ExecutionPlan> = Arc::new(
        LockstepExec::from_bytes(&exec.to_bytes().unwrap(), &[plan.children()[0].clone()])
            .unwrap()
            .unwrap(),
    );
    for plan in [plan.clone(), decoded] {
        assert_eq!(plan.output_partitioning().partition_count(), 2);
        let mut batches = Vec::new();
        for partition in 0..2 {
            let stream = plan.execute(partition, ctx.task_ctx()).unwrap();
            batches.extend(stream.try_collect::<Vec<_>>().await.unwrap());
        }
        let all = concat_batches(&plan.schema(), &batches).unwrap();
        let names: Vec<&str> = all
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(names, ["__a_y", "x", "pair_id"]);
        let column = |i: usize| all.column(i).as_primitive::<Int64Type>().values().to_vec();
        assert_eq!(column(2), rows);
        assert_eq!(column(1), rows.iter().map(|i| i * 7).collect::<Vec<_>>());
        assert_eq!(column(0), y);
    }
    assert!(LockstepTable::from_bytes(b"{}").unwrap().is_none());

    // Inserted into a SharesSink (what `score --cluster` does), share k goes to part-0000k:
    // the files in name order hold the rows in pair_id order, each recording that it is sorted.
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let schema = table.schema();
    ctx.register_table("zipped", Arc::new(table)).unwrap();
    let sink = SharesSink::new(
        out.to_str().unwrap(),
        schema,
        vec![("k".into(), "v".into())],
        Encoding::fast(Codec::Zstd),
        None,
    );
    let sink = SharesSink::from_bytes(&sink.to_bytes().unwrap())
        .unwrap()
        .unwrap();
    ctx.register_table("out", Arc::new(sink)).unwrap();
    let counts = ctx
        .sql("INSERT INTO out SELECT * FROM zipped")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let counts: Vec<u64> = counts
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<UInt64Type>().values().to_vec())
        .collect();
    assert_eq!(counts, [60_000, 60_000]);
    let names = file_names(&out);
    assert_eq!(names, ["part-00000.parquet", "part-00001.parquet"]);
    let mut written = Vec::new();
    for name in &names {
        let input = ParquetInput::open("out", &out.join(name)).unwrap();
        assert!(input.records_sorted_by_pair_id(), "{name}");
        assert_eq!(input.key_value("k"), Some("v"));
        written.push(read_batch(&out.join(name)));
    }
    let all = concat_batches(&written[0].schema(), &written).unwrap();
    assert_eq!(
        all.column_by_name("pair_id")
            .unwrap()
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        rows
    );
    assert_eq!(
        all.column_by_name("__a_y")
            .unwrap()
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        y
    );
}

/// A dealt lockstep scan (what `score` runs in one process): a query over it, taken back with
/// `in_dealt_order`, gives every row in the tables' order whatever the batch size; a table that
/// no longer matches is an error naming the row, as the zip's own; a dealt scan is not shipped.
#[tokio::test]
async fn a_dealt_lockstep_scan_gives_the_rows_back_in_order() {
    let dir = TempDir::new().unwrap();
    let rows: Vec<i64> = (0..50_000).collect();
    let [a, b, c] = ["a", "b", "c"].map(|n| dir.path().join(format!("{n}.parquet")));
    let x: Vec<i64> = rows.iter().map(|i| i * 7).collect();
    write_parquet(&a, vec![("pair_id", ids(&rows)), ("x", ids(&x))]);
    write_parquet(&b, vec![("pair_id", ids(&rows)), ("y", ids(&rows))]);
    let mut changed = rows.clone();
    changed[30_001] = -1;
    write_parquet(&c, vec![("pair_id", ids(&changed)), ("y", ids(&rows))]);
    let source = |name: &'static str, path: &Path, alias: Option<&str>, column: &str| Source {
        input: ParquetInput::open(name, path).unwrap(),
        schema: read_batch(path).schema(),
        alias: alias.map(str::to_string),
        columns: vec!["pair_id".to_string(), column.to_string()],
    };
    for batch_size in [1_000, 7_001, 65_536] {
        let ctx = SessionContext::new_with_config(
            SessionConfig::new()
                .with_target_partitions(2)
                .with_batch_size(batch_size),
        );
        for (name, other) in [("same", &b), ("changed", &c)] {
            let sources = vec![
                source("pairs", &a, None, "x"),
                source("alignments", other, Some("a"), "y"),
            ];
            let table = LockstepTable::new(sources, rows.len() as u64, RowSplit::Dealt).unwrap();
            assert!(table.to_bytes().is_err());
            ctx.register_table(name, Arc::new(table)).unwrap();
            let frame = ctx
                .sql(&format!("SELECT pair_id, x + \"__a_y\" AS s FROM {name}"))
                .await
                .unwrap();
            let plan = frame.create_physical_plan().await.unwrap();
            assert_eq!(plan.output_partitioning().partition_count(), 4);
            let batches: Result<Vec<RecordBatch>, _> = in_dealt_order(plan, ctx.task_ctx())
                .unwrap()
                .try_collect()
                .await;
            if name == "changed" {
                assert_eq!(
                    batches.unwrap_err().to_string(),
                    "row 30001 (0-based): pair_id 30001 in pairs but -1 in alignments; did a file change during the run?"
                );
                continue;
            }
            let batches = batches.unwrap();
            let all = concat_batches(&batches[0].schema(), &batches).unwrap();
            let column = |i: usize| all.column(i).as_primitive::<Int64Type>().values().to_vec();
            assert_eq!(column(0), rows, "batch size {batch_size}");
            assert_eq!(column(1), rows.iter().map(|i| i * 8).collect::<Vec<_>>());
        }
    }
}

/// A pairs table big enough that scoring it takes a while: the sample's lines, many times.
fn big_pairs(dir: &Path) -> PathBuf {
    let data = sample();
    let csv = run(&[
        "sql",
        "--format",
        "csv",
        "--table",
        &format!("p={}", data.join("pairs.parquet").display()),
        "SELECT array_to_string(src, ' ') AS s, array_to_string(tgt, ' ') AS t FROM p WHERE cardinality(src) > 0",
    ]);
    let text = String::from_utf8(csv.stdout).unwrap();
    let (mut src, mut tgt) = (String::new(), String::new());
    for _ in 0..60 {
        for line in text.lines().skip(1) {
            // the sample's lines hold no quotes or commas that matter here: split on the last comma
            let (a, b) = line.rsplit_once(',').unwrap();
            src += a.trim_matches('"');
            src.push('\n');
            tgt += b.trim_matches('"');
            tgt.push('\n');
        }
    }
    let (sf, tf) = (dir.join("src.txt"), dir.join("tgt.txt"));
    std::fs::write(&sf, src).unwrap();
    std::fs::write(&tf, tgt).unwrap();
    let pairs = dir.join("big.parquet");
    run(&[
        "import",
        "text",
        "--src",
        s(&sf),
        "--tgt",
        s(&tf),
        "--out",
        s(&pairs),
    ]);
    pairs
}

#[test]
fn a_killed_score_leaves_no_finished_looking_file_and_a_rerun_completes() {
    let dir = TempDir::new().unwrap();
    let pairs = big_pairs(dir.path());
    let rows = read_batch(&pairs).num_rows();
    let out = dir.path().join("scored.parquet");
    let args = [
        "score",
        "--pairs",
        s(&pairs),
        "--out",
        s(&out),
        "--batch-size",
        "64",
        "--partitions",
        "1",
    ];
    let mut child = bin()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the run is writing (its temporary file exists), then SIGKILL it.
    let started = Instant::now();
    let partial = loop {
        let found = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.to_string_lossy().ends_with(".partial") && p.metadata().is_ok_and(|m| m.len() > 0)
            });
        if let Some(path) = found {
            break path;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "no file under the final name after SIGKILL");
    assert!(
        partial.exists(),
        "the killed run's temporary file is left, under its .partial name"
    );

    run(&args);
    assert_eq!(
        read_batch(&out).num_rows(),
        rows,
        "the re-run has every input row"
    );
}

#[test]
fn a_memory_limit_makes_a_large_aggregation_spill_and_complete() {
    let table = format!("p={}", sample().join("pairs.parquet").display());
    // ~300,000 groups with long keys: more than 32 MiB of hash table.
    let query = "SELECT count(*) AS groups, sum(c) AS rows FROM (SELECT s, count(*) AS c FROM \
                 (SELECT src_text || tgt_text || CAST(value % 100 AS VARCHAR) AS s \
                  FROM p CROSS JOIN generate_series(1, 200)) GROUP BY s)";
    let free = run(&["sql", "--format", "csv", "--table", &table, query]);
    let limited = run(&[
        "sql",
        "--format",
        "csv",
        "--memory-limit",
        "32",
        "--table",
        &table,
        query,
    ]);
    assert_eq!(limited.stdout, free.stdout);
    assert_eq!(
        String::from_utf8_lossy(&free.stdout),
        "groups,rows\n297900,600000\n"
    );
    let explain = run(&[
        "sql",
        "--format",
        "csv",
        "--memory-limit",
        "32",
        "--table",
        &table,
        &format!("EXPLAIN ANALYZE {query}"),
    ]);
    let plan = String::from_utf8_lossy(&explain.stdout);
    let spills: u64 = plan
        .split("spill_count=")
        .skip(1)
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert!(spills > 0, "the aggregation spilled: {plan}");
}

/// Files pairmetrics writes in pair_id order record it; `sql` then plans joins on pair_id as
/// merge joins (which stream), with the same results as the hash join of unsorted tables.
#[test]
fn sql_merge_joins_tables_that_record_their_pair_id_order() {
    let dir = TempDir::new().unwrap();
    let table = |name: &str, path: &Path| format!("{name}={}", path.display());
    let (pairs, alignments) = (
        sample().join("pairs.parquet"),
        sample().join("alignments.parquet"),
    );
    let copy = |from: &Path, to: &Path, order: &str| {
        let query = format!("SELECT * FROM t ORDER BY pair_id {order}");
        run(&["sql", "--table", &table("t", from), "--out", s(to), &query]);
    };
    let (sorted_p, sorted_a, descending_a) = (
        dir.path().join("p.parquet"),
        dir.path().join("a.parquet"),
        dir.path().join("d.parquet"),
    );
    copy(&pairs, &sorted_p, "ASC");
    copy(&alignments, &sorted_a, "ASC");
    copy(&alignments, &descending_a, "DESC");
    let recorded = |path: &Path| {
        ParquetInput::open("t", path)
            .unwrap()
            .records_sorted_by_pair_id()
    };
    assert!(recorded(&sorted_p) && recorded(&sorted_a));
    assert!(
        !recorded(&descending_a),
        "a file whose ids descend records nothing"
    );

    let query = "SELECT count(*), sum(led(p.src, p.tgt, a.links)) FROM p JOIN a USING (pair_id)";
    let sql = |tables: &[String], extra: &[&str], query: &str| {
        let mut args = vec!["sql", "--format", "csv"];
        tables
            .iter()
            .for_each(|t| args.extend(["--table", t.as_str()]));
        args.extend(extra);
        args.push(query);
        String::from_utf8(run(&args).stdout).unwrap()
    };
    let hashed = [table("p", &pairs), table("a", &alignments)];
    let recorded = [table("p", &sorted_p), table("a", &sorted_a)];
    let want = sql(&hashed, &[], query);
    assert!(
        want.contains("2994") || want.lines().nth(1).is_some_and(|l| l.starts_with("3000,")),
        "{want}"
    );
    for (tables, extra) in [
        (&recorded, &[][..]),
        (&hashed, &["--sorted", "p", "--sorted", "a"][..]),
    ] {
        assert_eq!(sql(tables, extra, query), want, "{tables:?} {extra:?}");
        let plan = sql(tables, extra, &format!("EXPLAIN {query}"));
        assert!(
            plan.contains("SortMergeJoin") && !plan.contains("HashJoinExec"),
            "{plan}"
        );
        assert!(
            !plan.contains("SortExec"),
            "sorted inputs are not sorted again: {plan}"
        );
    }
    let plan = sql(&hashed, &[], &format!("EXPLAIN {query}"));
    assert!(
        plan.contains("HashJoinExec"),
        "unsorted tables are hash-joined as before: {plan}"
    );

    let unknown = bin()
        .args(["sql", "--table", &hashed[0], "--sorted", "x", "SELECT 1"])
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        !unknown.status.success() && error.contains("--sorted x: no table of that name"),
        "{error}"
    );
}

/// Parquet `sorting_columns` written by another tool (here arrow-rs, as pyarrow or Spark would)
/// count as a recorded order too.
#[test]
fn parquet_sorting_columns_record_a_pair_id_order() {
    use datafusion::parquet::file::metadata::SortingColumn;
    let dir = TempDir::new().unwrap();
    let batch = read_batch(&sample().join("alignments.parquet"));
    for (descending, want) in [(false, true), (true, false)] {
        let path = dir.path().join(format!("sorted_{descending}.parquet"));
        let sorting = vec![SortingColumn {
            column_idx: 0,
            descending,
            nulls_first: true,
        }];
        let props = WriterProperties::builder()
            .set_sorting_columns(Some(sorting))
            .build();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), Some(props))
                .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        assert_eq!(
            ParquetInput::open("t", &path)
                .unwrap()
                .records_sorted_by_pair_id(),
            want,
            "descending: {descending}"
        );
    }
}

/// `score` of Arrow data in memory equals `score` of the files it came from, row for row, with
/// the same metadata but the inputs' paths; in any row order; bad keys are errors that say so.
#[tokio::test]
async fn score_takes_arrow_data_in_memory() {
    use pairmetrics::pipeline::score::{ScoreOptions, Source, score, score_in_memory};
    let dir = TempDir::new().unwrap();
    let (pairs, alignments) = (
        sample().join("pairs.parquet"),
        sample().join("alignments.parquet"),
    );
    let options = |pairs: Source, alignments: Source| ScoreOptions {
        pairs,
        alignments: Some(alignments),
        align: None,
        arcs: None,
        out: dir.path().join("scored.parquet"),
        layout: Default::default(),
        lowercase: false,
        punct: ",".into(),
        metrics: None,
        hardrules: None,
        filters: None,
        resources: Default::default(),
        tuning: Default::default(),
        compression: Codec::Zstd,
        strict: false,
        progress: false,
        cluster: None,
    };
    let from_files = options(pairs.clone().into(), alignments.clone().into());
    let summary = score(&from_files).await.unwrap();
    let want = read_batch(&from_files.out);

    let in_memory = |batch: RecordBatch| Source::Arrow {
        schema: batch.schema(),
        batches: vec![batch],
    };
    let arrow_pairs = in_memory(read_batch(&pairs));
    // The alignments backwards, one row per batch: sorted on the way.
    let all = read_batch(&alignments);
    let schema = all.schema();
    let reversed: Vec<RecordBatch> = (0..all.num_rows()).rev().map(|r| all.slice(r, 1)).collect();
    let arrow_alignments = Source::Arrow {
        schema: schema.clone(),
        batches: reversed.clone(),
    };
    let scored = score_in_memory(&options(arrow_pairs.clone(), arrow_alignments))
        .await
        .unwrap();
    let got = concat_batches(&scored.schema, &scored.batches).unwrap();
    assert_eq!(got.columns(), want.columns());
    assert_eq!(scored.summary.rows, summary.rows);
    assert_eq!(scored.summary.signature, summary.signature);
    assert_eq!(
        scored.schema.metadata()["pairmetrics.signature"],
        summary.signature
    );
    assert!(!dir.path().join("scored.parquet.partial").exists());

    // A pair_id twice, or none: the error says what and where.
    let mut twice = reversed.clone();
    twice.push(reversed[0].clone());
    let repeated = Source::Arrow {
        schema: schema.clone(),
        batches: twice,
    };
    let error_of = async |options| score_in_memory(&options).await.err().unwrap().to_string();
    let error = error_of(options(arrow_pairs.clone(), repeated)).await;
    assert!(
        error.contains("alignments table the Arrow data given: pair_id values repeat"),
        "{error}"
    );
    // A NULL pair_id: the row is named.
    let without_id = {
        let first = read_batch(&pairs);
        let column = first.schema().index_of("pair_id").unwrap();
        let ids = first.column(column).as_primitive::<Int64Type>();
        let holed: datafusion::arrow::array::Int64Array = (0..ids.len())
            .map(|r| (r != 5).then(|| ids.value(r)))
            .collect();
        let mut columns = first.columns().to_vec();
        columns[column] = Arc::new(holed);
        in_memory(RecordBatch::try_new(first.schema(), columns).unwrap())
    };
    let error = error_of(options(without_id, alignments.clone().into())).await;
    assert!(
        error.contains("pairs table the Arrow data given: pair_id is NULL at row 5"),
        "{error}"
    );
}

/// A file replaced while a scan reads it: the scan reads the version it started with (the file
/// it opened stays open), never a mix. Made deterministic by replacing the file between two
/// batches of one scan: before, the later row groups came from the new file (a torn sum).
#[test]
fn a_file_replaced_during_a_scan_is_read_whole_as_it_was() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let dir = TempDir::new().unwrap();
        let write = |path: &Path, value: i64| {
            let values: Vec<i64> = vec![value; 4000];
            let batch = RecordBatch::try_from_iter([(
                "v",
                Arc::new(datafusion::arrow::array::Int64Array::from(values)) as _,
            )])
            .unwrap();
            // Ten row groups of 400 rows, read one by one.
            let properties = WriterProperties::builder()
                .set_max_row_group_row_count(Some(400))
                .build();
            let mut writer = ArrowWriter::try_new(
                File::create(path).unwrap(),
                batch.schema(),
                Some(properties),
            )
            .unwrap();
            writer.write(&batch).unwrap();
            writer.close().unwrap();
        };
        let (table, other) = (dir.path().join("t.parquet"), dir.path().join("new.parquet"));
        write(&table, 1);
        write(&other, 2);
        let ctx = pairmetrics::session::Session {
            tuning: pairmetrics::session::Tuning {
                partitions: Some(1),
                batch_size: Some(400),
                ..Default::default()
            },
            ..Default::default()
        }
        .build()
        .unwrap();
        ctx.register_parquet("t", table.to_str().unwrap(), Default::default())
            .await
            .unwrap();
        let mut stream = ctx
            .sql("SELECT v FROM t")
            .await
            .unwrap()
            .execute_stream()
            .await
            .unwrap();
        let mut sum = 0;
        let mut batches = 0;
        while let Some(batch) = stream.try_next().await.unwrap() {
            let values = batch.column(0).as_primitive::<Int64Type>();
            sum += values.iter().map(|v| v.unwrap()).sum::<i64>();
            batches += 1;
            if batches == 1 {
                std::fs::rename(&other, &table).unwrap();
            }
        }
        assert!(batches > 1, "read in several batches");
        assert_eq!(
            sum, 4000,
            "every row from the file as it was when the scan began"
        );
    });
}
