"""Every test vector of tests/vectors through the Python API: the values the Rust tests check."""

import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pairmetrics
from conftest import VECTORS, vector

TOKENS = pa.list_(pa.string())
LINKS = pa.list_(pa.struct([("src", pa.int32()), ("tgt", pa.int32())]))


def meteor_blocks(path):
    """(s1, s2, links) per block of METEOR 1.5 Matcher output: a match line's first span is
    in line 2 (s2), its second in line 1 (s1); a match links every token of one span to every
    token of the other."""
    blocks = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        lines = block.splitlines()
        links = []
        for line in lines[4:]:
            s2, s1 = line.split()[:2]
            (s2_start, s2_len), (s1_start, s1_len) = (map(int, s2.split(":")), map(int, s1.split(":")))
            links += [(i, j) for i in range(s1_start, s1_start + s1_len) for j in range(s2_start, s2_start + s2_len)]
        blocks.append((lines[1], lines[2], links))
    return blocks


def lepod_case(case, lowercase, punct):
    """(led, pod) per pair of a lepod vector case, as lepod-score.py's -l and -p compute them."""
    v = VECTORS / "lepod"
    s1 = (v / f"{case}.s1").read_text(encoding="utf-8").splitlines()
    s2 = (v / f"{case}.s2").read_text(encoding="utf-8").splitlines()
    blocks = meteor_blocks(v / f"{case}.alignment")
    assert len(blocks) == len(s1) == len(s2)
    src = pa.array([s.split() for s in s1], TOKENS)
    tgt = pa.array([s.split() for s in s2], TOKENS)
    links = pa.array([[{"src": a, "tgt": b} for a, b in sorted(set(l))] for *_, l in blocks], LINKS)
    if lowercase:
        src, tgt = pairmetrics.lowercase_tokens(src), pairmetrics.lowercase_tokens(tgt)
    led = pairmetrics.led(src, tgt, links).to_pylist()
    pod = pairmetrics.pod(src, tgt, links, punct).to_pylist()
    both = pairmetrics.lepod(src, tgt, links, punct).to_pylist()
    # lepod gives both at once, the same to the last bit; no pair has a problem.
    assert [b["led"] for b in both] == led and [b["pod"] for b in both] == pod
    assert all(b["problem"] is None for b in both)
    assert pairmetrics.lepod_problem(src, tgt, links).null_count == len(led)
    return led, pod


def first_column(path):
    return [line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "case, lowercase, punct, expected, digits",
    [
        ("readme_figure", True, ",", "lepod/readme_figure.expected", 4),
        ("edge", True, ",", "lepod/edge.expected", 4),
        ("edge", False, "", "lepod_options/edge.default", 3),
        ("readme_figure", False, ",.", "lepod_options/readme_figure.d2", 2),
    ],
)
def test_lepod_vectors(case, lowercase, punct, expected, digits):
    led, pod = lepod_case(case, lowercase, punct)
    assert [f"{x:.{digits}f}" for x in led] == first_column(VECTORS / f"{expected}.led")
    assert [f"{x:.{digits}f}" for x in pod] == first_column(VECTORS / f"{expected}.pod")
    if expected.startswith("lepod/"):
        stdout = (VECTORS / f"{expected}.stdout").read_text(encoding="utf-8")
        corpus = dict(line.split("=", 1) for line in stdout.splitlines() if line.startswith(("LeD=", "PoD=")))
        assert f"{sum(led) / len(led):.4f}" == corpus["LeD"]
        assert f"{sum(pod) / len(pod):.4f}" == corpus["PoD"]


def test_lepod_hand_worked_edge_cases():
    led, pod = lepod_case("edge", True, ",")
    assert led[0] == (3 / 7 + 1 / 5) / 2  # "a lot of" <-> "many": one unit whose tokens differ
    assert (led[2], pod[2]) == (1.0, 0.0)  # nothing aligned
    assert (led[3], pod[3]) == (0.0, 0.8)  # a rotation by one
    assert pod[5] == 2 / 3  # the comma's unit is ignored
    led, pod = lepod_case("readme_figure", True, ",")
    assert math.isclose(led[0], 0.4, abs_tol=1e-12) and pod[0] == 0.5


