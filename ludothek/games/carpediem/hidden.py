"""What a seat cannot see, dealt afresh: used to prove that views hide it (and by bots that sample).

Hidden from a seat: the order of the fountain pile, other players' fountain cards (until the end),
the cards another player is looking at, cards put back under the pile by others, and other
players' stored tiles.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import CarpeDiemState


def resample(state: CarpeDiemState, seat: int | None, rng: random.Random) -> CarpeDiemState | None:
    """A copy in which everything ``seat`` cannot see is dealt again (keeping all counts)."""
    other = state.clone()
    if not other.players:
        return None
    secret_fountains = other.stage != "end"
    pool: list[str] = [k for k, n in other.fdeck.items() for _ in range(n)]
    for s, p in enumerate(other.players):
        if s != seat and secret_fountains:
            pool += p.fountains
    drawer_hidden = other.stage in ("fdraw", "freturn") and other.actor != seat
    if drawer_hidden:
        pool += other.fdrawn
    hidden_bottom = [i for i, (_, who) in enumerate(other.fbottom) if who != seat]
    pool += [other.fbottom[i][0] for i in hidden_bottom]
    pool.sort()  # the same multiset gives the same deal, whatever the true hidden order was
    rng.shuffle(pool)
    deck_size = sum(other.fdeck.values())
    other.fdeck = dict.fromkeys(other.fdeck, 0)
    for k in pool[:deck_size]:
        other.fdeck[k] += 1
    rest = pool[deck_size:]
    for s, p in enumerate(other.players):
        if s != seat and secret_fountains:
            p.fountains, rest = rest[: len(p.fountains)], rest[len(p.fountains):]
    if drawer_hidden:
        other.fdrawn, rest = rest[: len(other.fdrawn)], rest[len(other.fdrawn):]
    for i in hidden_bottom:
        other.fbottom[i] = (rest.pop(0), other.fbottom[i][1])
    spare = sorted(other.light_left + other.dark_left)
    for s, p in enumerate(other.players):
        if s != seat and p.stored and spare:
            p.stored = [rng.choice(spare) for _ in p.stored]
    return other
