#!/usr/bin/env bash
# DERP against LePoD, side by side in one run: `score` with and without parses and `derp` in
# `sql` (pairs JOIN alignments JOIN arcs), on generated Europarl-shaped corpora, and the DERP
# kernel's criterion benches (30 tokens; the worst 1,000-token pairs). Rewrites the "DERP"
# section of BENCHMARKS.md.
#
#   scripts/bench_derp.sh                       # 1M and 10M pairs (about 10 minutes on 2 cores)
#   BENCH_SIZES=100000 scripts/bench_derp.sh    # a quick run
#   BEFORE_REV=fb371f9 scripts/bench_derp.sh    # also that commit, in the same run
#
# BEFORE_REV, when given, is an older commit (the kernel when issue 46 was filed was fb371f9's)
# measured in the same run on the same files: its `pairmetrics` and its kernel benches are built
# in a git worktree under target/ that shares target/'s dependencies (only the crate itself is
# compiled again), its `score` output must have the same derp and derp_problem columns, row by
# row, and its kernel benches take turns with ours, twice, on the same generated pairs.
# Needs: a Rust toolchain, GNU time, bc.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${BENCH_SIZES:-"1000000 10000000"}
DIR=${BENCH_DIR:-/tmp/pm-bench}/derp
REPEAT=${BENCH_REPEAT:-3}
mkdir -p "$DIR"
BEFORE=
if [ -n "${BEFORE_REV:-}" ]; then
    before_tree=$PWD/target/before-$BEFORE_REV
    [ -d "$before_tree" ] || git worktree add --detach "$before_tree" "$BEFORE_REV" >&2
    # Built first: it shares target/release, whose uplifted `pairmetrics` ours then replaces.
    (cd "$before_tree" && CARGO_TARGET_DIR=$OLDPWD/target cargo build --release --quiet --bin pairmetrics)
    BEFORE=$DIR/pairmetrics-$BEFORE_REV
    cp target/release/pairmetrics "$BEFORE"
fi
cargo build --release --quiet --bin pairmetrics --example generate_corpus
BIN=$PWD/target/release/pairmetrics
rows=()

# measure PAIRS JOB COMMAND...: REPEAT runs; the median wall and CPU time (user + system), the
# largest peak RSS, appended to `rows` as "pairs job wall cpu peak_mb".
measure() {
    local pairs=$1 job=$2; shift 2
    local runs=()
    for _ in $(seq "$REPEAT"); do
        /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/stdout" 2> "$DIR/stderr" || {
            echo "failed: $job" >&2; cat "$DIR/stderr" >&2; exit 1; }
        read -r wall kb user sys < "$DIR/time"
        runs+=("$wall $(echo "$user + $sys" | bc) $kb")
        echo "$pairs pairs  $job: $wall s" >&2
    done
    rows+=("$pairs $job $(printf '%s\n' "${runs[@]}" | python3 -c '
import sys, statistics
runs = [list(map(float, l.split())) for l in sys.stdin]
print(statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), int(max(r[2] for r in runs) / 1024))')")
}

