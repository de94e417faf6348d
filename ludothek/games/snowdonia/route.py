"""The railway from Llanberis to the summit: track cards, station sites and their rubble.

The route is a list of stations (index 0 is the valley station) with track
card slots between them.  Rubble is always cleared strictly uphill: the track
cards before a station first, then that station's shovel sites left to right.
`Layout` is the static shape for a player count; the mutable parts (rubble,
laid, owners) live in the state as plain lists so snapshots stay JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .components import Station, scenario

#: A rubble field: ("t", slot) for a track card or ("s", station, site) for a shovel site.
Field = tuple[str, int, int]


@dataclass(frozen=True)
class Layout:
    """The route's shape for one player count."""

    stations: tuple[Station, ...]
    #: Track slot indices directly before each station (empty for the valley station).
    slots_before: tuple[tuple[int, ...], ...]
    #: Every rubble field in clearing order (uphill).
    fields: tuple[Field, ...]
    num_slots: int
    #: Daffodil Line: whether each track slot takes a canal card (filled) instead of a base card (cleared).
    canal_slots: tuple[bool, ...] = ()
    #: Whether any slot takes a canal card; without, "work left" is just the rubble (the fast paths).
    has_canals: bool = False

    def station_index(self, key: str) -> int:
        for i, st in enumerate(self.stations):
            if st.key == key:
                return i
        raise KeyError(key)


@cache
def layout(num_players: int, scenario_key: str = "mount_snowdon") -> Layout:
    stations = scenario(scenario_key).stations_for(num_players)
    slots_before: list[tuple[int, ...]] = []
    fields: list[Field] = []
    canal: list[bool] = []
    slot = 0
    for si, st in enumerate(stations):
        mine = tuple(range(slot, slot + st.track_cards_before))
        slot += st.track_cards_before
        slots_before.append(mine)
        canal.extend([st.canal_before] * len(mine))
        fields.extend(("t", s, 0) for s in mine)
        fields.extend(("s", si, j) for j in range(len(st.excavation_sites)))
    return Layout(stations, tuple(slots_before), tuple(fields), slot, tuple(canal), any(canal))


class Route:
    """Operations on the route part of a state (``tracks`` and ``sites`` lists)."""

    def __init__(self, lay: Layout, tracks: list[dict], sites: list[dict]):
        self.lay = lay
        #: One dict per track slot: number, rubble, laid, owner.
        self.tracks = tracks
        #: One dict per station: dig (list of {rubble, owner}), build (owners), completed.
        self.sites = sites

    def rubble_at(self, f: Field) -> int:
        if f[0] == "t":
            return int(self.tracks[f[1]]["rubble"])
        return int(self.sites[f[1]]["dig"][f[2]]["rubble"])

    def set_rubble(self, f: Field, value: int) -> None:
        if f[0] == "t":
            self.tracks[f[1]]["rubble"] = value
        else:
            self.sites[f[1]]["dig"][f[2]]["rubble"] = value

    def is_canal(self, f: Field) -> bool:
        """Daffodil Line: a canal card, filled with rubble instead of cleared."""
        return f[0] == "t" and bool(self.tracks[f[1]].get("canal"))

    def work_left(self, f: Field) -> int:
        """Rubble still to be moved on a field: to take away, or (canal card) to put on until it is full."""
        if f[0] == "t":
            t = self.tracks[f[1]]
            if t["laid"]:
                return 0
            if t.get("canal"):
                return int(t["number"]) - int(t["rubble"])
            return int(t["rubble"])
        return int(self.sites[f[1]]["dig"][f[2]]["rubble"])

    def next_field(self) -> Field | None:
        """The lowest field that still needs work (rubble to clear, or a canal card to fill)."""
        if not self.lay.has_canals:
            tracks, sites = self.tracks, self.sites
            for f in self.lay.fields:
                if (tracks[f[1]]["rubble"] if f[0] == "t" else sites[f[1]]["dig"][f[2]]["rubble"]) > 0:
                    return f
            return None
        for f in self.lay.fields:
            if self.work_left(f) > 0:
                return f
        return None

    def rubble_left(self) -> int:
        """Rubble still to be moved on the route (to clear, or to fill into canal cards)."""
        return sum(self.work_left(f) for f in self.lay.fields)

    def clearable_tracks(self) -> list[int]:
        """Unlaid track slots that are cleared (canal cards: full), lowest first: where a player may lay track."""
        if not self.lay.has_canals:
            return [i for i, t in enumerate(self.tracks) if not t["laid"] and t["rubble"] == 0]
        return [i for i, t in enumerate(self.tracks) if not t["laid"] and self.work_left(("t", i, 0)) == 0]

    def unlaid(self) -> list[int]:
        return [i for i, t in enumerate(self.tracks) if not t["laid"]]

    def all_laid(self) -> bool:
        return all(t["laid"] for t in self.tracks)

    def station_open(self, si: int) -> bool:
        """Players may build here: not completed by an event, and the track cards leading here are clear (or full)."""
        if si == 0 or self.sites[si]["completed"]:
            return False
        if not self.lay.has_canals:
            tracks = self.tracks
            for s in self.lay.slots_before[si]:  # noqa: SIM110 - a plain loop is faster than all() with a generator
                if tracks[s]["rubble"]:
                    return False
            return True
        return all(self.work_left(("t", s, 0)) == 0 for s in self.lay.slots_before[si])

    def free_build_sites(self, si: int) -> list[int]:
        return [j for j, owner in enumerate(self.sites[si]["build"]) if owner is None]

    def first_unfinished_station(self) -> int | None:
        """The lowest station with a free building site that no event has completed."""
        for si in range(1, len(self.lay.stations)):
            if not self.sites[si]["completed"] and self.free_build_sites(si):
                return si
        return None
