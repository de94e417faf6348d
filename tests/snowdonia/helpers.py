"""Helpers for Snowdonia scenario tests: a start state with chosen chance outcomes, and a driver."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ludothek.engine import CHANCE
from ludothek.games.snowdonia import GAME, SnowdoniaState


def new(
    n: int = 2,
    tracks: Sequence[int] | None = None,
    aside: int = 7,
    row: Sequence[int] = (1, 2, 3),
    options: dict[str, str] | None = None,
    solo_yard: Sequence[str] = ("iron",) * 6,
) -> SnowdoniaState:
    """A state at the start of round 1 with the given track numbers, set-aside train and contract row."""
    st = GAME.new_state(n, options)
    assert isinstance(st, SnowdoniaState)
    pool = list(st.track_pool)
    tracks = list(tracks) if tracks is not None else pool[: st.lay.num_slots]
    for value in tracks:
        st.apply_action(f"track:{value}")
    if n > 1:
        st.apply_action(f"aside:{aside}")
    for card in row:
        st.apply_action(f"draw:{card}")
    if n == 1:
        for cube in solo_yard:
            st.apply_action(f"bag:{cube}")
    return st


def settle(st: SnowdoniaState, prefer: Iterable[str] = ()) -> None:
    """Resolve chance nodes: the first preferred outcome that is possible, else the first listed."""
    prefer = list(prefer)
    while st.current_player() == CHANCE:
        legal = st.legal_actions()
        st.apply_action(next((p for p in prefer if p in legal), legal[0]))


def play(st: SnowdoniaState, *actions: str, prefer: Iterable[str] = ()) -> None:
    """Apply the actions in order, settling chance nodes before and after each."""
    prefer = list(prefer)
    for a in actions:
        settle(st, prefer)
        st.apply_action(a)
    settle(st, prefer)


def place(st: SnowdoniaState, plan: dict[int, list[str]], then_settle: bool = True) -> None:
    """Answer placement decisions from per-seat lists of spaces (``"G"`` for the surveyor).

    Chance outcomes that follow are settled unless ``then_settle`` is False.
    """
    plan = {s: list(v) for s, v in plan.items()}
    while st.decision is not None and st.decision["kind"] in ("place", "pub"):
        seat = st.decision["seat"]
        if not plan.get(seat):
            return
        if st.decision["kind"] == "pub":
            st.apply_action("pub:no")
            continue
        st.apply_action(f"place:{plan[seat].pop(0)}")
        if then_settle:
            settle(st)


def passes(st: SnowdoniaState) -> None:
    """Pass every open contract window."""
    while st.decision is not None and st.decision["kind"] == "window":
        st.apply_action("pass")
        settle(st)


def kind(st: SnowdoniaState) -> str | None:
    return None if st.decision is None else st.decision["kind"]


def raw(st: SnowdoniaState, *actions: str) -> None:
    """Apply exactly these actions, chance outcomes included, without settling anything."""
    for a in actions:
        st.apply_action(a)
