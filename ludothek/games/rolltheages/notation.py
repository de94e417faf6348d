"""Action strings of Roll Through the Ages and the dice outcome tables.

Dice are identical, so a roll is recorded as the multiset of faces that came
up, written in the canonical face order ``G F S X C W`` (1 good, 3 food,
2 goods + skull, 2 food or 2 workers, 7 coins, 3 workers): ``dice:F+S+W``.
Listing multisets instead of ordered faces keeps a 7-dice roll at 792
outcomes instead of 279 936, with their true (multinomial) probabilities.
Every action string is documented in ``docs/games/rolltheages.md``.

The log sentences (German and English) for every action, and the reasons for
refused ones, are here too.  A sentence describes the action *and* what it set
off automatically: the roll that ends the rolling phase also tells the goods,
food, feeding and disaster that followed, and the action that ends a turn names
the next player.  This is done by applying the action to a clone and reading
the events it produced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial, prod
from typing import TYPE_CHECKING, Any

from ludothek.engine import pick, seat_name
from ludothek.engine.plural import Noun, plural

from .components import (
    DEVELOPMENT_BY_ID,
    DISASTER_BY_ID,
    FACE_BY_ID,
    FACE_IDS,
    FACE_RANK,
    GOOD_IDS,
    GOODS,
    MAX_CITIES,
    MONUMENT_BY_ID,
)

if TYPE_CHECKING:
    from .rules import RollState

#: Trade items: the five goods and food.
FOOD = "food"
TRADE_ITEMS: tuple[str, ...] = (*GOOD_IDS, FOOD)
TRADE_INDEX: dict[str, int] = {item: i for i, item in enumerate(TRADE_ITEMS)}

CITY = "city"


def sort_faces(faces: Iterable[str]) -> list[str]:
    """Faces in canonical order."""
    return sorted(faces, key=FACE_RANK.__getitem__)


def faces_text(faces: Iterable[str]) -> str:
    """``F+S+W`` for a (sorted) sequence of faces."""
    return "+".join(faces)


def dice_action(faces: Iterable[str]) -> str:
    return "dice:" + faces_text(sort_faces(faces))


@cache
def roll_outcomes(k: int) -> tuple[tuple[str, float], ...]:
    """Every outcome of rolling ``k`` dice as ``(action, probability)``, in canonical order."""
    outcomes: list[tuple[str, float]] = []
    total = 6**k
    for combo in combinations_with_replacement(FACE_IDS, k):
        counts = Counter(combo).values()
        ways = factorial(k) // prod(factorial(c) for c in counts)
        outcomes.append(("dice:" + "+".join(combo), ways / total))
    return tuple(outcomes)


@cache
def roll_outcome_faces(k: int) -> dict[str, tuple[str, ...]]:
    """``action -> faces`` for the outcomes of rolling ``k`` dice."""
    return {action: tuple(action[5:].split("+")) for action, _ in roll_outcomes(k)}


@cache
def _roll_actions(k: int) -> tuple[str, ...]:
    return tuple(action for action, _ in roll_outcomes(k))


def roll_actions(k: int) -> list[str]:
    """The ``dice:`` actions for rolling ``k`` dice (a fresh list)."""
    return list(_roll_actions(k))


@cache
def _all_outcome_faces() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for k in range(1, MAX_CITIES + 1):
        table.update(roll_outcome_faces(k))
    return table


def parse_dice(action: str) -> tuple[str, ...] | None:
    """The faces of a well-formed ``dice:`` action in canonical order, else ``None``."""
    return _all_outcome_faces().get(action)


@cache
def sub_multisets(faces: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every non-empty sub-multiset of sorted ``faces``, each in canonical order (cached: do not mutate)."""
    counts = Counter(faces)
    kinds = [f for f in FACE_IDS if counts[f]]
    result: list[tuple[str, ...]] = []
    for takes in product(*(range(counts[f] + 1) for f in kinds)):
        if any(takes):
            result.append(tuple(f for f, t in zip(kinds, takes, strict=True) for _ in range(t)))
    return result


def payment_text(rows: Iterable[str], food: int) -> str:
    """``cloth+metal`` or ``stone+3food``: the goods rows and food a purchase spends."""
    items = list(rows)
    if food:
        items.append(f"{food}{FOOD}")
    return "+".join(items)


_GOOD_NAME = {g.id: g.name for g in GOODS}
_FOOD_NAME = {"de": "Nahrung", "en": "food"}


def _t(lang: str, de: str, en: str) -> str:
    return de if lang == "de" else en


