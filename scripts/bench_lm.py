#!/usr/bin/env python3
"""Language-model scoring: `pairmetrics sql "SELECT sum(lm_logprob(tgt)) ..."` against a Python
loop over KenLM's `Model.score`, the way a user scores a Parquet column with KenLM, and the
memory each holds for a 3-gram and a 5-gram model. Run by scripts/bench_lm.sh, which builds
the binary and the corpus; needs `pip install kenlm pyarrow`.

    scripts/bench_lm.py BIN CORPUS_DIR WORK_DIR SENTENCES LM_SENTENCES REPEAT > section.md

The sentences are the `tgt` column of a generated Europarl-shaped corpus, rewritten by pyarrow
with its defaults (one row group, no page index: the file users have). The models are
estimated on its first LM_SENTENCES sentences by scripts/make_lm_fixture.py's back-off
estimator (KenLM's lmplz is not installable here).
"""
import gc
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import kenlm
import pyarrow.parquet as pq

binary, corpus, work, n, lm_n, repeat = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), *map(int, sys.argv[4:7])
work.mkdir(parents=True, exist_ok=True)

sentences = work / f"sentences-{n}.parquet"
if not sentences.exists():
    pq.write_table(pq.read_table(corpus / "pairs.parquet", columns=["tgt"]).slice(0, n), sentences)
spec = importlib.util.spec_from_file_location("fixture", "scripts/make_lm_fixture.py")
fixture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixture)
models = {}
for order in (3, 5):
    arpa = work / f"model-{order}gram-{lm_n}.arpa"
    if not arpa.exists():
        lines = [" ".join(t) for t in pq.read_table(sentences).column("tgt").slice(0, lm_n).to_pylist()]
        arpa.write_text(fixture.backoff_arpa(lines, order=order), encoding="utf-8")
        del lines
        gc.collect()
    models[order] = arpa
words = pq.read_table(sentences).column("tgt").combine_chunks().flatten()
print(f"corpus: {n:,} sentences, {len(words):,} words", file=sys.stderr)


def rss_kb():
    return int(re.search(r"VmRSS:\s+(\d+)", Path("/proc/self/status").read_text()).group(1))


def timed(args):
    """Wall seconds, peak RSS KB and stdout of `binary args`, by /usr/bin/time."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", binary, *args], capture_output=True, text=True, check=True)
    seconds, kb = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb), out.stdout, out.stderr


def kenlm_run(arpa):
    """KenLM from Python: load time, RSS the model adds, and the scoring loop over the column
    (read, to Python lists, joined, scored) with its sum."""
    before = rss_kb()
    start = time.perf_counter()
    model = kenlm.Model(str(arpa))
    load = time.perf_counter() - start
    held = rss_kb() - before
    start = time.perf_counter()
    total = 0.0
    for tokens in pq.read_table(sentences).column("tgt").to_pylist():
        total += model.score(" ".join(tokens), bos=True, eos=True)
    score = time.perf_counter() - start
    del model
    gc.collect()
    return load, held, score, total


rows = []
for order, arpa in models.items():
    query = ["sql", "--format", "csv", "--lm", str(arpa), "--table", f"s={sentences}"]
    runs = {"pairmetrics, 2 threads": [], "pairmetrics, 1 thread": [], "load only": [], "KenLM": []}
    for _ in range(repeat):
        runs["load only"].append(timed(["sql", "--lm", str(arpa), "SELECT 1"]))
        runs["pairmetrics, 2 threads"].append(timed([*query, "SELECT sum(lm_logprob(tgt)) FROM s"]))
        runs["pairmetrics, 1 thread"].append(timed([*query, "--partitions", "1", "SELECT sum(lm_logprob(tgt)) FROM s"]))
        runs["KenLM"].append(kenlm_run(arpa))
    ours = float(runs["pairmetrics, 2 threads"][0][2].strip().splitlines()[-1])
    theirs = runs["KenLM"][0][3]
    if abs(ours - theirs) > 1e-6 * abs(theirs):
        sys.exit(f"{order}-gram: pairmetrics sums to {ours}, KenLM to {theirs}")
    ngrams = [int(m) for m in re.findall(r"^ngram \d+=(\d+)", arpa.read_text(encoding="utf-8")[:500], re.M)]
    load = statistics.median(r[0] for r in runs["load only"])
    model_mib = float(re.search(r"~(\d+) MiB", runs["load only"][0][3]).group(1))
    base_kb = timed(["sql", "SELECT 1"])[1]
    kenlm_load = statistics.median(r[0] for r in runs["KenLM"])
    kenlm_score = statistics.median(r[2] for r in runs["KenLM"])
    kenlm_mib = max(r[1] for r in runs["KenLM"]) / 1024
    rows.append((order, ngrams, ours, theirs, load, model_mib, (runs["load only"][0][1] - base_kb) / 1024, kenlm_load, kenlm_mib))
    for name in ("pairmetrics, 2 threads", "pairmetrics, 1 thread"):
        total = statistics.median(r[0] for r in runs[name])
        rows.append((order, name, total, total - load, max(r[1] for r in runs[name]) // 1024, kenlm_score / (total - load)))
    rows.append((order, "KenLM Model.score loop (Python)", kenlm_load + kenlm_score, kenlm_score, None, 1.0))

print("<!-- lm: scripts/bench_lm.sh -->")
print("## Language models: lm_logprob against KenLM\n")
print(f"`SELECT sum(lm_logprob(tgt)) FROM s` over {n:,} sentences ({len(words):,} words) of a generated")
print("Europarl-shaped corpus in a pyarrow-written file (one row group, no page index), against a Python")
print("loop over KenLM's `Model.score` (pip kenlm 0.3, its probing structure) reading the same column")
print(f"(read, to lists, joined, scored). Models estimated on {lm_n:,} of the sentences by")
print("scripts/make_lm_fixture.py's back-off estimator, loaded from ARPA text by both. Scoring = total")
print(f"minus the load (`SELECT 1` with --lm); medians of {repeat} runs; the sums agree to 1e-6.\n")
print("| model | run | total s | scoring s | peak RSS MB | scoring vs KenLM |")
print("|---|---|---:|---:|---:|---:|")
for row in rows:
    if isinstance(row[1], str):
        order, name, total, score, peak, ratio = row
        print(f"| {order}-gram | {name} | {total:.2f} | {score:.2f} | {'' if peak is None else peak} | {ratio:.2f}x |")
print("\n| model | n-grams | pairmetrics load s | pairmetrics model MiB (RSS added) | KenLM load s | KenLM RSS added MiB |")
print("|---|---|---:|---:|---:|---:|")
for row in rows:
    if not isinstance(row[1], str):
        order, ngrams, _, _, load, model_mib, rss_mib, kenlm_load, kenlm_mib = row
        print(f"| {order}-gram | {' / '.join(f'{c:,}' for c in ngrams)} | {load:.2f} | {model_mib:.0f} ({rss_mib:.0f}) | {kenlm_load:.2f} | {kenlm_mib:.0f} |")
print("\n<!-- /lm -->")
