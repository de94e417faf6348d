"""Machi Koro's action notation (documented in ``docs/games/machikoro.md``).

Actions are stored in game records, so these strings are stable:

=====================  ==========================================================
``roll:1`` ``roll:2``  roll one or two dice (a choice only with the Train Station)
``dice:4``             chance: one die shows 4
``dice:3+4``           chance: two dice show 3 and 4 (smaller first; ``dice:5+5`` is doubles)
``keep`` ``reroll``    Radio Tower: keep the roll or roll again
``tv:N``               TV Station: take coins from player N (1..n, seat + 1)
``trade:A:N:B``        Business Center: give your A to player N for their B
``notrade``            Business Center: decline the trade
``build:ID``           build an establishment or landmark (``build:cafe``, ``build:train_station``)
``pass``               build nothing
``draw:ID``            chance ("Komme, was wolle"): the top card of the deck is ID
=====================  ==========================================================

Every fixed string is made once here, so the engine hands out and compares the
same string objects instead of formatting new ones on every turn.

The log sentences and refusal reasons for the actions, in German and English,
are here too: a sentence is made in the state *before* the action, so it can
name who acts and what a card costs at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ludothek.engine import CHANCE, TERMINAL, IllegalAction
from ludothek.engine.core import check_lang, seat_name
from ludothek.engine.plural import Noun

from .cards import ESTABLISHMENTS, IS_PURPLE, KIND_INDEX, LANDMARK_INDEX, LANDMARKS

if TYPE_CHECKING:
    from .rules import MachiKoroState

PASS = "pass"
KEEP = "keep"
REROLL = "reroll"
NOTRADE = "notrade"
ROLL_ONE = "roll:1"
ROLL_TWO = "roll:2"

#: ``build:ID`` for each establishment (by kind index) and landmark (by landmark index).
BUILD_KIND: tuple[str, ...] = tuple(f"build:{e.id}" for e in ESTABLISHMENTS)
BUILD_LANDMARK: tuple[str, ...] = tuple(f"build:{m.id}" for m in LANDMARKS)
DRAW_KIND: tuple[str, ...] = tuple(f"draw:{e.id}" for e in ESTABLISHMENTS)

#: Chance outcomes with one die, and with two dice as the 21 unordered pairs.
ONE_DIE: tuple[str, ...] = tuple(f"dice:{a}" for a in range(1, 7))
TWO_DICE: tuple[str, ...] = tuple(f"dice:{a}+{b}" for a in range(1, 7) for b in range(a, 7))
ONE_DIE_OUTCOMES: tuple[tuple[str, float], ...] = tuple((a, 1 / 6) for a in ONE_DIE)
TWO_DICE_OUTCOMES: tuple[tuple[str, float], ...] = tuple(
    (f"dice:{a}+{b}", (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)
)
#: ``dice:...`` -> (first die, second die or 0).
DICE_VALUES: dict[str, tuple[int, int]] = {f"dice:{a}": (a, 0) for a in range(1, 7)} | {
    f"dice:{a}+{b}": (a, b) for a in range(1, 7) for b in range(a, 7)
}

#: ``build:ID`` -> (is landmark, index).
BUILD_TARGET: dict[str, tuple[bool, int]] = {s: (False, i) for i, s in enumerate(BUILD_KIND)} | {
    s: (True, i) for i, s in enumerate(BUILD_LANDMARK)
}
DRAW_TARGET: dict[str, int] = {s: i for i, s in enumerate(DRAW_KIND)}

#: ``tv:N`` for each seat (N = seat + 1).
TV_TARGET: tuple[str, ...] = tuple(f"tv:{seat + 1}" for seat in range(8))


#: ``trade:A:N:B`` by (give kind, seat, take kind), made once.
TRADE_ACTION: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(
        tuple(f"trade:{give.id}:{seat + 1}:{take.id}" for take in ESTABLISHMENTS)
        for seat in range(len(TV_TARGET))
    )
    for give in ESTABLISHMENTS
)


def tv_action(seat: int) -> str:
    return TV_TARGET[seat]


def trade_action(give: int, seat: int, take: int) -> str:
    return TRADE_ACTION[give][seat][take]


def parse_tv(action: str) -> int | None:
    """The target seat of ``tv:N``, or ``None`` if malformed."""
    if not action.startswith("tv:"):
        return None
    text = action[3:]
    if not text.isdigit() or text.startswith("0") or len(text) > 1:
        return None
    return int(text) - 1


def parse_trade(action: str) -> tuple[int, int, int] | None:
    """``(give kind, seat, take kind)`` of ``trade:A:N:B``, or ``None`` if malformed."""
    parts = action.split(":")
    if len(parts) != 4 or parts[0] != "trade":
        return None
    give, seat, take = KIND_INDEX.get(parts[1]), parse_tv("tv:" + parts[2]), KIND_INDEX.get(parts[3])
    if give is None or seat is None or take is None:
        return None
    return give, seat, take


def parse_build(action: str) -> tuple[bool, int] | None:
    return BUILD_TARGET.get(action)


def kind_of(card_id: str) -> int | None:
    return KIND_INDEX.get(card_id)


def landmark_of(card_id: str) -> int | None:
    return LANDMARK_INDEX.get(card_id)



def player_name(seat: int, lang: str) -> str:
    """The seat's player name (see `ludothek.engine.seat_name`)."""
    return seat_name(seat, lang)


