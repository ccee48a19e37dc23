"""pairmetrics: sentence-pair metrics at corpus scale, from Python.

Every SQL function of pairmetrics is a Python function here, with the same name, arguments,
NULL rules and values (the same Rust code computes them)::

    import pyarrow as pa, pairmetrics
    src = pa.array([["the", "cat", "sat"]])
    tgt = pa.array([["the", "cat", "slept"]])
    pairmetrics.led(src, tgt)                      # <pyarrow.lib.DoubleArray> [0.3333...]

Arguments are columns: anything Arrow (pyarrow arrays and chunked arrays, Polars series, DuckDB
results, pandas series, nanoarrow), taken through the Arrow PyCapsule interface without a copy,
or Python lists (converted by pyarrow). Constants such as ``punct`` are Python strings or
numbers. A scalar function returns a pyarrow Array (a ChunkedArray when an argument was
chunked); an aggregate (``kendall_tau_a``, ``bootstrap_ci``, ...) returns a Python value. The
work runs on every core, without the GIL.

Functions that need a resource take it as a keyword: ``phrase_table=`` (true_score),
``triples=`` (dep_fit), ``lm=`` (lm_logprob; model_score takes both ``phrase_table=`` and ``lm=``), and the aligner's ``lang=``, ``modules=``,
``beam=``, ``alignment_type=``, ``stem_table=``, ``syn_dir=``, ``para=`` (meteor_align). A resource
is loaded once and kept while its file is unchanged.

Also here: :func:`register` (every function into a datafusion-python ``SessionContext``) and
:func:`score` (``pairmetrics score``: a table of pairs in, a scored table out).
"""

from __future__ import annotations

import inspect
import json
import os
from functools import lru_cache
from typing import Any

import pyarrow as pa

from . import _native

__version__: str = _native.__version__

#: The keywords that bind resources, with what each is (the library's resource options, which
#: the command line's flags share).
RESOURCE_KEYWORDS = {key: help for key, help, _ in _native.RESOURCE_OPTIONS}
_PATHS = tuple(key for key, _, is_location in _native.RESOURCE_OPTIONS if is_location)


def _resource_key(resources: dict[str, Any]) -> tuple:
    """The resources as a hashable key; files by absolute path and modification time, so a
    rewritten file is loaded again."""
    unknown = sorted(set(resources) - set(RESOURCE_KEYWORDS))
    if unknown:
        raise TypeError(f"unknown keyword {unknown[0]!r}; resources are: {', '.join(RESOURCE_KEYWORDS)}")
    key = []
    for name, value in sorted(resources.items()):
        if value is None:
            continue
        if name in _PATHS:
            path = os.path.abspath(os.fspath(value))
            if not os.path.exists(path):
                raise FileNotFoundError(f"{name}: no such file or directory: {path}")
            value = (path, os.stat(path).st_mtime_ns)
        key.append((name, value))
    return tuple(key)


@lru_cache(maxsize=16)
def _bound(key: tuple) -> _native.Functions:
    options = {name: (value[0] if name in _PATHS else value) for name, value in key}
    return _native.Functions(options)


def _functions(resources: dict[str, Any]) -> _native.Functions:
    return _bound(_resource_key(resources))


def _is_chunked(value: Any) -> bool:
    return not hasattr(value, "__arrow_c_array__") and hasattr(value, "__arrow_c_stream__")


def _argument(function: str, name: str, value: Any) -> Any:
    """A column as something Arrow, or a constant as it is."""
    if isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "__arrow_c_array__") or hasattr(value, "__arrow_c_stream__"):
        return value
    try:
        return pa.array(value)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as err:
        raise TypeError(f"{function}: argument `{name}`: expected an Arrow array or a list, got {type(value).__name__} ({err})") from None


def _docstring(entry: dict[str, Any]) -> str:
    lines = [entry["syntax"], "", entry["description"], ""]
    if entry["arguments"]:
        lines.append("Arguments:")
        lines += [f"    {name}: {text}" for name, text in entry["arguments"]]
        lines.append("")
    if entry["kind"] == "aggregate":
        lines.append("An aggregate: returns one Python value for all rows.")
    else:
        lines.append("Returns a pyarrow Array, one value per row (a ChunkedArray when an argument is chunked).")
    lines.append("Resources, when the function needs one, are keywords: " + ", ".join(RESOURCE_KEYWORDS) + ".")
    if entry.get("example"):
        lines += ["", "In SQL: " + entry["example"]]
    return "\n".join(lines)


def _make(entry: dict[str, Any]):
    name, aggregate = entry["name"], entry["kind"] == "aggregate"
    parameters = entry["parameters"]
    required, optional, variadic = parameters["required"], parameters["optional"], parameters["variadic"]
    P = inspect.Parameter
    params = [P(a, P.POSITIONAL_OR_KEYWORD) for a in required]
    params += [P(a, P.POSITIONAL_OR_KEYWORD, default=None) for a in optional]
    if variadic:
        params.append(P("more", P.VAR_POSITIONAL))
    arguments = inspect.Signature(params)
    signature = inspect.Signature(params + [P("resources", P.VAR_KEYWORD)])

    def function(*args: Any, **kwargs: Any) -> Any:
        resources = {k: kwargs.pop(k) for k in list(kwargs) if k in RESOURCE_KEYWORDS}
        try:
            bound = arguments.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{name}(): {err}; the signature is {entry['syntax']}") from None
        given = [(p, bound.arguments.get(p)) for p in required + optional]
        while given and given[-1][1] is None and given[-1][0] in optional:
            given.pop()
        more = bound.arguments.get("more", ())
        if more:
            given = [(p, bound.arguments.get(p)) for p in required + optional]
            given += [(f"argument {len(given) + 1 + i}", v) for i, v in enumerate(more)]
        for p, value in given:
            if value is None:
                raise TypeError(f"{name}(): argument `{p}` is None; give it (as SQL does) to give the ones after it")
        names = [p for p, _ in given]
        values = [_argument(name, p, v) for p, v in given]
        functions = _functions(resources)
        if aggregate:
            return pa.array(functions.aggregate(name, values, names))[0].as_py()
        chunks = [pa.array(c) for c in functions.call(name, values, names)]
        if any(_is_chunked(v) for v in values):
            return pa.chunked_array(chunks, type=chunks[0].type)
        return chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)

    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__doc__ = _docstring(entry)
    function.__signature__ = signature  # type: ignore[attr-defined]
    return function


