#!/usr/bin/env bash
# Language-model estimation against KenLM's lmplz, side by side in one run: writes the
# "LM estimation" section of BENCHMARKS.md.
#
#   LMPLZ=/path/to/lmplz scripts/bench_lmplz.sh            # 1,000,000 sentences, orders 3 and 5
#   LMPLZ=... BENCH_SENTENCES=100000 scripts/bench_lmplz.sh  # a quick run
#
# LMPLZ is a KenLM lmplz built with -O3 (scripts/make_lmplz_vectors.sh builds one under a
# temporary directory; keep it with its CMakeLists: cmake -DCMAKE_BUILD_TYPE=Release). The
# text is the tgt side of generate_corpus's Europarl-shaped pairs (Zipf-distributed words), one
# sentence per line (its words, independent draws, leave no word seen once: the discounts of
# unigrams cannot be estimated, so both tools run with their fallback discounts); both read
# it from a file, write ARPA to a file, and must write the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_SENTENCES:-1000000}
# The memory limit of the limited runs (lmplz's -S syntax), well under what the default takes.
LIMIT=${BENCH_LM_LIMIT:-1G}
DIR=${BENCH_DIR:-/tmp/pm-bench}/lmplz
: "${LMPLZ:?set LMPLZ to the lmplz of KenLM}"
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin pairmetrics --example generate_corpus
    BIN=target/release/pairmetrics
fi
GEN=$(dirname "$BIN")/examples/generate_corpus
mkdir -p "$DIR"
[ -f "$DIR/c$N/pairs.parquet" ] || "$GEN" "$N" "$DIR/c$N" >&2
# The text in the table's order (pair_id ascending, as generate_corpus writes it): the order of
# first appearance numbers the words, and the ARPA lists n-grams in that order.
text=$DIR/c$N/tgt.txt
[ -f "$text" ] || "$BIN" sql --format csv --table "p=$DIR/c$N/pairs.parquet" \
    "SELECT array_to_string(tgt, ' ') AS s FROM p ORDER BY pair_id" | tail -n +2 > "$text"
words=$(wc -w < "$text")

# job: wall, CPU (user + system) and peak RSS of a command, from GNU time.
measure() {
    /usr/bin/time -f "%e %U %S %M" -o "$DIR/time" "$@" > /dev/null 2> "$DIR/log" ||
        { cat "$DIR/log" >&2; exit 1; }
    read -r wall user sys rss < "$DIR/time" || exit 1
    echo "$wall $(echo "$user + $sys" | bc) $((rss / 1024))"
}

{
echo "<!-- lmplz: made by scripts/bench_lmplz.sh -->"
echo "## LM estimation against lmplz"
echo
echo "pairmetrics $(git rev-parse --short HEAD) (release) and KenLM's lmplz ($LMPLZ, -O3), $(nproc) cores;"
echo "$N sentences ($words words) of generate_corpus's tgt side, one per line. Both read the"
echo "text file (\`lm estimate\` the Parquet column) and write the ARPA to a file, with their"
echo "fallback discounts (no word of this text is seen once); the ARPA files are compared byte for byte."
echo "Without -S both take 80% of physical memory; the \`-S $LIMIT\` rows show the estimate within a smaller limit."
echo
echo "| order | job | wall | CPU | peak RSS | wall vs lmplz | same ARPA |"
echo "|---|---|---|---|---|---|---|"
for order in 3 5; do
    read -r w c m <<< "$(measure "$LMPLZ" -o "$order" --discount_fallback -S 80% -T "$DIR" --text "$text" --arpa "$DIR/lmplz.arpa")"
    [ -n "$w" ] || exit 1
    echo "| $order | \`lmplz -o $order\` | ${w} s | ${c} s | ${m} MB | 1.00x | |"
    read -r w2 c2 m2 <<< "$(measure "$BIN" lmplz -o "$order" --discount_fallback --text "$text" --arpa "$DIR/ours.arpa")"
    [ -n "$w2" ] || exit 1
    same=$(cmp -s "$DIR/lmplz.arpa" "$DIR/ours.arpa" && echo yes || echo NO)
    echo "| $order | \`pairmetrics lmplz -o $order\` | ${w2} s | ${c2} s | ${m2} MB | $(echo "scale=2; $w2 / $w" | bc)x | $same |"
    read -r w4 c4 m4 <<< "$(measure "$BIN" lmplz -o "$order" --discount_fallback -S "$LIMIT" -T "$DIR/" --text "$text" --arpa "$DIR/ours.arpa")"
    [ -n "$w4" ] || exit 1
    same=$(cmp -s "$DIR/lmplz.arpa" "$DIR/ours.arpa" && echo yes || echo NO)
    echo "| $order | \`pairmetrics lmplz -o $order -S $LIMIT\` | ${w4} s | ${c4} s | ${m4} MB | $(echo "scale=2; $w4 / $w" | bc)x | $same |"
    read -r w3 c3 m3 <<< "$(measure "$BIN" lm estimate --input "$DIR/c$N/pairs.parquet" --column tgt -o "$order" --discount-fallback --out "$DIR/ours.arpa")"
    [ -n "$w3" ] || exit 1
    same=$(cmp -s "$DIR/lmplz.arpa" "$DIR/ours.arpa" && echo yes || echo NO)
    echo "| $order | \`pairmetrics lm estimate -o $order\` (Parquet) | ${w3} s | ${c3} s | ${m3} MB | $(echo "scale=2; $w3 / $w" | bc)x | $same |"
done
echo "<!-- /lmplz -->"
} > "$DIR/section.md"
cat "$DIR/section.md"
python3 scripts/bench_section.py lmplz "$DIR/section.md"
