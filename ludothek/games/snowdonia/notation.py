"""Log sentences for Snowdonia's actions, in German and English.

The notation itself (documented in ``docs/games/snowdonia.md``):

- chance: ``track:N`` (setup: next track card shows N), ``canal:N`` /
  ``canal:N+daffodil`` (Daffodil Line: a canal card taking N rubble), ``aside:N`` (train N
  set aside), ``draw:N`` (contract N drawn), ``forecast:sun|rain|fog`` (back
  of the new top contract card), ``bag:iron|stone|coal|event`` (a cube drawn)
- ``pub:hire`` / ``pub:no``; ``place:A1`` ... ``place:G``; ``play:N`` / ``pass``
- ``take:iron+iron+coal`` (or ``take:nothing``), ``work:steel+stone`` (Daffodil
  Line also ``smash``: 1 stone for 2 rubble, and ``smash+stone``: there and back),
  ``build:hebron.2`` with ``+rubble`` / ``+iron`` substitutes, ``train:N``,
  ``contract:N``, ``keep:N``, ``swap:fog``, ``convert:K``, ``move:B1>E2``,
  ``maint:steel|16|21|lose``
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine.core import check_lang, seat_name
from ludothek.engine.plural import Noun

if TYPE_CHECKING:
    from .rules import SnowdoniaState

CUBE_WORDS = {
    "de": {"iron": "Eisen", "stone": "Stein", "coal": "Kohle", "event": "Ereignis", "steel": "Stahl", "rubble": "Geröll"},
    "en": {"iron": "iron", "stone": "stone", "coal": "coal", "event": "event", "steel": "steel", "rubble": "rubble"},
}
DAFFODIL = Noun(de=("Narzisse", "Narzissen"), en=("daffodil", "daffodils"))
TRACK = Noun(de=("Gleis", "Gleise"), en=("track", "track"))


def daffodils_text(n: int, lang: str) -> str:
    """"1 Narzisse", "2 Narzissen", "1 daffodil", "2 daffodils"."""
    return DAFFODIL.count(n, lang)

WEATHER_WORDS = {"de": {"sun": "Sonne", "rain": "Regen", "fog": "Nebel"}, "en": {"sun": "sun", "rain": "rain", "fog": "fog"}}
DECISIONS = {
    "pub": {"de": "Pub-Arbeiter anheuern?", "en": "hire the pub worker?"},
    "place": {"de": "Arbeiter einsetzen", "en": "place a worker"},
    "window": {"de": "Auftragskarte ausspielen oder passen", "en": "play a contract or pass"},
    "take": {"de": "Klötzchen vom Lagerplatz nehmen", "en": "take cubes from the stock yard"},
    "take_two": {"de": "2 Waren vom Lagerplatz nehmen", "en": "take 2 cubes from the stock yard"},
    "work": {"de": "in der Werkstatt umwandeln", "en": "convert in the workshop"},
    "build": {"de": "bauen: Bauplatz oder Lok", "en": "build: a station site or a train"},
    "contract": {"de": "Auftragskarte nehmen", "en": "take a contract"},
    "keep": {"de": "eine Auftragskarte behalten", "en": "keep one contract"},
    "swap": {"de": "mittlere Wetterscheibe tauschen", "en": "swap the middle weather disc"},
    "convert_stone": {"de": "Geröll in Stein tauschen", "en": "convert rubble to stone"},
    "convert_steel": {"de": "Erz in Stahl tauschen", "en": "convert iron to steel"},
    "move": {"de": "Arbeiter versetzen", "en": "move a worker"},
    "maint": {"de": "Lok warten", "en": "maintain your train"},
    "end": {"de": "Startstation des Vermessers wählen", "en": "choose your surveyor's start station"},
    "outside": {"de": "fremden Vermesser aufstellen", "en": "place the outside surveyor"},
}

#: Blaenau Ffestiniog: the ends of the line by their action word.
END_NAMES = {"blaenau": "Blaenau Ffestiniog", "porthmadog": "Porthmadog Harbour"}


def decision_label(kind: str, lang: str) -> str:
    return DECISIONS.get(kind, {}).get(lang, kind)


def decision_prompt(decision: dict[str, Any], lang: str) -> str:
    """What the player to move is asked, as the board's prompt: the decision's label, and for a
    contract window the area it is held before."""
    kind = decision["kind"]
    if kind == "window" and decision.get("area"):
        area = decision["area"]
        return (f"Auftragskarte für Bereich {area} ausspielen oder passen" if lang == "de"
                else f"play a contract for area {area} or pass")
    return DECISIONS[kind][lang]


def cubes_text(combo: str, lang: str, word_steel: bool = False) -> str:
    if combo == "nothing":
        return "nichts" if lang == "de" else "nothing"
    counts: dict[str, int] = {}
    for part in combo.split("+"):
        counts[part] = counts.get(part, 0) + 1
    return ", ".join(f"{n} {CUBE_WORDS[lang][c]}" for c, n in counts.items())


EVENT_WORDS = {
    "de": {"excavate": "Fremdfirmen räumen Geröll", "trains_available": "Loks können jetzt gekauft werden",
           "lay_track": "Fremdfirmen legen Gleise", "complete_station": "Fremdfirmen bauen eine Station fertig",
           "maintenance": "Loks müssen gewartet werden"},
    "en": {"excavate": "other companies excavate", "trains_available": "trains may now be bought",
           "lay_track": "other companies lay track", "complete_station": "other companies complete a station",
           "maintenance": "train maintenance is needed"},
}


def describe(state: SnowdoniaState, action: str, lang: str = "en") -> str:
    """The action's sentence plus what followed automatically (excavation, track, events, a new round)."""
    check_lang(lang)
    text = _sentence(state, action, lang)
    after = state.clone()
    after.apply_action(action)
    extra = consequences(state, after, lang, action)
    return f"{text} {extra}" if extra else text


