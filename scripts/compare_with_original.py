#!/usr/bin/env python3
"""Differential test of `pairmetrics lepod` against the original lepod-score.py.

    python3 scripts/compare_with_original.py PATH/TO/lepod-score.py [--cases 500] [--bin target/release/pairmetrics]

The original lives in xingniu/multitask-ft-fsmt (LePoD/); it is not part of this repository.
Each case is a random small corpus (mixed case, punctuation, phrase matches, unaligned words)
with random options (-l, -d, -p, -v, -s); both programs run on it and their stdout and
PREFIX.led / PREFIX.pod must be byte-identical. Cases on which the original crashes are counted
and skipped (pairmetrics then follows SPEC or reports an error).
"""

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = ["the", "The", "cat", "Cat", "sat", "on", "mat", ",", ".", ";", "a", "lot", "of", "many", "É", "été"]
HEADER = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore\n"


def random_pair(rng):
    s1 = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
    s2 = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
    # One-to-one spans in random order, as METEOR's matcher produces them (no overlaps).
    free1, free2, matches = list(range(len(s1))), list(range(len(s2))), []
    for _ in range(rng.randint(0, min(len(s1), len(s2)))):
        if not free1 or not free2:
            break
        a, b = rng.choice(free1), rng.choice(free2)
        l1 = 2 if a + 1 in free1 and rng.random() < 0.2 else 1
        l2 = 2 if b + 1 in free2 and rng.random() < 0.2 else 1
        for x in range(a, a + l1):
            free1.remove(x)
        for y in range(b, b + l2):
            free2.remove(y)
        matches.append((b, l2, a, l1))
    return s1, s2, matches


def write_case(rng, d, pairs):
    lines1, lines2, blocks = [], [], []
    for k in range(pairs):
        s1, s2, matches = random_pair(rng)
        lines1.append(" ".join(s1))
        lines2.append("  ".join(s2) + (" " if rng.random() < 0.3 else ""))
        body = "".join(f"{b}:{l2}\t\t\t{a}:{l1}\t\t\t0\t\t1.0\n" for b, l2, a, l1 in matches)
        blocks.append(f"Alignment {k + 1}\n{' '.join(s1)}\n{' '.join(s2)}\n{HEADER}{body}\n")
    (d / "s1").write_text("\n".join(lines1) + "\n", encoding="utf-8")
    (d / "s2").write_text("\n".join(lines2) + "\n", encoding="utf-8")
    (d / "align").write_text("".join(blocks), encoding="utf-8")


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("original")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "target/release/pairmetrics"))
    args = ap.parse_args()
    rng = random.Random(11)
    same = crashed = 0
    for case in range(args.cases):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            write_case(rng, d, rng.randint(1, 6))
            opts = []
            if rng.random() < 0.5:
                opts.append("-l")
            opts += ["-d", str(rng.randint(0, 6))]
            if rng.random() < 0.6:
                opts += ["-p", rng.choice([",", ",.", ".;,"])]
            if rng.random() < 0.3:
                opts.append("-v")
            if rng.random() < 0.2:
                opts.append("-s")
            base = ["-a", "align", "-f", "s1", "s2"] + opts
            orig = run([sys.executable, args.original] + base + ["-r", "orig"], d)
            if orig.returncode != 0:
                crashed += 1
                continue
            ours = run([str(Path(args.bin).resolve()), "lepod"] + base + ["-r", "ours"], d)
            files_same = all((d / f"orig.{e}").read_bytes() == (d / f"ours.{e}").read_bytes() for e in ["led", "pod"])
            if ours.returncode != 0 or ours.stdout != orig.stdout or not files_same:
                print(f"case {case} differs with options {opts}; inputs kept in {d}", file=sys.stderr)
                print(ours.stderr.decode(), file=sys.stderr)
                input_copy = Path(tempfile.mkdtemp(prefix="lepod-diff-"))
                for f in d.iterdir():
                    (input_copy / f.name).write_bytes(f.read_bytes())
                print(f"copied to {input_copy}", file=sys.stderr)
                sys.exit(1)
            same += 1
    print(f"{same} cases byte-identical, {crashed} cases skipped because the original crashed")


if __name__ == "__main__":
    main()
