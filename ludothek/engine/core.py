"""The contract every Ludothek game implements.

Games are pure, deterministic state machines in the style of OpenSpiel: every
random event is an explicit *chance node* whose outcome is an action like any
other, so a game record (options plus every action) replays to the identical
state.  The portal, the bots and the command line only ever talk to a game
through the classes in this module.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

#: ``current_player()`` while a random outcome is due.
CHANCE = -1
#: ``current_player()`` once the game is over.
TERMINAL = -4

LANGS = ("de", "en")

#: The reserved action word of a record entry that takes back the seat's last action (see `State.undo`).
UNDO = "undo"

#: The seat names in force while a sentence is being made (see `naming`).
_NAMES: ContextVar[tuple[str, ...] | None] = ContextVar("ludothek_seat_names", default=None)


class naming:  # lower case: it is used like the function it replaced, ``with naming(names):``
    """Make `seat_name` speak of seats by ``names`` (``names[seat]``) inside the block.

    ``describe(..., names=...)``, ``describe_hidden``, ``engine.log`` and
    ``apply_action(..., names=...)`` use it, so a game's sentence code asks
    `seat_name` and never threads the names through itself.  ``None`` keeps
    whatever names an outer block set.  Nothing is stored in any state, so
    states stay pure and records replay unchanged.

    A small class rather than a ``@contextmanager`` generator: a page or API
    answer enters it once per sentence made, and the generator machinery
    (a generator, ``next`` twice, a helper object) cost more than the sentence
    itself for short ones (issue 14).  The names stay in a `ContextVar`
    exactly as before, so threads and asyncio tasks each see their own, and
    blocks nest: leaving one restores what the outer block had set.  One
    object may be entered again after it was left (a generator-based one could
    not), but not while it is in force: that raises `RuntimeError`.
    """

    __slots__ = ("_names", "_token")

    def __init__(self, names: Sequence[str] | None) -> None:
        self._names = names
        self._token: Token[tuple[str, ...] | None] | None = None

    def __enter__(self) -> None:
        names = self._names
        if names is None:
            return
        if self._token is not None:
            raise RuntimeError("this naming block is already in force")
        self._token = _NAMES.set(tuple(map(str, names)))

    def __exit__(self, *exc: object) -> None:
        token = self._token
        if token is not None:
            self._token = None
            _NAMES.reset(token)


def seat_name(seat: int, lang: str = "en") -> str:
    """How every text names ``seat``: its player's name, or "Player 1"/"Spieler 1" (seat 0) when none was given.

    Log sentences, buttons and refusals all call this, so a seat is named the
    same way everywhere (the fallback counts from 1, as the action notation does).
    """
    names = _NAMES.get()
    if names is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"{'Spieler' if lang == 'de' else 'Player'} {seat + 1}"


class IllegalAction(ValueError):
    """An action that is malformed, illegal now, or made out of turn.

    The message is meant for a player; the state is left unchanged.
    """


class InvalidOptions(ValueError):
    """Options or a player count that the game does not accept.

    The message is for programs (the API, the command line) and may name options as they are written
    (``mode=solo``).  ``reason`` is a stable word for what is wrong and ``params`` the numbers it names:
    the portal words it for people in their language (``err_options_<reason>``), without option syntax.
    """

    def __init__(self, message: str, reason: str = "invalid", **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


class ReplayError(ValueError):
    """A game record that is malformed or does not replay."""

    def __init__(self, message: str, index: int | None = None, action: str | None = None):
        super().__init__(message)
        self.index = index
        self.action = action


@dataclass(frozen=True)
class Option:
    """One variant switch of a game, as the lobby offers it."""

    name: str
    values: tuple[str, ...]
    default: str
    label: Mapping[str, str]
    #: Optional labels for each value: ``{"yucata": {"de": ..., "en": ...}}``.
    value_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "values": list(self.values),
            "default": self.default,
            "label": dict(self.label),
            "value_labels": {k: dict(v) for k, v in self.value_labels.items()},
        }


@dataclass(frozen=True)
class SeatResult:
    """A seat's final placing: rank 1 is first, equal ranks are ties."""

    seat: int
    rank: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "rank": self.rank, "score": self.score}


