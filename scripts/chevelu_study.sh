#!/usr/bin/env bash
# Chevelu et al. (Coling 2010), §3.3 with Figure 1 and §4 with Figure 3, on the bundled
# Europarl sample with pairmetrics alone:
# - a French paraphrase table (extract, then pivot through English) learnt from every pair but
#   the first N;
# - Figure 1: the first N French sentences decoded into 100-best lists, each list re-ranked by
#   its true model score, every statistic of §3.3 for n = 5..100 over the full lists (the
#   paper's fixed set);
# - Figure 3: for the same sentences, the true model score of the decoder's re-ranked 1-best
#   (the source itself left out, as MCPG never returns it), of MCPG's 1-best in true-score
#   mode and in translator mode, and the mean ± sd of their differences.
# Differences from the paper: 2,900 training pairs, not Europarl's million; fast_align's model
# (`align-words`, grow-diag-final-and), not GIZA++; the language model is a 5-gram estimated by
# `lm estimate` (KenLM's modified Kneser-Ney) on the same 2,900 French sentences, not SRILM's on
# a large corpus; MCPG at eta = 10,000 episodes, not 100,000, to run in minutes.
#
# Usage: scripts/chevelu_study.sh [OUT_DIR]   (default target/chevelu-study; must not exist)
# Environment: PAIRMETRICS (default target/release/pairmetrics), HELD_OUT (default 100),
# NBEST (default 100), ETA (default 10000), LM_ORDER (default 5; 0: no language model, the
# model score is the phrase score alone), ALIGNMENTS (align-words, the default, or bundled:
# the sample's eflomal links).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PAIRMETRICS:-target/release/pairmetrics}
out=${1:-target/chevelu-study}
held=${HELD_OUT:-100}
nbest=${NBEST:-100}
eta=${ETA:-10000}
lm_order=${LM_ORDER:-5}
alignments=${ALIGNMENTS:-align-words}
data=data/europarl-sample
if [ ! -x "$bin" ]; then
    echo "no $bin: run cargo build --release, or set PAIRMETRICS" >&2
    exit 1
fi
if [ -e "$out" ]; then
    echo "$out: already exists" >&2
    exit 1
fi
mkdir -p "$out"
step() { echo "== $*" >&2; }

step "split: pairs $held.. learn the table, pairs 0..$held are decoded"
"$bin" sql --table p="$data/pairs.parquet" --out "$out/train-pairs.parquet" \
    "SELECT * FROM p WHERE pair_id >= $held ORDER BY pair_id"
case $alignments in
    align-words)
        step "word alignments of the training pairs: fast_align's model both ways, grow-diag-final-and"
        "$bin" align-words --pairs "$out/train-pairs.parquet" --out "$out/train-alignments.parquet" ;;
    bundled)
        "$bin" sql --table a="$data/alignments.parquet" --out "$out/train-alignments.parquet" \
            "SELECT * FROM a WHERE pair_id >= $held ORDER BY pair_id" ;;
    *) echo "ALIGNMENTS is align-words or bundled, not $alignments" >&2; exit 1 ;;
esac
"$bin" sql --table p="$data/pairs.parquet" --out "$out/held-out.parquet" \
    "SELECT pair_id, src, src AS tgt FROM p WHERE pair_id < $held ORDER BY pair_id"

step "the paraphrase table"
"$bin" extract --pairs "$out/train-pairs.parquet" --alignments "$out/train-alignments.parquet" \
    --out "$out/bilingual.parquet"
"$bin" pivot --table "$out/bilingual.parquet" --out "$out/paraphrases.parquet"

# The language model's flags for decode, rerank and paraphrase (none without one).
lm=()
rerank_lm=()
if [ "$lm_order" -gt 0 ]; then
    step "a French $lm_order-gram model of the training pairs' French side"
    "$bin" lm estimate --input "$out/train-pairs.parquet" --column src -o "$lm_order" \
        --discount-fallback --out "$out/fr.$lm_order.arpa"
    lm=(--lm "$out/fr.$lm_order.arpa")
    rerank_lm=(--lm-feature lm=)
fi

step "$nbest-best lists of the held-out sentences"
"$bin" decode "$out/held-out.parquet" --phrase-table "$out/paraphrases.parquet" \
    "${lm[@]}" --nbest "$nbest" > "$out/nbest.txt"
"$bin" import moses-nbest --nbest "$out/nbest.txt" --out "$out/nbest.parquet"

step "re-ranked by the true model score (Figure 1: $out/study/tau_a.svg; changed.svg, ranks.svg, gap.svg)"
"$bin" rerank --nbest "$out/nbest.parquet" --sources "$out/held-out.parquet" \
    --phrase-table "$out/paraphrases.parquet" --sizes "$(seq -s, 5 5 "$nbest")" --full-lists-only \
    --phrase-feature phrase= "${lm[@]}" "${rerank_lm[@]}" \
    --out "$out/study"

step "MCPG in both modes (eta = $eta)"
for mode in true-score translator; do
    "$bin" paraphrase "$out/held-out.parquet" --phrase-table "$out/paraphrases.parquet" \
        "${lm[@]}" --mode "$mode" --episodes "$eta" --out "$out/mcpg-$mode.parquet"
done

step "Figure 3: differences of true model scores, per sentence"
"$bin" sql --table h="$out/study/hypotheses.parquet" --table s="$out/held-out.parquet" \
    --table ts="$out/mcpg-true-score.parquet" --table tr="$out/mcpg-translator.parquet" "
WITH decoder AS (
  SELECT h.id, max(h.model_score) AS decoder
  FROM h JOIN s ON h.id = s.pair_id
  WHERE h.hyp <> array_to_string(s.src, ' ')
  GROUP BY h.id),
scores AS (
  SELECT d.id, d.decoder, ts.model_score AS ts, tr.model_score AS tr
  FROM decoder d
  JOIN ts ON ts.id = d.id AND ts.rank = 1
  JOIN tr ON tr.id = d.id AND tr.rank = 1)
SELECT count(*) AS sentences,
       round(avg(ts - decoder), 2) AS ts_minus_decoder, round(stddev(ts - decoder), 2) AS sd1,
       round(avg(tr - decoder), 2) AS translator_minus_decoder, round(stddev(tr - decoder), 2) AS sd2,
       round(avg(ts - tr), 2) AS ts_minus_translator, round(stddev(ts - tr), 2) AS sd3
FROM scores"
