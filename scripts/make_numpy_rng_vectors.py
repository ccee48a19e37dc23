#!/usr/bin/env python3
"""Write tests/vectors/numpy_rng/draws.json: numpy's default_rng draws that sacrebleu's
significance tests make (raw 64-bit outputs, choice(n, (R, n)), integers(2, (R, n), dtype=bool),
and the two in sequence, as approximate randomisation with confidence draws them), for
crates/kernels/src/stats/numpy_random.rs to equal. Needs numpy (the sacrebleu 2.6.0 environment's)."""
import json
import sys
from pathlib import Path

import numpy as np

cases = []
for seed in [12345, 0, 1, 2**32 + 7, 2**100 + 3]:
    case = {"seed": str(seed)}
    case["raw"] = [str(x) for x in np.random.default_rng(seed).bit_generator.random_raw(5)]
    case["choice"] = []
    for n, rows in [(1, 2), (7, 3), (200, 2), (5000, 1), (2**32, 1), (2**32 + 1, 1), (2**40 + 5, 1)]:
        g = np.random.default_rng(seed)
        size = (rows, min(n, 50))
        case["choice"].append({"n": str(n), "shape": list(size), "values": [str(v) for v in g.choice(n, size=size).ravel()]})
    g = np.random.default_rng(seed)
    flips = g.integers(2, size=(3, 41), dtype=bool)
    after = g.choice(9, size=(2, 9))
    case["bools_then_choice"] = {"bools": [int(b) for b in flips.ravel()], "shape": [3, 41], "choice_n": 9,
                                 "choice": [int(v) for v in after.ravel()]}
    cases.append(case)

out = Path(__file__).resolve().parent.parent / "tests/vectors/numpy_rng/draws.json"
out.write_text(json.dumps({"numpy": np.__version__, "cases": cases}, indent=1) + "\n")
print(f"wrote {out}", file=sys.stderr)
