"""Integer actions: a stable, versioned table from each game's action strings to integers.

Learning code wants actions as small integers in a fixed range; Ludothek's engine speaks readable
strings (``build:cafe``, ``dice:3+4``). This module is the bridge, and it is built so that an index,
once given, keeps its meaning: a trained policy's output layer stays valid across Ludothek releases.

* **Generated, not hand-written.** `enumerate_actions(game_id)` lists every action string a game can
  ever offer, from its notation (``docs/games/<id>.md``) and its data files (card ids, stations,
  tiles), over every player count and option set. Player decisions and chance outcomes get separate
  index spaces (OpenSpiel's convention: chance outcomes are actions of the chance player).
* **Committed as data.** The numbering lives in ``ludothek/research/tables/<id>.json``; lookups read
  that file, never the generator, so a change to the rules cannot move an index by itself.
* **Append-only, versioned.** `update_table` (``python -m ludothek.research.actions --update``) keeps
  every committed string at its index, appends new ones at the end and then bumps ``table_version``
  and records the new length and checksum in ``history``. A string the rules no longer produce stays
  (reserved, never legal again). `tests/research/test_actions.py` fails when the generator finds a
  string the table lacks (run the update) or when a committed prefix no longer matches its checksum
  (someone renumbered the file).

One table per game covers every option set and player count, so ``build:cafe`` has the same
index in every variant; a state's legal actions are always a subset.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

TABLE_FORMAT = "ludothek-actions/1"
#: The games with a table (the registry's four games).
GAME_IDS = ("machikoro", "rolltheages", "snowdonia", "carpediem")


class UnknownAction(KeyError):
    """An action string that is not in the committed table (the table needs an update)."""


# ----- generators: every action string a game can offer -----------------------------------------


def _machikoro() -> tuple[list[str], list[str]]:
    from ludothek.games.machikoro import cards as C

    kinds = [e.id for e in C.ESTABLISHMENTS]
    tradable = [C.ESTABLISHMENTS[i].id for i in C.TRADABLE_KINDS]
    landmarks = [m.id for m in C.LANDMARKS]
    seats = range(1, 5)  # players are numbered 1..n in actions; at most 4 seats
    player = ["roll:1", "roll:2", "keep", "reroll"]
    player += [f"tv:{n}" for n in seats]
    player += [f"trade:{a}:{n}:{b}" for a in tradable for n in seats for b in tradable if a != b]
    player += ["notrade"]
    player += [f"build:{k}" for k in [*kinds, *landmarks]]
    player += ["pass"]
    chance = [f"dice:{d}" for d in range(1, 7)]
    chance += [f"dice:{a}+{b}" for a in range(1, 7) for b in range(a, 7)]
    chance += [f"draw:{k}" for k in kinds]
    return player, chance


def _face_multisets(faces: str, most: int) -> list[str]:
    """``F+S+W`` for every non-empty multiset of at most ``most`` dice, faces in canonical order."""
    out = []
    for size in range(1, most + 1):
        out += ["+".join(combo) for combo in itertools.combinations_with_replacement(faces, size)]
    return out


def _rolltheages() -> tuple[list[str], list[str]]:
    from ludothek.games.rolltheages import components as C
    from ludothek.games.rolltheages.notation import payment_text

    dice = C.MAX_CITIES  # one die per city
    goods = list(C.GOOD_IDS)
    player = ["done", "propose", "cancel", "accept", "decline"]
    player += ["roll:" + m for m in _face_multisets(C.FACE_IDS, dice)]
    player += [f"lead:{f}" for f in C.FACE_IDS]
    player += [f"food:{n}" for n in range(dice + 1)]
    player += [f"offer:{n}" for n in range(1, 5)]
    player += [f"give:{g}" for g in [*goods, "food"]]
    player += [f"ask:{g}" for g in [*goods, "food"]]
    player += [f"work:city:{n}" for n in range(1, max(C.CITY_COSTS) + 1)]
    player += [f"work:{m.id}:{n}" for m in C.MONUMENTS for n in range(1, m.workers + 1)]
    player += [f"engineer:{n}" for n in range(1, C.CAPACITY[C.STONE] + 1)]
    for dev in C.DEVELOPMENTS:
        player.append(f"buy:{dev.id}")
        for r in range(len(goods) + 1):
            for rows in itertools.combinations(goods, r):
                for food in range(C.FOOD_MAX + 1):
                    if rows or food:
                        player.append(f"buy:{dev.id}:{payment_text(rows, food)}")
    player += [f"discard:{g}" for g in goods]
    chance = [f"start:{n}" for n in range(1, 5)]
    chance += ["dice:" + m for m in _face_multisets(C.FACE_IDS, dice)]
    return player, chance


#: Snowdonia's stock yard: combinations up to this many cubes (3, +2 with contract #8, +1 with a train).
SNOWDONIA_MOST_CUBES = 7


def _snowdonia() -> tuple[list[str], list[str]]:
    from ludothek.games.snowdonia.blaenau import ENDS
    from ludothek.games.snowdonia.components import CUBES, MAPS, WEATHERS, scenario
    from ludothek.games.snowdonia.rules import BAG_ORDER

    scens = [scenario(m) for m in MAPS]
    contracts = sorted({n for s in scens for n in s.contracts})
    trains: dict[int, int] = {}
    for s in scens:
        for n, t in s.trains.items():
            trains[n] = max(trains.get(n, 0), t.cost_steel)
    spaces: list[str] = []
    for s in scens:
        for spec in s.areas:
            most = max((v for v in spec.spaces.values() if v), default=0)
            names = [spec.area] if spec.area == "G" else [f"{spec.area}{i}" for i in range(1, most + 1)]
            spaces += [n for n in names if n not in spaces]
    board_spaces = [s for s in spaces if s != "G"]
    player = ["pub:hire", "pub:no"]
    player += [f"place:{s}" for s in spaces]
    player += [f"play:{n}" for n in contracts] + ["pass"]
    combos = [(i, st, c) for c in range(SNOWDONIA_MOST_CUBES + 1) for st in range(SNOWDONIA_MOST_CUBES + 1)
              for i in range(SNOWDONIA_MOST_CUBES + 1) if 0 < i + st + c <= SNOWDONIA_MOST_CUBES]
    player += ["take:nothing"]
    player += ["take:" + "+".join([CUBES[0]] * i + [CUBES[1]] * st + [CUBES[2]] * c) for i, st, c in combos]
    works = ["nothing", "smash+stone"]
    for steel in range(4):
        for net in range(-(3 - steel), 3 - steel + 1):
            if steel == 0 and net == 0:
                continue
            word = "stone" if net > 0 else "smash"
            works.append("+".join(["steel"] * steel + [word] * abs(net)))
    player += ["work:" + w for w in dict.fromkeys(works)]
    builds: list[str] = []
    for s in scens:
        for st in s.stations:
            for j, site in enumerate(st.build_sites):
                name = f"build:{st.key}.{j + 1}"
                builds.append(name)
                builds += [name + "+rubble" * r for r in (1, 2)]
                builds += [name + "+iron" * r for r in range(1, site.steel + 1)]
    player += list(dict.fromkeys(builds))
    for n, cost in sorted(trains.items()):
        player += [f"train:{n}" + "+iron" * j for j in range(cost + 1)]
    player += [f"contract:{n}" for n in contracts]
    player += [f"keep:{n}" for n in contracts]
    player += [f"swap:{w}" for w in WEATHERS]
    player += [f"convert:{k}" for k in range(4)]
    player += [f"move:{a}>{b}" for a in spaces for b in board_spaces if a != b]
    player += [f"move:{a}>G" for a in board_spaces]
    maint = sorted({n for s in scens for n, c in s.contracts.items() if c.effect == "maintenance"})
    player += ["maint:steel", *(f"maint:{n}" for n in maint), "maint:lose"]
    player += [f"end:{e}" for e in ENDS] + [f"outside:{e}" for e in ENDS]
    tracks = sorted({n for s in scens for n in s.track_numbers})
    canals = sorted({c.name for s in scens if s.daffodil for c in s.daffodil.canal_cards}, key=int)
    chance = [f"track:{n}" for n in tracks] + [f"canal:{c}" for c in canals]
    chance += [f"aside:{n}" for n in sorted(trains)]
    chance += [f"draw:{n}" for n in contracts]
    chance += [f"forecast:{w}" for w in WEATHERS]
    chance += [f"bag:{b}" for b in BAG_ORDER]
    return player, chance


#: Carpe Diem bounds the rules leave open in the notation: fountain cards looked at / kept, and how
#: often a red card may be handed in (``card:<slot>:fulfil:<n>``).
CARPEDIEM_MOST_RETURN = 12
CARPEDIEM_MOST_TIMES = 12


def _carpediem() -> tuple[list[str], list[str]]:
    from ludothek.games.carpediem.components import load
    from ludothek.games.carpediem.rules import BUILD_ACTIONS, CARD_MODES, circle_table

    comp = load()
    rules = comp.rules
    tiles = sorted(comp.tiles)
    slots = range(1, rules.grid_rows * rules.grid_cols + 1)
    spaces = range(1, rules.rondel_spaces + 1)
    player = [f"place:{s}" for s in spaces]
    player += [f"move:{s}" for s in spaces] + [f"move:{s}:bread" for s in spaces]
    player += [f"take:{t}" for t in tiles]
    player += list(BUILD_ACTIONS.values())
    player += ["store", "keep"]
    player += [f"return:new{i}" for i in range(1, CARPEDIEM_MOST_RETURN + 1)]
    player += [f"return:old{i}" for i in range(1, CARPEDIEM_MOST_RETURN + 1)]
    player += [f"seal:{t}" for t in tiles]
    player += [row[3] for row in circle_table(rules.grid_rows, rules.grid_cols)]
    for slot in slots:
        for mode in CARD_MODES:
            player.append(f"card:{slot}:{mode}")
            if mode in ("fulfil", "both"):
                player += [f"card:{slot}:{mode}:{n}" for n in range(1, CARPEDIEM_MOST_TIMES + 1)]
    chance = [f"start:{s}" for s in range(4)]
    chance += [f"board:{b}" for b in comp.boards] + [f"frame:{f}" for f in comp.frames]
    chance += [f"card:{c}" for c in comp.cards] + [f"tile:{t}" for t in tiles]
    chance += [f"fountain:{k}" for k in comp.fountains]
    return player, chance


_GENERATORS = {"machikoro": _machikoro, "rolltheages": _rolltheages, "snowdonia": _snowdonia,
               "carpediem": _carpediem}


def enumerate_actions(game_id: str) -> tuple[list[str], list[str]]:
    """(player actions, chance outcomes): every string the game can offer, without duplicates."""
    player, chance = _GENERATORS[game_id]()
    return list(dict.fromkeys(player)), list(dict.fromkeys(chance))


# ----- the committed tables ----------------------------------------------------------------------


def _checksum(strings: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(strings).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ActionTable:
    """One game's committed numbering: ``actions[i]`` is player action ``i``, ``chance[j]`` chance outcome ``j``."""

    game: str
    version: int
    actions: tuple[str, ...]
    chance: tuple[str, ...]
    history: tuple[dict[str, Any], ...]
    _action_index: dict[str, int] = field(init=False, repr=False, compare=False)
    _chance_index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_action_index", {a: i for i, a in enumerate(self.actions)})
        object.__setattr__(self, "_chance_index", {a: i for i, a in enumerate(self.chance)})

    @property
    def num_actions(self) -> int:
        return len(self.actions)

    @property
    def num_chance(self) -> int:
        return len(self.chance)

    def action_id(self, action: str) -> int:
        try:
            return self._action_index[action]
        except KeyError:
            raise UnknownAction(f"{self.game}: action {action!r} is not in the table (version {self.version})") from None

    def chance_id(self, outcome: str) -> int:
        try:
            return self._chance_index[outcome]
        except KeyError:
            raise UnknownAction(f"{self.game}: chance outcome {outcome!r} is not in the table") from None

    def to_json(self) -> dict[str, Any]:
        return {"format": TABLE_FORMAT, "game": self.game, "table_version": self.version,
                "history": list(self.history), "actions": list(self.actions), "chance": list(self.chance)}


