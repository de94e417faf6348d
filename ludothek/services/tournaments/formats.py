"""Which formats a tournament may have, and the pairing function of each (issue 31).

A format is a name and a function of the same shape as `pairing.pair_swiss`: the entrants, the games
so far, the byes so far, the table size, the round to pair and the seed, giving the next `Round`
(``None``, or a round without tables: the tournament is over before its last planned round).  The
site stores, starts, tells and shows every format the same way; only this table knows how rounds
are made.  ``round_robin`` and ``knockout`` are known names whose pairing is registered here once
it exists (their pure functions live beside ``pairing.py``); until then creating one is refused
with a clear reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .pairing import Entrant, PastGame, Round, pair_swiss

#: ``(entrants, history, byes_so_far, table_size, round_no, seed) -> Round | None``.
PairFunction = Callable[[Sequence[Entrant], Sequence[PastGame], Mapping[int, int], int, int, int], Round | None]

#: Every format name a tournament may be created with once its pairing is registered.
KNOWN_FORMATS = ("swiss", "round_robin", "knockout")

#: The formats that can be played now, with their pairing.
FORMATS: dict[str, PairFunction] = {"swiss": pair_swiss}


def pairing_of(format_name: str) -> PairFunction | None:
    """The pairing function of ``format_name``, or None when that format is not available."""
    return FORMATS.get(format_name)
