"""Machi Koro's rules: the state machine of one game.

A turn runs through phases: (choose the number of dice) -> dice (chance) ->
(Radio Tower: keep or re-roll) -> income -> (TV Station target) ->
(Business Center trade) -> build or pass.  Phases in brackets appear only when
the player really has a choice; everything forced happens at once.  With the
"Komme, was wolle" market, the display is (re)filled by ``draw:ID`` chance
actions weighted by the cards left in the deck, which is the same as drawing
from a shuffled deck without storing its order.

The state is kept as plain lists of integers (a kind is its index in the card
table, landmarks are bit masks) and the legal actions are computed once per
position and cached: bots call ``legal_actions`` and ``apply_action`` millions
of times, and both are cheap this way.  The engine's fast-path hook
`_apply_fast` checks against that cache and appends shared history entries;
anything it does not accept goes to the engine's checked path and its refusals.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from ludothek.engine import CHANCE, TERMINAL, Game, HistoryEntry, IllegalAction, SeatResult, State
from ludothek.engine.core import ranks_from_keys

from . import notation as N
from .cards import (
    ALL_LANDMARKS,
    AMUSEMENT_PARK,
    BLUE_BY_SUM,
    BUSINESS_CENTER,
    DISPLAY_KINDS,
    ESTABLISHMENTS,
    GREEN_BY_SUM,
    IS_PURPLE,
    KIND_INDEX,
    KINDS_BY_COST,
    LANDMARK_INDEX,
    LANDMARKS,
    LANDMARKS_BY_COST,
    MAX_TWO_LIMIT,
    NO_LIMIT,
    NUM_KINDS,
    PURPLE_BY_SUM,
    PURPLE_REMOVED,
    RADIO_TOWER,
    RED_BY_SUM,
    SHOPPING_MALL,
    STADIUM,
    START_CARDS,
    START_COINS,
    TRADABLE_KINDS,
    TRAIN_STATION,
    TV_STATION,
)

# Phases.  The names are part of the view.
P_DRAW, P_ROLL, P_DICE, P_RADIO, P_TV, P_TRADE, P_BUILD, P_OVER = range(8)
PHASE_NAMES = ("draw", "choose_dice", "dice", "radio_tower", "tv_station", "business_center", "build", "over")

_STADIUM_AMOUNT = ESTABLISHMENTS[STADIUM].amount
_TV_AMOUNT = ESTABLISHMENTS[TV_STATION].amount
_ROLL_CHOICES = (N.ROLL_ONE, N.ROLL_TWO)
_RADIO_CHOICES = (N.KEEP, N.REROLL)
# Module-level names for the hot paths (one lookup instead of two).
_ONE_DIE = N.ONE_DIE
_TWO_DICE = N.TWO_DICE
_DICE_VALUES = N.DICE_VALUES
_BUILD_TARGET = N.BUILD_TARGET
_PASS = N.PASS

#: Interned history entries, one object per (seat, action), shared by all states: index
#: ``seat + 1`` (so ``CHANCE`` is 0), then the action.  Entries are immutable.
_ENTRIES: list[dict[str, HistoryEntry]] = [{} for _ in range(10)]

#: Build lists by (coins up to the dearest card, blocked kinds, built landmarks); they are
#: immutable tuples shared by all states.  The key space is small, but bounded anyway.
_BUILD_CACHE: dict[int, tuple[str, ...]] = {}
_BUILD_CACHE_MAX = 200_000
_MAX_COST = max([e.cost for e in ESTABLISHMENTS] + [m.cost for m in LANDMARKS])


def _build_list(coins: int, blocked: int, built: int) -> tuple[str, ...]:
    """Every build affordable with ``coins``: kinds not in ``blocked``, landmarks not in ``built``."""
    actions = []
    for e in KINDS_BY_COST:
        if e.cost > coins:
            break
        if not blocked >> e.index & 1:
            actions.append(N.BUILD_KIND[e.index])
    for m in LANDMARKS_BY_COST:
        if m.cost > coins:
            break
        if not built & m.bit:
            actions.append(N.BUILD_LANDMARK[m.index])
    actions.append(N.PASS)
    return tuple(actions)


class MachiKoroState(State):
    """A Machi Koro position.  All information is public; future chance outcomes are not stored."""

    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        n = num_players
        self._kosmos = options["ending"] == "kosmos"
        self._komme = options["market"] == "komme_was_wolle"
        self._limit = MAX_TWO_LIMIT if options["max_two"] == "on" else NO_LIMIT
        self._coins = [START_COINS] * n
        self._cards = [list(START_CARDS) for _ in range(n)]
        #: Landmarks built (bit mask) and landmarks in effect (built before this player's current turn).
        self._built = [0] * n
        self._active = [0] * n
        #: Yucata ending: players who completed their landmarks, in finishing order.
        self._placing: list[int] = []
        self._out = [False] * n
        #: Turns each seat has begun (extra turns included), and the turn in which it completed its landmarks.
        self._turns = [0] * n
        self._finished_turn: list[int | None] = [None] * n
        if self._komme:
            removed = PURPLE_REMOVED[n]
            self._deck = [e.supply - (removed if IS_PURPLE[e.index] else 0) for e in ESTABLISHMENTS]
            self._supply = [0] * NUM_KINDS
        else:
            self._deck = [0] * NUM_KINDS
            self._supply = [e.supply for e in ESTABLISHMENTS]
        self._deck_total = sum(self._deck)
        self._turn = 0
        self._extra = False
        self._ndice = 0
        self._d1 = 0
        self._d2 = 0
        self._rerolled = False
        self._phase = P_DRAW
        self._player = CHANCE
        #: The turn that starts when the display is full again: (seat, extra turn).
        self._next_turn = (0, False)
        self._legal: tuple[str, ...] | list[str] | None = None
        #: Per kind: how many one player may own (1 for purple; 2 with ``max_two``).
        self._cap = [1 if IS_PURPLE[k] else self._limit for k in range(NUM_KINDS)]
        self._empty = 0
        self._full: list[int] = []
        self._refresh_masks()
        self._seat_orders()
        if not self._needs_refill():
            self._start_turn(0, False)

    # ----- derived tables -----------------------------------------------------------
    def _seat_orders(self) -> None:
        """Per seat: the opponents still in the game, counter-clockwise and in seat order."""
        n = self.num_players
        inside = [p for p in range(n) if not self._out[p]]
        self._inside = inside
        self._ccw = [[(r - i) % n for i in range(1, n) if not self._out[(r - i) % n]] for r in range(n)]
        self._opponents = [[p for p in inside if p != r] for r in range(n)]
        self._next = [self._next_seat(r) for r in range(n)]

    # ----- engine contract ----------------------------------------------------------
    def current_player(self) -> int:
        return self._player

    def _turn_seat(self) -> int | None:
        """A turn's opening roll and the display's refill start the next turn; dice the player asked for are theirs.

        The roll that opens a turn without a Train Station (the previous player's build or pass
        ended theirs) and a refill of the display after a build belong to no turn in progress
        (``None``): they wait until the turn is handed on, so a build can be taken back.  Dice
        after the player chose how many (Train Station) or asked for a re-roll (Radio Tower) are
        the player's own and are rolled at once.
        """
        player = self._player
        if player != CHANCE:
            return player
        if self._phase == P_DICE and (self._rerolled or self._active[self._turn] & TRAIN_STATION):
            return self._turn
        return None

    def legal_actions(self) -> list[str]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def chance_outcomes(self) -> list[tuple[str, float]]:
        phase = self._phase
        if phase == P_DICE:
            return list(N.TWO_DICE_OUTCOMES if self._ndice == 2 else N.ONE_DIE_OUTCOMES)
        if phase == P_DRAW:
            total = self._deck_total
            return [(N.DRAW_KIND[k], c / total) for k, c in enumerate(self._deck) if c]
        return []

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        """Check against the legal actions cached for this position and share the history entries."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        player = self._player
        if action not in legal or (seat is not None and seat != player):
            return False  # the engine's checked path raises the refusal
        self._legal = None
        self._apply(action)
        entries = _ENTRIES[player + 1]
        try:  # a subscript, not ``.get``: this runs for every action a bot or replay makes
            entry = entries[action]
        except KeyError:
            entry = entries[action] = HistoryEntry(player, action)
        self._history.append(entry)
        return True

    def _validate(self, action: str) -> None:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            raise IllegalAction(self.explain_illegal(action))

    # ----- legal actions ------------------------------------------------------------
    def _compute_legal(self) -> tuple[str, ...] | list[str]:
        """The legal actions now, as an immutable or private sequence (callers get a copy)."""
        phase = self._phase
        if phase == P_DICE:
            return _TWO_DICE if self._ndice == 2 else _ONE_DIE
        if phase == P_BUILD:
            return self._build_actions()
        if phase == P_ROLL:
            return _ROLL_CHOICES
        if phase == P_RADIO:
            return _RADIO_CHOICES
        if phase == P_DRAW:
            return [N.DRAW_KIND[k] for k, c in enumerate(self._deck) if c]
        if phase == P_TV:
            return [N.TV_TARGET[p] for p in self._tv_targets()]
        if phase == P_TRADE:
            return [*self._trades(), N.NOTRADE]
        return ()

    def _build_actions(self) -> tuple[str, ...]:
        me = self._turn
        coins = self._coins[me]
        if coins > _MAX_COST:
            coins = _MAX_COST
        key = coins | (self._empty | self._full[me]) << 5 | self._built[me] << 20
        actions = _BUILD_CACHE.get(key)
        if actions is None:
            if len(_BUILD_CACHE) >= _BUILD_CACHE_MAX:
                _BUILD_CACHE.clear()
            actions = _BUILD_CACHE[key] = _build_list(coins, self._empty | self._full[me], self._built[me])
        return actions

    def _refresh_masks(self) -> None:
        """Recompute the blocked-kind masks: empty piles, and kinds each player may not own more of."""
        self._empty = sum(1 << k for k, c in enumerate(self._supply) if not c)
        self._full = [self._full_mask(p) for p in range(self.num_players)]

    def _full_mask(self, seat: int) -> int:
        owned = self._cards[seat]
        cap = self._cap
        return sum(1 << k for k in range(NUM_KINDS) if owned[k] >= cap[k])

    def _tv_targets(self) -> list[int]:
        """Opponents still in the game who have coins (see the ruling in the docs)."""
        coins = self._coins
        return [p for p in self._opponents[self._turn] if coins[p]]

    def _trades(self) -> list[str]:
        """Every Business Center trade: one own non-purple card for a different non-purple card."""
        me = self._turn
        mine = self._cards[me]
        limit = self._limit
        table = N.TRADE_ACTION
        out = []
        for give in TRADABLE_KINDS:
            if not mine[give]:
                continue
            by_seat = table[give]
            for p in self._opponents[me]:
                theirs = self._cards[p]
                if theirs[give] >= limit:
                    continue
                strings = by_seat[p]
                for take in TRADABLE_KINDS:
                    if take != give and theirs[take] and mine[take] < limit:
                        out.append(strings[take])
        return out

    # ----- applying -----------------------------------------------------------------
    def _apply(self, action: str) -> None:
        phase = self._phase
        if phase == P_DICE:
            self._d1, self._d2 = _DICE_VALUES[action]
            if self._active[self._turn] & RADIO_TOWER and not self._rerolled:
                self._phase = P_RADIO
                self._player = self._turn
                self._legal = _RADIO_CHOICES
            else:
                self._resolve_roll()
        elif phase == P_BUILD:
            self._build(action)
        elif phase == P_ROLL:
            two = action == N.ROLL_TWO
            self._ndice = 2 if two else 1
            self._phase = P_DICE
            self._player = CHANCE
            self._legal = N.TWO_DICE if two else N.ONE_DIE
        elif phase == P_RADIO:
            if action == N.REROLL:
                self._rerolled = True
                self._phase = P_DICE
                self._player = CHANCE
                self._legal = N.TWO_DICE if self._ndice == 2 else N.ONE_DIE
            else:
                self._resolve_roll()
        elif phase == P_DRAW:
            self._draw(N.DRAW_TARGET[action])
        elif phase == P_TV:
            target = N.parse_tv(action)
            assert target is not None
            self._take(target, self._turn, _TV_AMOUNT)
            self._after_tv()
        elif phase == P_TRADE:
            if action != N.NOTRADE:
                parsed = N.parse_trade(action)
                assert parsed is not None
                give, p, take = parsed
                me = self._cards[self._turn]
                theirs = self._cards[p]
                me[give] -= 1
                theirs[give] += 1
                theirs[take] -= 1
                me[take] += 1
                self._full[self._turn] = self._full_mask(self._turn)
                self._full[p] = self._full_mask(p)
            self._phase = P_BUILD
        else:  # pragma: no cover - _validate refuses everything when the game is over
            raise IllegalAction("the game is over")

    def _start_turn(self, seat: int, extra: bool) -> None:
        """Begin a turn: landmarks built earlier take effect now."""
        self._turn = seat
        self._extra = extra
        self._rerolled = False
        self._turns[seat] += 1
        active = self._active[seat] = self._built[seat]
        # The legal lists of these phases are constants: set them now rather than on demand.
        if active & TRAIN_STATION:
            self._ndice = 0
            self._phase = P_ROLL
            self._player = seat
            self._legal = _ROLL_CHOICES
        else:
            self._ndice = 1
            self._phase = P_DICE
            self._player = CHANCE
            self._legal = _ONE_DIE

    def _take(self, payer: int, receiver: int, amount: int) -> None:
        """``receiver`` takes up to ``amount`` from ``payer``; what the payer lacks is forgiven."""
        have = self._coins[payer]
        pay = amount if amount < have else have
        self._coins[payer] = have - pay
        self._coins[receiver] += pay

    def _resolve_roll(self) -> None:
        """Income for the final roll: red, then blue and green, then purple."""
        total = self._d1 + self._d2
        r = self._turn
        coins = self._coins
        cards = self._cards
        active = self._active
        reds = RED_BY_SUM[total]
        if reds:
            for p in self._ccw[r]:
                have = coins[r]
                if not have:
                    break
                owned = cards[p]
                mall = 1 if active[p] & SHOPPING_MALL else 0
                claim = 0
                for k, amount, bonus in reds:
                    c = owned[k]
                    if c:
                        claim += c * (amount + bonus * mall)
                if claim:
                    pay = claim if claim < have else have
                    coins[r] = have - pay
                    coins[p] += pay
        blues = BLUE_BY_SUM[total]
        if blues:
            for p in self._inside:
                owned = cards[p]
                for k, amount in blues:
                    c = owned[k]
                    if c:
                        coins[p] += c * amount
        greens = GREEN_BY_SUM[total]
        if greens:
            owned = cards[r]
            mall = 1 if active[r] & SHOPPING_MALL else 0
            for k, amount, bonus, counted in greens:
                c = owned[k]
                if c:
                    if counted:
                        coins[r] += c * amount * sum(owned[j] for j in counted)
                    else:
                        coins[r] += c * (amount + bonus * mall)
        self._phase = P_BUILD
        self._player = r
        if PURPLE_BY_SUM[total]:
            self._resolve_purple(PURPLE_BY_SUM[total])

    def _resolve_purple(self, kinds: tuple[int, ...]) -> None:
        """Stadium, then TV Station, then Business Center (table order; see the docs)."""
        r = self._turn
        owned = self._cards[r]
        for k in kinds:
            if not owned[k]:
                continue
            if k == STADIUM:
                for p in self._ccw[r]:
                    self._take(p, r, _STADIUM_AMOUNT)
            elif k == TV_STATION:
                targets = self._tv_targets()
                if len(targets) == 1:
                    self._take(targets[0], r, _TV_AMOUNT)
                elif targets:
                    self._phase = P_TV
                    return
        self._after_tv()

    def _after_tv(self) -> None:
        r = self._turn
        self._phase = P_BUILD
        self._player = r
        if self._cards[r][BUSINESS_CENTER] and BUSINESS_CENTER in PURPLE_BY_SUM[self._d1 + self._d2]:
            trades = self._trades()
            if trades:
                trades.append(N.NOTRADE)
                self._phase = P_TRADE
                self._legal = trades  # computed anyway: keep it as the legal list

    def _build(self, action: str) -> None:
        me = self._turn
        refill = False
        if action != _PASS:
            is_landmark, index = _BUILD_TARGET[action]
            if is_landmark:
                m = LANDMARKS[index]
                self._coins[me] -= m.cost
                self._built[me] |= m.bit
                if self._built[me] == ALL_LANDMARKS:
                    self._finish(me)
                    return
            else:
                self._coins[me] -= ESTABLISHMENTS[index].cost
                owned = self._cards[me]
                owned[index] += 1
                if owned[index] >= self._cap[index]:
                    self._full[me] |= 1 << index
                self._supply[index] -= 1
                if not self._supply[index]:
                    self._empty |= 1 << index
                    refill = self._komme
        if (
            self._ndice == 2
            and self._d1 == self._d2
            and self._active[me] & AMUSEMENT_PARK
            and not self._extra
        ):
            seat, extra = me, True
        else:
            seat, extra = self._next[me], False
        if refill and self._needs_refill():
            self._next_turn = (seat, extra)
            return
        self._start_turn(seat, extra)

    def _next_seat(self, seat: int) -> int:
        n = self.num_players
        nxt = (seat + 1) % n
        while self._out[nxt]:
            nxt = (nxt + 1) % n
        return nxt

    def _finish(self, seat: int) -> None:
        """``seat`` completed all landmarks: it wins (Kosmos) or is placed and leaves (Yucata)."""
        self._placing.append(seat)
        self._finished_turn[seat] = self._turns[seat]
        if self._kosmos:
            self._game_over()
            return
        self._out[seat] = True
        self._seat_orders()
        if len(self._inside) == 1:
            self._placing.append(self._inside[0])
            self._game_over()
            return
        self._start_turn(self._next[seat], False)

    def _game_over(self) -> None:
        self._phase = P_OVER
        self._player = TERMINAL

    def _needs_refill(self) -> bool:
        """Komme, was wolle: start drawing if fewer than 10 kinds are on display and cards are left."""
        if self._deck_total and sum(1 for c in self._supply if c) < DISPLAY_KINDS:
            self._phase = P_DRAW
            self._player = CHANCE
            return True
        return False

    def _draw(self, kind: int) -> None:
        self._deck[kind] -= 1
        self._deck_total -= 1
        self._supply[kind] += 1
        self._empty &= ~(1 << kind)
        if not self._needs_refill():
            self._start_turn(*self._next_turn)

    # ----- results, views, copies -----------------------------------------------------
    def result(self) -> list[SeatResult]:
        n = self.num_players
        placed = {seat: i for i, seat in enumerate(self._placing)}
        landmarks = [bin(b).count("1") for b in self._built]
        keys: list[tuple[int, int]]
        if self._kosmos and self._phase == P_OVER:
            keys = [(1, 0) if seat in placed else (0, 0) for seat in range(n)]
        else:
            keys = [(1, -placed[seat]) if seat in placed else (0, landmarks[seat]) for seat in range(n)]
        ranks = ranks_from_keys(keys)
        return [SeatResult(seat, ranks[seat], float(landmarks[seat])) for seat in range(n)]

    def view(self, seat: int | None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, seat)

    def _describe(self, action: str, lang: str) -> str:
        from .notation import describe_action

        return describe_action(self, action, lang)

    def _describe_all(self, actions: Iterable[str], lang: str) -> list[str]:
        """The same sentences as `_describe` one by one; the mover's name and the build texts made once."""
        from .notation import describe_actions

        return describe_actions(self, actions, lang)

    def explain_illegal(self, action: str) -> str:
        from .notation import explain_illegal

        return explain_illegal(self, action)

    def resample_hidden(self, seat: int | None, rng: random.Random) -> State | None:
        """Nothing is hidden: the deck order is never stored (each draw is a chance action).

        How many cards of each kind are left in the deck is public, as on Yucata,
        so there is no other position that a seat could not tell apart from this one.
        """
        return None

    def snapshot(self) -> dict[str, Any]:
        return {
            "coins": list(self._coins),
            "cards": [list(c) for c in self._cards],
            "built": list(self._built),
            "active": list(self._active),
            "placing": list(self._placing),
            "out": list(self._out),
            "turns": list(self._turns),
            "finished_turn": list(self._finished_turn),
            "supply": list(self._supply),
            "deck": list(self._deck),
            "turn": self._turn,
            "extra": self._extra,
            "ndice": self._ndice,
            "dice": [self._d1, self._d2],
            "rerolled": self._rerolled,
            "phase": PHASE_NAMES[self._phase],
            # Where play resumes once the display is refilled; meaningless otherwise.
            "next_turn": list(self._next_turn) if self._phase == P_DRAW else None,
        }

    def clone(self) -> MachiKoroState:
        other = object.__new__(MachiKoroState)
        d = other.__dict__
        d.update(self.__dict__)
        d["options"] = dict(self.options)
        d["_history"] = self._history[:]
        d["_coins"] = self._coins[:]
        d["_cards"] = [c[:] for c in self._cards]
        d["_built"] = self._built[:]
        d["_active"] = self._active[:]
        d["_placing"] = self._placing[:]
        d["_out"] = self._out[:]
        d["_turns"] = self._turns[:]
        d["_finished_turn"] = self._finished_turn[:]
        d["_supply"] = self._supply[:]
        d["_deck"] = self._deck[:]
        d["_full"] = self._full[:]
        # The seat orders and the legal list are only ever replaced, never changed in place.
        return other

    # ----- read access for views, texts and tests -----------------------------------------
    @property
    def turn(self) -> int:
        return self._turn

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    def coins(self, seat: int) -> int:
        return self._coins[seat]

    def count(self, seat: int, card_id: str) -> int:
        return self._cards[seat][KIND_INDEX[card_id]]

    def has_built(self, seat: int, landmark_id: str) -> bool:
        return bool(self._built[seat] & LANDMARKS[LANDMARK_INDEX[landmark_id]].bit)

    def landmark_active(self, seat: int, landmark_id: str) -> bool:
        return bool(self._active[seat] & LANDMARKS[LANDMARK_INDEX[landmark_id]].bit)

    def pile(self, card_id: str) -> int:
        return self._supply[KIND_INDEX[card_id]]

    def deck_count(self, card_id: str | None = None) -> int:
        return self._deck_total if card_id is None else self._deck[KIND_INDEX[card_id]]

    def dice(self) -> tuple[int, ...]:
        if not self._d1:
            return ()
        return (self._d1, self._d2) if self._d2 else (self._d1,)

    def placing(self) -> list[int]:
        return list(self._placing)

    def turns_of(self, seat: int) -> int:
        """Turns ``seat`` has begun so far (extra turns included)."""
        return self._turns[seat]

    def finished_turn(self, seat: int) -> int | None:
        """The turn of its own in which ``seat`` completed its landmarks (``None``: not finished)."""
        return self._finished_turn[seat]

    def is_out(self, seat: int) -> bool:
        return self._out[seat]

    @property
    def extra_turn(self) -> bool:
        return self._extra

    @property
    def dice_count(self) -> int | None:
        """How many dice this turn's roll uses; ``None`` while the player has still to choose."""
        return self._ndice or None

    @property
    def rerolled(self) -> bool:
        """Whether the Radio Tower's re-roll has been used this turn."""
        return self._rerolled

    def next_turn(self) -> tuple[int, bool] | None:
        """While the display is refilled: the seat that plays next and whether it is an extra turn."""
        return self._next_turn if self._phase == P_DRAW else None

    def arrange(
        self,
        *,
        coins: dict[int, int] | None = None,
        cards: dict[int, dict[str, int]] | None = None,
        landmarks: dict[int, list[str]] | None = None,
        piles: dict[str, int] | None = None,
        deck: dict[str, int] | None = None,
        turn: int | None = None,
    ) -> MachiKoroState:
        """Set up a position at the start of a turn (for scenario tests and puzzles).

        ``cards`` replaces a player's whole city; ``landmarks`` are built *and* in
        effect; ``piles`` and ``deck`` set card counts on the display and in the
        deck.  The turn restarts for ``turn`` (default: the current one).  Only
        allowed before a turn's dice are rolled, so no half-resolved roll is lost.
        """
        if self._phase not in (P_DRAW, P_ROLL, P_DICE) or self._rerolled:
            raise ValueError("arrange() works only before a turn's dice are rolled")
        for seat, amount in (coins or {}).items():
            self._coins[seat] = amount
        for seat, owned in (cards or {}).items():
            self._cards[seat] = [owned.get(e.id, 0) for e in ESTABLISHMENTS]
        for seat, ids in (landmarks or {}).items():
            mask = 0
            for lm in ids:
                mask |= LANDMARKS[LANDMARK_INDEX[lm]].bit
            self._built[seat] = mask
            self._active[seat] = mask
        for card_id, count in (piles or {}).items():
            self._supply[KIND_INDEX[card_id]] = count
        for card_id, count in (deck or {}).items():
            self._deck[KIND_INDEX[card_id]] = count
        self._deck_total = sum(self._deck)
        self._refresh_masks()
        if self._phase != P_DRAW:
            self._start_turn(self._turn if turn is None else turn, False)
        self._legal = None
        return self


__all__ = ["PHASE_NAMES", "MachiKoroState"]
