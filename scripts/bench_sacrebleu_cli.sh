#!/usr/bin/env bash
# `pairmetrics sacrebleu` against sacrebleu 2.6.0's command line, in one run, on the full WMT23
# he-en test set (1,910 segments, references refA and refB) with its 10 systems named in
# tests/data/wmt23 (GPT4-5shot the baseline): BLEU, chrF and TER with --paired-bs (1,000
# resamples), then the same with --paired-ar (10,000 trials, BLEU only: sacrebleu's AR is slow).
# The outputs must be equal (the script checks) and the wall times are compared. Needs the
# wmt-conference/wmt23-news-systems repository (commit 99b5b9de) at $WMT23 (a git directory;
# default: /work/.mirror/wmt-conference+wmt23-news-systems/repo) and python3 with venv.
# Rewrites the "sacrebleu's command line" section of BENCHMARKS.md.
#
#   scripts/bench_sacrebleu_cli.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WMT23=${WMT23:-/work/.mirror/wmt-conference+wmt23-news-systems/repo}
DIR=${BENCH_DIR:-/tmp/pm-bench}/sacrebleu_cli
mkdir -p "$DIR/data"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
VENV=${BENCH_DIR:-/tmp/pm-bench}/sacrebleu/venv
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet sacrebleu==2.6.0; }
systems=(GPT4-5shot ONLINE-A GTCOM_Peter Lan-BridgeMT NLLB_Greedy NLLB_MBR_BLEU ONLINE-B ONLINE-G ONLINE-Y UvA-LTL)
for ref in refA refB; do
    git --git-dir="$WMT23" show "HEAD:txt/references/generaltest2023.he-en.ref.$ref.en" > "$DIR/data/he-en.ref.$ref.en"
done
inputs=()
for s in "${systems[@]}"; do
    git --git-dir="$WMT23" show "HEAD:txt/system-outputs/generaltest2023.he-en.hyp.$s.en" > "$DIR/data/he-en.hyp.$s.en"
    inputs+=("he-en.hyp.$s.en")
done
lines=$(wc -l < "$DIR/data/he-en.ref.refA.en")

rows_table=()
compare() { # job, arguments...: runs both, checks the outputs are equal, appends a row
    local job=$1
    shift
    (cd "$DIR/data" && /usr/bin/time -f "%e %M" -o "$DIR/time.sacrebleu" "$VENV/bin/sacrebleu" "$@" > "$DIR/out.sacrebleu" 2> /dev/null)
    (cd "$DIR/data" && /usr/bin/time -f "%e %M" -o "$DIR/time.pairmetrics" "$BIN" sacrebleu "$@" > "$DIR/out.pairmetrics")
    cmp -s "$DIR/out.sacrebleu" "$DIR/out.pairmetrics" || { diff "$DIR/out.sacrebleu" "$DIR/out.pairmetrics" | head >&2; echo "$job: outputs differ" >&2; exit 1; }
    read -r s_wall s_kb < "$DIR/time.sacrebleu"
    read -r p_wall p_kb < "$DIR/time.pairmetrics"
    local ratio
    ratio=$(echo "scale=1; $s_wall / $p_wall" | bc)
    rows_table+=("| $job | $s_wall s | $((s_kb / 1024)) MB | $p_wall s | $((p_kb / 1024)) MB | ${ratio}x | equal |")
    echo "$job: sacrebleu $s_wall s, pairmetrics $p_wall s (${ratio}x)" >&2
}
refs=(he-en.ref.refA.en he-en.ref.refB.en)
compare "10 systems, \`-m bleu chrf ter --paired-bs -f text\`" "${refs[@]}" -i "${inputs[@]}" -m bleu chrf ter --paired-bs -f text
compare "10 systems, \`-m bleu --paired-ar\` (10,000 trials)" "${refs[@]}" -i "${inputs[@]}" -m bleu --paired-ar -f text
compare "10 systems, \`-m bleu chrf ter\` (scores only)" "${refs[@]}" -i "${inputs[@]}" -m bleu chrf ter -f text
compare "1 system, \`-m bleu chrf ter --confidence\`" "${refs[@]}" -i he-en.hyp.GPT4-5shot.en -m bleu chrf ter --confidence

section=$DIR/section.md
{
    echo "<!-- sacrebleu-cli: made by scripts/bench_sacrebleu_cli.sh -->"
    echo "## sacrebleu's command line"
    echo
    echo "\`pairmetrics sacrebleu\` ($(git rev-parse --short HEAD)) against sacrebleu 2.6.0's \`sacrebleu\` on the"
    echo "full WMT23 he-en test set ($lines segments, references refA and refB, 10 systems), 2 cores,"
    echo "one after the other in one run. Both print the same bytes (checked)."
    echo
    echo "| job | sacrebleu wall | sacrebleu RSS | pairmetrics wall | pairmetrics RSS | speed-up | output |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /sacrebleu-cli -->"
} > "$section"
python3 scripts/bench_section.py sacrebleu-cli "$section"
echo "wrote the sacrebleu-cli section of BENCHMARKS.md" >&2
