"""Carpe Diem's pickers (scoring cards with mode and times, fountain cards) offer exactly the legal actions."""

from __future__ import annotations

import random

from ludothek import engine as eng
from ludothek.games.carpediem.pickers import pickers
from tests.picker_checks import check_picker


def test_every_legal_action_is_reachable_and_nothing_else() -> None:
    game = eng.load("carpediem")
    checked = {"card": 0, "fountain": 0}
    for seed in range(10):
        rng = random.Random(seed)
        st = game.new_state(2 + seed % 3)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(eng.sample_chance(st, rng))
                continue
            legal = st.legal_actions()
            lang = "de" if seed % 2 else "en"
            found = {p["id"]: p for p in pickers(st, legal, lang, lambda a, st=st, lang=lang: st.describe(a, lang))}
            for pid, prefix in (("card", "card:"), ("fountain", "return:")):
                family = [a for a in legal if a.startswith(prefix)]
                if len(family) >= 2:
                    assert check_picker(found[pid], legal) == set(family)
                    checked[pid] += 1
                else:
                    assert pid not in found
            if "card" in found:
                # the plain mode (the most times) is what a card-and-mode choice starts with
                for o in found["card"]["options"]:
                    assert o["preset"] == (o["action"].count(":") == 2)
            st.apply_action(rng.choice(legal))
    assert checked["card"] and checked["fountain"], checked
