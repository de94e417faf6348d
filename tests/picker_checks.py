"""Shared checks for board picker data (``ludothek.games.<id>.pickers``), mirroring ``static/pickers.js``.

``reachable`` walks the picker as a person would: choose a base, press "+" on a token only while the
client would enable it (some option still has room), and collect the actions Confirm would send.
"""

from __future__ import annotations

from typing import Any


def fits(opt: dict[str, Any], base: str, counts: dict[str, int]) -> bool:
    return bool(opt["base"] == base and all(n <= opt["counts"].get(k, 0) for k, n in counts.items()))


def exact(opt: dict[str, Any], base: str, counts: dict[str, int]) -> bool:
    return fits(opt, base, counts) and all(counts.get(k, 0) == n for k, n in opt["counts"].items())


def reachable(picker: dict[str, Any]) -> set[str]:
    """Every action a person can confirm in ``picker`` by clicking its enabled controls."""
    found: set[str] = set()
    tokens = [t["key"] for t in picker["tokens"]]
    for base in (b["key"] for b in picker["bases"]):
        seen: set[tuple[tuple[str, int], ...]] = set()
        todo: list[dict[str, int]] = [{}]
        while todo:
            counts = todo.pop()
            key = tuple(sorted(counts.items()))
            if key in seen:
                continue
            seen.add(key)
            matches = [o for o in picker["options"] if exact(o, base, counts)]
            assert len(matches) <= 1, f"two actions for one pick: {matches}"
            found.update(o["action"] for o in matches)
            for t in tokens:
                more = {**counts, t: counts.get(t, 0) + 1}
                if any(fits(o, base, more) for o in picker["options"]):
                    todo.append(more)
    return found


def check_picker(picker: dict[str, Any], legal: list[str]) -> set[str]:
    """Nothing illegal is offered, every option is reachable; returns the actions covered."""
    offered = {o["action"] for o in picker["options"]}
    assert offered <= set(legal), offered - set(legal)
    assert reachable(picker) == offered
    assert all(set(o["counts"]) <= {t["key"] for t in picker["tokens"]} for o in picker["options"])
    assert all(o["text"] for o in picker["options"])
    presets = [o["base"] for o in picker["options"] if o.get("preset")]
    assert len(presets) == len(set(presets)), "one preset per base at most"
    return offered
