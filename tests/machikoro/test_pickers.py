"""Machi Koro's card pickers: every legal trade can be picked on the cards shown, TV buttons say the coins."""

from __future__ import annotations

import random

from ludothek import engine as eng
from ludothek.games.machikoro.pickers import TV_AMOUNT, pickers


def biased(legal: list[str], rng: random.Random) -> str:
    """Buy Business Centers and TV Stations whenever possible, roll one die (6s come often enough)."""
    for a in ("build:business_center", "build:tv_station", "roll:1"):
        if a in legal:
            return a
    return rng.choice(legal)


def test_trades_and_tv_targets_match_the_legal_actions() -> None:
    game = eng.load("machikoro")
    seen = {"trade": 0, "tv": 0}
    for seed in range(8):
        rng = random.Random(seed)
        st = game.new_state(2 + seed % 3)
        for _ in range(600):
            if st.is_terminal():
                break
            if st.is_chance_node():
                st.apply_action(eng.sample_chance(st, rng))
                continue
            legal = st.legal_actions()
            found = {p["id"]: p for p in pickers(st, legal, "en", lambda a, st=st: st.describe(a, "en"))}
            view = st.view(None)
            me = st.current_player()
            trades = [a for a in legal if a.startswith("trade:")]
            if trades:
                picker = found["trade"]
                assert {t["action"] for t in picker["trades"]} == set(trades)
                for t in picker["trades"]:
                    # both cards are on the board: mine in my city, theirs in their city
                    assert view["cities"][me]["establishments"].get(t["give"], 0) > 0
                    assert view["cities"][int(t["owner"]) - 1]["establishments"].get(t["take"], 0) > 0
                    assert t["action"] == f"trade:{t['give']}:{t['owner']}:{t['take']}"
                seen["trade"] += 1
            else:
                assert "trade" not in found
            tv = [a for a in legal if a.startswith("tv:")]
            if tv:
                targets = found["tv"]["targets"]
                assert {t["action"] for t in targets.values()} == set(tv)
                for seat, t in targets.items():
                    assert t["coins"] == min(TV_AMOUNT, view["cities"][seat]["coins"]) > 0
                seen["tv"] += 1
            else:
                assert "tv" not in found
            st.apply_action(biased(legal, rng))
    assert seen["trade"] and seen["tv"], seen
