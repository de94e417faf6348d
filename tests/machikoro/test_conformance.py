"""The engine's conformance suite for every player count and every option combination."""

from __future__ import annotations

import itertools

import pytest

from ludothek.engine import load
from ludothek.engine.conformance import run_suite

GAME = load("machikoro")
COMBINATIONS = [
    dict(zip([o.name for o in GAME.options], values, strict=True))
    for values in itertools.product(*(o.values for o in GAME.options))
]


def test_every_option_is_covered() -> None:
    assert len(COMBINATIONS) == 8


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", COMBINATIONS, ids=lambda o: "-".join(o.values()))
def test_conformance(players: int, options: dict[str, str]) -> None:
    finals = run_suite("machikoro", players, options, seeds=range(6), deep_every=10)
    assert all(state.is_terminal() for state in finals)
