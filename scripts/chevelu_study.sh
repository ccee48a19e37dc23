#!/usr/bin/env bash
# Chevelu et al. (Coling 2010), §3.3 with Figure 1 and §4 with Figure 3, on the bundled
# Europarl sample with pairmetrics alone, under the paper's protocol:
# - a random sample of SAMPLE French sentences (drawn with SEED: the pairs ordered by
#   md5(SEED:pair_id)) is held out; a French paraphrase table (extract, then pivot through
#   English) and a French LM are learnt from the other pairs;
# - Figure 1: each sampled sentence decoded into an NBEST-best list of distinct paraphrases
#   (`decode --distinct`, as the paper's Moses lists); sentences whose list has fewer than
#   NBEST distinct paraphrases are left out, as the paper's 94 of 100; the lists re-ranked by
#   the true model score, every statistic of §3.3 for n = 5..NBEST over the same lists;
# - Figure 3: for the same sentences, the true model score of the decoder's re-ranked 1-best
#   (the source itself left out, as MCPG never returns it), of MCPG's 1-best in true-score
#   mode and in translator mode, each sentence and the mean ± sd of their differences.
# The decoder's model: MODEL=paper (the default) is the paper's description of it, the true
# model's features (phrase + LM, weights 1 and 1) plus distortion (weight 10), so without
# search errors its ranking is the true model's; MODEL=moses is Moses' untuned model
# (`decode --moses-weights`: both phrase probabilities, a phrase penalty, LM 0.5, distortion
# 0.3, a word bonus), which differs from the true model, as the paper's Moses did.
# Reordering: the decoder reorders as Moses does by default (distance-based, limit 6, the
# paper's weight 10); the true score, under the paper's assumption A2, scores monotone
# derivations only, so a hypothesis reachable only by a reordering has no true score: it is
# counted ("unscored") and left out. REORDERING=monotone decodes monotone instead.
# Differences from the paper: 2,900 training pairs, not Europarl's million; fast_align's model
# (`align-words`, grow-diag-final-and), not GIZA++; the language model is a 5-gram estimated by
# `lm estimate` (KenLM's modified Kneser-Ney) on the same French sentences, not SRILM's on a
# large corpus; a pivoted table has no lexical weights (Moses' own tables have them); MCPG at
# eta = 10,000 episodes, not 100,000, to run in minutes.
#
# Writes OUT_DIR/summary.txt (the commit, the parameters, the table's size and every number
# of the study: `rerank`'s report with Figure 3's row), OUT_DIR/study/ (the plots of every
# statistic against n, figure3.svg, figure3.parquet: each sentence's three scores) and the
# intermediate files.
#
# Usage: scripts/chevelu_study.sh [OUT_DIR]   (default target/chevelu-study; must not exist)
# Environment: PAIRMETRICS (default target/release/pairmetrics), SAMPLE (default 100), SEED
# (default 1), NBEST (default 100), ETA (default 10000), LM_ORDER (default 5; 0: no language
# model, the model score is the phrase score alone), ALIGNMENTS (align-words, the default, or
# bundled: the sample's eflomal links), REORDERING (distortion, the default, or monotone),
# MODEL (paper, the default, or moses), TRAIN_PAIRS (default: all the pairs not sampled;
# fewer for a quick run).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PAIRMETRICS:-target/release/pairmetrics}
out=${1:-target/chevelu-study}
sample=${SAMPLE:-100}
seed=${SEED:-1}
nbest=${NBEST:-100}
eta=${ETA:-10000}
lm_order=${LM_ORDER:-5}
alignments=${ALIGNMENTS:-align-words}
reordering=${REORDERING:-distortion}
model=${MODEL:-paper}
train_pairs=${TRAIN_PAIRS:-}
data=data/europarl-sample
if [ ! -x "$bin" ]; then
    echo "no $bin: run cargo build --release, or set PAIRMETRICS" >&2
    exit 1
fi
if [ -e "$out" ]; then
    echo "$out: already exists" >&2
    exit 1
fi
case $reordering in
    distortion) reorder=() ;;
    monotone) reorder=(--monotone) ;;
    *) echo "REORDERING is distortion or monotone, not $reordering" >&2; exit 1 ;;
esac
case $model in
    paper) weights=() ;;
    moses) weights=(--moses-weights) ;;
    *) echo "MODEL is paper or moses, not $model" >&2; exit 1 ;;
esac
case $alignments in
    align-words|bundled) ;;
    *) echo "ALIGNMENTS is align-words or bundled, not $alignments" >&2; exit 1 ;;
