#!/usr/bin/env python3
"""Make tests/data/opusfilter: sentence pairs (WMT23 test sets in five language pairs, Japanese
and Chinese among them, misaligned and swapped pairs, adversarial pairs) and the scores
OpusFilter 3.3.1's filters give them. tests/opusfilter.rs compares pairmetrics' functions with
these; CI needs none of the tools.

    python3 scripts/make_opusfilter_vectors.py [--wmt23 DIR]

Needs: opusfilter==3.3.1 (pip; it brings regex, rapidfuzz, beautifulsoup4, lingua) with
py3langid==0.3.0 (OpusFilter 3.3.1 calls `from_pickled_model`, which 0.4.0 removed) and
fasttext-predict (its `fasttext` module), and the WMT23
systems repository (default /work/.mirror/wmt-conference+wmt23-news-systems/repo, a bare mirror
read with `git show`).
"""
import argparse
import json
import subprocess
from pathlib import Path

from opusfilter import filters

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/data/opusfilter"
SETS = ["de-en", "ja-en", "zh-en", "ru-en", "uk-en"]
ADVERSARIAL = [
    ("", ""), ("", "Only the target."), ("Only the source.", ""), ("   ", "\t"),
    ("a\x1cb\x1dc\x1ed\x1ff", "a b c d e"), ("x\x85y\u00a0z", "x y z"), ("line\u2028sep\u2029para", "line sep para"),
    ("全角\u3000スペース", "full width space"), ("<p>Hello <b>world</b></p>", "Bonjour le monde"),
    ("<a href='x'>broken", "<br/> tag"), ("abc abc abc abc abc", "no repeat here"),
    ("hahahahahahahahaha", "ok ok ok ok"), ("the the the the", "xyzxyzxyzxyzxyz"),
    ("A" * 250, "A" * 240 + "B" * 10), ("ab" * 150, "ba" * 150), ("0123456789" * 25, "9876543210" * 25),
    ("Prices rose 3.5% in 2023 to 1,250 €.", "Die Preise stiegen 2023 um 3,5 % auf 1.250 €."),
    ("٣ ٤ ٥ arabic digits 345", "345"), ("देवनागरी १२३", "123"), ("ｆｕｌｌ１２３", "full 123"),
    ("Ã©tÃ© mojibake cafÃ©", "été mojibake café"), ("😀😂🎉 emoji only", "🎉🎉🎉"),
    ("Wait... what?!", "Quoi ?! …"), ("No punctuation", "Pas de ponctuation"),
    ("ΣΊΣΥΦΟΣ ΚΑΙ ΟΔΥΣΣΕΥΣ", "Σίσυφος και Οδυσσεύς"), ("İSTANBUL ŞEHRİ", "istanbul şehri"),
    ("Straße STRASSE", "strasse straße"), ("x", "y"), ("same", "same"),
    ("superlongwordwithoutanyspacesatallthatgoesonandonforeverandever", "short words"),
    ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔪𝔞𝔱𝔥", "Unicode math"), ("e\u0301te\u0301 combining", "été precomposed"),
    ("ǅ titlecase ǈ", "Dž titlecase Lj"), ("tab\tinside", "tab inside"), ("1 2 3 4 5 6 7 8 9", "9 8 7 6 5 4 3 2 1"),
]
FILTERS = {
    "length_word": (filters.LengthFilter, {"unit": "word"}),
    "length_char": (filters.LengthFilter, {"unit": "char"}),
    "length_ratio_word": (filters.LengthRatioFilter, {"unit": "word"}),
    "length_ratio_char": (filters.LengthRatioFilter, {"unit": "char"}),
    "long_word": (filters.LongWordFilter, {}),
    "average_word_length": (filters.AverageWordLengthFilter, {}),
    "alphabet_ratio": (filters.AlphabetRatioFilter, {}),
    "alphabet_ratio_no_space": (filters.AlphabetRatioFilter, {"exclude_whitespace": True}),
    "character_score_latin": (filters.CharacterScoreFilter, {"scripts": ["Latin", "Latin"]}),
    "character_score_han_latin": (filters.CharacterScoreFilter, {"scripts": ["Han", "Latin"]}),
    "character_score_cyrillic_latin": (filters.CharacterScoreFilter, {"scripts": ["Cyrillic", "Latin"]}),
    "terminal_punctuation": (filters.TerminalPunctuationFilter, {}),
    "non_zero_numerals": (filters.NonZeroNumeralsFilter, {}),
    "longest_common_substring": (filters.LongestCommonSubstringFilter, {}),
    "similarity": (filters.SimilarityFilter, {}),
    "similarity_word_lower": (filters.SimilarityFilter, {"unit": "word", "lowercase": True}),
    "similarity_weights": (filters.SimilarityFilter, {"weights": [1, 1, 2]}),
    "repetition": (filters.RepetitionFilter, {}),
    "repetition_short": (filters.RepetitionFilter, {"threshold": 1, "min_length": 2, "max_length": 10}),
    "html_tags": (filters.HtmlTagFilter, {}),
    "regexp_digits": (filters.RegExpFilter, {"regexps": r"\d"}),
    "regexp_tags": (filters.RegExpFilter, {"regexps": "<[^>]+>"}),
    "regexp_per_side": (filters.RegExpFilter, {"regexps": [r"[[:upper:]]{3,}", r"(\w)\1"], "accept_match": True}),
    "regexp_posix": (filters.RegExpFilter, {"regexps": r"^[[:alpha:][:space:]]+$"}),
    "regexp_posix_digit": (filters.RegExpFilter, {"regexps": r"[[:digit:]]"}),
    "regexp_lookaround": (filters.RegExpFilter, {"regexps": r"(?<=\s)\d+(?=\s)"}),
    "regexp_ignorecase": (filters.RegExpFilter, {"regexps": r"(?i)straße|the"}),
    "regexp_end": (filters.RegExpFilter, {"regexps": r"[.!?]\Z"}),
    "regexp_word_boundary": (filters.RegExpFilter, {"regexps": r"\b\w{12,}\b"}),
}


