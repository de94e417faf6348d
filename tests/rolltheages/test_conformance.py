"""The engine's conformance suite for every player count and option combination."""

from __future__ import annotations

import pytest

from ludothek.engine.conformance import run_suite


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {}),
        (3, {}),
        (4, {}),
        (1, {"mode": "solo"}),
        (2, {"trade": "on"}),
        (3, {"trade": "on"}),
        (4, {"trade": "on"}),
    ],
    ids=["2p", "3p", "4p", "solo", "2p-trade", "3p-trade", "4p-trade"],
)
def test_conformance(players: int, options: dict[str, str]) -> None:
    finals = run_suite("rolltheages", players, options, seeds=range(12), deep_every=5)
    assert all(state.is_terminal() for state in finals)
