#!/usr/bin/env bash
# `pairmetrics report` over a generated corpus of ROWS pairs (default 10M), scored with LeD, PoD
# and DERP: the wall time, peak RSS and the page's size, beside the time of the scan alone and
# of score itself. Rewrites the "Report" section of BENCHMARKS.md.
#
#   scripts/bench_report.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/report
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
BIN=$PWD/target/release/pairmetrics
c=$DIR/c$rows
if [ ! -f "$c/arcs.parquet" ]; then
    rm -rf "$c"
    target/release/examples/generate_corpus "$rows" "$c" >&2
fi
rows_table=()
measure() {
    local job=$1; shift
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
    read -r wall kb user sys < "$DIR/time"
    rows_table+=("| $job | $wall s | $(awk "BEGIN { printf \"%.2f\", $user + $sys }") s | $((kb / 1024)) MB |")
    echo "$job: $wall s, $((kb / 1024)) MB" >&2
}
measure "score (led, pod, derp)" "$BIN" score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
    --arcs "$c/arcs.parquet" --out "$DIR/scored.parquet"
measure "scan of the scores (\`count\`, \`min\`, \`max\` of led, pod, derp)" "$BIN" sql --table s="$DIR/scored.parquet" \
    "SELECT count(led), min(led), max(led), count(pod), min(pod), max(pod), count(derp), min(derp), max(derp) FROM s"
measure "report (5 pairs per list)" "$BIN" report "$DIR/scored.parquet" --out "$DIR/report.html"
bytes=$(stat -c %s "$DIR/report.html")

section=$DIR/section.md
{
    echo "<!-- report: made by scripts/bench_report.sh -->"
    echo "## Report"
    echo
    echo "\`pairmetrics report\` over $rows generated pairs scored with LeD, PoD and DERP, pairmetrics"
    echo "$(git rev-parse --short HEAD), 2 cores. The page: $bytes bytes (three histograms, two"
    echo "densities, 15 pairs drawn with their DERP trees). Its aggregates (the bootstrap of each mean,"
    echo "the binned counts) stream: the memory does not grow with the table."
    echo
    echo "| job | wall | CPU | peak RSS |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /report -->"
} > "$section"
python3 scripts/bench_section.py report "$section"
echo "wrote the Report section of BENCHMARKS.md ($bytes-byte page)" >&2
