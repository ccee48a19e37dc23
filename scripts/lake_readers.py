#!/usr/bin/env python3
"""Read every output of scripts/lake_readers.sh with Spark, DuckDB and Polars and compare each
value with what pyarrow reads from the same files.

    lake_readers.py MANIFEST COMMIT > section.md

MANIFEST: lines `name<TAB>kind<TAB>path<TAB>what`, kind one of
- file: one Parquet file;
- dataset: a pairmetrics dataset directory (Hive partitions, part files, `_SUCCESS`), read as
  a directory, as each engine reads a directory of Parquet;
- delta: a Delta table. Polars reads it natively (`read_delta`, through the deltalake package);
  Spark and DuckDB have no Delta reader without a download (Spark's delta-spark jars come from
  Maven, DuckDB's delta extension from its own site), so they read the Parquet files the log's
  latest version lists, which is what their Delta readers would read.

pyarrow is the reference: it is the Arrow implementation the files were written for. Values are
compared exactly, row for row as multisets (engines do not promise file order): floats bit for
bit (NaN equal to NaN), unsigned 64-bit integers by value (Spark reads them as DECIMAL(20,0)),
binary as bytes, structs by field name, lists in order. Partition columns are read as strings
by every reader, as pairmetrics reads them (Spark's and Polars' type inference off), so `03`
stays `03` (Polars is given a hive schema of strings: it infers numbers and booleans).

Prints a Markdown section: a row per output with each reader's verdict, then the type each
reader gives every Arrow type the outputs hold. Exits 1 when any reader fails or differs.
"""

import collections
import decimal
import math
import os
import struct
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from deltalake import DeltaTable

READERS = ("Spark", "DuckDB", "Polars")


