"""Terminal rendering for ``ludothek play``: the table as ``seat`` sees it, built from the view."""

from __future__ import annotations

from typing import Any

from ludothek.engine import State, pick

from .components import DEVELOPMENT_BY_ID, FACE_BY_ID, MONUMENT_BY_ID
from .notation import TRADE_ITEMS, amounts, count, event_text, player

_PHASES = {
    "start": ("Startspieler wird ausgelost", "drawing the start player"),
    "roll": ("Würfeln", "rolling"),
    "reroll": ("Würfeln: neu werfen oder behalten", "rolling: re-roll or keep"),
    "leader": ("Führungskraft", "Leadership"),
    "choose": ("Nahrung oder Arbeiter", "food or workers"),
    "trade": ("Handel", "trade"),
    "draft": ("Handel: Angebot", "trade: drafting an offer"),
    "answer": ("Handel: Antwort", "trade: answer"),
    "build": ("Städte und Monumente bauen", "building cities and monuments"),
    "buy": ("Errungenschaft kaufen", "buying a development"),
    "discard": ("Waren abgeben", "discarding goods"),
    "over": ("Spielende", "game over"),
}


def _t(lang: str, de: str, en: str) -> str:
    return de if lang == "de" else en


def render(state: State, seat: int | None, lang: str = "en") -> str:
    """A plain-text picture of the table for ``seat`` (``None``: a spectator)."""
    view = state.view(seat)
    lines: list[str] = []
    rounds = f"/{view['max_rounds']}" if view["max_rounds"] else ""
    phase = _PHASES.get(view["phase"], (view["phase"], view["phase"]))
    head = _t(lang, f"Runde {view['round']}{rounds}", f"Round {view['round']}{rounds}")
    if view["active"] is not None:
        head += " · " + _t(lang, "am Zug: ", "active: ") + player(view["active"], lang)
    lines.append(f"{head} · {phase[0] if lang == 'de' else phase[1]}")
    lines.extend(_dice_lines(view, lang))
    happened = [event_text(e, lang) for e in view["turn"]["events"] if e["type"] != "turn"]
    if happened:
        lines.append(_t(lang, "In diesem Zug: ", "This turn: ") + " ".join(t for t in happened if t))
    for board in view["boards"]:
        lines.append("")
        lines.extend(_board_lines(view, board, seat, lang))
    lines.append("")
    lines.append(_t(lang, "Monumente:", "Monuments:"))
    for m in view["monuments"]:
        first = m["first_completer"]
        owner = (_t(lang, "zuerst: ", "first: ") + player(first, lang)) if first is not None else _t(lang, "offen", "open")
        lines.append(
            f"  {pick(m['name'], lang):<16} {count(m['workers'], 'worker', lang):>10}"
            + f"  {m['first_points']}/{count(m['later_points'], 'point', lang)}"
            + f"  ({owner})"
        )
    lines.extend(_trade_lines(view, lang))
    if view["end_reasons"] and not view["game_over"]:
        lines.append(_t(lang, "Letzte Runde!", "Last round!"))
    if view["game_over"]:
        lines.append("")
        lines.append(_t(lang, "Endstand:", "Final result:"))
        order = sorted(range(len(view["scores"])), key=lambda s: (view["ranks"][s], s))
        for s in order:
            worth = view["boards"][s]["goods_value"]
            lines.append(
                f"  {view['ranks'][s]}. {player(s, lang)}: {view['scores'][s]} "
                + _t(lang, f"(Warenwert {worth})", f"(goods worth {worth})")
            )
    elif view["legal_actions"]:
        lines.append(_t(lang, "Du bist am Zug.", "Your move."))
    return "\n".join(lines)


