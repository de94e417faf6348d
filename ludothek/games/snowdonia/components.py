"""Snowdonia's component data, loaded from the JSON files in ``data/``.

Everything that a scenario may change (stations, track cards, event track,
work rates, action spaces, contracts, trains, the bag) lives in data files so
that Blaenau Ffestiniog and the Daffodil Line can later be added as data and
small rule switches, not as a rewrite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

AREAS = ("A", "B", "C", "D", "E", "F", "G")
CUBES = ("iron", "stone", "coal")
WEATHERS = ("sun", "rain", "fog")


def _load(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ExcavationSite:
    rubble: int
    vp: int
    #: Daffodil Line: the site shows a daffodil for whoever takes its last rubble.
    daffodil: bool = False


@dataclass(frozen=True)
class BuildSite:
    stone: int
    steel: int
    vp: int
    #: Daffodil Line: a cost in daffodils (Gloucester's daffodil spaces), paid back to the supply.
    daffodils: int = 0
    #: Daffodil Line: the space shows a daffodil, given to whoever builds there.
    daffodil: bool = False
    #: Daffodil Line: "track" if a marker here counts for track contracts only (Over Junction's steel spaces).
    counts_as: str = "station"


@dataclass(frozen=True)
class Station:
    key: str
    number: float
    name: str
    track_cards_before: int
    surveyor_vp: int
    players: tuple[int, ...]
    excavation_sites: tuple[ExcavationSite, ...]
    build_sites: tuple[BuildSite, ...]
    #: Daffodil Line: the track cards before this station are canal cards (else base-game cards).
    canal_before: bool = False
    #: Daffodil Line: a surveyor ending here gets a daffodil before scoring.
    surveyor_daffodil: bool = False
    #: Blaenau Ffestiniog: the end of the line this station is (surveyors start there), or "".
    end: str = ""
    #: Blaenau Ffestiniog: points for a surveyor that started at the other end (Porthmadog Harbour).
    surveyor_vp_back: int = 0
    #: Blaenau Ffestiniog: cubes from the bag for each building here, as far as the bag has them.
    build_bonus: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Contract:
    number: int
    players: int
    area: str | None
    back: str
    stations: int
    track: int
    rubble: int
    surveyor: int
    coal_vp: int
    surveyor_tiers: tuple[tuple[int, int], ...]
    vp: int
    effect: str
    text: dict[str, str]

    @property
    def uses_surveyor(self) -> bool:
        return bool(self.surveyor or self.surveyor_tiers)


@dataclass(frozen=True)
class Train:
    number: int
    name: str
    cost_steel: int
    coal: int
    pub_coal: int
    ability: str


@dataclass(frozen=True)
class EventSpace:
    space: int
    event: str
    return_spaces: tuple[int, ...]
    provisional: bool


@dataclass(frozen=True)
class Board:
    excavate_rates: tuple[int, ...]
    excavate_start: int
    lay_rates: tuple[int, ...]
    lay_start: int
    moves: dict[str, dict[str, int]]
    weather_discs: dict[str, int]
    fog_markers: int
    event_track: tuple[EventSpace, ...]
    stock_yard_start: dict[str, int]
    solo_stock_yard_draw: int
    restock: dict[int, int]
    bag: dict[str, dict[int, int]]
    coal_total: dict[int, int]
    steel_supply: int
    markers_per_player: int
    workers_per_player: int
    contract_row: int


@dataclass(frozen=True)
class AreaSpec:
    area: str
    action: str
    spaces: dict[int, int | None]


@dataclass(frozen=True)
class CanalCard:
    """A Daffodil Line canal track card: rubble needed to fill it (also its points).

    Every canal card gives a daffodil to whoever puts its last rubble on it (seed), so a card
    carries no daffodil flag of its own.
    """

    number: int

    @property
    def name(self) -> str:
        """The card's name in chance outcomes (``canal:4``)."""
        return str(self.number)


@dataclass(frozen=True)
class DaffodilRules:
    """The Daffodil Line's numbers (``data/daffodil_line.json``)."""

    canal_cards: tuple[CanalCard, ...]
    #: Points for 1, 2, 3, 4 daffodils of a (started) set of four.
    set_points: tuple[int, ...]
    #: Rubble from the general supply for one stone smashed in the workshop.
    smash_rubble: int


