#!/usr/bin/env bash
# pairmetrics from PySpark: `mapInArrow` jobs that call the Python package, one on the batches
# Spark reads, one on the files each task names, against the CLI's `sql --out` doing the same
# job (LeD and PoD of every pair, written to Parquet) on one generated corpus; runs interleaved,
# outputs checked equal (scripts/bench_spark.py). Rewrites the "Spark" section of BENCHMARKS.md.
#
#   scripts/bench_spark.sh [PAIRS]      # default 1,000,000
#
# Needs Java 17 or later (Debian: apt-get install openjdk-17-jre-headless). Installs pinned
# pyspark, pyarrow, pandas (PySpark asks for it even where no pandas runs) and maturin into
# target/spark-venv (SPARK_VENV names another), builds the release wheel into it (about 25
# minutes on 2 cores from cold) and the release CLI. Corpora go to $BENCH_DIR (default
# /tmp/pm-bench). BENCH_REPEAT interleaved runs of each (default 3), after one untimed run of each.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}
REPEAT=${BENCH_REPEAT:-3}
venv=${SPARK_VENV:-target/spark-venv}
command -v java > /dev/null || { echo "Spark needs Java 17 or later (Debian: apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pyspark==4.0.1 pyarrow==26.0.1 pandas==2.3.3 maturin==1.16.0
"$venv/bin/maturin" build --quiet --release --manifest-path python/Cargo.toml \
    --interpreter "$venv/bin/python" --out target/wheels/release
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$(ls -t target/wheels/release/pairmetrics-*.whl | head -1)"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
c=$DIR/c$n
[ -f "$c/alignments.parquet" ] || target/release/examples/generate_corpus "$n" "$c" >&2
# The corpus as a lake keeps it: pairs/ and alignments/, a file per row group in each.
work=$DIR/spark$n
if [ ! -d "$work/alignments" ]; then
    rm -rf "$work.tmp" && mkdir -p "$work.tmp/pairs" "$work.tmp/alignments"
    "$venv/bin/python" - "$c" "$work.tmp" <<'PY'
import sys
import pyarrow.parquet as pq
corpus, out = sys.argv[1:]
for name, columns in (("pairs", ["pair_id", "src", "tgt"]), ("alignments", ["pair_id", "links"])):
    table = pq.ParquetFile(f"{corpus}/{name}.parquet")
    for group in range(table.metadata.num_row_groups):
        pq.write_table(table.read_row_group(group, columns=columns), f"{out}/{name}/part-{group:05d}.parquet", compression="zstd")
PY
    rm -rf "$work" && mv "$work.tmp" "$work"
fi
section=$work/section.md
PYSPARK_PYTHON="$venv/bin/python" "$venv/bin/python" scripts/bench_spark.py \
    "$work" target/release/pairmetrics "$REPEAT" "$(git rev-parse --short HEAD)" > "$section"
scripts/bench_section.py spark "$section"
cat "$section"
