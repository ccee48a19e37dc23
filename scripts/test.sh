#!/usr/bin/env bash
# The whole test suite, what CI runs (.ci/run): the Rust tests, then the Python package's.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
scripts/python/test.sh
