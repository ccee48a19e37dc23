#!/usr/bin/env python3
"""The measurements of scripts/bench_spark.sh, printed as the "Spark" section of BENCHMARKS.md.

    bench_spark.py DATASET_DIR PAIRMETRICS_BIN REPEAT COMMIT

DATASET_DIR holds pairmetrics' layout as a lake keeps it: `pairs/` (pair_id, src, tgt) and
`alignments/` (pair_id, links), the same pairs in files of the same names. One job, three ways:
LeD and PoD of every pair, written with pair_id to Parquet (zstd).
- the CLI: `pairmetrics score --metrics lepod` on both datasets, process start included (it
  also copies the pairs' columns into its output, as `score` does);
- PySpark, the DataFrame way: Spark reads and joins both datasets, `mapInArrow` hands each batch
  to `pairmetrics.lepod` on Spark's Python workers, Spark writes;
- PySpark, the files way: `mapInArrow` over the names of the files, each task calling
  `pairmetrics.score` on its pairs and alignments files (read by pairmetrics), Spark writes.
The SparkSession is made once, before the runs (a Spark user has one), and its start is reported
on its own. After one untimed run of each, the runs are interleaved; the median of each is
compared. The outputs are checked equal (every pair's led and pod bit for bit).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

data, binary, repeat, commit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cores = os.cpu_count()
parts = sorted(os.listdir(f"{data}/pairs"))
rows = sum(pq.ParquetFile(f"{data}/pairs/{p}").metadata.num_rows for p in parts)
outs = {job: f"{data}/out-{job}" for job in ("cli", "dataframe", "files")}

SCHEMA = "pair_id long, led double, pod double"


def lepod_batches(batches):
    """The DataFrame way's task: the package's lepod on every Arrow batch Spark hands over."""
    import pairmetrics

    for batch in batches:
        s = pairmetrics.lepod(batch.column("src"), batch.column("tgt"), batch.column("links"))
        yield pa.RecordBatch.from_arrays([batch.column("pair_id"), s.field("led"), s.field("pod")], names=["pair_id", "led", "pod"])


def score_files(batches):
    """The files way's task: each row names a pairs file and its alignments file."""
    import pairmetrics

    for batch in batches:
        for pairs, alignments in zip(batch.column("pairs").to_pylist(), batch.column("alignments").to_pylist()):
            scored = pairmetrics.score(pairs, alignments, metrics=["lepod"])
            yield from scored.select(["pair_id", "led", "pod"]).to_batches()


def timed(out, job):
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    job(out)
    return time.perf_counter() - start


def cli(out):
    args = [binary, "score", "--metrics", "lepod", "--pairs", f"{data}/pairs", "--alignments", f"{data}/alignments", "--out", f"{out}/"]
    subprocess.run(args, check=True, capture_output=True)


def dataframe(out):
    pairs = spark.read.parquet(f"{data}/pairs").join(spark.read.parquet(f"{data}/alignments"), "pair_id")
    pairs.mapInArrow(lepod_batches, SCHEMA).write.parquet(out)


def files(out):
    names = [(f"{data}/pairs/{p}", f"{data}/alignments/{p}") for p in parts]
    tasks = spark.createDataFrame(spark.sparkContext.parallelize(names, len(names)), "pairs string, alignments string")
    tasks.mapInArrow(score_files, SCHEMA).write.parquet(out)


def scores(out):
    table = pq.read_table(out, columns=["pair_id", "led", "pod"]).sort_by("pair_id")
    return [table.column(c) for c in ("pair_id", "led", "pod")]


def bits(column):
    """A float column's bit patterns, NULL as NaN's."""
    return pc.fill_null(column, float("nan")).to_numpy().view("u8")


start = time.perf_counter()
from pyspark.sql import SparkSession  # noqa: E402 (its import is part of the session's start)

spark = (
    SparkSession.builder.master(f"local[{cores}]")
    .config("spark.driver.memory", "4g")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.parquet.compression.codec", "zstd")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
session_seconds = time.perf_counter() - start

jobs = {"cli": cli, "dataframe": dataframe, "files": files}
# One untimed run of each first: a Spark user's session has its JVM warm and its Python
# workers started; the page cache is warm for every job.
for job, run in jobs.items():
    timed(outs[job], run)
times = {job: [] for job in jobs}
for _ in range(repeat):
    for job, run in jobs.items():
        times[job].append(timed(outs[job], run))
spark.stop()

want = scores(outs["cli"])
for job in ("dataframe", "files"):
    got = scores(outs[job])
    assert got[0].equals(want[0]), f"{job}: other pairs than the CLI's"
    for name, a, b in zip(("led", "pod"), want[1:], got[1:]):
        assert a.null_count == b.null_count and (bits(a) == bits(b)).all(), f"{job}: {name} differs from the CLI's"

median = {job: statistics.median(runs) for job, runs in times.items()}
cli_m = median["cli"]


def row(job, what):
    runs = times[job]
    return f"| {what} | {median[job]:.2f} [{min(runs):.2f}-{max(runs):.2f}] | {rows / median[job]:,.0f} | {100 * cli_m / median[job]:.0f} % |"


print("<!-- spark: made by scripts/bench_spark.sh -->")
print("## Spark")
print()
print(f"At {commit}, {cores} cores, release (CLI and wheel), {rows:,} generated pairs as a lake keeps them: `pairs/` and")
print(f"`alignments/`, {len(parts)} Parquet files each. The job: LeD and PoD of every pair, written with pair_id to Parquet")
print(f"(zstd). Median of {repeat} runs, interleaved, after an untimed one of each (range in brackets); PySpark 4.0.1 in")
print(f"`local[{cores}]`, its session started once before ({session_seconds:.1f} s, not included). The three outputs are equal")
print("(checked: every pair's led and pod, bit for bit).")
print()
print("| job | seconds | pairs/s | of the CLI's pairs/s |")
print("|---|---|---|---|")
print(row("cli", "`pairmetrics score --metrics lepod` (process start included; it also writes the pairs' columns)"))
print(row("dataframe", "PySpark, the DataFrame way: Spark reads and joins, `mapInArrow` calls `pairmetrics.lepod` on each batch"))
print(row("files", "PySpark, the files way: `mapInArrow` over the file names, each task calling `pairmetrics.score` on its two files"))
print("<!-- /spark -->")
