"""Shared paths: the repository's test vectors and bundled data."""

from pathlib import Path
import json

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"
DATA = ROOT / "data"


def vector(name: str):
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture
def sample_pairs() -> Path:
    """The bundled Europarl sample's pairs table (3,000 fr-en pairs)."""
    return DATA / "europarl-sample" / "pairs.parquet"
