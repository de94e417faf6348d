"""Chance drawn by sampling (`State.sample_outcome`) follows `chance_outcomes` exactly, without listing them."""

from __future__ import annotations

import random
from collections import Counter

from ludothek.engine import CHANCE, sample_chance
from ludothek.engine.conformance import random_action
from ludothek.games.carpediem import GAME


def _chance_positions(stage: str, count: int) -> list:
    rng = random.Random(3)
    found = []
    while len(found) < count:
        state = GAME.new_state(2)
        while not state.is_terminal() and len(found) < count:
            if state.current_player() == CHANCE and state.stage == stage:
                found.append(state.clone())
            state.apply_action(random_action(state, rng))
    return found


def test_samples_are_outcomes_with_their_probabilities() -> None:
    for stage in ("deal", "reveal", "fdraw"):
        for state in _chance_positions(stage, 3):
            outcomes = dict(state.chance_outcomes())
            assert abs(sum(outcomes.values()) - 1) < 1e-9
            rng = random.Random(1)
            draws = 4000
            seen = Counter(sample_chance(state, rng) for _ in range(draws))
            assert set(seen) <= set(outcomes), stage
            for action, p in outcomes.items():
                # a fixed seed: deterministic; 5 standard deviations plus a little
                sd = (p * (1 - p) * draws) ** 0.5
                assert abs(seen[action] - p * draws) <= 5 * sd + 2, (stage, action)


def test_a_sampled_outcome_is_still_checked() -> None:
    state = _chance_positions("reveal", 1)[0]
    legal = set(state.legal_actions())
    bad = "tile:" + next(t for t in sorted(state.comp.tiles) if f"tile:{t}" not in legal)
    before = state.snapshot()
    try:
        state.apply_action(bad)
    except Exception as exc:  # IllegalAction
        assert "not legal" in str(exc) or "random outcome" in str(exc)
    else:
        raise AssertionError("an unavailable tile was accepted")
    assert state.snapshot() == before


def test_the_incremental_frontier_finds_exactly_the_placements_that_fit() -> None:
    """Placements from the patched frontier and its cached answers equal a brute-force `fits` over every cell."""
    from ludothek.games.carpediem.geometry import ROTATIONS

    rng = random.Random(5)
    checked = 0
    for _ in range(6):
        state = GAME.new_state(2)
        while not state.is_terminal():
            if state.current_player() != CHANCE and state.stage in ("build", "sealbuild"):
                district = state.players[state.actor].district
                tile = state.comp.tiles[state.held]
                brute = [(c, o.rotation) for c in range(36) for o in tile.orientations if district.fits(o, c)]
                assert district.placements(tile) == sorted(brute)
                assert district.can_place(tile) == bool(brute)
                for cell in range(36):
                    for rotation in ROTATIONS:
                        orient = tile.orientation(rotation)
                        assert district.fits_rotation(tile, cell, rotation) == (
                            orient is not None and district.fits(orient, cell))
                checked += 1
            state.apply_action(random_action(state, rng))
    assert checked > 50
