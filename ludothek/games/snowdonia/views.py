"""The JSON view of a Snowdonia position: the board, the stacks and Yucata's player panel.

Nothing in Snowdonia is secret except the order of the contract deck, which
the state never stores, so every seat gets the same view (plus ``me``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine import score_part

from .components import AREAS
from .notation import daffodils_text
from .scoring import contract_value_alone

if TYPE_CHECKING:
    from .rules import SnowdoniaState


def _contract_json(st: SnowdoniaState, n: int) -> dict[str, Any]:
    c = st.scen.contracts[n]
    return {
        "number": n,
        "area": c.area,
        "back": c.back,
        "vp": c.vp,
        "coal_vp": c.coal_vp,
        "needs": {"stations": c.stations, "track": c.track, "rubble": c.rubble, "surveyor": c.surveyor},
        "surveyor_tiers": [list(t) for t in c.surveyor_tiers],
        "effect": c.effect,
        "text": dict(c.text),
    }


def _route(st: SnowdoniaState) -> list[dict[str, Any]]:
    out = []
    for si, station in enumerate(st.lay.stations):
        s = st.sites[si]
        out.append(
            {
                "key": station.key,
                "number": station.number,
                "name": station.name,
                "surveyor_vp": station.surveyor_vp,
                "surveyor_vp_back": station.surveyor_vp_back if st.two_ends else None,
                "build_bonus": dict(station.build_bonus),
                "tracks": [
                    # canal/daffodil: the Daffodil Line's canal cards (rubble = how much is filled in).
                    dict(st.tracks[i], slot=i, canal=bool(st.tracks[i].get("canal")),
                         daffodil=bool(st.tracks[i].get("daffodil")))
                    for i in st.lay.slots_before[si]
                ],
                "dig": [
                    {"rubble": d["rubble"], "start": e.rubble, "vp": e.vp, "owner": d["owner"], "daffodil": e.daffodil}
                    for d, e in zip(s["dig"], station.excavation_sites, strict=True)
                ],
                "build": [
                    {
                        "stone": b.stone, "steel": b.steel, "vp": b.vp, "owner": o,
                        # Daffodil Line: cost in daffodils, a daffodil for the builder, track-only marker.
                        "daffodils": b.daffodils, "daffodil": b.daffodil, "track_only": b.counts_as == "track",
                    }
                    for o, b in zip(s["build"], station.build_sites, strict=True)
                ],
                "surveyor_daffodil": station.surveyor_daffodil,
                "completed": s["completed"],
                # Blaenau Ffestiniog: no cleared track is needed; who may build depends on each surveyor.
                "open": (0 < si < len(st.lay.stations) - 1 and not s["completed"]) if st.two_ends
                else st.route.station_open(si),
                "surveyors": [p for p in range(st.num_players) if st.players[p]["surveyor"] == si],
            }
        )
    return out


def _areas(st: SnowdoniaState) -> list[dict[str, Any]]:
    out = []
    # A worker leaves its space only once its action is done: while its owner still decides
    # there (stock yard, workshop, build, contract), the view keeps it standing on the space.
    d = st.decision
    acting = (d.get("space"), d["seat"]) if d is not None and d.get("space") else (None, None)
    for area in AREAS:
        spaces = [
            {"id": s, "worker": acting[1] if s == acting[0] else st.spaces.get(s), "action": st.space_action(s)}
            for s in st.area_spaces(area)
        ]
        out.append(
            {
                "area": area,
                "action": "build" if area == "B" and st.b_build else st.scen.action_of(area),
                "spaces": spaces,
                "unlimited": area == "G",
                "workers": list(st.g_workers) if area == "G" else [],
                "fog": st.area_blocked(area),
                "last_takes_start_player": area == "A",
            }
        )
    return out


def unusable(st: SnowdoniaState) -> list[dict[str, str]]:
    """Action symbols the board crosses out, each with its reason (Yucata's red crosses)."""
    out = []
    if not st.trains_available:
        out.append({"area": "E", "symbol": "train", "reason": "no_trains_yet"})
    elif not st.shed:
        out.append({"area": "E", "symbol": "train", "reason": "no_trains_left"})
    if st.bag["stone"] == 0:
        out.append({"area": "C", "symbol": "stone", "reason": "no_stone_in_bag"})
    if st.steel == 0:
        out.append({"area": "C", "symbol": "steel", "reason": "no_steel_in_supply"})
    if st.route.rubble_left() == 0 and not st.b_build:
        out.append({"area": "B", "symbol": "excavate", "reason": "no_rubble_left"})
    if st.fog():
        out += [{"area": a, "symbol": "all", "reason": "fog"} for a in st.scen.fog_blocks]
    return out


def _player(st: SnowdoniaState, seat: int) -> dict[str, Any]:
    pl = st.players[seat]
    parts = st.score_parts(seat)
    holdings = st.holdings(seat)
    values = parts["contract_values"]

    def cards(pile: str) -> list[dict[str, Any]]:
        return [
            dict(
                _contract_json(st, n),
                value=values.get(str(n), 0),
                value_alone=contract_value_alone(st.scen.contracts[n], holdings),
            )
            for n in sorted(pl[pile])
        ]

    train = pl["train"]
    return {
        "seat": seat,
        "points_now": parts["stations"] + parts["track"],
        "points_final": parts["total"],
        "score_parts": {k: v for k, v in parts.items() if k != "contract_values"},
        "workers": st.workers_total(seat) - pl["placed"],
        "pub_worker": pl["pub"],
        "markers": pl["markers"],
        "iron": pl["iron"],
        "stone": pl["stone"],
        "coal": pl["coal"],
        "rubble": pl["rubble"],
        "steel": pl["steel"],
        # Daffodil Line only (None elsewhere): daffodils held, and with the surveyor's end bonus.
        "daffodils": pl.get("daffodils"),
        "daffodils_at_end": st.daffodils_at_end(seat) if st.scen.daffodil is not None else None,
        "start_player": st.start_player == seat,
        "train": None if train is None else {"number": train, "name": st.scen.trains[train].name},
        "surveyor": pl["surveyor"],
        # Blaenau Ffestiniog only (None elsewhere): the end the surveyor started from, and whether the
        # first surveyor move has left an ownership marker there.
        "end": pl.get("end"),
        "start_marker": pl.get("start_marker"),
        "contract_count": len(pl["unused"]) + len(pl["active"]) + len(pl["used"]),
        "contracts": {"unused": cards("unused"), "active": cards("active"), "used": cards("used")},
    }


def breakdown(st: SnowdoniaState) -> list[dict[str, Any]]:
    """Each seat's final score in its parts: stations, track, each contract fulfilled, surveyor, train No.4."""
    out = []
    for r in st.result():
        parts = st.score_parts(r.seat)
        lines = [
            score_part("stations", "Bahnhöfe", "stations", parts["stations"]),
            score_part("track", "Gleise", "track", parts["track"]),
        ]
        for number, value in sorted(parts["contract_values"].items(), key=lambda kv: int(kv[0])):
            if value:
                lines.append(score_part(f"contract:{number}", f"Auftrag #{number}", f"contract #{number}", value))
        lines.append(score_part("surveyor", "Vermesser", "surveyor", parts["surveyor"]))
        if parts["train"]:
            lines.append(score_part("train", "Lok Nr. 4", "train No.4", parts["train"]))
        if "daffodils" in parts:
            n = st.daffodils_at_end(r.seat)
            lines.append(score_part("daffodils", "Narzissen", "daffodils", parts["daffodils"],
                                    {"de": daffodils_text(n, "de"), "en": daffodils_text(n, "en")}))
        out.append({"seat": r.seat, "rank": r.rank, "total": r.score, "parts": lines})
    return out


def build(st: SnowdoniaState, seat: int | None) -> dict[str, Any]:
    board = st.scen.board
    d = st.decision
    order = list(st.order)
    panel_order = order if seat is None else order[order.index(seat):] + order[: order.index(seat)]
    return {
        "game": "snowdonia",
        "map": st.map,
        #: The map's station (or canal card) values are our reconstructions: the board says so quietly.
        "provisional": st.scen.provisional,
        #: Blaenau Ffestiniog: the end where the outside surveyor stands (the next event runs from there).
        "outside_end": st.outside_end,
        "ends": {"blaenau": "Blaenau Ffestiniog", "porthmadog": "Porthmadog Harbour"} if st.two_ends else None,
        "me": seat,
        "players": st.num_players,
        "round": st.round,
        "over": st.over,
        "to_move": None if d is None or st.over else d["seat"],
        "decision": None if d is None else {k: v for k, v in d.items()},
        "chance": None if st.chance is None else st.chance[0],
        "start_player": st.start_player,
        "turn_order": order,
        "panel_order": panel_order,
        "end_after_round": st.end_after,
        "solo_train": st.solo_train if st.solo else None,
        "route": _route(st),
        "rubble_left": st.route.rubble_left(),
        "tracks_left": len(st.route.unlaid()),
        "areas": _areas(st),
        "unusable": unusable(st),
        "weather": {"forecast": list(st.forecast), "current": st.weather(), "fog": st.fog()},
        "work_rates": {
            "excavate": {"index": st.rates["excavate"], "value": st.rate("excavate"), "values": list(board.excavate_rates)},
            "lay_track": {"index": st.rates["lay_track"], "value": st.rate("lay_track"), "values": list(board.lay_rates)},
        },
        "event_track": [
            {"space": e.space, "event": e.event, "cube": st.events[i], "returns": list(e.return_spaces)}
            for i, e in enumerate(board.event_track)
        ],
        "event_log": [{"round": r, "space": sp, "event": ev} for r, sp, ev in st.event_log],
        "stock_yard": dict(st.yard),
        "bag": dict(st.bag),
        "steel_supply": st.steel,
        "trains_available": st.trains_available,
        "trains": [
            {
                "number": t["number"],
                "name": st.scen.trains[t["number"]].name,
                "cost": st.scen.trains[t["number"]].cost_steel,
                "coal": t["coal"],
                "ability": st.scen.trains[t["number"]].ability,
            }
            for t in st.shed
        ],
        "b_build": st.b_build,
        "contract_row": [None if n is None else _contract_json(st, n) for n in st.row],
        "offer": list(st.offer),
        # the cards to choose from when keeping one (the drawn card and the offer), for the board
        "offer_cards": (
            [_contract_json(st, n) for n in sorted({d["number"], *st.offer})] if d is not None and d["kind"] == "keep" else []
        ),
        "draw_pile": {"count": len(st.deck), "cards": sorted(st.deck), "top_back": st.top_back},
        "discard_pile": {"count": len(st.discard), "cards": list(st.discard)},
        "contracts_blocked": st.contracts_blocked,
        "panels": [_player(st, s) for s in range(st.num_players)],
        "breakdown": breakdown(st) if st.is_terminal() else None,
    }
