#!/usr/bin/env bash
# Make tests/data/lmplz's expected outputs with KenLM's lmplz itself: every case of
# tests/data/lmplz/cases.tsv run through lmplz, its ARPA kept gzipped (NAME.arpa.gz) when under
# 200 kB, else as its SHA-256 and size (NAME.sha256). tests/lmplz.rs compares pairmetrics
# against these; CI never builds KenLM.
#
#   scripts/make_lmplz_vectors.sh [KENLM_CHECKOUT]
#   OUT=DIR scripts/make_lmplz_vectors.sh KENLM_CHECKOUT   # write them to DIR instead
#
# KENLM_CHECKOUT is a kpu/kenlm source tree (default: /work/.mirror/kpu+kenlm/repo, a bare
# mirror, whose HEAD is exported). Building needs g++, cmake, zlib and Boost
# (apt-get install cmake libboost-program-options-dev libboost-system-dev
# libboost-thread-dev libboost-test-dev zlib1g-dev).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source=${1:-/work/.mirror/kpu+kenlm/repo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -d "$source/.git" ] || [ -f "$source/HEAD" ]; then
    git -C "$source" archive HEAD | tar -x -C "$work"
    echo "kenlm $(git -C "$source" rev-parse HEAD)" >&2
else
    cp -r "$source/." "$work"
fi
mkdir -p "$work/build"
(cd "$work/build" && cmake .. -DCMAKE_BUILD_TYPE=Release > /dev/null && make -j2 lmplz > /dev/null)
lmplz=$work/build/bin/lmplz
data=$root/tests/data/lmplz
out=${OUT:-$data}
mkdir -p "$out"
rm -f "$out"/*.arpa.gz "$out"/*.sha256
grep -v '^#' "$data/cases.tsv" | while IFS=$'\t' read -r name input flags; do
    # shellcheck disable=SC2086 # the flags are words
    if [[ $input == *.gz ]]; then gunzip -c "$root/$input"; else cat "$root/$input"; fi |
        "$lmplz" $flags > "$work/$name.arpa" 2> "$work/$name.log"
    if [ "$(stat -c %s "$work/$name.arpa")" -lt 200000 ]; then
        gzip -9nc "$work/$name.arpa" > "$out/$name.arpa.gz"
    else
        echo "$(sha256sum < "$work/$name.arpa" | cut -d' ' -f1) $(stat -c %s "$work/$name.arpa")" > "$out/$name.sha256"
    fi
    echo "$name" >&2
done