#: The things a log sentence counts, in both languages' forms for one and for more (see `count`).
#: Goods and food stay in the singular after a number, as in the German seed ("3 Stein", "2 Töpferware").
NOUNS: dict[str, Noun] = {
    "worker": Noun(de=("Arbeiter", "Arbeiter"), en=("worker", "workers")),
    "die": Noun(de=("Würfel", "Würfel"), en=("die", "dice")),
    "stone": Noun(de=("Stein", "Stein"), en=("stone", "stone")),
    "coin": Noun(de=("Münze", "Münzen"), en=("coin", "coins")),
    "point": Noun(de=("Punkt", "Punkte"), en=("point", "points")),
    "disaster_point": Noun(de=("Minuspunkt", "Minuspunkte"), en=("disaster point", "disaster points")),
    "city": Noun(de=("Stadt", "Städte"), en=("city", "cities")),
    "skull": Noun(de=("Schädel", "Schädel"), en=("skull", "skulls")),
    "good": Noun(de=("Ware", "Waren"), en=("good", "goods")),
    "roll": Noun(de=("Wurf", "Würfe"), en=("roll", "rolls")),
}


def count(n: int, thing: str, lang: str) -> str:
    """``n`` of ``thing`` in the right form: "1 worker", "3 workers", "1 Münze", "2 Münzen"."""
    return NOUNS[thing].count(n, lang)


def _n(n: int, thing: str) -> str:
    """The English count of ``thing`` (refusals are English, like the engine's messages)."""
    return count(n, thing, "en")


def player(seat: int, lang: str) -> str:
    """The seat's player name (see `ludothek.engine.seat_name`)."""
    return seat_name(seat, lang)


def item_name(item: str, lang: str) -> str:
    return pick(_FOOD_NAME, lang) if item == FOOD else pick(_GOOD_NAME[item], lang)


def amounts(counts: list[int] | tuple[int, ...], items: tuple[str, ...], lang: str) -> str:
    """``2 wood, 1 stone`` (or ``nothing``) for per-item counts."""
    parts = [f"{n} {item_name(item, lang)}" for item, n in zip(items, counts, strict=True) if n]
    return ", ".join(parts) if parts else _t(lang, "nichts", "nothing")


def face_name(face: str, lang: str) -> str:
    return pick(FACE_BY_ID[face].name, lang)


def faces_list(faces: tuple[str, ...] | list[str], lang: str) -> str:
    return ", ".join(face_name(f, lang) for f in faces)


def monument_name(monument: str, lang: str) -> str:
    return pick(MONUMENT_BY_ID[monument].name, lang)


def development_name(dev: str, lang: str) -> str:
    return pick(DEVELOPMENT_BY_ID[dev].name, lang)


def target_name(target: str, city_number: int, lang: str) -> str:
    if target == CITY:
        return _t(lang, f"die {city_number}. Stadt", f"city {city_number}")
    return monument_name(target, lang)


def offer_text(offer: dict[str, Any], lang: str) -> str:
    give = amounts(offer["give"], TRADE_ITEMS, lang)
    ask = amounts(offer["ask"], TRADE_ITEMS, lang)
    return _t(lang, f"{give} gegen {ask}", f"{give} for {ask}")


# ----- actions ------------------------------------------------------------------------
def describe(state: RollState, action: str, lang: str = "en") -> str:
    """The log sentence for a legal ``action`` in ``state``, with what it set off."""
    base = _action_text(state, action, lang)
    child = state.clone()
    child._sink = []
    child._legal = None
    try:
        child._apply(action)
    except Exception:  # not legal here: describe the action only
        return base
    follow = [event_text(e, lang) for e in child._sink]
    return " ".join([base, *[f for f in follow if f]])


