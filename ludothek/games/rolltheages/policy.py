"""A scripted Roll Through the Ages player: the fast policy behind `easy`, `medium`'s hint and `hard`'s rollouts.

It plays the way experienced players describe the game: keep the dice that
meet this turn's needs (food for the cities first, then workers while there is
something to build, coins when they complete a purchase), re-roll the rest
unless more skulls would cost more than the re-roll gains; feed the cities
with the two-way dice and put the rest to work; build cities up to five early,
then monuments one can finish first (largest points per worker); buy the
development worth most per slot (only five fit before the game ends) and pay
with the least valuable goods; discard the cheapest goods.

Everything here reads only the public table (Roll Through the Ages hides
nothing) and is cheap: the dice are judged by a small utility of the final
dice, cached per situation, never by looking ahead through chance.
"""

from __future__ import annotations

import random
from functools import lru_cache

from ludothek.engine import State

from .board import Board
from .components import (
    CAPACITY,
    CHOICE_FACE,
    CITY_COSTS,
    DEVELOPMENT_BY_ID,
    END_DEVELOPMENTS,
    FACE_BY_ID,
    FACE_IDS,
    GOOD_INDEX,
    GOODS,
    GREAT_WALL,
    MONUMENT_BY_ID,
    SOLO_ROUNDS,
    START_CITIES,
)
from .notation import CITY, FOOD, faces_text, sort_faces
from .rules import BUILD, BUY, CHOOSE, DISCARD, LEADER, REROLL, RollState

#: Points a worker is worth while something is left to build (a monument's first points per worker are
#: 0.4–0.8; a city is a die for the rest of the game).
WORKER = 0.55
#: Points a unit of goods is worth when stored (its coins towards a development, about 0.2 points a coin).
GOOD = 0.45
#: Points a coin is worth when this turn's money reaches a development (coins are lost at the turn's end).
COIN = 0.16
#: Points lost per famine (each unfed city is a point).
FAMINE = 1.0
#: Points a stored food beyond this turn's needs is worth (next turns' feeding), up to one more turn's need.
SPARE_FOOD = 0.6
#: The lead over every other seat needed to end the game with a fifth development.
LEAD_TO_END = 2
#: From this round on a leading seat ends the game when it can, even if nobody else is close.
LAST_ROUND = 99
#: The least value (points plus effect) of the first, second, third and fourth development bought.
THRESHOLDS = (2.5, 3.0, 4.0, 5.0)
#: How much better (in points) a fresh die must be expected to do before a die is rolled again.
REROLL_MARGIN = 0.05
#: Points per coin paid beyond a development's cost (no change is given) and per coin of goods spent.
OVERPAY = 0.03
SPEND = 0.02
#: Food to keep in store after feeding, per city, when the two-way dice can give it (a bad roll next
#: turn then costs no famine).
FOOD_BUFFER = 0.5
#: Cities to reach before monuments come first.
EARLY_CITIES = 5


def _rounds_left(state: RollState) -> float:
    """A rough guess of the rounds still to play, for the value of lasting effects."""
    boards = state.boards
    if state.solo:
        return float(max(1, SOLO_ROUNDS - state.round + 1))
    most = max(len(b.developments) for b in boards)
    return max(1.0, 2.5 * (END_DEVELOPMENTS - most))


def development_value(dev_id: str, board: Board, rounds_left: float) -> float:
    """What buying ``dev_id`` is worth to ``board``'s owner, in points: its points plus its effect."""
    dev = DEVELOPMENT_BY_ID[dev_id]
    lasting = min(1.0, rounds_left / 6.0)
    value = float(dev.points)
    if dev_id == "architecture":
        value += len(board.monument_points) + 0.5 * lasting
    elif dev_id == "empire":
        value += board.cities + 0.5 * lasting
    else:
        value += lasting * _EFFECT.get(dev_id, 0.0)
    return value