esac
for n in "$sample" "$seed" "$nbest" "$eta" "$lm_order" ${train_pairs:+"$train_pairs"}; do
    case $n in ''|*[!0-9]*) echo "SAMPLE, SEED, NBEST, ETA, LM_ORDER and TRAIN_PAIRS are whole numbers, not '$n'" >&2; exit 1 ;; esac
done
# The commit the study runs at, taken before any step.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
    commit="$commit (with uncommitted changes)"
fi
mkdir -p "$out"
# The steps report on stderr; stdout is the summary alone.
exec 3>&1 1>&2
step() { echo "== $*" >&2; }
count() { "$bin" sql --format csv --table t="$1" "SELECT count(*) AS n FROM t" | tail -n 1; }

step "split: $sample sentences drawn with seed $seed are decoded, the other pairs learn the tables"
order="md5(concat('$seed:', CAST(pair_id AS VARCHAR)))"
"$bin" sql --table p="$data/pairs.parquet" --out "$out/held-out.parquet" \
    "SELECT pair_id, src, src AS tgt FROM p ORDER BY $order LIMIT $sample"
"$bin" sql --table p="$data/pairs.parquet" --table h="$out/held-out.parquet" \
    --out "$out/train-pairs.parquet" \
    "SELECT * FROM p WHERE pair_id NOT IN (SELECT pair_id FROM h) ORDER BY pair_id ${train_pairs:+LIMIT $train_pairs}"
case $alignments in
    align-words)
        step "word alignments of the training pairs: fast_align's model both ways, grow-diag-final-and"
        "$bin" align-words --pairs "$out/train-pairs.parquet" --out "$out/train-alignments.parquet" ;;
    bundled)
        "$bin" sql --table a="$data/alignments.parquet" --table t="$out/train-pairs.parquet" \
            --out "$out/train-alignments.parquet" \
            "SELECT * FROM a WHERE pair_id IN (SELECT pair_id FROM t) ORDER BY pair_id" ;;
esac

step "the paraphrase table"
"$bin" extract --pairs "$out/train-pairs.parquet" --alignments "$out/train-alignments.parquet" \
    --out "$out/bilingual.parquet"
"$bin" pivot --table "$out/bilingual.parquet" --out "$out/paraphrases.parquet" | tee "$out/pivot.txt"

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

step "$nbest-best lists of distinct paraphrases of the sampled sentences ($model model, $reordering)"
"$bin" decode "$out/held-out.parquet" --phrase-table "$out/paraphrases.parquet" \
    "${lm[@]}" "${reorder[@]}" "${weights[@]}" --nbest "$nbest" --distinct > "$out/nbest.txt"
"$bin" import moses-nbest --nbest "$out/nbest.txt" --out "$out/nbest.parquet"

step "MCPG in both modes (eta = $eta)"
for mode in true-score translator; do
    "$bin" paraphrase "$out/held-out.parquet" --phrase-table "$out/paraphrases.parquet" \
        "${lm[@]}" --mode "$mode" --episodes "$eta" --out "$out/mcpg-$mode.parquet"
done

step "re-ranked by the true model score (Figure 1: $out/study/tau_a.svg; Figure 3: figure3.svg)"
sizes=$(seq -s, 5 5 "$nbest")
if [ "$nbest" -lt 5 ]; then sizes=$nbest; fi
"$bin" rerank --nbest "$out/nbest.parquet" --sources "$out/held-out.parquet" \
    --phrase-table "$out/paraphrases.parquet" --sizes "$sizes" --full-lists-only \
    --phrase-feature phrase= "${lm[@]}" "${rerank_lm[@]}" \
    --versus mcpg_true_score="$out/mcpg-true-score.parquet" \
    --versus mcpg_translator="$out/mcpg-translator.parquet" \
    --out "$out/study" > "$out/rerank.txt"

{
    echo "Chevelu et al. (2010) §3.3 and §4 on data/europarl-sample, scripts/chevelu_study.sh"
    echo "commit: $commit"
    echo "sample: $sample sentences, seed $seed; training pairs: $(count "$out/train-pairs.parquet")"
    echo "nbest: $nbest distinct; decoder model: $model; reordering: $reordering; lm order: $lm_order; alignments: $alignments; eta: $eta"
    grep '^wrote .*paraphrase rules' "$out/pivot.txt"
    cat "$out/rerank.txt"
} > "$out/summary.txt"
cat "$out/summary.txt" >&3
