#!/usr/bin/env python3
"""The reference side of BENCHMARKS.md's "lid-kernels" section: py3langid 0.4.0's `classify`,
py3langid 0.3.0's (OpusFilter 3.3.1's identifier, when --legacy) and fasttext-predict's
`predict` on the 815 texts of tests/data/lid/texts.txt, one process, one core, five passes;
texts/s of the best pass.

    v/bin/pip install py3langid==0.4.0 fasttext-predict && v/bin/python scripts/bench_lid_reference.py [--lid176 PATH]
    w/bin/pip install py3langid==0.3.0 && w/bin/python scripts/bench_lid_reference.py --legacy
"""
import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
texts = (ROOT / "tests/data/lid/texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]


def rate(f):
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        for t in texts:
            f(t)
        best = max(best, len(texts) / (time.perf_counter() - start))
    return best


parser = argparse.ArgumentParser()
parser.add_argument("--lid176", default=str(ROOT / "target/models/lid.176.ftz"))
parser.add_argument("--legacy", action="store_true")
args = parser.parse_args()
from py3langid.langid import LanguageIdentifier, MODEL_FILE
if args.legacy:
    identifier = LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)
    print(f"py3langid 0.3.0 classify: {rate(identifier.classify):,.0f} texts/s")
else:
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    print(f"py3langid 0.4.0 classify: {rate(identifier.classify):,.0f} texts/s")
    import fasttext
    model = fasttext.load_model(args.lid176)
    print(f"fasttext-predict lid.176.ftz predict: {rate(lambda t: model.predict(t.replace(chr(10), ' '))):,.0f} texts/s")
