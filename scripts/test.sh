#!/usr/bin/env bash
# The whole test suite, what CI runs (.ci/run): the Rust tests (the Ballista cluster tests among
# them: `cluster` is a default feature, so DataFusion is built once for everything), then the
# Python package's tests, whose extension module reuses that build.
set -euo pipefail
cd "$(dirname "$0")/.."
# fastText's lid.176.ftz, which tests/lid.rs compares against fastText's own outputs (the
# repository does not carry it: CC BY-SA 3.0). Without it, those comparisons are skipped
# outside CI.
PAIRMETRICS_LID176=$(scripts/fetch_lid176.sh) || echo "lid.176.ftz not fetched" >&2
export PAIRMETRICS_LID176
cargo test --locked
scripts/python/test.sh
