"""The Python API itself: inputs of every Arrow kind, chunking, NULLs, bad input, help()."""

import inspect

import pyarrow as pa
import pytest

import pairmetrics

TOKENS = pa.list_(pa.string())
SRC = [["the", "cat", "sat"], ["a", "b"], None, ["x", None]]
TGT = [["the", "cat", "slept"], ["a", "b"], ["c"], ["x", "y"]]
WANT = [1 / 3, 0.0, None, None]


def close(got, want):
    return len(got) == len(want) and all((g is None and w is None) or (g is not None and w is not None and abs(g - w) < 1e-12) for g, w in zip(got, want))


def test_led_over_pyarrow_arrays_lists_and_chunks():
    src, tgt = pa.array(SRC, TOKENS), pa.array(TGT, TOKENS)
    got = pairmetrics.led(src, tgt)
    assert isinstance(got, pa.Array) and got.type == pa.float64() and close(got.to_pylist(), WANT)
    # Python lists go through pyarrow.
    assert close(pairmetrics.led(SRC, TGT).to_pylist(), WANT)
    # Chunked arrays, cut at different places: the result is chunked, rows in order.
    src_c = pa.chunked_array([src[:1], src[1:]])
    tgt_c = pa.chunked_array([tgt[:3], tgt[3:]])
    got = pairmetrics.led(src_c, tgt_c)
    assert isinstance(got, pa.ChunkedArray) and close(got.to_pylist(), WANT)
    # Other list and string types (large lists, large strings, string views).
    large = pa.array(SRC, pa.large_list(pa.large_string()))
    assert close(pairmetrics.led(large, tgt).to_pylist(), WANT)


def test_many_rows_keep_their_order():
    n = 200_003  # several batches per core, and a ragged last one
    src = pa.array([["w", str(i)] for i in range(n)], TOKENS)
    tgt = pa.array([["w", str(i if i % 3 else -i)] for i in range(n)], TOKENS)
    got = pairmetrics.led(src, tgt).to_pylist()
    assert got == [0.0 if i % 3 or i == 0 else 0.5 for i in range(n)]


def test_empty_input_gives_an_empty_result():
    got = pairmetrics.led(pa.array([], TOKENS), pa.array([], TOKENS))
    assert len(got) == 0 and got.type == pa.float64()


def test_null_rows_give_null_and_the_reason():
    src, tgt = pa.array(SRC, TOKENS), pa.array(TGT, TOKENS)
    assert pairmetrics.lepod_problem(src, tgt).to_pylist() == [None, None, "src is NULL", "src[1] is NULL"]


def test_wrong_types_name_the_argument():
    with pytest.raises(ValueError, match="argument `tgt` must be"):
        pairmetrics.led(pa.array(SRC, TOKENS), pa.array([1, 2, 3, 4]))
    with pytest.raises(TypeError, match="led\\(\\): missing a required argument: 'tgt'"):
        pairmetrics.led(pa.array(SRC, TOKENS))
    with pytest.raises(TypeError, match="argument `src`: expected an Arrow array or a list, got object"):
        pairmetrics.led(object(), pa.array(TGT, TOKENS))
    with pytest.raises(ValueError, match="different lengths: 4 rows and 3 rows"):
        pairmetrics.led(pa.array(SRC, TOKENS), pa.array(TGT[:3], TOKENS))
    with pytest.raises(TypeError, match="unexpected keyword argument 'phrase_tabel'; the signature is true_score"):
        pairmetrics.true_score(SRC, TGT, phrase_tabel="pt.parquet")
    with pytest.raises(FileNotFoundError, match="lm: no such file"):
        pairmetrics.lm_logprob(SRC, lm="/nonexistent/model.arpa")


def test_ragged_and_malformed_inputs_never_crash():
    # A link past the end of a sentence: NULL, and the reason.
    links = pa.array([[{"src": 0, "tgt": 7}]], pa.list_(pa.struct([("src", pa.int32()), ("tgt", pa.int32())])))
    src, tgt = pa.array([["a"]], TOKENS), pa.array([["a"]], TOKENS)
    assert pairmetrics.pod(src, tgt, links).to_pylist() == [None]
    assert "outside the tgt sentence" in pairmetrics.lepod_problem(src, tgt, links).to_pylist()[0]
    # Heads that do not match the deprels in length.
    heads = pa.array([[0, 1]], pa.list_(pa.int32()))
    deprels = pa.array([["root"]], TOKENS)
    ok_links = pa.array([[{"src": 0, "tgt": 0}]], links.type)
    assert pairmetrics.derp(heads, deprels, heads, deprels, ok_links).to_pylist() == [None]
    assert pairmetrics.derp_problem(heads, deprels, heads, deprels, ok_links).to_pylist()[0] is not None