for n in $SIZES; do
    c=$DIR/c$n
    [ -f "$c/arcs.parquet" ] || target/release/examples/generate_corpus "$n" "$c" >&2
    inputs=(--pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet")
    measure "$n" score_led+pod "$BIN" score "${inputs[@]}" --out "$DIR/ledpod.parquet"
    measure "$n" score_led+pod+derp "$BIN" score "${inputs[@]}" --arcs "$c/arcs.parquet" --out "$DIR/derp.parquet"
    if [ -n "${BEFORE:-}" ]; then
        measure "$n" score_led+pod+derp_before "$BEFORE" score "${inputs[@]}" --arcs "$c/arcs.parquet" --out "$DIR/before.parquet"
        differ=$("$BIN" sql --format csv --table "n=$DIR/derp.parquet" --table "b=$DIR/before.parquet" \
            "SELECT count(*) FROM n JOIN b USING (pair_id)
             WHERE (n.derp IS DISTINCT FROM b.derp) OR (n.derp_problem IS DISTINCT FROM b.derp_problem)" | tail -1)
        [ "$differ" = 0 ] || { echo "derp differs from BEFORE's in $differ rows" >&2; exit 1; }
        echo "derp and derp_problem equal BEFORE's on all $n rows" >&2
        rm -f "$DIR/before.parquet"
    fi
    measure "$n" sql_derp "$BIN" sql --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" --table "r=$c/arcs.parquet" \
        "SELECT sum(derp(r.src_head, r.src_deprel, r.tgt_head, r.tgt_deprel, a.links)), count(p.pair_id)
         FROM p JOIN a USING (pair_id) JOIN r USING (pair_id)"
    rm -f "$DIR/ledpod.parquet" "$DIR/derp.parquet"
done

# The kernel: pairs per second of one core (criterion's bencher lines: ns per iteration; the
# 10-, 30- and 80-token benches score 200 pairs an iteration, the sample's bench as many as its
# name says, the 1,000-token ones one pair).
# Twice each, the two builds taking turns, and the faster run of each kept: one run on this
# machine can be a third slower than the next.
: > "$DIR/kernel.txt"
for _ in 1 2; do
    if [ -n "${BEFORE_REV:-}" ]; then
        (cd "$before_tree" && CARGO_TARGET_DIR=$OLDPWD/target cargo bench --quiet --bench kernels -- --output-format bencher 'derp/' 2> /dev/null) |
            grep '^test' | sed 's/^test /test before:/' >> "$DIR/kernel.txt"
    fi
    cargo bench --quiet --bench kernels -- --output-format bencher 'derp/' 2> /dev/null | grep '^test' >> "$DIR/kernel.txt"
done

section=$DIR/section.md
python3 - "$DIR/kernel.txt" "$(git rev-parse --short HEAD)" "${BEFORE_REV:-}" "$REPEAT" "${rows[@]}" > "$section" <<'PY'
import re, sys
kernel_file, commit, before, repeat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = [r.split() for r in sys.argv[5:]]
base = {r[0]: float(r[3]) for r in rows if r[1] == "score_led+pod"}
print("<!-- derp: made by scripts/bench_derp.sh -->")
print("## DERP")
print()
print(f"pairmetrics {commit}, release build, 2 cores; corpora from `generate_corpus` (Europarl-shaped")
print(f"pairs, alignments and parses). Each job ran {repeat} time(s): the median wall and CPU time (user +")
print("system), the largest peak RSS. `CPU vs led+pod` divides by `score led+pod`'s CPU time on the")
print("same corpus in the same run.", end="")
print(f" `before` is {before}, whose derp and derp_problem columns\nthe new output equals row by row." if before else "")
print()
print("| pairs | job | wall | pairs/s | CPU | CPU vs led+pod | peak RSS |")
print("|---|---|---|---|---|---|---|")
for pairs, job, wall, cpu, mb in rows:
    n, wall, cpu = int(pairs), float(wall), float(cpu)
    name = job.replace("_", " ").replace(" before", " (before)")
    print(f"| {n:,} | `{name}` | {wall:.2f} s | {n / wall:,.0f} | {cpu:.2f} s | {cpu / base[pairs]:.2f}x | {mb} MB |")
print()
print("The kernel alone (`cargo bench --bench kernels -- derp`, one core, the faster of two runs)" + (f",\nand {before}'s kernel on the same generated pairs, taking turns with it:" if before else ":"))
print()
print("| bench | time | rate |" + (f" {before}'s time | speed-up |" if before else ""))
print("|---|---|---|" + ("---|---|" if before else ""))
kernel = {}
for line in open(kernel_file):
    m = re.match(r"test (before:)?(\S+) \.\.\. bench:\s+([\d,]+) ns/iter", line)
    if m:
        runs = kernel.setdefault(m.group(2), {})
        side, ns = "before" if m.group(1) else "now", int(m.group(3).replace(",", ""))
        runs[side] = min(ns, runs.get(side, ns))
for name, times in kernel.items():
    if "now" not in times:
        continue
    ns = times["now"]
    sample = re.search(r"/pairs/(\d+)$", name)
    per_iter = int(sample.group(1)) if sample else 200 if "_tokens/" in name and "1000_tokens" not in name else 1
    rate = f"{per_iter / ns * 1e9:,.0f} pairs/s" if per_iter > 1 else f"{ns / 1e6:.1f} ms a pair"
    old = times.get("before")
    extra = (f" {old / 1e6:.3f} ms | {old / ns:.2f}x |" if old else " | |") if before else ""
    print(f"| `{name}` | {ns / 1e6:.3f} ms | {rate} |{extra}")
print("<!-- /derp -->")
PY
python3 scripts/bench_section.py derp "$section"
echo "wrote the DERP section of BENCHMARKS.md" >&2
