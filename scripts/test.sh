#!/usr/bin/env bash
# The whole test suite, what CI runs (.ci/run): the Rust tests, the Python package's, then the
# Ballista cluster tests (the `cluster` feature: a second build of DataFusion with Ballista's
# features, about 15 minutes on 2 cores; SKIP_CLUSTER=1 leaves them out).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
scripts/python/test.sh
if [ "${SKIP_CLUSTER:-0}" != 1 ]; then
    cargo test --locked --features cluster --test main cluster::
fi
