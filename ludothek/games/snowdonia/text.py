"""A terminal rendering of a Snowdonia position, built only from ``state.view(seat)``."""

from __future__ import annotations

from typing import Any

from ludothek.engine import State, seat_name
from ludothek.engine.core import check_lang

from .notation import CUBE_WORDS, WEATHER_WORDS, decision_label

_W = {
    "de": {
        "round": "Runde", "route": "Strecke", "rates": "Arbeitstempo", "dig": "Räumen", "lay": "Gleise",
        "weather": "Wetter", "events": "Ereignisse", "yard": "Lagerplatz", "bag": "Beutel", "steel": "Stahlvorrat",
        "trains": "Loks", "row": "Auftragsreihe", "draw": "Nachziehstapel", "discard": "Ablage", "player": "Spieler",
        "to_move": "am Zug", "over": "Spielende", "start": "Startspieler", "none": "-", "done": "fertig",
        "workers": "Arbeiter", "markers": "Marker", "train": "Lok", "contracts": "Aufträge", "fog": "Nebel",
        "stock_yard": "Lagerplatz", "excavate": "Räumarbeit", "workshop": "Werkstatt", "lay_track": "Gleise legen",
        "build": "Bauen", "site_office": "Baubüro", "surveyor": "Vermesser", "daffodils": "Narzissen",
    },
    "en": {
        "round": "Round", "route": "Route", "rates": "Work rates", "dig": "excavate", "lay": "lay track",
        "weather": "Weather", "events": "Events", "yard": "Stock yard", "bag": "Bag", "steel": "Steel supply",
        "trains": "Trains", "row": "Contract row", "draw": "Draw pile", "discard": "Discard", "player": "Player",
        "to_move": "to move", "over": "Game over", "start": "start player", "none": "-", "done": "done",
        "workers": "workers", "markers": "markers", "train": "train", "contracts": "contracts", "fog": "fog",
        "stock_yard": "Stock yard", "excavate": "Excavate", "workshop": "Works", "lay_track": "Lay track",
        "build": "Build", "site_office": "Site office", "surveyor": "Surveyor", "daffodils": "daffodils",
    },
}


def _cubes(d: dict[str, Any], lang: str) -> str:
    return " ".join(f"{CUBE_WORDS[lang][k]} {v}" for k, v in d.items())


def _canal(t: dict[str, Any]) -> str:
    """Daffodil Line: ``~4:`` marks a canal card that takes 4 rubble (``~4*:`` with a daffodil)."""
    if not t.get("canal"):
        return ""
    return f"~{t['number']}{'*' if t.get('daffodil') else ''}:"


def _cost(b: dict[str, Any]) -> str:
    if b.get("daffodils"):
        return f"{b['daffodils']}D"
    return f"{b['stone']}S{b['steel']}T"


def render(state: State, seat: int | None, lang: str = "en") -> str:
    check_lang(lang)
    w = _W[lang]
    v = state.view(seat)
    lines: list[str] = [f"== Snowdonia - {w['round']} {v['round']} =="]
    lines.append(w["route"] + ":")
    for st in v["route"]:
        tracks = " ".join(
            f"[{_canal(t)}{'=' if t['laid'] else t['rubble']}{'' if t['owner'] is None else 'P' + str(t['owner'] + 1)}]"
            for t in st["tracks"]
        )
        dig = " ".join(f"({d['rubble']}{'' if d['owner'] is None else ' P' + str(d['owner'] + 1)})" for d in st["dig"])
        build = " ".join(
            f"<{_cost(b)}:{b['vp']}{'' if b['owner'] is None else ' P' + str(b['owner'] + 1)}>"
            for b in st["build"]
        )
        flag = " [X]" if st["completed"] else ""
        surveyors = "".join(f" *{p + 1}" for p in st["surveyors"])
        lines.append(f"  {tracks} {st['name']} ({st['surveyor_vp']}){flag} {dig} {build}{surveyors}".rstrip())
    rates = v["work_rates"]
    forecast = ", ".join(WEATHER_WORDS[lang][x] if x else w["none"] for x in v["weather"]["forecast"])
    lines.append(
        f"{w['rates']}: {w['dig']} {rates['excavate']['value']}, {w['lay']} {rates['lay_track']['value']}"
        f"   {w['weather']}: {forecast}"
    )
    lines.append(w["events"] + ": " + " ".join(f"{e['space']}{'#' if e['cube'] else '.'}" for e in v["event_track"]))
    lines.append(
        f"{w['yard']}: {_cubes(v['stock_yard'], lang)}   {w['bag']}: {_cubes(v['bag'], lang)}   {w['steel']}: {v['steel_supply']}"
    )
    coal = CUBE_WORDS[lang]["coal"]
    lines.append(w["trains"] + ": " + ", ".join(f"{t['number']} {t['name']} ({t['cost']}, {coal} {t['coal']})" for t in v["trains"]))
    for a in v["areas"]:
        spaces = " ".join(f"{s['id']}={'' if s['worker'] is None else s['worker'] + 1}" for s in a["spaces"])
        if a["unlimited"]:
            spaces = "G: " + ",".join(str(x + 1) for x in a["workers"])
        lines.append(f"  {a['area']} {w.get(a['action'], a['action'])}{' (' + w['fog'] + ')' if a['fog'] else ''}: {spaces}")
    row = ", ".join("-" if c is None else f"#{c['number']}" for c in v["contract_row"])
    lines.append(f"{w['row']}: {row}   {w['draw']}: {v['draw_pile']['count']}   {w['discard']}: {v['discard_pile']['count']}")
    for p in (v["panels"][s] for s in v["panel_order"]):
        star = f" ({w['start']})" if p["start_player"] else ""
        train = f", {w['train']} {p['train']['number']}" if p["train"] else ""
        cubes = ", ".join(f"{CUBE_WORDS[lang][k]} {p[k]}" for k in ("iron", "stone", "coal", "rubble", "steel"))
        lines.append(  # "label value" pairs, one comma between pairs so no number seems to count the next label
            f"{seat_name(p['seat'], lang)}{star}: {p['points_now']} ({p['points_final']})  "
            f"{w['workers']} {p['workers']}, {w['markers']} {p['markers']}, {cubes}{train}, "
            f"{w['contracts']} {p['contract_count']}"
            + (f", {w['daffodils']} {p['daffodils']}" if p.get("daffodils") is not None else "")
        )
    if v["over"]:
        lines.append(w["over"])
    elif v["to_move"] is not None:
        kind = v["decision"]["kind"] if v["decision"] else ""
        lines.append(f"{seat_name(v['to_move'], lang)} {w['to_move']}: {decision_label(kind, lang)}")
    return "\n".join(lines)