def _dice_lines(view: dict[str, Any], lang: str) -> list[str]:
    turn = view["turn"]
    if not turn["dice"] and not turn["rolling"]:
        return []
    dice = " ".join(f"[{d['face']}{'*' if d['locked'] else ''}]" for d in turn["dice"])
    text = _t(lang, "Würfel: ", "Dice: ") + (dice or "-")
    if turn["rolling"]:
        rolling = count(turn["rolling"], "die", lang)
        text += _t(lang, f" (es werden {rolling} geworfen)", f" ({rolling} being rolled)")
    elif view["phase"] in ("reroll",):
        text += _t(lang, f" · noch {count(turn['rolls_left'], 'roll', lang)}",
                       f" · {count(turn['rolls_left'], 'roll', lang)} left")
    legend = ", ".join(
        f"{f}={pick(FACE_BY_ID[f].name, lang)}" for f in sorted({d["face"] for d in turn["dice"]})
    )
    out = [text + ("  (* " + _t(lang, "gesperrt", "locked") + ")" if any(d["locked"] for d in turn["dice"]) else "")]
    if legend:
        out.append("  " + legend)
    if turn["workers"] or turn["coins"]:
        out.append(
            _t(lang, f"Arbeiter: {turn['workers']} · Münzen: {turn['coins']}", f"Workers: {turn['workers']} · coins: {turn['coins']}")
        )
    return out


def _board_lines(view: dict[str, Any], board: dict[str, Any], seat: int | None, lang: str) -> list[str]:
    s = board["seat"]
    marks = []
    if s == view["start_player"]:
        marks.append("S")
    if s == seat:
        marks.append(_t(lang, "du", "you"))
    name = player(s, lang) + (f" ({', '.join(marks)})" if marks else "")
    lines = [f"{name}: {count(board['score'], 'point', lang)}, {count(board['disasters'], 'disaster_point', lang)}"]
    cities = "■" * board["cities_fed"] + "□" * board["cities_unfed"]
    nxt = board["next_city"]
    build = f" · {nxt['number']}. " + _t(lang, "Stadt", "city") + f" {nxt['marked']}/{nxt['workers']}" if nxt else ""
    lines.append(
        "  " + _t(lang, "Städte", "Cities") + f": {board['cities']} {cities} (■ " + _t(lang, "versorgt", "fed") + f"){build}"
    )
    lines.append("  " + _t(lang, "Nahrung", "Food") + f": {board['food']}/{board['food_max']}")
    limit = board["goods_limit"]
    lines.append(
        "  "
        + _t(lang, "Waren", "Goods")
        + f": {board['goods_total']}"
        + (f"/{limit}" if limit is not None else "")
        + _t(lang, f", Wert {board['goods_value']}", f", worth {board['goods_value']}")
    )
    for g in board["goods"]:
        track = "●" * g["count"] + "·" * (g["capacity"] - g["count"])
        lines.append(f"    {pick(g['name'], lang):<11} {track:<8} {g['value']:>2}")
    built = [
        f"{pick(MONUMENT_BY_ID[m].name, lang)} {info['marked']}/{info['workers']}"
        + (f" ✓{info['points']}" if info["points"] is not None else "")
        for m, info in board["monuments"].items()
        if info["marked"]
    ]
    if built:
        lines.append("  " + _t(lang, "Monumente: ", "Monuments: ") + ", ".join(built))
    if board["developments"]:
        devs = ", ".join(pick(DEVELOPMENT_BY_ID[d].name, lang) for d in board["developments"])
        lines.append("  " + _t(lang, "Errungenschaften: ", "Developments: ") + devs)
    return lines


def _trade_lines(view: dict[str, Any], lang: str) -> list[str]:
    trade = view["trade"]
    if not trade:
        return []
    lines = []

    def counts(items: dict[str, int]) -> list[int]:
        return [items.get(i, 0) for i in TRADE_ITEMS]

    offer = trade["offer"]
    if offer:
        text = (
            f"{amounts(counts(offer['give']), TRADE_ITEMS, lang)} "
            + _t(lang, "gegen", "for")
            + f" {amounts(counts(offer['ask']), TRADE_ITEMS, lang)}"
        )
        status = _t(lang, "angeboten", "offered") if offer["status"] == "proposed" else _t(lang, "Entwurf", "draft")
        lines.append(
            _t(lang, "Angebot", "Offer") + f" ({status}) {player(offer['from'], lang)} → {player(offer['to'], lang)}: {text}"
        )
    for t in trade["this_turn"]:
        outcome = _t(lang, "angenommen", "accepted") if t["accepted"] else _t(lang, "abgelehnt", "declined")
        lines.append(
            f"  {player(t['from'], lang)} → {player(t['to'], lang)}: "
            f"{amounts(counts(t['give']), TRADE_ITEMS, lang)} "
            + _t(lang, "gegen", "for")
            + f" {amounts(counts(t['ask']), TRADE_ITEMS, lang)} ({outcome})"
        )
    return lines