def _action_text(state: RollState, action: str, lang: str) -> str:
    who = player(state.current_player(), lang) if state.current_player() >= 0 else player(state.active, lang)
    head, _, rest = action.partition(":")
    board = state.board(state.active)
    if head == "start":
        start = player(int(rest) - 1, lang)
        return _t(lang, f"Startspieler ist {start}.", f"{start} is the start player.")
    if head == "dice":
        faces = parse_dice(action) or ()
        shown = faces_list(faces, lang)
        if state.leading:
            return _t(lang, f"{who} würfelt mit Führungskraft neu: {shown}.", f"{who} re-rolls with Leadership: {shown}.")
        if state.rolls == 0:
            return _t(lang, f"{who} würfelt: {shown}.", f"{who} rolls: {shown}.")
        return _t(
            lang, f"{who} würfelt ({state.rolls + 1}. Wurf): {shown}.", f"{who} rolls (roll {state.rolls + 1}): {shown}."
        )
    if head == "roll":
        faces = tuple(rest.split("+"))
        return _t(
            lang,
            f"{who} würfelt {count(len(faces), 'die', lang)} neu ({faces_list(faces, lang)}).",
            f"{who} re-rolls {count(len(faces), 'die', lang)} ({faces_list(faces, lang)}).",
        )
    if head == "lead":
        return _t(
            lang,
            f"{who} nutzt Führungskraft für einen Würfel mit {face_name(rest, lang)}.",
            f"{who} uses Leadership on a die showing {face_name(rest, lang)}.",
        )
    if head == "food":
        food = int(rest)
        workers = state.choice_dice() - food
        return _t(
            lang,
            f"{who} wählt bei {plural(food, 'de', '{n} Würfel', '{n} Würfeln')} Nahrung"
            f" und bei {plural(workers, 'de', '{n} Würfel', '{n} Würfeln')} Arbeiter.",
            f"{who} takes food on {food} and workers on {workers} of the two-way dice.",
        )
    if head == "offer":
        partner = player(int(rest) - 1, lang)
        return _t(lang, f"{who} bereitet ein Angebot an {partner} vor.", f"{who} drafts an offer to {partner}.")
    if head in ("give", "ask") and state.offer is not None:
        draft = {"give": list(state.offer["give"]), "ask": list(state.offer["ask"])}
        draft[head][TRADE_ITEMS.index(rest)] += 1
        verb = _t(lang, "bietet", "offers") if head == "give" else _t(lang, "verlangt", "asks for")
        partner = player(state.offer["to"], lang)
        return _t(
            lang,
            f"{who} {verb} 1 {item_name(rest, lang)} mehr; Entwurf an {partner}: {offer_text(draft, lang)}.",
            f"{who} {verb} 1 more {item_name(rest, lang)}; draft for {partner}: {offer_text(draft, lang)}.",
        )
    if action == "propose" and state.offer is not None:
        return _t(
            lang,
            f"{who} bietet {player(state.offer['to'], lang)} an: {offer_text(state.offer, lang)}.",
            f"{who} offers {player(state.offer['to'], lang)}: {offer_text(state.offer, lang)}.",
        )
    if action == "cancel":
        return _t(lang, f"{who} zieht das Angebot zurück.", f"{who} withdraws the offer.")
    if action in ("accept", "decline") and state.offer is not None:
        giver = player(state.active, lang)
        text = offer_text(state.offer, lang)
        if action == "accept":
            return _t(lang, f"{who} nimmt an: {giver} gibt {text}.", f"{who} accepts: {giver} gives {text}.")
        return _t(lang, f"{who} lehnt ab ({giver}: {text}).", f"{who} declines ({giver}: {text}).")
    if head == "work":
        target, _, number = rest.partition(":")
        name = target_name(target, board.cities + 1, lang)
        return _t(
            lang, f"{who} setzt {count(int(number), 'worker', lang)} auf {name}.",
            f"{who} places {count(int(number), 'worker', lang)} on {name}."
        )
    if head == "engineer":
        n = int(rest)
        workers = n * board.param("engineering", "workers_per_stone", 3)
        return _t(
            lang,
            f"{who} wandelt mit Technik {count(n, 'stone', lang)} in {count(workers, 'worker', lang)} um.",
            f"{who} turns {count(n, 'stone', lang)} into {count(workers, 'worker', lang)} (Engineering).",
        )
    if head == "buy":
        dev_id, _, pay = rest.partition(":")
        dev = DEVELOPMENT_BY_ID[dev_id]
        paid = [count(state.coins, "coin", lang)] if state.coins else []
        for item in pay.split("+") if pay else []:
            if item.endswith(FOOD):
                paid.append(f"{item[: -len(FOOD)]} {item_name(FOOD, lang)}")
            else:
                paid.append(_t(lang, "alles ", "all ") + item_name(item, lang))
        return _t(
            lang,
            f"{who} kauft {pick(dev.name, 'de')} ({count(dev.cost, 'coin', 'de')}, {count(dev.points, 'point', 'de')})"
            f" mit {', '.join(paid)}.",
            f"{who} buys {pick(dev.name, 'en')} (cost {dev.cost}, {count(dev.points, 'point', 'en')})"
            f" with {', '.join(paid)}.",
        )
    if head == "discard":
        return _t(lang, f"{who} gibt 1 {item_name(rest, lang)} ab.", f"{who} discards 1 {item_name(rest, lang)}.")
    if action == "done":
        return _done_text(state, who, lang)
    return action


