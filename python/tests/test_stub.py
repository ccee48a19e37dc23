"""The committed type stub is what the functions' documentation generates."""

from pathlib import Path

from pairmetrics import _stubs

STUB = Path(__file__).resolve().parents[1] / "pairmetrics" / "__init__.pyi"


def test_stub_is_current():
    assert STUB.read_text(encoding="utf-8") == _stubs.render(), (
        "python/pairmetrics/__init__.pyi is stale: run `python -m pairmetrics._stubs python/pairmetrics/__init__.pyi`"
    )


def test_stub_is_valid_python():
    compile(STUB.read_text(encoding="utf-8"), str(STUB), "exec")