COIN = Noun(de=("Münze", "Münzen"), en=("coin", "coins"))
TURN = Noun(de=("Zug", "Züge"), en=("turn", "turns"))


def _coins(n: int, lang: str) -> str:
    return COIN.count(n, lang)


def _roll_effect(state: MachiKoroState, action: str, lang: str) -> str:
    """What the roll does to everybody's coins, found by applying it to a copy."""
    child = state.clone()
    try:
        child.apply_action(action)
    except IllegalAction:
        return ""
    if child.phase == "radio_tower":
        return (
            " (Funkturm: behalten oder neu würfeln?)"
            if lang == "de"
            else " (Radio Tower: keep or roll again?)"
        )
    changes = [
        f"{player_name(p, lang)} {delta:+d}"
        for p in range(state.num_players)
        if (delta := child.coins(p) - state.coins(p))
    ]
    if not changes:
        return " - kein Einkommen" if lang == "de" else " - no income"
    return " - " + ", ".join(changes)


#: The part of a ``build:ID`` sentence after the player's name, by language and action: the card's
#: name and cost never change, so each is formatted once (the build list is most of what the seat to
#: move is offered, and `describe_actions` makes all of it after every move).
_BUILD_TAILS: dict[str, dict[str, str]] = {
    lang: {
        action: (
            f" baut {card.name(lang)} für {_coins(card.cost, lang)}."
            if lang == "de"
            else f" builds {card.name(lang)} for {_coins(card.cost, lang)}."
        )
        for action, (is_landmark, index) in BUILD_TARGET.items()
        for card in (LANDMARKS[index] if is_landmark else ESTABLISHMENTS[index],)
    }
    for lang in ("de", "en")
}


def describe_action(state: MachiKoroState, action: str, lang: str = "en") -> str:
    """A short sentence for ``action`` played in ``state``."""
    check_lang(lang)
    return _sentence(state, action, lang, player_name(state.turn, lang))


def describe_actions(state: MachiKoroState, actions: Iterable[str], lang: str = "en") -> list[str]:
    """``[describe_action(state, a, lang) for a in actions]``, with what they share worked out once.

    The language check and the mover's name are the same for every action of
    a position, and the build sentences come ready-made but for the name
    (`_BUILD_TAILS`).  `MachiKoroState._describe_all` uses it for the list of
    legal actions that every answer to the seat to move carries (issue 14).
    """
    actions = list(actions)
    if not actions:
        return []
    check_lang(lang)
    who = player_name(state.turn, lang)
    tails = _BUILD_TAILS[lang]
    return [who + tail if (tail := tails.get(action)) is not None else _sentence(state, action, lang, who)
            for action in actions]


