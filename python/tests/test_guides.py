"""The guides' Python blocks run (the shell blocks run in tests/guides.rs): every ```python block
of README.md and docs/guide/*.md is executed, and every ```pycon block is a doctest whose shown
results must be what the session prints. Both run from the repository's root, where the
bundled data is; ```python not-run marks a block that cannot run there."""

import doctest
import re

import pytest

from conftest import ROOT

GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)( [^\n]*)?\n(.*?)^```$", re.S | re.M)


def blocks(language):
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) == language and not m.group(2):
                line = text.count("\n", 0, m.start()) + 1
                yield pytest.param(m.group(3), id=f"{guide.name}:{line}")


@pytest.mark.parametrize("code", list(blocks("python")))
def test_python_block_runs(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "<guide>", "exec"), {})


@pytest.mark.parametrize("session", list(blocks("pycon")))
def test_pycon_block_prints_what_it_shows(session, monkeypatch):
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(session, {}, "guide", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
