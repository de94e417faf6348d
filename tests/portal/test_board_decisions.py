"""Every decision is offered on the board itself (issue 29): Machi Koro, Roll Through the Ages, Carpe Diem.

Random games are played; at every decision the mover's board is rendered as the game page renders it,
and each legal action must be reachable there without the sentence list: as a clickable element
(``data-action``), as an option of a board picker (``data-picker``, walked as ``static/pickers.js``
does, see ``tests.picker_checks``), or through a board's own composing control, which builds the action
from the legal list in the board's data: Carpe Diem's build bar (cell, turn, confirm), Roll Through the
Ages' re-roll and food/workers buttons, Machi Koro's Business Center trade.  A folded "all actions" list
inside a board does not count.  Snowdonia has its own such test (``tests/snowdonia/test_board_partial.py``).
"""

from __future__ import annotations

import html as htmllib
import json
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

from ludothek import engine as eng
from ludothek.engine.plural import plural
from ludothek.portal.boards import board_helpers, game_data
from ludothek.portal.gameweb import GameWebLoader
from ludothek.portal.pickers import board_pickers
from ludothek.portal.render import setup_templates
from ludothek.texts import t, tn
from tests.picker_checks import reachable

TEMPLATES = Path(__file__).resolve().parents[2] / "ludothek" / "portal" / "templates"
ENV = Environment(loader=ChoiceLoader([FileSystemLoader(str(TEMPLATES)), GameWebLoader()]), autoescape=True,
                  undefined=StrictUndefined)
setup_templates(SimpleNamespace(env=ENV))  # type: ignore[arg-type]  # the portal's filters (hyphenate, num)

#: game -> (players, decisions to look at per game, seeds)
GAMES = {"machikoro": (4, 400, range(3)), "rolltheages": (3, 400, range(3)), "carpediem": (3, 400, range(2))}

#: Board controls that compose an action from the board's legal list: (game, marker in the HTML, prefix).
COMPOSERS = [("carpediem", 'id="cd-buildbar"', "build:"), ("rolltheages", 'id="rt-reroll"', "roll:"),
             ("rolltheages", 'id="rt-choose"', "food:")]


def render(game: str, state: Any, seat: int, lang: str) -> str:
    """The board partial of ``game`` for ``seat`` (to move), as the game page renders it."""
    legal = state.legal_actions()
    names = [f"P{i}" for i in range(state.num_players)]

    def describe(a: str) -> str:
        return str(state.describe(a, lang, names=names))

    ctx = {
        "view": state.view(seat), "seat": seat, "legal": legal, "lang": lang, "players": names,
        "pick": lambda texts: texts.get(lang) or texts["en"],
        **board_helpers(legal, describe),
        "pickers": board_pickers(game, state, legal, lang, describe),
        "tr": lambda key, **kw: t(key, lang, **kw),
        "trn": lambda key, n, **kw: tn(key, n, lang, **kw),
        "plural": lambda n, one, other: plural(n, lang, one, other),
        "game_data": lambda name: game_data(game, name),
    }
    return ENV.get_template(f"boards/{game}.html").render(**ctx)


def on_board(game: str, html: str) -> set[str]:
    """The actions a player can reach on this board without opening a folded list."""
    unfolded = re.sub(r'<details class="all-actions">.*?</details>', "", html, flags=re.S)
    found = {htmllib.unescape(a) for a in re.findall(r'data-action="([^"]+)"', unfolded)}
    for raw in re.findall(r"data-picker='([^']*)'", unfolded):
        found |= reachable(json.loads(htmllib.unescape(raw)))
    if game == "machikoro":
        for raw in re.findall(r"data-trades='([^']*)'", unfolded):
            found |= {tr["action"] for tr in json.loads(htmllib.unescape(raw))}
    legal_data = re.search(r"data-legal='([^']*)'", unfolded)
    legal = json.loads(htmllib.unescape(legal_data.group(1))) if legal_data else []
    for g, marker, prefix in COMPOSERS:
        if g == game and marker in unfolded:
            found |= {a for a in legal if a.startswith(prefix)}
    return found


@pytest.mark.parametrize("game", list(GAMES))
def test_every_decision_is_offered_on_the_board(game: str) -> None:
    players, looks, seeds = GAMES[game]
    kinds: dict[str, int] = {}
    for seed in seeds:
        rng = random.Random(seed)
        state = eng.load(game).new_state(players)
        looked = 0
        while not state.is_terminal() and looked < looks:
            if state.is_chance_node():
                state.apply_action(eng.sample_chance(state, rng))
                continue
            seat, legal = state.current_player(), state.legal_actions()
            html = render(game, state, seat, "de" if looked % 2 else "en")
            missing = set(legal) - on_board(game, html)
            assert not missing, f"{game}: not on the board: {sorted(missing)[:8]} (legal: {legal[:8]})"
            for a in legal:
                kinds[a.split(":")[0]] = kinds.get(a.split(":")[0], 0) + 1
            looked += 1
            state.apply_action(rng.choice(legal))
    assert len(kinds) >= 4, kinds  # the games reached several kinds of decision