def _sentence(state: MachiKoroState, action: str, lang: str, who: str) -> str:
    """The sentence for ``action`` in ``state`` (``lang`` checked), ``who`` being the mover's name."""
    de = lang == "de"
    if action in DICE_VALUES:
        a, b = DICE_VALUES[action]
        if b:
            double = (" (Pasch)" if de else " (doubles)") if a == b else ""
            text = f"{'Wurf' if de else 'Roll'}: {a} + {b} = {a + b}{double}"
        else:
            text = f"{'Wurf' if de else 'Roll'}: {a}"
        return text + _roll_effect(state, action, lang)
    if action in DRAW_TARGET:
        name = ESTABLISHMENTS[DRAW_TARGET[action]].name(lang)
        return f"Aufgedeckt: {name}" if de else f"Drawn for the display: {name}"
    if action == ROLL_ONE:
        return f"{who} würfelt mit 1 Würfel." if de else f"{who} rolls 1 die."
    if action == ROLL_TWO:
        return f"{who} würfelt mit 2 Würfeln." if de else f"{who} rolls 2 dice."
    if action == KEEP:
        return f"{who} behält den Wurf." if de else f"{who} keeps the roll."
    if action == REROLL:
        return (
            f"{who} würfelt mit dem Funkturm noch einmal."
            if de
            else f"{who} rolls again with the Radio Tower."
        )
    if action == PASS:
        return f"{who} baut nichts." if de else f"{who} builds nothing."
    if action == NOTRADE:
        return (
            f"{who} verzichtet auf den Tausch (Bürohaus)."
            if de
            else f"{who} declines the Business Center trade."
        )
    tail = _BUILD_TAILS[lang].get(action)
    if tail is not None:
        return who + tail
    target = parse_tv(action)
    if target is not None and 0 <= target < state.num_players:
        amount = min(5, state.coins(target))
        victim = player_name(target, lang)
        return (
            f"{who} nimmt mit dem Fernsehsender {_coins(amount, lang)} von {victim}."
            if de
            else f"{who} takes {_coins(amount, lang)} from {victim} with the TV Station."
        )
    trade = parse_trade(action)
    if trade is not None and 0 <= trade[1] < state.num_players:
        give, seat, take = trade
        other = player_name(seat, lang)
        g, t = ESTABLISHMENTS[give].name(lang), ESTABLISHMENTS[take].name(lang)
        return (
            f"{who} tauscht {g} gegen {t} von {other} (Bürohaus)."
            if de
            else f"{who} trades {g} for {t} of {other} (Business Center)."
        )
    return f"Unbekannte Aktion {action!r}" if de else f"Unknown action {action!r}"


def explain_illegal(state: MachiKoroState, action: str) -> str:
    """Why ``action`` is not legal now, in words a player understands (English)."""
    player = state.current_player()
    if player == TERMINAL:
        return "the game is over"
    phase = state.phase
    build = parse_build(action)
    if build is not None and phase == "build":
        is_landmark, index = build
        me = state.turn
        if is_landmark:
            m = LANDMARKS[index]
            if state.has_built(me, m.id):
                return f"you have already built the {m.en}"
            return f"the {m.en} costs {_coins(m.cost, 'en')} and you have {state.coins(me)}"
        e = ESTABLISHMENTS[index]
        if not state.pile(e.id):
            return f"there is no {e.en} left on display"
        if IS_PURPLE[index] and state.count(me, e.id):
            return f"you may own only one {e.en} (purple establishment)"
        if e.cost > state.coins(me):
            return f"the {e.en} costs {_coins(e.cost, 'en')} and you have {state.coins(me)}"
        return (f"you may own at most 2 of each establishment (beginners' rule), "
                f"and you already have 2 {e.en} cards")
    target = parse_tv(action)
    if target is not None and phase == "tv_station":
        if target == state.turn:
            return "the TV Station takes coins from an opponent, not from yourself"
        if 0 <= target < state.num_players and not state.coins(target):
            return f"{seat_name(target)} has no coins; choose one of " + ", ".join(state.legal_actions())
    expected = {
        "draw": "a card is drawn for the display",
        "choose_dice": "choose roll:1 or roll:2",
        "dice": "the dice are rolled",
        "radio_tower": "choose keep or reroll (Radio Tower)",
        "tv_station": "choose the TV Station's target, e.g. " + ", ".join(state.legal_actions()),
        "business_center": "choose a Business Center trade or notrade",
        "build": "build something (build:ID) or pass",
    }[phase]
    who = "now" if player == CHANCE else f"for {seat_name(player)} now"
    return f"'{action}' is not a legal action {who}: {expected}"
