#!/usr/bin/env python3
"""The PySpark path against the CLI: LeD of every pair of a corpus, written to Parquet, by
`pairmetrics sql` and by a Spark job whose `mapInArrow` calls the Python package's `led` on
each Arrow batch. Prints the "PySpark" section of BENCHMARKS.md.

    bench_pyspark.py CORPUS_DIR PAIRMETRICS_BIN REPEAT COMMIT

Spark runs in local mode on every core (`local[*]`); its session is started before the timing
(a cluster keeps one), and each timed run is the whole job: reading the pairs, the Python
workers' `led`, writing Parquet. The two outputs must hold the same values.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pairmetrics
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

corpus, binary, repeat, commit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
pairs = os.path.join(corpus, "pairs.parquet")
rows = pq.ParquetFile(pairs).metadata.num_rows
work = tempfile.mkdtemp(prefix="pm-pyspark-")


def led_batches(batches):
    """mapInArrow's function: each batch of pairs to its pair_ids and LeD."""
    for batch in batches:
        yield pa.RecordBatch.from_arrays(
            [batch.column("pair_id"), pairmetrics.led(batch.column("src"), batch.column("tgt"))],
            names=["pair_id", "led"],
        )


spark = (
    SparkSession.builder.master("local[*]")
    .appName("pairmetrics-mapInArrow")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.execution.arrow.maxRecordsPerBatch", "8192")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")


def run_spark():
    out = os.path.join(work, "spark")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    (
        spark.read.parquet(pairs)
        .select("pair_id", "src", "tgt")
        .mapInArrow(led_batches, "pair_id long, led double")
        .write.parquet(out)
    )
    return time.perf_counter() - start, out


def run_cli():
    out = os.path.join(work, "cli.parquet")
    if os.path.exists(out):
        os.remove(out)
    start = time.perf_counter()
    subprocess.run(
        [binary, "sql", "--table", f"p={pairs}", "--out", out, "SELECT pair_id, led(src, tgt) AS led FROM p"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start, out


times = {"pairmetrics sql": [], "PySpark mapInArrow": []}
for _ in range(repeat):  # interleaved
    seconds, cli_out = run_cli()
    times["pairmetrics sql"].append(seconds)
    seconds, spark_out = run_spark()
    times["PySpark mapInArrow"].append(seconds)

cli = pq.read_table(cli_out).sort_by("pair_id")
via_spark = pq.read_table(spark_out).sort_by("pair_id")
assert cli.num_rows == via_spark.num_rows == rows, (cli.num_rows, via_spark.num_rows, rows)
assert cli.column("pair_id").equals(via_spark.column("pair_id"))
assert cli.column("led").to_pylist() == via_spark.column("led").to_pylist(), "LeD differs"
shutil.rmtree(work)

cli_median = statistics.median(times["pairmetrics sql"])
print("<!-- pyspark: written by scripts/bench_pyspark.sh -->")
print("## PySpark\n")
print(
    f"`scripts/bench_pyspark.sh` at {commit}: LeD of {rows:,} generated pairs written to Parquet, by "
    f"`pairmetrics sql` (release) and by a Spark {spark.version} job (local mode, every core) whose "
    f"`mapInArrow` calls the Python package's `pairmetrics.led` on each Arrow batch (release "
    f"wheel). The Spark session is started before the timing; the job includes reading, the "
    f"Python workers and writing. Median of {repeat} interleaved runs (range); the two outputs "
    f"hold the same LeD for every pair (checked).\n"
)
print("| path | wall | pairs/s | of the CLI's pairs/s |")
print("|---|---:|---:|---:|")
for path, runs in times.items():
    median = statistics.median(runs)
    print(
        f"| {path} | {median:.2f} s [{min(runs):.2f}–{max(runs):.2f}] | {rows / median:,.0f} | "
        f"{cli_median / median * 100:.0f} % |"
    )
print("\n<!-- /pyspark -->")
spark.stop()
