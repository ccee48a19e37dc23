#!/usr/bin/env python3
"""`pairmetrics dedup`'s expected results, from the tools themselves, for tests/dedup.rs (CI needs
none of the tools):

- tests/data/dedup/pairs/part-{0,1}.parquet: 4,870 pairs (pair_id 1000, 1003, ...; src_text,
  tgt_text) in two files of 500-row row groups: the bundled Europarl sample, WMT23 and Europarl
  lines in nine languages paired with each other (tests/data/lid/texts.txt, emoji and NFD text
  among them), and, shuffled among them, verbatim copies, pairs sharing only a source or only a
  target, case and punctuation variants, near copies (a word dropped, a word replaced) and empty
  sides;
- tests/data/dedup/against.parquet: 200 pairs, 130 of them (or their variants) in the table;
- tests/data/dedup/expected.jsonl: per setting, `pairmetrics dedup`'s arguments and the rows it
  marks, as [row (0-based, in file order), duplicate_of]:
  - exact: OpusFilter 3.3.1's `remove_duplicates` step is run on the pairs as text files, for
    the pair, each side (`compare`), the preprocessing options and `overlap`; the rows it keeps
    are asserted to be the rows whose duplicate_of is null, and duplicate_of is the first row
    with the same `SegmentHasher` key (the tool's own hasher);
  - exact either: the earliest earlier row with the same source key or the same target key;
  - near: datasketch 2.0.0's `MinHashLSH(threshold, num_perm=128)` (seed 1, word or character
    shingles, each side in its own index for `either`), every row inserted and queried, the
    candidate pairs joined into connected components; duplicate_of is the pair_id of the
    component's first row.

    python -m venv v && v/bin/pip install opusfilter==3.3.1 datasketch==2.0.0 pyarrow
    v/bin/python scripts/make_dedup_vectors.py
"""
import json
import os
import random
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datasketch import MinHash, MinHashLSH
from opusfilter.opusfilter import OpusFilter
from opusfilter.segment_hash import SegmentHasher

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/data/dedup"

