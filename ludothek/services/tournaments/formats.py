"""Which formats a tournament may have, the pairing function of each, and how many rounds each plays.

A format is a name and a function of the same shape as `pairing.pair_swiss`: the entrants, the games
so far, the byes so far, the table size, the round to pair and the seed, giving the next `Round`
(``None``, or a round without tables: the tournament is over before its last planned round).  The
site stores, starts, tells and shows every format the same way; only this module knows how rounds
are made and how many there are (issue 31):

* ``swiss``: as many rounds as the organiser sets;
* ``round_robin``: one division's season (`league.pair_round_robin`); its length comes from the
  schedule of the field that actually starts, so it is fixed at the start;
* ``knockout``: `knockout.pair_knockout`, half of each table advancing; one round per step of
  `knockout.knockout_plan` of the starting field, the last being the final.  A field that cannot end
  in one full final table is refused at the start (the tournament is called off, as with too few
  entrants), and at creation when no field size the entry limits allow would do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .knockout import knockout_plan, pair_knockout
from .league import pair_round_robin, season_length
from .pairing import Entrant, PastGame, Round, pair_swiss

#: ``(entrants, history, byes_so_far, table_size, round_no, seed) -> Round | None``.
PairFunction = Callable[[Sequence[Entrant], Sequence[PastGame], Mapping[int, int], int, int, int], Round | None]

#: Every format name a tournament may be created with once its pairing is registered.
KNOWN_FORMATS = ("swiss", "round_robin", "knockout")

#: The formats that can be played now, with their pairing.
FORMATS: dict[str, PairFunction] = {"swiss": pair_swiss, "round_robin": pair_round_robin, "knockout": pair_knockout}

#: Formats whose number of rounds follows from the field (the organiser's ``rounds`` is not used).
ROUNDS_FROM_FIELD = ("round_robin", "knockout")

#: The largest round robin: every pair meets, so the season grows with the square of the field; 24
#: two-player entrants already play 23 rounds.
MAX_ROUND_ROBIN = 24


def pairing_of(format_name: str) -> PairFunction | None:
    """The pairing function of ``format_name``, or None when that format is not available."""
    return FORMATS.get(format_name)


def knockout_advance(table_size: int) -> int:
    """How many go on from a knock-out table (what `pair_knockout` uses): half, at least one."""
    return max(1, table_size // 2)


def knockout_fields(low: int, high: int, table_size: int) -> list[int]:
    """The field sizes from ``low`` to ``high`` whose knock-out ends in one full final table."""
    good = []
    for n in range(max(low, table_size), high + 1):
        try:
            knockout_plan(n, table_size, knockout_advance(table_size))
        except ValueError:
            continue
        good.append(n)
    return good


def rounds_for(format_name: str, entrant_ids: Sequence[int], table_size: int, seed: int) -> int:
    """The number of rounds ``format_name`` plays with this field (formats in `ROUNDS_FROM_FIELD`).

    Raises ValueError when the field cannot play the format (a knock-out without a full final table).
    """
    if format_name == "knockout":
        return len(knockout_plan(len(entrant_ids), table_size, knockout_advance(table_size)))
    if format_name == "round_robin":
        return season_length(entrant_ids, table_size, seed)
    raise ValueError(f"the {format_name} format plays the rounds its organiser sets")


def rounds_estimate(format_name: str, field: int, table_size: int) -> int:
    """Before the start: the rounds a full field of ``field`` would play (the page shows it until then).

    For a round robin of larger tables this is the counting bound; the schedule may need a round or
    two more, and the exact number is fixed at the start.
    """
    if format_name == "knockout":
        fields = knockout_fields(table_size, field, table_size)
        return len(knockout_plan(fields[-1], table_size, knockout_advance(table_size))) if fields else 1
    if table_size == 2:
        return field - 1 if field % 2 == 0 else field
    per_round = (field // table_size) * table_size * (table_size - 1) // 2
    return max(-(-(field - 1) // (table_size - 1)), -(-(field * (field - 1) // 2) // max(1, per_round)))