def _catalogue() -> list[dict[str, Any]]:
    return [e for e in _native.catalogue() if e["kind"] in ("scalar", "aggregate")]


for _entry in _catalogue():
    globals()[_entry["name"]] = _make(_entry)
del _entry


def register(ctx: Any, **resources: Any) -> None:
    """Register every pairmetrics function (scalar, aggregate and table functions) in a
    datafusion-python ``SessionContext``, bound to ``resources`` (keywords as for the functions:
    ``phrase_table=``, ``triples=``, ``lm=``, ...)::

        from datafusion import SessionContext
        ctx = SessionContext()
        pairmetrics.register(ctx, lm="model.arpa")
        ctx.sql("SELECT avg(led(src, tgt)) FROM pairs")

    The functions cross into datafusion-python through datafusion-ffi, which needs the
    datafusion package built on the same DataFusion major as pairmetrics: another raises
    ImportError rather than risk a crash.
    """
    try:
        import datafusion
    except ImportError as err:
        raise ImportError("pairmetrics.register needs the datafusion package: pip install 'pairmetrics[datafusion]'") from err
    version = getattr(datafusion, "__version__", "unknown")
    if version.split(".")[0] != str(_native.DATAFUSION_MAJOR):
        raise ImportError(
            f"pairmetrics {__version__} is built on DataFusion {_native.DATAFUSION_MAJOR}, but the datafusion "
            f"package is {version}: pip install 'datafusion>={_native.DATAFUSION_MAJOR},<{_native.DATAFUSION_MAJOR + 1}'"
        )
    functions = _functions(resources)
    for f in functions.scalar_functions():
        ctx.register_udf(datafusion.udf(f))
    for f in functions.aggregate_functions():
        ctx.register_udaf(datafusion.udaf(f))
    for f in functions.table_functions():
        ctx.register_udtf(datafusion.udtf(f, f.name))


def _table(value: Any, name: str) -> Any:
    """A path as given, or Arrow data as a pyarrow Table (in memory: nothing is written)."""
    if value is None or isinstance(value, (str, os.PathLike)):
        return value
    try:
        return pa.table(value)
    except (TypeError, ValueError, pa.ArrowInvalid) as err:
        raise TypeError(f"score: {name}: expected a path or an Arrow table (pyarrow, Polars, DuckDB, pandas), got {type(value).__name__} ({err})") from None


def score(
    pairs: Any,
    alignments: Any = None,
    arcs: Any = None,
    *,
    out: str | os.PathLike | None = None,
    metrics: list[str] | None = None,
    lowercase: bool = False,
    punct: str = "",
    align: bool = False,
    strict: bool = False,
    compression: str = "zstd",
    filters: str | os.PathLike | list | None = None,
    **resources: Any,
) -> Any:
    """``pairmetrics score``: join pairs, alignments and arcs on ``pair_id`` and add a column
    per metric their columns allow (led, pod, derp, true_score with ``phrase_table=``, ...),
    with the CLI's columns, NULL reasons and signature.

    ``pairs``, ``alignments`` and ``arcs`` are Parquet paths (read as they are, streaming) or
    Arrow tables (pyarrow, Polars, pandas, DuckDB relations' ``.arrow()``; used in memory,
    never written to disk). ``metrics`` picks columns by name (default: every metric
    the inputs allow); ``lowercase`` and ``punct`` are LePoD's ``-l`` and ``-p``; ``align``
    aligns with METEOR's aligner when no alignments are given; ``strict`` raises at the first
    row that cannot be scored. ``filters`` adds OpusFilter's filters as ``score --filters``
    does (a column per filter, ``keep``, ``rejected_by``): a YAML file's path (a list of filters
    or an OpusFilter configuration) or the list itself, as Python values
    (``[{"LengthRatioFilter": {"threshold": 3}}]``).

    Without ``out``, returns the scored pyarrow Table (its schema metadata holds
    ``pairmetrics.signature``). With ``out``, writes that Parquet file atomically and returns
    the summary: rows, means, NULL counts by reason, signature, notes.
    """
    tables = {name: _table(value, name) for name, value in (("pairs", pairs), ("alignments", alignments), ("arcs", arcs))}
    options = {k: v for k, v in resources.items() if v is not None}
    _resource_key(options)  # checks the keywords and that the files exist
    target = os.fspath(out) if out is not None else None
    if isinstance(filters, list):
        # JSON is YAML: the list travels as the text a YAML file would hold.
        filters = ("<list>", json.dumps(filters))
    elif filters is not None:
        path = os.fspath(filters)
        with open(path, encoding="utf-8") as f:
            filters = (os.path.basename(path), f.read())
    result = _native.score(
        tables["pairs"], target, tables["alignments"], tables["arcs"], metrics, lowercase, punct, align, strict, compression, options, filters
    )
    if out is not None:
        return result
    _summary, metadata, chunks = result
    batches = [pa.RecordBatch.from_struct_array(pa.array(chunk)) for chunk in chunks]
    return pa.Table.from_batches(batches).replace_schema_metadata(metadata)