def lines(repo, path):
    text = subprocess.run(["git", "-C", repo, "show", f"HEAD:txt/{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")
    return text.split("\n")[:-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wmt23", default="/work/.mirror/wmt-conference+wmt23-news-systems/repo")
    args = parser.parse_args()
    pairs = []
    for pair in SETS:
        src, tgt = pair.split("-")
        sources = lines(args.wmt23, f"sources/generaltest2023.{pair}.src.{src}")
        refs = lines(args.wmt23, f"references/generaltest2023.{pair}.ref.refA.{tgt}")
        aligned = list(zip(sources, refs))[:120]
        pairs += aligned
        # Misaligned (each source with the next reference) and swapped.
        pairs += [(s, refs[i + 1]) for i, s in enumerate(sources[:15])]
        pairs += [(t, s) for s, t in aligned[:15]]
    pairs += ADVERSARIAL
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "pairs.jsonl", "w", encoding="utf-8") as f:
        for s, t in pairs:
            f.write(json.dumps({"src": s, "tgt": t}, ensure_ascii=False) + "\n")
    # One filter a line: its name, parameters and scores (JSON has no Infinity: such a score is
    # written as the string "inf").
    with open(OUT / "expected.jsonl", "w", encoding="utf-8") as f:
        for name, (cls, params) in FILTERS.items():
            scores = [repr(score) if score in (float("inf"), float("-inf")) else score
                      for score in cls(**params).score(pairs)]
            f.write(json.dumps({"name": name, "params": params, "scores": scores}) + "\n")
    pipeline_outputs(pairs)
    lid_outputs()
    html_segments()
    print(f"{len(pairs)} pairs, {len(FILTERS)} filters")


def pipeline_outputs(pairs):
    """Run `opusfilter` on tests/data/opusfilter/pipeline/config.yaml over the pairs (as
    src.txt and tgt.txt, line breaks inside segments as spaces), keeping its outputs
    decompressed in pipeline/expected."""
    import bz2, gzip, lzma, shutil, tempfile
    base = OUT / "pipeline"
    line = lambda s: s.replace("\n", " ").replace("\r", " ")
    (base / "src.txt").write_text("".join(line(s) + "\n" for s, _ in pairs), encoding="utf-8")
    (base / "tgt.txt").write_text("".join(line(t) + "\n" for _, t in pairs), encoding="utf-8")
    with tempfile.TemporaryDirectory() as work:
        for name in ["config.yaml", "src.txt", "tgt.txt"]:
            shutil.copy(base / name, work)
        subprocess.run(["opusfilter", "config.yaml"], cwd=work, check=True, capture_output=True)
        expected = base / "expected"
        shutil.rmtree(expected, ignore_errors=True)
        expected.mkdir()
        opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
        for out in sorted(Path(work, "out").iterdir()):
            data = opener.get(out.suffix, open)(out, "rb").read()
            (expected / (out.stem if out.suffix in opener else out.name)).write_bytes(data)


def html_segments():
    """HtmlTagFilter's verdict (BeautifulSoup's html.parser on this CPython) on 3,000 random
    fragments of HTML-like markup, broken and whole: tests/data/opusfilter/html.jsonl."""
    import random
    rng = random.Random(20261207)
    pieces = ["<", ">", "</", "/>", "<!--", "-->", "<!", "<![", "<?", "?>", "]]>", "]>", "&", "&#",
              "&#x", "&amp;", "&lt", ";", "=", "'", '"', " ", "\t", "\x1c", "\u3000", "/", "b",
              "p", "div", "script", "style", "SCRIPT", "a href", "x=1", "CDATA[", "if", "endif",
              "doctype", "DOCTYPE html", "3", "é", "ß", "中", "temp", "foo", "-", ".", "_", ":",
              "\x00", "\u00a0", "\u2028"]
    names = ["b", "p", "div", "a", "br", "script", "style", "SCRIPT", "x-y", "h1", "é", "b'c", 'q"']
    spaces = [" ", "  ", "\t", "\n", "\x1c", "\u3000", "\u00a0", "", "/", " / "]
    values = ["1", "'a b'", '"a>b"', "'open", '"open', "x'y", "", "&amp;", "=2"]

    def tag():
        t = "<" + rng.choice(["", "", "", "/", " ", "!", "?"]) + rng.choice(names)
        for _ in range(rng.randint(0, 3)):
            t += rng.choice(spaces) + rng.choice(["x", "href", "data-a", "'q", "=", "b"])
            if rng.random() < 0.6:
                t += rng.choice(["=", " = ", "==", "= "]) + rng.choice(values)
        return t + rng.choice(spaces[:3] + [""]) + rng.choice([">", ">", "/>", "", "<", " >"])

    def token():
        r = rng.random()
        if r < 0.45:
            return tag()
        if r < 0.6:
            return rng.choice(["<!-- c -->", "<!--", "-- >", "<![CDATA[x]]>", "<![if x]>", "<![foo x",
                               "<![", "<!DOCTYPE html>", "<!x>", "<?php ?>", "</>", "</ x>", "</b >"])
        if r < 0.7:
            return rng.choice(["&amp;", "&#65;", "&#x41", "&#;", "&#", "&lt", "&", "&zz;", "& "])
        return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))

    segments = ["".join(token() for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    check = filters.HtmlTagFilter.check
    with open(OUT / "html.jsonl", "w", encoding="utf-8") as f:
        for s in segments:
            f.write(json.dumps({"segment": s, "found": check(s)}) + "\n")


def lid_outputs():
    """Run `opusfilter` on tests/data/opusfilter/lid/config.yaml (the language-ID filters) over
    the pipeline's src.txt and tgt.txt, with tests/data/lid/models/hs.ftz as ../hs.ftz, keeping
    its outputs in lid/expected."""
    import shutil, tempfile
    base = OUT / "lid"
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(base / "config.yaml", work)
        for name in ["src.txt", "tgt.txt"]:
            shutil.copy(OUT / "pipeline" / name, work)
        shutil.copy(ROOT / "tests/data/lid/models/hs.ftz", work)
        subprocess.run(["opusfilter", "config.yaml"], cwd=work, check=True, capture_output=True)
        expected = base / "expected"
        shutil.rmtree(expected, ignore_errors=True)
        shutil.copytree(Path(work, "out"), expected)


if __name__ == "__main__":
    main()
