"""pairmetrics.score: the CLI's `score`, from paths or from Arrow tables."""

import os
import subprocess
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

import pairmetrics
from conftest import DATA, ROOT

SAMPLE = DATA / "europarl-sample"


def cli() -> str:
    """The pairmetrics binary: $PAIRMETRICS_BIN, or the debug build `cargo test` makes."""
    path = os.environ.get("PAIRMETRICS_BIN") or str(ROOT / "target" / "debug" / "pairmetrics")
    if not Path(path).exists():
        pytest.fail(f"no pairmetrics binary at {path}: run `cargo build` (or set PAIRMETRICS_BIN)")
    return path


def test_score_equals_the_cli(tmp_path):
    inputs = {"pairs": SAMPLE / "pairs.parquet", "alignments": SAMPLE / "alignments.parquet", "arcs": SAMPLE / "arcs.parquet"}
    out = tmp_path / "cli.parquet"
    args = [cli(), "score", "--out", str(out), "--punct", ","] + [a for k, v in inputs.items() for a in (f"--{k}", str(v))]
    subprocess.run(args, check=True, capture_output=True)
    want = pq.read_table(out)
    got = pairmetrics.score(inputs["pairs"], inputs["alignments"], inputs["arcs"], punct=",")
    assert got.column_names == want.column_names
    assert got.equals(want.cast(got.schema))
    signature = b"pairmetrics.signature"
    assert got.schema.metadata[signature] == pq.read_metadata(out).metadata[signature]


def test_score_from_arrow_tables_and_to_a_file(tmp_path):
    pairs = pq.read_table(SAMPLE / "pairs.parquet")
    alignments = pl.read_parquet(SAMPLE / "alignments.parquet")  # any Arrow table: Polars here
    from_paths = pairmetrics.score(SAMPLE / "pairs.parquet", SAMPLE / "alignments.parquet")
    from_tables = pairmetrics.score(pairs, alignments)
    assert from_tables.select(["pair_id", "led", "pod"]).equals(from_paths.select(["pair_id", "led", "pod"]))
    summary = pairmetrics.score(pairs, alignments, out=tmp_path / "scored.parquet", metrics=["lepod"])
    assert summary["rows"] == 3000 and set(summary["means"]) == {"led", "pod"}
    scored = [x for x in from_paths["led"].to_pylist() if x is not None]
    assert summary["scored"]["led"] == len(scored) == 2994
    assert abs(summary["means"]["led"] - sum(scored) / len(scored)) < 1e-12
    assert pq.read_table(tmp_path / "scored.parquet").num_rows == 3000


def test_score_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="unknown metric `meteor`"):
        pairmetrics.score(SAMPLE / "pairs.parquet", metrics=["meteor"], out=tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    # Six sample pairs have no LeD; strict scoring stops at the first, named as Python spells it.
    with pytest.raises(ValueError, match=r"\(column lepod_problem\); strict=True stops at the first row"):
        pairmetrics.score(SAMPLE / "pairs.parquet", SAMPLE / "alignments.parquet", strict=True, out=tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    with pytest.raises(ValueError, match="pairs"):
        pairmetrics.score(tmp_path / "missing.parquet")
    with pytest.raises(TypeError, match="pairs: expected a path or an Arrow table"):
        pairmetrics.score(42)
    with pytest.raises(ValueError, match="compression"):
        pairmetrics.score(SAMPLE / "pairs.parquet", compression="gzip9")


def test_score_of_arrow_tables_writes_no_file(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    monkeypatch.setenv("TMPDIR", str(scratch))
    pairs = pq.read_table(SAMPLE / "pairs.parquet")
    # Shuffled: in memory too, the rows come out in pair_id order.
    alignments = pq.read_table(SAMPLE / "alignments.parquet").to_pandas().sample(frac=1, random_state=7)
    got = pairmetrics.score(pairs, alignments, punct=",")
    want = pairmetrics.score(SAMPLE / "pairs.parquet", SAMPLE / "alignments.parquet", punct=",")
    assert got.equals(want.cast(got.schema))
    assert got.schema.metadata[b"pairmetrics.signature"] == want.schema.metadata[b"pairmetrics.signature"]
    assert list(scratch.iterdir()) == []
    empty = pairmetrics.score(pairs.slice(0, 0), pq.read_table(SAMPLE / "alignments.parquet").slice(0, 0))
    assert empty.num_rows == 0 and empty.column_names == got.column_names
