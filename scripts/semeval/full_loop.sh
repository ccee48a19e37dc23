#!/usr/bin/env bash
# The IUCL loop (docs/l2-assist.md) on SemEval-2014 Task 5's fr-en trial data, with every
# resource built here from the bundled Europarl sample, and the word accuracy of each setting:
#
#   PYTHON=/path/to/venv/bin/python [ALIGNMENTS=bundled] scripts/semeval/full_loop.sh [TRIAL.xml]
#
# PYTHON has `pip install -r scripts/requirements-prepare.txt` (spaCy and its English model for
# the parses, pyarrow). TRIAL.xml defaults to tests/data/semeval2014t5/fr-en.trial.xml.gz.
#
# - The trial sentences are Europarl sentences: sample pairs whose English is a trial reference
#   are held out of every resource (phrase table, triples, LM), so no answer is looked up.
# - Phrase table: `pairmetrics align-words` (ALIGNMENTS=bundled: the sample's eflomal links
#   instead), then `pairmetrics extract`, over the rest (fr -> en); triples: `pairmetrics
#   triples` over its English parses (the sample's spaCy parses); LM: a modified Kneser-Ney
#   trigram over its English (`pairmetrics lm estimate`); parses of the trial inputs: spaCy
#   (scripts/semeval/parse.py), projected onto each candidate.
# - Trial sentences 1-250 are the dev set (MERT), 251-500 the test set every row is scored on
#   with the official rules (`semeval-eval -I`, best).
# - The projection is measured against spaCy's parses of the spliced test sentences.
set -euo pipefail
cd "$(dirname "$0")/../.."
trial=$(realpath "${1:-tests/data/semeval2014t5/fr-en.trial.xml.gz}")
source scripts/semeval/lib.sh
sample=$root/data/europarl-sample

"$pm" import semeval2014t5 "$trial" --out trial.parquet > /dev/null
split_trial "$trial"
"$pm" sql --table p="$sample/pairs.parquet" --table t=trial.parquet --out train.parquet \
    "SELECT * FROM p WHERE array_to_string(tgt, ' ') NOT IN (SELECT array_to_string(reference, ' ') FROM t WHERE reference IS NOT NULL)" > /dev/null
held_out=$(($(count "$sample/pairs.parquet") - $(count train.parquet)))
case ${ALIGNMENTS:-align-words} in
    align-words) "$pm" align-words --pairs train.parquet --out alignments.parquet > /dev/null 2>&1 ;;
    bundled) cp "$sample/alignments.parquet" alignments.parquet ;;
    *) echo "ALIGNMENTS is align-words or bundled" >&2; exit 1 ;;
esac
"$pm" extract --pairs train.parquet --alignments alignments.parquet --out phrases.parquet > /dev/null
"$pm" triples --pairs train.parquet --arcs "$sample/arcs.parquet" --side tgt --out triples.parquet > /dev/null
estimate_lm train.parquet tgt en.arpa
"$python" "$root/scripts/semeval/parse.py" --table trial.parquet --column input --out inputs.conllu > /dev/null
resources=(--phrase-table phrases.parquet --lm en.arpa --triples triples.parquet --parses inputs.conllu)
echo "held out: $held_out of 3000 sample pairs (their English is a trial reference); phrase table: $(count phrases.parquet) rules"

tune_dev tuned
tune_dev tuned_tm --features lm,direct,inverse
assist lm '{"weights": {"lm": 1}}'
assist tm '{"weights": {"direct": 1}}'
assist lm_tm '{"weights": {"lm": 1, "direct": 1, "inverse": 1}}'
assist lm_tm_sim '{"weights": {"lm": 1, "direct": 1, "inverse": 1, "pmi_lex": 1, "pmi_pos": 1}}' --table projected.parquet
assist tuned tuned.json
assist tuned_tm tuned_tm.json
oracle=$(oracle projected.parquet)
copy=$("$pm" sql --format csv --table c=projected.parquet \
    "SELECT count(DISTINCT pair_id) FROM c WHERE origin = 'copy'" | tail -1)

echo
echo "| fr-en trial, sentences 251-500 | accuracy | word accuracy | recall |"
echo "|---|---|---|---|"
for row in "lm:LM only" "tm:TM only (direct)" "lm_tm:LM + TM" "lm_tm_sim:LM + TM + SIM (projected parses)" "tuned:tuned by MERT on 1-250" "tuned_tm:tuned by MERT on 1-250, LM + TM features only"; do
    read -r a w r <<< "$(score "${row%%:*}.xml")"
    printf '| %s | %.4f | %.4f | %s |\n' "${row#*:}" "$a" "$w" "$r"
done
printf '| oracle (best candidate of each list) | | %.4f | |\n' "$oracle"
echo
echo "candidates: $(tail -1 lm_tm_sim.log) ($copy fragments copied untranslated)"
echo "tuned: $(head -1 tuned.out | cut -d: -f2-)"
echo "dev: $(tail -1 tuned.out)"
echo "tuned, LM + TM only: $(head -1 tuned_tm.out | cut -d: -f2-); dev: $(tail -1 tuned_tm.out)"

# The projection against spaCy's own parses of the spliced test sentences.
"$python" "$root/scripts/semeval/parse.py" --table projected.parquet --column sentence --out spliced.conllu > /dev/null
"$python" - <<'PY'
import pyarrow.parquet as pq
parses = {}
words = []
for line in open("spliced.conllu", encoding="utf-8"):
    line = line.rstrip("\n")
    if not line:
        if words:
            parses[tuple(w[0] for w in words)] = [(int(w[1]), w[2]) for w in words]
        words = []
        continue
    f = line.split("\t")
    words.append((f[1], f[6], f[7]))
table = pq.read_table("projected.parquet", columns=["sentence", "candidate_start", "candidate_end", "head", "deprel", "parse"]).to_pylist()
same_sentence = candidates = 0
tokens = uas = las = 0
context = context_same = 0
for r in table:
    if r["parse"] != "projected":
        continue
    real = parses[tuple(r["sentence"])]
    projected = list(zip(r["head"], r["deprel"]))
    candidates += 1
    same_sentence += [h for h, _ in real] == [h for h, _ in projected]
    for i in range(len(real)):
        if r["candidate_start"] <= i < r["candidate_end"]:
            tokens += 1
            uas += real[i][0] == projected[i][0]
            las += real[i] == projected[i]
        else:
            context += 1
            context_same += real[i][0] == projected[i][0]
print(f"projection vs spaCy on {candidates} spliced test sentences: every head the same in {same_sentence / candidates:.1%}; "
      f"candidate tokens' heads {uas / tokens:.1%} the same, heads and relations {las / tokens:.1%} ({tokens} tokens); "
      f"context tokens' heads {context_same / context:.1%} the same ({context} tokens)")
PY
cat inputs.conllu spliced.conllu > both.conllu
resources=(--phrase-table phrases.parquet --lm en.arpa --triples triples.parquet --parses both.conllu)
assist spacy '{"weights": {"lm": 1, "direct": 1, "inverse": 1, "pmi_lex": 1, "pmi_pos": 1}}'
read -r a w r <<< "$(score spacy.xml)"
printf 'LM + TM + SIM with spaCy parses of every candidate sentence instead: accuracy %.4f, word accuracy %.4f\n' "$a" "$w"
