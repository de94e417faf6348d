"""The rules of Roll Through the Ages: The Bronze Age as a state machine.

A turn runs through the phases of the Yucata rules page: roll (up to three
times), choose food or workers, the automatic collection / feeding /
disasters, an optional trade phase (``trade=on``), building, buying one
development, and discarding down to six goods.  Each phase in which the player
has a real choice is a decision; phases without a choice pass by themselves.
Every die roll is a chance action (``dice:...``) so that a record replays
exactly.  Nothing in this game is hidden: every seat sees the whole table.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from functools import cache
from itertools import accumulate
from typing import Any

from ludothek.engine import (
    CHANCE,
    TERMINAL,
    Game,
    HistoryEntry,
    IllegalAction,
    SeatResult,
    State,
    ranks_from_keys,
)

from . import notation
from .board import Board
from .components import (
    CHOICE_FACE,
    DEVELOPMENTS,
    END_DEVELOPMENTS,
    FACE_BY_ID,
    FOOD_MAX,
    GOOD_IDS,
    GOOD_INDEX,
    GOODS_LIMIT,
    GREAT_WALL,
    MAX_CITIES,
    MAX_ROLLS,
    MONUMENT_BY_ID,
    SKULL_FACE,
    SOLO_ROUNDS,
    STONE,
    disaster_for,
    monuments_in_play,
)
from .market import budget, purchase_options
from .notation import (
    CITY,
    FOOD,
    TRADE_INDEX,
    TRADE_ITEMS,
    faces_text,
    parse_dice,
    payment_text,
    roll_actions,
    roll_outcome_faces,
    roll_outcomes,
    sort_faces,
    sub_multisets,
)
from .trade import can_trade, draft_actions, exchange

# Phases.  ``start`` and ``roll`` are chance nodes; ``answer`` belongs to the trade partner.
START = "start"
ROLL = "roll"
REROLL = "reroll"
LEADER = "leader"
CHOOSE = "choose"
TRADE = "trade"
DRAFT = "draft"
ANSWER = "answer"
BUILD = "build"
BUY = "buy"
DISCARD = "discard"
OVER = "over"

DONE = "done"
COIN_VALUE = next(f.coins for f in FACE_BY_ID.values() if f.coins)
_TWO_WAY = FACE_BY_ID[CHOICE_FACE].choice

#: Shared history entries per seat (index ``seat + 1``, chance first): they are immutable, and building
#: one per applied action cost more than many an action's own rules.  Nothing in this game is secret.
_ENTRIES: list[dict[str, HistoryEntry]] = [{} for _ in range(10)]


@cache
def _dice_sums(dice: tuple[str, ...]) -> tuple[int, int, int, int, int, int, int, int]:
    """What a set of dice gives before choices and developments, made once per multiset of faces:
    goods, skulls, coin faces, food, food faces, workers, worker faces, two-way (food or workers) faces."""
    goods = food = workers = skulls = coin_faces = food_faces = worker_faces = 0
    for f in dice:
        face = FACE_BY_ID[f]
        goods += face.goods
        skulls += face.skulls
        if face.coins:
            coin_faces += 1
        if face.food:
            food += face.food
            food_faces += 1
        if face.workers:
            workers += face.workers
            worker_faces += 1
    return goods, skulls, coin_faces, food, food_faces, workers, worker_faces, dice.count(CHOICE_FACE)


@cache
def _rerollable(dice: tuple[str, ...], skulls_locked: bool) -> tuple[str, ...]:
    return tuple(f for f in dice if f != SKULL_FACE) if skulls_locked else dice


@cache
def _reroll_actions(rerollable: tuple[str, ...]) -> tuple[str, ...]:
    """The re-roll phase's actions for these re-rollable dice (shared: never change it)."""
    return (DONE, *("roll:" + faces_text(s) for s in sub_multisets(rerollable)))


_MONUMENT_WORKERS: dict[str, int] = {m.id: m.workers for m in MONUMENT_BY_ID.values()}

