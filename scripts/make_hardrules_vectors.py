#!/usr/bin/env python3
"""Build tests/data/hardrules: inputs, and what bicleaner-hardrules 2.10.8 prints for them.

Inputs: the bundled Europarl sample (for `score --hardrules`), WMT23 general-task test sets (source and reference side by side) in six language pairs
(CJK both ways, Cyrillic, Hebrew, German, Czech-Ukrainian), adversarial pairs aimed at every rule
and at the Unicode tables they read, and a file of shapes (extra and missing columns, CR line
ends, invalid UTF-8, empty lines, sides over 10,000 characters). Each input is run with several
flag sets; `cases.tsv` lists them and tests/hardrules.rs runs each through `pairmetrics
hardrules`, comparing bytes.

Run with bicleaner-hardrules==2.10.8 installed (CPython 3.9), the WMT23 mirror's git directory
as argument:
    python3.9 scripts/make_hardrules_vectors.py /path/to/wmt23-news-systems/.git
"""
import os
import random
import subprocess
import sys

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "hardrules")
LINES = 500

PAIRS = [  # (pair, source language, target language)
    ("en-zh", "en", "zh"),
    ("ja-en", "ja", "en"),
    ("en-ru", "en", "ru"),
    ("he-en", "he", "en"),
    ("de-en", "de", "en"),
    ("cs-uk", "cs", "uk"),
]

FLAG_SETS = {
    "plain": [],
    "all": ["-A", "--annotated_output", "--score_only"],
    "first": ["--annotated_output", "--score_only"],
    "config": ["-A", "--annotated_output", "--score_only", "-c", "config.yaml"],
    "relaxed": ["-A", "--annotated_output", "--score_only", "--disable_minimal_length",
                "--dont_ignore_long"],
}

CONFIG = """\
no_urls: true
no_number_inconsistencies: true
no_script_inconsistencies: true
not_too_long: 300
not_too_short: 5
length_ratio: 2
no_repeated_words: 2
no_literals: ["http", "{{", "&amp;"]
no_titles: false
"""


def git_lines(git_dir, path):
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"],
                          check=True, capture_output=True).stdout.decode("utf-8")
    return text.split("\n")[:LINES]


