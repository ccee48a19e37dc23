#!/usr/bin/env python3
"""datasketch 2.0.0's MinHash signatures for the first 150 texts of tests/data/lid/texts.txt
(WMT23 and Europarl lines in nine languages, adversarial lines): tests/data/minhash/expected.jsonl,
one line per (text, configuration) with the signature. tests/dedup.rs compares; CI needs none of
the tools.

    python -m venv v && v/bin/pip install datasketch==2.0.0 && v/bin/python scripts/make_minhash_vectors.py

Tokens: Python's `str.split()` words, or character 3-grams (`text[i:i+3]`; a text shorter than
3 characters is one token), each hashed as its UTF-8 bytes, `m.update(token.encode("utf-8"))`.
"""
import json
from pathlib import Path

from datasketch import MinHash

ROOT = Path(__file__).resolve().parent.parent
texts = (ROOT / "tests/data/lid/texts.txt").read_bytes().decode("utf-8").split("\n")[:-1][:150]
CONFIGS = [
    {"num_perm": 128, "seed": 1, "scheme": "affine32", "tokens": "words"},
    {"num_perm": 16, "seed": 42, "scheme": "affine64", "tokens": "words"},
    {"num_perm": 16, "seed": 7, "scheme": "legacy", "tokens": "char3"},
    {"num_perm": 8, "seed": 4294967295, "scheme": "affine32", "tokens": "char3"},
]


def tokens(text, kind):
    if kind == "words":
        return text.split()
    return [text[i:i + 3] for i in range(max(len(text) - 2, 1))] if text else []


out = ROOT / "tests/data/minhash/expected.jsonl"
out.parent.mkdir(parents=True, exist_ok=True)
with open(out, "w", encoding="utf-8") as f:
    for c in CONFIGS:
        for i, text in enumerate(texts):
            m = MinHash(num_perm=c["num_perm"], seed=c["seed"], scheme=c["scheme"])
            for t in tokens(text, c["tokens"]):
                m.update(t.encode("utf-8"))
            f.write(json.dumps({**c, "text": i, "signature": m.hashvalues.tolist()}) + "\n")
print(f"{len(texts)} texts, {len(CONFIGS)} configurations")
