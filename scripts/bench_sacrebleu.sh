#!/usr/bin/env bash
# BLEU, chrF, chrF++ and TER through `pairmetrics sql` against sacrebleu 2.6.0 on the same
# segments, in one run: ROWS segments of WMT23 he-en (GPT4-5shot against refA, tests/data/wmt23,
# 200 lines repeated; ~22 words a line). sacrebleu runs on a prefix (it is slow) and its rate is
# per CPU second; both sides print the same sums, which the script checks. Needs python3 with
# venv (sacrebleu is installed into $BENCH_DIR). Rewrites the "sacrebleu's metrics" section of
# BENCHMARKS.md.
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
    for _ in $(seq "$repeats"); do cat "tests/data/wmt23/he-en.$side.en"; done | head -n "$rows" > "$DIR/$side.txt"
done
"$BIN" import text --src "$DIR/ref.refA.txt" --tgt "$DIR/hyp.GPT4-5shot.txt" --out "$DIR/pairs.parquet" > /dev/null
# the text columns back as strings: array_to_string(tokens, ' ') is the line with single spaces
H="array_to_string(tgt, ' ')" R="array_to_string(src, ' ')"

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
SQL=("$BIN" sql --format csv --table p="$DIR/pairs.parquet")
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
measure "pairmetrics: the scan, strings rebuilt (the floor)" "$rows" "${SQL[@]}" "SELECT sum(length($H) + length($R)) FROM p"
measure "pairmetrics: \`corpus_bleu\`" "$rows" "${SQL[@]}" "SELECT corpus_bleu($H, $R) FROM p"
measure "pairmetrics: \`sum(chrf)\`, sentence chrF2" "$rows" "${SQL[@]}" "SELECT sum(chrf($H, $R)) FROM p"
measure "pairmetrics: \`corpus_chrf(.., 'nw:2')\`, chrF++" "$rows" "${SQL[@]}" "SELECT corpus_chrf($H, $R, 'nw:2') FROM p"
measure "pairmetrics: \`sum(sentence_ter)\`" "$rows" "${SQL[@]}" "SELECT sum(sentence_ter($H, $R)) FROM p"
measure "pairmetrics: \`corpus_ter\`" "$rows" "${SQL[@]}" "SELECT corpus_ter($H, $R) FROM p"
small=$(( rows < 20000 ? rows : 20000 )) tiny=$(( rows < 2000 ? rows : 2000 ))
measure "sacrebleu: corpus BLEU" "$rows" "${PEER[@]}" bleu "$rows" corpus
measure "sacrebleu: sum of sentence chrF2" "$small" "${PEER[@]}" chrf "$small" sentence
measure "sacrebleu: corpus chrF++" "$small" "${PEER[@]}" chrf++ "$small" corpus
measure "sacrebleu: sum of sentence TER" "$tiny" "${PEER[@]}" ter "$tiny" sentence
measure "sacrebleu: corpus TER" "$tiny" "${PEER[@]}" ter "$tiny" corpus

section=$DIR/section.md
{
    echo "<!-- sacrebleu: made by scripts/bench_sacrebleu.sh -->"
    echo "## sacrebleu's metrics"
    echo
    echo "$rows segments of WMT23 he-en (GPT4-5shot against refA, 200 lines repeated, ~22 words a"
    echo "line), pairmetrics $(git rev-parse --short HEAD) through \`pairmetrics sql\` and sacrebleu 2.6.0's"
    echo "Python API on a prefix (it is slow), 2 cores. Pairs/s is per CPU second (per core)."
    echo "Sums of sentence scores scale with the number of 200-line cycles; corpus scores of whole"
    echo "cycles are equal."
    echo
    echo "| job | segments | wall | CPU | pairs/s per core | peak RSS | result |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /sacrebleu -->"
} > "$section"
python3 scripts/bench_section.py sacrebleu "$section"
echo "wrote the sacrebleu section of BENCHMARKS.md" >&2
