#!/usr/bin/env python3
"""Generate a synthetic Moses phrase table and sentence pairs that use it, to measure the
phrase-table import, the true-score index and true_score throughput:

    python3 scripts/gen_phrase_table.py ENTRIES PAIRS TOKENS OUTDIR

writes OUTDIR/phrase-table (ENTRIES lines `src ||| tgt ||| 4 scores + penalty ||| alignment |||
counts`, source phrases of 1-3 words from a Zipfian vocabulary of 20,000, up to 20 translations
each) and OUTDIR/{src,tgt}.txt: PAIRS sentences of about TOKENS tokens made of the table's
source phrases, each tgt rewriting about a third of the phrases by one of their rules.
Deterministic (seed 11).
"""

import random
import sys
from pathlib import Path


def main():
    entries, pairs, tokens, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(11)
    vocab = [f"w{i}" for i in range(20000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    pool = rng.choices(vocab, weights, k=400_000)
    draw = lambda n: " ".join(rng.choice(pool) for _ in range(n))
    rules = {}
    written = 0
    with open(out / "phrase-table", "w", encoding="utf-8") as f:
        while written < entries:
            src = draw(rng.choice([1, 1, 2, 2, 3]))
            for _ in range(min(rng.randint(1, 20), entries - written)):
                tgt = draw(rng.choice([1, 2, 2, 3]))
                p = [rng.random() for _ in range(4)]
                n1, n2 = len(src.split()), len(tgt.split())
                align = " ".join(f"{i}-{min(i, n2 - 1)}" for i in range(n1))
                f.write(f"{src} ||| {tgt} ||| {p[0]:.6g} {p[1]:.6g} {p[2]:.6g} {p[3]:.6g} 2.718 ||| {align} ||| 3 2 1\n")
                rules.setdefault(src, []).append(tgt)
                written += 1
    sources = list(rules)
    with open(out / "src.txt", "w", encoding="utf-8") as s, open(out / "tgt.txt", "w", encoding="utf-8") as t:
        for _ in range(pairs):
            src, tgt, length = [], [], 0
            while length < tokens:
                phrase = rng.choice(sources)
                src.append(phrase)
                length += len(phrase.split())
                tgt.append(rng.choice(rules[phrase]) if rng.random() < 0.33 else phrase)
            s.write(" ".join(src) + "\n")
            t.write(" ".join(tgt) + "\n")


if __name__ == "__main__":
    main()
