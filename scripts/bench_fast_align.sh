#!/usr/bin/env bash
# `pairmetrics fast-align -d -o -v` against fast_align itself (one thread, as its output is
# deterministic only then), in one run, on a Europarl-shaped corpus of LINES lines made from the
# bundled 2,994 Europarl fr-en lines (each line drawn at random, 30 % of its words given one of 31
# suffixes, 20 % of targets shuffled: the vocabulary grows as a bigger corpus's would). Checks
# that both print the same, then prints wall time, CPU time and peak memory of each.
#
#   FAST_ALIGN=/path/to/build/fast_align scripts/bench_fast_align.sh [LINES]
#
# Without FAST_ALIGN only pairmetrics runs.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-40000}
DIR=${BENCH_DIR:-/tmp/pm-bench/fast_align}
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
CORPUS="$DIR/corpus.$LINES"
if [[ ! -s "$CORPUS" ]]; then
    python3 - "$LINES" "$CORPUS" <<'PY'
import gzip, random, sys
random.seed(7)
lines = gzip.open("tests/data/fast_align/europarl.fr-en.gz", "rt").read().splitlines()
with open(sys.argv[2], "w") as out:
    for _ in range(int(sys.argv[1])):
        f, e = random.choice(lines).split(" ||| ")
        vary = lambda ws: [w + (str(random.randint(0, 30)) if random.random() < 0.3 else "") for w in ws]
        fw, ew = vary(f.split()), vary(e.split())
        if random.random() < 0.2:
            random.shuffle(ew)
        out.write(" ".join(fw) + " ||| " + " ".join(ew) + "\n")
PY
fi
run() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %M" -o "$DIR/time" "$@" > "$DIR/$name.align" 2>/dev/null
    read -r wall cpu kb < "$DIR/time"
    printf '%-32s wall %7.2f s  cpu %7.2f s  peak %6.0f MB\n' "$name" "$wall" "$cpu" "$((kb / 1024))"
    echo "$wall" > "$DIR/$name.wall"
}
echo "fast_align -d -o -v on $LINES lines ($(nproc) cores)"
run pairmetrics target/release/pairmetrics fast-align -i "$CORPUS" -d -o -v
run "pairmetrics --threads 1" target/release/pairmetrics fast-align -i "$CORPUS" -d -o -v --threads 1
if [[ -n "${FAST_ALIGN:-}" ]]; then
    OMP_NUM_THREADS=1 run fast_align "$FAST_ALIGN" -i "$CORPUS" -d -o -v
    cmp -s "$DIR/pairmetrics.align" "$DIR/fast_align.align" || { echo "outputs differ"; exit 1; }
    cmp -s "$DIR/pairmetrics --threads 1.align" "$DIR/fast_align.align" || { echo "outputs differ"; exit 1; }
    echo "outputs identical; pairmetrics is $(echo "scale=2; $(cat "$DIR/fast_align.wall") / $(cat "$DIR/pairmetrics.wall")" | bc)x fast_align's wall time"
fi
