"""The component set, loaded from the JSON files in ``data/`` and checked on load.

Every physical component (tiles, building boards, frame parts, the villa
table, scoring cards, fountain cards, per-player-count setup) is data, so a
site operator who has the publisher's exact set can replace the files without
touching code.  ``docs/games/carpediem.md`` documents each format.  The set
shipped here is *provisional* (see the ``provisional`` note in every file).

Set ``LUDOTHEK_CARPEDIEM_DATA`` to a directory to load the files from there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from .geometry import CELLS, HALF_NAMES, parse_cell, parse_halves, rotate_half

#: Landscape kind -> the ware it yields.
LANDSCAPES: dict[str, str] = {"pond": "fish", "vineyard": "grapes", "garden": "herbs", "chicken_yard": "chicken"}
WARES: tuple[str, ...] = ("grapes", "herbs", "chicken", "fish")
DWELLINGS: tuple[str, ...] = ("administrator", "merchant", "baker", "craftsman")
SINGLES: tuple[str, ...] = ("market", "bakery", "fountain")
VILLA = "villa"
PART_KINDS: tuple[str, ...] = (*LANDSCAPES, *DWELLINGS, VILLA, *SINGLES)
#: What a scoring card may ask for: wares to pay, or things to own.
OWNABLE: tuple[str, ...] = (
    *LANDSCAPES, *DWELLINGS, VILLA, *SINGLES, "landscapes", "dwellings", "chimneys",
)
REWARDS: tuple[str, ...] = ("vp", "coins", "bread", "steps")
T = TypeVar("T")


class DataError(ValueError):
    """A component data file breaks its documented format."""


@dataclass(frozen=True)
class Part:
    """One building part printed on a tile: what it is and which half-sides it touches."""

    kind: str
    halves: tuple[int, ...]
    chimneys: int = 0

    @property
    def family(self) -> str:
        if self.kind in LANDSCAPES:
            return "landscape"
        if self.kind in DWELLINGS:
            return "dwelling"
        return "villa" if self.kind == VILLA else "single"


@dataclass(frozen=True)
class Orientation:
    """A tile turned by ``rotation`` degrees: the label of each half and each part's halves."""

    rotation: int
    labels: tuple[str, ...]  # 8 labels, "" is meadow
    part_halves: tuple[tuple[int, ...], ...]
    #: For each half: the index of the part touching it, -1 for meadow.
    part_at: tuple[int, ...]


@dataclass(frozen=True)
class Tile:
    id: str
    back: str  # "light" or "dark"
    parts: tuple[Part, ...]
    #: The distinct orientations (symmetric tiles have fewer than four).
    orientations: tuple[Orientation, ...]

    def orientation(self, rotation: int) -> Orientation | None:
        for o in self.orientations:
            if o.rotation == rotation:
                return o
        return None


@dataclass(frozen=True)
class Board:
    id: str
    shovel: int
    banners: frozenset[int]


@dataclass(frozen=True)
class Goal:
    position: int  # 1..6 clockwise along the frame part
    kind: str
    vp: int


@dataclass(frozen=True)
class FramePart:
    id: str
    goals: tuple[Goal, ...]


@dataclass(frozen=True)
class ScoringCard:
    id: str
    letter: str
    colour: str  # "red": pay what is shown; "green": own it
    need: tuple[tuple[str, int], ...]
    reward: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class FountainKind:
    id: str
    counts: str
    vp_each: int
    copies: int


@dataclass(frozen=True)
class Setup:
    cards_per_letter: dict[str, int]
    empty_slots: tuple[int, ...]
    starting_vp: tuple[int, ...]
    taken_before_clear: int


@dataclass(frozen=True)
class Rules:
    """Fixed numbers of the game, kept with the data so that every number is in one place."""

    rondel_spaces: int
    tiles_per_space: int
    seal_spaces: int
    passes: int
    grid_rows: int
    grid_cols: int
    banner_track_length: int
    penalty: int
    bread_per_card: int
    leftover_divisor: int
    setups: dict[int, Setup]


@dataclass(frozen=True)
class ComponentSet:
    tiles: dict[str, Tile]
    boards: dict[str, Board]
    frames: dict[str, FramePart]
    villa_table: dict[int, int]
    villa_beyond: int
    cards: dict[str, ScoringCard]
    fountains: dict[str, FountainKind]
    rules: Rules
    provisional: bool

    def villa_vp(self, chimneys: int) -> int:
        """Points for a completed villa with ``chimneys`` chimneys."""
        if chimneys in self.villa_table:
            return self.villa_table[chimneys]
        top = max(self.villa_table)
        if chimneys > top:
            return self.villa_table[top] + self.villa_beyond * (chimneys - top)
        return 0

    def tiles_with_back(self, back: str) -> list[str]:
        return sorted(t.id for t in self.tiles.values() if t.back == back)