@dataclass(frozen=True, slots=True)  # slots: made once per applied action, twice as fast to build
class HistoryEntry:
    """One applied action: who made it (a seat or ``CHANCE``) and what it was.

    ``visible_to`` is ``None`` for public actions; for a secret chance outcome
    (a card only its drawer sees) it names the seats that may see it.
    """

    seat: int
    action: str
    visible_to: frozenset[int] | None = None

    def visible(self, viewer: int | None) -> bool:
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)


HIDDEN_ACTION = "?"


def score_part(
    part: str, de: str, en: str, points: float | None, detail: Mapping[str, str] | None = None,
    decides: bool = False,
) -> dict[str, Any]:
    """One line of a final score breakdown (``view(seat)["breakdown"]``), labelled in German and English.

    ``points`` add up to the seat's score; a line with ``points=None`` only
    explains (e.g. Machi Koro's finishing order) and ``detail`` says more.
    ``decides``: this line, not the score, decided the order of the seats (Machi Koro's finish): the
    result table shows it instead of the score, so nobody wonders why 4, 4, 4, 3 came out in that order.
    """
    out = {"part": part, "label": {"de": de, "en": en}, "points": points,
           "detail": dict(detail) if detail is not None else None}
    if decides:
        out["decides"] = True
    return out


def ranks_from_keys(keys: Sequence[Any]) -> list[int]:
    """Competition ranks (1 = best) for sortable keys where higher is better; equal keys tie."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    ranks = [0] * len(keys)
    for pos, i in enumerate(order):
        if pos > 0 and keys[order[pos - 1]] == keys[i]:
            ranks[i] = ranks[order[pos - 1]]
        else:
            ranks[i] = pos + 1
    return ranks


class Game(ABC):
    """A registered game: metadata, options and the factory for start states."""

    id: ClassVar[str]
    title: ClassVar[Mapping[str, str]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Bumped whenever a rules change would make old records replay differently.
    rules_version: ClassVar[str] = "1"
    options: ClassVar[tuple[Option, ...]] = ()

    def option(self, name: str) -> Option:
        for opt in self.options:
            if opt.name == name:
                return opt
        raise KeyError(name)

    def usual_players(self) -> int:
        """The player count a new game starts with in the form: the game for several people (at least 2,
        as the box is sold), never a solo game a newcomer did not ask for (issue 29)."""
        return min(self.max_players, max(2, self.min_players))

    def default_options(self) -> dict[str, str]:
        return {opt.name: opt.default for opt in self.options}

    def validate_options(self, num_players: int, options: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Fill in defaults and check every value; raise `InvalidOptions` with a clear reason."""
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise InvalidOptions(f"the number of players must be a whole number, not {num_players!r}", "players_number")
        if not self.min_players <= num_players <= self.max_players:
            raise InvalidOptions(
                f"{self.title['en']} is for {self.min_players} to {self.max_players} players, not {num_players}",
                "players_range", low=self.min_players, high=self.max_players, n=num_players,
            )
        if options is not None and not isinstance(options, Mapping):
            raise InvalidOptions("options must be a mapping of option name to value", "not_a_mapping")
        result = self.default_options()
        known = {opt.name: opt for opt in self.options}
        for name, value in (options or {}).items():
            if name not in known:
                raise InvalidOptions(
                    f"unknown option {name!r} for {self.id}; known: {', '.join(sorted(known)) or 'none'}",
                    "unknown_option",
                )
            value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
            if value not in known[name].values:
                raise InvalidOptions(
                    f"option {name!r} must be one of {', '.join(known[name].values)}, not {value!r}", "option_value"
                )
            result[name] = value
        self.check_options(num_players, result)
        return result

    def check_options(self, num_players: int, options: dict[str, str]) -> None:
        """Hook for rules that tie options to the player count; raise `InvalidOptions`."""

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> State:
        """The start state for ``num_players`` seats with validated options."""
        opts = self.validate_options(num_players, options)
        return self._new_state(num_players, opts)

    @abstractmethod
    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        """Build the start state; options are already validated."""

    def describe_option(self, name: str, value: str, lang: str = "en") -> str:
        opt = self.option(name)
        labels = opt.value_labels.get(value)
        return labels.get(lang, value) if labels else value

    def _package_path(self, *parts: str) -> Traversable | None:
        """A path inside the game's own package (the package of the module defining its class), or None."""
        import importlib.resources
        import sys

        module = sys.modules.get(type(self).__module__)
        package = getattr(module, "__package__", None) or type(self).__module__
        try:
            return importlib.resources.files(package).joinpath(*parts)
        except (ModuleNotFoundError, FileNotFoundError):
            return None

    def _package_file(self, *parts: str) -> str | None:
        """A text file shipped in the game's own package, or None; games bring their own help."""
        path = self._package_path(*parts)
        try:
            return path.read_text(encoding="utf-8") if path is not None and path.is_file() else None
        except FileNotFoundError:
            return None

    @property
    def web_dir(self) -> Path | None:
        """The game's own web parts (``web/`` in its package: board template, JS, CSS), or None.

        The portal serves them (`ludothek.portal.gameweb`); a game without one gets the generic board.
        """
        path = self._package_path("web")
        return Path(str(path)) if path is not None and path.is_dir() else None

    def rules_markdown(self, lang: str) -> str | None:
        """The rules page in ``lang`` as Markdown (``rulebook/<lang>.md`` in the game package), or None.

        Each ``## `` section may hold a short version, then a line ``+++``, then the long version;
        the portal renders it without knowing anything about the game.
        """
        if lang not in LANGS:
            return None
        return self._package_file("rulebook", f"{lang}.md")

    def item_name(self, item: str, lang: str, options: Mapping[str, str] | None = None) -> str | None:
        """The readable name of a thing a seat acquired, as the statistics key it (issue 32), or None.

        The statistics count purchases by short ids (``wheat_field``, ``monument:great_wall``, ``train:3``);
        only the game knows what they are called, from the same data its board and rules pages show, so the
        portal asks here and never keeps a name table of its own.  ``options`` (the games' options) matter
        where components differ between variants (Snowdonia's maps).  Default: no names.
        """
        return None

    def about(self) -> dict[str, Any]:
        """Box facts for the game page (``about.json`` in the game package): players, time, people, BGG id."""
        import json

        text = self._package_file("about.json")
        return dict(json.loads(text)) if text else {}

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": dict(self.title),
            "min_players": self.min_players,
            "max_players": self.max_players,
            "rules_version": self.rules_version,
            "options": [opt.to_json() for opt in self.options],
        }