europarl = pq.read_table(ROOT / "data/europarl-sample/pairs.parquet", columns=["src_text", "tgt_text"])
base = list(zip(europarl.column("src_text").to_pylist(), europarl.column("tgt_text").to_pylist()))
lines = (ROOT / "tests/data/lid/texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]
# Files are read as Python reads text: a carriage return would end a line there.
lines = [l for l in lines if "\r" not in l]
base += [(lines[i], lines[(i * 37 + 11) % len(lines)]) for i in range(len(lines))]

rng = random.Random(7)
pick = lambda: base[rng.randrange(len(base))]
extra = []
extra += [pick() for _ in range(300)]
extra += [(pick()[0], pick()[1]) for _ in range(300)]
for _ in range(150):
    s, t = pick()
    extra.append((s.upper(), t.lower()))
for _ in range(100):
    s, t = pick()
    extra.append((s.replace(",", "").replace(".", " .") + " 12", t.replace("'", "")))
for _ in range(200):
    s, t = pick()
    sw, tw = s.split(), t.split()
    if len(tw) > 2:
        tw[len(tw) // 2] = "X"
    extra.append((" ".join(sw[:-1]), " ".join(tw)))
extra += [("", ""), ("", ""), ("", "x"), ("x", ""), (" ", "\t"), ("a\u00a0b", "a b")]
rows = base + extra
rng.shuffle(rows)
ids = [1000 + 3 * i for i in range(len(rows))]

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "pairs").mkdir(exist_ok=True)
half = len(rows) // 2
for part, chunk in enumerate([range(0, half), range(half, len(rows))]):
    table = pa.table({
        "pair_id": pa.array([ids[i] for i in chunk], pa.int64()),
        "src_text": [rows[i][0] for i in chunk],
        "tgt_text": [rows[i][1] for i in chunk],
    })
    pq.write_table(table, OUT / "pairs" / f"part-{part}.parquet", row_group_size=500)

against_rows = [rng.choice(rows) for _ in range(100)]
against_rows += [(s.upper(), t) for s, t in (rng.choice(rows) for _ in range(30))]
against_rows += [(lines[(i * 13) % len(lines)], lines[(i * 29 + 5) % len(lines)]) for i in range(70)]
against_ids = [50 + i for i in range(len(against_rows))]
pq.write_table(pa.table({
    "pair_id": pa.array(against_ids, pa.int64()),
    "src_text": [s for s, _ in against_rows],
    "tgt_text": [t for _, t in against_rows],
}), OUT / "against.parquet")


def opusfilter_keeps(parameters, against=None):
    """The rows OpusFilter's remove_duplicates step writes, as (src, tgt)."""
    with tempfile.TemporaryDirectory() as work:
        for name, data in [("in", rows), ("other", against or [])]:
            for side, suffix in [(0, "src"), (1, "tgt")]:
                with open(os.path.join(work, f"{name}.{suffix}"), "w", encoding="utf-8") as f:
                    f.writelines(pair[side] + "\n" for pair in data)
        step = {"inputs": ["in.src", "in.tgt"], "outputs": ["out.src", "out.tgt"], **parameters}
        if against is not None:
            step["overlap"] = [os.path.join(work, "other.src"), os.path.join(work, "other.tgt")]
        OpusFilter({"common": {"output_directory": work},
                    "steps": [{"type": "remove_duplicates", "parameters": step}]}).execute_steps()
        read = lambda p: open(os.path.join(work, p), encoding="utf-8").read().split("\n")[:-1]
        return list(zip(read("out.src"), read("out.tgt")))


def keyer(parameters):
    hasher = SegmentHasher(compare=parameters.get("compare", "all"), method="xxh64",
                           letters_only=parameters.get("letters_only", False),
                           letter_words_only=parameters.get("letter_words_only", False),
                           lowercase=parameters.get("lowercase", False))
    return lambda pair: hasher.apply([pair[0] + "\n", pair[1] + "\n"])


def exact(parameters, against=None):
    key = keyer(parameters)
    if against is None:
        first = {}
        out = []
        for i, pair in enumerate(rows):
            j = first.setdefault(key(pair), i)
            out.append(ids[j] if j != i else None)
    else:
        first = {}
        for i, pair in enumerate(against):
            first.setdefault(key(pair), i)
        out = [against_ids[first[key(p)]] if key(p) in first else None for p in rows]
    kept = [p for p, d in zip(rows, out) if d is None]
    assert kept == opusfilter_keeps(parameters, against), parameters
    return out


def exact_either(against=None):
    keys = [keyer({"compare": [0]}), keyer({"compare": [1]})]
    earlier = against if against is not None else rows
    pids = against_ids if against is not None else ids
    firsts = [{}, {}]
    for i, pair in enumerate(earlier):
        for side in (0, 1):
            firsts[side].setdefault(keys[side](pair), i)
    out = []
    for i, pair in enumerate(rows):
        found = [firsts[s].get(keys[s](pair)) for s in (0, 1)]
        found = [j for j in found if j is not None and (against is not None or j < i)]
        out.append(pids[min(found)] if found else None)
    return out


def shingles(text, how):
    if how == "words":
        return text.split()
    n = int(how.split(":")[1])
    return [text[i:i + n] for i in range(max(len(text) - n + 1, 1))] if text else []


def near(threshold, side, how, against=None):
    """MinHashLSH candidates joined into components; rows of `against` come first."""
    table = (against or []) + rows
    pids = (against_ids if against else []) + ids
    parent = list(range(len(table)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sides = {"pair": [(0, 1)], "src": [(0,)], "tgt": [(1,)], "either": [(0,), (1,)]}[side]
    for texts in sides:
        lsh = MinHashLSH(threshold=threshold, num_perm=128)
        signatures = []
        for i, pair in enumerate(table):
            m = MinHash(num_perm=128, seed=1)
            for t in texts:
                for s in shingles(pair[t], how):
                    m.update(s.encode("utf-8"))
            lsh.insert(i, m)
            signatures.append(m)
        for i, m in enumerate(signatures):
            for j in lsh.query(m):
                a, b = root(i), root(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    m = len(against or [])
    out = []
    for i in range(m, len(table)):
        r = root(i)
        out.append(pids[r] if r != i and (not against or r < m) else None)
    return out


settings = [
    ("exact pair", [], exact({})),
    ("exact src", ["--exact", "src"], exact({"compare": [0]})),
    ("exact tgt", ["--exact", "tgt"], exact({"compare": [1]})),
    ("exact pair lowercase", ["--options", "lowercase"], exact({"lowercase": True})),
    ("exact pair letters_only,lowercase", ["--options", "letters_only,lowercase"],
     exact({"letters_only": True, "lowercase": True})),
    ("exact src letter_words_only", ["--exact", "src", "--options", "letter_words_only"],
     exact({"compare": [0], "letter_words_only": True})),
    ("exact either", ["--exact", "either"], exact_either()),
    ("exact pair against", ["--against", "against.parquet"], exact({}, against_rows)),
    ("exact src against", ["--exact", "src", "--against", "against.parquet"],
     exact({"compare": [0]}, against_rows)),
    ("exact either against", ["--exact", "either", "--against", "against.parquet"],
     exact_either(against_rows)),
    ("near 0.8 pair words", ["--near", "0.8"], near(0.8, "pair", "words")),
    ("near 0.5 src words", ["--near", "0.5", "--side", "src"], near(0.5, "src", "words")),
    ("near 0.8 tgt chars:5", ["--near", "0.8", "--side", "tgt", "--shingle", "chars:5"],
     near(0.8, "tgt", "chars:5")),
    ("near 0.9 either words", ["--near", "0.9", "--side", "either"], near(0.9, "either", "words")),
    ("near 0.8 pair against", ["--near", "0.8", "--against", "against.parquet"],
     near(0.8, "pair", "words", against_rows)),
]
with open(OUT / "expected.jsonl", "w") as f:
    for name, args, duplicate_of in settings:
        marked = [[i, d] for i, d in enumerate(duplicate_of) if d is not None]
        f.write(json.dumps({"setting": name, "args": args, "marked": marked}) + "\n")
        print(f"{name}: {sum(d is not None for d in duplicate_of)} of {len(rows)} marked")
