#!/usr/bin/env bash
# bicleaner-hardrules against pairmetrics, in one run, 2 cores, release:
#  1. `pairmetrics hardrules` against `bicleaner-hardrules` 2.10.8 (its default processes,
#     --disable_lang_ident: the model-free rules) on 53,772 lines of WMT23 en-de (the source
#     with the reference, then with GPT4-5shot's output), process start included, plain and
#     with -A --annotated_output: outputs byte-identical (checked), wall times compared;
#  2. `score --hardrules en-de` over 10M pairs (those lines repeated, with src_text and
#     tgt_text): pairs/s and peak RSS, beside the floor (`sql` reading the same two columns).
# Needs: CPython 3.9 (pyenv) for bicleaner-hardrules==2.10.8, installed in $BENCH_DIR with
# kenlm==0.3.0 and pyarrow; the WMT23 mirror's git directory at $WMT23_GIT.
# Rewrites the "Hard rules" section of BENCHMARKS.md.
#
#   WMT23_GIT=/path/to/wmt23-news-systems/.git scripts/bench_hardrules.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-/tmp/pm-bench}/hardrules
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
VENV=$DIR/venv
PY39=${PY39:-$HOME/.pyenv/versions/3.9.18/bin/python}
[ -x "$VENV/bin/bicleaner-hardrules" ] || {
    "$PY39" -m venv "$VENV" && "$VENV/bin/pip" install --quiet bicleaner-hardrules==2.10.8 kenlm==0.3.0 pyarrow
}

git --git-dir "$WMT23_GIT" show HEAD:txt-ts/sources/generaltest2023.en-de.src.en > "$DIR/src.en"
git --git-dir "$WMT23_GIT" show HEAD:txt-ts/references/generaltest2023.en-de.ref.refA.de > "$DIR/ref.de"
git --git-dir "$WMT23_GIT" show HEAD:txt-ts/system-outputs/generaltest2023.en-de.hyp.GPT4-5shot.de > "$DIR/hyp.de"
{ paste "$DIR/src.en" "$DIR/ref.de"; paste "$DIR/src.en" "$DIR/hyp.de"; } > "$DIR/en-de.tsv"
lines=$(wc -l < "$DIR/en-de.tsv")
"$VENV/bin/python" - "$DIR" <<'PY'
import sys, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
rows = [l.rstrip("\n").split("\t") for l in open(f"{out}/en-de.tsv", encoding="utf-8")]
src = [r[0] for r in rows]
tgt = [r[1] for r in rows]
base = pa.table({
    "src": pa.array([s.split() for s in src], pa.list_(pa.string())),
    "tgt": pa.array([t.split() for t in tgt], pa.list_(pa.string())),
    "src_text": src,
    "tgt_text": tgt,
})
n, total = len(rows), 10_000_000
with pq.ParquetWriter(f"{out}/10m.parquet", pa.schema([("pair_id", pa.int64())] + list(base.schema))) as w:
    done = 0
    while done < total:
        part = base.slice(0, min(n, total - done))
        ids = pa.array(range(done, done + part.num_rows), pa.int64())
        w.write_table(pa.Table.from_arrays([ids] + part.columns, names=["pair_id"] + part.column_names),
                      row_group_size=1 << 20)
        done += part.num_rows
PY

seconds() { /usr/bin/time -f "%e %M" -o "$DIR/time" "$@"; read -r wall kb < "$DIR/time"; }

# 1. The command line, plain and with -A --annotated_output; each tool twice, interleaved,
# the faster run kept.
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }
declare -A wall_of
for flags in plain all; do
    extra=(); [ "$flags" = all ] && extra=(-A --annotated_output)
    for tool in reference pairmetrics reference pairmetrics; do
        out="$DIR/$tool.$flags.out"
        if [ "$tool" = reference ]; then
            seconds "$VENV/bin/bicleaner-hardrules" -q --disable_lang_ident -s en -t de "${extra[@]}" "$DIR/en-de.tsv" "$out"
        else
            seconds "$BIN" hardrules -q -s en -t de "${extra[@]}" "$DIR/en-de.tsv" "$out"
        fi
        key=$tool.$flags
        wall_of[$key]=$(best "${wall_of[$key]:-1e9}" "$wall")
    done
    cmp -s "$DIR/reference.$flags.out" "$DIR/pairmetrics.$flags.out" \
        || { echo "hardrules $flags: outputs differ" >&2; exit 1; }
done
kept=$(grep -c $'\t1$' "$DIR/pairmetrics.plain.out" || true)

# 2. score at 10M pairs, and the floor: reading the two text columns.
seconds "$BIN" score --pairs "$DIR/10m.parquet" --metrics hardrules --hardrules en-de --out "$DIR/scored.parquet" > /dev/null
sc_wall=$wall sc_kb=$kb
seconds "$BIN" sql --table "t=$DIR/10m.parquet" "SELECT sum(length(src_text)) + sum(length(tgt_text)) AS chars FROM t" > /dev/null
fl_wall=$wall
rm -f "$DIR/scored.parquet"

ratio() { echo "scale=1; $1 / $2" | bc; }
rate() { echo "scale=0; $1 / $2" | bc; }
section=$DIR/section.md
{
    echo "<!-- hardrules: made by scripts/bench_hardrules.sh -->"
    echo "## Hard rules"
    echo
    echo "At $(git rev-parse --short HEAD), 2 cores, release, one run (each command line twice, interleaved, the"
    echo "faster kept). Input: WMT23 en-de, the source beside the reference and beside GPT4-5shot's output"
    echo "($lines lines; $kept kept). bicleaner-hardrules 2.10.8 on CPython 3.9 with its default processes"
    echo "(cpu_count - 1 workers), --disable_lang_ident (no model rules: what pairmetrics runs)."
    echo
    echo "| job | bicleaner-hardrules | pairmetrics | ratio |"
    echo "|---|---|---|---|"
    echo "| \`hardrules -s en -t de\`, process start included (outputs byte-identical, checked) | ${wall_of[reference.plain]} s | ${wall_of[pairmetrics.plain]} s | $(ratio "${wall_of[reference.plain]}" "${wall_of[pairmetrics.plain]}")x |"
    echo "| \`-A --annotated_output\` (every rule of every pair) | ${wall_of[reference.all]} s | ${wall_of[pairmetrics.all]} s | $(ratio "${wall_of[reference.all]}" "${wall_of[pairmetrics.all]}")x |"
    echo "| \`score --metrics hardrules --hardrules en-de\`, 10M pairs (every rule; the lines above repeated) | target ≥ 1,000,000 pairs/s | $(rate 10000000 "$sc_wall") pairs/s, $sc_wall s, $((sc_kb / 1024)) MB | floor (\`sql\` reading src_text and tgt_text): $fl_wall s |"
    echo "<!-- /hardrules -->"
} > "$section"
python3 scripts/bench_section.py hardrules "$section"
cat "$section"