def consequences(before: SnowdoniaState, after: SnowdoniaState, lang: str, action: str = "") -> str:
    """Sentences for the automatic steps between two positions."""
    de = lang == "de"
    out: list[str] = []
    for seat in range(before.num_players):
        b, a = before.players[seat], after.players[seat]
        filled = a.get("filled", 0) - b.get("filled", 0)
        dug = a["rubble"] - b["rubble"] + filled
        if dug > 0 and after.route.rubble_left() < before.route.rubble_left():
            out.append(f"{seat_name(seat, lang)} räumt {dug} Geröll." if de else f"{seat_name(seat, lang)} excavates {dug} rubble.")
        if filled > 0:
            out.append(f"{seat_name(seat, lang)} füllt {filled} Geröll in den Kanal." if de
                       else f"{seat_name(seat, lang)} fills {filled} rubble into the canal.")
        flowers = a.get("daffodils", 0) - b.get("daffodils", 0)
        if flowers > 0:
            out.append(f"{seat_name(seat, lang)} erhält {daffodils_text(flowers, lang)}." if de
                       else f"{seat_name(seat, lang)} gets {daffodils_text(flowers, lang)}.")
        laid = sum(1 for t0, t1 in zip(before.tracks, after.tracks, strict=True) if t1["owner"] == seat and t0["owner"] != seat)
        if laid:
            out.append(f"{seat_name(seat, lang)} legt {TRACK.count(laid, lang)}." if de
                       else f"{seat_name(seat, lang)} lays {TRACK.count(laid, lang)}.")
        if b["train"] is not None and a["train"] is None and action != "maint:lose":
            n = b["train"]
            out.append(f"{seat_name(seat, lang)} verliert Lok {n}." if de else f"{seat_name(seat, lang)} loses train {n}.")
        moved = a["surveyor"] > b["surveyor"] if a.get("end") is None else b.get("end") is not None
        if a["surveyor"] != b["surveyor"] and moved:  # Blaenau Ffestiniog: not the choice of the start end
            name = after.lay.stations[a["surveyor"]].name
            out.append(f"Vermesser von {seat_name(seat, lang)}: {name}." if de else f"{seat_name(seat, lang)}'s surveyor: {name}.")
    for _, space, kind in after.event_log[len(before.event_log):]:
        out.append(f"Ereignis {space}: {EVENT_WORDS[lang][kind]}." if de else f"Event {space}: {EVENT_WORDS[lang][kind]}.")
    if after.over and not before.over:
        out.append("Spielende." if de else "Game over.")
    elif after.round > before.round and before.round > 0:
        out.append(f"Runde {after.round}." if de else f"Round {after.round}.")
    return " ".join(out)