def table_path(game_id: str) -> Path:
    """The committed file (in the source tree; `load_table` reads it as package data)."""
    return Path(__file__).parent / "tables" / f"{game_id}.json"


@cache
def load_table(game_id: str) -> ActionTable:
    """The committed table of ``game_id`` (cached)."""
    text = resources.files(__package__).joinpath("tables", f"{game_id}.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    if raw.get("format") != TABLE_FORMAT or raw.get("game") != game_id:
        raise ValueError(f"{game_id}: not a {TABLE_FORMAT} table")
    return ActionTable(game_id, int(raw["table_version"]), tuple(raw["actions"]), tuple(raw["chance"]),
                       tuple(raw["history"]))


def history_problems(table: ActionTable) -> list[str]:
    """Each recorded version's prefix must still have its checksum: indices are never reused."""
    out = []
    for entry in table.history:
        n_a, n_c = entry["actions"], entry["chance"]
        if _checksum(table.actions[:n_a]) != entry["actions_sha"] or _checksum(table.chance[:n_c]) != entry["chance_sha"]:
            out.append(f"{table.game}: the first {n_a} actions / {n_c} chance outcomes of version "
                       f"{entry['version']} were renumbered")
    if table.history and table.history[-1]["version"] != table.version:
        out.append(f"{table.game}: table_version {table.version} has no history entry")
    return out


def merged(old: ActionTable | None, game_id: str) -> ActionTable:
    """The table after appending what the generator finds new; the version goes up only on change."""
    player, chance = enumerate_actions(game_id)
    history: tuple[dict[str, Any], ...] = ()
    if old is None:
        actions, outcomes, version = tuple(player), tuple(chance), 1
    else:
        known_a, known_c = set(old.actions), set(old.chance)
        actions = old.actions + tuple(a for a in player if a not in known_a)
        outcomes = old.chance + tuple(c for c in chance if c not in known_c)
        if (actions, outcomes) == (old.actions, old.chance):
            return old
        version, history = old.version + 1, old.history
    entry = {"version": version, "actions": len(actions), "chance": len(outcomes),
             "actions_sha": _checksum(actions), "chance_sha": _checksum(outcomes)}
    return ActionTable(game_id, version, actions, outcomes, (*history, entry))


def update_table(game_id: str) -> ActionTable:
    """Write the merged table of ``game_id`` to the source tree (append-only) and return it."""
    path = table_path(game_id)
    old = load_table(game_id) if path.exists() else None
    new = merged(old, game_id)
    if new is not old:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(new.to_json(), indent=0) + "\n", encoding="utf-8")
        load_table.cache_clear()
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or update the committed integer action tables.")
    parser.add_argument("--update", action="store_true", help="append new action strings (bumps the version)")
    args = parser.parse_args(argv)
    status = 0
    for gid in GAME_IDS:
        if args.update:
            t = update_table(gid)
            print(f"{gid}: version {t.version}, {t.num_actions} actions, {t.num_chance} chance outcomes")
            continue
        table = load_table(gid)
        player, chance = enumerate_actions(gid)
        known_a, known_c = set(table.actions), set(table.chance)
        missing = [a for a in player if a not in known_a] + [c for c in chance if c not in known_c]
        problems = history_problems(table) + ([f"{gid}: {len(missing)} new strings, run --update"] if missing else [])
        for p in problems:
            print(p)
        status |= bool(problems)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