def derp_args(v):
    heads = pa.array([v["src_head"]], pa.list_(pa.int32()))
    return (
        heads,
        pa.array([v["src_deprel"]], TOKENS),
        pa.array([v["tgt_head"]], pa.list_(pa.int32())),
        pa.array([v["tgt_deprel"]], TOKENS),
        pa.array([[{"src": a, "tgt": b} for a, b in v["links"]]], LINKS),
    )


def test_derp_figure_5_1():
    v = vector("derp/figure_5_1.json")
    args = derp_args(v)
    assert pairmetrics.derp(*args).to_pylist() == [v["score"]]
    detail = pairmetrics.derp_detail(*args).to_pylist()[0]
    assert (detail["sum_l"], detail["sum_lmax"]) == (v["mst_sum_L"], v["mst_sum_Lmax"])
    assert detail["score"] == 6 / 11
    assert pairmetrics.derp_problem(*args).to_pylist() == [None]
    assert pairmetrics.derp_pooled(*args) == 6 / 11


def test_derp_small_cases():
    v = vector("derp/small_cases.json")
    same = v["identical_trees"]
    tree = {"src_head": same["head"], "src_deprel": same["deprel"], "tgt_head": same["head"], "tgt_deprel": same["deprel"], "links": same["links"]}
    assert pairmetrics.derp(*derp_args(tree)).to_pylist() == [same["score"]]
    one = dict(tree, links=[[0, 0]])
    assert pairmetrics.derp(*derp_args(one)).to_pylist() == [v["fewer_than_two_aligned_nodes"]["score"]]
    assert pairmetrics.derp_problem(*derp_args(one)).to_pylist() == ["fewer than two aligned nodes (1)"]


def test_kendall_tau_a():
    for case in vector("kendall/tau_a.json")["cases"]:
        got = pairmetrics.kendall_tau_a(pa.array(case["x"], pa.float64()), pa.array(case["y"], pa.float64()))
        assert got == case["tau_a"], case


def test_chrf_cases_as_text_and_as_tokens():
    cases = vector("chrf/cases.json")
    hyp = pa.array([c["hyp"] for c in cases])
    ref = pa.array([c["ref"] for c in cases])
    text = pairmetrics.chrf(hyp, ref).to_pylist()
    tokens = pairmetrics.chrf(pairmetrics.tokenize(hyp), pairmetrics.tokenize(ref)).to_pylist()
    for case, t, k in zip(cases, text, tokens):
        assert math.isclose(t, case["chrf"], rel_tol=0, abs_tol=1e-9), case
        assert math.isclose(k, case["chrf"], rel_tol=0, abs_tol=1e-9), case


def test_chrf_europarl_sample_equals_sacrebleu(sample_pairs):
    pairs = pq.read_table(sample_pairs).sort_by("pair_id")
    tokens = pairmetrics.chrf(pairs["tgt"], pairs["src"]).to_pylist()
    text = pairmetrics.chrf(pairs["tgt_text"], pairs["src_text"]).to_pylist()
    want = vector("chrf/europarl_sample.json")
    assert len(tokens) == len(want)
    for w, k, t in zip(want, tokens, text):
        assert math.isclose(k, w["tokens"], abs_tol=1e-9) and math.isclose(t, w["text"], abs_tol=1e-9), w


def test_word_accuracy_as_text_and_as_tokens():
    for case in vector("word_accuracy/semeval2014_task5.json")["cases"]:
        refs = pa.array([case["refs"]], TOKENS)
        assert pairmetrics.word_accuracy(pa.array([case["out"]]), refs).to_pylist() == [case["word_accuracy"]]
        token_refs = pa.array([[r.split(" ") for r in case["refs"]]], pa.list_(TOKENS))
        got = pairmetrics.word_accuracy(pa.array([case["out"].split(" ")], TOKENS), token_refs)
        assert got.to_pylist() == [case["word_accuracy"]]


