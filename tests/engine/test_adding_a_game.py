"""The "Adding a game" checklist of ``docs/engine.md``, followed to the letter for a toy game in a temporary folder.

The package has the shape every game has (``rules.py``, ``views.py``, ``notation.py``, ``data/``,
``strategy.py``, ``web/``, ``rulebook/``, ``about.json``), is registered by its line in
``GAME_MODULES``, passes the engine's conformance suite, and the portal draws its board with its own
template and serves its own JS and CSS, without a word about it anywhere in ``ludothek``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ludothek import engine
from ludothek.bots.strategy import strategy_for
from ludothek.engine import conformance, registry
from ludothek.portal.app import create_app
from tests.portal.conftest import make_settings, page_login

GAME_ID = "toyrace"

FILES = {
    "__init__.py": '''
        """Toy race: the first to reach the end of the track wins."""

        from .rules import GAME

        __all__ = ["GAME"]
    ''',
    "rules.py": '''
        """The rules: on your turn, step 1 or 2 spaces forward."""

        from __future__ import annotations

        import json
        from importlib import resources
        from typing import Any

        from ludothek.engine import TERMINAL, Game, SeatResult, State, ranks_from_keys

        from . import notation

        TRACK = json.loads(resources.files(__package__).joinpath("data", "track.json").read_text("utf-8"))


        class RaceGame(Game):
            id = "toyrace"
            title = {"de": "Wettlauf", "en": "Race"}
            min_players = 2
            max_players = 3
            options = ()

            def _new_state(self, num_players: int, options: dict[str, str]) -> State:
                return RaceState(self, num_players, options)


        class RaceState(State):
            def __init__(self, game: Game, num_players: int, options: dict[str, str]) -> None:
                super().__init__(game, num_players, options)
                self.places = [0] * num_players
                self.turn = 0

            def current_player(self) -> int:
                return TERMINAL if max(self.places) >= TRACK["length"] else self.turn

            def legal_actions(self) -> list[str]:
                return [] if self.is_terminal() else list(notation.STEPS)

            def _apply(self, action: str) -> None:
                self.places[self.turn] += notation.STEPS[action]
                self.turn = (self.turn + 1) % self.num_players

            def view(self, seat: int | None) -> dict[str, Any]:
                from .views import build_view

                return build_view(self, seat)

            def result(self) -> list[SeatResult]:
                ranks = ranks_from_keys(self.places)
                return [SeatResult(s, ranks[s], self.places[s]) for s in range(self.num_players)]

            def _describe(self, action: str, lang: str) -> str:
                return notation.describe(self, action, lang)

            def explain_illegal(self, action: str) -> str:
                return notation.explain_illegal(self, action)

            def snapshot(self) -> dict[str, Any]:
                return {"places": list(self.places), "turn": self.turn}


        GAME = RaceGame()
    ''',
    "views.py": '''
        """What a seat sees: everything (nothing is hidden in a race)."""

        from __future__ import annotations

        from typing import Any

        from ludothek.engine import score_part


        def build_view(state: Any, seat: int | None) -> dict[str, Any]:
            breakdown = [
                {"seat": r.seat, "rank": r.rank, "total": r.score,
                 "parts": [score_part("spaces", "Felder", "spaces", r.score)]}
                for r in state.result()
            ] if state.is_terminal() else None
            return {"places": list(state.places), "turn": state.turn, "breakdown": breakdown}
    ''',
    "notation.py": '''
        """The actions (``step:1``, ``step:2``) and their sentences."""

        from __future__ import annotations

        from typing import Any

        from ludothek.engine import seat_name

        STEPS = {"step:1": 1, "step:2": 2}


        def describe(state: Any, action: str, lang: str) -> str:
            n = STEPS[action]
            who = seat_name(state.turn, lang)
            return f"{who} geht {n} vor." if lang == "de" else f"{who} steps {n} forward."


        def explain_illegal(state: Any, action: str) -> str:
            return f"'{action}' is not legal now: step with step:1 or step:2"
    ''',
    "strategy.py": '''
        """Bot knowledge: further is better."""

        from __future__ import annotations

        from typing import Any


        def evaluate(state: Any, seat: int) -> float:
            return float(state.places[seat])
    ''',
    "data/track.json": '{"length": 6}\n',
    "web/toyrace.html": '''
        <div class="toyrace-board" data-places="{{ view.places | join(',') }}">toy race board</div>
    ''',
    "web/toyrace.js": '''
        "use strict"; // toy race board script
    ''',
    "web/toyrace.css": '''
        .toyrace-board { color: teal; }
    ''',
    "rulebook/de.md": "## Ziel\n\nAls Erste am Ende der Strecke sein.\n",
    "rulebook/en.md": "## Goal\n\nBe the first at the end of the track.\n",
    "about.json": '{"players": "2-3", "minutes": 5}\n',
}


@pytest.fixture
def toy_race(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy game's package, importable and registered the documented way (a `GAME_MODULES` line)."""
    package = tmp_path / "games" / GAME_ID
    for name, text in FILES.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setitem(registry.GAME_MODULES, GAME_ID, GAME_ID)
    yield package
    registry._load_module_game.cache_clear()
    strategy_for.cache_clear()


def test_a_toy_game_built_from_the_checklist_passes_the_conformance_suite(toy_race: Path) -> None:
    assert GAME_ID in engine.games()
    game = engine.load(GAME_ID)
    assert game.web_dir == toy_race / "web" and registry.web_dir(GAME_ID) == toy_race / "web"
    assert game.about() == {"players": "2-3", "minutes": 5}
    assert "first at the end" in (game.rules_markdown("en") or "")
    for players in (2, 3):
        conformance.run_suite(GAME_ID, players, {}, seeds=range(3))
    assert strategy_for(GAME_ID).evaluate(game.new_state(2), 0) == 0.0


def test_the_portal_draws_its_board_and_serves_its_script_and_style(toy_race: Path, tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'portal.sqlite3'}"))
    with TestClient(app) as client:
        for name, kind in (("toyrace.js", "text/javascript"), ("toyrace.css", "text/css")):
            r = client.get(f"/static/boards/{name}")
            assert r.status_code == 200 and r.headers["content-type"].startswith(kind)
            assert r.content == (toy_race / "web" / name).read_bytes()
        assert client.get("/static/boards/toyrace.html").status_code == 404  # templates are not files to fetch
        assert client.get("/static/boards/..%2F..%2Fgameweb.py").status_code == 404  # nothing outside the folders
        token = page_login(client, "alice")
        r = client.post("/new", data={"csrf": token, "game": GAME_ID, "players": "2", "seat1": "bot"},
                        follow_redirects=False)
        assert r.status_code == 303, r.text
        page = client.get(r.headers["location"]).text
        assert 'class="toyrace-board"' in page and "toy race board" in page
        assert '<script src="/static/boards/toyrace.js" defer></script>' in page
        assert '<link rel="stylesheet" href="/static/boards/toyrace.css">' in page
