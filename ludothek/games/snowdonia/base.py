"""The data a Snowdonia position holds, and the small helpers every rule uses.

All mutable state is plain JSON data (ints, strings, lists, dicts), so that
`snapshot` is the state itself and `clone` is a fast structural copy.  The
rule layers build on this class: `work` (the actions A-G), `effects`
(contracts and events) and `rules` (the round flow and the engine contract).
"""

from __future__ import annotations

import pickle
from typing import Any, Self

from ludothek.engine import Game, State

from .components import AREAS, Scenario, scenario
from .route import Layout, Route, layout

#: Fields that make up a position; `snapshot` returns exactly these.
FIELDS = (
    "round",
    "over",
    "start_player",
    "start_locked",
    "order",
    "tracks",
    "sites",
    "track_pool",
    "canal_pool",
    "rates",
    "forecast",
    "events",
    "trains_available",
    "b_build",
    "yard",
    "bag",
    "steel",
    "shed",
    "aside_train",
    "deck",
    "top_back",
    "row",
    "discard",
    "offer",
    "players",
    "spaces",
    "g_workers",
    "contracts_blocked",
    "worker_built",
    "end_after",
    "agenda",
    "decision",
    "chance",
    "events_pending",
    "held_events",
    "place_turn",
    "event_log",
)


def new_player(markers: int) -> dict[str, Any]:
    return {
        "iron": 0,
        "stone": 0,
        "coal": 0,
        "rubble": 0,
        "steel": 0,
        "markers": markers,
        "surveyor": 0,
        "train": None,
        "pub": False,
        "pub_asked": False,
        "placed": 0,
        "unused": [],
        "active": [],
        "used": [],
    }