def adversarial():
    """Pairs aimed at each rule, then random mixes of the characters the tables disagree on."""
    aimed = [
        ("", ""), ("Bonjour à tous les amis", ""), ("", "Hello to all my friends"),
        ("Hi", "Salut"), ("one two three four five six seven eight nine ten", "un deux"),
        ("The same sentence here.", "THE SAME sentence HERE!"), ("Ǆungla and Straße here", "ǆUNGLA AND STRASSE HERE"),
        ("Re: your message about it", "Re: votre message à ce sujet"),
        ("use %s for the value here", "utilisez %s pour la valeur"),
        ("123 456 789 012 345", "123 456 789 012 345 a"), ("!!! ??? ... ;;; ,,,", "*** hello there friend"),
        ("visit example.com for more", "visitez example.com pour plus"),
        ("Home - Products - Shoes - Red", "Accueil - Produits - Chaussures - Rouge"),
        ("Home » Products » Shoes", "Accueil | Produits | Chaussures | Rouge"),
        ("This is a HelloWorld example here", "Ceci est un exemple BonjourMonde ici"),
        ("the house is the house is big", "la maison est grande et belle"),
        ("we went there and we went there again", "nous y sommes allés encore une fois"),
        ("Ã©tÃ© trÃ¨s bien fait ici", "été très bien fait ici"),
        ("a b c d e f g h i j", "un deux trois quatre cinq six"),
        ("This (has an open paren only", "Ceci (a une parenthèse ouverte"),
        ("a) first b) second c) third", "a) premier b) second c) troisième"),
        ("[[[[ too many brackets ]]]]", "[[[[ trop de crochets ]]]]"),
        ("escaped \\u00e9 and \\xc3 here", "échappé é et Ã ici"),
        ("This Is A Title Case Line", "Ceci Est Une Ligne De Titre"),
        ("There are 12 apples and 3 pears", "Il y a 21 pommes et 3 poires"),
        ("Mixed Latin и кириллица here", "Смешанный latin text здесь"),
        ("Kelvin \u212a and k and K here now", "Kelvin k and k and k ici"),
        ("Ⓗⓔⓛⓛⓞ Ⓦⓞⓡⓛⓓ circled letters here", "lettres cerclées ici"),
        ("digits ٣٤٥ ١٢٣ in Arabic script", "chiffres 345 123 en arabe"),
        ("spaces\u00a0with\u00a0nbsp", "espaces avec insécables"),
        ("tab-free \u001c separator \u001c here", "séparateur ici et là-bas"),
        ("\u2028line separator inside\u2028", "séparateur de ligne dedans"),
        ("The The The The The The words", "Les les les les mots mots"),
        ("abcabcabcabc defdefdef", "abcabcabcabc defdefdef"),
        ("Straße STRASSE strasse ſtraße", "Straße straße"),
        ("xx yy zz ww vv uu tt", "a 1 b 2 c 3 d 4 e"),
        ("{{template}} here and there", "{{modèle}} ici et là"),
        ("x = \"value\" in the code", "x = \"valeur\" dans le code"),
        ("⟨angle⟩ brackets ⟨here⟩", "⟨chevrons⟩ ici ⟨là⟩"),
        ("Ça va très bien, merci beaucoup", "Ça va très bien, merci beaucoup"),
    ]
    pool = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ      ..,,!?:;-/»|→•·¬<>*()[]{}"
            "0123456789٣٤éÃÂ©®þýðßſǅǈǋǲⒶⓐ\u212a\u0345ªº\u00a0\u2009\u3000\u001c\u0085"
            "中文日本語한국어д\u0400ЖжאבגاᏣ\u2160\u2170\\ux%s{}+*=\"")
    rng = random.Random(20261207)
    mixes = []
    for _ in range(1200):
        sides = []
        for _ in range(2):
            n = rng.choice([3, 8, 15, 30, 60, 120])
            mode = rng.random()
            if mode < 0.15:  # characters between single spaces (no_space_noise)
                sides.append(" " + " ".join(rng.choice(pool) for _ in range(n // 2)) + " ")
            elif mode < 0.2:  # escapes (no_escaped_unicode)
                sides.append(" ".join(rng.choice(["\\u", "\\x", "\\U", "\\"]) +
                                      "".join(rng.choice("0123456789abcdefABCDEFgz") for _ in range(rng.randint(1, 5)))
                                      for _ in range(3)))
            elif mode < 0.55:
                words = ["the", "house", "The", "HOUSE", "Haus", "ßtraße", "STRASSE", "Bonjour", "été",
                         "abc", "abcabc", "x", "KiloMeter", "McDonald", "ǅungla"]
                sides.append(" ".join(rng.choice(words) for _ in range(max(2, n // 5))))
            else:
                sides.append("".join(rng.choice(pool) for _ in range(n)))
        mixes.append(tuple(sides))
    return [f"{l}\t{r}" for l, r in aimed + mixes]


def shapes():
    """Raw bytes: columns, line ends, invalid UTF-8, very long sides."""
    long_side = " ".join(["word"] * 2100)  # 10,499 characters
    lines = [
        b"one two three\tun deux trois\textra column\tmore",
        b"only one column here",
        b"",
        b"cr line end here\tfin de ligne cr ici\r",
        b"crlf line end here\tfin de ligne crlf ici\r\n".rstrip(b"\n"),
        b"invalid \xff\xfe bytes here\tinvalid \xe2\x82 sequence here",
        b"overlong \xc0\xaf and surrogate \xed\xa0\x80 bytes\tles octets invalides ici",
        b"three\tcolumns\there",
        b"\t\t",
        long_side.encode() + b"\tun deux trois",
        b"a b c\t" + long_side.encode(),
        b"tab at end\t",
        b"\tstarts with a tab",
    ]
    data = b"\n".join(lines) + b"\nlast line without end\tderniere ligne sans fin"
    # A lone CR inside a line: Python's universal newlines split it.
    data += b"\nleft side\rright part\tcote droit"
    return data


def main():
    git_dir = sys.argv[1]
    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    cases = []
    for pair, s, t in PAIRS:
        src = git_lines(git_dir, f"txt-ts/sources/generaltest2023.{pair}.src.{s}")
        ref = git_lines(git_dir, f"txt-ts/references/generaltest2023.{pair}.ref.refA.{t}")
        with open(os.path.join(OUT, f"{pair}.tsv"), "w", encoding="utf-8") as f:
            for a, b in zip(src, ref):
                f.write(f"{a}\t{b}\n")
        for flags in ["plain", "all", "first", "config", "relaxed"]:
            cases.append((f"{pair}.tsv", s, t, flags, []))
    with open(os.path.join(OUT, "adversarial.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(adversarial()) + "\n")
    for s, t in [("en", "fr"), ("fi", "pt"), ("zh", "ja"), ("xx", "is")]:
        for flags in ["all", "first", "config", "relaxed"]:
            cases.append(("adversarial.tsv", s, t, flags, []))
    cases.append(("adversarial.tsv", "en", "fr", "plain", []))
    with open(os.path.join(OUT, "shapes.tsv"), "wb") as f:
        f.write(shapes())
    cases.append(("shapes.tsv", "en", "fr", "plain", []))
    cases.append(("shapes.tsv", "en", "fr", "all", []))
    cases.append(("shapes.tsv", "en", "fr", "relaxed", []))
    cases.append(("shapes.tsv", "en", "fr", "plain", ["--scol", "3", "--tcol", "1"]))
    cases.append(("shapes.tsv", "en", "fr", "all", ["--scol", "2", "--tcol", "3"]))
    with open(os.path.join(OUT, "config.yaml"), "w") as f:
        f.write(CONFIG)

    # The bundled Europarl sample's texts, for `score --hardrules` (tests/hardrules.rs).
    import pyarrow.parquet as pq
    table = pq.read_table(os.path.join(OUT, "..", "..", "..", "data", "europarl-sample",
                                       "pairs.parquet")).to_pydict()
    tsv = "".join(f"{a}\t{b}\n" for a, b in zip(table["src_text"], table["tgt_text"]))
    assert "\r" not in tsv and tsv.count("\t") == len(table["src_text"])
    out = subprocess.run(
        ["bicleaner-hardrules", "-q", "--disable_lang_ident", "-s", "fr", "-t", "en", "-A",
         "--annotated_output", "--score_only", "--dont_ignore_long", "-", "-"],
        input=tsv.encode(), capture_output=True, check=True)
    with open(os.path.join(OUT, "expected", "europarl-sample.fr-en.all.out"), "wb") as f:
        f.write(out.stdout)

    manifest = []
    for i, (name, s, t, flags, extra) in enumerate(cases):
        args = ["-s", s, "-t", t] + FLAG_SETS[flags] + extra
        expected = f"{i:02d}.{name.split('.')[0]}.{s}-{t}.{flags}.out"
        out = subprocess.run(
            ["bicleaner-hardrules", "-q", "--disable_lang_ident", "--disable_lm_filter",
             "--disable_porn_removal", *args, name, "-"],
            cwd=OUT, capture_output=True, check=True)
        with open(os.path.join(OUT, "expected", expected), "wb") as f:
            f.write(out.stdout)
        manifest.append(f"{name}\t{' '.join(args)}\t{expected}")
    with open(os.path.join(OUT, "cases.tsv"), "w") as f:
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
