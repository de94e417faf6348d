"""The integer action tables (issue 33): generated from the notation, committed, append-only."""

from __future__ import annotations

import itertools
import random

import pytest

from ludothek import engine
from ludothek.research import actions as A


@pytest.mark.parametrize("game_id", A.GAME_IDS)
def test_every_generated_string_is_in_the_committed_table(game_id: str) -> None:
    """A rules or data change that brings a new action string fails here until
    ``python -m ludothek.research.actions --update`` appends it (and bumps the version)."""
    table = A.load_table(game_id)
    player, chance = A.enumerate_actions(game_id)
    known_a, known_c = set(table.actions), set(table.chance)
    assert [a for a in player if a not in known_a] == []
    assert [c for c in chance if c not in known_c] == []


@pytest.mark.parametrize("game_id", A.GAME_IDS)
def test_no_committed_index_was_renumbered(game_id: str) -> None:
    table = A.load_table(game_id)
    assert A.history_problems(table) == []
    assert len(set(table.actions)) == table.num_actions and len(set(table.chance)) == table.num_chance
    assert table.history[-1]["actions"] == table.num_actions


def test_a_renumbered_table_is_caught() -> None:
    table = A.load_table("machikoro")
    swapped = A.ActionTable(table.game, table.version, (table.actions[1], table.actions[0], *table.actions[2:]),
                            table.chance, table.history)
    assert A.history_problems(swapped)


def test_update_appends_and_bumps_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    table = A.load_table("machikoro")
    player, chance = A.enumerate_actions("machikoro")
    monkeypatch.setattr(A, "enumerate_actions", lambda gid: (["build:new_card", *player], chance))
    new = A.merged(table, "machikoro")
    assert new.version == table.version + 1
    assert new.actions[: table.num_actions] == table.actions and new.actions[-1] == "build:new_card"
    assert A.history_problems(new) == []
    assert A.merged(new, "machikoro") is new  # nothing new: same table, same version


def test_unknown_action_is_refused_clearly() -> None:
    with pytest.raises(A.UnknownAction, match="not in the table"):
        A.load_table("machikoro").action_id("build:moon")


def _option_sets(game: engine.Game) -> list[tuple[int, dict[str, str]]]:
    out = []
    names = [o.name for o in game.options]
    for players in range(game.min_players, game.max_players + 1):
        for values in itertools.product(*[o.values for o in game.options]):
            opts = dict(zip(names, values, strict=True))
            try:
                game.new_state(players, opts)
            except engine.InvalidOptions:
                continue
            out.append((players, opts))
    return out


@pytest.mark.parametrize("game_id", A.GAME_IDS)
def test_random_play_only_meets_strings_of_the_table(game_id: str) -> None:
    """Every legal action and chance outcome met in random games of every option set has an index."""
    game = engine.load(game_id)
    table = A.load_table(game_id)
    known_a, known_c = set(table.actions), set(table.chance)
    rng = random.Random(7)
    for players, opts in _option_sets(game):
        state = game.new_state(players, opts)
        while not state.is_terminal():
            if state.current_player() == engine.CHANCE:
                outcomes = [a for a, _ in state.chance_outcomes()]
                assert set(outcomes) <= known_c, set(outcomes) - known_c
                state.apply_action(engine.sample_chance(state, rng))
            else:
                legal = state.legal_actions()
                assert set(legal) <= known_a, set(legal) - known_a
                state.apply_action(rng.choice(legal))