# ----- loading ----------------------------------------------------------------------

def _read(name: str) -> Any:
    override = os.environ.get("LUDOTHEK_CARPEDIEM_DATA")
    try:
        if override:
            text = (Path(override) / name).read_text(encoding="utf-8")
        else:
            text = resources.files("ludothek.games.carpediem").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read component file {name}: {exc}") from exc
    try:
        return json.loads(text)
    except ValueError as exc:
        raise DataError(f"{name} is not valid JSON: {exc}") from exc


def _need(cond: object, message: str) -> None:
    if not cond:
        raise DataError(message)


def _orientations(parts: tuple[Part, ...]) -> tuple[Orientation, ...]:
    seen: set[tuple[tuple[str, ...], tuple[tuple[str, int, tuple[int, ...]], ...]]] = set()
    out: list[Orientation] = []
    for q in range(4):
        labels = [""] * 8
        rotated: list[tuple[int, ...]] = []
        for part in parts:
            hs = tuple(sorted(rotate_half(h, q) for h in part.halves))
            rotated.append(hs)
            for h in hs:
                labels[h] = part.kind
        # chimneys belong to the picture: two villa parts with different chimneys are not interchangeable
        key = (tuple(labels), tuple(sorted((p.kind, p.chimneys, hs) for p, hs in zip(parts, rotated, strict=True))))
        if key in seen:  # the same picture as an earlier rotation
            continue
        seen.add(key)
        part_at = [-1] * 8
        for index, hs in enumerate(rotated):
            for h in hs:
                part_at[h] = index
        out.append(Orientation(q * 90, tuple(labels), tuple(rotated), tuple(part_at)))
    return tuple(out)


