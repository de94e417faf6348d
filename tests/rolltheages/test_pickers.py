"""Roll Through the Ages' pickers (buying, placing workers) offer exactly the legal actions, cheapest first."""

from __future__ import annotations

import random

from ludothek import engine as eng
from ludothek.games.rolltheages.components import GOOD_INDEX, GOODS
from ludothek.games.rolltheages.pickers import pickers
from tests.picker_checks import check_picker


def test_every_legal_action_is_reachable_and_nothing_else() -> None:
    game = eng.load("rolltheages")
    checked: dict[str, int] = {}
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
            for pid in ("buy", "work"):
                family = [a for a in legal if a.startswith(pid + ":")]
                if len(family) >= 2:
                    assert check_picker(found[pid], legal) == set(family)
                    checked[pid] = checked.get(pid, 0) + 1
                else:
                    assert pid not in found
            if "buy" in found:
                check_cheapest(st, found["buy"])
            st.apply_action(rng.choice(legal))
    assert {"buy", "work"} <= set(checked), checked


def check_cheapest(st: object, picker: dict) -> None:
    """Each development's preselected payment spends the least value of all its legal payments."""
    board = st.boards[st.active]  # type: ignore[attr-defined]
    per_food = board.param("granaries", "coins_per_food")

    def spent(counts: dict[str, int]) -> int:
        rows = sum(GOODS[GOOD_INDEX[g]].values[board.goods[GOOD_INDEX[g]]] for g in counts if g != "food")
        return rows + counts.get("food", 0) * per_food

    for base in {o["base"] for o in picker["options"]}:
        mine = [o for o in picker["options"] if o["base"] == base]
        (pre,) = [o for o in mine if o.get("preset")]
        assert spent(pre["counts"]) == min(spent(o["counts"]) for o in mine)
