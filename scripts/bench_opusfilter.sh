#!/usr/bin/env bash
# `pairmetrics opusfilter` against OpusFilter 3.3.1's `opusfilter`, in one run, 2 cores,
# release: a 16-filter `score` step and the same filters' `filter` step on 17,000 WMT23 pairs
# (every txt/sources file with its refA reference, in file-name order, the first 17,000), wall
# time with process start. The outputs must be byte-identical (checked). Then the same 16
# filters as columns: `score --filters` over 10M pairs (those pairs repeated), against the floor
# of reading the two text columns.
# Needs the wmt-conference/wmt23-news-systems repository at $WMT23 (a git directory; default
# /work/.mirror/wmt-conference+wmt23-news-systems/repo) and python3 with venv (opusfilter==3.3.1
# is installed in $BENCH_DIR). Rewrites the "OpusFilter" section of BENCHMARKS.md.
#
#   scripts/bench_opusfilter.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WMT23=${WMT23:-/work/.mirror/wmt-conference+wmt23-news-systems/repo}
DIR=${BENCH_DIR:-/tmp/pm-bench}/opusfilter
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
VENV=${BENCH_DIR:-/tmp/pm-bench}/opusfilter/venv
[ -x "$VENV/bin/opusfilter" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet opusfilter==3.3.1; }

rm -rf "$DIR/data" && mkdir -p "$DIR/data"
: > "$DIR/data/src.txt"
: > "$DIR/data/tgt.txt"
for source in $(git --git-dir="$WMT23" ls-tree --name-only HEAD txt/sources/ | sort); do
    pair=$(basename "$source" | cut -d. -f2)
    tgt=${pair#*-}
    ref="txt/references/generaltest2023.$pair.ref.refA.$tgt"
    git --git-dir="$WMT23" cat-file -e "HEAD:$ref" 2>/dev/null || continue
    git --git-dir="$WMT23" show "HEAD:$source" >> "$DIR/data/src.txt"
    git --git-dir="$WMT23" show "HEAD:$ref" >> "$DIR/data/tgt.txt"
done
head -n 17000 "$DIR/data/src.txt" > "$DIR/data/s" && mv "$DIR/data/s" "$DIR/data/src.txt"
head -n 17000 "$DIR/data/tgt.txt" > "$DIR/data/t" && mv "$DIR/data/t" "$DIR/data/tgt.txt"
pairs=$(wc -l < "$DIR/data/src.txt")

cat > "$DIR/data/config.yaml" <<'YAML'
common:
  output_directory: out
steps:
  - type: score
    parameters:
      inputs: [../src.txt, ../tgt.txt]
      output: scores.jsonl
      filters: &filters
        # Every filter of a class that appears twice has a name: OpusFilter 3.3.1 crashes (a
        # TypeError in _update_score_dict) when an unnamed filter's scores and a named one's of
        # the same class meet in the score file.
        - LengthFilter: {unit: word, min_length: 1, max_length: 100, name: words}
        - LengthFilter: {unit: char, min_length: 1, max_length: 1000, name: chars}
        - LengthRatioFilter: {unit: word, threshold: 3, name: words}
        - LengthRatioFilter: {unit: char, threshold: 3, name: chars}
        - LongWordFilter: {threshold: 40, name: long}
        - AverageWordLengthFilter: {min_length: 1, max_length: 30}
        - AlphabetRatioFilter: {threshold: 0.5, name: all}
        - AlphabetRatioFilter: {threshold: 0.5, exclude_whitespace: true, name: nospace}
        - TerminalPunctuationFilter: {threshold: -2}
        - NonZeroNumeralsFilter: {threshold: 0.5}
        - LongestCommonSubstringFilter: {threshold: 0.9}
        - SimilarityFilter: {threshold: 0.9, name: chars}
        - SimilarityFilter: {threshold: 0.9, unit: word, lowercase: true, name: words}
        - RepetitionFilter: {threshold: 2, name: long}
        - RepetitionFilter: {threshold: 1, min_length: 2, max_length: 10, name: short}
        - LongWordFilter: {threshold: 100, name: very}
  - type: filter
    parameters:
      inputs: [../src.txt, ../tgt.txt]
      outputs: [kept.src, kept.tgt]
      filters: *filters
YAML

rows=()
for step in 1 2; do
    for tool in opusfilter pairmetrics; do
        rm -rf "$DIR/$tool" && mkdir -p "$DIR/$tool" && cp "$DIR/data/"{src.txt,tgt.txt,config.yaml} "$DIR/$tool/"
        # Steps before this one are already done for both.
        if [ "$step" = 2 ]; then cp -r "$DIR/done-$tool/out" "$DIR/$tool/out"; fi
        case $tool in
            opusfilter) cmd=("$VENV/bin/opusfilter" config.yaml --single "$step") ;;
            pairmetrics) cmd=("$BIN" opusfilter config.yaml --single "$step") ;;
        esac
        (cd "$DIR/$tool" && /usr/bin/time -f "%e %M" -o "$DIR/time.$tool" "${cmd[@]}" 2> /dev/null)
        rm -rf "$DIR/done-$tool" && cp -r "$DIR/$tool" "$DIR/done-$tool"
    done
    for f in $(ls "$DIR/opusfilter/out"); do
        cmp -s "$DIR/opusfilter/out/$f" "$DIR/pairmetrics/out/$f" || { echo "step $step: $f differs" >&2; exit 1; }
    done
    read -r o_wall o_kb < "$DIR/time.opusfilter"
    read -r p_wall p_kb < "$DIR/time.pairmetrics"
    name=$([ "$step" = 1 ] && echo "score, 16 filters" || echo "filter, the same 16 filters")
    ratio=$(echo "scale=1; $o_wall / $p_wall" | bc)
    rows+=("| $name | $o_wall s, $((o_kb / 1024)) MB | $p_wall s, $((p_kb / 1024)) MB | ${ratio}x | identical |")
    echo "$name: opusfilter $o_wall s, pairmetrics $p_wall s (${ratio}x)" >&2