def _part(tile_id: str, raw: Any) -> Part:
    _need(isinstance(raw, dict) and "kind" in raw, f"tile {tile_id}: every part needs a 'kind'")
    kind = raw["kind"]
    _need(kind in PART_KINDS, f"tile {tile_id}: unknown part kind {kind!r}; known: {', '.join(PART_KINDS)}")
    try:
        halves = parse_halves(list(raw.get("at", [])))
    except ValueError as exc:
        raise DataError(f"tile {tile_id}: {exc}") from exc
    _need(len(set(halves)) == len(halves), f"tile {tile_id}: a part lists a half-side twice")
    chimneys = raw.get("chimneys", 0)
    _need(isinstance(chimneys, int) and chimneys >= 0, f"tile {tile_id}: chimneys must be a whole number >= 0")
    family = Part(kind, halves, chimneys).family
    if family == "single":
        _need(not halves, f"tile {tile_id}: a {kind} touches no side (meadow all round)")
    else:
        _need(bool(halves), f"tile {tile_id}: a {kind} must touch at least one half-side")
    if family in ("dwelling", "villa"):
        sides = {h // 2 for h in halves}
        _need(all(2 * s in halves and 2 * s + 1 in halves for s in sides),
              f"tile {tile_id}: a {kind} touches whole sides only")
    if family == "dwelling":
        _need(len(halves) == 2, f"tile {tile_id}: a dwelling half touches exactly one side")
    _need(family == "villa" or chimneys == 0, f"tile {tile_id}: only villas have chimneys")
    return Part(kind, halves, chimneys)


def _tiles(raw: Any) -> dict[str, Tile]:
    _need(isinstance(raw, dict) and isinstance(raw.get("tiles"), list), "tiles.json needs a 'tiles' list")
    tiles: dict[str, Tile] = {}
    for entry in raw["tiles"]:
        tid = entry.get("id")
        _need(isinstance(tid, str) and tid and ":" not in tid and " " not in tid, f"bad tile id {tid!r}")
        _need(tid not in tiles, f"tile id {tid} appears twice")
        back = entry.get("back")
        _need(back in ("light", "dark"), f"tile {tid}: back must be 'light' or 'dark'")
        parts = tuple(_part(tid, p) for p in entry.get("parts", []))
        _need(1 <= len(parts) <= 2, f"tile {tid}: a tile shows one or two building parts")
        _need(back == "light" or len(parts) == 1, f"tile {tid}: a dark tile shows exactly one thing")
        used = [h for p in parts for h in p.halves]
        _need(len(used) == len(set(used)), f"tile {tid}: two parts touch the same half-side")
        if any(p.family == "single" for p in parts):
            _need(len(parts) == 1, f"tile {tid}: markets, bakeries and fountains stand alone on their tile")
        tiles[tid] = Tile(tid, back, parts, _orientations(parts))
    return tiles


def _boards(raw: Any) -> dict[str, Board]:
    out: dict[str, Board] = {}
    for entry in raw.get("boards", []):
        bid = entry["id"]
        try:
            shovel = parse_cell(entry["shovel"])
            banners = frozenset(parse_cell(c) for c in entry["banners"])
        except (ValueError, KeyError) as exc:
            raise DataError(f"board {bid}: {exc}") from exc
        _need(shovel not in banners, f"board {bid}: the shovel cell cannot carry a banner")
        _need(len(banners) == len(entry["banners"]), f"board {bid}: a banner cell is listed twice")
        out[bid] = Board(bid, shovel, banners)
    _need(len(out) >= 4, "boards.json needs at least 4 building boards")
    return out


GOAL_KINDS: tuple[str, ...] = (*LANDSCAPES, *DWELLINGS, VILLA)


def _frames(raw: Any) -> dict[str, FramePart]:
    out: dict[str, FramePart] = {}
    for entry in raw.get("parts", []):
        fid = entry["id"]
        goals = []
        for g in entry["goals"]:
            _need(g.get("kind") in GOAL_KINDS, f"frame part {fid}: goal kind must be one of {', '.join(GOAL_KINDS)}")
            _need(isinstance(g.get("position"), int) and 1 <= g["position"] <= 6,
                  f"frame part {fid}: goal position must be 1..6")
            _need(isinstance(g.get("vp"), int) and g["vp"] > 0, f"frame part {fid}: goal vp must be positive")
            goals.append(Goal(g["position"], g["kind"], g["vp"]))
        _need(len({g.position for g in goals}) == len(goals), f"frame part {fid}: two goals on one line")
        out[fid] = FramePart(fid, tuple(goals))
    _need(len(out) >= 16, "frames.json needs at least 16 frame parts (4 per player)")
    return out


def _pairs(card_id: str, raw: Any, allowed: tuple[str, ...], what: str) -> tuple[tuple[str, int], ...]:
    _need(isinstance(raw, dict) and raw, f"card {card_id}: '{what}' must be a non-empty object")
    for k, v in raw.items():
        _need(k in allowed, f"card {card_id}: unknown {what} item {k!r}")
        _need(isinstance(v, int) and v > 0, f"card {card_id}: {what} amounts must be positive whole numbers")
    return tuple((k, raw[k]) for k in raw)


def _cards(raw: Any) -> dict[str, ScoringCard]:
    out: dict[str, ScoringCard] = {}
    for entry in raw.get("cards", []):
        cid = entry["id"]
        _need(cid not in out, f"card id {cid} appears twice")
        colour = entry.get("colour")
        _need(colour in ("red", "green"), f"card {cid}: colour must be red or green")
        need = _pairs(cid, entry.get("need"), WARES if colour == "red" else OWNABLE, "need")
        reward = _pairs(cid, entry.get("reward"), REWARDS, "reward")
        _need(entry.get("letter") in ("A", "B", "C", "D"), f"card {cid}: letter must be A, B, C or D")
        out[cid] = ScoringCard(cid, entry["letter"], colour, need, reward)
    return out


def _fountains(raw: Any) -> dict[str, FountainKind]:
    out: dict[str, FountainKind] = {}
    for entry in raw.get("kinds", []):
        kid = entry["id"]
        _need(entry.get("counts") in OWNABLE, f"fountain card {kid}: unknown item {entry.get('counts')!r}")
        out[kid] = FountainKind(kid, entry["counts"], int(entry["vp_each"]), int(entry["copies"]))
    return out


def _rules(raw: Any) -> Rules:
    setups: dict[int, Setup] = {}
    for count, s in raw["setups"].items():
        n = int(count)
        _need(len(s["starting_vp"]) == n, f"setup for {n} players needs {n} starting scores")
        setups[n] = Setup(dict(s["cards_per_letter"]), tuple(s["empty_slots"]), tuple(s["starting_vp"]),
                          int(s["taken_before_clear"]))
    keys = ("rondel_spaces", "tiles_per_space", "seal_spaces", "passes", "grid_rows", "grid_cols",
            "banner_track_length", "penalty", "bread_per_card", "leftover_divisor")
    return Rules(**{k: int(raw[k]) for k in keys}, setups=setups)


#: Every component file; a guess in any of them makes the whole set provisional.
FILES: tuple[str, ...] = ("tiles.json", "boards.json", "frames.json", "villa_table.json", "scoring_cards.json",
                          "fountain_cards.json", "rules.json")


def _marked_provisional(name: str) -> bool:
    raw = _read(name)
    return isinstance(raw, dict) and bool(raw.get("provisional"))


def _parse(name: str, parser: Callable[[Any], T]) -> T:
    """Read ``name`` and parse it; a missing key or a value of the wrong type becomes a `DataError`."""
    try:
        return parser(_read(name))
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DataError(f"{name}: missing or malformed entry ({type(exc).__name__}: {exc})") from exc


def _villa_table(raw: Any) -> tuple[dict[int, int], int]:
    table = {int(k): int(v) for k, v in raw["chimneys_to_vp"].items()}
    _need(bool(table), "villa_table.json: chimneys_to_vp is empty")
    return table, int(raw.get("beyond_per_chimney", 2))


def _check_setups(rules: Rules, cards: dict[str, ScoringCard]) -> None:
    """Every player count can be set up and played through: the deal fills exactly the
    used card spaces, every scoring finds a free circle, and a pass ends when its tiles run out."""
    cells = rules.grid_rows * rules.grid_cols
    for n in range(2, 5):
        _need(n in rules.setups, f"rules.json: no setup for {n} players")
        s = rules.setups[n]
        _need(set(s.cards_per_letter) <= set("ABCD"), f"rules.json: {n} players: card letters are A, B, C, D")
        _need(len(set(s.empty_slots)) == len(s.empty_slots) and all(1 <= k <= cells for k in s.empty_slots),
              f"rules.json: {n} players: empty card spaces must be distinct numbers 1..{cells}")
        _need(sum(s.cards_per_letter.values()) == cells - len(s.empty_slots),
              f"rules.json: {n} players deal {sum(s.cards_per_letter.values())} cards"
              f" for {cells - len(s.empty_slots)} card spaces")
        for letter, k in s.cards_per_letter.items():
            have = sum(1 for c in cards.values() if c.letter == letter)
            _need(have >= k, f"{n} players deal {k} {letter} cards, the set has {have}")
        usable = sum(1 for a, b in grid_circles(rules.grid_rows, rules.grid_cols)
                     if a not in s.empty_slots and b not in s.empty_slots)
        _need(usable >= rules.passes * n,
              f"rules.json: {n} players need {rules.passes * n} usable circles, the grid has {usable}")
        _need(s.taken_before_clear == n,
              f"rules.json: {n} players: a pass is {rules.rondel_spaces} rounds, so a space must clear after"
              f" {n} tiles are taken (taken_before_clear is {s.taken_before_clear})")
        _need(n <= rules.tiles_per_space, f"rules.json: {n} players need {n} tiles per rondel space")


def grid_circles(rows: int, cols: int) -> list[tuple[int, int]]:
    """Every circle of the scoring grid: a pair of orthogonally neighbouring card spaces (1-based, row by row)."""
    out = []
    for r in range(rows):
        for c in range(cols):
            s = r * cols + c + 1
            if c + 1 < cols:
                out.append((s, s + 1))
            if r + 1 < rows:
                out.append((s, s + cols))
    return sorted(out)


@cache
def circle_pairs(rows: int, cols: int) -> tuple[tuple[int, int], ...]:
    """`grid_circles`, worked out once per grid size (the engine asks at every disc choice)."""
    return tuple(grid_circles(rows, cols))


@cache
def load() -> ComponentSet:
    """The component set (cached); raises `DataError` naming the first broken rule."""
    tiles = _parse("tiles.json", _tiles)
    table, beyond = _parse("villa_table.json", _villa_table)
    rules = _parse("rules.json", _rules)
    cards = _parse("scoring_cards.json", _cards)
    _check_setups(rules, cards)
    comp = ComponentSet(
        tiles=tiles,
        boards=_parse("boards.json", _boards),
        frames=_parse("frames.json", _frames),
        villa_table=table,
        villa_beyond=beyond,
        cards=cards,
        fountains=_parse("fountain_cards.json", _fountains),
        rules=rules,
        provisional=any(_marked_provisional(name) for name in FILES),
    )
    light, dark = comp.tiles_with_back("light"), comp.tiles_with_back("dark")
    per_phase = rules.rondel_spaces * rules.tiles_per_space
    _need(len(light) == (rules.passes - 1) * per_phase,
          f"tiles.json: {len(light)} light tiles, the rondel needs {(rules.passes - 1) * per_phase}")
    _need(len(dark) == per_phase + rules.seal_spaces,
          f"tiles.json: {len(dark)} dark tiles, needed {per_phase + rules.seal_spaces}")
    assert all(0 <= b.shovel < CELLS for b in comp.boards.values())
    assert len(HALF_NAMES) == 8
    return comp