def test_true_score_example_2(tmp_path):
    v = vector("true_score/example_2.json")
    rules = v["rules"]
    table = pa.table(
        {
            "src": [r["src"] for r in rules],
            "tgt": [r["tgt"] for r in rules],
            "src_tokens": pa.array([r["src"].split() for r in rules], TOKENS),
            "tgt_tokens": pa.array([r["tgt"].split() for r in rules], TOKENS),
            "p_f_e": [r["p"] for r in rules],
            "lex_f_e": [1.0] * len(rules),
            "p_e_f": [1.0] * len(rules),
            "lex_e_f": [1.0] * len(rules),
        }
    )
    pq.write_table(table, tmp_path / "pt.parquet")
    targets = v["targets"]
    src = pa.array([v["source"].split()] * len(targets), TOKENS)
    tgt = pa.array([t["tgt"].split() for t in targets], TOKENS)
    got = pairmetrics.true_score(src, tgt, phrase_table=tmp_path / "pt.parquet").to_pylist()
    detail = pairmetrics.true_score_detail(src, tgt, phrase_table=tmp_path / "pt.parquet").to_pylist()
    for target, score, d in zip(targets, got, detail):
        if target["true_score"] is None:
            assert score is None, target
        else:
            assert abs(score - math.log(target["true_score"])) < 1e-12, target
            assert d["derivations"] == 1 + len(target.get("other_derivations", [])), target
    with pytest.raises(ValueError, match="true_score needs a phrase table: pass phrase_table="):
        pairmetrics.true_score(src, tgt)
    # A wrong option value is named as Python spells the option (the CLI says --prob-column).
    with pytest.raises(ValueError, match=r'prob_column="p_x": expected one of p_f_e, p_e_f, lex_f_e, lex_e_f'):
        pairmetrics.true_score(src, tgt, phrase_table=tmp_path / "pt.parquet", prob_column="p_x")
    with pytest.raises(ValueError, match=r'alignment_type="best": unknown alignment type `best`'):
        pairmetrics.meteor_align(src, tgt, alignment_type="best")


def test_dep_fit_eat_with_chopsticks(tmp_path):
    v = vector("dep_fit/eat_with_chopsticks.json")
    # A triples table whose marginals c(h,*,l) and c(*,d,l) are the vector's: each arc with its
    # count, then filler arcs (other heads, other dependents) to make up the marginals.
    rows = []
    for arc in v["counts"]:
        rows.append((arc["head"], arc["dep"], arc["deprel"], arc["c_hdl"]))
    head_rest, dep_rest = {}, {}
    for arc in v["counts"]:
        head_rest[(arc["head"], arc["deprel"])] = arc["c_h_l"] - sum(r[3] for r in rows if (r[0], r[2]) == (arc["head"], arc["deprel"]))
        dep_rest[(arc["dep"], arc["deprel"])] = arc["c_d_l"] - sum(r[3] for r in rows if (r[1], r[2]) == (arc["dep"], arc["deprel"]))
    for (h, l), n in head_rest.items():
        if n:
            rows.append((h, f"other-dep-{h}", l, n))
    for (d, l), n in dep_rest.items():
        if n:
            rows.append((f"other-head-{d}", d, l, n))
    table = pa.table(
        {
            "level": ["form"] * len(rows),
            "head": [r[0] for r in rows],
            "dep": [r[1] for r in rows],
            "deprel": [r[2] for r in rows],
            "count": pa.array([r[3] for r in rows], pa.int64()),
        }
    )
    pq.write_table(table, tmp_path / "triples.parquet")
    words = pa.array([v["sentence"]], TOKENS)
    heads = pa.array([v["head"]], pa.list_(pa.int32()))
    deprels = pa.array([v["deprel"]], TOKENS)
    triples = tmp_path / "triples.parquet"
    positions = pa.array([v["phrase_positions"]], pa.list_(pa.int64()))
    paper = pairmetrics.dep_fit(words, heads, deprels, positions, triples=triples).to_pylist()[0]
    iucl = pairmetrics.dep_fit_iucl(words, heads, deprels, positions, triples=triples).to_pylist()[0]
    assert abs(paper - v["fit_phrase"]) < 1e-6 and abs(iucl - v["iucl_code_compatible_value"]) < 1e-6
    for word, fit in v["fit_word"].items():
        start = v["sentence"].index(word)
        got = pairmetrics.dep_fit(words, heads, deprels, start, 1, triples=triples).to_pylist()[0]
        assert abs(got - fit) < 1e-6, word
    problem = pairmetrics.dep_fit_problem(words, heads, deprels, 4, 2, triples=triples).to_pylist()
    assert problem == ["phrase position 5 is outside the sentence (0..5)"]
