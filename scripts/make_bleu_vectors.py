#!/usr/bin/env python3
"""Write tests/vectors/bleu/: sacrebleu 2.6.0's BLEU (tokenised text, statistics, corpus and
sentence scores, signatures) on hand-made cases and on the WMT23 excerpt in tests/data/wmt23, the
expected values of tests/bleu.rs. Needs sacrebleu (pip install sacrebleu==2.6.0); the tests never
run this script. Floats are written as Python's repr, which Rust parses to the same f64.

    python3 scripts/make_bleu_vectors.py
"""

import json
from pathlib import Path

import sacrebleu
from sacrebleu.metrics import BLEU

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests/data/wmt23"
OUT = ROOT / "tests/vectors/bleu"

# Each rule of the 13a tokeniser and of sacrebleu's preprocessing: its escapes and <skipped>,
# punctuation classes, periods and commas next to digits or not, dashes after digits, Python's
# whitespace (U+001C..U+001F, U+3000, no-break space), trailing whitespace, case beyond ASCII.
CASES = [
    "The cat sat on the mat.",
    "1,000.50 dollars, i.e. 3-4 times; (a) [b] {c} ~d `e` @f #g $h %i ^j &k *l +m =n |o \\p /q :r <s> ?t !u \"v\" 'w'",
    "a.,b ,.c .5 5. x,y 1.2.3 ..., --- 3--4 -3 a-b",
    "&quot;quoted&quot; &amp;lt; &lt;tag&gt; &amp; <skipped> kept",
    "line-\nbreak and\nnewline",
    "tabs\tand\u001cfile\u001dgroup\u001erecord\u001funit\u3000ideographic\u00a0nbsp",
    "trailing spaces   \t ",
    "   leading spaces",
    "ÉCOLE Straße İstanbul ΣΟΦΟΣ",
    "",
    ".",
    "9.",
    "a9-b",
    "我们今天去北京。他说：“好的！”3.5公里，价格¥20—30元。",
    "Année 2023: €5,000.00 — «citation», ½ + ¼ = ¾ © ™ 𝔸 😀 ‰ 1,5 x.y 2.",
    "\u2001em\u2a6d\u2f81\u2fa1 \U00020000 \u2600☀\u27bf ﬁ ｆｕｌｌ",
]

PAIRS = [
    # (hyp, refs): clipping over several references, the closest reference length (ties to the
    # shorter), empty sides, no match at all, short hypotheses for effective order.
    ("the the the the", ["the cat", "the the cat"]),
    ("a b c d e", ["a b c", "a b c d e f g"]),
    ("a b c d", ["a b", "a b c d e f"]),
    ("", ["a b c"]),
    ("a b c", [""]),
    ("x y z", ["a b c"]),
    ("the cat", ["the cat sat on the mat"]),
    ("the cat sat on the mat", ["the cat sat on the mat"]),
    ("It is a guide to action which ensures that the military always obeys the commands of the party.",
     ["It is a guide to action that ensures that the military will forever heed Party commands.",
      "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
      "It is the practical guide for the army always to heed the directions of the party."]),
]

CONFIGS = [
    dict(tokenize="13a"),
    dict(tokenize="13a", lowercase=True),
    dict(tokenize="none"),
    dict(tokenize="char"),
    dict(tokenize="char", lowercase=True),
    dict(tokenize="intl"),
    dict(tokenize="zh"),
    dict(tokenize="13a", smooth_method="floor"),
    dict(tokenize="13a", smooth_method="floor", smooth_value=0.25),
    dict(tokenize="13a", smooth_method="add-k"),
    dict(tokenize="13a", smooth_method="add-k", smooth_value=2),
    dict(tokenize="13a", smooth_method="none"),
    dict(tokenize="13a", effective_order=True),
    dict(tokenize="13a", smooth_method="none", effective_order=True),
    dict(tokenize="13a", max_ngram_order=2),
    dict(tokenize="13a", max_ngram_order=6),
]

SENTENCE_CONFIGS = [
    dict(tokenize="13a", effective_order=True),  # sacrebleu.sentence_bleu's defaults
    dict(tokenize="13a", smooth_method="floor", effective_order=True),
    dict(tokenize="13a", smooth_method="add-k", effective_order=True),
    dict(tokenize="char"),
    dict(tokenize="intl", effective_order=True),
    dict(tokenize="zh", effective_order=True),
]

SETS = [
    ("de-en", ["de-en.ref.refA.en"], ["de-en.hyp.ONLINE-B.en", "de-en.hyp.NLLB_Greedy.en"]),
    ("he-en", ["he-en.ref.refA.en", "he-en.ref.refB.en"], ["he-en.hyp.GPT4-5shot.en", "he-en.hyp.ONLINE-A.en"]),
    ("en-de", ["en-de.ref.refA.de"], ["en-de.hyp.ONLINE-W.de"]),
    ("en-zh", ["en-zh.ref.refA.zh"], ["en-zh.hyp.GPT4-5shot.zh"]),
]


def lines(name):
    # as sacrebleu's command line reads a file: lines without their newline
    with open(DATA / name, encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n") for line in f]


def score_json(s, metric):
    return {
        "score": repr(s.score),
        "counts": [int(c) for c in s.counts],
        "totals": [int(t) for t in s.totals],
        "precisions": [repr(p) for p in s.precisions],
        "bp": repr(s.bp),
        "sys_len": int(s.sys_len),
        "ref_len": int(s.ref_len),
        "signature": str(metric.get_signature()),
    }


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    tokenized = []
    for text in CASES:
        row = {"text": text}
        for config in [dict(tokenize="13a"), dict(tokenize="13a", lowercase=True), dict(tokenize="char"), dict(tokenize="none"),
                       dict(tokenize="intl"), dict(tokenize="zh")]:
            metric = BLEU(**config)
            key = config["tokenize"] + ("-lc" if config.get("lowercase") else "")
            row[key] = metric._preprocess_segment(text)
        tokenized.append(row)
    pairs = []
    for hyp, refs in PAIRS:
        for config in CONFIGS:
            metric = BLEU(**config)
            s = metric.corpus_score([hyp], [[r] for r in refs])
            pairs.append({"hyp": hyp, "refs": refs, "config": config, **score_json(s, metric)})
    (OUT / "cases.json").write_text(json.dumps({"version": sacrebleu.__version__, "tokenized": tokenized, "pairs": pairs}, ensure_ascii=False, indent=1) + "\n")

    corpora = []
    for name, ref_files, systems in SETS:
        refs = [lines(f) for f in ref_files]
        for system in systems:
            hyps = lines(system)
            for config in CONFIGS:
                metric = BLEU(**config)
                s = metric.corpus_score(hyps, refs)
                corpora.append({"set": name, "refs": ref_files, "system": system, "config": config, **score_json(s, metric)})
            for config in SENTENCE_CONFIGS:
                metric = BLEU(**config)
                scores = [repr(metric.sentence_score(h, [r[i] for r in refs]).score) for i, h in enumerate(hyps)]
                corpora.append({"set": name, "refs": ref_files, "system": system, "config": config, "sentences": scores})
    (OUT / "wmt23.json").write_text(json.dumps({"version": sacrebleu.__version__, "corpora": corpora}, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
