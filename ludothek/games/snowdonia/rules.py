"""The round flow of Snowdonia and the engine contract.

The flow is an *agenda*: a list of small tasks (``["space", "C1"]``,
``["restock", 9]``, ...) run front to back.  A task either does its work at
once, puts further tasks in front, or stops the flow by asking a seat for a
decision (``self.decision``) or by asking for a chance outcome
(``self.chance``).  Applying the answer resumes the agenda.  Because the
agenda is plain data, it is part of the snapshot and records replay exactly.

Hidden information: none is stored.  Cards and cubes are drawn lazily as
chance outcomes at the moment they are revealed (the contract deck's content
is public, only its order is not), so every seat sees the whole position.
The one subtle point is the weather: the back of the top contract card shows
a weather icon; once a forecast disc has revealed it, the next card drawn must
be one with that back (``top_back``).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from functools import cache
from operator import itemgetter
from typing import Any

from ludothek.engine import CHANCE, TERMINAL, HistoryEntry, IllegalAction, SeatResult, ranks_from_keys

from . import notation, views
from .base import new_player
from .components import AREAS, Scenario
from .effects import EffectsMixin
from .scoring import Holdings, daffodil_points, optimal_assignment
from .work import parse_cube_combo

BAG_ORDER = ("iron", "stone", "coal", "event")
_BAG_NAMES = tuple((c, f"bag:{c}") for c in BAG_ORDER)
#: The one option that means "no real choice" for a kind of decision (see `SnowdoniaState._ask`).
_TRIVIAL = {"take": "take:nothing", "take_two": "take:nothing", "work": "work:nothing",
            "convert_stone": "convert:0", "convert_steel": "convert:0"}
def _backs(scen: Scenario) -> dict[int, str]:
    """Each contract's back (its weather icon), for counting the forecast's chances (made once per scenario)."""
    backs = _BACKS.get(scen.key)
    if backs is None:
        backs = _BACKS[scen.key] = {n: c.back for n, c in scen.contracts.items()}
    return backs


_BACKS: dict[str, dict[int, str]] = {}


#: Areas with effects "after all other actions" (`_task_after`).
_AFTER_AREAS = ("B", "D", "E")
_FIRST = itemgetter(0)
#: "place:C2" for every action space name an area can have.
_PLACE = {f"{a}{i}": f"place:{a}{i}" for a in AREAS for i in range(1, 20)}
_DRAW_NAMES = {c: f"draw:{c}" for c in range(1, 64)}
#: A chance table: the outcomes' actions, their probabilities, and the running sums of the
#: probabilities (for `SnowdoniaState.sample_outcome`).
ChanceTable = tuple[tuple[str, ...], tuple[float, ...], tuple[float, ...]]
#: The chance table of a bag draw by the bag's content (iron, stone, coal, event).
_BAG_TABLES: dict[tuple[int, int, int, int], ChanceTable] = {}
#: The cube a bag-draw action draws ("bag:iron" draws "iron").
_BAG_ARG = {name: c for c, name in _BAG_NAMES}
#: A stand-in for the first player in `SnowdoniaState._run` with 3-5 players, where markers never end the game.
_ALWAYS_MARKERS: dict[str, Any] = {"markers": 1}
#: Shared history entries by seat and action (entries are immutable; see `SnowdoniaState._apply_fast`).
_ENTRIES: dict[int, dict[str, HistoryEntry]] = {}


def _table(outcomes: list[tuple[str, float]]) -> ChanceTable:
    """A chance table from ``(action, probability)`` pairs.

    The running sums are added up in the same order as the engine's default
    `sample_outcome` walk, so a bisection over them picks exactly the
    outcome that walk would pick for the same random number.
    """
    sums = []
    acc = 0.0
    for _, p in outcomes:
        acc += p
        sums.append(acc)
    return tuple(map(_FIRST, outcomes)), tuple([p for _, p in outcomes]), tuple(sums)


@cache
def _uniform(count: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Probabilities and running sums of ``count`` equally likely outcomes (a card draw)."""
    _, probs, sums = _table([("", 1 / count)] * count)
    return probs, sums


