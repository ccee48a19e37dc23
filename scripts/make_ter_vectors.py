#!/usr/bin/env python3
"""Write tests/vectors/ter/: sacrebleu 2.6.0's TER (tokenised text, statistics, scores,
signatures) on hand-made cases and on the WMT23 excerpt in tests/data/wmt23, the expected values
of tests/ter.rs. Needs sacrebleu (pip install sacrebleu==2.6.0); the tests never run this
script. Floats are written as Python's repr, which Rust parses to the same f64.

    python3 scripts/make_ter_vectors.py
"""

import json
import random
from pathlib import Path

import sacrebleu
from sacrebleu.metrics import TER

from make_bleu_vectors import SETS, lines

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/vectors/ter"

# Each rule of the Tercom tokeniser: punctuation classes, possessives, periods and commas next to
# digits or not, dashes after digits, entities, joined lines, CJK characters, kana, CJK and
# full-width punctuation, Python's whitespace, trailing whitespace, case beyond ASCII.
TEXTS = [
    "The cat's toy, the dogs' bone; John's.",
    "1,000.50 dollars, i.e. 3-4 times (a) [b] {c} ~d `e` @f #g $h %i ^j &k *l +m =n |o \\p /q :r <s> ?t !u \"v\" 'w'",
    "a.,b ,.c .5 5. x,y 1.2.3 ..., --- 3--4 -3 a-b",
    "&quot;quoted&quot; &amp;lt; &lt;tag&gt; &amp;",
    "line-\nbreak and\nnewline",
    "日本語の文です。カタカナ、ひらがな「引用」！？（全角）．，",
    "ひらがな",
    "中文句子，有标点。㈠㍿豈",
    "tabs\tand\u001cfile\u3000ideographic\u00a0nbsp  trailing \t ",
    "ÉCOLE Straße İstanbul ΣΟΦΟΣ",
    "",
    "   ",
]

TOKENIZER_CONFIGS = [
    dict(),
    dict(case_sensitive=True),
    dict(normalized=True),
    dict(normalized=True, asian_support=True),
    dict(no_punct=True),
    dict(no_punct=True, asian_support=True),
    dict(normalized=True, no_punct=True, asian_support=True, case_sensitive=True),
]


def random_pairs():
    # Words from a small vocabulary, so that many blocks match and the search meets its limit of
    # 1,000 candidates; and a reference far longer than the hypothesis, past the default beam.
    rng = random.Random(7)
    out = []
    for length in (12, 30, 45):
        words = [rng.choice("abcdef") for _ in range(length)]
        shuffled = words[:]
        rng.shuffle(shuffled)
        out.append((" ".join(shuffled), [" ".join(words)]))
    out.append(("a b", [" ".join(rng.choice("abcxyz") for _ in range(130))]))
    out.append((" ".join(rng.choice("abcxyz") for _ in range(130)), ["b a"]))
    return out


PAIRS = [
    ("a b c", ["a c b"]),
    ("c d a b", ["a b c d"]),
    ("the cat sat on the mat", ["on the mat the cat sat"]),
    ("The Cat sat.", ["the cat sat ."]),
    ("a b", ["a b c d"]),
    ("", ["a b"]),
    ("a b", [""]),
    ("", [""]),
    ("x y z", ["a b c", "x y w z"]),
    ("It is a guide to action which ensures that the military always obeys the commands of the party.",
     ["It is a guide to action that ensures that the military will forever heed Party commands.",
      "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
      "It is the practical guide for the army always to heed the directions of the party."]),
] + random_pairs()

CONFIGS = [dict(), dict(case_sensitive=True), dict(normalized=True), dict(no_punct=True)]
CORPUS_CONFIGS = [dict(), dict(case_sensitive=True), dict(normalized=True), dict(normalized=True, no_punct=True)]


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    tokenized = []
    for text in TEXTS:
        tokenized.append({"text": text, "configs": [{"config": c, "tokens": TER(**c)._preprocess_segment(text)} for c in TOKENIZER_CONFIGS]})
    pairs = []
    for hyp, refs in PAIRS:
        for config in CONFIGS:
            metric = TER(**config)
            edits, ref_length = metric._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
            score = metric.corpus_score([hyp], [[r] for r in refs])
            pairs.append({"hyp": hyp, "refs": refs, "config": config, "edits": int(edits), "ref_length": repr(ref_length),
                          "score": repr(score.score), "signature": str(metric.get_signature())})
    (OUT / "cases.json").write_text(json.dumps({"version": sacrebleu.__version__, "tokenized": tokenized, "pairs": pairs}, ensure_ascii=False, indent=1) + "\n")
    corpora = []
    for name, ref_files, systems in SETS:
        refs = [lines(f) for f in ref_files]
        for system in systems:
            hyps = lines(system)
            for config in CORPUS_CONFIGS:
                metric = TER(**config)
                s = metric.corpus_score(hyps, refs)
                corpora.append({"set": name, "refs": ref_files, "system": system, "config": config, "score": repr(s.score),
                                "edits": int(s.num_edits), "ref_length": repr(s.ref_length), "signature": str(metric.get_signature())})
            metric = TER()
            scores = [repr(metric.sentence_score(h, [r[i] for r in refs]).score) for i, h in enumerate(hyps)]
            corpora.append({"set": name, "refs": ref_files, "system": system, "config": {}, "sentences": scores})
    (OUT / "wmt23.json").write_text(json.dumps({"version": sacrebleu.__version__, "corpora": corpora}, ensure_ascii=False, indent=1) + "\n")
    print(f"sacrebleu {sacrebleu.__version__}: {len(tokenized)} texts, {len(pairs)} pair results, {len(corpora)} WMT23 results")


if __name__ == "__main__":
    main()
