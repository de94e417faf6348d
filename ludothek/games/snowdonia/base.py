"""The data a Snowdonia position holds, and the small helpers every rule uses.

All mutable state is plain JSON data (ints, strings, lists, dicts), so that
`snapshot` is the state itself and `clone` is a fast structural copy.  The
rule layers build on this class: `work` (the actions A-G), `effects`
(contracts and events) and `rules` (the round flow and the engine contract).
"""

from __future__ import annotations

import pickle
from functools import cache
from typing import Any, Self

from ludothek.engine import Game, State

from .components import AREAS, Scenario, scenario
from .route import Layout, Route, layout

#: An empty memo: its key is an object no decision or chance node can be.
NO_MEMO: tuple[Any, Any] = (object(), None)

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
    "canal_marked",
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
    "outside_end",
    "plas_maintenance",
)


#: The action spaces of one round: by area, all of them in area order, and each space's action.
SpaceTable = tuple[dict[str, tuple[str, ...]], tuple[str, ...], dict[str, str]]


@cache
def space_tables(scenario_key: str, num_players: int) -> tuple[SpaceTable, SpaceTable]:
    """The action spaces for a map and player count: before and after B becomes a build space
    (index ``b_build``).  They never change, so every state of that kind shares them."""
    scen = scenario(scenario_key)
    out = []
    for b_build in (False, True):
        by_area: dict[str, tuple[str, ...]] = {}
        actions: dict[str, str] = {}
        for area in AREAS:
            if area == "G":
                spaces: tuple[str, ...] = ()
            elif area == "B" and b_build:
                spaces = ("B1",)
            else:
                count = scen.spaces_for(area, num_players) or 0
                spaces = tuple(f"{area}{i}" for i in range(1, count + 1))
            by_area[area] = spaces
            for space in spaces:
                actions[space] = "build" if area == "B" and b_build else scen.action_of(area)
        every = tuple(s for a in AREAS for s in by_area[a])
        out.append((by_area, every, actions))
    return out[0], out[1]


def copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


#: Player entries holding lists or dicts besides the three contract piles (`_copy_player` deep-copies them).
_PLAYER_OTHER: tuple[str, ...] = ()


def _copy_player(pl: dict[str, Any]) -> dict[str, Any]:
    out = pl.copy()
    out["unused"] = pl["unused"][:]
    out["active"] = pl["active"][:]
    out["used"] = pl["used"][:]
    for key in _PLAYER_OTHER:
        out[key] = copy_json(pl[key])
    return out


def _copy_site(site: dict[str, Any]) -> dict[str, Any]:
    out = site.copy()
    out["dig"] = [d.copy() for d in site["dig"]]
    out["build"] = site["build"][:]
    return out


#: Fields `StateBase.clone` copies explicitly, and scalar fields it shares; any other field is deep-copied.
_CLONED = frozenset((
    "order", "track_pool", "forecast", "events", "deck", "row", "discard", "offer", "g_workers", "rates",
    "yard", "bag", "spaces", "tracks", "shed", "sites", "players", "agenda", "event_log", "decision", "chance",
    "round", "over", "start_player", "start_locked", "trains_available", "b_build", "steel", "aside_train",
    "top_back", "contracts_blocked", "worker_built", "end_after", "events_pending", "held_events", "place_turn", "outside_end", "plas_maintenance",
))
_OTHER_FIELDS = tuple(name for name in FIELDS if name not in _CLONED)


