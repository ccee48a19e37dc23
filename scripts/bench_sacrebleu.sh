#!/usr/bin/env bash
# BLEU, chrF, chrF++ and TER through `pairmetrics sql` against sacrebleu 2.6.0 on the same
# segments, in one run: ROWS segments of WMT23 he-en (GPT4-5shot against refA, tests/data/wmt23,
# 200 lines repeated, each line ending in its repetition's number so that no two lines of a side
# are the same; ~22 words a line), as a Parquet table of two text columns, and corpus BLEU again
# over 10 times as many. sacrebleu runs on a prefix (it is slow) and its rate is per CPU second;
# pairmetrics computes the same prefix again and the script checks that both print the same
# corpus scores, and sums of sentence scores equal to 1e-12 (they are summed in another order).
# Needs python3 with venv (sacrebleu is installed into $BENCH_DIR). Rewrites the "sacrebleu's
# metrics" section of BENCHMARKS.md.
#
#   scripts/bench_sacrebleu.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/sacrebleu
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
[ -x "$DIR/venv/bin/python" ] || { python3 -m venv "$DIR/venv" && "$DIR/venv/bin/pip" install --quiet sacrebleu==2.6.0; }
PY=$DIR/venv/bin/python
repeats=$(( (rows + 199) / 200 ))
for side in hyp.GPT4-5shot ref.refA; do
    for _ in $(seq "$repeats"); do cat "tests/data/wmt23/he-en.$side.en"; done | head -n "$rows" |
        awk '{ print $0 " " int((NR - 1) / 200) }' > "$DIR/$side.txt"
done
rm -rf "$DIR/pairs.parquet" "$DIR/text.parquet" "$DIR/text10"
"$BIN" import text --src "$DIR/ref.refA.txt" --tgt "$DIR/hyp.GPT4-5shot.txt" --out "$DIR/pairs.parquet" > /dev/null
# the lines as text columns: array_to_string(tokens, ' ') is the line with single spaces
"$BIN" sql --table p="$DIR/pairs.parquet" --out "$DIR/text.parquet" \
    "SELECT pair_id, array_to_string(tgt, ' ') AS hyp, array_to_string(src, ' ') AS ref FROM p" > /dev/null
mkdir "$DIR/text10"
for i in $(seq 0 9); do cp "$DIR/text.parquet" "$DIR/text10/part-$i.parquet"; done
H=hyp R=ref

rows_table=()
measure() { # job, pairs, command...: appends a row, echoes the command's last output line
    local job=$1 pairs=$2
    shift 2
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
    read -r wall kb user sys < "$DIR/time"
    local cpu rate
    cpu=$(echo "$user + $sys" | bc)
    rate=$(echo "$pairs / $cpu" | bc)
    rows_table+=("| $job | $pairs | $wall s | $cpu s | $rate | $((kb / 1024)) MB | $(tail -1 "$DIR/out") |")
    echo "$job: $wall s" >&2
}
SQL=("$BIN" sql --format csv --table p="$DIR/text.parquet")
# sacrebleu on the first LINES lines: METRIC LINES sentence (the sum of sentence scores) or corpus
cat > "$DIR/peer.py" <<PY
import sys
from sacrebleu.metrics import BLEU, CHRF, TER
name, lines, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
metric = {"bleu": BLEU(), "chrf": CHRF(), "chrf++": CHRF(word_order=2), "ter": TER()}[name]
read = lambda f: open("$DIR/" + f, encoding="utf-8").read().split("\\n")[:lines]
hyps, refs = read("hyp.GPT4-5shot.txt"), read("ref.refA.txt")
if kind == "sentence":
    print(repr(sum(metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs))))
else:
    print(repr(metric.corpus_score(hyps, [refs]).score))
