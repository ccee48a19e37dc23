#!/usr/bin/env python3
"""Write tests/vectors/chrf/: sacrebleu's sentence_chrf (defaults) on hand-made cases and on the
bundled Europarl sample; chrF and chrF++ with every option (statistics, scores, signatures) on
hand-made pairs with one or several references; corpus and sentence scores of the WMT23 excerpt
in tests/data/wmt23. The expected values of tests/chrf.rs. Needs sacrebleu and pyarrow
(pip install sacrebleu==2.6.0 pyarrow); the tests never run this script. Floats in options.json
and wmt23.json are Python's repr, which Rust parses to the same f64.

    python3 scripts/make_chrf_vectors.py
"""

import json
from pathlib import Path

import pyarrow.parquet as pq
import sacrebleu
from sacrebleu.metrics import CHRF

from make_bleu_vectors import SETS, lines

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/vectors/chrf"

# Each stage of the definition: identity, whitespace (Python's, including U+001C..U+001F and
# U+3000), code points beyond ASCII, repeated n-grams (clipped counts), sides too short for the
# higher orders, empty sides, case.
CASES = [
    ("the cat sat", "the cat sat"),
    ("the cat sat", "the cat sat down"),
    ("the cat sat down", "the cat sat"),
    ("thecatsat", "the cat\tsat"),
    ("a\u001cb\u3000c", "abc"),
    ("a\u00a0b", "a b"),
    ("aaaa aaaa", "aa"),
    ("ab", "abc"),
    ("abc", "xyz"),
    ("", "abc"),
    ("abc", ""),
    ("", ""),
    ("The Cat", "the cat"),
    ("déjà vu ü", "deja vu u"),
    ("日本語の文", "日本語です"),
    ("x", "x"),
    ("Resumption of the session", "Reprise de la session"),
]

# (hyp, refs): word n-grams with punctuation split off a word's end or start, case, whitespace
# kept, several references (the best F-score wins; the first of equals), sides too short for an
# order, empty sides.
PAIRS = [
    ("(hi) there, friend! 'quoted' a.b.", ["(hi there) , friend ! quoted a.b"]),
    ("The Cat sat on the mat.", ["the cat sat on the mat .", "The cat sat on a mat."]),
    ("the cat", ["a dog", "the cat", "the cat"]),
    ("the the the", ["the cat the", "the"]),
    ("a b", ["a  b", "ab"]),
    ("", ["abc"]),
    ("abc", [""]),
    ("", [""]),
    ("x", ["x"]),
    ("Résumé — déjà vu? ΣΟΦΟΣ", ["résumé, déjà-vu; σοφος"]),
    ("It is a guide to action which ensures that the military always obeys the commands of the party.",
     ["It is a guide to action that ensures that the military will forever heed Party commands.",
      "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
      "It is the practical guide for the army always to heed the directions of the party."]),
]

CONFIGS = [
    dict(),
    dict(word_order=2),
    dict(word_order=2, lowercase=True),
    dict(whitespace=True),
    dict(word_order=2, whitespace=True),
    dict(eps_smoothing=True),
    dict(word_order=2, eps_smoothing=True),
    dict(char_order=3, word_order=1),
    dict(beta=1),
    dict(beta=3, word_order=2),
    dict(char_order=8),
    dict(char_order=2, word_order=4),
]

CORPUS_CONFIGS = [dict(), dict(word_order=2), dict(word_order=2, lowercase=True), dict(whitespace=True), dict(eps_smoothing=True)]
SENTENCE_CONFIGS = [dict(), dict(word_order=2)]


def result(metric, score, stats=None):
    out = {"score": repr(score.score), "name": score.name, "signature": str(metric.get_signature())}
    if stats is not None:
        out["stats"] = [int(x) for x in stats]
    return out


def options_and_corpora():
    pairs = []
    for hyp, refs in PAIRS:
        for config in CONFIGS:
            metric = CHRF(**config)
            stats = metric._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
            score = metric.corpus_score([hyp], [[r] for r in refs])
            pairs.append({"hyp": hyp, "refs": refs, "config": config, **result(metric, score, stats)})
    (OUT / "options.json").write_text(json.dumps({"version": sacrebleu.__version__, "pairs": pairs}, ensure_ascii=False, indent=1) + "\n")
    corpora = []
    for name, ref_files, systems in SETS:
        refs = [lines(f) for f in ref_files]
        for system in systems:
            hyps = lines(system)
            for config in CORPUS_CONFIGS:
                metric = CHRF(**config)
                corpora.append({"set": name, "refs": ref_files, "system": system, "config": config, **result(metric, metric.corpus_score(hyps, refs))})
            for config in SENTENCE_CONFIGS:
                metric = CHRF(**config)
                scores = [repr(metric.sentence_score(h, [r[i] for r in refs]).score) for i, h in enumerate(hyps)]
                corpora.append({"set": name, "refs": ref_files, "system": system, "config": config, "sentences": scores})
    (OUT / "wmt23.json").write_text(json.dumps({"version": sacrebleu.__version__, "corpora": corpora}, ensure_ascii=False, indent=1) + "\n")
    return len(pairs), len(corpora)


def chrf(hyp, ref):
    return sacrebleu.sentence_chrf(hyp, [ref]).score


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    cases = [{"hyp": h, "ref": r, "chrf": chrf(h, r)} for h, r in CASES]
    (OUT / "cases.json").write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", "utf-8")
    pairs = pq.read_table(ROOT / "data/europarl-sample/pairs.parquet").to_pylist()
    # tgt (English) as the hypothesis, src (French) as the reference: the tokens joined by one
    # space, and the untokenised text.
    sample = [
        {
            "pair_id": p["pair_id"],
            "tokens": chrf(" ".join(p["tgt"]), " ".join(p["src"])),
            "text": chrf(p["tgt_text"], p["src_text"]),
        }
        for p in pairs
    ]
    (OUT / "europarl_sample.json").write_text(json.dumps(sample) + "\n", "utf-8")
    pairs, corpora = options_and_corpora()
    print(f"sacrebleu {sacrebleu.__version__}: {len(cases)} cases, {len(sample)} sample pairs, {pairs} option cases, {corpora} WMT23 results")


if __name__ == "__main__":
    main()
