"""Language identification from Python: the same functions as SQL, the same answers as the
reference tools' committed outputs (tests/data/lid)."""

from pathlib import Path

import pyarrow as pa
import pytest

import pairmetrics

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "lid"


def texts():
    # Bytes, not read_text: universal newlines would split a text at its carriage return.
    return DATA.joinpath("texts.txt").read_bytes().decode("utf-8").split("\n")[:-1]


def test_langid_labels_are_py3langid_s():
    want = [line.split("\t") for line in DATA.joinpath("expected/langid.tsv").read_text().splitlines()]
    got = pairmetrics.langid(pa.array(texts())).to_pylist()
    assert [g["lang"] for g in got] == [lang for lang, _ in want]
    assert all(abs(g["prob"] - float(p)) <= 1e-4 * max(float(p), 1e-3) + 1e-6 for g, (_, p) in zip(got, want))
    restricted = pairmetrics.langid(pa.array(["Bonjour le monde"]), pa.array([["en", "de"]])).to_pylist()
    assert restricted[0]["lang"] == "en"


def test_fasttext_with_a_model_keyword():
    model = DATA / "models" / "hs.ftz"
    # fastText's own label for the same line (its predict-prob output, first line).
    first = DATA.joinpath("fasttext_input.txt").read_bytes().split(b"\n")[0].decode()
    want = DATA.joinpath("expected/hs.ftz.predict-prob").read_text().split("\n")[0].split(" ")
    got = pairmetrics.fasttext_lid(pa.array([first, None]), fasttext_model=model).to_pylist()
    assert got[0]["lang"] == want[0].removeprefix("__label__")
    assert f"{got[0]['prob']:.6g}" == want[1]
    assert got[1] is None
    with pytest.raises(ValueError, match="fasttext_model="):
        pairmetrics.fasttext_lid(pa.array(["x"]))


def test_language_id_score_is_opusfilter_s():
    got = pairmetrics.language_id_score(pa.array(["Bonjour le monde", "", "Hello there, how are you?"]), "fr").to_pylist()
    # OpusFilter 3.3.1 runs py3langid 0.3.0: ('fr', 0.9999994), rounded to 2 decimals.
    assert got[0] == 1.0 and got[1] == 1.0 and got[2] == 0.0
