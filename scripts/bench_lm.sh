#!/usr/bin/env bash
# Language-model scoring against KenLM from Python (scripts/bench_lm.py does the measuring):
# writes the "Language models" section of BENCHMARKS.md.
#
#   scripts/bench_lm.sh                                  # 300,000 sentences, models on 100,000 (release build)
#   BENCH_SENTENCES=30000 BENCH_LM_SENTENCES=10000 scripts/bench_lm.sh   # a quick run
#
# Needs `pip install kenlm pyarrow` (kenlm compiles from source: a C++ compiler, about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_SENTENCES:-300000}
LM_N=${BENCH_LM_SENTENCES:-100000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/lm
REPEAT=${BENCH_REPEAT:-3}
python3 -c "import kenlm, pyarrow" 2>/dev/null || { echo "bench_lm.sh needs: pip install kenlm pyarrow" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin pairmetrics --example generate_corpus
    BIN=target/release/pairmetrics
fi
GEN=$(dirname "$BIN")/examples/generate_corpus
mkdir -p "$DIR"
[ -f "$DIR/c$N/pairs.parquet" ] || "$GEN" "$N" "$DIR/c$N" >&2
python3 scripts/bench_lm.py "$BIN" "$DIR/c$N" "$DIR" "$N" "$LM_N" "$REPEAT" > "$DIR/section.md"
cat "$DIR/section.md"
python3 scripts/bench_section.py lm "$DIR/section.md"
