#!/usr/bin/env bash
# The PySpark path (docs/guide/data-lake.md): a Spark job whose mapInArrow calls the Python
# package's functions on each batch, against `pairmetrics sql` on the same pairs
# (scripts/bench_pyspark.py). Rewrites the "PySpark" section of BENCHMARKS.md.
#
#   scripts/bench_pyspark.sh [PAIRS]      # default 1,000,000
#
# Needs Java 17 or later for Spark. Builds the release wheel and the release CLI; installs
# pyspark and the wheel into target/lake-venv (LAKE_VENV names another). Corpora go to
# $BENCH_DIR (default /tmp/pm-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}
REPEAT=${BENCH_REPEAT:-3}
venv=${LAKE_VENV:-target/lake-venv}
command -v java > /dev/null || { echo "Spark needs Java 17 or later (Debian: apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pyspark==4.0.1 pyarrow==26.0.1 maturin==1.16.0
"$venv/bin/maturin" build --quiet --release --manifest-path python/Cargo.toml \
    --interpreter "$venv/bin/python" --out target/wheels/release
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$(ls -t target/wheels/release/pairmetrics-*.whl | head -1)"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
c=$DIR/c$n
[ -f "$c/alignments.parquet" ] || target/release/examples/generate_corpus "$n" "$c" >&2
section=$DIR/pyspark-section.md
"$venv/bin/python" scripts/bench_pyspark.py "$c" target/release/pairmetrics "$REPEAT" "$(git rev-parse --short HEAD)" > "$section"
python3 scripts/bench_section.py pyspark "$section"
cat "$section"
