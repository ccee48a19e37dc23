#!/usr/bin/env bash
# pairmetrics from Python: `pairmetrics.led` over a pyarrow table against the Rust `sql` figure
# (the same LeD in the CLI) and against the Python UDFs a user would otherwise write (DuckDB and
# Polars over Arrow batches, scripts/peers.py), on one generated corpus. Rewrites the "Python"
# section of BENCHMARKS.md.
#
#   scripts/bench_python.sh [PAIRS]      # default 1,000,000
#
# Builds the release wheel (about 25 minutes on 2 cores from cold) into a virtualenv under
# target/, and the release CLI. Corpora go to $BENCH_DIR (default /tmp/pm-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}
REPEAT=${BENCH_REPEAT:-3}
venv=target/python-bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt
"$venv/bin/maturin" build --quiet --release --manifest-path python/Cargo.toml \
    --interpreter "$venv/bin/python" --out target/wheels/release
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$(ls -t target/wheels/release/pairmetrics-*.whl | head -1)"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
c=$DIR/c$n
[ -f "$c/alignments.parquet" ] || target/release/examples/generate_corpus "$n" "$c" >&2
section=$DIR/python-section.md
"$venv/bin/python" scripts/bench_python.py "$c" target/release/pairmetrics "$REPEAT" "$(git rev-parse --short HEAD)" > "$section"
scripts/bench_section.py python "$section"
cat "$section"