def _done_text(state: RollState, who: str, lang: str) -> str:
    phase = state.phase
    if phase == "reroll":
        return _t(lang, f"{who} behält die Würfel.", f"{who} keeps the dice.")
    if phase == "leader":
        return _t(lang, f"{who} verzichtet auf Führungskraft.", f"{who} does not use Leadership.")
    if phase == "trade":
        return _t(lang, f"{who} beendet den Handel.", f"{who} ends trading.")
    if phase == "build":
        if state.workers:
            return _t(
                lang,
                f"{who} beendet das Bauen ({plural(state.workers, 'de', '{n} Arbeiter verfällt', '{n} Arbeiter verfallen')}).",
                f"{who} stops building ({plural(state.workers, 'en', '{n} worker unused', '{n} workers unused')}).",
            )
        return _t(lang, f"{who} beendet das Bauen.", f"{who} stops building.")
    if phase == "buy":
        return _t(lang, f"{who} kauft keine Errungenschaft.", f"{who} buys no development.")
    return _t(lang, f"{who} ist fertig.", f"{who} is done.")


# ----- automatic consequences ------------------------------------------------------------
def event_text(event: dict[str, Any], lang: str) -> str:
    kind = event["type"]
    seat = event.get("seat", 0)
    who = player(seat, lang)
    if kind == "turn":
        return _t(lang, f"Runde {event['round']}: {who} ist am Zug.", f"Round {event['round']}: {who} to play.")
    if kind == "goods":
        got = amounts(event["added"], GOOD_IDS, lang)
        bonus = event.get("bonus", 0)
        lost = event["count"] + bonus - sum(event["added"])
        notes = [_t(lang, f"{lost} verfallen, Reihe voll", f"{lost} lost, row full")] if lost > 0 else []
        if bonus:
            notes.append(_t(lang, f"+{bonus} Stein durch Steinbruch", f"+{bonus} stone from Quarrying"))
        extra = f" ({'; '.join(notes)})" if notes else ""
        return _t(
            lang,
            f"{who} erhält {count(event['count'], 'good', lang)}: {got}{extra}.",
            f"{who} collects {count(event['count'], 'good', lang)}: {got}{extra}.",
        )
    if kind == "food":
        lost = event["count"] - event["gained"]
        extra = _t(lang, f" ({lost} verfallen, Leiste voll)", f" ({lost} lost, track full)") if lost else ""
        return _t(lang, f"{who} erhält {event['count']} Nahrung{extra}.", f"{who} collects {event['count']} food{extra}.")
    if kind == "feed":
        if event["famine"]:
            return _t(
                lang,
                f"{who} versorgt {event['fed']} von {event['cities']} Städten: Hungersnot,"
                f" {count(event['famine'], 'disaster_point', lang)}.",
                f"{who} feeds {event['fed']} of {event['cities']} cities: famine,"
                f" {count(event['famine'], 'disaster_point', lang)}.",
            )
        return _t(lang, f"{who} versorgt {count(event['cities'], 'city', lang)}.",
                  f"{who} feeds {count(event['cities'], 'city', lang)}.")
    if kind == "disaster":
        return _disaster_text(event, lang)
    if kind == "city":
        return _t(
            lang,
            f"{who} vollendet die {event['cities']}. Stadt (ab dem nächsten Zug {count(event['cities'], 'die', lang)}).",
            f"{who} completes city {event['cities']} ({count(event['cities'], 'die', lang)} from the next turn).",
        )
    if kind == "monument":
        name = monument_name(event["monument"], lang)
        order = _t(lang, "als Erster", "first") if event["first"] else _t(lang, "später", "later")
        return _t(
            lang,
            f"{who} vollendet {name} {order}: {count(event['points'], 'point', lang)}.",
            f"{who} completes the {name} {order}: {count(event['points'], 'point', lang)}.",
        )
    if kind == "end":
        return _t(lang, "Das Spiel ist zu Ende.", "The game is over.")
    return ""


