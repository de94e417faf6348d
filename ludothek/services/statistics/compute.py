"""The statistics' arithmetic: from records to figures with counts, intervals, raw and strength-adjusted.

What counts as *bought* (`purchases`), per game, read from a seat's actions still in force (an action a
player took back is no purchase):

- Machi Koro: ``build:ID``: establishments and landmarks.
- Roll Through the Ages: ``buy:DEV``: developments; ``work:MONUMENT:N``: a monument worked on.
- Snowdonia: ``train:N``: trains; ``contract:N``: contracts taken from the site office.
- Carpe Diem: ``take:TILE``: building tiles taken (the kind is the tile's id).

The *opening* is a seat's first purchase.  A seat *wins* when its rank is 1 (ties: every seat ranked 1).

Strength adjustment: a logistic model of winning on the seat's strength alone (its rating minus the
mean rating of its opponents; ratings are openskill's mu, docs/community.md) is fitted on every seat of
the group.  A figure's adjusted rate is its raw rate minus the mean win chance that model gives its seats,
plus the group's overall win rate: how much better its seats did than their strength predicts.  Its 95 %
interval uses the normal approximation with the model's variance (the sum of p(1-p)).  Groups with bots
have no ratings for the bot seats: their figures are raw only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ludothek.engine import UNDO
from ludothek.engine.records import taken_back

Z95 = 1.959963984540054
#: Every action that may be a purchase begins with one of these (`_item` decides, per game).
PURCHASE_PREFIXES = ("build:", "buy:", "work:", "train:", "contract:", "take:")


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The Wilson score interval (95 %) of ``wins`` out of ``n``; (0, 1) for no games."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _item(kind: str, action: str) -> str | None:
    parts = action.split(":")
    head = parts[0]
    if kind == "machikoro" and head == "build" and len(parts) >= 2:
        return parts[1]
    if kind == "rolltheages":
        if head == "buy" and len(parts) >= 2:
            return parts[1]
        if head == "work" and len(parts) >= 3 and parts[1] != "city":
            return "monument:" + parts[1]
    if kind == "snowdonia" and head in ("train", "contract") and len(parts) >= 2:
        return f"{head}:{parts[1].split('+')[0]}"
    if kind == "carpediem" and head == "take" and len(parts) >= 2:
        return parts[1]
    return None


def purchases(kind: str, actions: Sequence[Mapping[str, Any]], seats: int) -> list[list[str]]:
    """Each seat's purchases in order (taken-back actions left out)."""
    undone = taken_back(actions)
    out: list[list[str]] = [[] for _ in range(seats)]
    for index, entry in enumerate(actions):
        seat, action = entry.get("seat"), entry.get("action")
        if index in undone or action == UNDO or not isinstance(seat, int) or not isinstance(action, str):
            continue
        if 0 <= seat < seats and (item := _item(kind, action)) is not None:
            out[seat].append(item)
    return out


def sparse_purchases(kind: str, entries: Sequence[tuple[int, int, str]], seats: int) -> list[list[str]]:
    """`purchases` from only a game's purchase and undo entries ``(seq, seat, action)`` in move order (a
    chance entry has a negative seat), the entries not read being plain actions at the missing move numbers.

    The same as filling the gaps and calling `purchases`, in time linear in the entries read rather than in
    the game's length: the nightly rebuild reads 100,000 games this way (issue 32, at most 60 s).  The stack
    of entries in force holds a read entry's index (>= 0) or a run of ``k`` unread plain actions (``-k``): an
    undo takes back the last of them, which in a run is just one fewer plain action.
    """
    undone: set[int] = set()
    if any(action == UNDO and seat >= 0 for _, seat, action in entries):
        stack: list[int] = []
        last = -1
        for index, (seq, seat, action) in enumerate(entries):
            if seq - last > 1:
                if stack and stack[-1] < 0:
                    stack[-1] -= seq - last - 1
                else:
                    stack.append(-(seq - last - 1))
            last = seq
            if action == UNDO and seat >= 0:
                if stack:
                    if stack[-1] >= 0:
                        undone.add(stack.pop())
                    elif stack[-1] == -1:
                        stack.pop()
                    else:
                        stack[-1] += 1
            else:
                stack.append(index)
    out: list[list[str]] = [[] for _ in range(seats)]
    for index, (_, seat, action) in enumerate(entries):
        if 0 <= seat < seats and index not in undone and action != UNDO and (item := _item(kind, action)) is not None:
            out[seat].append(item)
    return out


@dataclass(frozen=True)
class SeatFacts:
    seat: int
    won: bool
    person: bool
    #: The seat's strength: its rating minus its opponents' mean (None where a rating is missing).
    strength: float | None
    bought: frozenset[str]
    opening: str | None


