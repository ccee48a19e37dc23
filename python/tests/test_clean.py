"""OpusFilter 3.3.1's filter scores from Python: the same functions as in SQL, checked against
values OpusFilter gives (tests/data/opusfilter holds the full comparison, run by cargo test)."""
import math

import pyarrow as pa

import pairmetrics


def test_lengths_and_ratios_are_opusfilter_s():
    # Python's str.split(): \x1c and NBSP split words too.
    assert pairmetrics.segment_length(pa.array(["a\x1cb\u00a0c", "", None])).to_pylist() == [3, 0, None]
    assert pairmetrics.segment_length(pa.array(["héllo"]), "char").to_pylist() == [5]
    assert pairmetrics.length_ratio(pa.array(["one two three"]), pa.array(["one"])).to_pylist() == [3.0]


def test_terminal_punctuation_is_opusfilter_s():
    got = pairmetrics.terminal_punctuation(pa.array(["Hi..."]), pa.array(["Salut"])).to_pylist()
    assert got == [-math.log(6)]


def test_html_tags_are_beautifulsoup_s():
    # bs4 4.15, html.parser: a broken start tag counts, a tag in a comment does not, and
    # markup the parser rejects counts as no tag.
    texts = ["<a href='x'>broken", "x < y", "<!-- <b>no</b> -->", "<b>x</b> <![foo x", None]
    assert pairmetrics.has_html_tag(pa.array(texts)).to_pylist() == [True, False, False, False, None]


def test_regex_search_is_the_regex_module_s():
    texts = pa.array(["ÉCOLE", "école", "٣ digits"])
    assert pairmetrics.regex_search(texts, "[[:upper:]]{3}").to_pylist() == [True, False, False]
    # [[:digit:]] is ASCII in the regex module, \d is not.
    assert pairmetrics.regex_search(texts, "[[:digit:]]").to_pylist() == [False, False, False]
    assert pairmetrics.regex_search(texts, r"\d").to_pylist() == [False, False, True]


def test_minhash_is_datasketch_s():
    # datasketch 2.0.0: MinHash(num_perm=4, seed=1, scheme=...), update(t.encode()) per token.
    tokens = pa.array([["the", "cat", "sat", "on", "the", "mat"], None])
    assert pairmetrics.minhash(tokens, 4, 1).to_pylist() == [[224474114, 74494968, 85505115, 1403334846], None]
    assert pairmetrics.minhash(tokens, 4, 1, "legacy").to_pylist()[0] == [85460458, 833734781, 641877471, 1073183585]
    assert pairmetrics.char_ngrams(pa.array(["abcd", "ab", ""]), 3).to_pylist() == [["abc", "bcd"], ["ab"], []]


def test_hardrules_lists_every_failing_rule_as_bicleaner_hardrules_does():
    # bicleaner-hardrules 2.10.8 -A: the failing rules in its order; an empty list keeps.
    src = pa.array(["Hi", "The cat sat on the mat.", "", None])
    tgt = pa.array(["Salut", "Le chat est assis sur le tapis.", "Bonjour à tous", "x"])
    assert pairmetrics.hardrules(src, tgt, "en", "fr").to_pylist() == [
        ["not_too_short(left)", "not_too_short(right)"],
        [],
        ["no_empty(left)"],
        None,
    ]
    # The configuration is the tool's YAML.
    config = "{not_too_short: false}"
    assert pairmetrics.hardrules(src, tgt, "en", "fr", config).to_pylist()[0] == []


def test_opusfilter_filters_give_scores_keep_and_rejected_by(tmp_path):
    src = pa.array(["Hello world.", "Short", "<b>tag</b> here", None])
    tgt = pa.array(["Bonjour le monde.", "A much much longer sentence than that", "balise ici", "x"])
    filters = "[{LengthRatioFilter: {threshold: 3}}, {HtmlTagFilter: {}}]"
    rows = pairmetrics.opusfilter(filters, src, tgt).to_pylist()
    assert rows[0] == {"length_ratio_filter": 1.5, "html_tag_filter": [False, False], "keep": True, "rejected_by": None}
    assert rows[1]["rejected_by"] == "length_ratio_filter" and rows[1]["keep"] is False
    assert rows[2]["rejected_by"] == "html_tag_filter"
    assert rows[3] is None


def test_score_adds_the_filters_columns(sample_pairs):
    filters = [{"LengthRatioFilter": {"threshold": 2, "unit": "char"}}, {"TerminalPunctuationFilter": {}}]
    table = pairmetrics.score(sample_pairs, metrics=["lepod"], filters=filters)
    assert table.column_names[-4:] == ["length_ratio_filter", "terminal_punctuation_filter", "keep", "rejected_by"]
    rejected = [r for r in table.column("rejected_by").to_pylist() if r is not None]
    assert len(rejected) == table.num_rows - sum(table.column("keep").to_pylist())
    assert "length_ratio_filter" in rejected and set(rejected) <= {"length_ratio_filter", "terminal_punctuation_filter"}