#: The worth of a development's effect over a long game, in points.
_EFFECT = {
    "leadership": 1.5, "irrigation": 1.0, "agriculture": 2.5, "quarrying": 0.5, "medicine": 1.0,
    "coinage": 2.5, "caravans": 1.0, "religion": 1.0, "granaries": 1.5, "masonry": 2.5, "engineering": 1.5,
}


def _build_capacity(state: RollState, board: Board) -> int:
    """Workers the board can still use: the cities left and every unfinished monument."""
    left = 0
    cost = board.next_city_cost()
    if cost is not None:
        left += cost - board.city_work
        left += sum(CITY_COSTS[board.cities - START_CITIES + 1:])
    for m in state.monuments:
        left += board.monument_remaining(m)
    return left


def _disaster_costs(state: RollState, board: Board) -> tuple[float, ...]:
    """Points lost by the roller for 0..7 skulls (a pestilence that hits the others counts as a gain)."""
    solo = state.solo
    costs = [0.0, 0.0]
    costs.append(0.0 if board.has("irrigation") else 2.0)
    if solo:
        costs.append(0.0 if board.has("medicine") else 3.0)
    else:
        costs.append(-1.5)
    costs.append(0.0 if GREAT_WALL in board.monument_points else 4.0)
    revolt = 0.0 if board.has("religion") else GOOD * board.goods_total() + 0.5
    costs.extend([revolt] * 3)
    return tuple(costs)


def _context(state: RollState, board: Board) -> tuple[object, ...]:
    """Everything `_utility` needs about the situation, as a hashable key."""
    capacity = _build_capacity(state, board)
    money_goods = board.goods_value()
    owned = tuple(board.developments)
    rounds_left = _rounds_left(state)
    best_by_cost = _best_purchases(owned, board, rounds_left)
    return (
        board.food, board.cities, board.param("agriculture", "bonus"), board.param("masonry", "bonus"),
        board.param("coinage", "coin_value", 7), money_goods, capacity, best_by_cost,
        _disaster_costs(state, board), sum(board.goods) >= sum(CAPACITY),
    )


def _best_purchases(owned: tuple[str, ...], board: Board, rounds_left: float) -> tuple[tuple[int, float], ...]:
    """``(cost, value)`` of the developments not owned, the best value first among equal costs."""
    return tuple(sorted((d.cost, development_value(d.id, board, rounds_left))
                        for d in DEVELOPMENT_BY_ID.values() if d.id not in owned))


@lru_cache(maxsize=65536)
def _utility(dice: tuple[str, ...], ctx: tuple[object, ...]) -> float:
    """How much a final set of dice is worth this turn, in points (the two-way dice split at best)."""
    food, cities, agri, mason, coin_value, money_goods, capacity, devs, dcost, goods_full = ctx
    assert isinstance(food, int) and isinstance(cities, int) and isinstance(capacity, int)
    assert isinstance(agri, int) and isinstance(mason, int) and isinstance(coin_value, int)
    assert isinstance(money_goods, int) and isinstance(devs, tuple) and isinstance(dcost, tuple)
    skulls = goods = coins = food_faces = worker_faces = choice = 0
    for f in dice:
        if f == "G":
            goods += 1
        elif f == "S":
            goods += 2
            skulls += 1
        elif f == "F":
            food_faces += 1
        elif f == "W":
            worker_faces += 1
        elif f == "C":
            coins += coin_value
        else:
            choice += 1
    value = -dcost[min(skulls, len(dcost) - 1)]
    value += 0.0 if goods_full else GOOD * goods
    if coins:
        money = coins + money_goods + goods * 3
        best = 0.0
        for cost, worth in devs:
            if cost <= money:
                spent_goods = max(0, cost - coins)
                best = max(best, worth - COIN * 0.6 * spent_goods)
        value += max(best * 0.5, COIN * min(coins, money))
    best_split = -1e9
    for as_food in range(choice + 1):
        got = food_faces * (3 + agri) + as_food * (2 + agri)
        workers = worker_faces * (3 + mason) + (choice - as_food) * (2 + mason)
        total = min(15, food + got)
        split = -FAMINE * max(0, cities - total) + SPARE_FOOD * min(max(0, total - cities), cities)
        split += WORKER * min(workers, capacity)
        best_split = max(best_split, split)
    return value + best_split


