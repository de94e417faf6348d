"""Cross-check with published numbers: expected coins per roll for one card (reference §1.5, MK-P1).

The figures average over every player's roll, everyone rolling one die and
having coins enough.  They are computed here by applying every chance outcome
to a copy of the position and weighting the owner's gain by its probability.
"""

from __future__ import annotations

import pytest

from ludothek.games.machikoro.rules import MachiKoroState

from .helpers import new

RICH = 100


def _expected_gain(card: str, players: int) -> float:
    total = 0.0
    for roller in range(players):
        owner_cards = {0: {card: 1}}
        others: dict[int, dict[str, int]] = {p: {} for p in range(1, players)}
        state: MachiKoroState = new(
            players, coins=dict.fromkeys(range(players), RICH), cards=owner_cards | others, turn=roller
        )
        for action, p in state.chance_outcomes():
            child = state.clone()
            child.apply_action(action)
            if child.phase == "tv_station":  # the TV owner takes from any rich opponent
                child.apply_action(child.legal_actions()[0])
            total += p * (child.coins(0) - RICH) / players
    return total


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ("wheat_field", (0.17, 0.17, 0.17)),
        ("ranch", (0.17, 0.17, 0.17)),
        ("forest", (0.17, 0.17, 0.17)),
        ("bakery", (0.17, 0.11, 0.08)),
        ("cafe", (0.08, 0.11, 0.12)),
        ("convenience_store", (0.25, 0.17, 0.12)),
        ("stadium", (0.17, 0.22, 0.25)),
        ("tv_station", (0.42, 0.28, 0.21)),
    ],
)
def test_expected_coins_per_roll(card: str, expected: tuple[float, float, float]) -> None:
    for players, value in zip((2, 3, 4), expected, strict=True):
        assert _expected_gain(card, players) == pytest.approx(value, abs=0.006)
