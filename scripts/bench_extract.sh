#!/usr/bin/env bash
# `pairmetrics extract` on a generated Europarl-like corpus (examples/generate_corpus: 100,000
# word types, so phrase pairs are nearly all distinct: the worst case for the GROUP BYs), with
# no memory limit and under --memory-limit, against the scan floor. Rewrites the "Phrase
# extraction" section of BENCHMARKS.md.
#
#   scripts/bench_extract.sh [PAIRS] [MEMORY_LIMIT_MB]     # default 100000 pairs, 512 MB
#
# BIN=path/to/pairmetrics uses that binary (and the generate_corpus example beside it) instead
# of building release ones.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-100000}
limit=${2:-512}
DIR=${BENCH_DIR:-/tmp/pm-bench}/extract
mkdir -p "$DIR"
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin pairmetrics --example generate_corpus
    BIN=$PWD/target/release/pairmetrics
fi
GEN=$(dirname "$BIN")/examples/generate_corpus
c=$DIR/c$pairs
[ -f "$c/alignments.parquet" ] || "$GEN" "$pairs" "$c" >&2
rows_table=()
measure() {
    local job=$1; shift
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" \
        || { cat "$DIR/err" >&2; exit 1; }
    read -r wall kb user sys < "$DIR/time"
    rows_table+=("| $job | $wall s | $(echo "$user + $sys" | bc) s | $((kb / 1024)) MB |")
    echo "$job: $wall s, $((kb / 1024)) MB" >&2
}
measure "scan floor (pairs JOIN alignments)" "$BIN" sql --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" \
    "SELECT sum(cardinality(p.src) + cardinality(p.tgt) + cardinality(a.links)) FROM p JOIN a USING (pair_id)"
measure "extract_phrases alone (count the occurrences)" "$BIN" sql --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" \
    "SELECT sum(cardinality(extract_phrases(p.src, p.tgt, a.links))) FROM p JOIN a USING (pair_id)"
occurrences=$(tail -1 "$DIR/out")
measure "extract, no memory limit" "$BIN" extract --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
    --out "$DIR/phrase_table.parquet"
summary=$(grep -E "^(pairs|word translation table|phrase pairs):" "$DIR/out" | paste -sd ';' | sed 's/;/; /g')
measure "extract --memory-limit $limit" "$BIN" extract --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
    --memory-limit "$limit" --out "$DIR/phrase_table_limited.parquet"
same=$("$BIN" sql --format csv --table "a=$DIR/phrase_table.parquet" --table "b=$DIR/phrase_table_limited.parquet" \
    "SELECT count(*) FROM ((SELECT * FROM a EXCEPT ALL SELECT * FROM b) UNION ALL (SELECT * FROM b EXCEPT ALL SELECT * FROM a))" | tail -1)
[ "$same" = 0 ] || { echo "the limited run wrote a different table ($same rows differ)" >&2; exit 1; }

section=$DIR/section.md
{
    echo "<!-- extract: made by scripts/bench_extract.sh -->"
    echo "## Phrase extraction"
    echo
    echo "\`pairmetrics extract\` (max phrase length 7) on $pairs generated pairs, pairmetrics"
    echo "$(git rev-parse --short HEAD), $(basename "$(dirname "$BIN")") build, 2 cores. $occurrences phrase-pair"
    echo "occurrences; $summary. Both runs wrote the same table."
    echo
    echo "| job | wall | CPU | peak RSS |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /extract -->"
} > "$section"
python3 scripts/bench_section.py extract "$section"
echo "wrote the Phrase extraction section of BENCHMARKS.md" >&2