#: ``work:<target>:<n>`` for n = 1, 2, ... per target, and ``engineer:<n>``: the build phase's strings, made once.
_WORK: dict[str, tuple[str, ...]] = {
    target: tuple(f"work:{target}:{n}" for n in range(1, 50)) for target in (CITY, *MONUMENT_BY_ID)
}
_ENGINEER: tuple[str, ...] = tuple(f"engineer:{n}" for n in range(1, 50))


#: The developments from the cheapest (for `can_buy`'s question: is any affordable?).
_BY_COST = tuple(sorted(DEVELOPMENTS, key=lambda dev: dev.cost))

#: The choose phase's actions by the number of two-way dice (shared: never change them).
_FOOD_CHOICES: tuple[tuple[str, ...], ...] = tuple(tuple(f"food:{n}" for n in range(k + 1)) for k in range(20))


class _RerollFaces(dict[str, tuple[str, ...]]):
    """``roll:<faces>`` -> the faces, parsed once per string."""

    def __missing__(self, action: str) -> tuple[str, ...]:
        faces = self[action] = tuple(action[5:].split("+"))
        return faces


_REROLL_FACES = _RerollFaces()

#: ``buy:<development>[:<payment>]`` by (development, payment): a few hundred strings, made once.
_BUY_TEXT: dict[tuple[str, tuple[tuple[str, ...], int]], str] = {}

#: The dice kept by (all dice, the faces re-rolled): a few thousand, made once.
_KEPT: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[str, ...]] = {}

#: (faces rolled, all dice in canonical order) by (dice kept, ``dice:`` action): a few thousand, made once.
_ROLLED: dict[tuple[tuple[str, ...], str], tuple[tuple[str, ...], tuple[str, ...]]] = {}


@cache
def _roll_table(k: int) -> tuple[tuple[str, ...], list[float]]:
    """The outcomes of rolling ``k`` dice and the running sums of their probabilities.

    The sums are added in the order of `roll_outcomes`, as the engine's default `sample_outcome`
    adds them while it walks the list, so the same random number picks the same outcome.
    """
    outcomes = roll_outcomes(k)
    return tuple(a for a, _ in outcomes), list(accumulate(p for _, p in outcomes))


#: Per number of dice (0 to 7): the outcomes with their running sums, and ``action -> faces``; each
#: made when first needed (a 7-dice roll has 792 outcomes: nothing to pay for at import).
_ROLL_TABLES: list[tuple[tuple[str, ...], list[float]] | None] = [None] * (MAX_CITIES + 1)
_ROLL_FACES: list[dict[str, tuple[str, ...]] | None] = [None] * (MAX_CITIES + 1)


