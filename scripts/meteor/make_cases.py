#!/usr/bin/env python3
"""Test cases for the native METEOR aligner, as pairs of line-aligned files.

Writes NAME.test and NAME.ref (and NAME.para for the paraphrase case) into OUT_DIR for:
- handmade: short pairs exercising each stage, ties in the beam, repeated words, punctuation,
  case, empty lines and identical sentences;
- europarl-perturbed: English Europarl lines against a copy with words replaced by WordNet
  synonyms, inflected, dropped, duplicated, swapped and recased (seeded);
- europarl-shifted: each Europarl line against the next one (unrelated sentences sharing many
  function words: the beam's hardest case);
- paraphrase: the perturbed pairs with a paraphrase table drawn from the same synonyms.

Usage: make_cases.py EUROPARL_EN SYNSETS OUT_DIR [PAIRS]
The expected Matcher outputs come from scripts/meteor/reference.sh, which runs METEOR itself.
"""
import gzip
import io
import random
import re
import sys
from collections import defaultdict

HANDMADE = [
    ("the cats sat on the mat .", "the cat sits on a mat ."),
    ("A quick test of Running dogs", "a fast examination of running dog"),
    ("", "nonempty"),
    ("nonempty", ""),
    ("", ""),
    ("same line here", "same line here"),
    ("the the the", "the the"),
    ("a b a b a b", "b a b a"),
    ("the cat and the dog and the cat", "the dog and the cat and the dog"),
    ("Hello , world !", "hello world"),
    ("HELLO World", "hello world"),
    ("running runs ran runner", "run running runs"),
    ("big large huge", "large big great"),
    ("children were playing", "the child was playing"),
    ("Aa BB", "BB Aa"),
    ("car automobile auto", "automobile car"),
    ("he quickly finished the job", "the job was finished quickly by him"),
    ("a a b b c c", "c b a"),
    ("x y z", "z y x"),
    ("multi\tspace  separated\u000cwords", "multi space separated words"),
    ("é ü ß", "ü é ß"),
    ("boxes mosses children geese", "box moss child goose"),
    ("1999 , 2000 .", "2000 , 1999 ."),
    ("the european parliament", "european parliament the"),
    ("' \" ( ) [ ]", "( ) ' \""),
]

VOWEL_INFLECTIONS = ["s", "ed", "ing", "er", "es", "ly"]


def tokenize(line):
    return re.findall(r"\w+|[^\w\s]", line)


def synonyms(path):
    by_set = defaultdict(list)
    words = {}
    with open(path, encoding="utf-8") as f:
        while True:
            word = f.readline()
            ids = f.readline()
            if not ids:
                break
            word = word.rstrip("\n")
            if "_" in word or not word.isalpha():
                continue
            sets = ids.split()
            words[word] = sets
            for s in sets[:3]:
                by_set[s].append(word)
    return words, by_set


def perturb(tokens, rng, words, by_set):
    out = []
    for t in tokens:
        r = rng.random()
        low = t.lower()
        if r < 0.15 and low in words:
            choices = [w for s in words[low][:3] for w in by_set[s] if w != low]
            out.append(rng.choice(choices) if choices else t)
        elif r < 0.25 and t.isalpha():
            out.append(t + rng.choice(VOWEL_INFLECTIONS))
        elif r < 0.30:
            continue
        elif r < 0.34:
            out.extend([t, t])
        elif r < 0.38:
            out.append(t.upper() if rng.random() < 0.5 else t.lower())
        else:
            out.append(t)
    for _ in range(rng.randrange(3)):
        if len(out) > 2:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def write(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


def main():
    europarl, synsets, out = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    rng = random.Random(20261123)
    with open(europarl, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f][: n + 1]
    words, by_set = synonyms(synsets)
    write(f"{out}/handmade.test", [a for a, _ in HANDMADE])
    write(f"{out}/handmade.ref", [b for _, b in HANDMADE])
    tokenized = [tokenize(l) for l in lines]
    # Half the pairs lowercased, as LePoD's pipeline feeds METEOR; half as in the corpus.
    tests, refs = [], []
    for i, toks in enumerate(tokenized[:n]):
        if i % 2:
            toks = [t.lower() for t in toks]
        tests.append(" ".join(toks))
        refs.append(" ".join(perturb(toks, rng, words, by_set)))
    write(f"{out}/europarl-perturbed.test", tests)
    write(f"{out}/europarl-perturbed.ref", refs)
    write(f"{out}/europarl-shifted.test", [" ".join(t).lower() for t in tokenized[:n]])
    write(f"{out}/europarl-shifted.ref", [" ".join(t).lower() for t in tokenized[1 : n + 1]])
    # A paraphrase table: phrases of one to three words of the test side, rewritten by the
    # perturbation, in METEOR's three-line records.
    # mtime=0: the same bytes on every run.
    with gzip.GzipFile(f"{out}/paraphrase.para.gz", "wb", mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf-8") as f:
        seen = set()
        for toks in tokenized[:n:3]:
            for length in (1, 2, 3):
                if len(toks) < length:
                    continue
                i = rng.randrange(len(toks) - length + 1)
                phrase = [t.lower() for t in toks[i : i + length]]
                para = perturb(phrase, rng, words, by_set) or phrase[:1]
                key = (" ".join(phrase), " ".join(para))
                if key not in seen:
                    seen.add(key)
                    f.write(f"{rng.random():.4f}\n{key[0]}\n{key[1]}\n")
    write(f"{out}/paraphrase.test", [t.lower() for t in tests])
    write(f"{out}/paraphrase.ref", [r.lower() for r in refs])


if __name__ == "__main__":
    main()
