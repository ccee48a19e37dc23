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
# runs BENCH_REPEAT times (default 3), alternating with its peer's runs, each after a `sync` and a
# second's pause; the median run is reported, with the range.
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
# run_once TAG COMMAND...: one run, its wall, peak RSS, user and system times appended to
# runs.TAG and its stdout left in out.TAG. GNU time gives the wall in hundredths, too coarse for
# the 0.15 s jobs: it is taken from the clock around it, in milliseconds.
run_once() {
    local tag=$1 start end; shift
    # What the previous run left to write to disk is written first, not during this one, and
    # the machine settles (right after the JVM exits, the next run was up to 20% slower).
    sync
    sleep 1
    start=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$DIR/time" "$@" > "$DIR/out.$tag" 2> "$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$(calc "scale=3; ($end - $start) / 1000000000") $(cat "$DIR/time")" >> "$DIR/runs.$tag"
}
# report TAG JOB PAIRS: a table row of TAG's median run, with the range of its walls; the median
# wall is left in last_wall.
report() {
    local tag=$1 job=$2 pairs=$3 wall kb user sys range
    read -r wall kb user sys < <(sort -n "$DIR/runs.$tag" | sed -n "$(( (REPEAT + 1) / 2 ))p")
    range="$(sort -n "$DIR/runs.$tag" | head -1 | cut -d' ' -f1)–$(sort -n "$DIR/runs.$tag" | tail -1 | cut -d' ' -f1)"
    last_wall=$wall
    rows+=("| $job | $pairs | $wall s [$range] | $(calc "$user + $sys") s | $(echo "$pairs / $wall" | bc) | $((kb / 1024)) MB |")
    echo "$job: $wall s [$range]" >&2
}
# compare JOB1 JOB2 PAIRS COMMAND1 -- COMMAND2: both commands REPEAT times, alternately, so that
# drift in this VM's speed (5 to 15% within minutes) falls on both alike; a row for each, and
# their median walls in wall1 and wall2.
compare() {
    local job1=$1 job2=$2 pairs=$3; shift 3
    local first=() second=()
    while [ "$1" != -- ]; do first+=("$1"); shift; done
    shift
    second=("$@")
    rm -f "$DIR/runs.1" "$DIR/runs.2"
    for _ in $(seq "$REPEAT"); do
        run_once 1 "${first[@]}"
        run_once 2 "${second[@]}"
    done
    report 1 "$job1" "$pairs"
    wall1=$last_wall
    report 2 "$job2" "$pairs"
    wall2=$last_wall
}
# time_job JOB PAIRS COMMAND...: the command REPEAT times; its row.
time_job() {
    local job=$1 pairs=$2; shift 2
    rm -f "$DIR/runs.job"
    for _ in $(seq "$REPEAT"); do
        run_once job "$@"
    done
    report job "$job" "$pairs"
}
ours="pairmetrics align (Matcher text)"
java_line="METEOR's jar was not run (give a checkout of cmu-mtlab/meteor and install a JDK)."
if [ -n "$meteor" ] && command -v javac > /dev/null; then
    mkdir -p "$DIR/classes"
    javac -nowarn -encoding UTF-8 -d "$DIR/classes" "$meteor/src/Matcher.java" "$meteor"/src/edu/cmu/meteor/aligner/*.java \
        "$meteor/src/edu/cmu/meteor/util/Constants.java" "$meteor"/src/org/tartarus/snowball/*.java \
        "$meteor"/src/org/tartarus/snowball/ext/*.java 2>&1 | grep -v '^Note:' || true
    compare "METEOR 1.5 Matcher (Java 17, JVM start included)" "$ours" 20000 \
        java -Xmx2G -cp "$DIR/classes:$meteor/resources" Matcher "$DIR/20k.test" "$DIR/20k.ref" -m 'exact stem synonym' \
        -- "$BIN" align "$DIR/20k.test" "$DIR/20k.ref"
    cmp -s "$DIR/out.1" "$DIR/out.2" || { echo "outputs differ from METEOR's" >&2; exit 1; }
    java_line="METEOR's Matcher was compiled from $(git -C "$meteor" rev-parse --short HEAD 2>/dev/null || echo 'its source') and run on the same 20,000 pairs, alternately with pairmetrics. Outputs identical (cmp); pairmetrics is $(echo "scale=1; $wall1 / $wall2" | bc)x as fast on them."
else
    time_job "$ours" 20000 "$BIN" align "$DIR/20k.test" "$DIR/20k.ref"
fi
time_job "$ours" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref"
time_job "pairmetrics align --out (Parquet)" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref" --out "$DIR/a.parquet"
time_job "pairmetrics align -m exact" 200000 "$BIN" align "$DIR/200k.test" "$DIR/200k.ref" -m exact
"$BIN" align "$DIR/100k.test" "$DIR/100k.ref" > "$DIR/100k.align"
lepod=(lepod -a "$DIR/100k.align" -f "$DIR/100k.test" "$DIR/100k.ref" -d 4 -p , -r)
ours="pairmetrics lepod -d 4 -p , -r (100,000 Matcher blocks)"
lepod_line="lepod-score.py was not run (set LEPOD_SCORE to its path)."
if [ -n "${LEPOD_SCORE:-}" ]; then
    compare "lepod-score.py -d 4 -p , -r (Python $(python3 -c 'import platform; print(platform.python_version())'))" "$ours" 100000 \
        python3 "$LEPOD_SCORE" "${lepod[@]:1}" "$DIR/original" -- "$BIN" "${lepod[@]}" "$DIR/score"
    for f in out led pod; do
        a="$DIR/original.$f" b="$DIR/score.$f"
        [ $f = out ] && a="$DIR/out.1" b="$DIR/out.2"
        cmp -s "$a" "$b" || { echo "lepod output $f differs from lepod-score.py's" >&2; exit 1; }
    done
    lepod_line="lepod-score.py ran on the same blocks, alternately with pairmetrics: stdout, .led and .pod identical (cmp); pairmetrics lepod is $(echo "scale=1; $wall1 / $wall2" | bc)x as fast."
else
    time_job "$ours" 100000 "$BIN" "${lepod[@]}" "$DIR/score"
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
    echo "are of medians, of runs that alternated with their peer's."
    echo
    echo "| job | pairs | wall | CPU | pairs/s | peak RSS |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo "<!-- /meteor-aligner -->"
} > "$section"
python3 scripts/bench_section.py meteor-aligner "$section"
echo "wrote the METEOR aligner section of BENCHMARKS.md" >&2
