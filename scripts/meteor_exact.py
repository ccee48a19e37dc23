#!/usr/bin/env python3
"""A small stand-in for METEOR's aligner (exact module only), writing METEOR 1.5 Matcher
blocks, so that the LePoD pipeline runs where the METEOR jar is not available:

    python3 scripts/meteor_exact.py S1 S2 > ALIGN

Each pair is aligned one-to-one on identical (lowercased) tokens: first a longest common
subsequence (monotone), then the remaining identical tokens, nearest first. As in METEOR's
output, the first column of a match is the span of the SECOND sentence.
"""

import sys

HEADER = "Line2Start:Length\tLine1Start:Length\tModule\t\tScore"


def align(t1, t2):
    n, m = len(t1), len(t2)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if t1[i] == t2[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if t1[i] == t2[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif lcs[i + 1][j] >= lcs[i][j + 1]:
            i += 1
        else:
            j += 1
    used1, used2 = {a for a, _ in pairs}, {b for _, b in pairs}
    rest = sorted(
        (abs(a - b), a, b)
        for a in range(n) if a not in used1
        for b in range(m) if b not in used2 and t1[a] == t2[b]
    )
    for _, a, b in rest:
        if a not in used1 and b not in used2:
            pairs.append((a, b))
            used1.add(a)
            used2.add(b)
    return sorted(pairs, key=lambda p: p[1])


def main():
    with open(sys.argv[1], encoding="utf-8") as f1, open(sys.argv[2], encoding="utf-8") as f2:
        for k, (l1, l2) in enumerate(zip(f1, f2), start=1):
            t1, t2 = l1.strip().lower().split(), l2.strip().lower().split()
            print(f"Alignment {k}\n{' '.join(t1)}\n{' '.join(t2)}\n{HEADER}")
            for a, b in align(t1, t2):
                print(f"{b}:1\t\t\t{a}:1\t\t\t0\t\t1.0")
            print()


if __name__ == "__main__":
    main()
