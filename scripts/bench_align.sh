#!/usr/bin/env bash
# METEOR aligner and lepod drop-in benchmarks, side by side with METEOR 1.5's own jar code:
# the English Europarl lines of tests/data/meteor against their perturbed copy (31 tokens a line),
# repeated to 20,000 and 200,000 pairs. Rewrites the "METEOR aligner" section of BENCHMARKS.md.
#
#   [LEPOD_SCORE=path/to/lepod-score.py] scripts/bench_align.sh [METEOR_CHECKOUT]
#
# With a checkout of cmu-mtlab/meteor and a JDK, METEOR's Matcher is compiled from source and
# timed on the same 20,000 pairs, and its output compared with ours byte for byte. With
# LEPOD_SCORE (the original scorer, e.g. from xingniu/multitask-ft-fsmt's LePoD/), it is timed on
# the same 100,000 Matcher blocks as `pairmetrics lepod`, and their outputs compared. Each job
# runs BENCH_REPEAT times (default 3); the median run is reported, with the range.
set -euo pipefail
cd "$(dirname "$0")/.."
meteor=${1:-}
DIR=${BENCH_DIR:-/tmp/pm-bench}/align
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics --example generate_corpus
BIN=$PWD/target/release/pairmetrics
for side in test ref; do
    zcat "tests/data/meteor/europarl-perturbed.$side.gz" > "$DIR/one.$side"
    for _ in $(seq 20); do cat "$DIR/one.$side"; done > "$DIR/20k.$side"
    for _ in $(seq 10); do cat "$DIR/20k.$side"; done > "$DIR/200k.$side"
    head -100000 "$DIR/200k.$side" > "$DIR/100k.$side"
done
rows=()
REPEAT=${BENCH_REPEAT:-3}
# calc EXPRESSION: bc's result, with the 0 it leaves out before a decimal point.
calc() { echo "$1" | bc | sed 's/^\./0./'; }
# time_job JOB PAIRS COMMAND...: runs the command REPEAT times (the JVM's and this VM's times
# vary from run to run); a table row of the median run, with the range of the walls.
time_job() {
    local job=$1 pairs=$2; shift 2
    : > "$DIR/runs"
    for _ in $(seq "$REPEAT"); do
        # GNU time gives the wall in hundredths, too coarse for the 0.15 s jobs: it is taken
        # from the clock around it, in milliseconds.
        local start end
        start=$(date +%s%N)
        /usr/bin/time -f "%M %U %S" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
        end=$(date +%s%N)
        echo "$(calc "scale=3; ($end - $start) / 1000000000") $(cat "$DIR/time")" >> "$DIR/runs"
    done
    read -r wall kb user sys < <(sort -n "$DIR/runs" | sed -n "$(( (REPEAT + 1) / 2 ))p")
    local range
    range="$(sort -n "$DIR/runs" | head -1 | cut -d' ' -f1)–$(sort -n "$DIR/runs" | tail -1 | cut -d' ' -f1)"
    last_wall=$wall
    rows+=("| $job | $pairs | $wall s [$range] | $(calc "$user + $sys") s | $(echo "$pairs / $wall" | bc) | $((kb / 1024)) MB |")
    echo "$job: $wall s [$range]" >&2
}
java_line="METEOR's jar was not run (give a checkout of cmu-mtlab/meteor and install a JDK)."
if [ -n "$meteor" ] && command -v javac > /dev/null; then
    mkdir -p "$DIR/classes"
    javac -nowarn -encoding UTF-8 -d "$DIR/classes" "$meteor/src/Matcher.java" "$meteor"/src/edu/cmu/meteor/aligner/*.java \
        "$meteor/src/edu/cmu/meteor/util/Constants.java" "$meteor"/src/org/tartarus/snowball/*.java \
        "$meteor"/src/org/tartarus/snowball/ext/*.java 2>&1 | grep -v '^Note:' || true
    time_job "METEOR 1.5 Matcher (Java 17, JVM start included)" 20000 \
        java -Xmx2G -cp "$DIR/classes:$meteor/resources" Matcher "$DIR/20k.test" "$DIR/20k.ref" -m 'exact stem synonym'
    cp "$DIR/out" "$DIR/java.txt"
    java_wall=$last_wall
    java_line="METEOR's Matcher was compiled from $(git -C "$meteor" rev-parse --short HEAD 2>/dev/null || echo 'its source') and run on the same 20,000 pairs."
fi
time_job "pairmetrics align (Matcher text)" 20000 "$BIN" align "$DIR/20k.test" "$DIR/20k.ref"
if [ -f "$DIR/java.txt" ]; then
    cmp -s "$DIR/out" "$DIR/java.txt" || { echo "outputs differ from METEOR's" >&2; exit 1; }
    java_line="$java_line Outputs identical (cmp); pairmetrics is $(echo "scale=1; $java_wall / $last_wall" | bc)x as fast on them."
fi
time_job "pairmetrics align (Matcher text)" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref"
time_job "pairmetrics align --out (Parquet)" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref" --out "$DIR/a.parquet"
time_job "pairmetrics align -m exact" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref" -m exact
"$BIN" align "$DIR/100k.test" "$DIR/100k.ref" > "$DIR/100k.align"
lepod_line="lepod-score.py was not run (set LEPOD_SCORE to its path)."
if [ -n "${LEPOD_SCORE:-}" ]; then
    time_job "lepod-score.py -d 4 -p , -r (Python $(python3 -c 'import platform; print(platform.python_version())'))" 100000 \
        python3 "$LEPOD_SCORE" -a "$DIR/100k.align" -f "$DIR/100k.test" "$DIR/100k.ref" -d 4 -p , -r "$DIR/original"
    cp "$DIR/out" "$DIR/original.out"
    python_wall=$last_wall
fi
time_job "pairmetrics lepod -d 4 -p , -r (100,000 Matcher blocks)" 100000 \
    "$BIN" lepod -a "$DIR/100k.align" -f "$DIR/100k.test" "$DIR/100k.ref" -d 4 -p , -r "$DIR/score"
if [ -n "${LEPOD_SCORE:-}" ]; then
    for f in out led pod; do
        a="$DIR/original.$f" b="$DIR/score.$f"
        [ $f = out ] && b="$DIR/out"
        cmp -s "$a" "$b" || { echo "lepod output $f differs from lepod-score.py's" >&2; exit 1; }
    done
    lepod_line="lepod-score.py ran on the same blocks: stdout, .led and .pod identical (cmp); pairmetrics lepod is $(echo "scale=1; $python_wall / $last_wall" | bc)x as fast."
fi

section=$DIR/section.md
{
    echo "<!-- meteor-aligner: made by scripts/bench_align.sh -->"
    echo "## METEOR aligner"
    echo
    echo "\`exact stem synonym\`, beam 40, on 1,000 English Europarl lines against a perturbed copy"
    echo "(synonyms, inflections, drops, repeats, swaps; 31 tokens a line), repeated; pairmetrics"
    echo "$(git rev-parse --short HEAD), 2 worker threads. $java_line $lepod_line"
    echo
    echo "Each job ran $REPEAT times: the median run's wall (the range in brackets), CPU and pairs/s; ratios"
    echo "are of medians."
    echo
    echo "| job | pairs | wall | CPU | pairs/s | peak RSS |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo "<!-- /meteor-aligner -->"
} > "$section"
python3 scripts/bench_section.py meteor-aligner "$section"
echo "wrote the METEOR aligner section of BENCHMARKS.md" >&2
