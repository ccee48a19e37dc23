#!/usr/bin/env python3
"""The "Scale" section of BENCHMARKS.md from scripts/bench_scale.sh's results.

    scale_model.py RESULTS.tsv COMMIT LOAD > section.md

LOAD: `idle`, or `busy` (an experiment: every core kept busy by lowest-priority loops, which
the executors should displace but at N = 8 did not; docs/cluster.md, "Measured scaling").

RESULTS: `job, N, pairs, tasks, share, seconds, executor CPU s, scheduler CPU s, shuffle bytes,
client CPU s, client peak KB`.

The cost model. A job of P pairs in K tasks of equal size on N executors of one slot each,
every slot capped to `share` of a core, runs its tasks in ceil(K / N) waves:

    T(N) = J + ceil(K / N) · u,    u = τ + (P / K) · w / share

J is the per-job overhead (planning, submission, the client's own work before and after), u a
task's wall time: τ its overhead (dispatch, plan decoding, opening the files, writing its
output) and (P / K) · w / share its pairs' work, w the CPU seconds per pair at a full core.
J and u are fitted by least squares on the runs with N ≤ 4, and the fit predicts N = 8. u is
then split with the executors' measured CPU time, w = executor CPU s / P (τ = u − the work).
The client's CPU time is recorded too: the part of J that grows with the pairs (the summary
`score` reads back, a GROUP BY's final merge) runs in the client alone, however many executors
there are. The projection to 1B pairs on machines of 16 full cores (16 slots each, 4 tasks per
slot) takes J as measured plus the client's CPU per pair times the extra pairs.
"""

import collections
import math
import statistics
import sys

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
commit, load = sys.argv[2], sys.argv[3]
runs = collections.defaultdict(dict)
for job, n, pairs, tasks, share, seconds, executor_cpu, scheduler_cpu, shuffle, client_cpu, kb in rows:
    runs[job][int(n)] = dict(
        pairs=int(pairs), tasks=int(tasks), share=float(share), seconds=float(seconds),
        executor_cpu=float(executor_cpu), scheduler_cpu=float(scheduler_cpu), shuffle=int(shuffle),
        client_cpu=float(client_cpu), client_kb=int(kb),
    )


def solve(a, b):
    """Least squares: the x minimising |a x - b|, by the normal equations (3 unknowns)."""
    m = len(a[0])
    ata = [[sum(r[i] * r[j] for r in a) for j in range(m)] for i in range(m)]
    atb = [sum(r[i] * y for r, y in zip(a, b)) for i in range(m)]
    for col in range(m):  # Gauss-Jordan with partial pivoting
        pivot = max(range(col, m), key=lambda r: abs(ata[r][col]))
        ata[col], ata[pivot] = ata[pivot], ata[col]
        atb[col], atb[pivot] = atb[pivot], atb[col]
        for r in range(m):
            if r != col:
                f = ata[r][col] / ata[col][col]
                ata[r] = [x - f * y for x, y in zip(ata[r], ata[col])]
                atb[r] -= f * atb[col]
    return [atb[i] / ata[i][i] for i in range(m)]


def terms(run, n):
    return [1.0, math.ceil(run["tasks"] / n)]


