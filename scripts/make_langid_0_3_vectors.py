#!/usr/bin/env python3
"""py3langid 0.3.0's answers for tests/data/lid/texts.txt (the identifier OpusFilter 3.3.1's
language-ID filters use): tests/data/lid/expected/langid-0.3.0*.tsv, the label and the
probability's repr per text, all languages then a restricted set. tests/lid.rs compares.

    python -m venv v && v/bin/pip install py3langid==0.3.0 && v/bin/python scripts/make_langid_0_3_vectors.py
"""
from pathlib import Path

from py3langid.langid import LanguageIdentifier, MODEL_FILE

ROOT = Path(__file__).resolve().parent.parent
LID = ROOT / "tests/data/lid"
texts = (LID / "texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]
for name, langs in [("langid-0.3.0.tsv", None), ("langid-0.3.0.de_en_fr_ru.tsv", ["de", "en", "fr", "ru"])]:
    identifier = LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)
    if langs:
        identifier.set_languages(langs)
    rows = [f"{lang}\t{float(prob)!r}" for lang, prob in map(identifier.classify, texts)]
    (LID / "expected" / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
print(f"{len(texts)} texts")
