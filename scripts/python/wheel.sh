#!/usr/bin/env bash
# Build the release wheel of the Python package into target/wheels/ (one abi3 wheel for
# CPython >= 3.9 on this platform). Needs Rust and maturin (pip install 'maturin>=1.9,<2');
# about 25 minutes on 2 cores from cold, as DataFusion is built optimised.
set -euo pipefail
cd "$(dirname "$0")/../.."
maturin build --release --manifest-path python/Cargo.toml --out target/wheels "$@"
ls -l target/wheels/pairmetrics-*.whl