print("<!-- scale: written by scripts/bench_scale.sh -->")
print("## Scale\n")
any_run = next(iter(next(iter(runs.values())).values()))
print(
    f"`scripts/bench_scale.sh` at {commit}: a Ballista cluster on this machine, 1 scheduler "
    f"(uncapped) and N executors, each capped by the kernel's CPU controller to "
    f"{any_run['share']:g} of a core and given one task slot, so N executors have N × "
    f"{any_run['share']:g} cores. The same jobs at every N, {any_run['pairs']:,} pairs in "
    f"{any_run['tasks']} tasks: `score` = `score --cluster --metrics lepod,chrf` (LeD, PoD and "
    f"chrF of every pair, written out); `group` = a GROUP BY of LeD and chrF over every pair "
    f"(`sql --cluster`, one shuffle). Their answers are the same at every N (checked: a checksum "
    f"of every scored value; the GROUP BY's output byte for byte). Throughput X(N) = pairs / s; "
    f"efficiency E(N) = X(N) / (N · X(1)). One run each. "
    + (
        "The machine was kept busy at every N by a busy loop per core at the lowest priority "
        "(nice 19, outside the caps; `LOAD=busy`, an experiment: at N = 8 the loops were not "
        "displaced as they should be, see docs/cluster.md, \"Measured scaling\").\n"
        if load == "busy"
        else "The machine was otherwise idle (`LOAD=idle`).\n"
    )
)
print("| job | N | wall | pairs/s | E(N) | executors' CPU | scheduler's CPU | client's CPU (peak) | shuffle written | model | model error |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
fits = {}
for job, by_n in runs.items():
    fit_ns = [n for n in sorted(by_n) if n <= 4]
    if len(fit_ns) >= 3:
        fits[job] = solve([terms(by_n[n], n) for n in fit_ns], [by_n[n]["seconds"] for n in fit_ns])
    x1 = by_n[1]["pairs"] / by_n[1]["seconds"] if 1 in by_n else None
    for n, run in sorted(by_n.items()):
        x = run["pairs"] / run["seconds"]
        e = f"{x / (n * x1):.2f}" if x1 else "—"
        model = error = "—"
        if job in fits:
            predicted = sum(c * t for c, t in zip(fits[job], terms(run, n)))
            model = f"{predicted:.1f} s"
            error = f"{(predicted - run['seconds']) / run['seconds'] * 100:+.1f} %" + ("" if n <= 4 else " (predicted)")
        shuffle = run["shuffle"]
        shown = f"{shuffle / 1e6:,.1f} MB" if shuffle >= 1e5 else f"{shuffle / 1e3:,.1f} kB"
        print(
            f"| {job} | {n} | {run['seconds']:.1f} s | {x:,.0f} | {e} | {run['executor_cpu']:.1f} s | "
            f"{run['scheduler_cpu']:.2f} s | {run['client_cpu']:.1f} s ({run['client_kb'] // 1024} MB) | "
            f"{shown} | {model} | {error} |"
        )
print()
def scheduler_load():
    every = [r for by_n in runs.values() for r in by_n.values()]
    return sum(r["scheduler_cpu"] for r in every) / sum(r["seconds"] for r in every)


def client_per_pair(job):
    return statistics.mean(r["client_cpu"] / r["pairs"] for r in runs[job].values())


parts = {}
for job, (j, u) in fits.items():
    by_n = runs[job]
    some = next(iter(by_n.values()))
    w = statistics.mean(by_n[n]["executor_cpu"] / by_n[n]["pairs"] for n in by_n if n <= 4)
    tau = u - some["pairs"] / some["tasks"] * w / some["share"]
    parts[job] = (j, tau, w)
    print(
        f"- `{job}`, fitted on N ≤ 4: J = {j:.2f} s per job, u = {u:.2f} s per task; the executors' "
        f"CPU time gives w = {w * 1e6:.2f} µs per pair at a full core, so τ = {tau * 1000:.0f} ms "
        f"per task. The client spends {client_per_pair(job) * 1e9:.0f} ns of CPU per pair."
    )
print(
    f"- The scheduler's CPU grows with the jobs' wall time, not with their tasks (every run has "
    f"the same tasks): {scheduler_load() * 100:.1f} % of a core while a job runs, whatever N."
)
print()
print("Projected with the same model to 1,000,000,000 pairs on machines of 16 full cores (16 slots")
print("each, 4 tasks per slot), the per-task and per-job overheads as measured here:\n")
print("| job | executors × 16 cores | tasks | waves | projected wall | of which the client alone | pairs/s |")
print("|---|---:|---:|---:|---:|---:|---:|")
for job, (j, tau, w) in parts.items():
    measured_pairs = next(iter(runs[job].values()))["pairs"]
    client = client_per_pair(job) * 1e9
    for machines in (8, 64):
        slots = machines * 16
        tasks = 4 * slots
        waves = math.ceil(tasks / slots)
        wall = j + client_per_pair(job) * (1e9 - measured_pairs) + waves * (tau + 1e9 / tasks * w)
        print(
            f"| {job} | {machines} × 16 | {tasks:,} | {waves} | {wall:,.0f} s ({wall / 60:.1f} min) | "
            f"{client:,.0f} s | {1e9 / wall:,.0f} |"
        )
print("\n<!-- /scale -->")