PY
PEER=("$PY" "$DIR/peer.py")
same_as_peer() { # corpus|sum LINES QUERY: pairmetrics' QUERY over the peer's lines, after the
    # peer's measure: a corpus score equal, a sum of sentence scores equal to 1e-12
    local kind=$1 lines=$2 query=$3 ours theirs
    theirs=$(tail -1 "$DIR/out")
    ours=$("${SQL[@]}" "$query WHERE pair_id < $lines" | tail -1)
    python3 -c "import sys; a, b = float(sys.argv[2]), float(sys.argv[3]); sys.exit(a != b if sys.argv[1] == 'corpus' else abs(a - b) > 1e-12 * abs(b))" \
        "$kind" "$ours" "$theirs" ||
        { echo "pairmetrics gives $ours, sacrebleu $theirs: $query over $lines lines" >&2; exit 1; }
}
measure "pairmetrics: the scan (the floor)" "$rows" "${SQL[@]}" "SELECT sum(length($H) + length($R)) FROM p"
measure "pairmetrics: \`corpus_bleu\`" "$rows" "${SQL[@]}" "SELECT corpus_bleu($H, $R) FROM p"
measure "pairmetrics: \`corpus_bleu\`, 10 times the rows" "$((10 * rows))" \
    "$BIN" sql --format csv --table p="$DIR/text10" "SELECT corpus_bleu($H, $R) FROM p"
measure "pairmetrics: \`sum(chrf)\`, sentence chrF2" "$rows" "${SQL[@]}" "SELECT sum(chrf($H, $R)) FROM p"
measure "pairmetrics: \`corpus_chrf(.., 'nw:2')\`, chrF++" "$rows" "${SQL[@]}" "SELECT corpus_chrf($H, $R, 'nw:2') FROM p"
measure "pairmetrics: \`sum(sentence_ter)\`" "$rows" "${SQL[@]}" "SELECT sum(sentence_ter($H, $R)) FROM p"
measure "pairmetrics: \`corpus_ter\`" "$rows" "${SQL[@]}" "SELECT corpus_ter($H, $R) FROM p"
small=$(( rows < 20000 ? rows : 20000 )) tiny=$(( rows < 2000 ? rows : 2000 ))
measure "sacrebleu: corpus BLEU" "$rows" "${PEER[@]}" bleu "$rows" corpus
same_as_peer corpus "$rows" "SELECT corpus_bleu($H, $R) FROM p"
measure "sacrebleu: sum of sentence chrF2" "$small" "${PEER[@]}" chrf "$small" sentence
same_as_peer sum "$small" "SELECT sum(chrf($H, $R)) FROM p"
measure "sacrebleu: corpus chrF++" "$small" "${PEER[@]}" chrf++ "$small" corpus
same_as_peer corpus "$small" "SELECT corpus_chrf($H, $R, 'nw:2') FROM p"
measure "sacrebleu: sum of sentence TER" "$tiny" "${PEER[@]}" ter "$tiny" sentence
same_as_peer sum "$tiny" "SELECT sum(sentence_ter($H, $R)) FROM p"
measure "sacrebleu: corpus TER" "$tiny" "${PEER[@]}" ter "$tiny" corpus
same_as_peer corpus "$tiny" "SELECT corpus_ter($H, $R) FROM p"

section=$DIR/section.md
{
    echo "<!-- sacrebleu: made by scripts/bench_sacrebleu.sh -->"
    echo "## sacrebleu's metrics"
    echo
    echo "$rows segments of WMT23 he-en (GPT4-5shot against refA, 200 lines repeated, each ending in"
    echo "its repetition's number, ~22 words a line) as a Parquet table of two text columns;"
    echo "pairmetrics $(git rev-parse --short HEAD) through \`pairmetrics sql\`, sacrebleu 2.6.0's Python API on"
    echo "a prefix (it is slow); 2 cores. Pairs/s is per CPU second (per core). On each prefix"
    echo "sacrebleu ran on, pairmetrics prints the same corpus score and the same sum of sentence"
    echo "scores to 1e-12 (checked by the script)."
    echo
    echo "| job | segments | wall | CPU | pairs/s per core | peak RSS | result |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /sacrebleu -->"
} > "$section"
python3 scripts/bench_section.py sacrebleu "$section"
echo "wrote the sacrebleu section of BENCHMARKS.md" >&2
