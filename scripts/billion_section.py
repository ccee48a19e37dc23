#!/usr/bin/env python3
"""The "A billion pairs" section of BENCHMARKS.md from scripts/bench_billion.sh's results.

    billion_section.py RESULTS.tsv COMMIT COPIES ANSWER_FILE > section.md

RESULTS: `run, pairs, seconds, peak KB, executors' peak KB (a/b, or empty)`, one row per run
(`once` over one copy, `one` and `cluster` over every copy); ANSWER_FILE the single copy's
answer (CSV), shown beside the check that each billion-pair answer is COPIES times it.
"""

import csv
import sys

results, commit, copies, answer = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
runs = {}
for line in open(results):
    if line.strip():
        name, pairs, seconds, kb, executor_kb = (line.rstrip("\n").split("\t") + [""])[:5]
        runs[name] = dict(pairs=int(pairs), seconds=float(seconds), kb=int(kb), executor_kb=executor_kb)
once = next(csv.DictReader(open(answer)))

what = {
    "once": "one process, one copy",
    "one": "one process, every copy",
    "cluster": "scheduler + 2 executors (2 slots each), every copy",
}


def mib(kb):
    return f"{int(kb) / 1024:,.0f} MiB"


print("<!-- billion: written by scripts/bench_billion.sh -->")
print("## A billion pairs\n")
single = runs["once"]["pairs"]
print(
    f"`scripts/bench_billion.sh` at {commit}, release build, this machine's 2 cores. One table of "
    f"{single:,} generated pairs with their alignment links, hard-linked {copies} times under "
    f"`copy=00/` … `copy={copies - 1:02d}/` (Hive partitions): {single * copies:,} rows read through "
    f"the page cache, so this measures CPU and memory, not storage. The job: LeD and PoD of every "
    f"pair, `SELECT count(*), sum(round(led · 10⁶)), sum(round(pod · 10⁶)), count(pod) FROM "
    f"(SELECT lepod(src, tgt, links) …)` (`sql`, integer sums, so the answers compare exactly). "
    f"Both billion-pair answers equal {copies} × the single copy's ({', '.join(f'{k} {int(v):,}' for k, v in once.items())}), "
    f"checked by the script. One run each.\n"
)
print("| run | pairs | wall | pairs/s | peak memory, client or process | peak memory, each executor |")
print("|---|---:|---:|---:|---:|---:|")
for name, run in runs.items():
    executors = " / ".join(mib(kb) for kb in run["executor_kb"].split("/")) if run["executor_kb"] else "—"
    print(
        f"| {what.get(name, name)} | {run['pairs']:,} | {run['seconds']:,.0f} s ({run['seconds'] / 60:.1f} min) | "
        f"{run['pairs'] / run['seconds']:,.0f} | {mib(run['kb'])} | {executors} |"
    )
if "one" in runs and "once" in runs:
    per_pair = {name: run["seconds"] / run["pairs"] for name, run in runs.items()}
    print(
        f"\nPer pair, the billion in one process took {per_pair['one'] / per_pair['once']:.2f}x the "
        f"time of the single copy's run (whose startup weighs more)"
        + (f"; the cluster, on the same 2 cores, {per_pair['cluster'] / per_pair['one']:.2f}x the one "
           f"process's." if "cluster" in runs else ".")
    )
print("\n<!-- /billion -->")
