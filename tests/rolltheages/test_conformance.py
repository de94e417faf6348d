"""The engine's conformance suite for every player count and option combination."""

from __future__ import annotations

import random

import pytest

from ludothek.engine.conformance import (
    check_all_legal_apply,
    check_basic,
    check_clone_independent,
    check_describe,
    check_illegal_rejected,
    check_record_roundtrip,
    check_views,
    run_suite,
)


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


@pytest.mark.parametrize(("players", "options"), [(2, {}), (4, {"trade": "on"}), (1, {"mode": "solo"})])
def test_contract_checks_in_late_game_positions(players: int, options: dict[str, str]) -> None:
    """The suite's checks at positions random play rarely reaches (7 dice, Engineering, finished monuments)."""
    from ludothek.games.rolltheages import GAME
    from ludothek.games.rolltheages.rules import RollState

    from .test_properties import builder_action

    for seed in range(2):
        rng = random.Random(seed)
        s = GAME.new_state(players, options)
        assert isinstance(s, RollState)
        n = 0
        while not s.is_terminal():
            if n % 15 == 0:
                check_basic(s)
                check_all_legal_apply(s)
                check_illegal_rejected(s)
                check_clone_independent(s, rng)
                check_views(s, rng)
                check_describe(s)
            s.apply_action(builder_action(s, rng))
            n += 1
        check_record_roundtrip(s)
