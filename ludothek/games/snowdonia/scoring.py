"""End-game scoring, including the optimal use of contracts.

A contract's requirements (rubble paid, ownership markers moved from stations
and track, the surveyor's position) each serve one contract only, so a player
has to choose which contracts to fulfil.  Yucata picks the best choice for the
player; we solve it exactly with a dynamic programme over the contracts whose
states are the resources already used (at most 17 x 17 x 91 x 2, in practice a
few hundred), so no greedy choice can miss the optimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .components import Contract


@dataclass(frozen=True)
class Holdings:
    """What a player can spend on contracts at the end."""

    stations: int
    track: int
    rubble: int
    coal: int
    surveyor_number: float


def daffodil_points(count: int, set_points: Sequence[int]) -> int:
    """Daffodil Line: points for each started set of four (3/9/19/34 for 1/2/3/4), counting again past four.

    Six daffodils are a full set and a started set of two: 34 + 9 = 43.
    """
    full, rest = divmod(count, len(set_points))
    return full * set_points[-1] + (set_points[rest - 1] if rest else 0)


def contract_value_alone(c: Contract, h: Holdings) -> int:
    """Points the contract gives if it had all the player's resources to itself."""
    if c.coal_vp:
        return c.coal_vp * h.coal
    if c.surveyor_tiers:
        best = 0
        for station, vp in c.surveyor_tiers:
            if h.surveyor_number >= station:
                best = max(best, vp)
        return best
    if c.surveyor and h.surveyor_number < c.surveyor:
        return 0
    if c.stations > h.stations or c.track > h.track or c.rubble > h.rubble:
        return 0
    return c.vp


def optimal_assignment(contracts: Sequence[Contract], h: Holdings) -> tuple[int, dict[int, int]]:
    """The best total over the contracts and each contract's points in one best choice.

    Ties between equally good choices go to the one found first (contracts in
    number order, taking a contract before skipping it), so the answer is
    deterministic.
    """
    # state: (stations used, track used, rubble used, surveyor used) -> (points, chosen numbers)
    states: dict[tuple[int, int, int, bool], tuple[int, tuple[tuple[int, int], ...]]] = {
        (0, 0, 0, False): (0, ())
    }
    for c in sorted(contracts, key=lambda c: c.number):
        alone = contract_value_alone(c, h)
        if alone <= 0:
            continue
        new_states = dict(states)
        for (s, t, r, sv), (pts, chosen) in states.items():
            if c.uses_surveyor and sv:
                continue
            ns, nt, nr = s + c.stations, t + c.track, r + c.rubble
            if ns > h.stations or nt > h.track or nr > h.rubble:
                continue
            key = (ns, nt, nr, sv or c.uses_surveyor)
            cand = (pts + alone, (*chosen, (c.number, alone)))
            old = new_states.get(key)
            if old is None or cand[0] > old[0]:
                new_states[key] = cand
        states = new_states
    best_pts: int = 0
    best_chosen: tuple[tuple[int, int], ...] = ()
    for key in sorted(states):
        pts, chosen = states[key]
        if pts > best_pts:
            best_pts, best_chosen = pts, chosen
    values = {c.number: 0 for c in contracts}
    values.update(dict(best_chosen))
    return best_pts, values