def _disaster_text(event: dict[str, Any], lang: str) -> str:
    disaster = DISASTER_BY_ID[event["disaster"]]
    name = pick(disaster.name, lang)
    hit = ", ".join(player(s, lang) for s in event["hit"])
    spared = ", ".join(player(s, lang) for s in event["spared"])
    if disaster.id == "revolt":
        effect = _t(lang, f"{hit} verliert alle Waren", f"{hit} loses all goods") if hit else ""
    elif len(event["hit"]) == 1:
        effect = f"{hit}: {count(disaster.points, 'disaster_point', lang)}"
    else:
        effect = (
            _t(lang, f"{hit}: je {count(disaster.points, 'disaster_point', 'de')}",
               f"{hit}: {count(disaster.points, 'disaster_point', 'en')} each")
            if hit
            else ""
        )
    protected = _t(lang, f"geschützt: {spared}", f"protected: {spared}") if spared else ""
    detail = "; ".join(p for p in (effect, protected) if p) or _t(lang, "keine Wirkung", "no effect")
    return _t(
        lang,
        f"{count(event['skulls'], 'skull', 'de')} – {name.capitalize()}: {detail}.",
        f"{count(event['skulls'], 'skull', 'en')} – {name}: {detail}.",
    )


# ----- refusals ----------------------------------------------------------------------------
_PHASE_HINT = {
    "start": ("Der Startspieler wird ausgelost", "the start player is being drawn"),
    "roll": ("Ein Würfelergebnis steht aus", "a dice roll is due"),
    "reroll": ("Würfel neu werfen (roll:...) oder behalten (done)", "re-roll dice (roll:...) or keep them (done)"),
    "leader": ("Führungskraft nutzen (lead:...) oder nicht (done)", "use Leadership (lead:...) or not (done)"),
    "choose": ("Nahrung oder Arbeiter wählen (food:N)", "choose food or workers (food:N)"),
    "trade": ("Handeln (offer:N) oder fertig (done)", "trade (offer:N) or finish (done)"),
    "draft": ("Angebot zusammenstellen (give:/ask:/propose/cancel)", "draft the offer (give:/ask:/propose/cancel)"),
    "answer": ("Angebot annehmen oder ablehnen (accept/decline)", "accept or decline the offer"),
    "build": ("Arbeiter einsetzen (work:ZIEL:N) oder fertig (done)", "place workers (work:TARGET:N) or finish (done)"),
    "buy": ("Errungenschaft kaufen (buy:...) oder nicht (done)", "buy a development (buy:...) or not (done)"),
    "discard": ("Waren abgeben (discard:WARE)", "discard goods (discard:GOOD)"),
    "over": ("Das Spiel ist zu Ende", "the game is over"),
}


#: The phase in which each kind of action is played, for "it is not the ... phase" refusals.
_VERB_PHASE = {
    "roll": ("reroll", "re-rolling"),
    "lead": ("leader", "Leadership"),
    "food": ("choose", "food-or-workers"),
    "offer": ("trade", "trading"),
    "give": ("draft", "offer-drafting"),
    "ask": ("draft", "offer-drafting"),
    "propose": ("draft", "offer-drafting"),
    "cancel": ("draft", "offer-drafting"),
    "accept": ("answer", "answering"),
    "decline": ("answer", "answering"),
    "work": ("build", "building"),
    "engineer": ("build", "building"),
    "buy": ("buy", "buying"),
    "discard": ("discard", "discarding"),
}


def explain_illegal(state: RollState, action: str) -> str:
    """A player-friendly reason why ``action`` is refused now (English, like the engine's messages).

    The reason names what is really wrong: a phase that is not the action's,
    a monument that is not in play with this many players, then the details.
    """
    shown = action if len(action) <= 40 else action[:40] + "…"
    hint = _PHASE_HINT.get(state.phase, ("", ""))[1]
    head = action.partition(":")[0]
    reason = ""
    wanted = _VERB_PHASE.get(head)
    if wanted is not None and wanted[0] != state.phase:
        reason = f"it is not the {wanted[1]} phase; "
    elif head == "buy":
        dev = action.split(":")[1] if action.count(":") else ""
        if dev in DEVELOPMENT_BY_ID and dev in state.board(state.active).developments:
            reason = "you already own that development; "
        elif dev in DEVELOPMENT_BY_ID:
            reason = "that payment is not enough or spends a row that is not needed (no change is given); "
    elif head == "work":
        target = action.split(":")[1] if action.count(":") else ""
        if target in MONUMENT_BY_ID and target not in state.monuments:
            name = pick(MONUMENT_BY_ID[target].name, "en")
            reason = f"the {name} is not in play with {state.num_players} players; "
        else:
            workers = _n(state.workers, "worker")
            reason = f"you have {workers} and a structure takes no more than its free boxes; "
    elif head == "dice":
        reason = "a roll gives one face per rolled die, written in the order G F S X C W; "
    elif head == "roll":
        reason = "re-roll only dice you have (skulls stay locked), faces in the order G F S X C W; "
    return f"'{shown}' is not legal now: {reason}{hint}"
