"""The Snowdonia board partial, rendered for every kind of decision: what a player clicks is on the board.

Contracts (windows, taking, keeping) are picked on the drawn cards, the choices under trains and
contracts get a picker, build sites on the route are clickable, unusable actions are crossed out, and
every clickable element carries a legal action only.
"""

from __future__ import annotations

import html as htmllib
import random
import re
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

from ludothek import engine as eng
from ludothek.engine.plural import plural
from ludothek.portal.boards import board_helpers, game_data
from ludothek.portal.gameweb import GameWebLoader
from ludothek.portal.pickers import board_pickers
from ludothek.texts import t

TEMPLATES = Path(__file__).resolve().parents[2] / "ludothek" / "portal" / "templates"
ENV = Environment(loader=ChoiceLoader([FileSystemLoader(str(TEMPLATES)), GameWebLoader()]), autoescape=True, undefined=StrictUndefined)


def render(state: Any, seat: int | None, lang: str, legal: list[str] | None = None) -> str:
    """The board for ``seat``; ``legal`` replaces the state's legal actions (to show a rare case)."""
    if legal is None:
        legal = state.legal_actions() if seat is not None and state.current_player() == seat else []
    names = [f"P{i}" for i in range(state.num_players)]

    real = set(state.legal_actions()) if not state.is_terminal() and not state.is_chance_node() else set()

    def describe(a: str) -> str:
        return str(state.describe(a, lang, names=names)) if a in real else a  # a made-up action: its name

    ctx = {
        "view": state.view(seat), "seat": seat, "legal": legal, "lang": lang,
        "players": names,
        "pick": lambda texts: texts.get(lang) or texts["en"],
        **board_helpers(legal, describe),
        "pickers": board_pickers("snowdonia", state, legal, lang, describe),
        "tr": lambda key, **kw: t(key, lang, **kw),
        "plural": lambda n, one, other: plural(n, lang, one, other),
        "game_data": lambda name: game_data("snowdonia", name),
    }
    return ENV.get_template("boards/snowdonia.html").render(**ctx)


def states_by_decision(seeds: range) -> dict[str, Any]:
    """One state per decision kind (the one with the most options), from random games."""
    game = eng.load("snowdonia")
    found: dict[str, tuple[int, Any]] = {}
    for seed in seeds:
        rng = random.Random(seed)
        st: Any = game.new_state(2 + seed % 3)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(eng.sample_chance(st, rng))
                continue
            legal = st.legal_actions()
            kind = st.decision["kind"]
            if len(legal) > found.get(kind, (0, None))[0]:
                found[kind] = (len(legal), st.clone())
            st.apply_action(rng.choice(legal))
    return {k: v[1] for k, v in found.items()}


STATES = states_by_decision(range(8))


def test_contracts_are_picked_on_their_cards() -> None:
    for kind in ("window", "keep", "contract"):
        st = STATES[kind]
        seat = st.current_player()
        for lang in ("de", "en"):
            html = render(st, seat, lang)
            cards = html.split('id="sd-pick-cards"')[1].split("</div>\n      {% endif %}")[0]
            offered = {htmllib.unescape(a) for a in re.findall(r'data-action="([^"]+)"', cards.split('class="all-actions"')[0])}
            assert offered == set(st.legal_actions()), (kind, offered, st.legal_actions())
            assert '<details class="all-actions">' in html, kind  # the plain list is only the fallback


def test_choices_under_contracts_and_trains_have_pickers() -> None:
    for kind in ("move", "convert_steel", "swap"):
        if kind not in STATES:
            continue
        st = STATES[kind]
        html = render(st, st.current_player(), "en")
        assert 'class="picker"' in html, kind
        assert '<details class="all-actions">' in html, kind


def test_every_decision_renders_for_every_viewer_with_legal_actions_only() -> None:
    for kind, st in STATES.items():
        mover = st.current_player()
        for seat in (mover, (mover + 1) % st.num_players, None):
            html = render(st, seat, "de" if seat else "en")
            clickable = {htmllib.unescape(a) for a in re.findall(r'data-action="([^"]+)"', html)}
            assert clickable <= set(st.legal_actions() if seat == mover else []), (kind, seat)
            assert "Player 1" not in html and "Spieler 1" not in html


def test_build_sites_on_the_route_are_clickable_and_crosses_mark_unusable_actions() -> None:
    st = STATES["build"]
    html = render(st, st.current_player(), "en")
    route = html.split('id="sd-route-svg"')[1].split("</svg>")[0]
    sites = set(re.findall(r'data-action="(build:[^"]+)"', route)) | set(re.findall(r'data-pick-base="(build:[^"]+)"', route))
    heads = {a.split("+")[0] for a in st.legal_actions() if a.startswith("build:")}
    assert sites == heads
    view = st.view(None)
    crossed = re.findall(r'class="sd-sym sd-x" data-symbol="(\w+)"', html)
    crossed_areas = re.findall(r'class="sd-area [^"]*sd-crossed" data-area="(\w)"', html)
    for u in view["unusable"]:
        assert u["symbol"] in crossed or u["area"] in crossed_areas, u


def test_counts_use_real_plural_forms() -> None:
    st = STATES["place"]
    html = render(st, st.current_player(), "de")
    assert not re.search(r"\b1 Aufträge\b", html) and not re.search(r"\b0 Auftrag\b", html)
    html = render(st, st.current_player(), "en")
    assert not re.search(r"\b1 contracts\b", html)
