"""Snowdonia's pickers (stock yard, workshop, build, conversions, the choices under contracts and trains) offer exactly the legal actions of their decision."""

from __future__ import annotations

import random

from ludothek import engine as eng
from ludothek.games.snowdonia.pickers import pickers
from tests.picker_checks import check_picker

FAMILIES = {"take": ("take:",), "take_two": ("take:",), "work": ("work:",), "build": ("build:", "train:"),
            "convert_stone": ("convert:",), "convert_steel": ("convert:",), "swap": ("swap:",), "move": ("move:",),
            "maint": ("maint:",)}


def test_every_legal_action_is_reachable_and_nothing_else() -> None:
    game = eng.load("snowdonia")
    checked: dict[str, int] = {}
    for seed in range(12):
        rng = random.Random(seed)
        st = game.new_state(2 + seed % 4)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(eng.sample_chance(st, rng))
                continue
            legal = st.legal_actions()
            kind = st.decision["kind"]
            for lang in ("de", "en") if seed < 2 else ("en",):
                found = pickers(st, legal, lang, lambda a, st=st, lang=lang: st.describe(a, lang))
                family = [a for a in legal if a.startswith(FAMILIES.get(kind, ("\0",)))]
                if kind in ("window", "keep", "contract") and len(legal) >= 2:
                    assert found == [{"id": "contracts", "kind": "cards", "actions": legal}]
                elif len(family) >= 2:
                    assert len(found) == 1, (kind, legal)
                    assert check_picker(found[0], legal) == set(family)
                    checked[kind] = checked.get(kind, 0) + 1
                else:
                    assert found == []
            st.apply_action(rng.choice(legal))
    assert {"take", "work", "build", "move", "convert_steel"} <= set(checked), checked


def test_stock_yard_picker_allows_one_coal() -> None:
    game = eng.load("snowdonia")
    rng = random.Random(3)
    st = game.new_state(3)
    while True:
        if st.is_chance_node():
            st.apply_action(eng.sample_chance(st, rng))
            continue
        if st.decision["kind"] == "take" and st.yard["coal"] >= 2 and len(st.legal_actions()) > 5:
            break
        st.apply_action(rng.choice(st.legal_actions()))
    (picker,) = pickers(st, st.legal_actions(), "en", lambda a, st=st: st.describe(a, "en"))
    assert max(o["counts"].get("coal", 0) for o in picker["options"]) == 1
    assert max(sum(o["counts"].values()) for o in picker["options"]) == 3