class RollState(State):
    """A position of Roll Through the Ages (all information is public)."""

    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        self.solo = options.get("mode") == "solo"
        self.trading = options.get("trade") == "on"
        self.monuments: tuple[str, ...] = monuments_in_play(num_players, self.solo)
        self.boards = [Board(self.monuments) for _ in range(num_players)]
        self.start_player = 0
        self.active = 0
        self.round = 1
        self.phase = START
        self.dice: list[str] = []
        #: Dice set aside while a roll is pending (the rolled ones come from the chance action).
        self.kept: list[str] = []
        self.to_roll = 0
        self.rolls = 0
        self.last_rolled: list[str] = []
        self.leading = False  # the pending roll is Leadership's re-roll
        self.leader_used = False
        self.food_dice = -1  # two-way dice taken as food; -1 before the choice
        self.workers = 0
        self.coins = 0
        #: Monument -> seat that completed it first.
        self.first: dict[str, int] = {}
        #: Why the game ends at the end of this round ("developments", "monuments").
        self.end_reasons: list[str] = []
        #: What happened automatically this turn (goods, food, feeding, disasters, buildings ...).
        self.events: list[dict[str, Any]] = []
        #: The offer being drafted or awaiting an answer: partner seat, give and ask per trade item.
        self.offer: dict[str, Any] | None = None
        #: Offers made this turn with their outcome.
        self.trades: list[dict[str, Any]] = []
        self._legal: list[str] | tuple[str, ...] | None = None
        #: When set (by ``describe``), every event is also collected here across turn changes.
        self._sink: list[dict[str, Any]] | None = None
        if self.solo:
            self._begin_turn(0)

    # ----- engine contract ---------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in (START, ROLL):
            return CHANCE
        if phase == OVER:
            return TERMINAL
        if phase == ANSWER:
            assert self.offer is not None
            partner: int = self.offer["to"]
            return partner
        return self.active

    def _turn_seat(self) -> int | None:
        """The roll that opens a turn (and the draw of the start player) belongs to no turn in progress.

        So it waits until the previous turn is handed on, also in the solo game, where every turn
        is the same seat's; re-rolls within a turn are the player's own and are rolled at once.
        """
        phase = self.phase
        if phase == START or (phase == ROLL and self.rolls == 0):
            return None
        return self.current_player() if phase != ROLL else self.active

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)  # a copy: callers may change it

    def chance_outcomes(self) -> list[tuple[str, float]]:
        if self.phase == START:
            p = 1.0 / self.num_players
            return [(f"start:{seat + 1}", p) for seat in range(self.num_players)]
        if self.phase == ROLL:
            return list(roll_outcomes(self.to_roll))
        return []

    def sample_outcome(self, rng: random.Random) -> str:
        """A roll is drawn by bisecting the running sums (a 7-dice roll has 792 outcomes), not by a walk.

        One ``rng.random()`` as the engine's default, and the same outcome for it: seeded games are unchanged.
        """
        if self.phase == ROLL:
            k = self.to_roll
            table = _ROLL_TABLES[k]
            if table is None:
                table = _ROLL_TABLES[k] = _roll_table(k)
            actions, sums = table
            x = rng.random()
            i = bisect_right(sums, x)
            return actions[i] if i < len(actions) else actions[-1]
        return super().sample_outcome(rng)

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        """A roll is checked against its table, a decision against the legal actions made once per position.

        Anything not accepted here (illegal, out of turn, not a string) goes to the engine's checked path.
        """
        phase = self.phase
        if phase == ROLL:
            faces = _ROLL_FACES[self.to_roll]
            if faces is None:
                faces = _ROLL_FACES[self.to_roll] = roll_outcome_faces(self.to_roll)
            if seat is not None or type(action) is not str or action not in faces:
                return False
            self._legal = None
            self._apply_roll(action)
            entries = _ENTRIES[0]
            try:
                entry = entries[action]
            except KeyError:
                entry = entries[action] = HistoryEntry(CHANCE, action)
            self._history.append(entry)
            return True
        if phase in (START, OVER):
            return False
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            return False
        player = self.active if phase != ANSWER else self.offer["to"]  # type: ignore[index]
        if seat is not None and seat != player:
            return False
        self._apply(action)
        entries = _ENTRIES[player + 1]
        try:
            entry = entries[action]
        except KeyError:
            entry = entries[action] = HistoryEntry(player, action)
        self._history.append(entry)
        return True

    def _validate(self, action: str) -> None:
        if self._legal is None:
            self._legal = self._compute_legal()
        if action not in self._legal:
            raise IllegalAction(self.explain_illegal(action))

    def explain_illegal(self, action: str) -> str:
        return notation.explain_illegal(self, action)

    def _apply(self, action: str) -> None:
        self._legal = None
        phase = self.phase
        # The phases in the order of how often they come up (rolls, re-roll choices, building ...).
        if phase == ROLL:
            self._apply_roll(action)
        elif phase == REROLL:
            if action == DONE:
                self._stop_rolling()
            else:
                self._start_reroll(_REROLL_FACES[action])
        elif phase == BUILD:
            self._apply_build(action)
        elif phase == CHOOSE:
            self.food_dice = int(action[5:])
            self._resolve()
        elif phase == BUY:
            if action != DONE:
                self._buy(action)
            self._to_discard()
        elif phase == DISCARD:
            board = self.boards[self.active]
            board.goods[GOOD_INDEX[action[8:]]] -= 1
            if board.goods_total() <= GOODS_LIMIT:
                self._end_turn()
        elif phase == LEADER:
            if action == DONE:
                self._to_choose()
            else:
                self.leading = True
                self._start_reroll((action[5:],))
        elif phase == START:
            self.start_player = int(action.split(":")[1]) - 1
            self._begin_turn(self.start_player)
        elif phase in (TRADE, DRAFT, ANSWER):
            self._apply_trade(action)
        else:  # pragma: no cover - _validate keeps everything else out
            raise IllegalAction(action)

    def _describe(self, action: str, lang: str) -> str:
        return notation.describe(self, action, lang)

    def view(self, seat: int | None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, seat)

    def result(self) -> list[SeatResult]:
        keys = [(b.score(), b.goods_value()) for b in self.boards]
        ranks = ranks_from_keys(keys)
        return [SeatResult(seat, ranks[seat], float(keys[seat][0])) for seat in range(self.num_players)]

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": self.num_players,
            "options": dict(self.options),
            "monuments": list(self.monuments),
            "boards": [b.to_json() for b in self.boards],
            "start_player": self.start_player,
            "active": self.active,
            "round": self.round,
            "phase": self.phase,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "to_roll": self.to_roll,
            "rolls": self.rolls,
            "last_rolled": list(self.last_rolled),
            "leading": self.leading,
            "leader_used": self.leader_used,
            "food_dice": self.food_dice,
            "workers": self.workers,
            "coins": self.coins,
            "first": dict(self.first),
            "end_reasons": list(self.end_reasons),
            "events": [dict(e) for e in self.events],
            "offer": _copy_offer(self.offer),
            "trades": [_copy_offer(t) for t in self.trades],
        }

    def turns_taken(self) -> int:
        """Turns begun so far: full rounds times players plus this round's turns (solo counts rounds)."""
        if self.phase == START:
            return 0
        return (self.round - 1) * self.num_players + (self.active - self.start_player) % self.num_players + 1

    def clone(self) -> RollState:
        other = RollState.__new__(RollState)
        other.__dict__.update(self.__dict__)
        other.options = dict(self.options)
        other._history = list(self._history)
        other.boards = [b.copy() for b in self.boards]
        other.dice = list(self.dice)
        other.kept = list(self.kept)
        other.last_rolled = list(self.last_rolled)
        other.first = dict(self.first)
        other.end_reasons = list(self.end_reasons)
        other.events = list(self.events)  # events are never changed once appended
        other.offer = _copy_offer(self.offer)
        other.trades = list(self.trades)  # finished offers are never changed
        other._sink = None
        return other

    # ----- helpers used by views and texts ------------------------------------------
    def board(self, seat: int) -> Board:
        return self.boards[seat]

    def max_rounds(self) -> int | None:
        return SOLO_ROUNDS if self.solo else None

    def skulls_locked(self) -> bool:
        """Skull dice stay set aside, except in the solo game."""
        return not self.solo

    def rerollable(self) -> tuple[str, ...]:
        return _rerollable(tuple(self.dice), not self.solo)

    def choice_dice(self) -> int:
        return self.dice.count(CHOICE_FACE)

    # ----- legal actions ----------------------------------------------------------
    def _compute_legal(self) -> list[str] | tuple[str, ...]:
        phase = self.phase
        # The phases in the order of how often they are asked for; the build phase's actions are
        # usually made already when it begins (`_build_or_buy`).
        if phase == REROLL:
            return _reroll_actions(self.rerollable())
        if phase == CHOOSE:
            return _FOOD_CHOICES[self.dice.count(CHOICE_FACE)]
        if phase == BUY:
            actions = [DONE]
            for dev, pay in self._purchases():
                try:
                    actions.append(_BUY_TEXT[dev, pay])
                except KeyError:
                    text = _BUY_TEXT[dev, pay] = self._buy_action(dev, pay)
                    actions.append(text)
            return actions
        if phase == DISCARD:
            goods = self.boards[self.active].goods
            return [f"discard:{g}" for i, g in enumerate(GOOD_IDS) if goods[i]]
        if phase == BUILD:
            return self._build_actions()
        if phase == LEADER:
            return [DONE] + ["lead:" + f for f in sort_faces(set(self.dice))]
        if phase == START:
            return [f"start:{seat + 1}" for seat in range(self.num_players)]
        if phase == ROLL:
            return roll_actions(self.to_roll)
        if phase == TRADE:
            return [DONE] + [f"offer:{seat + 1}" for seat in self._trade_partners()]
        if phase == DRAFT:
            assert self.offer is not None
            return draft_actions(
                self.boards[self.active], self.boards[self.offer["to"]], self.offer["give"], self.offer["ask"]
            )
        if phase == ANSWER:
            return ["accept", "decline"]
        return []

    def _emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if self._sink is not None:
            self._sink.append(event)

    # ----- rolling ------------------------------------------------------------------
    def _begin_turn(self, seat: int) -> None:
        self.active = seat
        self.phase = ROLL
        self.dice = []
        self.kept = []
        self.to_roll = self.boards[seat].cities
        self.rolls = 0
        self.last_rolled = []
        self.leading = False
        self.leader_used = False
        self.food_dice = -1
        self.workers = 0
        self.coins = 0
        self.events = []
        self.offer = None
        self.trades = []
        self._emit({"type": "turn", "seat": seat, "round": self.round})

    def _start_reroll(self, faces: tuple[str, ...]) -> None:
        key = (tuple(self.dice), faces)
        try:
            kept = _KEPT[key]
        except KeyError:
            left = list(self.dice)
            for f in faces:
                left.remove(f)
            kept = _KEPT[key] = tuple(left)
        self.kept = list(kept)
        self.to_roll = len(faces)
        self.phase = ROLL

    def _apply_roll(self, action: str) -> None:
        key = (tuple(self.kept), action)
        try:
            faces, dice = _ROLLED[key]
        except KeyError:
            parsed = parse_dice(action)
            assert parsed is not None
            faces, dice = _ROLLED[key] = (parsed, tuple(sort_faces(self.kept + list(parsed))))
        self.last_rolled = list(faces)
        self.dice = list(dice)
        self.kept = []
        self.to_roll = 0
        if self.leading:
            self.leading = False
            self.leader_used = True
            self._to_choose()
            return
        self.rolls += 1
        if self.rolls < MAX_ROLLS and self.rerollable():
            self.phase = REROLL
        else:
            self._stop_rolling()

    def _stop_rolling(self) -> None:
        if self.boards[self.active].has("leadership") and not self.leader_used:
            self.phase = LEADER
        else:
            self._to_choose()

    def _to_choose(self) -> None:
        if self.choice_dice():
            self.phase = CHOOSE
        else:
            self.food_dice = 0
            self._resolve()

    # ----- automatic phases: goods, food, feeding, disasters -----------------------
    def _resolve(self) -> None:
        seat = self.active
        board = self.boards[seat]
        goods, skulls, coin_faces, food, food_faces, workers, worker_faces, choice = _dice_sums(tuple(self.dice))
        food_dice = self.food_dice
        food += _TWO_WAY * food_dice
        workers += _TWO_WAY * (choice - food_dice)
        devs = board.developments
        if devs:  # most turns of a game are played without any of these
            food += board.param("agriculture", "bonus") * (food_faces + food_dice)
            workers += board.param("masonry", "bonus") * (worker_faces + choice - food_dice)
            coins = coin_faces * board.param("coinage", "coin_value", COIN_VALUE)
        else:
            coins = coin_faces * COIN_VALUE
        # 3a goods
        if goods:
            added, bonus = board.add_goods(goods)
            self._emit({"type": "goods", "seat": seat, "count": goods, "added": added, "bonus": bonus})
        # 3b food
        if food:
            gained = min(food, FOOD_MAX - board.food)
            board.food += gained
            self._emit({"type": "food", "seat": seat, "count": food, "gained": gained})
        self.workers = workers
        self.coins = coins
        # 3c feeding
        need = board.cities
        fed = min(need, board.food)
        board.food -= fed
        famine = need - fed
        board.disasters += famine
        self._emit({"type": "feed", "seat": seat, "cities": need, "fed": fed, "famine": famine})
        # 3d disasters
        self._disaster(skulls)
        self._to_trade()

    def _disaster(self, skulls: int) -> None:
        disaster = disaster_for(skulls)
        if disaster is None:
            return
        seat = self.active
        board = self.boards[seat]
        hit: list[int] = []
        spared: list[int] = []
        others = [s for s in range(self.num_players) if s != seat]
        if disaster.id == "drought":
            (spared if board.has("irrigation") else hit).append(seat)
        elif disaster.id == "pestilence":
            for s in ([seat] if self.solo else others):
                (spared if self.boards[s].has("medicine") else hit).append(s)
        elif disaster.id == "invasion":
            (spared if GREAT_WALL in board.monument_points else hit).append(seat)
        elif board.has("religion"):  # revolt, redirected (or, solo, cancelled)
            spared.append(seat)
            if not self.solo:
                for s in others:
                    (spared if self.boards[s].has("religion") else hit).append(s)
        else:
            hit.append(seat)
        for s in hit:
            if disaster.id == "revolt":
                self.boards[s].goods = [0] * len(GOOD_IDS)
            else:
                self.boards[s].disasters += disaster.points
        self._emit(
            {"type": "disaster", "seat": seat, "disaster": disaster.id, "skulls": skulls, "hit": hit, "spared": spared}
        )

    # ----- trading (trade=on) -------------------------------------------------------
    def _to_trade(self) -> None:
        if self.trading and self._trade_partners():
            self.phase = TRADE
        else:
            self._to_build()

    def _trade_partners(self) -> list[int]:
        me = self.boards[self.active]
        return [
            seat for seat in range(self.num_players) if seat != self.active and can_trade(me, self.boards[seat])
        ]

    def _apply_trade(self, action: str) -> None:
        if action == DONE:
            self._to_build()
            return
        if action.startswith("offer:"):
            zero = [0] * len(TRADE_ITEMS)
            self.offer = {"to": int(action[6:]) - 1, "give": list(zero), "ask": list(zero)}
            self.phase = DRAFT
            return
        offer = self.offer
        assert offer is not None
        if action.startswith("give:"):
            offer["give"][TRADE_INDEX[action[5:]]] += 1
        elif action.startswith("ask:"):
            offer["ask"][TRADE_INDEX[action[4:]]] += 1
        elif action == "propose":
            self.phase = ANSWER
        elif action in ("cancel", "accept", "decline"):
            if action == "accept":
                exchange(self.boards[self.active], self.boards[offer["to"]], offer["give"], offer["ask"])
            if action != "cancel":
                done_offer: dict[str, Any] = {"to": offer["to"], "give": list(offer["give"]), "ask": list(offer["ask"])}
                done_offer["accepted"] = action == "accept"
                self.trades.append(done_offer)
            self.offer = None
            self._to_trade()

    # ----- building -----------------------------------------------------------------
    def _to_build(self) -> None:
        self.phase = BUILD
        self._build_or_buy()

    def _build_targets(self) -> list[tuple[str, int]]:
        """``(target, boxes left)`` for the next city and every unfinished monument."""
        board = self.boards[self.active]
        targets: list[tuple[str, int]] = []
        cost = board.next_city_cost()
        if cost is not None:
            targets.append((CITY, cost - board.city_work))
        work = board.monument_work
        for m in self.monuments:
            left = _MONUMENT_WORKERS[m] - work[m]
            if left:
                targets.append((m, left))
        return targets

    def _build_actions_exist(self) -> bool:
        board = self.boards[self.active]
        can_engineer = board.has("engineering") and board.goods[STONE] > 0
        return bool((self.workers or can_engineer) and self._build_targets())

    def _build_actions(self) -> list[str]:
        board = self.boards[self.active]
        actions = [DONE]
        workers = self.workers
        if workers:
            for target, left in self._build_targets():
                actions.extend(_WORK[target][: min(left, workers)])
        if "engineering" in board.developments:
            actions.extend(_ENGINEER[: board.goods[STONE]])
        return actions

    def _build_or_buy(self) -> None:
        """Stay in the build phase with its actions made at once (they are asked next), or go on to buying.

        The same test as `_build_actions_exist`: a build phase needs a target and workers or stone to
        engineer with; Engineering with stones but no target left does not count.
        """
        board = self.boards[self.active]
        workers = self.workers
        targets = self._build_targets() if workers or ("engineering" in board.developments and board.goods[STONE]) \
            else None
        if not targets:
            self._to_buy()
            return
        actions = [DONE]
        if workers:
            for target, left in targets:
                actions.extend(_WORK[target][: min(left, workers)])
        if "engineering" in board.developments:
            actions.extend(_ENGINEER[: board.goods[STONE]])
        self._legal = actions

    def _apply_build(self, action: str) -> None:
        if action == DONE:
            self._to_buy()
            return
        board = self.boards[self.active]
        seat = self.active
        if action.startswith("engineer:"):
            n = int(action[9:])
            board.goods[STONE] -= n
            self.workers += n * board.param("engineering", "workers_per_stone")
        else:
            _, target, count = action.split(":")
            n = int(count)
            self.workers -= n
            if target == CITY:
                board.city_work += n
                if board.city_work == board.next_city_cost():
                    board.cities += 1
                    board.city_work = 0
                    self._emit({"type": "city", "seat": seat, "cities": board.cities})
            else:
                board.monument_work[target] += n
                if board.monument_remaining(target) == 0:
                    monument = MONUMENT_BY_ID[target]
                    first = target not in self.first
                    board.monument_points[target] = monument.first if first else monument.later
                    if first:
                        self.first[target] = seat
                    self._emit(
                        {
                            "type": "monument",
                            "seat": seat,
                            "monument": target,
                            "first": first,
                            "points": board.monument_points[target],
                        }
                    )
                    if len(self.first) == len(self.monuments) and "monuments" not in self.end_reasons:
                        self.end_reasons.append("monuments")
        self._build_or_buy()

    # ----- buying ---------------------------------------------------------------------
    def _purchases(self) -> list[tuple[str, tuple[tuple[str, ...], int]]]:
        board = self.boards[self.active]
        return purchase_options(
            board.developments, self.coins, board.goods, board.food, board.param("granaries", "coins_per_food")
        )

    @staticmethod
    def _buy_action(dev: str, payment: tuple[tuple[str, ...], int]) -> str:
        rows, food = payment
        return f"buy:{dev}" + (":" + payment_text(rows, food) if rows or food else "")

    def _to_buy(self) -> None:
        board = self.boards[self.active]
        owned = board.developments
        # `can_buy`, asked of the cheapest development not owned (whether any is affordable).
        cheapest = next((dev.cost for dev in _BY_COST if dev.id not in owned), None)
        if cheapest is not None and cheapest <= budget(
            self.coins, board.goods, board.food, board.param("granaries", "coins_per_food")
        ):
            self.phase = BUY
        else:
            self._to_discard()

    def _buy(self, action: str) -> None:
        parts = action.split(":")
        dev = parts[1]
        board = self.boards[self.active]
        spent: list[str] = []
        sold = 0
        if len(parts) > 2:
            for item in parts[2].split("+"):
                if item.endswith(FOOD):
                    sold = int(item[: -len(FOOD)])
                    board.food -= sold
                else:
                    board.goods[GOOD_INDEX[item]] = 0
                    spent.append(item)
        board.developments.append(dev)
        self.coins = 0
        self._emit({"type": "buy", "seat": self.active, "development": dev, "rows": spent, "food": sold})
        if len(board.developments) >= END_DEVELOPMENTS and "developments" not in self.end_reasons:
            self.end_reasons.append("developments")

    # ----- discarding and the end of a turn -------------------------------------------
    def _to_discard(self) -> None:
        self.workers = 0
        self.coins = 0
        board = self.boards[self.active]
        if sum(board.goods) > GOODS_LIMIT and "caravans" not in board.developments:
            self.phase = DISCARD
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        nxt = (self.active + 1) % self.num_players
        if nxt == self.start_player:
            if self.end_reasons or (self.solo and self.round >= SOLO_ROUNDS):
                self.phase = OVER
                self._emit({"type": "end", "reasons": list(self.end_reasons), "round": self.round})
                return
            self.round += 1
        self._begin_turn(nxt)


def _copy_offer(offer: dict[str, Any] | None) -> dict[str, Any] | None:
    if offer is None:
        return None
    return {**offer, "give": list(offer["give"]), "ask": list(offer["ask"])}

