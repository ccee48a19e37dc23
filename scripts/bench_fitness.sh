#!/usr/bin/env bash
# Throughput and memory of the dependency-fitness and language-model parts (SPEC §4), on a
# generated corpus:
#
#   scripts/bench_fitness.sh [PAIRS [LM_SENTENCES [DIR]]]     # defaults: 1000000 200000 /tmp/pm-fitness
#
# Needs a release build (cargo build --release) and Python 3 (no packages). Prints one line per
# measurement: wall seconds, peak RSS (/usr/bin/time) and the rate.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
LM_SENTENCES=${2:-200000}
DIR=${3:-/tmp/pm-fitness}
BIN=target/release/pairmetrics
mkdir -p "$DIR"

timed() { # label, rows, command...
    local label=$1 rows=$2; shift 2
    /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" > "$DIR/out" 2> "$DIR/err" || { cat "$DIR/err"; exit 1; }
    read -r seconds kb < "$DIR/time"
    printf '%-44s %8.2f s %8d MB %12.0f rows/s\n' "$label" "$seconds" $((kb / 1024)) "$(echo "$rows / $seconds" | bc -l)"
}

if [ ! -f "$DIR/arcs.parquet" ]; then
    python3 scripts/gen_corpus.py "$N" "$DIR/text" > /dev/null
    $BIN import text --src "$DIR/text/s1.txt" --tgt "$DIR/text/s2.txt" --out "$DIR/pairs.parquet" > /dev/null
    $BIN import conllu --src "$DIR/text/s1.conllu" --tgt "$DIR/text/s2.conllu" --out "$DIR/arcs.parquet" > /dev/null
fi
if [ ! -f "$DIR/model.arpa" ]; then
    python3 - "$DIR/text/s2.txt" "$LM_SENTENCES" "$DIR/model.arpa" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fixture", "scripts/make_lm_fixture.py")
fixture = importlib.util.module_from_spec(spec); spec.loader.exec_module(fixture)
with open(sys.argv[1], encoding="utf-8") as f:
    lines = [next(f).strip() for _ in range(int(sys.argv[2]))]
open(sys.argv[3], "w", encoding="utf-8").write(fixture.backoff_arpa(lines))
PY
fi
ARCS=$($BIN sql --format csv --table r="$DIR/arcs.parquet" \
    "SELECT count(*) FROM (SELECT unnest(tgt_head) AS h FROM r) WHERE h > 0" | tail -1)
NGRAMS=$(grep -m3 '^ngram ' "$DIR/model.arpa" | cut -d= -f2 | paste -sd+ | bc)
echo "corpus: $N pairs, $ARCS tgt arcs; LM: $NGRAMS n-grams ($(grep -m3 '^ngram ' "$DIR/model.arpa" | tr '\n' ' '))"

timed "triples (form + upos, $ARCS arcs each)" $((ARCS * 2)) \
    $BIN triples --pairs "$DIR/pairs.parquet" --arcs "$DIR/arcs.parquet" --out "$DIR/triples.parquet"
grep -E "distinct" "$DIR/out" | sed 's/^/    /'
timed "load triples (SELECT 1)" 1 $BIN sql --triples "$DIR/triples.parquet" "SELECT 1"
sed 's/^/    /' "$DIR/err"
timed "load LM (SELECT 1), per n-gram" "$NGRAMS" $BIN sql --lm "$DIR/model.arpa" "SELECT 1"
sed 's/^/    /' "$DIR/err"
timed "lm_logprob(tgt) over $N pairs" "$N" $BIN sql --lm "$DIR/model.arpa" --table p="$DIR/pairs.parquet" \
    "SELECT sum(lm_logprob(tgt)) FROM p"
timed "dep_fit(tgt, 2 words) over $N pairs" "$N" $BIN sql --triples "$DIR/triples.parquet" \
    --table p="$DIR/pairs.parquet" --table r="$DIR/arcs.parquet" \
    "SELECT sum(dep_fit(p.tgt, r.tgt_head, r.tgt_deprel, 1, 2)) FROM p JOIN r USING (pair_id)"
timed "dep_fit(tgt, whole sentence) over $N pairs" "$N" $BIN sql --triples "$DIR/triples.parquet" \
    --table p="$DIR/pairs.parquet" --table r="$DIR/arcs.parquet" \
    "SELECT sum(dep_fit(p.tgt, r.tgt_head, r.tgt_deprel, 0, cardinality(p.tgt))) FROM p JOIN r USING (pair_id)"
timed "scan floor: sum(cardinality) over the join" "$N" $BIN sql \
    --table p="$DIR/pairs.parquet" --table r="$DIR/arcs.parquet" \
    "SELECT sum(cardinality(p.tgt) + cardinality(r.tgt_head)) FROM p JOIN r USING (pair_id)"