@dataclass(frozen=True)
class GameFacts:
    """One finished game, as the statistics need it; ``group`` keeps bot games apart."""

    kind: str
    options: str
    group: str  # "people" or "bots"
    seats: tuple[SeatFacts, ...]


def facts_of(record: Mapping[str, Any], ratings: Sequence[float | None] | None = None,
             bought: list[list[str]] | None = None) -> GameFacts:
    """The facts of one record (``meta.bots`` says which seats bots played; ``ratings`` per seat, if known;
    ``bought``: each seat's purchases where the caller read them already, else from ``actions``)."""
    kind = str(record["game"])
    n = int(record["players"])
    meta = record.get("meta") or {}
    bots = set(meta.get("bots") or [])
    ranks = {int(r["seat"]): int(r["rank"]) for r in record.get("result") or []}
    if bought is None:
        bought = purchases(kind, record.get("actions") or [], n)
    rated = list(ratings) if ratings is not None else [None] * n
    seats = []
    for s in range(n):
        own = rated[s]
        others = [r for i, r in enumerate(rated) if i != s and r is not None]
        strength = own - sum(others) / len(others) if own is not None and others and len(others) == n - 1 else None
        seats.append(SeatFacts(s, ranks.get(s) == 1, s not in bots, strength, frozenset(bought[s]),
                               bought[s][0] if bought[s] else None))
    return GameFacts(kind, json.dumps(record.get("options") or {}, sort_keys=True), "bots" if bots else "people",
                     tuple(seats))


@dataclass
class Figure:
    """One row of a statistics table."""

    kind: str
    options: str
    group: str
    #: ``seat`` (value: the seat number, 1 = first), ``bought`` or ``opening`` (value: the item).
    feature: str
    value: str
    games: int
    wins: int
    rate: float
    low: float
    high: float
    #: The strength-adjusted rate and its interval (None: no ratings for this group).
    adjusted: float | None = None
    adjusted_low: float | None = None
    adjusted_high: float | None = None
    expected: list[float] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "expected"}


def _fit(points: Sequence[tuple[float, bool]], rounds: int = 25) -> tuple[float, float]:
    """Logistic regression ``P(win) = 1 / (1 + exp(-(a + b x)))`` by Newton's method (two parameters)."""
    a = b = 0.0
    for _ in range(rounds):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in points:
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, a + b * x))))
            w = p * (1 - p)
            ga += (1.0 if y else 0.0) - p
            gb += ((1.0 if y else 0.0) - p) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


def figures(games: Iterable[GameFacts]) -> list[Figure]:
    """Every figure of every (game, options, group), sorted by group, feature and value."""
    groups: dict[tuple[str, str, str], list[GameFacts]] = {}
    for g in games:
        groups.setdefault((g.kind, g.options, g.group), []).append(g)
    out: list[Figure] = []
    for (kind, options, group), members in sorted(groups.items()):
        seats = [s for g in members for s in g.seats if s.person or group == "bots"]
        rated = [s for s in seats if s.strength is not None]
        model = _fit([(s.strength or 0.0, s.won) for s in rated]) if group == "people" and len(rated) >= 10 \
            else None
        base = sum(s.won for s in seats) / len(seats) if seats else 0.0
        # Each seat's win chance by its strength alone, once (a seat is in many buckets).
        chance: dict[int, float] = {}
        if model is not None:
            a, b = model
            chance = {id(s): 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, a + b * (s.strength or 0.0)))))
                      for s in rated}
        buckets: dict[tuple[str, str], list[SeatFacts]] = {}
        for s in seats:
            buckets.setdefault(("seat", str(s.seat + 1)), []).append(s)
            for item in s.bought:
                buckets.setdefault(("bought", item), []).append(s)
            if s.opening is not None:
                buckets.setdefault(("opening", s.opening), []).append(s)
        for (feature, value), having in sorted(buckets.items()):
            wins = sum(s.won for s in having)
            low, high = wilson(wins, len(having))
            fig = Figure(kind, options, group, feature, value, len(having), wins, wins / len(having), low, high)
            if model is not None and all(s.strength is not None for s in having):
                chances = [chance[id(s)] for s in having]
                # A rate: kept within 0 to 1 (a small group of weak players who never won would go below 0).
                adjusted = min(1.0, max(0.0, fig.rate - sum(chances) / len(chances) + base))
                se = math.sqrt(sum(p * (1 - p) for p in chances)) / len(having)
                fig.adjusted = adjusted
                fig.adjusted_low = max(0.0, adjusted - Z95 * se)
                fig.adjusted_high = min(1.0, adjusted + Z95 * se)
            out.append(fig)
    return out
