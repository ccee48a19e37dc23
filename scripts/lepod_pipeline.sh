#!/usr/bin/env bash
# The original LePoD pipeline, end to end, with pairmetrics alone after tokenisation:
#   tokenised, lowercased text -> pairmetrics align (METEOR 1.5's Matcher) -> pairmetrics lepod
#
#   scripts/lepod_pipeline.sh EUROPARL_EN [WORKDIR]
#
# EUROPARL_EN: English lines of Europarl v7 fr-en (https://www.statmt.org/europarl/), e.g. the
# first 3,000 (europarl-v7.fr-en.head3000.en).
#
# S1 is the English side of the bundled Europarl sample, tokenised with sacremoses (the Python
# port of Moses' tokenizer.perl, which the original example.sh uses). S2 stands in for a
# paraphrase system's output: S1 with adjacent words swapped, words dropped and a few words
# replaced by synonyms, at random (seed 1). Both are lowercased, as LePoD's pipeline does before
# METEOR (which compares words as given), and `pairmetrics align` writes what METEOR 1.5's
# Matcher would (exact, stem and synonym matches).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
input=${1:?usage: scripts/lepod_pipeline.sh EUROPARL_EN [WORKDIR]}
work=${2:-${TMPDIR:-/tmp}/lepod-pipeline}
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q sacremoses==0.1.1
fi
py=$work/venv/bin/python

"$py" - "$input" "$work" <<'PY'
import random, sys
from sacremoses import MosesTokenizer
src, work = sys.argv[1], sys.argv[2]
tok = MosesTokenizer(lang="en")
rng = random.Random(1)
synonyms = {"important": "significant", "very": "extremely", "also": "too", "must": "should",
            "believe": "think", "because": "since", "large": "big", "help": "assist"}
with open(src, encoding="utf-8") as f, open(f"{work}/s1.tok", "w") as o1, open(f"{work}/s2.tok", "w") as o2:
    for line in f:
        t1 = tok.tokenize(line.strip(), aggressive_dash_splits=True, escape=False)
        if not t1:
            continue  # LeD is undefined for an empty sentence: leave blank lines out
        t2 = [synonyms.get(w, w) if rng.random() < 0.5 else w for w in t1 if rng.random() > 0.05] or t1[:1]
        for i in range(1, len(t2)):
            if rng.random() < 0.1:
                t2[i - 1], t2[i] = t2[i], t2[i - 1]
        o1.write(" ".join(t1).lower() + "\n")
        o2.write(" ".join(t2).lower() + "\n")
PY
pairmetrics() { cargo run --quiet --release --manifest-path "$here/../Cargo.toml" -- "$@"; }
pairmetrics align "$work/s1.tok" "$work/s2.tok" -m 'exact stem synonym' > "$work/align"
pairmetrics lepod -d 4 -p "," -a "$work/align" -f "$work/s1.tok" "$work/s2.tok" -r "$work/score"
echo "per-pair scores: $work/score.led $work/score.pod"
