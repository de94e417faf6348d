"""A terminal rendering of what a seat sees, built only from ``state.view(seat)``."""

from __future__ import annotations

from typing import Any

from ludothek.engine import State, seat_name

from .geometry import COLUMNS, SIZE
from .notation import count, name

SHORT = {"pond": "P", "vineyard": "V", "garden": "G", "chicken_yard": "H", "administrator": "a",
         "merchant": "m", "baker": "b", "craftsman": "c", "villa": "#", "market": "$", "bakery": "B",
         "fountain": "F"}


def _tile_code(view: dict[str, Any], tile_id: str) -> str:
    parts = view["tiles"][tile_id]["parts"]
    return "".join(SHORT[p["kind"]] for p in parts).ljust(2, ".")


def _district(view: dict[str, Any], p: dict[str, Any]) -> list[str]:
    d = p["district"]
    grid = {c["cell"]: f"{_tile_code(view, c['tile'])}{c['rotation'] // 90}" for c in d["cells"]}
    lines = ["    " + " ".join(f" {c} " for c in COLUMNS[:SIZE])]
    for r in range(1, SIZE + 1):
        row = []
        for col in COLUMNS[:SIZE]:
            cell = f"{col}{r}"
            if cell in grid:
                row.append(grid[cell])
            elif cell == d["shovel"]:
                row.append(" S ")
            elif cell in d["banners_open"]:
                row.append(" ~ ")
            else:
                row.append(" . ")
        lines.append(f" {r}  " + " ".join(row))
    return lines


def render(state: State, seat: int | None, lang: str = "en") -> str:
    view = state.view(seat)
    de = lang == "de"
    out = [f"Carpe Diem — {'Durchgang' if de else 'pass'} {view['pass']}, "
           f"{'Runde' if de else 'round'} {view['round']}, stage {view['stage']}"]
    if view["provisional"]:
        out.append("(vorläufiger Materialsatz)" if de else "(provisional component set)")
    for space in view["rondel"]:
        pats = ",".join(str(s + 1) for s in space["patricians"])
        out.append(f"  {space['space']}: {' '.join(space['tiles']) or '-'}  [{pats}]")
    out.append(("Siegel: " if de else "Seals: ") + " ".join(t or "--" for t in view["seal"]))
    for slot in view["cards"]:
        if slot["card"]:
            out.append(f"  [{slot['slot']:>2}] {slot['card']['id']} {slot['card']['text'][lang]}")
    discs = [f"{c['name']}:{c['disc'] + 1}" for c in view["circles"] if c["disc"] is not None]
    if discs:
        out.append(("Scheiben: " if de else "Discs: ") + " ".join(discs))
    for p in view["players"]:
        me = " *" if p["seat"] == seat else ""
        wares = ", ".join(count(n, w, lang) for w, n in p["wares"].items() if n)
        out.append(f"{seat_name(p['seat'], lang)}{me}: {p['total']} "
                   f"({p['vp']} + {'Banderole' if de else 'banner'} {p['banner_vp']} + "
                   f"{'Rahmen' if de else 'frame'} {p['frame_vp']} + {'Villen' if de else 'villas'} {p['villa_vp']}); "
                   f"{wares or '-'}; {count(p['coins'], 'coins', lang)}, {count(p['bread'], 'bread', lang)}; "
                   f"{'gelagert' if de else 'stored'} {p['stored_count']}")
        if "fountains" in p:
            out.append("  " + ("Brunnenkarten: " if de else "Fountain cards: ")
                       + (", ".join(name(k, lang) for k in p["fountains"]) or "-"))
        out.extend("  " + line for line in _district(view, p))
    if view.get("looking_at"):
        out.append(("Du siehst: " if de else "You look at: ") + ", ".join(view["looking_at"]))
    return "\n".join(out)