done

# 3. `score --filters` (the filter step's list) at 10M pairs; pyarrow writes the table.
"$VENV/bin/python" -c "import pyarrow" 2> /dev/null || "$VENV/bin/pip" install --quiet pyarrow
"$VENV/bin/python" - "$DIR" <<'PY'
import sys, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
src = open(f"{out}/data/src.txt", encoding="utf-8").read().split("\n")[:-1]
tgt = open(f"{out}/data/tgt.txt", encoding="utf-8").read().split("\n")[:-1]
base = pa.table({
    "src": pa.array([s.split() for s in src], pa.list_(pa.string())),
    "tgt": pa.array([t.split() for t in tgt], pa.list_(pa.string())),
    "src_text": src,
    "tgt_text": tgt,
})
n, total = len(src), 10_000_000
with pq.ParquetWriter(f"{out}/10m.parquet", pa.schema([("pair_id", pa.int64())] + list(base.schema))) as w:
    done = 0
    while done < total:
        part = base.slice(0, min(n, total - done))
        ids = pa.array(range(done, done + part.num_rows), pa.int64())
        w.write_table(pa.Table.from_arrays([ids] + part.columns, names=["pair_id"] + part.column_names),
                      row_group_size=1 << 20)
        done += part.num_rows
PY
/usr/bin/time -f "%e %M" -o "$DIR/time" "$BIN" score --pairs "$DIR/10m.parquet" --metrics none \
    --filters "$DIR/data/config.yaml" --out "$DIR/scored.parquet" > "$DIR/score.log"
read -r s_wall s_kb < "$DIR/time"
/usr/bin/time -f "%e %M" -o "$DIR/time" "$BIN" sql --table "t=$DIR/10m.parquet" \
    "SELECT sum(length(src_text)) + sum(length(tgt_text)) AS chars FROM t" > /dev/null
read -r f_wall f_kb < "$DIR/time"
# The 10M rows' verdicts are the 17,000 pairs' (588 whole copies and a part): check the count.
kept_once=$(wc -l < "$DIR/done-pairmetrics/out/kept.src")
kept_10m=$(grep -o '^filters: [0-9]* pairs kept' "$DIR/score.log" | grep -o '[0-9]*')
echo "score --filters, 10M pairs: $s_wall s, $((s_kb / 1024)) MB, $kept_10m kept ($kept_once of $pairs once)" >&2
rm -f "$DIR/scored.parquet"
rows+=("| \`score --metrics none --filters\` (the 16 filters as columns, keep, rejected_by), 10M pairs (the pairs above repeated; $kept_10m kept) | target ≥ 500,000 pairs/s, ≤ 1 GiB | $(echo "scale=0; 10000000 / $s_wall" | bc) pairs/s, $s_wall s, $((s_kb / 1024)) MB | floor (\`sql\` reading src_text and tgt_text): $f_wall s | |")

section=$DIR/section.md
{
    echo "<!-- opusfilter: made by scripts/bench_opusfilter.sh -->"
    echo "## OpusFilter"
    echo
    echo "\`pairmetrics opusfilter\` ($(git rev-parse --short HEAD)) against OpusFilter 3.3.1's \`opusfilter\`"
    echo "(one process, its default) on $pairs WMT23 pairs, 2 cores, release, one after the other"
    echo "in one run; wall time with process start. The outputs are byte-identical (checked)."
    echo
    echo "| step | opusfilter | pairmetrics | speed-up | output |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo "<!-- /opusfilter -->"
} > "$section"
python3 scripts/bench_section.py opusfilter "$section"
cat "$section"
