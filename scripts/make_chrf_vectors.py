#!/usr/bin/env python3
"""Write tests/vectors/chrf/: sacrebleu's sentence_chrf (defaults) on hand-made cases and on the
bundled Europarl sample, the expected values of tests/chrf.rs. Needs sacrebleu and pyarrow
(pip install sacrebleu==2.6.0 pyarrow); the tests never run this script.

    python3 scripts/make_chrf_vectors.py
"""

import json
from pathlib import Path

import pyarrow.parquet as pq
import sacrebleu

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
    print(f"sacrebleu {sacrebleu.__version__}: {len(cases)} cases, {len(sample)} sample pairs")


if __name__ == "__main__":
    main()
