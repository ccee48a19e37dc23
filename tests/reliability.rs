//! Reliability: a killed run leaves no output that looks finished, the output does not depend on
//! parallelism or batch size, and a memory limit makes large operators spill instead of failing.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tempfile::TempDir;

use crate::common::sample;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
}

fn run(args: &[&str]) -> Output {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn read(path: &Path) -> RecordBatch {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    concat_batches(&schema, &batches).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn score_sample(out: &Path, extra: &[&str]) {
    let data = sample();
    let (pairs, alignments, arcs) =
        (data.join("pairs.parquet"), data.join("alignments.parquet"), data.join("arcs.parquet"));
    let mut args = vec![
        "score", "--pairs", s(&pairs), "--alignments", s(&alignments), "--arcs", s(&arcs),
        "--out", s(out), "--lowercase", "--punct", ",.",
    ];
    args.extend(extra);
    run(&args);
}

#[test]
fn output_is_the_same_for_any_partitions_and_batch_size() {
    let dir = TempDir::new().unwrap();
    let reference = dir.path().join("reference.parquet");
    score_sample(&reference, &["--partitions", "1", "--batch-size", "8192"]);
    let want = read(&reference);
    assert_eq!(want.num_rows(), 3000);
    for (partitions, batch) in [("1", "1"), ("1", "1000"), ("2", "1"), ("2", "1000"), ("2", "8192"), ("8", "1"), ("8", "7"), ("8", "8192")] {
        let out = dir.path().join(format!("p{partitions}_b{batch}.parquet"));
        score_sample(&out, &["--partitions", partitions, "--batch-size", batch]);
        assert_eq!(read(&out), want, "--partitions {partitions} --batch-size {batch}");
    }
}

/// A pairs table big enough that scoring it takes a while: the sample's lines, many times.
fn big_pairs(dir: &Path) -> PathBuf {
    let data = sample();
    let csv = run(&[
        "sql", "--format", "csv", "--table", &format!("p={}", data.join("pairs.parquet").display()),
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
    run(&["import", "text", "--src", s(&sf), "--tgt", s(&tf), "--out", s(&pairs)]);
    pairs
}

#[test]
fn a_killed_score_leaves_no_finished_looking_file_and_a_rerun_completes() {
    let dir = TempDir::new().unwrap();
    let pairs = big_pairs(dir.path());
    let rows = read(&pairs).num_rows();
    let out = dir.path().join("scored.parquet");
    let args = ["score", "--pairs", s(&pairs), "--out", s(&out), "--batch-size", "64", "--partitions", "1"];
    let mut child = bin().args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    // Wait until the run is writing (its temporary file exists), then SIGKILL it.
    let started = Instant::now();
    let partial = loop {
        let found = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(".partial") && p.metadata().is_ok_and(|m| m.len() > 0));
        if let Some(path) = found {
            break path;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be killed");
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "no file under the final name after SIGKILL");
    assert!(partial.exists(), "the killed run's temporary file is left, under its .partial name");

    run(&args);
    assert_eq!(read(&out).num_rows(), rows, "the re-run has every input row");
}

#[test]
fn a_memory_limit_makes_a_large_aggregation_spill_and_complete() {
    let table = format!("p={}", sample().join("pairs.parquet").display());
    // ~300,000 groups with long keys: more than 32 MiB of hash table.
    let query = "SELECT count(*) AS groups, sum(c) AS rows FROM (SELECT s, count(*) AS c FROM \
                 (SELECT src_text || tgt_text || CAST(value % 100 AS VARCHAR) AS s \
                  FROM p CROSS JOIN generate_series(1, 200)) GROUP BY s)";
    let free = run(&["sql", "--format", "csv", "--table", &table, query]);
    let limited = run(&["sql", "--format", "csv", "--memory-limit", "32", "--table", &table, query]);
    assert_eq!(limited.stdout, free.stdout);
    assert_eq!(String::from_utf8_lossy(&free.stdout), "groups,rows\n297900,600000\n");
    let explain = run(&["sql", "--format", "csv", "--memory-limit", "32", "--table", &table, &format!("EXPLAIN ANALYZE {query}")]);
    let plan = String::from_utf8_lossy(&explain.stdout);
    let spills: u64 = plan
        .split("spill_count=")
        .skip(1)
        .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(spills > 0, "the aggregation spilled: {plan}");
}