@lru_cache(maxsize=65536)
def _fresh_value(rest: tuple[str, ...], ctx: tuple[object, ...]) -> float:
    """The expected utility of ``rest`` plus one freshly rolled die."""
    return sum(_utility(tuple(sorted((*rest, f))), ctx) for f in FACE_IDS) / len(FACE_IDS)


def _reroll_choice(dice: list[str], rerollable: tuple[str, ...], ctx: tuple[object, ...]) -> list[str]:
    """The dice to roll again (see `_reroll_faces`)."""
    return list(_reroll_faces(tuple(sorted(dice)), tuple(sorted(rerollable)), ctx))


@lru_cache(maxsize=65536)
def _reroll_faces(dice: tuple[str, ...], rerollable: tuple[str, ...], ctx: tuple[object, ...]) -> tuple[str, ...]:
    """The dice to roll again, chosen one at a time while a fresh die is expected to beat the worst kept one.

    Each die chosen for the re-roll is left out when the next is judged, so
    that three food dice are not all thrown away because any one of them is
    spare.
    """
    kept = dice
    pool = list(rerollable)
    chosen: list[str] = []
    while pool:
        now = _utility(kept, ctx)
        best: tuple[float, str] | None = None
        for f in sorted(set(pool)):
            rest = list(kept)
            rest.remove(f)
            gain = _fresh_value(tuple(rest), ctx) - now
            if gain > REROLL_MARGIN and (best is None or gain > best[0]):
                best = (gain, f)
        if best is None:
            break
        f = best[1]
        pool.remove(f)
        chosen.append(f)
        rest = list(kept)
        rest.remove(f)
        kept = tuple(rest)
    return tuple(chosen)


def _roll_action(faces: list[str], legal: list[str], prefix: str) -> str | None:
    action = prefix + faces_text(sort_faces(faces))
    return action if action in legal else None


def policy(state: State, rng: random.Random) -> str:
    """A quick, sensible action for the seat to move (see the module docstring)."""
    assert isinstance(state, RollState)
    legal = state.legal_actions()
    if len(legal) == 1:
        return str(legal[0])
    phase = state.phase
    seat = state.current_player()
    board: Board = state.boards[seat]
    if phase == REROLL:
        ctx = _context(state, board)
        faces = _reroll_choice(state.dice, state.rerollable(), ctx)
        if faces:
            action = _roll_action(faces, legal, "roll:")
            if action is not None:
                return action
        return "done"
    if phase == LEADER:
        ctx = _context(state, board)
        faces = _reroll_choice(state.dice, tuple(state.dice), ctx)
        if faces:
            action = "lead:" + faces[0]
            if action in legal:
                return action
        return "done"
    if phase == CHOOSE:
        return _choose_food(state, board, legal)
    if phase == BUILD:
        return _build(state, board, legal, seat)
    if phase == BUY:
        return _buy(state, board, legal, seat)
    if phase == DISCARD:
        return _discard(board, legal)
    # trading (trade=on): keep to one's own empire
    for quiet in ("done", "decline", "cancel"):
        if quiet in legal:
            return quiet
    return rng.choice(legal)


