#!/usr/bin/env python3
"""Generate a synthetic paraphrase corpus in every text format pairmetrics reads, for
throughput and memory measurements:

    python3 scripts/gen_corpus.py N OUTDIR

writes OUTDIR/{s1,s2}.txt (tokenised sentences), meteor.align (METEOR 1.5 Matcher blocks: exact
one-word matches and some 2:1 phrase matches), pharaoh.align (the same links as i-j) and
{s1,s2}.conllu (a left-branching chain parse). Sentence lengths 5..50 tokens, a Zipfian
vocabulary of 5,000 words, local reordering and ~10 % substitutions. Deterministic (seed 7).
"""

import random
import sys
from pathlib import Path

HEADER = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n"


def main():
    n, out = int(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    files = {name: open(out / name, "w", encoding="utf-8") for name in
             ["s1.txt", "s2.txt", "meteor.align", "pharaoh.align", "s1.conllu", "s2.conllu"]}
    pool = rng.choices(vocab, weights, k=200_000)
    for k in range(n):
        length = rng.randint(5, 50)
        start = rng.randrange(len(pool) - length)
        s1 = pool[start:start + length]
        order = list(range(length))
        for i in range(1, length):
            if rng.random() < 0.15:
                order[i - 1], order[i] = order[i], order[i - 1]
        s2, matches, links = [], [], []
        i = 0
        while i < length:
            src = order[i]
            r = rng.random()
            if r < 0.05 and i + 1 < length and order[i + 1] == src + 1:
                # "w a b" -> "p": a 2:1 phrase match
                matches.append((len(s2), 1, src, 2, 3))
                links += [(src, len(s2)), (src + 1, len(s2))]
                s2.append("p" + s1[src])
                i += 2
                continue
            if r < 0.15:
                s2.append("x" + s1[src])  # substituted, unaligned
            else:
                matches.append((len(s2), 1, src, 1, 0))
                links.append((src, len(s2)))
                s2.append(s1[src])
            i += 1
        f = files
        f["s1.txt"].write(" ".join(s1) + "\n")
        f["s2.txt"].write(" ".join(s2) + "\n")
        f["meteor.align"].write(f"Alignment {k + 1}\n{' '.join(s1)}\n{' '.join(s2)}\n{HEADER}")
        for b, l2, a, l1, module in sorted(matches):
            f["meteor.align"].write(f"{b}:{l2}\t\t\t{a}:{l1}\t\t\t{module}\t\t1.0\n")
        f["meteor.align"].write("\n")
        f["pharaoh.align"].write(" ".join(f"{a}-{b}" for a, b in sorted(links)) + "\n")
        for name, sent in (("s1.conllu", s1), ("s2.conllu", s2)):
            rows = [f"{i + 1}\t{w}\t{w}\tX\t_\t_\t{i}\tdep\t_\t_" if i else f"1\t{w}\t{w}\tX\t_\t_\t0\troot\t_\t_"
                    for i, w in enumerate(sent)]
            f[name].write("\n".join(rows) + "\n\n")
    for fh in files.values():
        fh.close()


if __name__ == "__main__":
    main()
