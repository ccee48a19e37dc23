#!/usr/bin/env python3
"""The measurements of scripts/bench_python.sh, printed as the "Python" section of
BENCHMARKS.md.

    bench_python.py CORPUS_DIR PAIRMETRICS_BIN REPEAT COMMIT

Every job gives the same sum of LeD over the corpus (checked), so they do the same work.
"""
import os
import statistics
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq

import pairmetrics

corpus, binary, repeat, commit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
pairs_file, alignments_file = f"{corpus}/pairs.parquet", f"{corpus}/alignments.parquet"
peers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers.py")


def median(runs):
    return statistics.median(runs), min(runs), max(runs)


def timed(job):
    start = time.perf_counter()
    value = job()
    return time.perf_counter() - start, value


def read():
    pairs = pq.read_table(pairs_file, columns=["pair_id", "src", "tgt"])
    links = pq.read_table(alignments_file, columns=["pair_id", "links"])
    assert pairs["pair_id"].equals(links["pair_id"]), "the generator writes both tables in pair_id order"
    return pairs, links


# In-process: the read, then the call on the table in memory.
reads, calls, sums = [], [], set()
for _ in range(repeat):
    seconds, (pairs, links) = timed(read)
    reads.append(seconds)
    seconds, led = timed(lambda: pairmetrics.led(pairs["src"], pairs["tgt"], links["links"]))
    calls.append(seconds)
    sums.add(round(pa.compute.sum(led).as_py(), 6))
data_mb = (pairs["src"].nbytes + pairs["tgt"].nbytes + links["links"].nbytes) / 2**20
rows = pairs.num_rows

# The CLI, end to end (reading, the join on pair_id, LeD).
query = "SELECT sum(led(p.src, p.tgt, a.links)) FROM p JOIN a USING (pair_id)"
sql = []
for _ in range(repeat):
    args = [binary, "sql", "--format", "csv", "--table", f"p={pairs_file}", "--table", f"a={alignments_file}", query]
    seconds, out = timed(lambda: subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    sql.append(seconds)
    sums.add(round(float(out.splitlines()[-1]), 6))

# The peers: their own timing of the UDF over Arrow batches (reading included, as they run).
peer_seconds = {}
for peer in ["duckdb-led", "polars-led"]:
    out = subprocess.run([sys.executable, peers, peer, corpus], check=True, capture_output=True, text=True).stdout.split()
    peer_seconds[peer] = float(out[0])
    sums.add(round(float(out[2]), 6))
assert len(sums) == 1, f"the jobs disagree on the sum of LeD: {sums}"

call, read_s, sql_s = median(calls), median(reads), median(sql)
total = call[0] + read_s[0]
print("<!-- python: made by scripts/bench_python.sh -->")
print("## Python")
print()
print(f"`pairmetrics.led(src, tgt, links)` from the Python package (release wheel) over {rows:,} generated")
print(f"pairs, pairmetrics {commit}, {os.cpu_count()} cores; median of {repeat} runs (range in brackets). Every job")
print(f"sums to the same LeD. The columns ({data_mb:.0f} MB in memory) reach the function through the Arrow C data")
print("interface, their buffers shared, not copied.")
print()
print("| job | seconds | vs `sql` |")
print("|---|---|---|")
print(f"| `pairmetrics sql` (CLI: read, join on pair_id, LeD) | {sql_s[0]:.2f} [{sql_s[1]:.2f}-{sql_s[2]:.2f}] | 1.00x |")
print(f"| Python: `pq.read_table` of both tables | {read_s[0]:.2f} [{read_s[1]:.2f}-{read_s[2]:.2f}] | |")
print(f"| Python: `pairmetrics.led` on the table in memory | {call[0]:.2f} [{call[1]:.2f}-{call[2]:.2f}] | {call[0] / sql_s[0]:.2f}x |")
print(f"| Python: read + `pairmetrics.led` | {total:.2f} | {total / sql_s[0]:.2f}x |")
for peer, seconds in peer_seconds.items():
    engine = peer.split("-")[0].capitalize().replace("Duckdb", "DuckDB")
    print(f"| {engine} Python UDF over Arrow batches, read included (`scripts/peers.py {peer}`) | {seconds:.2f} | {seconds / sql_s[0]:.2f}x; pairmetrics.led is {seconds / call[0]:.0f}x faster on the table, {seconds / total:.0f}x with the read |")
print("<!-- /python -->")