def _sentence(state: SnowdoniaState, action: str, lang: str) -> str:
    de = lang == "de"
    verb, _, arg = action.partition(":")
    who = ""
    if state.decision is not None:
        who = seat_name(state.decision["seat"], lang)
    scen = state.scen
    if verb == "track":
        return f"Gleiskarte mit {arg} Geröll ausgelegt." if de else f"Track card with {arg} rubble laid out."
    if verb == "canal":
        number, _, mark = arg.partition("+")
        flower = (" und Narzisse" if de else " and a daffodil") if mark else ""
        return (f"Kanal-Gleiskarte für {number} Geröll{flower} ausgelegt." if de
                else f"Canal track card for {number} rubble{flower} laid out.")
    if verb == "aside":
        name = scen.trains[int(arg)].name
        return f"Lok {arg} ({name}) wird beiseitegelegt." if de else f"Train {arg} ({name}) is set aside."
    if verb == "draw":
        return f"Auftrag #{arg} wird gezogen." if de else f"Contract #{arg} is drawn."
    if verb == "forecast":
        w = WEATHER_WORDS[lang][arg]
        return f"Neue Wettervorhersage: {w}." if de else f"New weather forecast: {w}."
    if verb == "bag":
        c = CUBE_WORDS[lang][arg]
        return f"Aus dem Beutel gezogen: {c}." if de else f"Drawn from the bag: {c}."
    if verb == "pub":
        if arg == "hire":
            return f"{who} holt den Arbeiter aus dem Pub." if de else f"{who} hires the pub worker."
        return f"{who} lässt den Pub-Arbeiter sitzen." if de else f"{who} leaves the pub worker."
    if verb == "place":
        return f"{who} setzt einen Arbeiter auf {arg}." if de else f"{who} places a worker on {arg}."
    if verb == "play":
        card = scen.contracts[int(arg)]
        return f"{who} spielt Auftrag #{arg}: {card.text['de']}" if de else f"{who} plays contract #{arg}: {card.text['en']}"
    if action == "pass":
        return f"{who} passt." if de else f"{who} passes."
    if verb == "take":
        t = cubes_text(arg, lang)
        return f"{who} nimmt vom Lagerplatz: {t}." if de else f"{who} takes from the stock yard: {t}."
    if verb == "work":
        if "smash" in arg.split("+"):
            return _smash_sentence(who, arg, lang)
        t = cubes_text(arg, lang)
        return f"{who} stellt in der Werkstatt her: {t}." if de else f"{who} makes in the workshop: {t}."
    if verb == "build":
        head, *extra = arg.split("+")
        key, _, idx = head.partition(".")
        station = next(s for s in state.lay.stations if s.key == key)
        name = station.name
        sub = ""
        price = station.build_sites[int(idx) - 1].daffodils
        if price:
            sub = f" ({daffodils_text(price, lang)})"
        if extra:
            sub = f" ({', '.join(CUBE_WORDS[lang][e] for e in extra)})"
        return (f"{who} baut an {name}, Bauplatz {idx}{sub}." if de else f"{who} builds at {name}, site {idx}{sub}.")
    if verb == "train":
        head, *extra = arg.split("+")
        name = scen.trains[int(head)].name
        sub = f" (+{len(extra) * 3} {CUBE_WORDS[lang]['iron']})" if extra else ""
        return f"{who} kauft Lok {head} ({name}){sub}." if de else f"{who} buys train {head} ({name}){sub}."
    if verb == "contract":
        return f"{who} nimmt Auftrag #{arg}." if de else f"{who} takes contract #{arg}."
    if verb == "keep":
        return f"{who} behält Auftrag #{arg}." if de else f"{who} keeps contract #{arg}."
    if verb == "swap":
        w = WEATHER_WORDS[lang][arg]
        return f"{who} legt {w} in die Mitte der Wettervorhersage." if de else f"{who} puts {w} in the middle of the forecast."
    if verb == "convert":
        kind = state.decision["kind"] if state.decision else ""
        stone = kind == "convert_stone"
        if arg == "0":  # the workshop used for nothing: say so rather than "0 times"
            if stone:
                return f"{who} tauscht kein Geröll gegen Stein." if de else f"{who} converts no rubble to stone."
            return f"{who} tauscht kein Erz gegen Stahl." if de else f"{who} converts no iron to steel."
        if stone:
            return (f"{who} tauscht {arg}× 2 Geröll gegen Stein." if de
                    else f"{who} converts 2 rubble to stone {_times(int(arg))}.")
        return f"{who} tauscht {arg}× 2 Erz gegen Stahl." if de else f"{who} converts 2 iron to steel {_times(int(arg))}."
    if verb == "move":
        src, _, dst = arg.partition(">")
        return f"{who} versetzt den Arbeiter von {src} nach {dst}." if de else f"{who} moves a worker from {src} to {dst}."
    if verb == "end":
        name = END_NAMES.get(arg, arg)
        return (f"{who} lässt den Vermesser in {name} starten." if de
                else f"{who} starts their surveyor at {name}.")
    if verb == "outside":
        name = END_NAMES.get(arg, arg)
        return (f"{who} stellt den fremden Vermesser nach {name}." if de
                else f"{who} puts the outside surveyor at {name}.")
    if verb == "maint":
        if arg == "steel":
            return f"{who} wartet die Lok mit 1 Stahl." if de else f"{who} pays 1 steel for train maintenance."
        if arg == "lose":
            return f"{who} gibt die Lok zurück." if de else f"{who} gives the train back."
        return f"{who} wirft Auftrag #{arg} für die Wartung ab." if de else f"{who} discards contract #{arg} for maintenance."
    return action


def _smash_sentence(who: str, arg: str, lang: str) -> str:
    """Daffodil Line workshop sentences with "smash stone" (``work:steel+smash``, ``work:smash+stone``)."""
    de = lang == "de"
    parts = arg.split("+")
    steel, smash, stone = parts.count("steel"), parts.count("smash"), parts.count("stone")
    if smash and stone:
        return (f"{who} zertrümmert einen Stein und macht ihn wieder aus 2 Geröll: nichts ändert sich." if de
                else f"{who} smashes a stone and makes it again from 2 rubble: nothing changes.")
    made = f"{steel} {CUBE_WORDS[lang]['steel']}, " if steel else ""
    if de:
        return f"{who} stellt in der Werkstatt her: {made}zertrümmert {smash} Stein zu {2 * smash} Geröll."
    return f"{who} makes in the workshop: {made}smashes {smash} stone into {2 * smash} rubble."


def _times(n: int) -> str:
    """"once", "twice", "3 times" (English only; German writes "3×")."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")
