#!/usr/bin/env python3
"""datasketch 2.0.0's MinHash LSH, for tests/dedup.rs (CI needs none of the tools):

- tests/data/minhash/lsh_params.tsv: `_optimal_param(threshold, num_perm, fp_weight, fn_weight)`
  (the b and r `MinHashLSH` chooses) over a grid of thresholds, signature sizes and weights;
- tests/data/minhash/texts.txt: the 815 lines of tests/data/lid/texts.txt (WMT23 and Europarl in
  nine languages, adversarial lines), then near copies of the first 300: the last word dropped,
  every third line verbatim again, one word in the middle replaced, the words' order reversed;
- tests/data/minhash/lsh_candidates.jsonl: for thresholds 0.5, 0.8 and 0.9 (num_perm 128, seed 1,
  affine32, word tokens), every text inserted into a `MinHashLSH` under its 0-based line
  number, then each queried: the candidate pairs (i < j).

    python -m venv v && v/bin/pip install datasketch==2.0.0 && v/bin/python scripts/make_lsh_vectors.py
"""
import json
from pathlib import Path

from datasketch import MinHash, MinHashLSH
from datasketch.lsh import _optimal_param

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/data/minhash"

with open(OUT / "lsh_params.tsv", "w") as f:
    f.write("threshold\tnum_perm\tfp_weight\tfn_weight\tb\tr\n")
    for num_perm, step in [(2, 5), (16, 5), (64, 5), (128, 5), (256, 10)]:
        for weights in [(0.5, 0.5), (0.2, 0.8), (0.9, 0.1)]:
            for t in range(step, 100, step):
                threshold = t / 100
                b, r = _optimal_param(threshold, num_perm, *weights)
                f.write(f"{threshold}\t{num_perm}\t{weights[0]}\t{weights[1]}\t{b}\t{r}\n")

texts = (ROOT / "tests/data/lid/texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]
copies = []
for i, text in enumerate(texts[:300]):
    words = text.split()
    copies.append(" ".join(words[:-1]))
    if i % 3 == 0:
        copies.append(text)
    if len(words) > 2:
        copies.append(" ".join(words[: len(words) // 2] + ["X"] + words[len(words) // 2 + 1 :]))
    copies.append(" ".join(reversed(words)))
texts += copies
(OUT / "texts.txt").write_bytes("".join(t + "\n" for t in texts).encode("utf-8"))
signatures = []
for text in texts:
    m = MinHash(num_perm=128, seed=1)
    for token in text.split():
        m.update(token.encode("utf-8"))
    signatures.append(m)
with open(OUT / "lsh_candidates.jsonl", "w") as f:
    for threshold in [0.5, 0.8, 0.9]:
        lsh = MinHashLSH(threshold=threshold, num_perm=128)
        for i, m in enumerate(signatures):
            lsh.insert(i, m)
        pairs = sorted({(min(i, j), max(i, j)) for i, m in enumerate(signatures) for j in lsh.query(m) if i != j})
        f.write(json.dumps({"threshold": threshold, "b": lsh.b, "r": lsh.r, "pairs": pairs}) + "\n")
        print(threshold, lsh.b, lsh.r, len(pairs))
