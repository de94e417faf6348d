"""The variant Blaenau Ffestiniog: a line with two ends, worked from both.

Surveyors start at either end (Blaenau Ffestiniog, on the Llanberis space, or
Porthmadog Harbour), and each player excavates and lays track from their own
end towards the other.  Events are carried out from the end where the
outside surveyor (a black disc) stands, which then changes ends.  The helpers
here answer "in which order, from which end" for the rule layers; on the
other maps they give the base game's answers (everything from station 0).
See ``docs/games/snowdonia.md``, rulings 34 onwards.
"""

from __future__ import annotations

from typing import Any

from .base import StateBase
from .route import Field

#: The two ends of the line, in station order.
ENDS = ("blaenau", "porthmadog")


class BlaenauMixin(StateBase):
    """Directions, reach and the set-up choices of Blaenau Ffestiniog."""

    @property
    def two_ends(self) -> bool:
        """Whether the line is worked from both ends (the variant Blaenau Ffestiniog)."""
        return self.scen.blaenau is not None

    def end_index(self, end: str) -> int:
        """The station index of an end of the line."""
        return 0 if end == ENDS[0] else len(self.lay.stations) - 1

    def backwards(self, end: str | None) -> bool:
        """Whether work from ``end`` runs against the station order (from Porthmadog Harbour)."""
        return end == ENDS[1]

    def end_of(self, seat: int) -> str | None:
        """The end the seat's surveyor started from (None on the other maps)."""
        end: str | None = self.players[seat].get("end")
        return end

    # ----- order of work -------------------------------------------------------------
    def fields_from(self, end: str | None) -> tuple[Field, ...]:
        """Every rubble field in the order work from ``end`` reaches them.

        From Blaenau Ffestiniog (and on the other maps) that is the route's
        order: the track cards before a station, then its shovel sites.  From
        Porthmadog Harbour it is the mirror: the track cards between a station
        and the previous one (nearest first), then that previous station's
        shovel sites.
        """
        if not self.backwards(end):
            return self.lay.fields
        return _backward_fields(self)

    def next_field_from(self, end: str | None) -> Field | None:
        """The first field with rubble seen from ``end``."""
        tracks, sites = self.tracks, self.sites
        for f in self.fields_from(end):
            if (tracks[f[1]]["rubble"] if f[0] == "t" else sites[f[1]]["dig"][f[2]]["rubble"]) > 0:
                return f
        return None

    def slots_from(self, end: str | None, slots: list[int]) -> list[int]:
        """Track slots in the order work from ``end`` reaches them."""
        return slots[::-1] if self.backwards(end) else slots

    # ----- surveyors ------------------------------------------------------------------
    def surveyor_step(self, seat: int) -> int:
        """+1 (towards Porthmadog Harbour / the summit) or -1 (a surveyor from Porthmadog Harbour)."""
        return -1 if self.backwards(self.end_of(seat)) else 1

    def surveyor_points(self, seat: int) -> int:
        station = self.lay.stations[self.players[seat]["surveyor"]]
        return station.surveyor_vp_back if self.backwards(self.end_of(seat)) else station.surveyor_vp

    def surveyor_number(self, seat: int) -> float:
        """The station number contracts compare the surveyor with: stations travelled from the own end."""
        number = self.lay.stations[self.players[seat]["surveyor"]].number
        if self.backwards(self.end_of(seat)):
            return self.lay.stations[-1].number - number
        return number

    def reached(self, seat: int, si: int) -> bool:
        """Blaenau Ffestiniog: whether the seat's surveyor has reached station ``si`` (start included)."""
        pos = self.players[seat]["surveyor"]
        return si >= pos if self.backwards(self.end_of(seat)) else si <= pos

    # ----- set-up choices ------------------------------------------------------------
    def end_options(self) -> list[str]:
        """Ends with a free surveyor place (3 each)."""
        assert self.scen.blaenau is not None
        cap = self.scen.blaenau.surveyors_per_end
        taken = [pl.get("end") for pl in self.players]
        return [f"end:{e}" for e in ENDS if taken.count(e) < cap]

    def choose_end(self, seat: int, end: str) -> None:
        pl = self.players[seat]
        pl["end"] = end
        pl["surveyor"] = self.end_index(end)

    def start_marker(self, seat: int) -> None:
        """The first surveyor move leaves an ownership marker on the start station (one marker fewer)."""
        pl = self.players[seat]
        if not pl["start_marker"] and pl["markers"] > 0:
            pl["markers"] -= 1
            pl["start_marker"] = True

    def build_bonus(self, seat: int, si: int) -> dict[str, int]:
        """Free cubes from the bag for building at station ``si``, as far as the bag has them."""
        got: dict[str, int] = {}
        pl = self.players[seat]
        for cube, k in self.lay.stations[si].build_bonus:
            take = min(k, self.bag[cube])
            if take > 0:
                self.bag[cube] -= take
                pl[cube] += take
                got[cube] = take
        return got

    def maintenance_due(self) -> bool:
        """Blaenau Ffestiniog: the one train maintenance is due once station 4 has no rubble left."""
        rules = self.scen.blaenau
        if rules is None or self.plas_maintenance:
            return False
        for si, st in enumerate(self.lay.stations):
            if st.number == rules.maintenance_station:
                return all(d["rubble"] == 0 for d in self.sites[si]["dig"])
        return False


def _backward_fields(state: Any) -> tuple[Field, ...]:
    lay = state.lay
    key = id(lay)
    cached = _BACKWARD.get(key)
    if cached is None or cached[0] is not lay:
        fields: list[Field] = []
        for si in range(len(lay.stations) - 1, 0, -1):
            fields.extend(("t", s, 0) for s in reversed(lay.slots_before[si]))
            prev = si - 1
            fields.extend(("s", prev, j) for j in range(len(lay.stations[prev].excavation_sites)))
        cached = _BACKWARD[key] = (lay, tuple(fields))
    return cached[1]


#: The backward field order per layout (layouts are made once per map and player count).
_BACKWARD: dict[int, tuple[Any, tuple[Field, ...]]] = {}
