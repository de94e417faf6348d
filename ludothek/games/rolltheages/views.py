"""The JSON view: everything the Yucata table shows, for any seat (nothing is hidden).

Goods rows with their values, the food track, cities fed or unfed, the
monuments with their first completer, developments, disaster points, the dice
with their lock state, the turn's workers and coins, and the trade offer.
Seat numbers in the view are 0-based, like the engine's seats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine import CHANCE, TERMINAL, score_part

from .components import (
    CAPACITY,
    CHOICE_FACE,
    DEVELOPMENTS,
    FACE_BY_ID,
    FOOD_MAX,
    GOODS,
    GOODS_LIMIT,
    MAX_ROLLS,
    MONUMENT_BY_ID,
    SKULL_FACE,
)
from .notation import TRADE_ITEMS

if TYPE_CHECKING:
    from .board import Board
    from .rules import RollState

#: Phases before the automatic collection, when a city's fed state is still a forecast.
_BEFORE_COLLECTING = ("roll", "reroll", "leader", "choose")


def build_view(state: RollState, seat: int | None) -> dict[str, Any]:
    to_move = state.current_player()
    return {
        "game": "rolltheages",
        "viewer": seat,
        "players": state.num_players,
        "options": dict(state.options),
        "round": state.round,
        "max_rounds": state.max_rounds(),
        "start_player": state.start_player if state.phase != "start" else None,
        "active": state.active if state.phase != "start" else None,
        "to_move": None if to_move in (CHANCE, TERMINAL) else to_move,
        "phase": state.phase,
        "legal_actions": state.legal_actions() if seat is not None and seat == to_move else [],
        "turn": _turn(state),
        "boards": [_board(state, s) for s in range(state.num_players)],
        "monuments": [_monument(state, m) for m in state.monuments],
        "developments": [
            {"id": d.id, "name": dict(d.name), "cost": d.cost, "points": d.points, "effect": dict(d.effect)}
            for d in DEVELOPMENTS
        ],
        "trade": _trade(state),
        "end_reasons": list(state.end_reasons),
        "game_over": state.phase == "over",
        "scores": [b.score() for b in state.boards],
        "ranks": [r.rank for r in sorted(state.result(), key=lambda r: r.seat)] if state.phase == "over" else None,
        "breakdown": breakdown(state) if state.phase == "over" else None,
    }


_PART_LABELS = {
    "monuments": ("Monumente", "monuments"),
    "developments": ("Errungenschaften", "developments"),
    "architecture": ("Bonus Architektur", "Architecture bonus"),
    "empire": ("Bonus Imperium", "Empire bonus"),
    "disasters": ("Katastrophen", "disasters"),
}


def breakdown(state: RollState) -> list[dict[str, Any]]:
    """Each seat's final score in its parts (the parts add up to the score)."""
    out = []
    for r in state.result():
        parts = state.boards[r.seat].score_parts()
        out.append({
            "seat": r.seat, "rank": r.rank, "total": r.score,
            "parts": [score_part(k, *_PART_LABELS[k], v) for k, v in parts.items()],
        })
    return out


def _turn(state: RollState) -> dict[str, Any]:
    # Leadership may take any die, a skull included (ruling 4): nothing is locked in that phase.
    locked = state.skulls_locked() and state.phase != "leader"
    return {
        "dice": [{"face": f, "locked": locked and f == SKULL_FACE} for f in state.dice],
        "rolling": state.to_roll if state.phase == "roll" else 0,
        "set_aside": list(state.kept),
        "last_rolled": list(state.last_rolled),
        "rolls_done": state.rolls,
        "rolls_left": max(0, MAX_ROLLS - state.rolls) if state.phase in ("roll", "reroll") else 0,
        "leadership_used": state.leader_used,
        "two_way_dice": state.dice.count(CHOICE_FACE),
        "two_way_as_food": state.food_dice if state.food_dice >= 0 else None,
        "workers": state.workers,
        "coins": state.coins,
        "events": [dict(e) for e in state.events],
    }


def forecast_food(state: RollState, seat: int) -> int:
    """Food the active player will have before feeding (Yucata colours the cities from it)."""
    board = state.boards[seat]
    if seat != state.active or state.phase not in _BEFORE_COLLECTING:
        return board.food
    agri = board.param("agriculture", "bonus")
    food = 0
    for f in state.dice:
        face = FACE_BY_ID[f]
        if face.food:
            food += face.food + agri
    two_way = state.dice.count(CHOICE_FACE)
    as_food = two_way if state.food_dice < 0 else state.food_dice
    food += as_food * (FACE_BY_ID[CHOICE_FACE].choice + agri)
    return min(FOOD_MAX, board.food + food)


def _board(state: RollState, seat: int) -> dict[str, Any]:
    board: Board = state.boards[seat]
    fed_event = next(
        (e for e in state.events if e["type"] == "feed" and e["seat"] == seat and seat == state.active), None
    )
    fed = fed_event["fed"] if fed_event is not None else min(board.cities, forecast_food(state, seat))
    return {
        "seat": seat,
        "cities": board.cities,
        "cities_fed": fed,
        "cities_unfed": board.cities - fed,
        "next_city": (
            None
            if board.next_city_cost() is None
            else {"number": board.cities + 1, "workers": board.next_city_cost(), "marked": board.city_work}
        ),
        "food": board.food,
        "food_max": FOOD_MAX,
        "goods": [
            {
                "id": g.id,
                "name": dict(g.name),
                "count": board.goods[i],
                "capacity": CAPACITY[i],
                "value": g.values[board.goods[i]],
                "values": list(g.values[1:]),
            }
            for i, g in enumerate(GOODS)
        ],
        "goods_total": board.goods_total(),
        "goods_limit": None if board.has("caravans") else GOODS_LIMIT,
        "goods_value": board.goods_value(),
        "monuments": {
            m: {
                "marked": board.monument_work[m],
                "workers": MONUMENT_BY_ID[m].workers,
                "points": board.monument_points.get(m),
            }
            for m in state.monuments
        },
        "developments": list(board.developments),
        "disasters": board.disasters,
        "score": board.score(),
    }


def _monument(state: RollState, monument_id: str) -> dict[str, Any]:
    m = MONUMENT_BY_ID[monument_id]
    return {
        "id": m.id,
        "name": dict(m.name),
        "workers": m.workers,
        "first_points": m.first,
        "later_points": m.later,
        "first_completer": state.first.get(m.id),
        "completed_by": [s for s, b in enumerate(state.boards) if m.id in b.monument_points],
    }


def _trade(state: RollState) -> dict[str, Any] | None:
    if not state.trading:
        return None

    def items(counts: list[int]) -> dict[str, int]:
        return {item: n for item, n in zip(TRADE_ITEMS, counts, strict=True) if n}

    offer = state.offer
    return {
        "offer": None
        if offer is None
        else {
            "from": state.active,
            "to": offer["to"],
            "give": items(offer["give"]),
            "ask": items(offer["ask"]),
            "status": "proposed" if state.phase == "answer" else "draft",
        },
        "this_turn": [
            {"from": state.active, "to": t["to"], "give": items(t["give"]), "ask": items(t["ask"]), "accepted": t["accepted"]}
            for t in state.trades
        ],
    }
