#!/usr/bin/env python3
"""OpusFilter 3.3.1's duplicate keys (`SegmentHasher.apply`, xxh64, seed 0) for tests/dedup.rs:
tests/data/minhash/pair_hash.tsv, one line per (pair, options, sides) with the key. The pairs
are the lines of tests/data/lid/texts.txt (WMT23 and Europarl in nine languages, adversarial
lines) paired with the same lines in reverse order; each text is given as OpusFilter reads it
from a file, with its newline. CI needs none of the tools.

    python -m venv v && v/bin/pip install opusfilter==3.3.1 && v/bin/python scripts/make_pair_hash_vectors.py
"""
from pathlib import Path

from opusfilter.segment_hash import SegmentHasher

ROOT = Path(__file__).resolve().parent.parent
texts = (ROOT / "tests/data/lid/texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]
OPTIONS = ["", "lowercase", "letters_only", "letter_words_only", "lowercase,letters_only,letter_words_only"]
with open(ROOT / "tests/data/minhash/pair_hash.tsv", "w") as f:
    f.write("line\toptions\tcompare\tkey\n")
    for options in OPTIONS:
        flags = {o: True for o in options.split(",") if o}
        for compare in ["all", [0], [1]]:
            hasher = SegmentHasher(compare=compare, method="xxh64", **flags)
            for i, src in enumerate(texts):
                tgt = texts[len(texts) - 1 - i]
                key = hasher.apply([src + "\n", tgt + "\n"])
                name = compare if compare == "all" else str(compare[0])
                f.write(f"{i}\t{options}\t{name}\t{key}\n")