@cache
def _track_like_sites(scenario_key: str, num_players: int) -> tuple[tuple[int, int], ...]:
    """(station, build site) of every build space that counts for track contracts (Daffodil Line,
    Over Junction); none on the other maps."""
    return tuple(
        (si, j)
        for si, st in enumerate(layout(num_players, scenario_key).stations)
        for j, site in enumerate(st.build_sites)
        if site.counts_as == "track"
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
    #: Daffodil Line: canal cards not yet dealt, by name (their number: ``4``).
    canal_pool: list[str]
    #: Daffodil Line: the record dealt its canal cards under the first rule's names
    #: (``canal:4+daffodil``), so only those cards give a daffodil; False in every new game.
    canal_marked: bool
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
    #: Blaenau Ffestiniog: the end where the outside surveyor stands (events run from there), else None.
    outside_end: str | None
    #: Blaenau Ffestiniog: whether the one train maintenance (station 4 cleared) has happened.
    plas_maintenance: bool

    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        #: The map (option ``map``): Mount Snowdon, or the Daffodil Line.
        self.map: str = options.get("map", "mount_snowdon")
        self.scen: Scenario = scenario(self.map)
        self.lay: Layout = layout(num_players, self.map)
        self.solo_train = int(options.get("solo_train", "1"))
        #: The action spaces, indexed by ``b_build`` (static tables shared by all states; see `space_tables`).
        self._spaces = space_tables(self.map, num_players)
        #: The options of ``decision`` and the chance table of ``chance``, each keyed by that object's
        #: identity (a new decision or chance node is always a new object); see `SnowdoniaState._options`.
        self._memo_options: tuple[Any, Any] = NO_MEMO
        self._memo_chance: tuple[Any, Any] = NO_MEMO
        #: The options of a placement: (the ``spaces`` dict they are for, the weather, the options).
        #: Placements are the only change to ``spaces`` while workers are placed (a new round makes a
        #: new dict), so each placement updates this instead of rescanning the spaces; a clone's
        #: own ``spaces`` dict does not match, so it scans once.
        self._place_memo: tuple[Any, Any, tuple[str, ...]] = (None, None, ())

    # ----- snapshot and copy ------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        data: dict[str, Any] = pickle.loads(pickle.dumps({k: getattr(self, k) for k in FIELDS}))
        return data

    def clone(self) -> Self:
        """An independent copy, made field by field (about 8x faster than a pickle round trip).

        Bots clone a position for every step they look ahead.  Each field is
        copied as deep as it is nested; a field without its own copier falls
        back to `copy_json`.  Agenda tasks and event-log entries are lists
        that are never changed once made, so they are shared.  The memos of
        options and chance outcomes move to the copied decision and chance.
        """
        other = object.__new__(type(self))
        d = self.__dict__.copy()
        d["order"] = self.order[:]
        d["track_pool"] = self.track_pool[:]
        d["forecast"] = self.forecast[:]
        d["events"] = self.events[:]
        d["deck"] = self.deck[:]
        d["row"] = self.row[:]
        d["discard"] = self.discard[:]
        d["offer"] = self.offer[:]
        d["g_workers"] = self.g_workers[:]
        d["rates"] = self.rates.copy()
        d["yard"] = self.yard.copy()
        d["bag"] = self.bag.copy()
        d["spaces"] = self.spaces.copy()
        d["tracks"] = [t.copy() for t in self.tracks]
        d["shed"] = [t.copy() for t in self.shed]
        d["sites"] = [_copy_site(x) for x in self.sites]
        d["players"] = [_copy_player(x) for x in self.players]
        # Tasks and log entries are never changed in place once made: only the lists holding them are copied.
        d["agenda"] = self.agenda[:]
        d["event_log"] = self.event_log[:]
        decision = self.decision
        d["decision"] = None if decision is None else decision.copy()
        chance = self.chance
        d["chance"] = None if chance is None else chance[:]
        for name in _OTHER_FIELDS:
            d[name] = copy_json(d[name])
        memo = self._memo_options
        d["_memo_options"] = (d["decision"], memo[1]) if memo[0] is decision else NO_MEMO
        memo = self._memo_chance
        d["_memo_chance"] = (d["chance"], memo[1]) if memo[0] is chance else NO_MEMO
        d["_history"] = list(self._history)
        other.__dict__ = d
        return other

    # ----- small helpers ----------------------------------------------------------
    @property
    def route(self) -> Route:
        return Route(self.lay, self.tracks, self.sites)

    def _push(self, *tasks: list[Any]) -> None:
        """Put tasks at the front of the agenda, in the given order.

        Every caller builds its task lists fresh and no task is changed after
        it is queued, so they go in as they are (no copy: this runs about twice
        per action).
        """
        self.agenda[0:0] = tasks

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
        return list(self.spaces_of(area))

    def spaces_of(self, area: str) -> tuple[str, ...]:
        """`area_spaces` as a shared tuple: they depend only on the scenario, the player count
        and whether B has become a build space, so they are made once (`space_tables`).
        """
        return self._spaces[self.b_build][0][area]

    def space_action(self, space: str) -> str:
        """The action of an action space ("stock_yard", ..., "build" for B1 once B is a build space)."""
        return self._spaces[self.b_build][2][space]

    def area_blocked(self, area: str) -> bool:
        return self.forecast[0] == "fog" and area in self.scen.fog_blocks

    def all_spaces(self) -> list[str]:
        return list(self._spaces[self.b_build][1])

    def has_active(self, seat: int, effect: str) -> int:
        """How many contracts with ``effect`` the seat has played this round."""
        active = self.players[seat]["active"]
        if not active:
            return 0
        contracts = self.scen.contracts
        return sum(1 for n in active if contracts[n].effect == effect)

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
        """Points of each station site (shovel or building) the seat owns.

        The bots' evaluation asks this for every position it judges, so it
        walks each station's sites once instead of indexing them.
        """
        out: list[int] = []
        for st, s in zip(self.lay.stations, self.sites, strict=True):
            for d, ex in zip(s["dig"], st.excavation_sites, strict=True):
                if d["owner"] == seat:
                    out.append(ex.vp)
            for owner, site in zip(s["build"], st.build_sites, strict=True):
                if owner == seat:
                    out.append(site.vp)
        return out

    def markers_counting_as_track(self, seat: int) -> int:
        """Daffodil Line: the seat's markers on build spaces that count for track contracts only."""
        sites = self.sites
        return sum(1 for si, j in _track_like_sites(self.map, self.num_players) if sites[si]["build"][j] == seat)

    def markers_on_track(self, seat: int) -> list[int]:
        return [t["number"] for t in self.tracks if t["owner"] == seat]