def test_constants_and_optional_arguments():
    src, tgt = pa.array([["a", ",", "b"]], TOKENS), pa.array([["b", ",", "a"]], TOKENS)
    links = pa.array([[{"src": 0, "tgt": 2}, {"src": 1, "tgt": 1}, {"src": 2, "tgt": 0}]], pa.list_(pa.struct([("src", pa.int32()), ("tgt", pa.int32())])))
    with_punct = pairmetrics.pod(src, tgt, links, ",").to_pylist()[0]
    without = pairmetrics.pod(src, tgt, links).to_pylist()[0]
    assert with_punct != without
    with pytest.raises(TypeError, match="argument `modules` is None"):
        pairmetrics.meteor_align(src, tgt, None, "en")


def test_variadic_functions_take_any_number_of_arguments():
    weights = pa.array([[0.5, 2.0, -1.0]], pa.list_(pa.float64()))
    lm, direct, inverse = pa.array([-10.0]), pa.array([-1.0]), pa.array([-2.0])
    assert pairmetrics.loglinear(weights, lm, direct, inverse).to_pylist() == [-5.0 - 2.0 + 2.0]
    with pytest.raises(Exception, match="weights"):
        pairmetrics.loglinear(weights, lm)


def test_aggregates_return_python_values():
    x = pa.array([0.1, 0.2, 0.3, 0.4])
    ci = pairmetrics.bootstrap_ci(x, 0.95, 200, 7)
    assert set(ci) >= {"mean", "low", "high"} and ci["low"] <= ci["mean"] <= ci["high"]
    assert pairmetrics.bootstrap_ci(x, 0.95, 200, 7) == ci  # seeded


def test_corpus_bleu_paired_tests_from_python():
    refs = pa.array(["the cat sat on the mat", "a dog ran in the park", "it rained all day"])
    base = pairmetrics.bleu_stats(pa.array(["the cat sat on a mat", "a dog ran", "it rained all day"]), refs)
    system = pairmetrics.bleu_stats(pa.array(["the cat sat on the mat", "a dog ran in a park", "it rained"]), refs)
    segments = pa.array([0, 1, 2])
    exact = pairmetrics.bleu_paired_bs(segments, base, system, 100, 1)
    assert exact["a"] == pairmetrics.corpus_bleu(pa.array(["the cat sat on a mat", "a dog ran", "it rained all day"]), refs)
    assert exact["n"] == 3 and 0 < exact["p_value"] <= 1
    streamed = pairmetrics.bleu_paired_bootstrap(segments, base, system, 100, 1)
    assert (streamed["a"], streamed["b"]) == (exact["a"], exact["b"])
    assert streamed["delta"] == streamed["b"] - streamed["a"]


def test_help_explains_arguments_and_nulls():
    doc = pairmetrics.pod.__doc__
    assert doc.startswith("pod(src, tgt, links [, punct])")
    assert "punct:" in doc and "NULL" in doc
    assert str(inspect.signature(pairmetrics.pod)) == "(src, tgt, links, punct=None, **resources)"
    assert str(inspect.signature(pairmetrics.dep_fit)).startswith("(tokens, head, deprel, start_or_positions, len=None")


def test_every_sql_function_is_here():
    names = {e["name"] for e in pairmetrics._native.catalogue() if e["kind"] != "table"}
    for name in ["led", "pod", "lepod", "derp", "derp_detail", "true_score", "dep_fit", "lm_logprob", "lm_full_scores", "lm_perplexity", "lm_oov_count", "word_accuracy", "kendall_tau_a", "meteor_align", "chrf", "chrf_stats", "corpus_chrf", "sentence_bleu", "bleu_stats", "corpus_bleu", "sentence_ter", "ter_stats", "corpus_ter", "bleu_paired_bootstrap", "chrf_approx_randomization", "ter_paired_bs", "bleu_paired_ar"]:
        assert name in names and callable(getattr(pairmetrics, name))
    assert all(callable(getattr(pairmetrics, n)) for n in names)


def test_resource_keywords_are_the_ones_the_native_module_reads():
    assert list(pairmetrics.RESOURCE_KEYWORDS) == list(pairmetrics._native.RESOURCE_KEYWORDS)
    with pytest.raises(TypeError, match='unknown resource keyword "phrase_tabel"'):
        pairmetrics._native.Functions({"phrase_tabel": "pt.parquet"})


def test_threads_share_the_functions():
    from concurrent.futures import ThreadPoolExecutor

    src, tgt = pa.array(SRC * 1000, TOKENS), pa.array(TGT * 1000, TOKENS)
    want = pairmetrics.led(src, tgt).to_pylist()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: pairmetrics.led(src, tgt).to_pylist(), range(8)))
    assert all(r == want for r in results)
