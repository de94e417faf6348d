"""docs/api.md's bot is real: taken from the page as it stands and run against a live portal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.portal.conftest import make_settings
from tests.portal.server import running_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
MOVES = 4


def bot_source() -> str:
    """The one Python block of docs/api.md that starts with ``# bot.py``."""
    blocks = re.findall(r"```python\n(# bot\.py.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "docs/api.md must show exactly one bot.py"
    return blocks[0]


def test_the_bot_is_about_forty_lines() -> None:
    code = [line for line in bot_source().splitlines() if line.strip() and not line.strip().startswith("#")]
    assert 30 <= len(code) <= 50, len(code)


@pytest.mark.timeout(300)
def test_the_documented_bot_plays_against_a_live_server(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text(bot_source(), encoding="utf-8")
    with running_server(make_settings(f"sqlite:///{tmp_path / 'doc.sqlite3'}")) as base:
        r = httpx.post(f"{base}/api/v1/users", json={"name": "robbie", "password": "password-robbie"})
        r.raise_for_status()
        auth = {"Authorization": f"Bearer {r.json()['token']}"}
        # A game against the server's own bot: it is robbie's turn again after every bot move.
        seats = [{"kind": "me"}, {"kind": "bot", "bot": "random"}]
        game = httpx.post(f"{base}/api/v1/games", json={"game": "machikoro", "players": 2, "seats": seats},
                          headers=auth)
        assert game.status_code == 201, game.text
        gid, seat = game.json()["id"], game.json()["my_seat"]
        run = subprocess.run([sys.executable, str(script), base, "robbie", "password-robbie", str(MOVES)],
                             capture_output=True, text=True, timeout=240, check=False)
        assert run.returncode == 0, run.stderr[-3000:]
        lines = run.stdout.splitlines()
        assert len(lines) == MOVES and all(line.startswith(f"game {gid}: ") for line in lines), run.stdout
        record = httpx.get(f"{base}/api/v1/games/{gid}/record", headers=auth).json()
        mine = [a for a in record["actions"] if a["seat"] == seat]
        assert len(mine) >= MOVES, record["actions"]
