#!/usr/bin/env bash
# Run every cargo-fuzz target (fuzz/fuzz_targets/) for DURATION seconds each, JOBS at a time,
# starting from fuzz/seeds/TARGET; print each target's executions and whether it crashed.
#
#   cargo install cargo-fuzz        # once; works on stable through RUSTC_BOOTSTRAP=1
#   scripts/fuzz.sh [DURATION]      # default 600 s per target, JOBS=2
#
# A crash leaves its input in fuzz/artifacts/TARGET/ (replay: cargo fuzz run TARGET FILE).
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
export DURATION=${1:-600} RUSTC_BOOTSTRAP=1
JOBS=${JOBS:-2}
cargo fuzz build -O || exit 1
mkdir -p logs
run_one() {
    local t=$1 started runs status
    mkdir -p "corpus/$t"
    cargo fuzz build -O "$t" > /dev/null 2>&1
    started=$(date +%s)
    cargo fuzz run -O "$t" "corpus/$t" "seeds/$t" -- -max_total_time="$DURATION" -print_final_stats=1 \
        > "logs/$t.log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$')
    echo "$t: ${runs:-?} executions in $(( $(date +%s) - started )) s, $([ $status -eq 0 ] && echo 'no crash' || echo "CRASH (exit $status, see fuzz/logs/$t.log)")"
}
export -f run_one
cargo fuzz list | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
