"""The tables of the long rules, made from the games' own data: ``python -m tests.rulebook_tables GAME LANG``.

Every number in a rules table comes from ``ludothek/games/<game>/data`` (or the game's components),
so the rules cannot drift from the game: `tests.portal.test_rulebooks` checks that each table below
appears verbatim in ``rulebook/<lang>.md``.  When the data changes, run this module and paste the
printed table over the old one.  Only the words around the numbers (column names, effect sentences
for effects the data names by id) live here.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

Row = Sequence[object]


def data(game: str, name: str) -> Any:
    return json.loads(resources.files(f"ludothek.games.{game}").joinpath("data", name).read_text(encoding="utf-8"))


def table(header: Row, rows: Sequence[Row]) -> str:
    """A Markdown table (cells must not contain ``|``)."""
    lines = ["| " + " | ".join(str(c) for c in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def num(n: int, lang: str, de: tuple[str, str], en: tuple[str, str]) -> str:
    """``n`` with the right singular or plural noun (both languages use one/other)."""
    one, other = de if lang == "de" else en
    return f"{n} {one if n == 1 else other}"


def span(values: Sequence[int]) -> str:
    """Die results as printed on a card: ``2–3``, ``11–12``, ``6``."""
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def pick(lang: str, de: str, en: str) -> str:
    return de if lang == "de" else en


COINS = (("Münze", "Münzen"), ("coin", "coins"))


# ----------------------------------------------------------------------------- Machi Koro
def machikoro(lang: str) -> list[str]:
    cards = data("machikoro", "cards.json")
    icons = cards["icons"]
    when = {"blue": pick(lang, "blau – bei jedem Wurf", "blue – anyone's roll"),
            "green": pick(lang, "grün – nur eigener Wurf", "green – your own roll"),
            "red": pick(lang, "rot – Würfe der anderen", "red – other players' rolls"),
            "purple": pick(lang, "violett – nur eigener Wurf", "purple – your own roll")}

    def income(c: dict[str, Any]) -> str:
        coins = num(c["amount"], lang, *COINS)
        effect = c["effect"]
        if effect == "bank":
            return pick(lang, f"{coins} von der Bank", f"{coins} from the bank")
        if effect == "take_from_roller":
            return pick(lang, f"{coins} vom Würfelnden", f"{coins} from the roller")
        if effect == "take_from_each":
            return pick(lang, f"{coins} von jedem anderen", f"{coins} from every other player")
        if effect == "take_from_chosen":
            return pick(lang, f"{coins} von einem Spieler deiner Wahl", f"{coins} from one player of your choice")
        if effect == "trade":
            return pick(lang, "tausche ein nicht-violettes Unternehmen mit einem anderen Spieler",
                        "swap one non-purple establishment with another player")
        if effect == "bank_per_icon":
            icon = icons[c["per_icon"]][lang]
            return pick(lang, f"{coins} je eigener Karte mit Symbol {icon}", f"{coins} per card of yours with the {icon} icon")
        raise ValueError(effect)

    establishments = table(
        [pick(lang, "Unternehmen", "Establishment"), pick(lang, "Farbe – aktiv bei", "Colour – active on"),
         pick(lang, "Symbol", "Icon"), pick(lang, "Kosten", "Cost"), pick(lang, "Wurf", "Roll"),
         pick(lang, "Ertrag", "Income"), pick(lang, "Karten", "Cards")],
        [[c[lang], when[c["colour"]], icons[c["icon"]][lang], c["cost"], span(c["rolls"]), income(c), c["supply"]]
         for c in cards["establishments"]])

    def landmark(m: dict[str, Any]) -> str:
        effect = m["effect"]
        if effect == "two_dice":
            return pick(lang, "du würfelst nach Wahl mit 1 oder 2 Würfeln", "roll one or two dice, as you like")
        if effect == "bonus_per_card":
            names = pick(lang, " und ", " and ").join(icons[i][lang] for i in m["bonus_icons"])
            return pick(lang, f"+{num(m['amount'], lang, *COINS)} für jede aktivierte Karte mit Symbol {names}",
                        f"+{num(m['amount'], lang, *COINS)} for each activated card with the {names} icon")
        if effect == "extra_turn_on_doubles":
            return pick(lang, "bei einem Pasch mit 2 Würfeln einen ganzen Zug extra",
                        "doubles with two dice give a whole extra turn")
        if effect == "reroll_once":
            return pick(lang, "einmal pro Zug neu würfeln (gleich viele Würfel)",
                        "once per turn, roll again (same number of dice)")
        raise ValueError(effect)

    landmarks = table([pick(lang, "Großprojekt", "Landmark"), pick(lang, "Kosten", "Cost"),
                       pick(lang, "Wirkung (ab deinem nächsten Zug)", "Effect (from your next turn)")],
                      [[m[lang], m["cost"], landmark(m)] for m in cards["landmarks"]])
    return [establishments, landmarks]


# ----------------------------------------------------------------------------- Roll Through the Ages
def rolltheages(lang: str) -> list[str]:
    board = data("rolltheages", "board.json")
    devs = data("rolltheages", "developments.json")["developments"]
    monuments = data("rolltheages", "monuments.json")["monuments"]
    goods = data("rolltheages", "goods.json")["goods"]
    faces = table([pick(lang, "Würfelseite", "Die face"), pick(lang, "Ware", "Goods"), pick(lang, "Nahrung", "Food"),
                   pick(lang, "Arbeiter", "Workers"), pick(lang, "Münzen", "Coins"), pick(lang, "Schädel", "Skulls")],
                  [[f["name"][lang], f["goods"] or "–",
                    (pick(lang, f"{f['choice']} oder …", f"{f['choice']} or …") if f["choice"] else f["food"] or "–"),
                    (pick(lang, f"… {f['choice']}", f"… {f['choice']}") if f["choice"] else f["workers"] or "–"),
                    f["coins"] or "–", f["skulls"] or "–"] for f in board["faces"]])
    dev_name = {d["id"]: d["name"][lang] for d in devs}
    mon_name = {m["id"]: m["name"][lang] for m in monuments}
    protection = {"drought": dev_name["irrigation"], "pestilence": dev_name["medicine"],
                  "invasion": mon_name["great_wall"], "revolt": dev_name["religion"]}

    def hits(d: dict[str, Any]) -> str:
        points = num(d["points"], lang, ("Minuspunkt", "Minuspunkte"), ("disaster point", "disaster points"))
        if d["id"] == "pestilence":
            return pick(lang, f"{points} für jeden anderen Spieler", f"{points} for every other player")
        if d["id"] == "revolt":
            return pick(lang, "du verlierst alle Waren", "you lose all your goods")
        return pick(lang, f"{points} für dich", f"{points} for you")

    top = max(d["skulls"] for d in board["disasters"])
    disasters = table([pick(lang, "Schädel", "Skulls"), pick(lang, "Katastrophe", "Disaster"),
                       pick(lang, "Wirkung", "Effect"), pick(lang, "Schutz", "Protection")],
                      [[f"{d['skulls']}+" if d["skulls"] == top else d["skulls"], d["name"][lang], hits(d),
                        protection[d["id"]]] for d in board["disasters"]])
    first_city = board["start_cities"] + 1
    cities = table([pick(lang, "Stadt", "City"), pick(lang, "Arbeiter", "Workers")],
                   [[f"{first_city + i}.", cost] for i, cost in enumerate(board["city_costs"])])
    mons = table([pick(lang, "Monument", "Monument"), pick(lang, "Arbeiter", "Workers"),
                  pick(lang, "Punkte als Erster", "Points, first"), pick(lang, "Punkte später", "Points, later"),
                  pick(lang, "Nicht im Spiel bei", "Not used with")],
                 [[m["name"][lang], m["workers"], m["first"], m["later"],
                   ", ".join(num(n, lang, ("Spieler", "Spielern"), ("player", "players")) for n in m["not_with"]) or "–"]
                  for m in monuments])
    most = max(g["capacity"] for g in goods)
    values = table([pick(lang, "Anzahl", "Units")] + [g["name"][lang].capitalize() for g in goods],
                   [[n] + [g["values"][n] if n <= g["capacity"] else "–" for g in goods] for n in range(1, most + 1)])
    developments = table([pick(lang, "Errungenschaft", "Development"), pick(lang, "Kosten", "Cost"),
                          pick(lang, "Punkte", "Points"), pick(lang, "Wirkung", "Effect")],
                         [[d["name"][lang], d["cost"], d["points"], d["effect"][lang]] for d in devs])
    return [faces, disasters, cities, mons, values, developments]


# ----------------------------------------------------------------------------- Snowdonia
SD_ACTIONS = {"stock_yard": ("Lagerplatz", "Stock yard"), "excavate": ("Räumarbeit", "Excavate"),
              "workshop": ("Werkstatt", "Workshop"), "lay_track": ("Gleise legen", "Lay track"),
              "build": ("Bauen", "Build"), "site_office": ("Baubüro", "Site office"),
              "surveyor": ("Vermesser", "Surveyor")}
SD_ABILITY = {
    "excavate_plus_two": ("Räumarbeit: 2 Geröll mehr als das Arbeitstempo", "excavate: 2 rubble more than the work rate"),
    "cheap_steel": ("Werkstatt: 1 Stahl schon für 2 Eisen", "workshop: 1 steel for only 2 iron"),
    "stock_yard_plus_one": ("Lagerplatz: 1 Ware mehr (weiter höchstens 1 Kohle)",
                            "stock yard: 1 cube more (still at most 1 coal)"),
    "nine_points": ("9 Punkte bei Spielende", "9 points at the end"),
    "none": ("keine", "none"),
    "extra_build": ("eine Bau-Aktion extra, wenn in der Runde jemand gebaut hat",
                    "one extra build action if anybody built this round"),
    "lay_track_plus_one": ("Gleise legen: 1 Gleis mehr als das Arbeitstempo", "lay track: 1 track more than the work rate"),
}
SD_EVENTS = {"excavate": ("Räumarbeit", "excavation"), "trains_available": ("Loks verfügbar", "trains for sale"),
             "lay_track": ("Gleise legen", "track laying"), "complete_station": ("Station fertig", "a station is completed"),
             "maintenance": ("Lokwartung", "train maintenance")}
SD_MAPS = {"stations_mount_snowdon.json": "Mount Snowdon", "stations_blaenau_ffestiniog.json": "Blaenau Ffestiniog",
           "stations_daffodil_line.json": "Daffodil Line"}
CUBES = {"stone": ("Stein", "stone"), "steel": ("Stahl", "steel"), "iron": ("Eisen", "iron"), "coal": ("Kohle", "coal"),
         "daffodils": ("Narzissen", "daffodils")}


MARKERS = (("Marker", "Marker"), ("marker", "markers"))


def snowdonia(lang: str) -> list[str]:
    areas = data("snowdonia", "action_spaces.json")["areas"]
    counts = sorted({int(n) for a in areas for n in a["spaces"]})
    actions = table([pick(lang, "Bereich", "Area")] + [num(n, lang, ("Spieler", "Spieler"), ("player", "players"))
                                                     for n in counts],
                    [[f"{a['area']} {pick(lang, *SD_ACTIONS[a['action']])}"]
                     + [a["spaces"][str(n)] if a["spaces"][str(n)] is not None else "∞" for n in counts] for a in areas])
    events = table([pick(lang, "Feld", "Space"), pick(lang, "Ereignis", "Event"),
                    pick(lang, "Danach zurück in den Beutel", "Then back to the bag")],
                   [[e["space"], pick(lang, *SD_EVENTS[e["event"]]),
                     ", ".join(str(s) for s in e.get("return_spaces", [])) or "–"]
                    for e in data("snowdonia", "board.json")["event_track"]["spaces"]])
    trains = table([pick(lang, "Lok", "Train"), pick(lang, "Kosten", "Cost"), pick(lang, "Bringt Kohle", "Coal with it"),
                    pick(lang, "Kohle für den Extra-Arbeiter", "Coal for the extra worker"), pick(lang, "Fähigkeit", "Power")],
                   [[f"{t['number']} {t['name']}", num(t["cost_steel"], lang, ("Stahl", "Stahl"), ("steel", "steel")),
                     t["coal"], t["pub_coal"], pick(lang, *SD_ABILITY[t["ability"]])]
                    for t in data("snowdonia", "trains.json")["trains"]])

    def condition(c: dict[str, Any]) -> str:
        parts = []
        needs = c["needs"]
        if "stations" in needs:
            parts.append(pick(lang, f"{needs['stations']} Marker auf Stationen",
                              f"{num(needs['stations'], lang, *MARKERS)} on stations"))
        if "track" in needs:
            parts.append(pick(lang, f"{needs['track']} Marker auf Gleisen", f"{num(needs['track'], lang, *MARKERS)} on track"))
        if "rubble" in needs:
            parts.append(pick(lang, f"{needs['rubble']} Geröll", f"{needs['rubble']} rubble"))
        if "surveyor" in needs:
            parts.append(pick(lang, f"Vermesser ab Station {needs['surveyor']}", f"surveyor at station {needs['surveyor']}+"))
        if c.get("coal_vp"):
            return pick(lang, f"{c['coal_vp']} Punkte je Kohle", f"{c['coal_vp']} points per coal")
        if c.get("surveyor_tiers"):
            return pick(lang, "Vermesser an Station ", "surveyor at station ") + " / ".join(
                f"{s}: {p}" for s, p in c["surveyor_tiers"])
        return " + ".join(parts)

    contracts = table([pick(lang, "Nr.", "No."), pick(lang, "Spieler", "Players"), pick(lang, "Bereich", "Area"),
                       pick(lang, "Bedingung", "Condition"), pick(lang, "Punkte", "Points"), pick(lang, "Wirkung", "Effect")],
                      [[c["number"], f"{c['players']}+" if c["players"] > 1 else pick(lang, "alle", "all"),
                        c["area"] or pick(lang, "nur Wartung", "maintenance only"), condition(c), c["vp"] or "–",
                        c["text"][lang]] for c in data("snowdonia", "contracts.json")["contracts"]])
    tables = [actions, events, trains, contracts]

    def site(s: dict[str, Any]) -> str:
        if "rubble" in s:
            cost = str(s["rubble"])
        else:
            kind = next(k for k in CUBES if k in s)
            cost = f"{s[kind]} {pick(lang, *CUBES[kind])}"
        return f"{cost} → {s['vp']}" + (" ✿" if s.get("daffodil") else "")

    for name in SD_MAPS:
        stations = data("snowdonia", name)["stations"]
        back = any("surveyor_vp_back" in s for s in stations)
        header = [pick(lang, "Nr.", "No."), "Station", pick(lang, "Gleiskarten davor", "Track cards before"),
                  pick(lang, "Baustellen (Geröll → Punkte)", "Shovel sites (rubble → points)"),
                  pick(lang, "Bauplätze (Kosten → Punkte)", "Build sites (cost → points)"),
                  pick(lang, "Vermesser-Punkte", "Surveyor points"), pick(lang, "Spieler", "Players")]
        rows = []
        for s in stations:
            surveyor = f"{s['surveyor_vp']} / {s['surveyor_vp_back']}" if back else str(s["surveyor_vp"])
            if s.get("surveyor_daffodil"):
                surveyor += " ✿"
            before = str(s["track_cards_before"]) + (pick(lang, " (Kanal)", " (canal)") if s.get("canal_before") else "")
            rows.append([s["number"], s["name"], before,
                         ", ".join(site(x) for x in s["excavation_sites"]) or "–",
                         ", ".join(site(x) for x in s["build_sites"]) or "–", surveyor,
                         span(s["players"]) if len(s["players"]) > 1 else s["players"][0]])
        tables.append(table(header, rows))
    daffodil = data("snowdonia", "daffodil_line.json")
    tables.append(table([pick(lang, "Narzissen im Satz", "Daffodils in a set"), pick(lang, "Punkte", "Points")],
                        [[i, p] for i, p in enumerate(daffodil["daffodil_set_points"], start=1)]))
    tables.append(table([pick(lang, "Kanalkarte", "Canal card"), pick(lang, "Geröll zum Auffüllen", "Rubble to fill it")],
                        [[i, c["number"]] for i, c in enumerate(daffodil["canal_cards"]["cards"], start=1)]))
    return tables


# ----------------------------------------------------------------------------- Carpe Diem
CD_NAMES = {
    "grapes": (("Traube", "Trauben"), ("grape", "grapes")), "herbs": (("Kraut", "Kräuter"), ("herb", "herbs")),
    "chicken": (("Huhn", "Hühner"), ("chicken", "chickens")), "fish": (("Fisch", "Fische"), ("fish", "fish")),
    "coins": (("Münze", "Münzen"), ("coin", "coins")), "bread": (("Brot", "Brote"), ("bread", "bread")),
    "vp": (("Punkt", "Punkte"), ("point", "points")),
    "steps": (("Banderolenschritt", "Banderolenschritte"), ("banner step", "banner steps")),
    "pond": (("Teich", "Teiche"), ("pond", "ponds")), "vineyard": (("Weinberg", "Weinberge"), ("vineyard", "vineyards")),
    "garden": (("Garten", "Gärten"), ("garden", "gardens")),
    "chicken_yard": (("Hühnerhof", "Hühnerhöfe"), ("chicken yard", "chicken yards")),
    "administrator": (("Verwalter-Unterkunft", "Verwalter-Unterkünfte"), ("administrator dwelling", "administrator dwellings")),
    "merchant": (("Händler-Unterkunft", "Händler-Unterkünfte"), ("merchant dwelling", "merchant dwellings")),
    "baker": (("Bäcker-Unterkunft", "Bäcker-Unterkünfte"), ("baker dwelling", "baker dwellings")),
    "craftsman": (("Handwerker-Unterkunft", "Handwerker-Unterkünfte"), ("craftsman dwelling", "craftsman dwellings")),
    "villa": (("Villa", "Villen"), ("villa", "villas")), "market": (("Markt", "Märkte"), ("market", "markets")),
    "bakery": (("Backstube", "Backstuben"), ("bakery", "bakeries")), "fountain": (("Brunnen", "Brunnen"), ("fountain", "fountains")),
    "landscapes": (("Landschaft", "Landschaften"), ("landscape", "landscapes")),
    "dwellings": (("Unterkunft", "Unterkünfte"), ("dwelling", "dwellings")),
    "chimneys": (("Schornstein", "Schornsteine"), ("chimney", "chimneys")),
}
CD_REWARD = {
    "pond": ("Fische", "fish"), "vineyard": ("Trauben", "grapes"), "garden": ("Kräuter", "herbs"),
    "chicken_yard": ("Hühner", "chickens"),
}


def cd(n: int, item: str, lang: str) -> str:
    de, en = CD_NAMES[item]
    return num(n, lang, de, en)


def cd_name(item: str, lang: str, plural: bool = False) -> str:
    de, en = CD_NAMES[item]
    return (de if lang == "de" else en)[1 if plural else 0]


def carpediem(lang: str) -> list[str]:
    rules = data("carpediem", "rules.json")
    setups = table([pick(lang, "Spieler", "Players"), pick(lang, "Wertungskarten A/B/C/D", "Scoring cards A/B/C/D"),
                    pick(lang, "Leere Felder im Raster", "Empty grid places"), pick(lang, "Startpunkte", "Starting points"),
                    pick(lang, "Ein Rondellfeld wird geleert nach", "A rondel space is cleared after")],
                   [[n, "/".join(str(s["cards_per_letter"][k]) for k in "ABCD"),
                     ", ".join(str(x) for x in s["empty_slots"]) or "–", ", ".join(str(x) for x in s["starting_vp"]),
                     num(s["taken_before_clear"], lang, ("Plättchen", "Plättchen"), ("tile", "tiles"))]
                    for n, s in sorted(rules["setups"].items())])
    villa = data("carpediem", "villa_table.json")
    table_rows: list[Row] = [[c, vp] for c, vp in sorted((int(k), v) for k, v in villa["chimneys_to_vp"].items()) if c > 0]
    top = max(int(k) for k in villa["chimneys_to_vp"])
    table_rows.append([pick(lang, f"je weiterer über {top}", f"each one above {top}"), f"+{villa['beyond_per_chimney']}"])
    villas = table([pick(lang, "Schornsteine", "Chimneys"), pick(lang, "Punkte", "Points")], table_rows)

    def items(d: dict[str, int]) -> str:
        return " + ".join(cd(n, k, lang) for k, n in d.items())

    colour = {"red": pick(lang, "rot: abgeben", "red: pay"), "green": pick(lang, "grün: besitzen", "green: own")}
    cards = table([pick(lang, "Karte", "Card"), pick(lang, "Art", "Kind"), pick(lang, "Bedingung", "Needs"),
                   pick(lang, "Ertrag", "Gives")],
                  [[c["id"], colour[c["colour"]], items(c["need"]), items(c["reward"])]
                   for c in data("carpediem", "scoring_cards.json")["cards"]])
    fountain = table([pick(lang, "Brunnenkarte zählt", "Fountain card counts"), pick(lang, "Punkte je Stück", "Points each"),
                      pick(lang, "Karten", "Cards")],
                     [[cd_name(k["counts"], lang, plural=True), k["vp_each"], k["copies"]]
                      for k in data("carpediem", "fountain_cards.json")["kinds"]])
    tiles = data("carpediem", "tiles.json")["tiles"]
    light = Counter(p["kind"] for t in tiles if t["back"] == "light" for p in t["parts"])
    dark = Counter(p["kind"] for t in tiles if t["back"] == "dark" for p in t["parts"])
    rewards: dict[str, str] = {
        "administrator": pick(lang, "2 Banderolenschritte", "2 banner steps"),
        "merchant": pick(lang, "alle Waren zurück, dafür so viele Münzen + 1",
                                 "hand in all wares, take that many coins + 1"),
        "baker": pick(lang, "2 Brote", "2 bread"),
        "craftsman": pick(lang, "ein Plättchen von einem Siegelfeld sofort bauen",
                                  "build a tile from a seal space at once"),
        "villa": pick(lang, "Punkte nach Schornsteinen (Villentabelle)", "points by chimneys (villa table)"),
        "market": pick(lang, "1 Münze", "1 coin"),
        "bakery": pick(lang, "1 Brot", "1 bread"),
        "fountain": pick(lang, "2 Brunnenkarten ansehen, 1 behalten", "look at 2 fountain cards, keep 1"),
    }
    for kind, (de, en) in CD_REWARD.items():
        # "(tiles − 1) grapes" read as "1 grapes" (issue 29's count check): name the good first.
        rewards[kind] = pick(lang, f"{de}: Plättchen − 1", f"{en}: tiles − 1")
    order = ["pond", "vineyard", "garden", "chicken_yard", "administrator", "merchant", "baker", "craftsman",
             "villa", "market", "bakery", "fountain"]
    buildings = table([pick(lang, "Bereich", "Feature"), pick(lang, "Teile auf hellen / dunklen Plättchen",
                                                              "Parts on light / dark tiles"),
                       pick(lang, "Ertrag, sobald fertig", "Reward when completed")],
                      [[cd_name(k, lang), f"{light[k]} / {dark[k]}", rewards[k]] for k in order])
    frames = table([pick(lang, "Rahmenteil", "Frame part"), pick(lang, "Ziele (Linie: Bereich → Punkte)",
                                                                  "Goals (line: feature → points)")],
                   [[f["id"], ", ".join(f"{g['position']}: {cd_name(g['kind'], lang)} → {g['vp']}" for g in f["goals"])]
                    for f in data("carpediem", "frames.json")["parts"]])
    per_pass = rules["rondel_spaces"] * rules["tiles_per_space"]
    backs = Counter(t["back"] for t in tiles)
    light_passes = backs["light"] // per_pass
    light_name, dark_name = pick(lang, "hell", "light"), pick(lang, "dunkel", "dark")
    rondel = table([pick(lang, "Durchgang", "Pass"), pick(lang, "Runden", "Rounds"),
                    pick(lang, "Plättchen am Rondell", "Tiles at the rondel")],
                   [[n, rules["rondel_spaces"], f"{rules['rondel_spaces']} × {rules['tiles_per_space']} "
                     + (light_name if n <= light_passes else dark_name)] for n in range(1, rules["passes"] + 1)])
    assert backs["dark"] == rules["seal_spaces"] + per_pass * (rules["passes"] - light_passes)
    return [setups, rondel, buildings, villas, cards, fountain, frames]


TABLES: dict[str, Callable[[str], list[str]]] = {
    "machikoro": machikoro, "rolltheages": rolltheages, "snowdonia": snowdonia, "carpediem": carpediem}


if __name__ == "__main__":
    for game in sys.argv[1:2] or list(TABLES):
        for lang in sys.argv[2:3] or ["en", "de"]:
            print(f"<!-- {game} {lang} -->")
            print("\n\n".join(TABLES[game](lang)), end="\n\n")
