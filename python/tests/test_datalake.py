"""Datasets other engines read: a Hive-partitioned result written by the CLI, read back with its
partition columns by DuckDB and Polars (and by pairmetrics itself)."""

import subprocess

import duckdb
import polars as pl
import pyarrow.parquet as pq

from conftest import DATA
from test_score import cli

SAMPLE = DATA / "europarl-sample"
QUERY = (
    "SELECT pair_id, src, tgt, led(src, tgt) AS led, pair_id % 3 AS bucket, "
    "CASE WHEN array_length(src) > 30 THEN 'long' ELSE 'short/or=odd' END AS length FROM p"
)


def test_a_hive_partitioned_result_reads_back_in_duckdb_and_polars(tmp_path):
    out = tmp_path / "scored"
    subprocess.run(
        [cli(), "sql", "--table", f"p={SAMPLE / 'pairs.parquet'}", "--out", str(out),
         "--partition-by", "bucket,length", "--max-rows-per-file", "300", QUERY],
        check=True, capture_output=True,
    )
    assert (out / "_SUCCESS").exists()
    assert (out / "bucket=2" / "length=short%2For%3Dodd").is_dir(), sorted(p.name for p in out.iterdir())
    # Every file has at most 300 rows and leaves the partition columns out.
    for part in out.rglob("*.parquet"):
        meta = pq.read_metadata(part)
        assert meta.num_rows <= 300
        assert {"bucket", "length"}.isdisjoint(meta.schema.names)

    want = pq.read_metadata(SAMPLE / "pairs.parquet").num_rows
    counts = duckdb.sql(
        f"SELECT bucket, length, count(*) AS n FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true) "
        "GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    assert sum(n for _, _, n in counts) == want == 3000
    assert {length for _, length, _ in counts} == {"long", "short/or=odd"}, "values unescaped"
    assert {int(bucket) for bucket, _, _ in counts} == {0, 1, 2}

    frame = pl.read_parquet(out, hive_partitioning=True)
    assert frame.height == 3000
    assert set(frame["length"].unique()) == {"long", "short/or=odd"}
    by_duckdb = duckdb.sql(
        f"SELECT pair_id, led, CAST(bucket AS BIGINT) AS bucket FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true) ORDER BY pair_id"
    ).pl()
    by_polars = frame.select("pair_id", "led", pl.col("bucket").cast(pl.Int64)).sort("pair_id")
    assert by_duckdb.equals(by_polars)

    # pairmetrics reads its own dataset with the partition columns as strings.
    shown = subprocess.run(
        [cli(), "sql", "--format", "csv", "--table", f"t={out}",
         "SELECT bucket, count(*) AS n FROM t GROUP BY bucket ORDER BY bucket"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    assert shown == ["bucket,n", "0,1000", "1,1000", "2,1000"]


def test_a_failed_dataset_leaves_nothing(tmp_path):
    out = tmp_path / "never"
    run = subprocess.run(
        [cli(), "sql", "--table", f"p={SAMPLE / 'pairs.parquet'}", "--out", str(out), "--partition-by", "bucket",
         "SELECT pair_id % 2 AS bucket, CAST(src_text AS INT) AS n FROM p"],
        capture_output=True, text=True,
    )
    assert run.returncode != 0
    assert not out.exists() and list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())
    run = subprocess.run(
        [cli(), "sql", "--table", f"p={SAMPLE / 'pairs.parquet'}", "--out", str(tmp_path / "x"), "--partition-by", "nope",
         "SELECT 1 AS a, 2 AS b"],
        capture_output=True, text=True,
    )
    assert "--partition-by nope: the result has no such column (it has a, b)" in run.stderr


def test_a_delta_table_written_appended_and_overwritten_reads_back_in_deltalake(tmp_path):
    from deltalake import DeltaTable

    table = tmp_path / "scores"
    score = [cli(), "score", "--pairs", str(SAMPLE / "pairs.parquet"), "--alignments", str(SAMPLE / "alignments.parquet"),
             "--out", f"delta:{table}"]
    subprocess.run(score, check=True, capture_output=True)
    again = subprocess.run(score, capture_output=True, text=True)
    assert again.returncode != 0 and "is already a Delta table (version 0); pass --mode append" in again.stderr
    subprocess.run(score + ["--mode", "append"], check=True, capture_output=True)

    delta = DeltaTable(str(table))
    assert delta.version() == 1
    rows = delta.to_pyarrow_table()
    assert rows.num_rows == 6000
    want = pq.read_table(SAMPLE / "pairs.parquet").num_rows * 2
    assert rows.num_rows == want
    commit = delta.history()[0]
    assert commit["pairmetrics.signature"].startswith("pairmetrics:"), commit
    assert commit["operationParameters"]["mode"] == "Append"

    # Overwrite with a query's result; the old versions stay readable (time travel).
    subprocess.run(
        [cli(), "sql", "--table", f"p={SAMPLE / 'pairs.parquet'}", "--out", f"delta:{table}", "--mode", "overwrite",
         "SELECT pair_id, led(src, tgt) AS led FROM p WHERE pair_id < 10"],
        check=True, capture_output=True,
    )
    delta = DeltaTable(str(table))
    assert delta.version() == 2 and delta.to_pyarrow_table().num_rows == 10
    assert DeltaTable(str(table), version=0).to_pyarrow_table().num_rows == 3000
    counted = subprocess.run(
        [cli(), "sql", "--format", "csv", "--table", f"now=delta:{table}", "--table", f"then=delta:{table}@1",
         "SELECT (SELECT count(*) FROM now) AS now, (SELECT count(*) FROM then) AS then"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    assert counted == ["now,then", "10,6000"]
