"""The portal's Carpe Diem board partial renders every stage for every viewer, and only offers legal actions."""

from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

from ludothek.engine.conformance import random_action
from ludothek.engine.plural import plural
from ludothek.games.carpediem import GAME
from ludothek.games.carpediem.rules import CarpeDiemState
from ludothek.portal.boards import board_helpers
from ludothek.portal.gameweb import GameWebLoader
from ludothek.portal.pickers import board_pickers
from ludothek.portal.render import setup_templates
from ludothek.texts import t

TEMPLATES = Path(__file__).resolve().parents[2] / "ludothek" / "portal" / "templates"


def board_env() -> Environment:
    """The board templates with the portal's filters (``hyphenate``, ``num``), strict about gaps."""
    env = Environment(loader=ChoiceLoader([FileSystemLoader(str(TEMPLATES)), GameWebLoader()]), autoescape=True,
                      undefined=StrictUndefined)
    setup_templates(SimpleNamespace(env=env))  # type: ignore[arg-type]
    return env


def render(env: Environment, state: CarpeDiemState, seat: int | None, lang: str) -> str:
    legal = state.legal_actions() if seat is not None and state.current_player() == seat else []
    ctx = {
        "view": state.view(seat), "seat": seat, "legal": legal, "lang": lang,
        "players": [f"P{i}" for i in range(state.num_players)],
        "pick": lambda texts: texts.get(lang) or texts["en"],
        **board_helpers(legal, lambda a: state.describe(a, lang)),
        "pickers": board_pickers("carpediem", state, legal, lang, lambda a: state.describe(a, lang)),
        "tr": lambda key, **kw: t(key, lang, **kw),
        "plural": lambda n, one, other: plural(n, lang, one, other),
    }
    return env.get_template("boards/carpediem.html").render(**ctx)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_board_renders_in_every_stage(n: int) -> None:
    env = board_env()
    rng = random.Random(n)
    state = GAME.new_state(n)
    assert isinstance(state, CarpeDiemState)
    stages: set[str] = set()
    step = 0
    while True:
        player = state.current_player()
        if player >= 0 and (step % 9 == 0 or state.stage not in stages):
            stages.add(state.stage)
            html = render(env, state, player, "de" if step % 2 else "en")
            offered = set(re.findall(r'data-action="([^"]+)"', html))
            assert offered <= set(state.legal_actions())
            assert "cd-provisional" in html
            if state.stage in ("move", "take", "disc", "seal", "place"):
                assert offered  # the board itself offers these decisions
            if step % 27 == 0:
                other = render(env, state, (player + 1) % n, "en")
                assert 'data-action="' not in other
                render(env, state, None, "de")
        if state.is_terminal():
            render(env, state, 0, "en")
            render(env, state, None, "de")
            break
        state.apply_action(random_action(state, rng))
        step += 1
    assert {"place", "move", "take", "build", "disc", "card"} <= stages


def test_board_renders_fountain_and_craftsman_choices() -> None:
    from .helpers import build, comp_with, new_game, use_comp

    env = board_env()
    state = new_game(2)
    use_comp(state, comp_with([{"id": "TFN", "parts": [{"kind": "fountain"}]},
                               {"id": "TC", "parts": [{"kind": "craftsman", "at": ["S"]}]}]))
    build(state, 0, "TFN", "c3")
    state.apply_action("fountain:garden")
    state.apply_action("fountain:villa")
    html = render(env, state, 0, "en")
    assert 'data-action="return:new1"' in html and "new2: villa" in html
    assert "new2:" not in render(env, state, 1, "de")
    state.apply_action("return:new1")
    state.seal[0] = "TC"  # a craftsman reward is due: the seal tile fits next to the fountain
    state.stage, state.actor, state.held = "seal", 0, None
    html = render(env, state, 0, "de")
    assert 'data-action="seal:TC"' in html
    state.apply_action("seal:TC")
    html = render(env, state, 0, "en")
    assert 'id="cd-confirm"' in html and 'id="cd-storebtn"' not in html
