"""Log sentences and refusal reasons for Machi Koro actions, in German and English.

A sentence is made in the state *before* the action, so it can name who acts
and what a card costs at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ludothek.engine import CHANCE, TERMINAL, IllegalAction
from ludothek.engine.core import check_lang, seat_name

from . import notation as N
from .cards import ESTABLISHMENTS, IS_PURPLE, LANDMARKS

if TYPE_CHECKING:
    from .rules import MachiKoroState


def player_name(seat: int, lang: str) -> str:
    """The seat's player name (see `ludothek.engine.seat_name`)."""
    return seat_name(seat, lang)


def _coins(n: int, lang: str) -> str:
    if lang == "de":
        return f"{n} Münze" if n == 1 else f"{n} Münzen"
    return f"{n} coin" if n == 1 else f"{n} coins"


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
        for action, (is_landmark, index) in N.BUILD_TARGET.items()
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
    if action in N.DICE_VALUES:
        a, b = N.DICE_VALUES[action]
        if b:
            double = (" (Pasch)" if de else " (doubles)") if a == b else ""
            text = f"{'Wurf' if de else 'Roll'}: {a} + {b} = {a + b}{double}"
        else:
            text = f"{'Wurf' if de else 'Roll'}: {a}"
        return text + _roll_effect(state, action, lang)
    if action in N.DRAW_TARGET:
        name = ESTABLISHMENTS[N.DRAW_TARGET[action]].name(lang)
        return f"Aufgedeckt: {name}" if de else f"Drawn for the display: {name}"
    if action == N.ROLL_ONE:
        return f"{who} würfelt mit 1 Würfel." if de else f"{who} rolls 1 die."
    if action == N.ROLL_TWO:
        return f"{who} würfelt mit 2 Würfeln." if de else f"{who} rolls 2 dice."
    if action == N.KEEP:
        return f"{who} behält den Wurf." if de else f"{who} keeps the roll."
    if action == N.REROLL:
        return (
            f"{who} würfelt mit dem Funkturm noch einmal."
            if de
            else f"{who} rolls again with the Radio Tower."
        )
    if action == N.PASS:
        return f"{who} baut nichts." if de else f"{who} builds nothing."
    if action == N.NOTRADE:
        return (
            f"{who} verzichtet auf den Tausch (Bürohaus)."
            if de
            else f"{who} declines the Business Center trade."
        )
    tail = _BUILD_TAILS[lang].get(action)
    if tail is not None:
        return who + tail
    target = N.parse_tv(action)
    if target is not None and 0 <= target < state.num_players:
        amount = min(5, state.coins(target))
        victim = player_name(target, lang)
        return (
            f"{who} nimmt mit dem Fernsehsender {_coins(amount, lang)} von {victim}."
            if de
            else f"{who} takes {_coins(amount, lang)} from {victim} with the TV Station."
        )
    trade = N.parse_trade(action)
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
    build = N.parse_build(action)
    if build is not None and phase == "build":
        is_landmark, index = build
        me = state.turn
        if is_landmark:
            m = LANDMARKS[index]
            if state.has_built(me, m.id):
                return f"you have already built the {m.en}"
            return f"the {m.en} costs {m.cost} coins and you have {state.coins(me)}"
        e = ESTABLISHMENTS[index]
        if not state.pile(e.id):
            return f"there is no {e.en} left on display"
        if IS_PURPLE[index] and state.count(me, e.id):
            return f"you may own only one {e.en} (purple establishment)"
        if e.cost > state.coins(me):
            return f"the {e.en} costs {_coins(e.cost, 'en')} and you have {state.coins(me)}"
        return (f"you may own at most 2 of each establishment (beginners' rule), "
                f"and you already have 2 {e.en} cards")
    target = N.parse_tv(action)
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