#: The maps a game can be played on (option ``map``), in the lobby's order.
MAPS = ("mount_snowdon", "blaenau_ffestiniog", "daffodil_line")


@dataclass(frozen=True)
class BlaenauRules:
    """The variant Blaenau Ffestiniog's switches, from ``rules`` in its station file."""

    removed_contracts: tuple[int, ...]
    #: The event space that holds a cube from the start; only the spaces after it are used.
    event_cube_start: int
    trains_from_start: bool
    surveyors_per_end: int
    #: The station number whose shovel sites, once all cleared, start train maintenance.
    maintenance_station: float


@dataclass(frozen=True)
class Scenario:
    """One way to play: which route, cards and board the game uses."""

    key: str
    stations: tuple[Station, ...]
    track_numbers: tuple[int, ...]
    contracts: dict[int, Contract]
    trains: dict[int, Train]
    board: Board
    areas: tuple[AreaSpec, ...]
    fog_blocks: tuple[str, ...]
    cleared_route_area: dict[str, Any]
    #: The station data are reconstructions, not the publisher's (shown as a quiet line on the board).
    provisional: bool = False
    #: The Daffodil Line's extra rules and cards; None on the other maps.
    daffodil: DaffodilRules | None = None
    #: Blaenau Ffestiniog: the variant's setup switches (see `BlaenauRules`), else None.
    blaenau: BlaenauRules | None = None
    max_players: int = 5

    def stations_for(self, num_players: int) -> tuple[Station, ...]:
        return tuple(s for s in self.stations if num_players in s.players)

    def spaces_for(self, area: str, num_players: int) -> int | None:
        for spec in self.areas:
            if spec.area == area:
                return spec.spaces[num_players]
        raise KeyError(area)

    def action_of(self, area: str) -> str:
        return _AREA_ACTIONS[self.key][area]


def _contract(raw: dict[str, Any]) -> Contract:
    needs = raw.get("needs", {})
    return Contract(
        number=raw["number"],
        players=raw["players"],
        area=raw["area"],
        back=raw["back"],
        stations=needs.get("stations", 0),
        track=needs.get("track", 0),
        rubble=needs.get("rubble", 0),
        surveyor=needs.get("surveyor", 0),
        coal_vp=raw.get("coal_vp", 0),
        surveyor_tiers=tuple((a, b) for a, b in raw.get("surveyor_tiers", [])),
        vp=raw["vp"],
        effect=raw["effect"],
        text=dict(raw["text"]),
    )


def _station(raw: dict[str, Any]) -> Station:
    return Station(
        key=raw["key"],
        number=raw["number"],
        name=raw["name"],
        track_cards_before=raw["track_cards_before"],
        surveyor_vp=raw["surveyor_vp"],
        players=tuple(raw["players"]),
        excavation_sites=tuple(
            ExcavationSite(e["rubble"], e["vp"], bool(e.get("daffodil"))) for e in raw["excavation_sites"]
        ),
        build_sites=tuple(
            BuildSite(
                b.get("stone", 0),
                b.get("steel", 0),
                b["vp"],
                daffodils=b.get("daffodils", 0),
                daffodil=bool(b.get("daffodil")),
                counts_as=b.get("counts_as", "station"),
            )
            for b in raw["build_sites"]
        ),
        canal_before=bool(raw.get("canal_before")),
        surveyor_daffodil=bool(raw.get("surveyor_daffodil")),
        end=raw.get("end", ""),
        surveyor_vp_back=raw.get("surveyor_vp_back", 0),
        build_bonus=tuple((cube, int(k)) for cube, k in raw.get("build_bonus", {}).items()),
    )


def _daffodil_rules(raw: dict[str, Any]) -> DaffodilRules:
    return DaffodilRules(
        canal_cards=tuple(CanalCard(c["number"]) for c in raw["canal_cards"]["cards"]),
        set_points=tuple(raw["daffodil_set_points"]),
        smash_rubble=raw["smash_stone"]["rubble"],
    )


