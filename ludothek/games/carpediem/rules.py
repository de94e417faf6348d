"""The flow of a game of Carpe Diem: setup, turns, rewards, scoring rounds, the end.

The state is a small machine driven by ``stage``.  Every shuffle and deal is a
chance action (``start:``, ``board:``, ``frame:``, ``card:``, ``tile:``,
``fountain:``); every decision is a player action.  ``docs/games/carpediem.md``
lists the notation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
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
    seat_name,
)

from . import scoring
from .components import (
    DWELLINGS,
    LANDSCAPES,
    SINGLES,
    VILLA,
    WARES,
    ComponentSet,
    ScoringCard,
    circle_pairs,
    load,
)
from .district import District, Feature
from .geometry import ROTATIONS, cell_name, parse_cell
from .player import Player

PLAYER_STAGES = ("place", "move", "take", "build", "freturn", "seal", "sealbuild", "disc", "card")
CHANCE_STAGES = ("start", "board", "frame", "deal", "reveal", "fdraw")
#: The player of the stages that are not a seat's decision.
STAGE_PLAYER = {**dict.fromkeys(CHANCE_STAGES, CHANCE), "end": TERMINAL}
CARD_MODES = ("fulfil", "bread", "both", "fail")
#: Order in which the rewards of features completed by one tile are given.
REWARD_ORDER = {"landscape": 0, "dwelling": 1, "single": 2, "villa": 3}


def circle_name(a: int, b: int) -> str:
    return f"{a}-{b}"


#: ``build:<cell>:<rotation>`` for every cell and rotation, made once (interned) rather than per search.
BUILD_ACTIONS: dict[tuple[int, int], str] = {
    (cell, rot): f"build:{cell_name(cell)}:{rot}" for cell in range(36) for rot in ROTATIONS
}
#: ``move:<space>`` by the 0-based space.
MOVE_ACTIONS = tuple(f"move:{t + 1}" for t in range(64))
#: The other way round: a well-formed build action's cell and rotation.
BUILD_PARSED: dict[str, tuple[int, int]] = {name: key for key, name in BUILD_ACTIONS.items()}
#: ``BUILD_BY_MASK[cell][mask]``: the build actions on ``cell`` for a mask of rotations (bit ``rotation // 90``),
#: the table `District.placements_as` reads so that a placement list is made of ready strings.
BUILD_BY_MASK: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(BUILD_ACTIONS[cell, 90 * q] for q in range(4) if mask >> q & 1) for mask in range(16))
    for cell in range(36)
)
#: ``move:<space>:bread`` and ``place:<space>`` by the 0-based space.
MOVE_BREAD_ACTIONS = tuple(f"move:{t + 1}:bread" for t in range(64))
PLACE_ACTIONS = tuple(f"place:{t + 1}" for t in range(64))
#: The stages whose decision is a build (checked against the district's frontier, see `_validate`).
BUILD_STAGES = ("build", "sealbuild")
#: Every kind of part a completed feature may have (checked after each reward).
FEATURE_KINDS = frozenset((*LANDSCAPES, *DWELLINGS, *SINGLES, VILLA))

#: History entries are immutable, so a public action's entry is made once per (seat, action) and shared:
#: building a frozen entry costs more than the rest of a simple action's bookkeeping.
_ENTRIES: dict[tuple[int, str], HistoryEntry] = {}
_ENTRIES_MAX = 50_000


@cache
def circle_table(rows: int, cols: int) -> tuple[tuple[int, int, str, str], ...]:
    """Every circle of a scoring grid with its name and its ``disc:`` action: (a, b, "a-b", "disc:a-b")."""
    return tuple((a, b, circle_name(a, b), f"disc:{circle_name(a, b)}") for a, b in circle_pairs(rows, cols))


def _uniform_pick(items: Sequence[str], rng: random.Random) -> str:
    """The item `State.sample_outcome` draws from equally likely outcomes, with the same single ``rng.random()``.

    Walking the same running sum of ``1 / n`` gives the very same item as the
    contract's default, so seeded games stay the same, without building the
    outcome strings and pairs first.
    """
    p = 1.0 / len(items)
    x = rng.random()
    acc = 0.0
    for item in items:
        acc += p
        if x < acc:
            return item
    return items[-1]


StartLists = tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[str, ...]], tuple[str, ...], tuple[str, ...]]
#: By the identity of a component set (kept alive here): its start lists, see `_start_lists`.
_STARTS: dict[int, tuple[ComponentSet, StartLists]] = {}


def _start_lists(comp: ComponentSet) -> StartLists:
    """Boards, frames, cards by letter and the light and dark tiles, sorted: the same for every new game."""
    known = _STARTS.get(id(comp))
    if known is not None and known[0] is comp:
        return known[1]
    cards = {L: tuple(sorted(c.id for c in comp.cards.values() if c.letter == L)) for L in "ABCD"}
    lists = (tuple(sorted(comp.boards)), tuple(sorted(comp.frames)), cards,
             tuple(comp.tiles_with_back("light")), tuple(comp.tiles_with_back("dark")))
    if len(_STARTS) > 16:  # tests build a few variant component sets; never let them pile up
        _STARTS.clear()
    _STARTS[id(comp)] = (comp, lists)
    return lists


class CarpeDiemState(State):
    """A position; see the module docstring for the stages."""

    def __init__(self, game: Game, num_players: int, options: dict[str, str], comp: ComponentSet | None = None):
        super().__init__(game, num_players, options)
        self.comp = comp or load()
        rules = self.comp.rules
        self.setup = rules.setups[num_players]
        self.stage = "start"
        self.start = -1
        self.pass_no = 0
        self.turn_index = 0
        self.players: list[Player] = []
        boards, frames, cards, light, dark = _start_lists(self.comp)
        self.boards_left = list(boards)
        self.frames_left = list(frames)
        self.pending_boards: list[str] = []
        self.pending_frames: list[list[str]] = [[] for _ in range(num_players)]
        cells = rules.grid_rows * rules.grid_cols
        self.slots: list[str | None] = [None] * (cells + 1)  # index 1..12
        self.deal_slots = [s for s in range(1, cells + 1) if s not in self.setup.empty_slots]
        self.deal_letters = dict(self.setup.cards_per_letter)
        self.cards_left = {L: list(ids) for L, ids in cards.items()}
        self.discs: dict[str, int] = {}
        self.light_left = list(light)
        self.dark_left = list(dark)
        self.seal: list[str | None] = []
        self.rondel: list[list[str]] = [[] for _ in range(rules.rondel_spaces)]
        self.taken = [0] * rules.rondel_spaces
        self.removed: list[str] = []  # tiles that left the game unused (2 and 3 players)
        self.reveal_left = 0
        self.reveal_target = "seal"
        self.held: str | None = None
        self.pending: list[str] = []  # rewards still due this turn: "fountain" / "craftsman"
        self.fdeck = {k: f.copies for k, f in self.comp.fountains.items()}
        self.fbottom: list[tuple[str, int]] = []  # returned cards under the pile: (kind, who returned it)
        self.fdrawn: list[str] = []
        self.fdraw_left = 0
        self.order: list[int] = []
        self.order_index = 0
        self.cards_due: list[int] = []
        self.stamp_counter = 0
        self.final: list[int] | None = None
        self.actor = -1  # the seat whose decision is due in turn stages
        #: The legal actions last asked for: (history length, stage, actions); see `_legal_now`.
        self._memo_legal: tuple[int, str, tuple[str, ...]] | None = None

    # ----- helpers -----------------------------------------------------------------
    def clone(self) -> CarpeDiemState:
        """An independent copy: every container is copied (spelled out, the bots' search clones at every iteration)."""
        other = CarpeDiemState.__new__(CarpeDiemState)
        other.__dict__.update(self.__dict__)
        other._memo_legal = None  # a copy may be changed in place (resample_hidden)
        other._history = list(self._history)
        other.options = dict(self.options)
        other.players = [p.copy() for p in self.players]
        other.boards_left = list(self.boards_left)
        other.frames_left = list(self.frames_left)
        other.pending_boards = list(self.pending_boards)
        other.pending_frames = [list(f) for f in self.pending_frames]
        other.slots = list(self.slots)
        other.deal_slots = list(self.deal_slots)
        other.deal_letters = dict(self.deal_letters)
        other.cards_left = {k: list(v) for k, v in self.cards_left.items()}
        other.discs = dict(self.discs)
        other.light_left = list(self.light_left)
        other.dark_left = list(self.dark_left)
        other.seal = list(self.seal)
        other.rondel = [list(r) for r in self.rondel]
        other.taken = list(self.taken)
        other.removed = list(self.removed)
        other.pending = list(self.pending)
        other.fdeck = dict(self.fdeck)
        other.fbottom = list(self.fbottom)
        other.fdrawn = list(self.fdrawn)
        other.order = list(self.order)
        other.cards_due = list(self.cards_due)
        other.final = list(self.final) if self.final is not None else None
        return other

    def seat_of_turn(self) -> int:
        return (self.start + self.pass_no + self.turn_index) % self.num_players

    def card(self, slot: int) -> ScoringCard:
        cid = self.slots[slot]
        assert cid is not None
        return self.comp.cards[cid]

    def circles(self) -> list[tuple[int, int]]:
        """Every circle of the scoring grid: a pair of orthogonally neighbouring card spaces."""
        return list(circle_pairs(self.comp.rules.grid_rows, self.comp.rules.grid_cols))

    def free_circles(self) -> list[tuple[int, int]]:
        return [(a, b) for a, b, _, _ in self._free_circle_rows()]

    def _free_circle_rows(self) -> list[tuple[int, int, str, str]]:
        """The circles between two dealt cards without a disc, with their names and actions (see `circle_table`)."""
        slots, discs = self.slots, self.discs
        rules = self.comp.rules
        return [row for row in circle_table(rules.grid_rows, rules.grid_cols)
                if slots[row[0]] is not None and slots[row[1]] is not None and row[2] not in discs]

    def banner_order(self) -> list[int]:
        """Seats from the front of the banner track to the back; on one space the top disc first."""
        L = self.comp.rules.banner_track_length
        return sorted(range(self.num_players),
                      key=lambda s: (-min(self.players[s].steps, L), -self.players[s].stamp))

    def running_total(self, seat: int) -> int:
        """The public total as Yucata shows it: cards, banner, frame goals and completed villas."""
        p = self.players[seat]
        return p.vp + p.steps + p.district.frame_vp() + p.district.villa_vp()

    def final_total(self, seat: int) -> int:
        p = self.players[seat]
        leftovers = scoring.leftover_items(p.wares, p.coins, p.bread, len(p.stored))
        return (self.running_total(seat) + leftovers // self.comp.rules.leftover_divisor
                + scoring.fountain_vp(self.comp, p.fountains, p.district))

    def _advance(self, seat: int, steps: int) -> None:
        if steps <= 0:
            return
        self.players[seat].steps += steps
        self.stamp_counter += 1
        self.players[seat].stamp = self.stamp_counter

    def move_targets(self, seat: int) -> list[int]:
        """Spaces the patrician reaches without bread: a neighbour, skipping spaces without tiles."""
        pos = self.players[seat].pos
        assert pos is not None
        n = len(self.rondel)
        out: list[int] = []
        rondel = self.rondel
        for d in (1, -1):
            t = (pos + d) % n
            while not rondel[t] and t != pos:
                t = (t + d) % n
            if rondel[t] and t not in out:
                out.append(t)
        return out if len(out) < 2 or out[0] < out[1] else [out[1], out[0]]

    def placeable_seals(self, seat: int) -> list[str]:
        d = self.players[seat].district
        return [t for t in dict.fromkeys(s for s in self.seal if s) if d.can_place(self.comp.tiles[t])]

    def fountain_deck_size(self) -> int:
        return sum(self.fdeck.values()) + len(self.fbottom)

    # ----- the contract ------------------------------------------------------------
    def current_player(self) -> int:
        kind = STAGE_PLAYER.get(self.stage)
        return self.actor if kind is None else kind

    def _turn_seat(self) -> int | None:
        """The fountain's draw belongs to the turn of the seat that took the fountain; every other chance
        step (setting up a round, revealing tiles) belongs to no turn and waits until the turn is handed on."""
        if self.stage == "fdraw":
            return self.actor
        kind = STAGE_PLAYER.get(self.stage)
        return self.actor if kind is None else None

    def legal_actions(self) -> list[str]:
        """The legal actions, built afresh; the next move's check reuses them (see `_legal_now`).

        The check keeps its own frozen copy: a caller that edits the list it got changes nothing legal.
        """
        st = self.stage
        if st == "build":  # the most frequent decision, and the longest list: no further call
            assert self.held is not None
            legal = self.players[self.actor].district.placements_as(self.comp.tiles[self.held], BUILD_BY_MASK)
            legal.append("store")
        else:
            legal = self._legal_actions()
        self._memo_legal = (len(self._history), st, tuple(legal))
        return legal

    def _legal_now(self) -> tuple[str, ...]:
        """The legal actions a bot or player just asked for if still for this position, else built now.

        A bot asks for the list and then plays one of it, which is checked
        against the same list: building it once saves a third of the engine's
        time.  The memo is keyed by the history's length (every applied action
        and undo adds an entry; a clone starts without a memo) and the stage.
        """
        memo = self._memo_legal
        if memo is not None and memo[0] == len(self._history) and memo[1] == self.stage:
            return memo[2]
        return tuple(self.legal_actions())

    def _legal_actions(self) -> list[str]:
        st = self.stage
        if st == "build":  # the most frequent decisions first
            assert self.held is not None
            acts = self.players[self.actor].district.placements_as(self.comp.tiles[self.held], BUILD_BY_MASK)
            acts.append("store")
            return acts
        if st == "move":
            seat = self.actor
            normal = self.move_targets(seat)
            acts = [MOVE_ACTIONS[t] for t in normal]
            if self.players[seat].bread > 0:
                rondel = self.rondel
                acts += [MOVE_BREAD_ACTIONS[t] for t in range(len(rondel)) if rondel[t] and t not in normal]
            return acts
        if st == "take":
            pos = self.players[self.actor].pos
            assert pos is not None
            return ["take:" + t for t in self.rondel[pos]]
        if st == "end":
            return []
        if st == "start":
            return [f"start:{s}" for s in range(self.num_players)]
        if st == "board":
            return [f"board:{b}" for b in self.boards_left]
        if st == "frame":
            return [f"frame:{f}" for f in self.frames_left]
        if st == "deal":
            return [f"card:{c}" for L in "ABCD" if self.deal_letters.get(L) for c in self.cards_left[L]]
        if st == "reveal":
            return [f"tile:{t}" for t in self._reveal_stack()]
        if st == "fdraw":
            return [f"fountain:{k}" for k, n in self.fdeck.items() if n > 0]
        seat = self.actor
        p = self.players[seat]
        if st == "place":
            used = {q.pos for q in self.players}
            return [PLACE_ACTIONS[s] for s in range(len(self.rondel)) if s not in used]
        if st == "move":
            normal = self.move_targets(seat)
            acts = [f"move:{t + 1}" for t in normal]
            if p.bread > 0:
                acts += [f"move:{t + 1}:bread" for t in range(len(self.rondel)) if self.rondel[t] and t not in normal]
            return acts
        if st == "take":
            assert p.pos is not None
            return [f"take:{t}" for t in self.rondel[p.pos]]
        if st in BUILD_STAGES:
            assert self.held is not None
            acts = p.district.placements_as(self.comp.tiles[self.held], BUILD_BY_MASK)
            return [*acts, "store"] if st == "build" else acts
        if st == "freturn":
            if len(self.fdrawn) < 2:
                return ["keep"]
            return [f"return:new{i + 1}" for i in range(len(self.fdrawn))] + [
                f"return:old{i + 1}" for i in range(len(p.fountains))]
        if st == "seal":
            return [f"seal:{t}" for t in self.placeable_seals(seat)]
        if st == "disc":
            return [row[3] for row in self._free_circle_rows()]
        if st == "card":
            return [f"card:{slot}:{mode}" for slot in self.cards_due for mode in self.card_modes(seat, slot)]
        raise AssertionError(st)  # pragma: no cover

    def card_modes(self, seat: int, slot: int) -> list[str]:
        """How ``seat`` may resolve the card on ``slot``: with its own goods, with bread, both, or fail."""
        p = self.players[seat]
        card = self.card(slot)
        times = scoring.card_times(card, p.district, p.wares, p.coins)
        bread = p.bread >= self.comp.rules.bread_per_card
        # A red card may be handed in fewer times than the most the player could pay ("gibt er sie
        # mehrfach ab"): ``fulfil:<n>`` keeps wares and coins for the other card or a later scoring.
        # Plain ``fulfil`` is the most; green cards only ask to own things, so they have no count.
        fewer = [f":{n}" for n in range(1, times)] if card.colour == "red" else []
        modes = []
        if times:
            modes += ["fulfil", *(f"fulfil{n}" for n in fewer)]
        if bread and (card.colour == "red" or not times):
            modes.append("bread")  # 3 bread instead (a green card's own goods cost nothing, so only if none)
        if bread and times:
            modes += ["both", *(f"both{n}" for n in fewer)]
        return modes or ["fail"]

    def _reveal_stack(self) -> list[str]:
        if self.reveal_target == "seal" or self.pass_no == self.comp.rules.passes - 1:
            return self.dark_left
        return self.light_left

    def chance_outcomes(self) -> list[tuple[str, float]]:
        if self.stage == "deal":
            slots_left = sum(self.deal_letters.values())
            out = []
            for L in "ABCD":
                k = self.deal_letters.get(L, 0)
                if k:
                    pool = self.cards_left[L]
                    out += [(f"card:{c}", k / slots_left / len(pool)) for c in pool]
            return out
        if self.stage == "fdraw":
            total = sum(self.fdeck.values())
            return [(f"fountain:{k}", n / total) for k, n in self.fdeck.items() if n > 0]
        return super().chance_outcomes()

    def sample_outcome(self, rng: random.Random) -> str:
        """One chance outcome drawn with exactly the probabilities of `chance_outcomes`, without listing them.

        A tile reveal is a uniform draw from its stack, a deal a letter by its
        open slots and then a uniform card of that letter, a fountain draw a
        card of the pile by its copies.
        """
        st = self.stage
        if st == "reveal":
            stack = (self.dark_left if self.reveal_target == "seal" or self.pass_no == self.comp.rules.passes - 1
                     else self.light_left)  # `_reveal_stack`, spelled out on the hot path
            return "tile:" + rng.choice(stack)
        if st == "deal":
            x = rng.randrange(sum(self.deal_letters.values()))
            for L in "ABCD":
                k = self.deal_letters.get(L, 0)
                if x < k:
                    return "card:" + rng.choice(self.cards_left[L])
                x -= k
        if st == "fdraw":
            x = rng.randrange(sum(self.fdeck.values()))
            for kind, n in self.fdeck.items():
                if x < n:
                    return "fountain:" + kind
                x -= n
        # The uniform setup draws: the contract's own way of drawing (one rng.random() walked over the
        # outcomes), without making every outcome's string first.
        if st == "board" and self.boards_left:
            return "board:" + _uniform_pick(self.boards_left, rng)
        if st == "frame" and self.frames_left:
            return "frame:" + _uniform_pick(self.frames_left, rng)
        return super().sample_outcome(rng)

    def _visibility(self, action: str) -> frozenset[int] | None:
        if action.startswith("fountain:"):
            return frozenset({self.actor})
        return None

    def _validate(self, action: str) -> None:
        """Check a build directly (the full list of placements is only needed to show it)."""
        if action.startswith("build:") and self.stage in BUILD_STAGES and self.held is not None:
            parsed = BUILD_PARSED.get(action)
            if parsed is not None:  # well formed: the district's frontier knows whether it fits
                if self.players[self.actor].district.fits_rotation(self.comp.tiles[self.held], *parsed):
                    return
                raise IllegalAction(self.explain_illegal(action))
            fields = action.split(":")
            if len(fields) == 3 and fields[2] in ("0", "90", "180", "270") and len(fields[1]) == 2:
                try:
                    cell = parse_cell(fields[1])
                except ValueError:
                    raise IllegalAction(f"'{action}': cells are a1 to f6") from None
                orient = self.comp.tiles[self.held].orientation(int(fields[2]))
                if orient is not None and self.players[self.actor].district.fits(orient, cell):
                    return
            raise IllegalAction(self.explain_illegal(action))
        st = self.stage
        if st in ("reveal", "deal", "fdraw"):
            head, _, arg = action.partition(":")
            if st == "reveal":
                ok = head == "tile" and arg in self._reveal_stack()
            elif st == "deal":
                card = self.comp.cards.get(arg) if head == "card" else None
                ok = card is not None and self.deal_letters.get(card.letter, 0) > 0 and arg in self.cards_left[card.letter]
            else:
                ok = head == "fountain" and self.fdeck.get(arg, 0) > 0
            if not ok:
                raise IllegalAction(self.explain_illegal(action))
            return
        if action not in self._legal_now():
            raise IllegalAction(self.explain_illegal(action))

    def explain_illegal(self, action: str) -> str:
        if self.stage == "end":
            return "the game is over"
        head = action.split(":", 1)[0] if isinstance(action, str) else ""
        wanted = {
            "place": "place your patrician with place:<space>",
            "move": "move your patrician with move:<space> (or move:<space>:bread)",
            "take": "take a tile from your space with take:<tile>",
            "build": "build the tile with build:<cell>:<rotation> where it fits, or store it",
            "sealbuild": "build the seal tile with build:<cell>:<rotation> where it fits",
            "freturn": "return one fountain card with return:new<i> or return:old<i>",
            "seal": "choose a seal-space tile that fits with seal:<tile>",
            "disc": "put a disc on a free circle with disc:<a>-<b>",
            "card": "resolve one of your two cards with card:<slot>:<fulfil|bread|both|fail>, or fulfil:<n>/both:<n> to hand a red card in fewer times",
        }.get(self.stage)
        if head == "move" and self.stage == "move":
            reach = " or ".join(str(t + 1) for t in self.move_targets(self.actor))
            return (f"'{action}' is not legal now: the patrician moves to a neighbouring space with tiles ({reach}),"
                    " or pays 1 bread (move:<space>:bread) to go to any other space with tiles")
        if head == "build" and self.stage in ("build", "sealbuild"):
            district = self.players[self.actor].district
            if district.empty:
                shovel = cell_name(self.comp.boards[district.board].shovel)
                return (f"'{action}' does not fit: the first tile of a district goes on the shovel cell {shovel}, "
                        "turned to match the frame")
            return f"'{action}' does not fit: the tile must touch a built tile and match every neighbour and the frame"
        if wanted:
            return f"'{action}' is not legal now: {wanted}"
        return f"'{action}' is not legal now: a random outcome is due"

    # ----- applying ----------------------------------------------------------------
    def _apply(self, action: str) -> None:
        head, _, arg = action.partition(":")
        HANDLERS[head](self, arg)

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        """The engine's fast-path hook, in fewer calls than the checked path: bots' and replays' hot path.

        Anything unusual (not a string, the game over, out of turn, illegal)
        goes back to the engine's checked path, which raises its refusal;
        otherwise it is the contract's sequence: validate, apply, record with
        the chance outcome's visibility.
        """
        st = self.stage
        kind = STAGE_PLAYER.get(st)
        player = self.actor if kind is None else kind
        if type(action) is not str or player == TERMINAL or (seat is not None and seat != player):
            return False
        head, _, arg = action.partition(":")
        if st == "reveal":  # a third of all actions: checked by finding the tile in its stack (`_reveal_stack`)
            stack = (self.dark_left if self.reveal_target == "seal" or self.pass_no == self.comp.rules.passes - 1
                     else self.light_left)
            try:
                index = stack.index(arg) if head == "tile" else -1
            except ValueError:
                index = -1
            if index < 0:
                return False
            del stack[index]
            self._revealed(arg)
        else:
            if kind is None and head != "build":
                memo = self._memo_legal  # `_legal_now`, spelled out on the hot path
                if memo is not None and memo[0] == len(self._history) and memo[1] == st:
                    legal: Sequence[str] = memo[2]
                else:
                    legal = self.legal_actions()
                if action not in legal:
                    return False
            else:
                try:
                    self._validate(action)
                except IllegalAction:
                    return False
            if player == CHANCE:
                visible_to = self._visibility(action)
                if visible_to is not None:
                    HANDLERS[head](self, arg)
                    self._history.append(HistoryEntry(player, action, visible_to))
                    return True
            HANDLERS[head](self, arg)
        key = (player, action)
        try:  # a subscript, not ``.get``: this runs for every action a bot or replay makes
            entry = _ENTRIES[key]
        except KeyError:
            if len(_ENTRIES) >= _ENTRIES_MAX:
                _ENTRIES.clear()
            entry = _ENTRIES[key] = HistoryEntry(player, action, None)
        self._history.append(entry)
        return True

    def _do_start(self, arg: str) -> None:
        self.start = int(arg)
        n = self.num_players
        self.players = []
        self.stage = "board"
        assert 0 <= self.start < n

    def _do_board(self, arg: str) -> None:
        self.boards_left.remove(arg)
        self.pending_boards.append(arg)
        if len(self.pending_boards) == self.num_players:
            self.stage = "frame"

    def _do_frame(self, arg: str) -> None:
        self.frames_left.remove(arg)
        seat = next(s for s in range(self.num_players) if len(self.pending_frames[s]) < 4)
        self.pending_frames[seat].append(arg)
        if all(len(f) == 4 for f in self.pending_frames):
            self._create_players()
            self.stage = "deal"

    def _create_players(self) -> None:
        n = self.num_players
        self.players = [Player(District(self.comp, self.pending_boards[s], self.pending_frames[s])) for s in range(n)]
        for i in range(n):
            seat = (self.start + i) % n
            self.players[seat].vp = self.setup.starting_vp[i]
            self.stamp_counter += 1
            self.players[seat].stamp = self.stamp_counter

    def _do_card(self, arg: str) -> None:
        if self.stage == "card":
            self._resolve_card(arg)
            return
        card = self.comp.cards[arg]
        self.cards_left[card.letter].remove(arg)
        self.deal_letters[card.letter] -= 1
        slot = self.deal_slots[len(self.slots) - self.slots.count(None)]  # the next space in dealing order
        self.slots[slot] = arg
        if sum(self.deal_letters.values()) == 0:
            self.stage = "place"
            self.actor = self.start

    def _do_place(self, arg: str) -> None:
        self.players[self.actor].pos = int(arg) - 1
        if all(p.pos is not None for p in self.players):
            self._begin_reveal("seal")
        else:
            self.actor = (self.actor + 1) % self.num_players

    def _begin_reveal(self, target: str) -> None:
        self.stage = "reveal"
        self.reveal_target = target
        rules = self.comp.rules
        self.reveal_left = rules.seal_spaces if target == "seal" else rules.rondel_spaces * rules.tiles_per_space

    def _do_tile(self, arg: str) -> None:
        self._reveal_stack().remove(arg)
        self._revealed(arg)

    def _revealed(self, arg: str) -> None:
        """Put the tile just taken from its stack on the seal spaces or the rondel."""
        rules = self.comp.rules
        if self.reveal_target == "seal":
            self.seal.append(arg)
        else:
            done = rules.rondel_spaces * rules.tiles_per_space - self.reveal_left
            self.rondel[done // rules.tiles_per_space].append(arg)
        self.reveal_left -= 1
        if self.reveal_left == 0:
            if self.reveal_target == "seal":
                self._begin_reveal("rondel")
            else:
                self.taken = [0] * rules.rondel_spaces
                self.turn_index = 0
                self._begin_turn()

    def _begin_turn(self) -> None:
        self.actor = self.seat_of_turn()
        self.stage = "move"

    def _do_move(self, arg: str) -> None:
        space, _, bread = arg.partition(":")
        p = self.players[self.actor]
        if bread:
            p.bread -= 1
        p.pos = int(space) - 1
        self.stage = "take"

    def _do_take(self, arg: str) -> None:
        p = self.players[self.actor]
        assert p.pos is not None
        space = self.rondel[p.pos]
        space.remove(arg)
        self.taken[p.pos] += 1
        if self.taken[p.pos] >= self.setup.taken_before_clear:
            self.removed.extend(space)  # the rest leave the game (2 and 3 players)
            space.clear()
        self.held = arg
        self.stage = "build"

    def _do_store(self, arg: str) -> None:
        assert self.held is not None
        self.players[self.actor].stored.append(self.held)
        self.held = None
        self._continue_turn()

    def _do_build(self, arg: str) -> None:
        cell, rotation = BUILD_PARSED["build:" + arg]
        assert self.held is not None and rotation in ROTATIONS
        seat = self.actor
        p = self.players[seat]
        tile = self.comp.tiles[self.held]
        self.held = None
        features = p.district.place(tile, rotation, cell)
        if cell in self.comp.boards[p.district.board].banners:
            self._advance(seat, 1)
        self._reward(seat, features)
        p.district.new_goals(features)
        self._continue_turn()

    def _reward(self, seat: int, features: list[Feature]) -> None:
        """Give the rewards of features completed by one tile; fountains and craftsmen wait in `pending`."""
        p = self.players[seat]
        for f in sorted(features, key=lambda f: REWARD_ORDER[f.family]) if len(features) > 1 else features:
            if f.kind in LANDSCAPES:
                ware = LANDSCAPES[f.kind]
                p.wares[ware] += len(f.cells) - 1
            elif f.kind == "administrator":
                self._advance(seat, 2)
            elif f.kind == "merchant":
                total = sum(p.wares.values())
                p.wares = dict.fromkeys(WARES, 0)
                p.coins += total + 1
            elif f.kind == "baker":
                p.bread += 2
            elif f.kind == "craftsman":
                self.pending.append("craftsman")
            elif f.kind == "market":
                p.coins += 1
            elif f.kind == "bakery":
                p.bread += 1
            elif f.kind == "fountain":
                self.pending.append("fountain")
        assert all(f.kind in FEATURE_KINDS for f in features)

    def _continue_turn(self) -> None:
        """Give the next waiting reward, or end the turn."""
        while self.pending:
            reward = self.pending.pop(0)
            if reward == "craftsman":
                if self.placeable_seals(self.actor):
                    self.stage = "seal"
                    return
                continue  # no seal-space tile fits: the reward lapses
            if self._start_fountain():
                return
        self._end_turn()

    def _start_fountain(self) -> bool:
        """Look at the top two fountain cards; False when the pile is empty."""
        self.fdrawn = []
        self.fdraw_left = min(2, self.fountain_deck_size())
        if self.fdraw_left == 0:
            return False
        self._draw_known()
        return True

    def _draw_known(self) -> None:
        """Draw from the returned cards under the pile once the unknown part is used up."""
        while self.fdraw_left and not sum(self.fdeck.values()):
            self.fdrawn.append(self.fbottom.pop(0)[0])
            self.fdraw_left -= 1
        self.stage = "fdraw" if self.fdraw_left else "freturn"

    def _do_fountain(self, arg: str) -> None:
        self.fdeck[arg] -= 1
        self.fdrawn.append(arg)
        self.fdraw_left -= 1
        self._draw_known()

    def _do_keep(self, arg: str) -> None:
        self.players[self.actor].fountains.extend(self.fdrawn)
        self.fdrawn = []
        self._continue_turn()

    def _do_return(self, arg: str) -> None:
        p = self.players[self.actor]
        index = int(arg[3:]) - 1
        back = self.fdrawn.pop(index) if arg.startswith("new") else p.fountains.pop(index)
        p.fountains.extend(self.fdrawn)
        self.fdrawn = []
        self.fbottom.append((back, self.actor))
        self._continue_turn()

    def _do_seal(self, arg: str) -> None:
        self.seal[self.seal.index(arg)] = None
        self.held = arg
        self.stage = "sealbuild"

    def _end_turn(self) -> None:
        self.turn_index += 1
        if self.turn_index < self.comp.rules.rondel_spaces * self.num_players:
            self._begin_turn()
            return
        self.order = self.banner_order()
        self.order_index = 0
        self.stage = "disc"
        self.actor = self.order[0]

    # ----- scoring rounds ----------------------------------------------------------
    def _do_disc(self, arg: str) -> None:
        a, b = (int(x) for x in arg.split("-"))
        self.discs[arg] = self.actor
        self.players[self.actor].discs -= 1
        self.cards_due = [a, b]
        self.stage = "card"

    def _resolve_card(self, arg: str) -> None:
        slot_text, _, mode = arg.partition(":")
        slot = int(slot_text)
        seat = self.actor
        p = self.players[seat]
        card = self.card(slot)
        mode, _, count = mode.partition(":")
        times = 0
        if mode in ("fulfil", "both"):
            times = int(count) if count else scoring.card_times(card, p.district, p.wares, p.coins)
            if card.colour == "red":
                p.coins = scoring.pay(card, times, p.wares, p.coins)
        if mode in ("bread", "both"):
            p.bread -= self.comp.rules.bread_per_card
            times += 1
        if mode == "fail":
            p.vp = max(0, p.vp - self.comp.rules.penalty)
        for item, n in card.reward:
            amount = n * times
            if item == "vp":
                p.vp += amount
            elif item == "coins":
                p.coins += amount
            elif item == "bread":
                p.bread += amount
            else:
                self._advance(seat, amount)
        self.cards_due.remove(slot)
        if self.cards_due:
            return
        self.order_index += 1
        if self.order_index < self.num_players:
            self.actor = self.order[self.order_index]
            self.stage = "disc"
            return
        if self.pass_no + 1 < self.comp.rules.passes:
            self.pass_no += 1
            self._begin_reveal("rondel")
            return
        self.final = [self.final_total(s) for s in range(self.num_players)]
        self.stage = "end"

    # ----- results, views, records -------------------------------------------------
    def result(self) -> list[SeatResult]:
        if not self.players:
            return [SeatResult(s, 1, 0) for s in range(self.num_players)]
        scores = self.final if self.final is not None else [self.running_total(s) for s in range(self.num_players)]
        order = self.banner_order()
        keys = [(scores[s], order.index(s)) for s in range(self.num_players)]  # tie: furthest back wins
        ranks = ranks_from_keys(keys)
        return [SeatResult(s, ranks[s], scores[s]) for s in range(self.num_players)]

    def view(self, seat: int | None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, seat)

    def _describe(self, action: str, lang: str) -> str:
        from .notation import describe

        return describe(self, action, lang)

    def _describe_hidden(self, action: str, lang: str) -> str:
        who = seat_name(self.actor, lang)
        return f"{who} sieht eine Brunnenkarte an." if lang == "de" else f"{who} looks at a fountain card."

    def snapshot(self) -> dict[str, Any]:
        return {
            "stage": self.stage, "start": self.start, "pass": self.pass_no, "turn_index": self.turn_index,
            "actor": self.actor, "players": [p.to_json() for p in self.players],
            "boards_left": self.boards_left, "frames_left": self.frames_left,
            "pending_boards": self.pending_boards, "pending_frames": self.pending_frames,
            "slots": self.slots, "deal_letters": self.deal_letters, "cards_left": self.cards_left,
            "discs": dict(sorted(self.discs.items())), "light_left": self.light_left, "dark_left": self.dark_left,
            "seal": self.seal, "rondel": self.rondel, "taken": self.taken, "removed": self.removed,
            "reveal_left": self.reveal_left,
            "reveal_target": self.reveal_target, "held": self.held, "pending": self.pending,
            "fdeck": self.fdeck, "fbottom": [list(x) for x in self.fbottom], "fdrawn": self.fdrawn,
            "fdraw_left": self.fdraw_left, "order": self.order, "order_index": self.order_index,
            "cards_due": self.cards_due, "stamp_counter": self.stamp_counter, "final": self.final,
        }

    def resample_hidden(self, seat: int | None, rng: random.Random) -> State | None:
        from .hidden import resample

        return resample(self, seat, rng)


#: The handler of each action head (``build`` → `CarpeDiemState._do_build`), looked up once.
HANDLERS = {name[4:]: fn for name, fn in vars(CarpeDiemState).items() if name.startswith("_do_")}
