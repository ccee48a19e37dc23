#!/usr/bin/env bash
# The IUCL loop (docs/l2-assist.md) on a language pair's trial data where this repository has
# no parallel text: the phrase table and the LM are built from the task's gold *test* corpus
# (tests/data/semeval2014t5/PAIR.gold.tokenised.xml.gz), which shares no sentence with the
# trial data:
#
#   PYTHON=/path/to/venv/bin/python scripts/semeval/gold_table_loop.sh en-de|en-es|nl-en|fr-en
#
# PYTHON has pyarrow. Phrase table: every (L1 fragment, reference or alternative) pair of the
# gold corpus, p(e|f) = c(f, e) / c(f) and p(f|e) = c(f, e) / c(e) (the lexical weights the
# same); LM: a modified Kneser-Ney trigram over the gold corpus's reference sentences (`lm
# estimate`). No parser or treebank for these L2s here, so no SIM features. Trial sentences
# 1-250 tune, 251-500 are scored with `semeval-eval -I` (best).
set -euo pipefail
pair=${1:?usage: gold_table_loop.sh PAIR (en-de, en-es, nl-en or fr-en)}
cd "$(dirname "$0")/../.."
source scripts/semeval/lib.sh
data=$root/tests/data/semeval2014t5

"$pm" import semeval2014t5 "$data/$pair.gold.tokenised.xml.gz" --out gold.parquet > /dev/null
split_trial "$data/$pair.trial.xml.gz"
"$pm" sql --table g=gold.parquet --out phrases.parquet "
    WITH pairs AS (
        SELECT fragment AS f, reference_fragment AS e FROM g WHERE fragment IS NOT NULL AND reference_fragment IS NOT NULL
        UNION ALL
        SELECT fragment, unnest(reference_alternatives) FROM g WHERE fragment IS NOT NULL),
    counted AS (SELECT f, e, CAST(count(*) AS DOUBLE) AS n FROM pairs WHERE cardinality(e) > 0 GROUP BY f, e)
    SELECT array_to_string(f, ' ') AS src, array_to_string(e, ' ') AS tgt, f AS src_tokens, e AS tgt_tokens,
        n / sum(n) OVER (PARTITION BY e) AS p_f_e, n / sum(n) OVER (PARTITION BY e) AS lex_f_e,
        n / sum(n) OVER (PARTITION BY f) AS p_e_f, n / sum(n) OVER (PARTITION BY f) AS lex_e_f
    FROM counted" > /dev/null
"$pm" sql --table g=gold.parquet --out references.parquet "SELECT DISTINCT reference FROM g WHERE reference IS NOT NULL" > /dev/null
estimate_lm references.parquet reference lm.arpa
resources=(--phrase-table phrases.parquet --lm lm.arpa)

tune_dev tuned --features lm,direct,inverse
assist lm '{"weights": {"lm": 1}}'
assist tm '{"weights": {"direct": 1}}'
assist lm_tm '{"weights": {"lm": 1, "direct": 1, "inverse": 1}}' --table candidates.parquet
assist tuned tuned.json
echo "$pair: phrase table of $(count phrases.parquet) rules from the gold test corpus; $(tail -1 lm_tm.log | sed 's/; parses.*//')"
echo "| $pair trial, sentences 251-500 | accuracy | word accuracy |"
echo "|---|---|---|"
for row in "lm:LM only" "tm:TM only (direct)" "lm_tm:LM + TM" "tuned:tuned by MERT on 1-250 (LM + TM)"; do
    read -r a w _ <<< "$(score "${row%%:*}.xml")"
    printf '| %s | %.4f | %.4f |\n' "${row#*:}" "$a" "$w"
done
printf '| oracle (best candidate of each list) | | %.4f |\n' "$(oracle candidates.parquet)"
echo "tuned: $(head -1 tuned.out | cut -d: -f2-); dev: $(tail -1 tuned.out)"
