#!/usr/bin/env bash
# `pairmetrics extract` (max phrase length 7) on the bundled sample and on generated
# Europarl-like corpora (examples/generate_corpus: 100,000 word types, so phrase pairs are nearly
# all distinct, the worst case for the GROUP BYs), against the scan floor: wall time and peak
# memory as the corpus grows. Rewrites the "Phrase extraction" section of BENCHMARKS.md.
#
#   scripts/bench_extract.sh [PAIRS...]     # default 25000 50000 100000
#
# BIN=path/to/pairmetrics uses that binary (and the generate_corpus example beside it) instead
# of building release ones.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-25000 50000 100000}")
DIR=${BENCH_DIR:-/tmp/pm-bench}/extract
mkdir -p "$DIR"
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin pairmetrics --example generate_corpus
    BIN=$PWD/target/release/pairmetrics
fi
GEN=$(dirname "$BIN")/examples/generate_corpus
rows_table=()
measure() {
    local corpus=$1 job=$2; shift 2
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" \
        || { cat "$DIR/err" >&2; exit 1; }
    read -r wall kb user sys < "$DIR/time"
    rows_table+=("| $corpus | $job | $wall s | $(echo "$user + $sys" | bc) s | $((kb / 1024)) MB |")
    echo "$corpus $job: $wall s, $((kb / 1024)) MB" >&2
}
run() {
    local corpus=$1 c=$2
    measure "$corpus" "scan floor (pairs JOIN alignments)" "$BIN" sql --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" \
        "SELECT sum(cardinality(p.src) + cardinality(p.tgt) + cardinality(a.links)) FROM p JOIN a USING (pair_id)"
    measure "$corpus" "extract_phrases alone" "$BIN" sql --format csv --table "p=$c/pairs.parquet" --table "a=$c/alignments.parquet" \
        "SELECT sum(cardinality(extract_phrases(p.src, p.tgt, a.links))) FROM p JOIN a USING (pair_id)"
    local occurrences; occurrences=$(tail -1 "$DIR/out")
    measure "$corpus" "extract" "$BIN" extract --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
        --out "$DIR/phrase_table.parquet"
    local distinct; distinct=$(grep -E "^phrase pairs:" "$DIR/out" | cut -d' ' -f3)
    measure "$corpus" "extract --memory-limit 512" "$BIN" extract --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" \
        --out "$DIR/phrase_table_limited.parquet" --memory-limit 512
    local rows="SELECT src, tgt, p_f_e, lex_f_e, p_e_f, lex_e_f FROM t ORDER BY src, tgt"
    "$BIN" sql --format csv --table t="$DIR/phrase_table.parquet" "$rows" > "$DIR/table.csv"
    "$BIN" sql --format csv --table t="$DIR/phrase_table_limited.parquet" "$rows" > "$DIR/table_limited.csv"
    cmp -s "$DIR/table.csv" "$DIR/table_limited.csv" || { echo "$corpus: the table differs under --memory-limit" >&2; exit 1; }
    rm -f "$DIR/table.csv" "$DIR/table_limited.csv"
    rm -rf "$DIR/phrase_table_limited.parquet"
    counts+=("$corpus: $occurrences occurrences, $distinct distinct phrase pairs")
}
counts=()
run "sample (3,000 Europarl pairs)" data/europarl-sample
for n in ${sizes[*]}; do
    c=$DIR/c$n
    [ -f "$c/alignments.parquet" ] || "$GEN" "$n" "$c" >&2
    run "$n generated pairs" "$c"
done

section=$DIR/section.md
{
    echo "<!-- extract: made by scripts/bench_extract.sh -->"
    echo "## Phrase extraction"
    echo
    echo "\`pairmetrics extract\` (max phrase length 7), pairmetrics $(git rev-parse --short HEAD),"
    echo "$(basename "$(dirname "$BIN")") build, 2 cores. Without a limit, memory grows with the distinct"
    echo "phrase pairs; under \`--memory-limit 512\` the GROUP BYs, joins and sort spill (the same table, checked)."
    echo
    printf -- '- %s\n' "${counts[@]}"
    echo
    echo "| corpus | job | wall | CPU | peak RSS |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo "<!-- /extract -->"
} > "$section"
python3 scripts/bench_section.py extract "$section"
echo "wrote the Phrase extraction section of BENCHMARKS.md" >&2
