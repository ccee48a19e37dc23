#!/usr/bin/env bash
# A billion pairs in one run, through one process and through a loopback cluster, without 139 GB
# of disk: a table of PAIRS pairs carrying their alignment links (one table, so no join), its
# files hard-linked COPIES times under copy=00/, copy=01/, ... (Hive partitions, each copy a
# distinct file name). The copies share their disk blocks, so the page cache serves them: this
# measures CPU and memory, not storage.
#
# The job is LeD+PoD of every pair as an aggregate: the pairs, and the sums of LeD and PoD in
# integer micro-units (exact, so the answers compare byte for byte). It runs
#   once   over one copy (PAIRS pairs) in one process;
#   one    over every copy (PAIRS x COPIES) in one process;
#   cluster over every copy on a scheduler and 2 executors (2 task slots each) on loopback.
# Both billion runs must answer exactly COPIES times the single copy. Each run's wall time and
# peak memory (the process's, and each executor's VmHWM) go to BENCHMARKS.md "A billion pairs".
#
#   scripts/bench_billion.sh                             # 10,485,760 x 100 pairs (~70 min)
#   PAIRS=262144 COPIES=4 scripts/bench_billion.sh       # a quick try
#
# PAIRS (10485760), COPIES (100), DIR (/tmp/pm-bench/billion), RUNS ("once one cluster"; a
# run's line in DIR/results.tsv is replaced, the others kept, and the section made from all).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-10485760}
COPIES=${COPIES:-100}
DIR=${DIR:-/tmp/pm-bench/billion}
RUNS=${RUNS:-once one cluster}
mkdir -p "$DIR"
cargo build --release --quiet --features cluster --bin pairmetrics --example generate_corpus
BIN=target/release/pairmetrics
source scripts/ports.sh

corpus=$DIR/c$PAIRS
[ -f "$corpus/alignments.parquet" ] || target/release/examples/generate_corpus "$PAIRS" "$corpus" >&2
table=$DIR/linked$PAIRS.parquet
if [ ! -f "$table" ]; then
    "$BIN" sql --table p="$corpus/pairs.parquet" --table a="$corpus/alignments.parquet" \
        --out "$table" "SELECT p.pair_id, p.src, p.tgt, a.links FROM p JOIN a USING (pair_id)" > /dev/null
fi
lake=$DIR/lake$PAIRS-x$COPIES
if [ ! -d "$lake" ]; then
    rm -rf "$lake.partial"
    for copy in $(seq -f '%02g' 0 $((COPIES - 1))); do
        mkdir -p "$lake.partial/copy=$copy"
        ln "$table" "$lake.partial/copy=$copy/linked-$copy.parquet"
    done
    mv "$lake.partial" "$lake"
fi

query="SELECT count(*) AS pairs,
    sum(CAST(round(s['led'] * 1000000) AS BIGINT)) AS led_micro,
    sum(CAST(round(s['pod'] * 1000000) AS BIGINT)) AS pod_micro,
    count(s['pod']) AS with_pod
FROM (SELECT lepod(src, tgt, links) AS s FROM t)"

# One line per run, kept across invocations (RUNS=cluster runs again only the cluster).
results=$DIR/results.tsv
touch "$results"
executors=()
# run NAME PAIRS -- COMMAND...: times COMMAND, keeps its answer, and records its wall time, its
# peak resident memory and that of each running executor (VmHWM, kB).
run() {
    local name=$1 pairs=$2
    shift 3
    /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" > "$DIR/answer-$name" 2> "$DIR/$name.err" ||
        { cat "$DIR/$name.err" >&2; exit 1; }
    read -r seconds kb < "$DIR/time"
    sed -i "/^$name\t/d" "$results"
    local executor_kb
    executor_kb=$(for p in "${executors[@]}"; do awk '/VmHWM/ {print $2}' "/proc/$p/status"; done | paste -sd/)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$pairs" "$seconds" "$kb" "$executor_kb" >> "$results"
    printf '%-8s %12s pairs %9.1f s  peak %s kB  executors %s kB\n' "$name" "$pairs" "$seconds" "$kb" "${executor_kb:--}" >&2
}

pids=()
trap 'kill "${pids[@]}" 2> /dev/null || true' EXIT
for job in $RUNS; do
    case $job in
    once) run once "$PAIRS" -- "$BIN" sql --format csv --table t="$table" "$query" ;;
    one) run one $((PAIRS * COPIES)) -- "$BIN" sql --format csv --table t="$lake" "$query" ;;
    cluster)
        ports=($(free_ports 5))
        "$BIN" cluster scheduler --bind 127.0.0.1:${ports[0]} > "$DIR/scheduler.log" 2>&1 &
        pids+=($!)
        wait_port "${ports[0]}"
        for i in 0 1; do
            rm -rf "$DIR/work$i"
            "$BIN" cluster executor --scheduler 127.0.0.1:${ports[0]} --bind 127.0.0.1:${ports[$((1 + 2 * i))]} \
                --grpc-port ${ports[$((2 + 2 * i))]} --slots 2 --work-dir "$DIR/work$i" > "$DIR/executor$i.log" 2>&1 &
            pids+=($!)
            executors+=($!)
            wait_port "${ports[$((1 + 2 * i))]}"
        done
        url=df://127.0.0.1:${ports[0]}
        "$BIN" sql --cluster "$url" --table t="$table" "SELECT count(*) FROM t WHERE pair_id < 10" > /dev/null
        run cluster $((PAIRS * COPIES)) -- "$BIN" sql --cluster "$url" --partitions 4 --format csv --table t="$lake" "$query"
        kill "${pids[@]}" 2> /dev/null || true
        wait 2> /dev/null || true
        pids=() executors=()
        ;;
    esac
done

# Every billion-pair answer is exactly COPIES times the single copy's.
if [ -f "$DIR/answer-once" ]; then
    for name in one cluster; do
        [ -f "$DIR/answer-$name" ] || continue
        python3 - "$DIR/answer-once" "$DIR/answer-$name" "$COPIES" << 'EOF'
import csv, sys
once, many, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
one = next(csv.DictReader(open(once)))
got = next(csv.DictReader(open(many)))
want = {k: str(int(v) * copies) for k, v in one.items()}
if got != want:
    sys.exit(f"{many}: {got}, not {copies} x {one}")
print(f"{many}: {got} = {copies} x the single copy", file=sys.stderr)
EOF
    done
fi
section=$DIR/section.md
python3 scripts/billion_section.py "$results" "$(git rev-parse --short HEAD)" "$COPIES" "$DIR/answer-once" > "$section"
python3 scripts/bench_section.py billion "$section"
cat "$section"
