#!/usr/bin/env bash
# The end-to-end benchmark suite: pairmetrics against the scan floor and against the Python
# UDFs a user would otherwise write, on generated Europarl-like corpora. Writes BENCHMARKS.md.
#
#   scripts/bench.sh                      # 1M and 10M pairs (about 35 minutes on 2 cores)
#   BENCH_SIZES="100000" scripts/bench.sh # a quick run
#   BENCH_REPEAT=1 scripts/bench.sh       # each fast job once (default 3, median reported)
#
# `scan floor` is the join users write in `sql` (pairs JOIN alignments USING (pair_id)); files
# pairmetrics writes record that they are sorted by pair_id, so it is planned as a merge join.
# `decode floor` decodes the same columns with no join at all: the physical limit.
#
# Needs: a Rust toolchain, Python 3 with `pip install duckdb numpy polars pyarrow`, GNU time, bc.
# Corpora go to $BENCH_DIR (default /tmp/pm-bench) and are generated afresh (about 80 s for both
# sizes), so they are always written by the current writer; BENCH_REUSE_CORPORA=1 keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${BENCH_SIZES:-"1000000 10000000"}
DIR=${BENCH_DIR:-/tmp/pm-bench}
ORACLE_PAIRS=${ORACLE_PAIRS:-5000}
REPEAT=${BENCH_REPEAT:-3}
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
BIN=target/release/pairmetrics
GEN=target/release/examples/generate_corpus
RESULTS=$DIR/results.tsv
printf 'pairs\tjob\tseconds\tpeak_kb\tcpu_seconds\n' > "$RESULTS"

# measure PAIRS JOB COMMAND...: wall time, peak RSS and CPU time (user + system) of one
# command, appended to RESULTS.
measure() {
    local pairs=$1 job=$2; shift 2
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/stdout" 2> "$DIR/stderr" || {
        echo "failed: $job" >&2; cat "$DIR/stderr" >&2; exit 1; }
    read -r seconds kb user sys < "$DIR/time"
    printf '%s\t%s\t%s\t%s\t%s\n' "$pairs" "$job" "$seconds" "$kb" "$(echo "$user + $sys" | bc)" >> "$RESULTS"
    printf '%10s pairs  %-28s %8.2f s %8d MB\n' "$pairs" "$job" "$seconds" $((kb / 1024)) >&2
}

first=""
for n in $SIZES; do
    c=$DIR/c$n
    if [ "${BENCH_REUSE_CORPORA:-0}" != 1 ] || [ ! -f "$c/arcs.parquet" ]; then
        rm -rf "$c"
        "$GEN" "$n" "$c" >&2
    fi
    first=${first:-$n}
    tables=(--table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet")
    # The fast jobs run REPEAT times, interleaved, so that drift in the machine's speed falls on
    # all of them alike; the report gives the median and the range.
    for _ in $(seq "$REPEAT"); do
        # The physical floor: the same columns decoded with no join and no work, each table
        # scanned on its own (two scalar subqueries, summed).
        measure "$n" "decode floor" $BIN sql "${tables[@]}" \
            "SELECT (SELECT sum(cardinality(src) + cardinality(tgt)) FROM p) + (SELECT sum(cardinality(links)) FROM a)"
        measure "$n" "scan floor" $BIN sql "${tables[@]}" \
            "SELECT sum(cardinality(p.src) + cardinality(p.tgt) + cardinality(a.links)) FROM p JOIN a USING (pair_id)"
        measure "$n" "sql led" $BIN sql "${tables[@]}" \
            "SELECT sum(led(p.src, p.tgt, a.links)) FROM p JOIN a USING (pair_id)"
        measure "$n" "score led+pod" $BIN score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
            --out "$DIR/scored.parquet"
        measure "$n" "score led+pod zstd" $BIN score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
            --compression zstd --out "$DIR/scored.parquet"
    done
    if [ "$n" = "$first" ]; then
        # The files users most often have: pyarrow's defaults (row groups of up to 1Mi rows,
        # no page index), the same rows.
        python3 - "$c" <<'PY'
import sys, pyarrow.parquet as pq
c = sys.argv[1]
for name in ["pairs", "alignments"]:
    pq.write_table(pq.read_table(f"{c}/{name}.parquet"), f"{c}/pyarrow_{name}.parquet")
PY
        for _ in $(seq "$REPEAT"); do
            measure "$n" "decode floor, pyarrow file" $BIN sql --table "p=$c/pyarrow_pairs.parquet" --table "a=$c/pyarrow_alignments.parquet" \
                "SELECT (SELECT sum(cardinality(src) + cardinality(tgt)) FROM p) + (SELECT sum(cardinality(links)) FROM a)"
            measure "$n" "score led+pod, pyarrow file" $BIN score --pairs "$c/pyarrow_pairs.parquet" \
                --alignments "$c/pyarrow_alignments.parquet" --out "$DIR/scored.parquet"
        done
    fi
    rm -f "$DIR/scored.parquet"
    measure "$n" "score led+pod+derp" $BIN score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
        --arcs "$c/arcs.parquet" --out "$DIR/scored_derp$n.parquet"
done

# Peers, on the first size: the same LeD as a vectorised (Arrow) Python UDF, and DERP in Python.
c=$DIR/c$first
for peer in duckdb-led polars-led; do
    measure "$first" "$peer" python3 scripts/peers.py "$peer" "$c"
    cp "$DIR/stdout" "$DIR/$peer.out"
done
measure "$ORACLE_PAIRS" "python derp" python3 scripts/peers.py derp "$c" "$ORACLE_PAIRS" "$DIR/scored_derp$first.parquet"
cp "$DIR/stdout" "$DIR/derp.out"
python3 - "$c" "$DIR" <<'PY' >&2
import sys
d, out = sys.argv[1], sys.argv[2]
seconds, n, worst, disagree = open(f"{out}/derp.out").read().split()
assert int(disagree) == 0 and float(worst) <= 1e-12, f"DERP oracle disagrees: {disagree} NULLs differ, worst {worst}"
print(f"python derp agrees with pairmetrics on {n} pairs (largest difference {worst})")
PY
$BIN sql --format csv --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" \
    "SELECT sum(led(p.src, p.tgt, a.links)) FROM p JOIN a USING (pair_id)" | tail -1 > "$DIR/ours-led.out"
# The report replaces the part above the first section other scripts write (<!-- name: ... -->);
# those sections are kept as they are.
{
    python3 scripts/bench_report.py "$RESULTS" "$DIR"
    echo
    [ -f BENCHMARKS.md ] && sed -n '/^<!-- [a-z-]*:/,$p' BENCHMARKS.md
} > "$DIR/BENCHMARKS.md"
mv "$DIR/BENCHMARKS.md" BENCHMARKS.md
echo "wrote BENCHMARKS.md" >&2
# The aligner section (METEOR_CHECKOUT: a cmu-mtlab/meteor checkout, to time its jar code too).
scripts/bench_align.sh ${METEOR_CHECKOUT:-}
scripts/bench_significance.sh
