#!/usr/bin/env bash
# A Ballista cluster against one process: `score` LeD+PoD and an `sql` GROUP BY on a generated
# corpus, locally and through a loopback cluster of one scheduler and two executors (separate
# processes of a `--features cluster` release build, each executor with one task slot per core,
# all sharing this machine), interleaved, the median of REPEAT runs each. The outputs must hold the same
# rows and values. Writes the "Cluster" section of BENCHMARKS.md.
#
#   scripts/bench_cluster.sh                      # 1M pairs
#   BENCH_SIZES=100000 scripts/bench_cluster.sh   # a quick run
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${BENCH_SIZES:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/cluster
REPEAT=${BENCH_REPEAT:-3}
mkdir -p "$DIR"
cargo build --release --quiet --features cluster --bin pairmetrics --example generate_corpus
BIN=target/release/pairmetrics
GEN=target/release/examples/generate_corpus
for n in $SIZES; do
    [ -f "$DIR/c$n/alignments.parquet" ] || "$GEN" "$n" "$DIR/c$n" >&2
done

source scripts/ports.sh
ports=($(free_ports 5))
pids=()
trap 'kill ${pids[@]} 2>/dev/null; wait 2>/dev/null' EXIT
"$BIN" cluster scheduler --bind 127.0.0.1:${ports[0]} > "$DIR/scheduler.log" 2>&1 &
pids+=($!)
wait_port "${ports[0]}"
for i in 0 1; do
    flight=${ports[$((1 + 2 * i))]} grpc=${ports[$((2 + 2 * i))]}
    "$BIN" cluster executor --scheduler 127.0.0.1:${ports[0]} --bind 127.0.0.1:$flight --grpc-port "$grpc" \
        --work-dir "$DIR/work$i" > "$DIR/executor$i.log" 2>&1 &
    pids+=($!)
    wait_port "$flight"
done
URL=df://127.0.0.1:${ports[0]}

# A GROUP BY over every pair: LeD and chrF summed as integers (micro-units), so that the
# answer does not depend on the order of the sums.
AGGREGATE="SELECT least(cardinality(src), 60) AS len, count(*) AS pairs,
    sum(CAST(round(led(src, tgt) * 1000000) AS BIGINT)) AS led_micro,
    sum(CAST(round(chrf(tgt, src) * 1000000) AS BIGINT)) AS chrf_micro
FROM p GROUP BY len ORDER BY len"
results=$DIR/results.tsv
: > "$results"
measure() {
    local n=$1 job=$2; shift 2
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/stdout" 2> "$DIR/stderr" || { cat "$DIR/stderr" >&2; exit 1; }
    read -r seconds kb user sys < "$DIR/time"
    printf '%s\t%s\t%s\t%s\n' "$n" "$job" "$seconds" "$kb" >> "$results"
    printf '%9s %-24s %8.2f s %8d MB (client)\n' "$n" "$job" "$seconds" $((kb / 1024)) >&2
}
for n in $SIZES; do
    c=$DIR/c$n
    rm -rf "$DIR"/work*/*
    for _ in $(seq "$REPEAT"); do
        rm -rf "$DIR/local.parquet" "$DIR/scored"
        measure "$n" "one process" "$BIN" score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
            --out "$DIR/local.parquet"
        measure "$n" "cluster (1+2 processes)" "$BIN" score --cluster "$URL" --pairs "$c/pairs.parquet" \
            --alignments "$c/alignments.parquet" --out "$DIR/scored"
        measure "$n" "sql one process" "$BIN" sql --format csv --table p="$c/pairs.parquet" "$AGGREGATE"
        cp "$DIR/stdout" "$DIR/aggregate-local.csv"
        measure "$n" "sql cluster" "$BIN" sql --cluster "$URL" --format csv --table p="$c/pairs.parquet" "$AGGREGATE"
        cmp "$DIR/aggregate-local.csv" "$DIR/stdout" || { echo "the cluster's aggregate differs from the local one" >&2; exit 1; }
    done
    # Identical output: every row and value, in pair_id order.
    for t in local.parquet scored; do
        "$BIN" sql --format json --table "s=$DIR/$t" "SELECT * FROM s ORDER BY pair_id" | md5sum > "$DIR/$t.md5"
    done
    cmp "$DIR/local.parquet.md5" "$DIR/scored.md5" || { echo "the cluster's output differs from the local one" >&2; exit 1; }
    # Shuffle files the executors keep (Ballista removes them only after a TTL), per run.
    printf '%s\tshuffle bytes\t%s\t0\n' "$n" "$(( $(find "$DIR"/work* -type f -printf '%s\n' | awk '{s += $1} END {printf "%d", s}') / REPEAT ))" >> "$results"
    printf '%s\tinput bytes\t%s\t0\n' "$n" "$(du -sbL "$c/pairs.parquet" "$c/alignments.parquet" | awk '{s += $1} END {printf "%d", s}')" >> "$results"
done

section=$DIR/section.md
python3 - "$results" "$(git rev-parse --short HEAD)" > "$section" <<'PY'
import statistics, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    n, job, seconds, kb = line.rstrip("\n").split("\t")
    runs[(int(n), job)].append(float(seconds))
print("<!-- cluster: written by scripts/bench_cluster.sh -->")
print("## Cluster\n")
print(f"`scripts/bench_cluster.sh` at {sys.argv[2]}: `score` LeD+PoD, and `sql` with a GROUP BY of LeD and chrF over every pair, in one process and")
print("through a Ballista cluster on loopback (1 scheduler and 2 executors, separate processes of the")
print("release build, all on this machine's 2 cores), interleaved, median of the runs (range in")
print("brackets). Outputs identical row for row (the GROUP BY's sums are of integers, micro-units).\n")
print("| job | pairs | one process | cluster | cluster / local |")
print("|---|---:|---:|---:|---:|")
sizes = sorted({n for n, _ in runs})
for n in sizes:
    for job, local, cluster in [("score", "one process", "cluster (1+2 processes)"), ("sql GROUP BY", "sql one process", "sql cluster")]:
        local, cluster = runs[(n, local)], runs[(n, cluster)]
        ml, mc = statistics.median(local), statistics.median(cluster)
        print(f"| {job} | {n:,} | {ml:.2f} s [{min(local):.2f}–{max(local):.2f}] | {mc:.2f} s [{min(cluster):.2f}–{max(cluster):.2f}] | {mc / ml:.2f}x |")
print()
for n in sizes:
    shuffle, inputs = runs[(n, "shuffle bytes")][0], runs[(n, "input bytes")][0]
    size = f"{shuffle / 1e6:,.0f} MB" if shuffle >= 1e6 else f"{shuffle / 1e3:,.1f} kB"
    print(f"Shuffle and result files the executors wrote per run at {n:,} pairs: {size} "
          f"({shuffle / n:,.2f} bytes a pair; the Parquet inputs are {inputs / 1e6:,.0f} MB).")
print("\n<!-- /cluster -->")
PY
python3 scripts/bench_section.py cluster "$section"
cat "$section" >&2
