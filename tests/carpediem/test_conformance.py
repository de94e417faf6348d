"""The engine's conformance suite for every player count."""

from __future__ import annotations

import pytest

from ludothek.engine.conformance import run_suite


@pytest.mark.parametrize("n", [2, 3, 4])
def test_conformance(n: int) -> None:
    finals = run_suite("carpediem", n, seeds=range(3), deep_every=12)
    assert all(state.is_terminal() for state in finals)