def _choose_food(state: RollState, board: Board, legal: list[str]) -> str:
    dice: list[str] = state.dice
    agri = board.param("agriculture", "bonus")
    food = board.food + sum(FACE_BY_ID[f].food + (agri if FACE_BY_ID[f].food else 0) for f in dice)
    short = board.cities - food
    choice = dice.count(CHOICE_FACE)
    if _build_capacity(state, board) == 0:
        n = choice
    else:
        per = 2 + agri
        n = max(0, -(-(short + int(FOOD_BUFFER * board.cities)) // per))  # feed the cities; the rest builds
    n = min(n, choice)
    return f"food:{n}"


def _build(state: RollState, board: Board, legal: list[str], seat: int) -> str:
    workers: int = state.workers
    if workers <= 0:
        return "done"
    first: dict[str, int] = state.first
    boards: list[Board] = state.boards
    best: tuple[float, str] | None = None
    cost = board.next_city_cost()
    for m in state.monuments:
        left = board.monument_remaining(m)
        if not left:
            continue
        monument = MONUMENT_BY_ID[m]
        worth = float(monument.first if m not in first else monument.later)
        if worth <= 0:
            continue
        n = min(left, workers)
        finishes = n == left
        # a rival close to finishing it first makes a first place unlikely
        rival = max((b.monument_work[m] for s, b in enumerate(boards) if s != seat and m not in b.monument_points),
                    default=0)
        if m not in first and rival and not finishes:
            rival_left = monument.workers - rival
            if rival_left < left:
                worth = 0.5 * (worth + monument.later)
        rate = worth / monument.workers
        score = rate * (1.5 if finishes else 1.0) + 0.02 * (board.monument_work[m] / monument.workers)
        if best is None or score > best[0]:
            best = (score, f"work:{m}:{n}")
    if cost is not None:
        left = cost - board.city_work
        n = min(left, workers)
        score = 0.9 if board.cities < EARLY_CITIES else (0.45 if board.cities < 6 else 0.3)
        if n == left:
            score += 0.1
        if best is None or score > best[0]:
            best = (score, f"work:{CITY}:{n}")
    if best is not None and best[1] in legal:
        return best[1]
    works = [a for a in legal if a.startswith("work:")]
    return works[-1] if works else "done"


def _buy(state: RollState, board: Board, legal: list[str], seat: int) -> str:
    rounds_left = _rounds_left(state)
    owned = len(board.developments)
    boards: list[Board] = state.boards
    solo = state.solo
    best: tuple[float, str] | None = None
    for action in legal:
        if not action.startswith("buy:"):
            continue
        parts = action.split(":")
        dev = parts[1]
        value = development_value(dev, board, rounds_left)
        spent = 0
        if len(parts) > 2:
            for item in parts[2].split("+"):
                if item.endswith(FOOD):
                    spent += 4 * int(item[: -len(FOOD)])
                else:
                    i = GOOD_INDEX[item]
                    spent += GOODS[i].values[board.goods[i]]
        coins: int = state.coins
        value -= SPEND * spent + OVERPAY * max(0, coins + spent - DEVELOPMENT_BY_ID[dev].cost)
        if best is None or value > best[0]:
            best = (value, action)
    if best is None:
        return "done"
    value, action = best
    if owned + 1 >= END_DEVELOPMENTS:
        # the fifth development ends the game: only when that is good for us
        if solo:
            if state.round < SOLO_ROUNDS:
                return "done"
        else:
            dev = action.split(":")[1]
            mine = board.score() + DEVELOPMENT_BY_ID[dev].points
            others = [b for s, b in enumerate(boards) if s != seat]
            if any(b.score() >= mine - LEAD_TO_END for b in others):
                return "done"
            # ahead: end only when the others are about to end it anyway, else keep scoring
            near = any(len(b.developments) >= END_DEVELOPMENTS - 1 for b in others)
            if not near and state.round < LAST_ROUND:
                return "done"
        return action
    threshold = THRESHOLDS[owned]
    return action if value >= threshold else "done"


def _discard(board: Board, legal: list[str]) -> str:
    best: tuple[int, str] | None = None
    for action in legal:
        i = GOOD_INDEX[action[8:]]
        n = board.goods[i]
        lost = GOODS[i].values[n] - GOODS[i].values[n - 1]
        if best is None or lost < best[0]:
            best = (lost, action)
    assert best is not None
    return best[1]




class ScriptedPlayer:
    """The policy alone as an arena opponent (``--bots hard,script``): a yardstick for the search, not in the lobby."""

    name = "script"
    budget = 0.02

    def choose(self, state: State, rng: random.Random) -> str:
        return policy(state, rng)


__all__ = ["ScriptedPlayer", "development_value", "policy"]