def _board(raw: dict[str, Any]) -> Board:
    wr = raw["work_rates"]
    return Board(
        excavate_rates=tuple(wr["excavate"]["values"]),
        excavate_start=wr["excavate"]["start"],
        lay_rates=tuple(wr["lay_track"]["values"]),
        lay_start=wr["lay_track"]["start"],
        moves={w: dict(m) for w, m in wr["moves"].items()},
        weather_discs=dict(raw["weather_discs"]),
        fog_markers=raw["fog_markers"],
        event_track=tuple(
            EventSpace(e["space"], e["event"], tuple(e.get("return_spaces", [])), bool(e.get("provisional")))
            for e in raw["event_track"]["spaces"]
        ),
        stock_yard_start=dict(raw["stock_yard_start"]),
        solo_stock_yard_draw=raw["solo_stock_yard_draw"],
        restock={int(k): v for k, v in raw["restock"].items() if not k.startswith("_")},
        bag={cube: {int(k): v for k, v in per.items()} for cube, per in raw["bag"].items()},
        coal_total={int(k): v for k, v in raw["coal_total"].items() if not k.startswith("_")},
        steel_supply=raw["steel_supply"],
        markers_per_player=raw["markers_per_player"],
        workers_per_player=raw["workers_per_player"],
        contract_row=raw["contract_row"],
    )


#: Each scenario's action per area, for `Scenario.action_of` (asked several times per round).
_AREA_ACTIONS: dict[str, dict[str, str]] = {}
def _has_data(name: str) -> bool:
    return resources.files(__package__).joinpath("data", name).is_file()


@cache
def scenario(key: str = "mount_snowdon") -> Scenario:
    """The map's data, loaded once: ``data/stations_<map>.json`` plus the shared cards and board.

    A map's station file marked ``"provisional": true`` makes the board show
    that its values are reconstructions.  The Daffodil Line adds
    ``data/daffodil_line.json`` (canal cards, daffodil scoring, smash stone).
    """
    if key not in MAPS or not _has_data(f"stations_{key}.json"):
        raise KeyError(f"unknown Snowdonia map {key!r}")
    raw_stations = _load(f"stations_{key}.json")
    stations = tuple(_station(s) for s in raw_stations["stations"])
    tracks = _load("track_cards.json")
    contracts = {c["number"]: _contract(c) for c in _load("contracts.json")["contracts"]}
    trains = {t["number"]: Train(**t) for t in _load("trains.json")["trains"]}
    spaces = _load("action_spaces.json")
    areas = tuple(
        AreaSpec(a["area"], a["action"], {int(k): v for k, v in a["spaces"].items()}) for a in spaces["areas"]
    )
    _AREA_ACTIONS[key] = {a.area: a.action for a in areas}
    daffodil = None
    if key == "daffodil_line":
        raw_daffodil = _load("daffodil_line.json")
        daffodil = _daffodil_rules(raw_daffodil)
        # The scenario's own workshop card (its side per player count), and the contract texts it extends.
        workshop = {int(k): v for k, v in raw_daffodil["workshop_spaces"].items() if not k.startswith("_")}
        areas = tuple(AreaSpec(a.area, a.action, workshop) if a.area == "C" else a for a in areas)
        for number, extra in raw_daffodil["contract_text_additions"].items():
            c = contracts[int(number)]
            text = {lang: f"{c.text[lang]} {extra[lang]}" for lang in c.text}
            contracts[int(number)] = replace(c, text=text)
    blaenau = None
    if "rules" in raw_stations and key == "blaenau_ffestiniog":
        r = raw_stations["rules"]
        blaenau = BlaenauRules(
            removed_contracts=tuple(r["removed_contracts"]),
            event_cube_start=r["event_cube_start"],
            trains_from_start=bool(r["trains_from_start"]),
            surveyors_per_end=r["surveyors_per_end"],
            maintenance_station=r["maintenance_station"],
        )
        contracts = {n: c for n, c in contracts.items() if n not in blaenau.removed_contracts}
    return Scenario(
        key=key,
        stations=stations,
        track_numbers=tuple(tracks["numbers"]),
        contracts=contracts,
        trains=trains,
        board=_board(_load("board.json")),
        areas=areas,
        fog_blocks=tuple(spaces["fog_blocks"]),
        cleared_route_area=dict(spaces["cleared_route_area"]),
        provisional=bool(raw_stations.get("provisional")),
        daffodil=daffodil,
        blaenau=blaenau,
        max_players=max(p for s in stations for p in s.players),
    )
