#!/usr/bin/env bash
# Duplicates against the tools users run, in one run, 2 cores, release. Pairs: every WMT23
# general-test source line with every system's translation of it (wmt-conference/
# wmt23-news-systems, 14 language pairs, 186 systems): real text whose sources repeat across
# systems and whose translations are often near copies of each other.
#  1. `minhash(tokenize(src_text), 128, 1)` over 200,000 rows, process start and Parquet read
#     included, against datasketch 2.0.0's fastest way (`MinHash.bulk`, the same rows read with
#     pyarrow): wall times, and checksums of the signatures must be equal; then 10M rows (the
#     pairs repeated with a copy number appended to both sides): rows/s. Its own section
#     ("MinHash"; STEPS=minhash runs it alone);
#  2. `dedup --exact pair --only-kept` against OpusFilter 3.3.1's `remove_duplicates` on 1M rows
#     (its input as text files): the rows kept must be equal (checked);
#  3. `dedup --near 0.8` against datasketch's MinHashLSH(0.8, 128) with every row inserted and
#     queried and its candidates joined into components (the reference of tests/dedup.rs) on the
#     200,000 rows: the marked rows must be equal (checked);
#  4. `dedup --near 0.8` over the 10M rows and `dedup --exact either --only-kept` over 100M and
#     1B rows (the 10M rows' files hard-linked 10 and 100 times under other names: this measures
#     CPU and memory, not storage): wall time and peak RSS; the rows kept must be the 10M run's.
# Needs: the WMT23 mirror (WMT23=path of its git directory); python3 with venv (datasketch,
# opusfilter and pyarrow are installed in $BENCH_DIR/dedup/venv, or give VENV).
# Rewrites the "MinHash" and "Duplicates" sections of BENCHMARKS.md (STEPS=dedup: the second).
#
#   WMT23=/work/.mirror/wmt-conference+wmt23-news-systems/repo scripts/bench_dedup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-/tmp/pm-bench}/dedup
WMT23=${WMT23:?the git directory of wmt-conference/wmt23-news-systems}
BILLION=${BILLION:-1}
STEPS=${STEPS:-minhash,dedup}
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
VENV=${VENV:-$DIR/venv}
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet opusfilter==3.3.1 datasketch==2.0.0 pyarrow; }

# Inputs: 200k and 1m as pyarrow writes them by default (one row group), 10m in ten files of
# 2^17-row row groups.
"$VENV/bin/python" - "$DIR" "$WMT23" <<'PY'
import os, subprocess, sys
import pyarrow as pa, pyarrow.parquet as pq
out, repo = sys.argv[1], sys.argv[2]
if os.path.exists(f"{out}/10m/part-9.parquet"):
    sys.exit(0)
show = lambda path: subprocess.run(["git", "--git-dir", repo, "show", f"HEAD:{path}"], check=True,
                                   capture_output=True).stdout.decode("utf-8").split("\n")[:-1]
