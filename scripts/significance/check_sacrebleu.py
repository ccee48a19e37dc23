#!/usr/bin/env python3
"""Our p-values against sacrebleu's own code on the same per-pair scores.

    pip install sacrebleu numpy
    scripts/significance/check_sacrebleu.py [PAIRMETRICS_BINARY]

Makes five pairs of systems in SQL (400 pairs, b = a + shift + noise, shifts from 0 to 0.01),
scores them with `paired_bootstrap` and `approx_randomization` (10,000 draws), and with
sacrebleu's significance module: its `_compute_p_value` and `estimate_ci`, fed the resamples
its `_paired_bs_test` and `_paired_ar_test` draw (n of n indices with replacement; per-row
swaps), a sentence score's mean standing for its metric's corpus score. Fails when a p-value
differs by more than 0.02.
"""
import csv
import io
import subprocess
import sys
import tempfile

import numpy as np
from sacrebleu.significance import _compute_p_value, estimate_ci

binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/pairmetrics"
DRAWS, SEED = 10_000, 12345


def pm(*args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def sacrebleu_bootstrap(a, b):
    rng = np.random.default_rng(SEED)
    idxs = rng.choice(len(a), size=(DRAWS, len(a)), replace=True)
    scores_a, scores_b = a[idxs].mean(axis=1), b[idxs].mean(axis=1)
    diffs = np.abs(scores_b - scores_a)
    return _compute_p_value(diffs - diffs.mean(), abs(b.mean() - a.mean())), estimate_ci(scores_b)


def sacrebleu_ar(a, b):
    rng = np.random.default_rng(SEED)
    pos = rng.integers(2, size=(DRAWS, len(a)), dtype=bool)
    shuf_a = (pos * a + ~pos * b).mean(axis=1)
    shuf_b = (~pos * a + pos * b).mean(axis=1)
    return _compute_p_value(np.abs(shuf_a - shuf_b), abs(b.mean() - a.mean()))


worst = 0.0
with tempfile.TemporaryDirectory() as tmp:
    for k, shift in enumerate([0.0, 0.002, 0.004, 0.006, 0.01]):
        table = f"{tmp}/s{k}.parquet"
        # a in [0, 1); noise: a sum of three uniforms, centred (deterministic in SQL).
        pm("sql", "--out", table, f"""
            SELECT value AS pair_id, x AS a,
                   x + {shift} + 0.05 * (u1 + u2 + u3 - 1.5) AS b
            FROM (SELECT value,
                         CAST((value * 7919 + {k}) % 1009 AS DOUBLE) / 1009 AS x,
                         CAST((value * 104729 + 17 * {k}) % 997 AS DOUBLE) / 997 AS u1,
                         CAST((value * 15485863 + 31 * {k}) % 991 AS DOUBLE) / 991 AS u2,
                         CAST((value * 32452843 + 43 * {k}) % 983 AS DOUBLE) / 983 AS u3
                  FROM range(400))""")
        out = pm("sql", "--format", "csv", "--table", f"t={table}", f"""
            SELECT paired_bootstrap(a, b, {DRAWS}, {SEED})['p_value'] AS bs,
                   approx_randomization(a, b, {DRAWS}, {SEED}) AS ar FROM t""")
        ours = next(csv.DictReader(io.StringIO(out)))
        rows = list(csv.DictReader(io.StringIO(pm("sql", "--format", "csv", "--table", f"t={table}", "SELECT a, b FROM t ORDER BY pair_id"))))
        a = np.array([float(r["a"]) for r in rows])
        b = np.array([float(r["b"]) for r in rows])
        bs, _ = sacrebleu_bootstrap(a, b)
        ar = sacrebleu_ar(a, b)
        d_bs, d_ar = abs(float(ours["bs"]) - bs), abs(float(ours["ar"]) - ar)
        worst = max(worst, d_bs, d_ar)
        print(f"shift {shift}: bootstrap p ours {float(ours['bs']):.4f} sacrebleu {bs:.4f} | "
              f"AR p ours {float(ours['ar']):.4f} sacrebleu {ar:.4f}")
print(f"largest difference {worst:.4f} (allowed 0.02)")
sys.exit(0 if worst <= 0.02 else 1)