class SnowdoniaState(EffectsMixin):
    """A Snowdonia position."""

    def __init__(self, game: Any, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        board = self.scen.board
        n = num_players
        self.round = 0
        self.over = False
        self.start_player = 0
        self.start_locked = False
        self.order = list(range(n))
        self.tracks = [{"number": None, "rubble": 0, "laid": False, "owner": None} for _ in range(self.lay.num_slots)]
        self.sites = [
            {
                "dig": [{"rubble": e.rubble, "owner": None} for e in st.excavation_sites],
                "build": [None] * len(st.build_sites),
                "completed": False,
            }
            for st in self.lay.stations
        ]
        self.track_pool = sorted(self.scen.track_numbers)
        daff = self.scen.daffodil
        self.canal_pool = sorted(c.name for c in daff.canal_cards) if daff else []
        self.canal_marked = False
        self.rates = {"excavate": board.excavate_start, "lay_track": board.lay_start}
        self.forecast = [None, None, None]
        self.events = [False] * len(board.event_track)
        self.trains_available = False
        self.b_build = False
        self.yard = {c: 0 for c in ("iron", "stone", "coal")} if self.solo else dict(board.stock_yard_start)
        self.bag = {
            "iron": board.bag["iron"][n],
            "stone": board.bag["stone"][n],
            "coal": 0,
            "event": 0 if self.solo else board.bag["event"][n],
        }
        self.steel = board.steel_supply
        self.shed = []
        self.aside_train = None
        self.deck = sorted(c.number for c in self.scen.contracts.values() if c.players <= n)
        self.top_back = None
        self.row = [None] * board.contract_row
        self.discard = []
        self.offer = []
        self.players = [new_player(board.markers_per_player) for _ in range(n)]
        if daff:
            for pl in self.players:
                pl["daffodils"] = 0
                pl["filled"] = 0  # rubble this player put into canal cards (for the log)
        self.spaces = {}
        self.g_workers = []
        self.contracts_blocked = False
        self.worker_built = False
        self.end_after = None
        self.decision = None
        self.chance = None
        self.events_pending = 0
        self.held_events = 0
        self.event_log = []
        self.place_turn = 0
        self.outside_end = None
        self.plas_maintenance = False
        bf = self.scen.blaenau
        if bf is not None:
            # Blaenau Ffestiniog: trains are on sale from the start, and a cube from the bag lies on
            # the event space before the ones used (solo: see `_task_add_events`).
            self.trains_available = bf.trains_from_start
            self.events[bf.event_cube_start - 1] = True
            if not self.solo:
                self.bag["event"] -= 1
            for pl in self.players:
                pl["end"] = None
                pl["start_marker"] = False
        self.agenda = [["deal_track", i] for i in range(self.lay.num_slots)]
        if self.solo:
            train = self.scen.trains[self.solo_train]
            self.shed = [{"number": train.number, "coal": train.coal}]
            self.bag["coal"] = board.coal_total[1] - train.coal
        else:
            self.agenda.append(["aside"])
        self.agenda += [["draw_row", i] for i in range(board.contract_row)]
        self.agenda.append(["setup_forecast"])
        if self.solo:
            self.agenda += [["solo_yard", board.solo_stock_yard_draw], ["add_events"]]
        if bf is not None:
            self.agenda.append(["choose_ends"])
        self.agenda.append(["round_start"])
        self._run()

    # ===== the engine contract ====================================================
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        if self.chance is not None:
            return CHANCE
        assert self.decision is not None
        return int(self.decision["seat"])

    def _turn_seat(self) -> int | None:
        """Draws an action makes for its seat (contract cards to choose from, cubes for the player)
        are that seat's; every other chance step (dealing the row, the forecast, restocking the
        yard) is the round's upkeep and belongs to no turn, so it waits until the turn is handed on."""
        chance = self.chance
        if chance is None:
            assert self.decision is not None
            return int(self.decision["seat"])
        if (chance[0] == "draw" and chance[1] == "offer") or (chance[0] == "bag" and chance[1] == "player"):
            return int(chance[2])
        return None

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.chance is not None:
            return list(self._chance_table()[0])
        return list(self._options())

    def _options(self) -> tuple[str, ...]:
        """The current decision's options, built once per decision (the same decision object).

        `_ask` builds them to spot a forced choice, the player or bot asks, and
        the move is checked against them: computing them once is a third of
        the engine's time.  The memo is keyed by the identity of
        ``self.decision``, which `_apply` replaces at every step.
        """
        memo = self._memo_options
        decision = self.decision
        if memo[0] is decision:
            return memo[1]
        options = tuple(self.decision_options())
        self._memo_options = (decision, options)
        return options

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        """The engine's fast-path hook, on the hot path of bots and replays.

        The action is checked against the options (or chance outcomes) built
        once per position, and the history entry is shared by every equal
        action (entries are immutable), which saves building one per action.
        Anything else goes back to the engine's checked path and its refusals.
        """
        if self.over or (seat is not None and seat != self.current_player()) or not isinstance(action, str):
            return False
        chance = self.chance
        if chance is not None:
            memo = self._memo_chance  # `_chance_table`'s memo, read here to save a call per action
            actions = memo[1][0] if memo[0] is chance else self._chance_table()[0]
            if action not in actions:
                return False
            player = CHANCE
            self.chance = None
            if chance[0] == "bag":  # a third of all actions
                self._bag_outcome(chance, _BAG_ARG[action])
            else:
                self._outcome(chance, action)
        else:
            decision = self.decision
            assert decision is not None
            memo = self._memo_options  # `_options`'s memo, read here to save a call per action
            if action not in (memo[1] if memo[0] is decision else self._options()):
                return False
            player = decision["seat"]
            self.decision = None
            self._decide(decision, action)
        self._run()  # what `_apply` does, written out on this hot path
        try:  # subscripts, not ``.get``: this runs for every action a bot or replay makes
            entry = _ENTRIES[player][action]
        except KeyError:
            entry = _ENTRIES.setdefault(player, {})[action] = HistoryEntry(player, action)
        self._history.append(entry)
        return True

    def _validate(self, action: str) -> None:
        if self.over:
            raise IllegalAction(self.explain_illegal(action))
        ok = action in self._chance_table()[0] if self.chance is not None else action in self._options()
        if not ok and not self._first_rule_canal(action):
            raise IllegalAction(self.explain_illegal(action))

    def _first_rule_canal(self, action: str) -> bool:
        """Whether ``action`` deals a canal card under its name of the first rule (``canal:3+daffodil``).

        Records made before issue 29 named the three canal cards that showed a daffodil so; such a name
        is still accepted where the card's number is left in the deck, so that those records replay.
        It is never offered (new games deal ``canal:N``) and it switches the game to the first rule:
        only the cards dealt with ``+daffodil`` give a daffodil (`canal_marked`; docs, ruling 44).
        """
        if self.chance is None or self.chance[0] != "canal" or not action.startswith("canal:"):
            return False
        number, plus, mark = action[6:].partition("+")
        return plus == "+" and mark == "daffodil" and number in self.canal_pool

    def chance_outcomes(self) -> list[tuple[str, float]]:
        if self.chance is None:
            return []
        actions, probs, _ = self._chance_table()
        return list(zip(actions, probs, strict=True))

    def _chance_table(self) -> ChanceTable:
        """The chance outcomes of this node and their actions, built once per node.

        Keyed, like the options, by the identity of ``self.chance``, which a
        new chance node always replaces.  A bag draw, a third of all actions,
        takes its table from `_BAG_TABLES`, by the bag's content.
        """
        memo = self._memo_chance
        chance = self.chance
        if memo[0] is chance:
            return memo[1]
        assert chance is not None
        kind = chance[0]
        if kind == "bag":
            bag = self.bag
            key = (bag["iron"], bag["stone"], bag["coal"], bag["event"])
            table = _BAG_TABLES.get(key)
            if table is None:
                table = _BAG_TABLES[key] = _table(self._chance_outcomes())
        elif kind == "draw":
            # Every drawable card is equally likely: only the names are new, the numbers depend on the count.
            cards = self.drawable()
            actions = tuple([_DRAW_NAMES.get(c) or f"draw:{c}" for c in cards])
            table = (actions, *_uniform(len(actions)))
        else:
            table = _table(self._chance_outcomes())
        self._memo_chance = (chance, table)
        return table

    def sample_outcome(self, rng: random.Random) -> str:
        """The engine's draw (one ``rng.random()`` against the running sums of the probabilities),
        on the chance table built once per node: the same outcome for the same random number."""
        if self.chance is None:
            return super().sample_outcome(rng)
        actions, _, sums = self._chance_table()
        i = bisect_right(sums, rng.random())
        return actions[i] if i < len(actions) else actions[-1]

    def _chance_outcomes(self) -> list[tuple[str, float]]:
        assert self.chance is not None
        kind = self.chance[0]
        counts: dict[str, int]
        if kind == "track":
            counts = {f"track:{v}": k for v, k in Counter(self.track_pool).items()}
        elif kind == "canal":
            counts = {}
            for name in self.canal_pool:
                counts[f"canal:{name}"] = counts.get(f"canal:{name}", 0) + 1
        elif kind == "aside":
            counts = {f"aside:{t}": 1 for t in sorted(self.scen.trains)}
        elif kind == "draw":
            cards = self.drawable()
            p = 1 / len(cards)
            return [(_DRAW_NAMES.get(c) or f"draw:{c}", p) for c in cards]
        elif kind == "forecast":
            backs = _backs(self.scen)
            counts = {f"forecast:{back}": k for back, k in Counter(map(backs.__getitem__, self.deck)).items()}
        else:  # bag
            bag = self.bag
            counts = {name: bag[c] for c, name in _BAG_NAMES if bag[c] > 0}
        total = sum(counts.values())
        return [(a, k / total) for a, k in counts.items()]

    def drawable(self) -> list[int]:
        """Cards that can be the top of the deck: all of them, or those with the revealed back."""
        if self.top_back is None:
            return list(self.deck)
        backs, top = _backs(self.scen), self.top_back
        return [c for c in self.deck if backs[c] == top]

    def explain_illegal(self, action: str) -> str:
        if self.over:
            return "the game is over"
        if self.chance is not None:
            return f"'{action}' is not a possible random outcome now"
        kind = self.decision["kind"] if self.decision else ""
        if kind == "place" and action.startswith("place:"):
            space = action[6:]
            if space not in self.spaces:
                return f"there is no action space {space!r} this round"
            if self.area_blocked(space[0]):
                return f"fog: no worker can go to area {space[0]} this round"
            return f"action space {space} is already taken"
        if kind == "build" and action.startswith(("build:", "train:")):
            if action.startswith("train:") and not self.trains_available:
                return "trains cannot be bought before the event 'trains may now be bought'"
            price = self._daffodil_price(action)
            if price is not None and self.decision is not None:
                have = self.p(self.decision["seat"])["daffodils"]
                if have < price[1]:
                    return f"{price[0]} costs {price[1]} daffodils and you have {have}"
            return f"'{action}' cannot be built or paid for now"
        return f"'{action}' is not legal now; expected a choice for: {notation.decision_label(kind, 'en')}"

    def _daffodil_price(self, action: str) -> tuple[str, int] | None:
        """Daffodil Line: (site name, price) when ``action`` builds on a space paid in daffodils."""
        key, _, idx = action.partition(":")[2].partition("+")[0].partition(".")
        for st in self.lay.stations:
            if st.key == key and idx.isdigit() and 1 <= int(idx) <= len(st.build_sites):
                cost = st.build_sites[int(idx) - 1].daffodils
                return (f"{st.name} site {idx}", cost) if cost else None
        return None

    def _apply(self, action: str) -> None:
        if self.chance is not None:
            task = self.chance
            self.chance = None
            self._outcome(task, action)
        else:
            decision = self.decision
            assert decision is not None
            self.decision = None
            self._decide(decision, action)
        self._run()

    def view(self, seat: int | None) -> dict[str, Any]:
        return views.build(self, seat)

    def _describe(self, action: str, lang: str) -> str:
        return notation.describe(self, action, lang)

    def resample_hidden(self, seat: int | None, rng: random.Random) -> None:
        """Nothing is hidden: draws are chance outcomes made when a card or cube is revealed."""
        return None

    # ===== scoring =================================================================
    def holdings(self, seat: int) -> Holdings:
        pl = self.p(seat)
        # Daffodil Line: markers on Over Junction's steel spaces count for track contracts only.
        as_track = self.markers_counting_as_track(seat)
        return Holdings(
            stations=len(self.markers_on_stations(seat)) - as_track,
            track=len(self.markers_on_track(seat)) + as_track,
            rubble=pl["rubble"],
            coal=pl["coal"],
            surveyor_number=self.surveyor_number(seat),
        )

    def score_parts(self, seat: int) -> dict[str, Any]:
        """Each part of the final score if the game ended now."""
        pl = self.p(seat)
        contracts = [self.scen.contracts[n] for n in self.contracts_of(seat)]
        best, values = optimal_assignment(contracts, self.holdings(seat))
        train = pl["train"]
        parts: dict[str, Any] = {
            "stations": sum(self.markers_on_stations(seat)),
            "track": sum(self.markers_on_track(seat)),
            "surveyor": self.surveyor_points(seat),
            "train": 9 if train is not None and self.scen.trains[train].ability == "nine_points" else 0,
            "contracts": best,
        }
        if self.scen.daffodil is not None:
            parts["daffodils"] = daffodil_points(self.daffodils_at_end(seat), self.scen.daffodil.set_points)
        parts["total"] = sum(parts.values())
        parts["contract_values"] = {str(k): v for k, v in values.items()}
        return parts

    def daffodils_at_end(self, seat: int) -> int:
        """Daffodil Line: the seat's daffodils, plus one for a surveyor on Dymock or Over Junction.

        The surveyor's daffodil is given "before scoring"; until the end this
        is what the seat would have if the game ended now.
        """
        pl = self.p(seat)
        bonus = 1 if self.lay.stations[pl["surveyor"]].surveyor_daffodil else 0
        return int(pl["daffodils"]) + bonus

    def final_score(self, seat: int) -> int:
        return int(self.score_parts(seat)["total"])

    def result(self) -> list[SeatResult]:
        scores = [self.final_score(s) for s in range(self.num_players)]
        # Ties go to the player later in turn order in the last round.
        keys = [(scores[s], self.order.index(s)) for s in range(self.num_players)]
        ranks = ranks_from_keys(keys)
        return [SeatResult(s, ranks[s], scores[s]) for s in range(self.num_players)]

    # ===== decisions ===============================================================
    def decision_options(self) -> Sequence[str]:
        d = self.decision
        if d is None:
            return []
        seat = d["seat"]
        kind = d["kind"]
        if kind == "place":  # half of all decisions
            spaces = self.spaces
            weather = self.forecast[0]
            memo = self._place_memo
            if memo[0] is spaces and memo[1] == weather:
                return memo[2]  # kept up to date by each placement (see `_decide`)
            names = _PLACE
            if weather == "fog":
                blocked = self.scen.fog_blocks
                out = [names[s] for s, who in spaces.items() if who is None and s[0] not in blocked]
            else:
                out = [names[s] for s, who in spaces.items() if who is None]
            out.append("place:G")
            self._place_memo = (spaces, weather, tuple(out))
            return out
        if kind == "pub":
            return ["pub:hire", "pub:no"]
        if kind == "window":
            return [f"play:{n}" for n in self.playable_contracts(seat, d["area"])] + ["pass"]
        if kind in ("take", "take_two"):
            return self.take_actions(d["cap"], d["coal_cap"], exact=kind == "take_two")
        if kind == "work":
            return ["work:" + o for o in self.work_options(seat)]
        if kind == "build":
            return self.build_options(seat) + (["pass"] if d.get("optional") else [])
        if kind == "contract":
            return [f"contract:{n}" for n in self.row if n is not None]
        if kind == "keep":
            return [f"keep:{n}" for n in sorted([d["number"], *self.offer])]
        if kind == "swap":
            return self.swap_options()
        if kind == "convert_stone":
            return self.convert_stone_options(seat)
        if kind == "convert_steel":
            return self.convert_steel_options(seat)
        if kind == "move":
            return self.move_options(seat)
        if kind == "maint":
            return self.maintenance_options(seat)
        if kind == "end":
            return self.end_options()
        if kind == "outside":
            return ["outside:blaenau", "outside:porthmadog"]
        raise AssertionError(kind)

    def _decide(self, d: dict[str, Any], action: str) -> None:
        seat = d["seat"]
        kind = d["kind"]
        _, _, arg = action.partition(":")
        if kind == "place":  # half of all decisions
            if arg == "G":
                self.g_workers.append(seat)  # G is unlimited: the place options stay as they are
            else:
                spaces = self.spaces
                memo = self._place_memo
                if memo[0] is spaces and action in memo[2]:
                    # The next placement's options are these without the space just taken.
                    options = memo[2]
                    k = options.index(action)
                    self._place_memo = (spaces, memo[1], options[:k] + options[k + 1 :])
                spaces[arg] = seat
            self.players[seat]["placed"] += 1
            self.place_turn = (self.order.index(seat) + 1) % self.num_players
            return
        pl = self.players[seat]
        if kind == "pub":
            if arg == "hire":
                cost = self.scen.trains[pl["train"]].pub_coal
                pl["coal"] -= cost
                pl["pub"] = True
                self.coal_to_bag(cost)
        elif kind == "window":
            if action == "pass":
                self._task_window(d["area"], d["index"] + 1, d["first"])
            else:
                # The same player may play more cards: the window resumes after the effect.
                self._push(["window", d["area"], d["index"], d["first"]])
                self.play_contract(seat, int(arg))
        elif kind in ("take", "take_two"):
            counts = parse_cube_combo(arg)
            assert counts is not None
            self.take_cubes(seat, counts)
        elif kind == "work":
            parts = [] if arg == "nothing" else arg.split("+")
            self.do_work(
                seat, parts.count("steel"), parts.count("stone"), self.iron_per_steel(seat), parts.count("smash")
            )
        elif kind == "build":
            if action != "pass":
                self.do_build(seat, action)
                if d.get("by_worker"):
                    self.worker_built = True
        elif kind == "contract":
            self.take_contract(seat, int(arg))
        elif kind == "keep":
            self._keep(seat, d["number"], int(arg))
        elif kind == "swap":
            self.forecast[1] = arg
        elif kind == "convert_stone":
            k = int(arg)
            pl["rubble"] -= 2 * k
            pl["stone"] += k
            self.bag["stone"] -= k
        elif kind == "convert_steel":
            k = int(arg)
            pl["iron"] -= 2 * k
            self.bag["iron"] += 2 * k
            pl["steel"] += k
            self.steel -= k
        elif kind == "move":
            src, _, dst = arg.partition(">")
            self.move_worker(seat, src, dst)
        elif kind == "maint":
            self.do_maintenance(seat, arg)
        elif kind == "end":
            self.choose_end(seat, arg)
        elif kind == "outside":
            self.outside_end = arg

    def _keep(self, seat: int, number: int, kept: int) -> None:
        pl = self.p(seat)
        cards = [number, *self.offer]
        self.offer = []
        for c in cards:
            if c == kept:
                continue
            if c == number:
                pl["active"].remove(number)
            self.discard.append(c)
        if kept != number:
            pl["unused"].append(kept)

    def _ask(self, kind: str, seat: int, **extra: Any) -> bool:
        """Ask ``seat`` for a decision if it has a real choice; False when it has none."""
        self.decision = {"kind": kind, "seat": seat, **extra}
        options = self._options()
        if len(options) <= 1 and (not options or options[0] == "pass" or options[0] == _TRIVIAL.get(kind)):
            self.decision = None
            return False
        return True

    # ===== the agenda ==============================================================
    def _run(self) -> None:
        """Run agenda tasks until a decision or a chance outcome is due, or the game is over.

        This loop runs about five tasks per action, so it looks tasks up in a
        class table (`_TASKS`) instead of by ``getattr`` with a built name, and
        checks the 1-2 player marker ending only where it can apply.
        """
        table = _TASKS
        # 1-2 players: the game ends at once when the last ownership marker is placed.  This is
        # checked before every task; while the first player still has markers it cannot apply.
        # With more players a stand-in that always has markers skips the check at no extra cost.
        first = self.players[0] if self.num_players <= 2 else _ALWAYS_MARKERS
        # Tasks change the agenda in place; only the game's end replaces it (and stops this loop).
        agenda = self.agenda
        while not self.over:
            if not first["markers"] and self._markers_exhausted():
                self.over = True
                self.decision = self.chance = None
                self.agenda = []
                break
            if self.decision is not None or self.chance is not None:
                break
            if not agenda:
                raise AssertionError("the agenda ran dry before the game ended")
            task = agenda.pop(0)
            size = len(task)
            if size == 2:
                table[task[0]](self, task[1])
            elif size == 1:
                table[task[0]](self)
            else:
                table[task[0]](self, *task[1:])

    # ----- setup ----------------------------------------------------------------------
    def _task_deal_track(self, slot: int) -> None:
        canal = self.lay.canal_slots and self.lay.canal_slots[slot]
        self.chance = ["canal" if canal else "track", slot]

    def _task_aside(self) -> None:
        self.chance = ["aside"]

    def _task_draw_row(self, slot: int) -> None:
        if self._ensure_deck():
            self.chance = ["draw", "row", slot]

    def _task_setup_forecast(self) -> None:
        backs = [self.scen.contracts[c].back if c is not None else None for c in self.row]
        self.forecast = [None, backs[1], backs[2]]

    def _task_solo_yard(self, remaining: int) -> None:
        if remaining > 0 and sum(self.bag.values()) > 0:
            self.chance = ["bag", "yard", remaining]

    def _task_add_events(self) -> None:
        self.bag["event"] = self.scen.board.bag["event"][self.num_players]
        if self.scen.blaenau is not None:
            self.bag["event"] -= 1  # the cube already on the board's start space

    def _task_choose_ends(self) -> None:
        """Blaenau Ffestiniog: in turn order from the start player, each picks the end their surveyor
        starts at (3 places each: a player left with one end gets it); then the last player puts the
        outside surveyor on an end."""
        for seat in self.order:
            if self.players[seat]["end"] is None:
                self._push(["choose_ends"])
                options = self.end_options()
                if len(options) == 1:
                    self.choose_end(seat, options[0][4:])
                else:
                    self._ask("end", seat)
                return
        if self.outside_end is None:
            self._ask("outside", self.order[-1])

    def _ensure_deck(self) -> bool:
        """An empty draw pile is refilled from the discard pile (our ruling); False if both are empty."""
        if not self.deck and self.discard:
            self.deck = sorted(self.discard)
            self.discard = []
            self.top_back = None
        return bool(self.deck)

    # ----- a round ------------------------------------------------------------------
    def _task_round_start(self) -> None:
        self.round += 1
        if not self.b_build and self.route.next_field() is None:
            # The set-aside train card now covers area B with its extra build space.
            self.b_build = True
        n = self.num_players
        self.order = [(self.start_player + i) % n for i in range(n)]
        for pl in self.players:
            pl["pub"] = False
            pl["pub_asked"] = False
            pl["placed"] = 0
        self.spaces = dict.fromkeys(self.all_spaces())
        self.g_workers = []
        self.contracts_blocked = False
        self.start_locked = False
        self.worker_built = False
        self.place_turn = 0
        self._push(
            ["place"],
            *[["area", a] for a in AREAS],
            ["round_end"],
        )

    def _task_place(self) -> None:
        n = self.num_players
        workers = self.scen.board.workers_per_player
        order = self.order
        for k in range(n):
            seat = order[(self.place_turn + k) % n]
            pl = self.players[seat]
            if pl["placed"] < workers + (1 if pl["pub"] else 0):
                self.agenda.insert(0, ["place"])
                if pl["placed"] == 0 and not pl["pub_asked"]:
                    # Before placing the first worker, a train owner may pay coal for the pub worker.
                    pl["pub_asked"] = True
                    if pl["train"] is not None and pl["coal"] >= self.scen.trains[pl["train"]].pub_coal:
                        self._ask("pub", seat)
                        return
                # What `_ask("place", seat)` does: the options always hold "place:G", which is not a
                # trivial option, so `_ask` always asks; the options are built when first asked for.
                self.decision = {"kind": "place", "seat": seat}
                return

    def _task_area(self, area: str) -> None:
        """An area resolves: its contract window, then its spaces, then its "after all" effects.

        This is the same as queueing ``window``, ``spaces`` and ``after``, but
        the window runs at once, and the spaces too when nobody could play a
        contract in it (most areas, most rounds); "after" only exists for B, D
        and E.  A seat without unused contracts is skipped before asking
        `playable_contracts` (most seats, most windows).
        """
        agenda = self.agenda
        if area in _AFTER_AREAS:
            agenda.insert(0, ["after", area])
        if not self.contracts_blocked and not (self.forecast[0] == "fog" and area in self.scen.fog_blocks):
            # `_task_window(area, 0)`, written out
            players = self.players
            n = self.num_players
            first = self.start_player
            for i in range(n):
                seat = (first + i) % n
                if players[seat]["unused"] and self.playable_contracts(seat, area):
                    self._ask("window", seat, area=area, index=i, first=first)
                    break
            if self.decision is not None:
                agenda.insert(0, ["spaces", area])
                return
        # `_task_spaces(area)`, written out
        if area == "G":
            if self.g_workers:
                agenda[0:0] = [["surveyor", s] for s in self.g_workers]
                self.g_workers = []
            return
        spaces = self.spaces
        agenda[0:0] = [["space", s] for s in self._spaces[self.b_build][0][area] if spaces.get(s) is not None]

    def _task_window(self, area: str, index: int, first: int = -1) -> None:
        """A contract window, "beim Startspieler beginnend" (ruling 20).

        It begins with whoever holds the start player marker when the window
        opens (``first`` is fixed then), so a marker taken on the stock yard's
        last space in A, or with #22 in an earlier window, moves the start of
        every later window of the same round.  A marker taken during this
        window does not reorder the players still to come in it.
        """
        if first < 0:
            first = self.start_player
        if self.contracts_blocked or self.area_blocked(area):
            return
        n = self.num_players
        for i in range(index, n):
            seat = (first + i) % n
            if self.playable_contracts(seat, area):
                self._ask("window", seat, area=area, index=i, first=first)
                return

    def _task_spaces(self, area: str) -> None:
        if area == "G":
            if self.g_workers:
                self.agenda[0:0] = [["surveyor", s] for s in self.g_workers]
                self.g_workers = []
            return
        spaces = self.spaces
        self.agenda[0:0] = [["space", s] for s in self._spaces[self.b_build][0][area] if spaces.get(s) is not None]

    def _task_surveyor(self, seat: int) -> None:
        self.move_surveyor(seat)

    def _task_space(self, space: str) -> None:
        seat = self.spaces[space]
        assert seat is not None
        self.spaces[space] = None
        action = self.space_action(space)
        if action == "stock_yard":
            if space == self.spaces_of("A")[-1]:
                self.take_start_player(seat)
            cap, coal_cap = self.stock_yard_caps(seat)
            self._ask("take", seat, space=space, cap=cap, coal_cap=coal_cap)
        elif action == "excavate":
            self.excavate(seat, self.excavate_amount(seat))
        elif action == "workshop":
            self._ask("work", seat, space=space)
        elif action == "lay_track":
            self.lay_track(seat, self.lay_amount(seat))
        elif action == "build":
            self._ask("build", seat, space=space, by_worker=True)
        elif action == "site_office":
            self._ask("contract", seat, space=space)

    def _task_after(self, area: str) -> None:
        if area != "E" and not any(pl["active"] for pl in self.players):
            return  # after B and D only played contracts act
        if area == "B":
            for seat in self.order:
                for _ in range(self.has_active(seat, "clear_next_field")):
                    self.clear_next_field(seat)
        elif area == "D":
            for seat in self.order:
                for _ in range(self.has_active(seat, "extra_lay_track")):
                    self.lay_track(seat, self.lay_amount(seat))
        elif area == "E":
            tasks = [
                ["after_build", seat, "contract"]
                for seat in self.order
                for _ in range(self.has_active(seat, "extra_build"))
            ]
            for seat in self.order:
                train = self.p(seat)["train"]
                if train is not None and self.scen.trains[train].ability == "extra_build":
                    tasks.append(["after_build", seat, "train"])
            self._push(*tasks)

    def _task_after_build(self, seat: int, source: str) -> None:
        if source == "train" and not self.worker_built:
            return
        self._ask("build", seat, optional=True, source=source)

    def _task_ask(self, kind: str, seat: int, *extra: Any) -> None:
        if kind == "take_two":
            coal_cap = 2 if self.has_active(seat, "coal_limit_off") else 1
            self._ask("take_two", seat, cap=2, coal_cap=coal_cap)
        elif kind == "keep":
            self._ask("keep", seat, number=extra[0])
        else:
            self._ask(kind, seat)

    def _task_offer_draw(self, seat: int, number: int, remaining: int) -> None:
        if remaining > 0 and self._ensure_deck():
            self.chance = ["draw", "offer", seat, number, remaining]

    def _task_cube_draw(self, seat: int, remaining: int) -> None:
        if remaining > 0 and sum(self.bag.values()) > 0:
            self.chance = ["bag", "player", seat, remaining]

    def _task_return_held_events(self) -> None:
        self.bag["event"] += self.held_events
        self.held_events = 0

    # ----- end of the round ---------------------------------------------------------
    def _task_round_end(self) -> None:
        for pl in self.players:
            pl["used"] = sorted(pl["used"] + pl["active"])
            pl["active"] = []
        if self._game_ends():
            self.over = True
            self.agenda = []
            return
        board = self.scen.board
        self._push(
            ["refill"],
            ["forecast"],
            ["rates"],
            ["restock", board.restock[self.num_players]],
            ["event_cubes"],
            ["plas_maintenance"],
            ["round_start"],
        )

    def _task_plas_maintenance(self) -> None:
        """Blaenau Ffestiniog: trains need maintenance once station 4 (Plas Halt) has no rubble left.

        It replaces the base game's maintenance event and, like it, happens
        once, at the end of a round: the first round end that finds station 4
        cleared (ruling 36).
        """
        if self.maintenance_due():
            self.plas_maintenance = True
            owners = [s for s in self.order if self.p(s)["train"] is not None]
            self._push(*[["maint", s] for s in owners], ["refill_shed"])

    def _game_ends(self) -> bool:
        return self.end_after is not None and self.end_after <= self.round

    def _markers_exhausted(self) -> bool:
        """Solo and 2 players: the game also ends when no player has an ownership marker left."""
        if self.num_players > 2 or self.round < 1:
            return False
        return all(not pl["markers"] for pl in self.players)

    def _task_refill(self) -> None:
        if self.solo:
            self.discard += [c for c in self.row if c is not None]
            self.row = [None] * len(self.row)
        else:
            if self.row[0] is not None:
                self.discard.append(self.row[0])
                self.row[0] = None
            kept = [c for c in self.row if c is not None]
            self.row = kept + [None] * (len(self.row) - len(kept))
        self._push(*[["draw_row", i] for i, c in enumerate(self.row) if c is None])

    def _task_forecast(self) -> None:
        self.forecast = [self.forecast[1], self.forecast[2], None]
        if self.top_back is not None:
            self.forecast[2] = self.top_back
        elif self._ensure_deck():
            self.chance = ["forecast"]

    def _task_rates(self) -> None:
        w = self.forecast[0]
        if w is None:
            return
        moves = self.scen.board.moves[w]
        for track, values in (("excavate", self.scen.board.excavate_rates), ("lay_track", self.scen.board.lay_rates)):
            self.rates[track] = max(0, min(len(values) - 1, self.rates[track] + moves[track]))

    def _task_restock(self, remaining: int) -> None:
        if remaining > 0 and sum(self.bag.values()) > 0:
            self.chance = ["bag", "restock", remaining]

    def _task_event_cubes(self) -> None:
        if self.events_pending > 0:
            self.events_pending -= 1
            space = self.place_event_cube()
            self._push(["event", space], ["event_cubes"])

    def _task_event(self, space: int) -> None:
        kind = self.scen.board.event_track[space - 1].event
        self.event_log.append([self.round, space, kind])
        tail = ["event_return", space]
        if kind == "excavate":
            self.event_excavate()
        elif kind == "lay_track":
            self.event_lay_track()
        elif kind == "complete_station":
            self.event_complete_station()
        elif kind == "trains_available":
            self.trains_available = True
        elif kind == "maintenance":
            owners = [s for s in self.order if self.p(s)["train"] is not None]
            self._push(*[["maint", s] for s in owners], ["refill_shed"], tail)
            return
        if self.outside_end is not None:
            # Blaenau Ffestiniog: the outside surveyor moves to the other end, so events alternate.
            self.outside_end = "porthmadog" if self.outside_end == "blaenau" else "blaenau"
        self._push(tail)

    def _task_event_return(self, space: int) -> None:
        self.return_event_cubes(space)

    def _task_maint(self, seat: int) -> None:
        if self.maintenance_options(seat) == ["maint:lose"]:
            self.do_maintenance(seat, "lose")
        else:
            self._ask("maint", seat)

    def _task_refill_shed(self) -> None:
        self.refill_shed()

    # ===== chance outcomes =========================================================
    def _outcome(self, task: list[Any], action: str) -> None:
        kind = task[0]
        _, _, arg = action.partition(":")
        if kind == "bag":
            self._bag_outcome(task, arg)
        elif kind == "track":
            value = int(arg)
            self.track_pool.remove(value)
            self.tracks[task[1]].update(number=value, rubble=value)
        elif kind == "canal":
            # A canal card starts empty: players fill it with rubble before track can be laid.  Every
            # canal card gives a daffodil to whoever fills it, unless the record deals the cards under
            # the first rule's names (`_first_rule_canal`): then only those named "+daffodil" do.
            number, _, mark = arg.partition("+")
            self.canal_pool.remove(number)
            if mark and not self.canal_marked:
                self.canal_marked = True
                for t in self.tracks:
                    if t.get("canal"):
                        t["daffodil"] = False
            daffodil = bool(mark) or not self.canal_marked
            self.tracks[task[1]].update(number=int(number), rubble=0, canal=True, daffodil=daffodil)
        elif kind == "aside":
            self.aside_train = int(arg)
            board = self.scen.board
            self.shed = [{"number": t.number, "coal": t.coal} for t in self.scen.trains.values() if t.number != self.aside_train]
            on_trains = sum(t["coal"] for t in self.shed)
            self.bag["coal"] = board.coal_total[self.num_players] - self.yard["coal"] - on_trains
        elif kind == "draw":
            card = int(arg)
            self.deck.remove(card)
            self.top_back = None
            if task[1] == "row":
                self.row[task[2]] = card
            else:
                self.offer.append(card)
                self._push(["offer_draw", task[2], task[3], task[4] - 1])
        elif kind == "forecast":
            self.forecast[2] = arg
            self.top_back = arg

    def _bag_outcome(self, task: list[Any], arg: str) -> None:
        """A cube drawn from the bag (``arg`` is its colour, or "event")."""
        self.bag[arg] -= 1
        purpose = task[1]
        # The next draw of the same series runs at once (as if queued first: nothing else can come between).
        if purpose == "yard":
            self.yard[arg] += 1
            self._task_solo_yard(task[2] - 1)
        elif purpose == "restock":
            if arg == "event":
                self.events_pending += 1
            else:
                self.yard[arg] += 1
            self._task_restock(task[2] - 1)
        else:
            if arg == "event":
                self.held_events += 1
            else:
                self.p(task[2])[arg] += 1
            self._task_cube_draw(task[2], task[3] - 1)


#: Each agenda task's method by the task's name (``["space", "C1"]`` runs ``_task_space(self, "C1")``).
_TASKS = {name[len("_task_"):]: getattr(SnowdoniaState, name) for name in dir(SnowdoniaState) if name.startswith("_task_")}
