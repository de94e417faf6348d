"""The printed tables of Roll Through the Ages, loaded once from the package's JSON data files.

The numbers live in ``data/*.json`` (with their sources) so that a rules check
never means reading code; this module turns them into small frozen records and
a few index tables the rules need on every turn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data", name).read_text("utf-8"))
    return data


@dataclass(frozen=True)
class Good:
    id: str
    name: dict[str, str]
    capacity: int
    #: ``values[n]`` is what ``n`` units of this good are worth when spent.
    values: tuple[int, ...]


@dataclass(frozen=True)
class Monument:
    id: str
    name: dict[str, str]
    workers: int
    first: int
    later: int
    not_with: tuple[int, ...]


@dataclass(frozen=True)
class Development:
    id: str
    name: dict[str, str]
    cost: int
    points: int
    effect: dict[str, str]
    params: dict[str, int]


@dataclass(frozen=True)
class Face:
    id: str
    name: dict[str, str]
    goods: int
    food: int
    choice: int
    workers: int
    coins: int
    skulls: int


@dataclass(frozen=True)
class Disaster:
    id: str
    skulls: int
    points: int
    name: dict[str, str]


GOODS: tuple[Good, ...] = tuple(
    Good(g["id"], g["name"], g["capacity"], tuple(g["values"])) for g in _load("goods.json")["goods"]
)
GOOD_IDS: tuple[str, ...] = tuple(g.id for g in GOODS)
GOOD_INDEX: dict[str, int] = {g: i for i, g in enumerate(GOOD_IDS)}
CAPACITY: tuple[int, ...] = tuple(g.capacity for g in GOODS)
STONE = GOOD_INDEX["stone"]

MONUMENTS: tuple[Monument, ...] = tuple(
    Monument(m["id"], m["name"], m["workers"], m["first"], m["later"], tuple(m["not_with"]))
    for m in _load("monuments.json")["monuments"]
)
MONUMENT_BY_ID: dict[str, Monument] = {m.id: m for m in MONUMENTS}
GREAT_WALL = "great_wall"

_DEV_KEYS = {"id", "name", "cost", "points", "effect"}
DEVELOPMENTS: tuple[Development, ...] = tuple(
    Development(
        d["id"], d["name"], d["cost"], d["points"], d["effect"], {k: v for k, v in d.items() if k not in _DEV_KEYS}
    )
    for d in _load("developments.json")["developments"]
)
DEVELOPMENT_BY_ID: dict[str, Development] = {d.id: d for d in DEVELOPMENTS}

_BOARD = _load("board.json")
START_CITIES: int = _BOARD["start_cities"]
START_FOOD: int = _BOARD["start_food"]
MAX_ROLLS: int = _BOARD["max_rolls"]
FOOD_MAX: int = _BOARD["food_max"]
GOODS_LIMIT: int = _BOARD["goods_limit"]
#: Workers for the 4th, 5th, ... city.
CITY_COSTS: tuple[int, ...] = tuple(_BOARD["city_costs"])
MAX_CITIES: int = START_CITIES + len(CITY_COSTS)
END_DEVELOPMENTS: int = _BOARD["end_developments"]
SOLO_ROUNDS: int = _BOARD["solo_rounds"]

FACES: tuple[Face, ...] = tuple(
    Face(f["id"], f["name"], f["goods"], f["food"], f["choice"], f["workers"], f["coins"], f["skulls"])
    for f in _BOARD["faces"]
)
#: Face letters in their canonical order (the order of the Yucata face list).
FACE_IDS: str = "".join(f.id for f in FACES)
FACE_BY_ID: dict[str, Face] = {f.id: f for f in FACES}
FACE_RANK: dict[str, int] = {f: i for i, f in enumerate(FACE_IDS)}
SKULL_FACE = next(f.id for f in FACES if f.skulls)
CHOICE_FACE = next(f.id for f in FACES if f.choice)

DISASTERS: tuple[Disaster, ...] = tuple(
    Disaster(d["id"], d["skulls"], d["points"], d["name"]) for d in _BOARD["disasters"]
)
DISASTER_BY_ID: dict[str, Disaster] = {d.id: d for d in DISASTERS}


def disaster_for(skulls: int) -> Disaster | None:
    """The one disaster a number of skulls causes (the highest threshold reached), or ``None``."""
    hit: Disaster | None = None
    for d in DISASTERS:
        if skulls >= d.skulls:
            hit = d
    return hit


@cache
def monuments_in_play(num_players: int, all_monuments: bool) -> tuple[str, ...]:
    """Monument ids used with this many players (solo uses every monument)."""
    return tuple(m.id for m in MONUMENTS if all_monuments or num_players not in m.not_with)


def goods_value(goods: list[int] | tuple[int, ...]) -> int:
    """Total coin value of a goods board (the tie-breaker, and what a full spend would give)."""
    return sum(GOODS[i].values[n] for i, n in enumerate(goods))
