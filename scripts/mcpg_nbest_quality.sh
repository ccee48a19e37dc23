#!/usr/bin/env bash
# How good is MCPG's n-best list at a given budget? docs/mcpg.md ("What the n-best list
# promises") quotes this script's output: chevelu.md's example sentence, paraphrased with the
# pivot table of the bundled Europarl sample, `--nbest 3`, seeds 0-9, at each episode budget;
# the mean reward at each rank and how many runs found the best reward seen in any run.
#   scripts/mcpg_nbest_quality.sh [PAIRMETRICS] [EPISODES...]   (default: 10000 100000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/target/debug/pairmetrics}
shift || true
budgets=("${@:-10000 100000}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
d=$root/data/europarl-sample
"$bin" extract --pairs "$d/pairs.parquet" --alignments "$d/alignments.parquet" \
    --out bilingual.parquet 2>/dev/null
"$bin" pivot --table bilingual.parquet --out paraphrases.parquet 2>/dev/null
echo "Madame la Présidente , c' est une motion de procédure ." > in.txt
for episodes in ${budgets[*]}; do
    for seed in 0 1 2 3 4 5 6 7 8 9; do
        "$bin" paraphrase in.txt --phrase-table paraphrases.parquet --nbest 3 \
            --episodes "$episodes" --seed "$seed" 2>/dev/null |
            awk -F' \\|\\|\\| ' '{ printf "%s ", $4 } END { print "" }'
    done > "rewards.$episodes"
done
best=$(cat rewards.* | tr ' ' '\n' | grep . | sort -g | tail -1)
for episodes in ${budgets[*]}; do
    awk -v e="$episodes" -v best="$best" '
        { for (i = 1; i <= 3; i++) sum[i] += $i; if ($1 == best) found++ }
        END { printf "episodes %s: mean reward by rank %.4f %.4f %.4f; best (%.4f) first in %d of %d runs\n",
                     e, sum[1] / NR, sum[2] / NR, sum[3] / NR, best, found, NR }' "rewards.$episodes"
done
