#!/usr/bin/env python3
"""Build the small language model the tests use, and KenLM's scores for a test set.

    pip install kenlm
    python3 scripts/make_lm_fixture.py europarl-v7.fr-en.head3000.en tests/data/lm

(the first 3,000 English lines of Europarl v7 fr-en, https://www.statmt.org/europarl/).

Estimates a trigram back-off model (absolute discounting, Katz-style back-off weights) on
English lines 1-1000 of the Europarl sample (tokenised by splitting punctuation off words), then scores lines 2001-2100 and a few edge
cases (an empty sentence, unknown words, a training sentence) with KenLM's Python module:
Model.score(sentence, bos=True, eos=True), the log10 probability of the whole sentence.
Also records KenLM's score without <s> or </s>, its perplexity and its full_scores. Writes
europarl.en.3gram.arpa.gz and kenlm_scores.json; tests/fitness.rs checks that lm_logprob,
lm_full_scores and lm_perplexity give the same numbers to 1e-4.
"""
import gzip
import json
from collections import Counter, defaultdict
import re
import math
import sys
import tempfile
from pathlib import Path


TOKEN = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)


def tokenise(line):
    return " ".join(TOKEN.findall(line))


def backoff_arpa(sentences, order=3, discount=0.5):
    """A Katz-style back-off model with absolute discounting, as ARPA text (SRILM layout).

    Seen n-grams get (c(h w) - D) / c(h); the mass left over goes to the lower order through
    the back-off weight alpha(h) = left / (1 - sum of the lower order's p over the words seen
    after h). <unk> gets one pseudo count. Written by hand because the ARPA writers on PyPI
    (arpabo) leave every back-off weight at 0, which would test nothing.
    """
    counts = [Counter() for _ in range(order + 1)]
    for sentence in sentences:
        words = ["<s>"] + sentence.split() + ["</s>"]
        for n in range(1, order + 1):
            for i in range(len(words) - n + 1):
                gram = tuple(words[i : i + n])
                if gram != ("<s>",):
                    counts[n][gram] += 1
    counts[1][("<unk>",)] += 1
    total = sum(counts[1].values())
    prob = {g: c / total for g, c in counts[1].items()}
    prob[("<s>",)] = 0.0
    followers = [defaultdict(list) for _ in range(order + 1)]
    for n in range(2, order + 1):
        for gram in counts[n]:
            followers[n][gram[:-1]].append(gram)
    context_count = lambda h: sum(counts[len(h) + 1][g] for g in followers[len(h) + 1][h])
    backoff = {}
    for n in range(2, order + 1):
        for h, grams in followers[n].items():
            c_h = context_count(h)
            for g in grams:
                prob[g] = (counts[n][g] - discount) / c_h
            left = discount * len(grams) / c_h
            lower = sum(prob[g[1:]] for g in grams)
            backoff[h] = left / (1.0 - lower) if lower < 1.0 else 1.0
    lines = ["\\data\\"] + [f"ngram {n}={len(counts[n]) + (1 if n == 1 else 0)}" for n in range(1, order + 1)]
    log = lambda p: -99.0 if p <= 0 else math.log10(p)
    for n in range(1, order + 1):
        lines += ["", f"\\{n}-grams:"]
        grams = sorted(counts[n]) + ([("<s>",)] if n == 1 else [])
        for g in grams:
            line = f"{log(prob[g]):.6f}\t{' '.join(g)}"
            if n < order and g in backoff:
                line += f"\t{math.log10(backoff[g]):.6f}"
            lines.append(line)
    return "\n".join(lines + ["", "\\end\\", ""])


def case(model, sentence):
    """Everything KenLM's Python module says of one sentence."""
    return {
        "sentence": sentence,
        "log10": model.score(sentence, bos=True, eos=True),
        "log10_no_bos": model.score(sentence, bos=False, eos=True),
        "log10_no_eos": model.score(sentence, bos=True, eos=False),
        "log10_bare": model.score(sentence, bos=False, eos=False),
        "perplexity": model.perplexity(sentence),
        "full_scores": [list(s) for s in model.full_scores(sentence)],
        "full_scores_bare": [list(s) for s in model.full_scores(sentence, bos=False, eos=False)],
    }


def main(corpus, out_dir):
    import kenlm  # only here: backoff_arpa is also used by scripts/bench_fitness.sh without it

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = [tokenise(l) for l in Path(corpus).read_text(encoding="utf-8").splitlines()]
    train = [l for l in lines[:1000] if l]
    test = lines[2000:2100] + [
        "",
        "zzqx unknownword",
        "the the the",
        train[0],
        "Resumption of the session",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        arpa = Path(tmp) / "model.arpa"
        arpa.write_text(backoff_arpa(train), encoding="utf-8")
        model = kenlm.Model(str(arpa))
        cases = [case(model, s) for s in test]
        gz = out_dir / "europarl.en.3gram.arpa.gz"
        text = arpa.read_bytes()
        # Rewritten only when the model changed (gzip stamps the time, so the bytes would churn).
        if not gz.exists() or gzip.decompress(gz.read_bytes()) != text:
            with gzip.GzipFile(gz, "wb", compresslevel=9, mtime=0) as dst:
                dst.write(text)
    description = (
        "KenLM (pip kenlm) under europarl.en.3gram.arpa.gz (a trigram back-off model with absolute discounting, "
        "estimated on English lines 1-1000 of the Europarl sample): log10 = Model.score(sentence, bos=True, eos=True), "
        "log10_no_bos = score(bos=False, eos=True), log10_no_eos = score(bos=True, eos=False), "
        "log10_bare = score(bos=False, eos=False), perplexity = Model.perplexity(sentence), "
        "full_scores = list(Model.full_scores(sentence)) as [log10, ngram_length, oov], "
        "full_scores_bare = the same with bos=False, eos=False; made by scripts/make_lm_fixture.py"
    )
    # One line per case: readable in a diff, and a tenth of the size indented lists would take.
    lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases)
    head = json.dumps({"description": description, "order": 3}, indent=1, ensure_ascii=False)[:-2]
    (out_dir / "kenlm_scores.json").write_text(f'{head},\n "cases": [\n{lines}\n ]\n}}\n', encoding="utf-8")
    print(f"{len(cases)} sentences scored; model order {model.order}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