names = subprocess.run(["git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "HEAD", "txt-ts/"],
                       check=True, capture_output=True, text=True).stdout.split()
src, tgt = [], []
for name in sorted(n for n in names if n.startswith("txt-ts/system-outputs/generaltest2023.")):
    pair = name.split(".")[1]
    sources = show(f"txt-ts/sources/generaltest2023.{pair}.src.{pair.split('-')[0]}")
    hyps = show(name)
    if len(hyps) != len(sources):
        continue
    src += sources
    tgt += hyps
print(f"{len(src)} WMT23 pairs", file=sys.stderr)
def write(path, n, rows_per_file, row_group_size=None):
    os.makedirs(path, exist_ok=True)
    for part, start in enumerate(range(0, n, rows_per_file)):
        idx = range(start, min(n, start + rows_per_file))
        copy = lambda i: "" if i < len(src) else f" ({i // len(src)})"
        pq.write_table(pa.table({
            "pair_id": pa.array(list(idx), pa.int64()),
            "src_text": [src[i % len(src)] + copy(i) for i in idx],
            "tgt_text": [tgt[i % len(src)] + copy(i) for i in idx],
        }), f"{path}/part-{part}.parquet", row_group_size=row_group_size)
write(f"{out}/200k", 200_000, 200_000)
write(f"{out}/1m", 1_000_000, 1_000_000)
with open(f"{out}/1m.src", "w", encoding="utf-8") as s, open(f"{out}/1m.tgt", "w", encoding="utf-8") as t:
    for b in pq.read_table(f"{out}/1m").to_batches():
        for x, y in zip(b.column(1).to_pylist(), b.column(2).to_pylist()):
            s.write(x + "\n"); t.write(y + "\n")
write(f"{out}/10m", 10_000_000, 1_000_000, 1 << 17)
PY
for copies in 10 100; do
    [ "$copies" = 100 ] && [ "$BILLION" != 1 ] && continue
    d=$DIR/x$copies
    [ -d "$d" ] && continue
    mkdir -p "$d.tmp"
    for k in $(seq -w 0 $((copies - 1))); do
        for f in "$DIR"/10m/part-*.parquet; do ln "$f" "$d.tmp/copy$k-$(basename "$f")"; done
    done
    mv "$d.tmp" "$d"
done

seconds() { /usr/bin/time -f "%e %M" -o "$DIR/time" "$@"; read -r wall kb < "$DIR/time"; }
rate() { echo "scale=0; $1 / $2" | bc; }
ratio() { echo "scale=1; $1 / $2" | bc; }
count() { "$BIN" sql --format csv --table "t=$1" "$2" | tail -1; }

if [[ $STEPS == *minhash* ]]; then
# 1. minhash: the signatures' first values summed and last values' maximum, on both sides (a
# checksum of every row's signature that costs nothing beside it).
seconds "$VENV/bin/python" -c "
import sys, pyarrow.parquet as pq
from datasketch import MinHash
texts = pq.read_table(sys.argv[1], columns=['src_text']).column(0).to_pylist()
sigs = MinHash.bulk([[w.encode('utf-8') for w in t.split()] for t in texts], num_perm=128, seed=1)
print(f'{sum(int(m.hashvalues[0]) for m in sigs)},{max(int(m.hashvalues[127]) for m in sigs)}')
" "$DIR/200k" > "$DIR/ds_minhash.out"
ds_wall=$wall
minhash="SELECT sum(s[1]), max(s[128]) FROM (SELECT minhash(tokenize(src_text), 128, 1) AS s FROM t)"
seconds "$BIN" sql --format csv --table "t=$DIR/200k" "$minhash" > "$DIR/pm_minhash.out"
pm_wall=$wall
[ "$(cat "$DIR/ds_minhash.out")" = "$(tail -1 "$DIR/pm_minhash.out")" ] || { echo "minhash: signatures differ" >&2; exit 1; }
seconds "$BIN" sql --format csv --table "t=$DIR/10m" "$minhash" > /dev/null
mh10_wall=$wall mh10_kb=$kb
section=$DIR/minhash.md
{
    echo "<!-- minhash: made by scripts/bench_dedup.sh -->"
    echo "## MinHash"
    echo
    echo "At $(git rev-parse --short HEAD), 2 cores, release, one run, on the pairs of the next section"
    echo "(\`scripts/bench_dedup.sh\` with STEPS=minhash): each row's signature of its source's words, as a"
    echo "checksum (the first values summed, the largest last value) that costs nothing beside it."
    echo "Times include process start and reading Parquet."
    echo
    echo "| job | datasketch 2.0.0 \`MinHash.bulk\` | pairmetrics | ratio |"
    echo "|---|---|---|---|"
    echo "| \`minhash(tokenize(src_text), 128, 1)\`, 200,000 rows (checksums equal, checked) | $ds_wall s | $pm_wall s | $(ratio "$ds_wall" "$pm_wall")x |"
    echo "| the same, 10M rows (target ≥ 1M rows/s) | | $mh10_wall s, $(rate 10000000 "$mh10_wall") rows/s, $((mh10_kb / 1024)) MB | |"
    echo
    echo "<!-- /minhash -->"
} > "$section"
python3 scripts/bench_section.py minhash "$section"
cat "$section"
fi

[[ $STEPS == *dedup* ]] || exit 0
# 2. Exact, against OpusFilter.
cat > "$DIR/remove_duplicates.yaml" <<YAML
common: {output_directory: $DIR}
steps:
  - type: remove_duplicates
    parameters: {inputs: [1m.src, 1m.tgt], outputs: [of.src, of.tgt]}
YAML
rm -f "$DIR/of.src" "$DIR/of.tgt"
seconds "$VENV/bin/opusfilter" "$DIR/remove_duplicates.yaml" 2> /dev/null
of_wall=$wall
rm -rf "$DIR/exact.parquet"
seconds "$BIN" dedup "$DIR/1m" "$DIR/exact.parquet" --only-kept 2> /dev/null
ex_wall=$wall ex_kb=$kb
# One partition: `sql` keeps the file's order.
"$BIN" sql --partitions 1 --format json --table "t=$DIR/exact.parquet" "SELECT src_text FROM t" | "$VENV/bin/python" -c "
import json, sys
ours = [json.loads(line)['src_text'] for line in sys.stdin]
theirs = open(sys.argv[1], encoding='utf-8', newline='').read().split('\n')[:-1]
assert ours == theirs, 'the rows kept differ'
print(len(ours))
" "$DIR/of.src" > "$DIR/exact_kept"

# 3. Near, against MinHashLSH + components, 200,000 rows.
seconds "$VENV/bin/python" -c "
import sys, pyarrow.parquet as pq
from datasketch import MinHash, MinHashLSH
t = pq.read_table(sys.argv[1])
pairs = list(zip(t.column('src_text').to_pylist(), t.column('tgt_text').to_pylist()))
sigs = MinHash.bulk([[w.encode('utf-8') for w in s.split() + g.split()] for s, g in pairs], num_perm=128, seed=1)
lsh = MinHashLSH(threshold=0.8, num_perm=128)
for i, m in enumerate(sigs):
    lsh.insert(i, m)
parent = list(range(len(sigs)))
def root(i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]; i = parent[i]
    return i
for i, m in enumerate(sigs):
    for j in lsh.query(m):
        a, b = root(i), root(j)
        if a != b: parent[max(a, b)] = min(a, b)
print(sum(root(i) != i for i in range(len(sigs))))
" "$DIR/200k" > "$DIR/ds_near.out"
dn_wall=$wall dn_kb=$kb
rm -rf "$DIR/near.parquet"
seconds "$BIN" dedup "$DIR/200k" "$DIR/near.parquet" --near 0.8 2> /dev/null
pn_wall=$wall pn_kb=$kb
near_marked=$(count "$DIR/near.parquet" "SELECT count(duplicate_of) FROM t")
[ "$near_marked" = "$(cat "$DIR/ds_near.out")" ] || { echo "near: $near_marked marked, MinHashLSH $(cat "$DIR/ds_near.out")" >&2; exit 1; }

# 4. At scale.
rm -rf "$DIR/near10m.parquet"
seconds "$BIN" dedup "$DIR/10m" "$DIR/near10m.parquet" --near 0.8 --only-kept 2> "$DIR/near10m.log"
n10_wall=$wall n10_kb=$kb
n10_kept=$(count "$DIR/near10m.parquet" "SELECT count(*) FROM t")
rm -rf "$DIR/near10m.parquet"
either() {
    rm -rf "$DIR/either.parquet"
    seconds "$BIN" dedup "$1" "$DIR/either.parquet" --exact either --only-kept --memory-limit 1536 2> "$DIR/either.log"
    kept=$(count "$DIR/either.parquet" "SELECT count(*) FROM t")
    rm -rf "$DIR/either.parquet"
}
either "$DIR/10m"; e10_wall=$wall e10_kb=$kb e10_kept=$kept
either "$DIR/x10"; e100_wall=$wall e100_kb=$kb
[ "$kept" = "$e10_kept" ] || { echo "100M: kept $kept, 10M kept $e10_kept" >&2; exit 1; }
if [ "$BILLION" = 1 ]; then
    either "$DIR/x100"; e1b_wall=$wall e1b_kb=$kb
    [ "$kept" = "$e10_kept" ] || { echo "1B: kept $kept, 10M kept $e10_kept" >&2; exit 1; }
fi

section=$DIR/section.md
{
    echo "<!-- dedup: made by scripts/bench_dedup.sh -->"
    echo "## Duplicates"
    echo
    echo "At $(git rev-parse --short HEAD), 2 cores, release, one run. Pairs: WMT23 general-test sources with"
    echo "each system's translation ($(count "$DIR/200k" "SELECT count(DISTINCT src_text) FROM t") distinct sources in the first 200,000); larger sets"
    echo "repeat them with a copy number appended to both sides. Every pairmetrics time includes"
    echo "process start and reading Parquet."
    echo
    echo "| job | reference | pairmetrics | ratio |"
    echo "|---|---|---|---|"
    echo "| \`dedup --exact pair --only-kept\`, 1M rows (rows kept equal, checked: $(cat "$DIR/exact_kept")) | OpusFilter 3.3.1 \`remove_duplicates\` on text files: $of_wall s | $ex_wall s, $((ex_kb / 1024)) MB | $(ratio "$of_wall" "$ex_wall")x |"
    echo "| \`dedup --near 0.8\`, 200,000 rows (marked rows equal in number, checked: $near_marked) | datasketch \`MinHash.bulk\` + \`MinHashLSH(0.8, 128)\` insert and query + components: $dn_wall s, $((dn_kb / 1024)) MB | $pn_wall s, $((pn_kb / 1024)) MB | $(ratio "$dn_wall" "$pn_wall")x |"
    echo "| \`dedup --near 0.8 --only-kept\`, 10M rows | target ≤ 2 GiB | $n10_wall s, $((n10_kb / 1024)) MB, $n10_kept kept | |"
    echo "| \`dedup --exact either --only-kept\`, 10M rows | | $e10_wall s, $((e10_kb / 1024)) MB, $e10_kept kept | |"
    echo "| the same, 100M rows (10 hard-linked copies) | | $e100_wall s, $((e100_kb / 1024)) MB, $e10_kept kept (checked) | |"
    [ "$BILLION" = 1 ] && echo "| the same, 1B rows (100 hard-linked copies) | target ≤ 2 GiB | $e1b_wall s, $((e1b_kb / 1024)) MB, $e10_kept kept (checked) | |"
    echo
    echo "<!-- /dedup -->"
} > "$section"
python3 scripts/bench_section.py dedup "$section"
cat "$section"
