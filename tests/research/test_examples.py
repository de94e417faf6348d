"""The two examples of docs/research.md run (with a small budget) and do what the text says."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "examples" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_doc_names_both_examples() -> None:
    text = (ROOT / "docs" / "research.md").read_text(encoding="utf-8")
    assert "docs/examples/openspiel_machikoro.py" in text and "docs/examples/pettingzoo_loop.py" in text


def test_openspiel_example_trains_and_evaluates() -> None:
    mean = _example("openspiel_machikoro").main(2)
    assert -1.0 <= mean <= 1.0


def test_pettingzoo_example_plays_whole_games() -> None:
    wins = _example("pettingzoo_loop").main(1)
    assert set(wins) == {"player_0", "player_1"} and sum(wins.values()) == 1


def test_the_doc_shows_the_examples_as_they_are() -> None:
    text = (ROOT / "docs" / "research.md").read_text(encoding="utf-8")
    for name in ("openspiel_machikoro", "pettingzoo_loop"):
        source = (ROOT / "docs" / "examples" / f"{name}.py").read_text(encoding="utf-8")
        assert f"```python\n{source}```" in text, f"docs/research.md no longer shows docs/examples/{name}.py"
