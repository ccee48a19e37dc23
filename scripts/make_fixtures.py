#!/usr/bin/env python3
"""Write tests/data/pyarrow_edge.parquet: the LePoD edge vectors as pyarrow writes Parquet
(list items named `element`, src/tgt/links in one table), so the tests read a file that
pairmetrics did not write; and tests/data/pyarrow_nan.parquet: a NaN among equal values in
Float64 and Float32 columns, whose min/max statistics leave the NaN out. Needs only pyarrow;
the tests never run this script.

    python3 scripts/make_fixtures.py
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests/vectors/lepod"


def meteor_links(path):
    """Links of each block of a METEOR Matcher file (first column = second sentence)."""
    blocks, links, in_matches = [], None, False
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("Alignment "):
            links, in_matches = [], False
        elif line.startswith("Line2Start:Length"):
            in_matches = True
        elif line == "" and links is not None:
            blocks.append(links)
            links, in_matches = None, False
        elif in_matches:
            span2, span1 = [f for f in line.split("\t") if f][:2]
            b, l2 = map(int, span2.split(":"))
            a, l1 = map(int, span1.split(":"))
            links += [{"src": i, "tgt": j} for i in range(a, a + l1) for j in range(b, b + l2)]
    if links is not None:
        blocks.append(links)
    return blocks


def main():
    s1 = (VECTORS / "edge.s1").read_text("utf-8").splitlines()
    s2 = (VECTORS / "edge.s2").read_text("utf-8").splitlines()
    links = meteor_links(VECTORS / "edge.alignment")
    table = pa.table(
        {
            "pair_id": pa.array(range(len(s1)), pa.int64()),
            "src": pa.array([s.split() for s in s1], pa.list_(pa.string())),
            "tgt": pa.array([s.split() for s in s2], pa.large_list(pa.large_string())),
            "links": pa.array(
                links, pa.list_(pa.struct([("src", pa.int32()), ("tgt", pa.int32())]))
            ),
        }
    )
    out = ROOT / "tests/data/pyarrow_edge.parquet"
    pq.write_table(table, out)
    print(f"wrote {out}: {table.schema}")

    nan = float("nan")
    table = pa.table(
        {
            "m64": pa.array([nan] + [0.5] * 7, pa.float64()),
            "m32": pa.array([0.5] * 6 + [nan, 0.5], pa.float32()),
        }
    )
    out = ROOT / "tests/data/pyarrow_nan.parquet"
    pq.write_table(table, out, row_group_size=4)
    print(f"wrote {out}: {table.schema}")


if __name__ == "__main__":
    main()
