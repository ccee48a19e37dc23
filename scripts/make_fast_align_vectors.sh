#!/usr/bin/env bash
# The expected outputs tests/fast_align.rs compares `pairmetrics fast-align` and `pairmetrics
# atools` with: fast_align
# itself (clab/fast_align, built here with its CMakeLists: -O3, OpenMP, run on one thread, which
# makes it deterministic) on tests/data/fast_align/europarl.fr-en.gz, once per case of
# tests/data/fast_align/cases.tsv, and atools -c COMMAND on the dov and dov-r cases' links (the
# forward and reverse alignments) for each of its commands. Also checks the libstdc++ iteration order the Rust code
# simulates. Needs g++, cmake (apt-get install g++ cmake) and a checkout (or bare mirror) of fast_align:
#
#   scripts/make_fast_align_vectors.sh /path/to/fast_align
#   OUT=DIR scripts/make_fast_align_vectors.sh /path/to/fast_align   # write them to DIR instead
#
# CI does not run this: it compares with the committed files.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:?usage: $0 FAST_ALIGN_CHECKOUT}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# A bare mirror (as fetched) is exported first.
if [ -f "$SRC/HEAD" ] && [ ! -f "$SRC/CMakeLists.txt" ]; then
    mkdir "$WORK/src"
    git -C "$SRC" archive HEAD | tar -x -C "$WORK/src"
    SRC=$WORK/src
fi
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$WORK/build" -j "$(nproc)" --target fast_align atools >/dev/null
DATA=tests/data/fast_align
OUT=${OUT:-$DATA}
mkdir -p "$OUT"
zcat "$DATA/europarl.fr-en.gz" > "$WORK/corpus"
while IFS=$'\t' read -r name flags; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$WORK/build/fast_align" -i "$WORK/corpus" $flags 2>/dev/null \
        | gzip -9n > "$OUT/$name.align.gz"
    echo "$name: fast_align $flags"
done < "$DATA/cases.tsv"
# Translation tables (-p) of the first 100 lines, kept small.
head -100 "$WORK/corpus" > "$WORK/corpus.100"
for case in "dov:-d -o -v" "model1:" "vb-threshold:-v -a 0.1 -t -2"; do
    name=${case%%:*} flags=${case#*:}
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$WORK/build/fast_align" -i "$WORK/corpus.100" $flags -p "$WORK/table" \
        >/dev/null 2>&1
    gzip -9nc "$WORK/table" > "$OUT/table-$name.100.tsv.gz"
    echo "table-$name: fast_align -i (100 lines) $flags -p"
done
for command in intersect union grow-diag grow-diag-final grow-diag-final-and; do
    "$WORK/build/atools" -i <(zcat "$OUT/dov.align.gz") -j <(zcat "$OUT/dov-r.align.gz") \
        -c "$command" | gzip -9n > "$OUT/atools-$command.align.gz"
    echo "atools-$command: atools -i dov -j dov-r -c $command"
done
for command in convert invert; do
    "$WORK/build/atools" -i <(zcat "$OUT/dov.align.gz") -c "$command" \
        | gzip -9n > "$OUT/atools-$command.align.gz"
    echo "atools-$command: atools -i dov -c $command"
done
# The growth table of std::unordered_map, as crates/kernels/src/align/fast_align.rs records it.
g++ -O2 -std=c++11 -o "$WORK/growth" scripts/fast_align/std_unordered_growth.cc
"$WORK/growth" > "$WORK/growth.txt"
echo "std::unordered_map growth (compare with GROWTH in crates/kernels/src/align/fast_align.rs):"
tr '\n' ' ' < "$WORK/growth.txt"; echo
