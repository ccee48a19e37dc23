#!/usr/bin/env bash
# Build the Python package (a debug wheel: tests need no release build) into a virtualenv
# under target/ and run its pytest suite. Needs python3 (>= 3.9) with venv and pip, and PyPI.
# The extension module reuses the DataFusion that `cargo test` built (the same features), so
# only pyo3, datafusion-ffi and the module itself are compiled here.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt
rm -rf target/wheels/debug
"$venv/bin/maturin" build --quiet --profile dev --manifest-path python/Cargo.toml \
    --interpreter "$venv/bin/python" --out target/wheels/debug
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/debug/pairmetrics-*.whl
# The CLI that `score`'s test compares with: the debug binary `cargo test` built.
export PAIRMETRICS_BIN="${PAIRMETRICS_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/pairmetrics}"
# From the repository root, so `import pairmetrics` finds the installed wheel, not python/.
# (`python -m`, not the venv's scripts: they name the path the venv was made at.)
"$venv/bin/python" -m pytest -q python/tests "$@"