#: `State._undo_memo`: the history list, how many entries it covers, the indices in force, for each
#: of them the seats (in order of first appearance) of the entries between it and the one before,
#: and the seats of the entries after the last one.
_UndoMemo = tuple[list["HistoryEntry"], int, tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]


def _seats_in_order(*parts: tuple[int, ...]) -> tuple[int, ...]:
    """The seats of ``parts`` in order, each once (a handful: the players and chance)."""
    out: list[int] = []
    for part in parts:
        for seat in part:
            if seat not in out:
                out.append(seat)
    return tuple(out)


#: `State` methods a game must not override: the engine's checks and refusals live in them only.
FINAL_STATE_METHODS = ("apply_action", "_apply_checked")


class State(ABC):
    """A position of a game.  Subclasses implement the underscored hooks.

    The public methods here add what every game needs the same way: turn and
    legality checks before anything changes, the history with secret chance
    outcomes, and JSON-friendly results.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a game state class that overrides a final method (use `_apply_fast` for speed)."""
        super().__init_subclass__(**kwargs)
        for name in FINAL_STATE_METHODS:
            if name in cls.__dict__:
                raise TypeError(f"{cls.__qualname__} must not override State.{name}; implement _apply_fast instead")

    def __init__(self, game: Game, num_players: int, options: Mapping[str, str]):
        self.game = game
        self.num_players = num_players
        self.options: dict[str, str] = dict(options)
        self._history: list[HistoryEntry] = []

    # ----- what a game implements -------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """A seat 0..n-1, `CHANCE`, or `TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> list[str]:
        """Legal actions of the seat to move; at a chance node, the possible outcomes."""

    @abstractmethod
    def _apply(self, action: str) -> None:
        """Apply an action that `_validate` accepted."""

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """JSON-serializable view for ``seat`` (``None``: a spectator)."""

    @abstractmethod
    def result(self) -> list[SeatResult]:
        """Each seat's rank and score; meaningful once terminal (running scores before)."""

    @abstractmethod
    def _describe(self, action: str, lang: str) -> str:
        """A short sentence for the log, for an action legal in this state (seats named by `seat_name`)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The complete state, hidden information included, as plain JSON data.

        Two states are the same position exactly when their snapshots are equal;
        the conformance suite and replay checks rely on it.
        """

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """``(action, probability)`` pairs at a chance node; uniform unless a game says otherwise."""
        if self.current_player() != CHANCE:
            return []
        actions = self.legal_actions()
        p = 1.0 / len(actions)
        return [(a, p) for a in actions]

    def sample_outcome(self, rng: random.Random) -> str:
        """One chance outcome drawn with the probabilities of `chance_outcomes`.

        A game may override this to draw without listing every outcome (a
        shuffled stack of 50 tiles needs one ``rng.choice``, not 50 pairs);
        the override must give exactly the same distribution.  `chance_outcomes`
        still lists them all for whoever needs the whole picture.
        """
        outcomes = self.chance_outcomes()
        x = rng.random()
        acc = 0.0
        for action, p in outcomes:
            acc += p
            if x < acc:
                return action
        return outcomes[-1][0]

    def _validate(self, action: str) -> None:
        """Raise `IllegalAction` unless ``action`` is legal now.  Games may override for speed."""
        if action not in self.legal_actions():
            raise IllegalAction(self.explain_illegal(action))

    def explain_illegal(self, action: str) -> str:
        """Why ``action`` is not legal now; games may give more specific reasons."""
        return f"'{action}' is not a legal action now"

    def _visibility(self, action: str) -> frozenset[int] | None:
        """For a chance action about to be applied: which seats may see it (``None`` = all)."""
        return None

    def resample_hidden(self, seat: int | None, rng: random.Random) -> State | None:
        """A copy in which what ``seat`` cannot see is changed (deck order, others' secrets).

        Used by the conformance suite to prove views hide what they must, and by
        bots that sample hidden information.  ``None`` when nothing is hidden.
        """
        return None

    def _describe_hidden(self, action: str, lang: str) -> str:
        """Log sentence for a secret chance outcome, as seen by a seat that may not see it."""
        return "Ein verdeckter Zufallsausgang." if lang == "de" else "A hidden chance outcome."

    def describe(self, action: str, lang: str = "en", names: Sequence[str] | None = None) -> str:
        """A short sentence for ``action`` (legal now) in ``lang``; ``names[seat]`` names each seat."""
        if names is None:  # nothing to set: the names of an outer block, if any, stay in force
            return self._describe(action, lang)
        with naming(names):
            return self._describe(action, lang)

    def describe_all(self, actions: Iterable[str], lang: str = "en",
                     names: Sequence[str] | None = None) -> list[str]:
        """``[describe(a, lang, names) for a in actions]``, the same strings, made under one `naming` block.

        The seat to move gets every legal action with its sentence in each
        answer after a move (`ludothek.portal.gameview.seat_context`); entering
        the names once instead of once per action, and letting a game share
        the work its sentences have in common (`_describe_all`), makes that
        list several times cheaper (issue 14).
        """
        if names is None:
            return self._describe_all(actions, lang)
        with naming(names):
            return self._describe_all(actions, lang)

    def _describe_all(self, actions: Iterable[str], lang: str) -> list[str]:
        """The sentences for ``actions`` (seat names already in force).  A game may override it for speed.

        An override must give exactly ``[self._describe(a, lang) for a in actions]``.
        """
        describe = self._describe
        return [describe(action, lang) for action in actions]

    def describe_hidden(self, action: str, lang: str = "en", names: Sequence[str] | None = None) -> str:
        """The sentence a seat that may not see the secret chance outcome ``action`` reads instead."""
        with naming(names):
            return self._describe_hidden(action, lang)

    # ----- shared behaviour -------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def apply_action(self, action: str, seat: int | None = None, names: Sequence[str] | None = None) -> None:
        """Apply one legal action; with ``seat``, also check that it is that seat's turn.

        Anything illegal raises `IllegalAction` before the state changes; its
        message names seats by ``names`` (as `seat_name` does).  Final: a game
        that wants a faster way implements `_apply_fast`; the checks and every
        refusal stay here (`__init_subclass__` refuses an override).
        """
        if names is None:  # the hot path of bots and replays: no context to set
            if not self._apply_fast(action, seat):
                self._apply_checked(action, seat)
            return
        with naming(names):
            if not self._apply_fast(action, seat):
                self._apply_checked(action, seat)

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        """A game's fast path for `apply_action`; the default has none and returns False.

        An override either applies ``action`` completely (it is legal, it is
        ``seat``'s turn if ``seat`` is given, the history entry is appended
        exactly as `_apply_checked` would) and returns True, or changes
        nothing and returns False: then the engine's checked path runs, which
        applies the action or raises the refusal (`_validate`,
        `explain_illegal`) with the right seat names.  It never raises
        `IllegalAction` itself, so no game repeats the engine's refusals.
        Bots and replays call it millions of times: it is worth a game's
        while to check against a list it built once per position.
        """
        return False

    def _apply_checked(self, action: str, seat: int | None) -> None:
        """The engine's checked apply: every refusal of `apply_action` is raised here."""
        if not isinstance(action, str):
            raise IllegalAction(f"an action must be a string, not {type(action).__name__}")
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalAction("the game is over")
        if seat is not None and seat != player:
            if player == CHANCE:
                raise IllegalAction("it is nobody's turn: a random outcome is due")
            raise IllegalAction(f"it is not your turn ({seat_name(player)} is to move)")
        self._validate(action)
        visible_to = self._visibility(action) if player == CHANCE else None
        self._apply(action)
        self._history.append(HistoryEntry(player, action, visible_to))

    def history(self, viewer: int | str | None = "all") -> list[HistoryEntry]:
        """Applied actions with their seats, and undo entries (action `UNDO`) after the actions they took back.

        ``history()`` gives everything (for records); ``history(seat)`` or
        ``history(None)`` (a spectator) replaces secret outcomes by ``"?"``.
        """
        if viewer == "all":
            return list(self._history)
        seat = viewer if isinstance(viewer, int) else None
        return [e if e.visible(seat) else HistoryEntry(e.seat, HIDDEN_ACTION, e.visible_to) for e in self._history]

    def move_number(self) -> int:
        """How many entries the history holds (actions and undos): the sequence number moves are made against."""
        return len(self._history)

    # ----- undo -------------------------------------------------------------------
    def _undo_memo(self) -> _UndoMemo:
        """What undo needs to know about the history, brought up to date and shared (never change it).

        Every answer after a move asks `can_undo`, and a record may hold thousands of
        move/undo pairs: walking the whole history each time grew with the length of the game
        (issues 14 and 28: a record of 9,850 move/undo pairs cost a minute).  The walk is kept in
        ``_in_force_memo`` (the history list it was made for, how many entries it covers, the
        indices in force, and for the refusals the seats that acted around them) and only the
        entries appended since are walked; `undo` appends its own entry and brings the memo
        along itself.  A history only ever grows by appending to its list; anything that puts in
        another list (a clone, a replay) no longer matches the memo, so that list is walked
        afresh once.  The memo is replaced, never changed in place, so a clone sharing it is safe.
        """
        history = self._history
        memo: _UndoMemo | None = self.__dict__.get("_in_force_memo")
        if memo is not None and memo[0] is history and memo[1] <= len(history):
            if memo[1] == len(history):
                return memo
            start, stack, gaps, after = memo[1], list(memo[2]), list(memo[3]), memo[4]
        else:
            start, stack, gaps, after = 0, [], [], ()
        for index in range(start, len(history)):
            entry = history[index]
            if entry.action == UNDO and entry.seat != CHANCE:
                taken = stack.pop()
                after = _seats_in_order(gaps.pop(), (history[taken].seat,), after, (entry.seat,))
            else:
                stack.append(index)
                gaps.append(after)
                after = ()
        memo = (history, len(history), tuple(stack), tuple(gaps), after)
        self._in_force_memo = memo
        return memo

    def _in_force(self) -> list[int]:
        """Indices into the history of the actions still in force (undone ones and undo entries left out).

        Kept up to date incrementally (see `_undo_memo`); callers get their own list.
        """
        return list(self._undo_memo()[2])

    def undone(self) -> set[int]:
        """Indices into `history` of the actions that were taken back (for logs that strike them through)."""
        kept = set(self._in_force())
        return {i for i, e in enumerate(self._history) if i not in kept and not (e.action == UNDO and e.seat != CHANCE)}

    def undo_refusal(self, seat: int) -> str | None:
        """Why ``seat`` may not take back its last action now, or ``None`` when it may.

        A seat may take back its own last action in force as long as nothing
        happened after it: no chance outcome was drawn and no other seat acted
        (not even in a move it took back since).  Repeated undos walk back
        through the seat's run of actions, which is the turn it is playing (or
        has just ended), never past a chance outcome or another seat's move.
        """
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            return f"there is no seat {seat!r} in this game"
        if self.is_terminal():
            return "the game is over; nothing can be taken back"
        _, _, stack, _, after = self._undo_memo()
        if not stack:
            return "nothing has been played yet that could be taken back"
        last = self._history[stack[-1]]
        if last.seat == CHANCE:
            return "a random outcome has been drawn since your last action, so it cannot be taken back"
        # Other seats' moves after it count even when they were taken back: they saw the position.
        other = last.seat if last.seat != seat else next((s for s in after if s != seat), None)
        if other is not None:
            return f"{seat_name(other)} has acted since, so your last action cannot be taken back"
        return None

    def can_undo(self, seat: int) -> bool:
        return self.undo_refusal(seat) is None

    def undo(self, seat: int, names: Sequence[str] | None = None, before: State | None = None) -> None:
        """Take back ``seat``'s last action in force; the undo itself stays in the history.

        The position becomes exactly the one before that action.  It is rebuilt
        by replaying the actions still in force, so every game gets undo for
        free; a caller that kept the position from just before that action
        passes it as ``before`` (a copy is taken) to skip the replay.  Refused
        with `IllegalAction` (nothing changes) unless `undo_refusal` allows it.
        Records keep both the action and the undo entry, so they replay to this
        very state.

        With ``before`` an undo costs a copy of it and no walk of the history: the
        bookkeeping of `_undo_memo` is carried along (issue 28).
        """
        with naming(names):
            reason = self.undo_refusal(seat)
        if reason is not None:
            raise IllegalAction(reason)
        history, length, stack, gaps, after = self._undo_memo()
        target = stack[-1]
        if before is not None:
            theirs = before._history
            # Cheap and usual: ``before`` was copied from this very game just before the action (its
            # history is ours up to it: the same length and the same last entry, not an equal one).
            if not (len(theirs) == target and (target == 0 or theirs[-1] is history[target - 1])):
                kept = [(history[i].seat, history[i].action) for i in stack[:-1]]
                if [(theirs[i].seat, theirs[i].action) for i in before._in_force()] != kept:
                    raise ValueError("'before' is not the position before the action to take back")
            # The copy's history is thrown away below (ours is kept): copying it would cost every undo
            # the length of the game (issue 34), so ``before`` lends an empty one while it is copied.
            theirs_list, before._history = before._history, []
            try:
                fresh = before.clone()
            finally:
                before._history = theirs_list
        else:
            fresh = self.game.new_state(self.num_players, self.options)
            for i in stack[:-1]:
                fresh.apply_action(history[i].action)
        memo = (history, length + 1, stack[:-1], gaps[:-1],
                _seats_in_order(gaps[-1], (history[target].seat,), after, (seat,)))
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        history.append(HistoryEntry(seat, UNDO))
        self._history = history
        self._in_force_memo = memo

    # ----- whose turn ---------------------------------------------------------------
    def turn_seat(self) -> int | None:
        """The seat whose *turn* is in progress, also at a chance node; ``None`` between turns or at the end.

        A turn is one seat's run of decisions together with the chance steps that belong to it (the
        dice a player chose to roll, the card their action draws).  The service uses it to hand a turn
        on (`ludothek.services.play`): after a person's action, a chance step whose turn seat is still
        theirs is resolved at once; one whose turn seat is another seat or ``None`` (the next player's
        roll, a round's upkeep) waits until the turn is handed on, so that the player may take back
        their decisions until then and nothing revealed is ever taken back.  A game tells it with
        `_turn_seat`.
        """
        player = self.current_player()
        if player == TERMINAL:
            return None
        return self._turn_seat()

    def _turn_seat(self) -> int | None:
        """`turn_seat` while the game runs.  The default: the seat to move, or at a chance node the seat
        of the last action in force (a chance step is part of the turn that caused it).

        A game overrides it where a chance step starts the *next* turn (Machi Koro's and Roll Through
        the Ages' dice) or belongs to nobody's turn (a round's upkeep): then it names that turn's seat
        or ``None``.  Only called when the game is not over.
        """
        player = self.current_player()
        if player != CHANCE:
            return player
        stack = self._undo_memo()[2]
        for index in reversed(stack):
            seat = self._history[index].seat
            if seat != CHANCE:
                return seat
        return None
    def decisions(self) -> int:
        """How many decisions of players are in force: the move number people read ("Move 12").

        `move_number` counts every entry (chance outcomes, undos and the actions they took back), which
        is what moves are made against but not what a player counts: issue 29 found "Move 107" in a
        game of far fewer decisions.  Chance steps, taken-back actions and the undos do not count here.
        """
        history = self._history
        return sum(1 for i in self._undo_memo()[2] if history[i].seat != CHANCE)

    def turns_taken(self) -> int:
        """How many player turns have begun, for statistics such as average game length.

        The default counts runs of one seat's actions in the history (chance
        actions do not break a run).  A game where a seat moves twice in a row
        (solo play, extra turns) overrides it with its own turn counter.
        """
        count, last = 0, None
        for entry in (self._history[i] for i in self._in_force()):
            if entry.seat == CHANCE:
                continue
            if entry.seat != last:
                count += 1
                last = entry.seat
        return count

    def clone(self) -> State:
        """An independent copy.  Games may override with something faster."""
        return copy.deepcopy(self)

    def result_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self.result()]

    def returns(self) -> list[float]:
        """Zero-sum-ish outcome per seat for bots: 1 for a sole winner, split on ties, 0 otherwise."""
        res = self.result()
        best = [r.seat for r in res if r.rank == 1]
        return [1.0 / len(best) if r.seat in best else 0.0 for r in sorted(res, key=lambda r: r.seat)]


def sample_chance(state: State, rng: random.Random) -> str:
    """Pick a chance outcome with its probability (see `State.sample_outcome`)."""
    return state.sample_outcome(rng)


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    return lang


def pick(texts: Mapping[str, str], lang: str) -> str:
    """The text in ``lang``, falling back to English."""
    return texts.get(lang) or texts["en"]


def iter_seats(state: State) -> Iterable[int]:
    return range(state.num_players)
