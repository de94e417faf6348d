"""The engine's fast paths give the same answers as the plain way of computing them.

Snowdonia's hot paths (issue 11: random play at least 2x faster) draw chance
outcomes by bisecting running sums, build stock-yard options from per-cap
tables, carry placement options from one placement to the next, and walk the
stations once for the scoring; these tests check each against a
straightforward version written here.
"""

from __future__ import annotations

import random

import pytest

from ludothek.engine import CHANCE, State
from ludothek.engine.conformance import random_action
from ludothek.games.snowdonia import GAME, SnowdoniaState
from ludothek.games.snowdonia.work import _take_options, cube_combo_name

MAPS = ("mount_snowdon", "daffodil_line", "blaenau_ffestiniog")


def plain_take_options(key: tuple[int, int, int, int, int, bool]) -> tuple[str, ...]:
    """The stock-yard options as the rules read: every way to take up to ``cap`` cubes."""
    iron, stone, coal, cap, coal_cap, exact = key
    combos = []
    for c in range(min(coal_cap, coal, cap) + 1):
        for s in range(min(stone, cap - c) + 1):
            for i in range(min(iron, cap - c - s) + 1):
                combos.append((i + s + c, cube_combo_name({"iron": i, "stone": s, "coal": c})))
    most = max(n for n, _ in combos)
    return tuple(name for n, name in combos if (n == most if exact else n > 0 or most == 0))


def test_take_options_match_the_plain_enumeration() -> None:
    for iron in range(7):
        for stone in range(7):
            for coal in range(7):
                for cap in range(8):
                    for coal_cap in range(cap + 1):
                        for exact in (False, True):
                            key = (iron, stone, coal, cap, coal_cap, exact)
                            assert _take_options(key) == plain_take_options(key), key


def plain_markers_on_stations(st: SnowdoniaState, seat: int) -> list[int]:
    out: list[int] = []
    for si, station in enumerate(st.lay.stations):
        s = st.sites[si]
        out.extend(station.excavation_sites[j].vp for j, d in enumerate(s["dig"]) if d["owner"] == seat)
        out.extend(station.build_sites[j].vp for j, o in enumerate(s["build"]) if o == seat)
    return out


def plain_markers_counting_as_track(st: SnowdoniaState, seat: int) -> int:
    return sum(
        1
        for si, station in enumerate(st.lay.stations)
        for j, owner in enumerate(st.sites[si]["build"])
        if owner == seat and station.build_sites[j].counts_as == "track"
    )


def plain_place_options(st: SnowdoniaState) -> list[str]:
    fog = st.forecast[0] == "fog"
    free = [s for s, who in st.spaces.items() if who is None and not (fog and s[0] in st.scen.fog_blocks)]
    return [f"place:{s}" for s in free] + ["place:G"]


@pytest.mark.parametrize("map_key", MAPS)
@pytest.mark.parametrize("n", [1, 2, 4])
def test_sampling_and_scoring_match_the_plain_versions(map_key: str, n: int) -> None:
    """On random games: a draw picks what the engine's default walk picks for the same random
    number, placements offer the free spaces, and the scoring walks count the same markers."""
    rng = random.Random(n * 31 + len(map_key))
    st = GAME.new_state(n, {"map": map_key})
    assert isinstance(st, SnowdoniaState)
    steps = 0
    while not st.is_terminal() and steps < 3000:
        if st.current_player() == CHANCE:
            seed = rng.random()
            ours = st.sample_outcome(random.Random(seed))
            assert ours == State.sample_outcome(st, random.Random(seed))
            assert ours in st.legal_actions()
        elif st.decision is not None and st.decision["kind"] == "place":
            # Placement options are carried from one placement to the next: they must match a fresh scan.
            assert st.legal_actions() == plain_place_options(st)
            assert st.clone().legal_actions() == plain_place_options(st)
        if steps % 25 == 0:
            for seat in range(n):
                assert st.markers_on_stations(seat) == plain_markers_on_stations(st, seat)
                assert st.markers_counting_as_track(seat) == plain_markers_counting_as_track(st, seat)
        st.apply_action(random_action(st, rng))
        steps += 1
    assert st.is_terminal()
