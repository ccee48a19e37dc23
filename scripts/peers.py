#!/usr/bin/env python3
"""What a user would write instead of pairmetrics, for scripts/bench.sh: LeD as a vectorised
Python UDF over Arrow in DuckDB and in Polars, and DERP written straight from SPEC §2 in plain
Python (also a differential oracle: it must agree with pairmetrics to 1e-12 on every pair).

    pip install duckdb polars pyarrow
    python3 scripts/peers.py duckdb-led DIR          # prints: seconds pairs sum
    python3 scripts/peers.py polars-led DIR
    python3 scripts/peers.py derp DIR LIMIT SCORED   # SCORED: pairmetrics' derp per pair (Parquet)

DIR holds pairs.parquet, alignments.parquet and arcs.parquet (our schemas).
"""
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq


# --- LeD (SPEC §1), over one pair --------------------------------------------------------------

def led(src, tgt, links):
    """LeD over the alignment's units; None for an empty sentence."""
    if not src or not tgt:
        return None
    n1 = len(src)
    parent = list(range(n1 + len(tgt)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    aligned = set()
    for link in links:
        a, b = link["src"], link["tgt"]
        if a >= n1 or b >= len(tgt):
            return None
        aligned.add(a)
        aligned.add(n1 + b)
        ra, rb = find(a), find(n1 + b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    units = {}
    for node in sorted(aligned):
        side = 0 if node < n1 else 1
        units.setdefault(find(node), ([], []))[side].append(node if side == 0 else node - n1)
    kept1 = kept2 = 0
    for s, t in units.values():
        if [src[i] for i in s] == [tgt[j] for j in t]:
            kept1 += len(s)
            kept2 += len(t)
    return ((n1 - kept1) / n1 + (len(tgt) - kept2) / len(tgt)) / 2


def led_arrow(src, tgt, links):
    """The vectorised form both engines call: Arrow arrays in, an Arrow array out."""
    return pa.array([led(s, t, l) for s, t, l in zip(src.to_pylist(), tgt.to_pylist(), links.to_pylist())],
                    type=pa.float64())


def duckdb_led(d):
    import duckdb

    con = duckdb.connect()
    con.create_function(
        "py_led",
        led_arrow,
        ["VARCHAR[]", "VARCHAR[]", "STRUCT(src INTEGER, tgt INTEGER)[]"],
        "DOUBLE",
        type="arrow",
    )
    started = time.perf_counter()
    total, pairs = con.execute(
        f"SELECT sum(py_led(p.src, p.tgt, a.links)), count(*) FROM read_parquet('{d}/pairs.parquet') p "
        f"JOIN read_parquet('{d}/alignments.parquet') a USING (pair_id)"
    ).fetchone()
    return time.perf_counter() - started, pairs, total


def polars_led(d):
    import polars as pl

    def batch(s):
        table = s.struct.unnest().to_arrow()
        return pl.from_arrow(led_arrow(table.column("src"), table.column("tgt"), table.column("links")))

    started = time.perf_counter()
    frame = (
        pl.scan_parquet(f"{d}/pairs.parquet")
        .join(pl.scan_parquet(f"{d}/alignments.parquet"), on="pair_id")
        .select(pl.struct(["src", "tgt", "links"]).map_batches(batch, return_dtype=pl.Float64).alias("led"))
        .select(pl.col("led").sum(), pl.len())
        .collect()
    )
    return time.perf_counter() - started, frame["len"][0], frame["led"][0]


# --- DERP (SPEC §2), over one pair ---------------------------------------------------------------

def chains(heads, deprels):
    """Per token: (nodes, labels) from its tree's root down to it; None for a malformed parse."""
    n = len(heads)
    if len(deprels) != n or any(h < 0 or h > n for h in heads):
        return None
    out = [None] * n
    for start in range(n):
        nodes, seen, t = [], set(), start
        while t >= 0:
            if t in seen:
                return None  # a cycle
            seen.add(t)
            nodes.append(t)
            t = heads[t] - 1
        nodes.reverse()
        out[start] = (nodes, [deprels[x] for x in nodes])
    return out


def levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a):
        diagonal, row[0] = row[0], i + 1
        for j, y in enumerate(b):
            above = row[j + 1]
            row[j + 1] = min(diagonal + (x != y), above + 1, row[j] + 1)
            diagonal = above
    return row[len(b)]


def encoding(paths, n, m):
    """(chi, psi, omega) of the path from n to m (SPEC §2.1); chi nearest n first."""
    (nn, nl), (mn, ml) = paths[n], paths[m]
    common = 0
    while common < min(len(nn), len(mn)) and nn[common] == mn[common]:
        common += 1
    return nl[common:][::-1], n < m, ml[common:]


def derp(src_heads, src_deprels, tgt_heads, tgt_deprels, links):
    """DERP as SPEC §2 defines it: (score, sum L, sum Lmax), or None where it is undefined."""
    trees = [chains(src_heads, src_deprels), chains(tgt_heads, tgt_deprels)]
    if trees[0] is None or trees[1] is None:
        return None
    lens = [len(src_heads), len(tgt_heads)]
    links = sorted({(l["src"], l["tgt"]) for l in links})
    if any(a >= lens[0] or b >= lens[1] for a, b in links):
        return None
    degree = [{}, {}]
    for a, b in links:
        degree[0][a] = degree[0].get(a, 0) + 1
        degree[1][b] = degree[1].get(b, 0) + 1
    one_each = [all(d == 1 for d in degree[s].values()) for s in (0, 1)]
    if not one_each[0] and one_each[1]:
        meta, nodes = 1, sorted((b, a) for a, b in links)
    else:
        # src; in the many-to-many case each src node keeps its highest counterpart, leftmost on ties
        meta, best = 0, {}
        for a, b in links:
            key = (len(trees[1][b][0]), b)
            if a not in best or key < best[a][0]:
                best[a] = (key, b)
        nodes = sorted((a, b) for a, (_, b) in best.items())
    if len(nodes) < 2 or len(nodes) > 1000:
        return None
    here, there = trees[meta], trees[1 - meta]
    edges = []
    for i, (n, cn) in enumerate(nodes):
        for m, cm in nodes[i + 1:]:
            if cn == cm:
                edges.append((0, 0, n, m))
                continue
            (c1, p1, o1), (c2, p2, o2) = encoding(here, n, m), encoding(there, cn, cm)
            l = levenshtein(c1, c2) + (p1 != p2) + levenshtein(o1, o2)
            edges.append((l, max(len(c1), len(c2)) + 1 + max(len(o1), len(o2)), n, m))
    edges.sort(key=lambda e: (e[0], -e[1], e[2], e[3]))
    parent = {n: n for n, _ in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    sum_l = sum_lmax = used = 0
    for l, lmax, n, m in edges:
        rn, rm = find(n), find(m)
        if rn != rm:
            parent[max(rn, rm)] = min(rn, rm)
            sum_l, sum_lmax, used = sum_l + l, sum_lmax + lmax, used + 1
            if used == len(nodes) - 1:
                break
    if sum_lmax == 0:
        return None
    return 1 - sum_l / sum_lmax, sum_l, sum_lmax


def derp_oracle(d, limit, scored):
    """Score the first `limit` pairs; compare with pairmetrics' `derp` column in `scored`."""
    arcs = pq.read_table(f"{d}/arcs.parquet").slice(0, limit).to_pylist()
    links = pq.read_table(f"{d}/alignments.parquet", columns=["pair_id", "links"]).slice(0, limit).to_pylist()
    ours = pq.read_table(scored, columns=["pair_id", "derp"]).slice(0, limit).to_pylist()
    started = time.perf_counter()
    mine = [derp(r["src_head"], r["src_deprel"], r["tgt_head"], r["tgt_deprel"], a["links"] or [])
            for r, a in zip(arcs, links)]
    seconds = time.perf_counter() - started
    worst, disagree = 0.0, 0
    for r, m, o in zip(arcs, mine, ours):
        assert r["pair_id"] == o["pair_id"]
        value = None if m is None else m[0]
        if (value is None) != (o["derp"] is None):
            disagree += 1
        elif value is not None:
            worst = max(worst, abs(value - o["derp"]))
    return seconds, len(mine), worst, disagree


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, d = sys.argv[1], sys.argv[2]
    if command == "duckdb-led":
        print(*duckdb_led(d))
    elif command == "polars-led":
        print(*polars_led(d))
    elif command == "derp":
        print(*derp_oracle(d, int(sys.argv[3]), sys.argv[4]))
    else:
        sys.exit(__doc__)