class StateBase(State):
    """Fields and helpers shared by all rule layers."""

    round: int
    over: bool
    start_player: int
    start_locked: bool
    order: list[int]
    tracks: list[dict[str, Any]]
    sites: list[dict[str, Any]]
    track_pool: list[int]
    #: Daffodil Line: canal cards not yet dealt, by name (``4``, ``4+daffodil``).
    canal_pool: list[str]
    rates: dict[str, int]
    forecast: list[str | None]
    events: list[bool]
    trains_available: bool
    b_build: bool
    yard: dict[str, int]
    bag: dict[str, int]
    steel: int
    shed: list[dict[str, int]]
    aside_train: int | None
    deck: list[int]
    top_back: str | None
    row: list[int | None]
    discard: list[int]
    offer: list[int]
    players: list[dict[str, Any]]
    spaces: dict[str, int | None]
    g_workers: list[int]
    contracts_blocked: bool
    worker_built: bool
    end_after: int | None
    agenda: list[list[Any]]
    decision: dict[str, Any] | None
    chance: list[Any] | None
    events_pending: int
    held_events: int
    place_turn: int
    #: Events resolved so far: [round, space, event], for the log and the board.
    event_log: list[list[Any]]

    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        #: The map (option ``map``): Mount Snowdon, or the Daffodil Line.
        self.map: str = options.get("map", "mount_snowdon")
        self.scen: Scenario = scenario(self.map)
        self.lay: Layout = layout(num_players, self.map)
        self.solo_train = int(options.get("solo_train", "1"))

    # ----- snapshot and copy ------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        data: dict[str, Any] = pickle.loads(pickle.dumps({k: getattr(self, k) for k in FIELDS}))
        return data

    def clone(self) -> Self:
        other = object.__new__(type(self))
        fresh = pickle.loads(pickle.dumps({k: getattr(self, k) for k in FIELDS}))
        other.__dict__.update(self.__dict__)
        other.__dict__.update(fresh)
        other._history = list(self._history)
        return other

    # ----- small helpers ----------------------------------------------------------
    @property
    def route(self) -> Route:
        return Route(self.lay, self.tracks, self.sites)

    def _push(self, *tasks: list[Any]) -> None:
        """Put tasks at the front of the agenda, in the given order."""
        self.agenda[0:0] = [list(t) for t in tasks]

    def p(self, seat: int) -> dict[str, Any]:
        return self.players[seat]

    @property
    def solo(self) -> bool:
        return self.num_players == 1

    def weather(self) -> str | None:
        """The current weather (the left-most disc); None before the first disc arrives."""
        return self.forecast[0]

    def fog(self) -> bool:
        return self.forecast[0] == "fog"

    def rate(self, track: str) -> int:
        values = self.scen.board.excavate_rates if track == "excavate" else self.scen.board.lay_rates
        return values[self.rates[track]]

    def area_spaces(self, area: str) -> list[str]:
        """The numbered spaces of an area this round (G has none: it is unlimited)."""
        if area == "G":
            return []
        if area == "B" and self.b_build:
            return ["B1"]
        count = self.scen.spaces_for(area, self.num_players) or 0
        return [f"{area}{i}" for i in range(1, count + 1)]

    def space_action(self, space: str) -> str:
        area = space[0]
        if area == "B" and self.b_build:
            return "build"
        return self.scen.action_of(area)

    def area_blocked(self, area: str) -> bool:
        return self.fog() and area in self.scen.fog_blocks

    def all_spaces(self) -> list[str]:
        return [s for a in AREAS for s in self.area_spaces(a)]

    def has_active(self, seat: int, effect: str) -> int:
        """How many contracts with ``effect`` the seat has played this round."""
        return sum(1 for n in self.p(seat)["active"] if self.scen.contracts[n].effect == effect)

    def contracts_of(self, seat: int) -> list[int]:
        pl = self.p(seat)
        return sorted(pl["unused"] + pl["active"] + pl["used"])

    def workers_total(self, seat: int) -> int:
        return self.scen.board.workers_per_player + (1 if self.p(seat)["pub"] else 0)

    # ----- cubes: the bag, coal on trains -----------------------------------------
    def shed_train(self, number: int) -> dict[str, int] | None:
        for t in self.shed:
            if t["number"] == number:
                return t
        return None

    def refill_shed(self) -> None:
        """Give trains in the engine shed their printed coal from the bag, lowest number first."""
        for t in sorted(self.shed, key=lambda t: t["number"]):
            missing = self.scen.trains[t["number"]].coal - t["coal"]
            take = min(missing, self.bag["coal"])
            if take > 0:
                t["coal"] += take
                self.bag["coal"] -= take

    def coal_to_bag(self, amount: int) -> None:
        """Coal paid by a player: as on Yucata it first tops up trains still missing coal."""
        self.bag["coal"] += amount
        self.refill_shed()

    def return_train(self, number: int) -> None:
        """A train goes back to the engine shed (in solo it leaves the game)."""
        if self.solo:
            return
        self.shed.append({"number": number, "coal": 0})
        self.shed.sort(key=lambda t: t["number"])

    def markers_on_stations(self, seat: int) -> list[int]:
        """Points of each station site (shovel or building) the seat owns."""
        out: list[int] = []
        for si, st in enumerate(self.lay.stations):
            s = self.sites[si]
            out.extend(st.excavation_sites[j].vp for j, d in enumerate(s["dig"]) if d["owner"] == seat)
            out.extend(st.build_sites[j].vp for j, o in enumerate(s["build"]) if o == seat)
        return out

    def markers_counting_as_track(self, seat: int) -> int:
        """Daffodil Line: the seat's markers on build spaces that count for track contracts only."""
        out = 0
        for si, st in enumerate(self.lay.stations):
            for j, owner in enumerate(self.sites[si]["build"]):
                if owner == seat and st.build_sites[j].counts_as == "track":
                    out += 1
        return out

    def markers_on_track(self, seat: int) -> list[int]:
        return [t["number"] for t in self.tracks if t["owner"] == seat]
