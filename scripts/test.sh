#!/usr/bin/env bash
# The whole test suite, what CI runs (.ci/run): the Rust tests (the Ballista cluster tests among
# them: `cluster` is a default feature, so DataFusion is built once for everything), then the
# Python package's tests, whose extension module reuses that build.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
scripts/python/test.sh
