"""The Python guide's recipes (docs/guide/python.md), each one run: DuckDB, Polars, pandas and datafusion-python SQL.
Every recipe must give the values the plain pyarrow call gives."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pairmetrics


@pytest.fixture
def pairs(sample_pairs):
    return pq.read_table(sample_pairs, columns=["pair_id", "src", "tgt"]).sort_by("pair_id")


@pytest.fixture
def want(pairs):
    return pairmetrics.led(pairs["src"], pairs["tgt"]).to_pylist()


def test_duckdb(sample_pairs, want):
    import duckdb

    con = duckdb.connect()
    # A query's result, as Arrow, straight into pairmetrics.
    result = con.sql(f"SELECT src, tgt FROM '{sample_pairs}' ORDER BY pair_id").to_arrow_table()
    assert pairmetrics.led(result["src"], result["tgt"]).to_pylist() == want
    # pairmetrics as a DuckDB function over Arrow batches.
    con.create_function("led", lambda src, tgt: pairmetrics.led(src, tgt), ["VARCHAR[]", "VARCHAR[]"], "DOUBLE", type="arrow", null_handling="special")
    got = con.sql(f"SELECT led(src, tgt) FROM '{sample_pairs}' ORDER BY pair_id").fetchall()
    assert [row[0] for row in got] == want


def test_polars(sample_pairs, want):
    import polars as pl

    df = pl.read_parquet(sample_pairs).sort("pair_id")
    # Series in, Arrow out, back to a Series.
    df = df.with_columns(led=pl.from_arrow(pairmetrics.led(df["src"], df["tgt"])))
    assert df["led"].to_list() == want
    # Inside a lazy query, batch by batch.
    led = pl.struct("src", "tgt").map_batches(
        lambda s: pl.from_arrow(pairmetrics.led(s.struct.field("src"), s.struct.field("tgt"))), return_dtype=pl.Float64
    )
    got = pl.scan_parquet(sample_pairs).sort("pair_id").select(led.alias("led")).collect()
    assert got["led"].to_list() == want


def test_pandas(pairs, want):
    import pandas as pd

    df = pairs.to_pandas(types_mapper=pd.ArrowDtype)
    df["led"] = pd.Series(pairmetrics.led(df["src"], df["tgt"]), dtype=pd.ArrowDtype(pa.float64()), index=df.index)
    assert [None if pd.isna(x) else x for x in df["led"]] == want
    # Plain object columns (lists of str) work too, through pyarrow.
    plain = pairs.to_pandas()
    assert pairmetrics.led(plain["src"], plain["tgt"]).to_pylist() == want


def test_nanoarrow(pairs, want):
    import nanoarrow as na

    got = pairmetrics.led(na.Array(pairs["src"]), na.Array(pairs["tgt"]))
    assert got.to_pylist() == want


def test_datafusion_sql(sample_pairs, want, tmp_path):
    import datafusion

    ctx = datafusion.SessionContext()
    pairmetrics.register(ctx)
    ctx.register_parquet("pairs", str(sample_pairs))
    got = ctx.sql("SELECT led(src, tgt) AS led FROM pairs ORDER BY pair_id").to_pydict()["led"]
    assert got == want
    # Aggregates and struct results cross too.
    tau = ctx.sql("SELECT kendall_tau_a(CAST(pair_id AS DOUBLE), led(src, tgt)) AS tau FROM pairs").to_pydict()["tau"][0]
    ids = pa.array(range(len(want)), pa.float64())
    assert tau == pairmetrics.kendall_tau_a(ids, pa.array(want))
    both = ctx.sql("SELECT lepod(src, tgt, meteor_align(src, tgt))['led'] AS led FROM pairs ORDER BY pair_id LIMIT 5").to_pydict()["led"]
    assert len(both) == 5
    # A resource given to register() binds the functions that need it; the table function too.
    rules = pa.table(
        {
            "src": ["cat"],
            "tgt": ["kitten"],
            "src_tokens": pa.array([["cat"]]),
            "tgt_tokens": pa.array([["kitten"]]),
            "p_f_e": [0.5],
            "lex_f_e": [1.0],
            "p_e_f": [1.0],
            "lex_e_f": [1.0],
        }
    )
    pq.write_table(rules, tmp_path / "pt.parquet")
    ctx = datafusion.SessionContext()
    pairmetrics.register(ctx, phrase_table=tmp_path / "pt.parquet")
    score = ctx.sql("SELECT true_score(tokenize('the cat'), tokenize('the kitten')) AS s").to_pydict()["s"][0]
    assert abs(score - __import__("math").log(0.5)) < 1e-12
    phrases = ctx.sql("SELECT candidate FROM synthetic_phrases('cat')").to_pydict()["candidate"]
    assert phrases == ["kitten"]


def test_datafusion_version_mismatch_is_an_import_error(monkeypatch):
    import datafusion

    monkeypatch.setattr(datafusion, "__version__", "54.1.0")
    with pytest.raises(ImportError, match="built on DataFusion 55, but the datafusion package is 54.1.0"):
        pairmetrics.register(datafusion.SessionContext())