def canon(value):
    """A value as a hashable, exactly comparable Python value, whatever reader made it."""
    if value is None:
        return None
    if hasattr(value, "asDict"):  # a Spark Row (a struct)
        value = value.asDict(recursive=False)
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return ("float", struct.pack("<d", value) if not math.isnan(value) else b"nan")
    if isinstance(value, decimal.Decimal):
        if value == value.to_integral_value():
            return int(value)
        return ("decimal", str(value))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(value))
    if isinstance(value, dict):
        return ("struct", tuple(sorted((k, canon(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(canon(v) for v in value))
    if hasattr(value, "tolist"):  # a numpy array or scalar
        return canon(value.tolist())
    return value


def rows_of(columns, records, partition_columns):
    """Canonical rows: (column, value) pairs sorted by column name; partition values as text."""
    out = []
    for record in records:
        row = []
        for name, value in zip(columns, record):
            if name in partition_columns and value is not None:
                value = str(value)
            row.append((name, canon(value)))
        out.append(tuple(sorted(row)))
    return out


def parquet_files(kind, path):
    """The data files of an output, as every reader but Polars' Delta reader is given them."""
    if kind == "file":
        return [path]
    if kind == "delta":
        return sorted(DeltaTable(path).file_uris())
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".parquet")]
    return found


def partition_columns_of(kind, path):
    if kind == "delta":
        return set(DeltaTable(path).metadata().partition_columns)
    if kind != "dataset":
        return set()
    names = set()
    for root, dirs, _ in os.walk(path):
        names |= {d.split("=", 1)[0] for d in dirs if "=" in d and not d.startswith((".", "_"))}
    return names


def read_reference(kind, path, partitions):
    if kind == "file":
        table = pq.read_table(path)
    elif kind == "dataset":
        schema = None
        if partitions:
            base = pq.read_schema(parquet_files(kind, path)[0])
            schema = pa.schema(list(base) + [pa.field(p, pa.string()) for p in sorted(partitions)])
        table = ds.dataset(path, format="parquet", partitioning="hive", schema=schema).to_table()
    else:
        table = DeltaTable(path).to_pyarrow_table()
    types = {field.name: str(field.type) for field in table.schema}
    return table.column_names, [tuple(row.values()) for row in table.to_pylist()], types


def read_spark(spark, kind, path, files):
    if kind == "dataset":
        frame = spark.read.parquet(path)
    else:
        frame = spark.read.parquet(*files)
    types = {field.name: field.dataType.simpleString() for field in frame.schema.fields}
    rows = frame.collect()
    return frame.columns, [tuple(row) for row in rows], types


def read_duckdb(kind, path, files):
    hive = "true" if kind == "dataset" else "false"
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    query = duckdb.sql(
        f"SELECT * FROM read_parquet({listed}, hive_partitioning = {hive}, hive_types_autocast = false)"
    )
    types = dict(zip(query.columns, (str(t) for t in query.types)))
    return query.columns, query.fetchall(), types


def read_polars(kind, path, files, partitions):
    if kind == "delta":
        frame = pl.read_delta(path)
    elif kind == "dataset":
        strings = {name: pl.String for name in sorted(partitions)}
        frame = pl.read_parquet(path, hive_partitioning=True, hive_schema=strings)
    else:
        frame = pl.read_parquet(path)
    types = {name: str(dtype) for name, dtype in frame.schema.items()}
    return frame.columns, [tuple(row) for row in frame.iter_rows()], types


def differences(expected, got):
    """None when the canonical row multisets are equal, else a short description."""
    if len(expected) != len(got):
        return f"{len(got)} rows, not {len(expected)}"
    want, have = collections.Counter(expected), collections.Counter(got)
    if want == have:
        return None
    missing = next(iter(want - have))
    extra = next(iter(have - want))
    for (name, value), (other_name, other) in zip(missing, extra):
        if name != other_name:
            return f"columns differ: {name} / {other_name}"
        if value != other:
            return f"column {name}: {str(other)[:80]} where pyarrow reads {str(value)[:80]}"
    return "rows differ"


def main():
    manifest, commit = sys.argv[1], sys.argv[2]
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("pairmetrics-lake-readers")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    outputs = [line.rstrip("\n").split("\t") for line in open(manifest) if line.strip()]
    verdicts = []
    type_map = collections.OrderedDict()
    failed = False
    for name, kind, path, what in outputs:
        partitions = partition_columns_of(kind, path)
        files = parquet_files(kind, path)
        columns, records, ref_types = read_reference(kind, path, partitions)
        expected = rows_of(columns, records, partitions)
        row = [name, what, f"{len(expected):,}"]
        readers = {
            "Spark": lambda: read_spark(spark, kind, path, files),
            "DuckDB": lambda: read_duckdb(kind, path, files),
            "Polars": lambda: read_polars(kind, path, files, partitions),
        }
        for reader in READERS:
            try:
                got_columns, got_records, types = readers[reader]()
                problem = differences(expected, rows_of(got_columns, got_records, partitions))
            except Exception as error:  # a reader refusing the file is a result, not a crash
                problem = f"error: {type(error).__name__}: {str(error).splitlines()[0][:160]}"
                types = {}
            if problem is None:
                row.append("equal")
            else:
                row.append(problem.replace("|", "\\|"))
                failed = True
            for column, ref_type in ref_types.items():
                if column in partitions:
                    continue
                seen = type_map.setdefault(ref_type, {r: set() for r in READERS})
                if column in types:
                    seen[reader].add(types[column])
        verdicts.append(row)

    print("<!-- lake: written by scripts/lake_readers.sh -->")
    print("### What Spark, DuckDB and Polars read\n")
    print(
        f"Every kind of table pairmetrics writes, made from the bundled data by "
        f"`scripts/lake_readers.sh` at {commit} and read by Spark {spark.version} (local mode, "
        f"Java {spark.sparkContext._jvm.java.lang.System.getProperty('java.version')}), DuckDB "
        f"{duckdb.__version__} and Polars {pl.__version__}. Each value is compared with what "
        f"pyarrow {pa.__version__} reads from the same files: \"equal\" means every row and "
        f"value, floats bit for bit.\n"
    )
    print("| output | made by | rows | " + " | ".join(READERS) + " |")
    print("|---|---|---:|" + "---|" * len(READERS))
    for row in verdicts:
        print("| " + " | ".join(row) + " |")
    print("\nThe type each reader gives each Arrow type in those tables:\n")
    print("| Arrow (pyarrow) | " + " | ".join(READERS) + " |")
    print("|---|" + "---|" * len(READERS))
    for arrow_type, seen in sorted(type_map.items()):
        cells = [", ".join(f"`{t}`" for t in sorted(seen[r])) or "—" for r in READERS]
        print(f"| `{arrow_type}` | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    print("\n<!-- /lake -->")
    spark.stop()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
