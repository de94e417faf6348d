"""The ``ludothek`` command line, on the toy game (the real games add their own CLI tests)."""

from __future__ import annotations

import io
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ludothek import cli, engine
from ludothek.bots import RandomBot, play_to_end
from tests.engine.toygame import GAME

engine.register(GAME)


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("play", "simulate", "replay", "serve"):
        assert command in out


def test_simulate_prints_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "toypig", "--games", "20", "--players", "3", "--seed", "4", "--json"]) == 0
    out = capsys.readouterr().out
    stats = json.loads(out.strip().splitlines()[-1])
    assert stats["games"] == 20 and len(stats["wins_by_seat"]) == 3
    assert sum(stats["wins_by_seat"]) == pytest.approx(20)
    assert stats["average_turns"] > 0 and "games per second of CPU time" in out
    assert stats["cpu_seconds"] > 0 and stats["games_per_second"] == pytest.approx(20 / stats["cpu_seconds"])


def test_simulate_rejects_bad_options() -> None:
    with pytest.raises(SystemExit, match="must be one of"):
        cli.main(["simulate", "toypig", "--options", "length=endless"])
    with pytest.raises(SystemExit, match="name=value"):
        cli.main(["simulate", "toypig", "--options", "length"])
    with pytest.raises(SystemExit, match="unknown game"):
        cli.main(["simulate", "chess"])


def test_play_accepts_numbers_and_names_and_rejects_nonsense(tmp_path: Path) -> None:
    answers = "\n".join(["nonsense", "99", "2"] + ["1"] * 500) + "\n"
    out = io.StringIO()
    save = tmp_path / "game.json"
    cli.play("toypig", 2, [], "en", 0, "random", 3, str(save), stdin=io.StringIO(answers), out=out)
    text = out.getvalue()
    assert "Not possible" in text and "Game over." in text
    state = engine.replay(save.read_text())
    assert state.is_terminal()


def test_play_quits_cleanly_on_end_of_input() -> None:
    out = io.StringIO()
    assert cli.play("toypig", 2, [], "de", 0, "random", 1, None, stdin=io.StringIO(""), out=out) == 0
    assert "Du bist am Zug" in out.getvalue()


def test_replay_prints_log_and_names_bad_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = GAME.new_state(2)
    play_to_end(state, [RandomBot(), RandomBot()], random.Random(2))
    rec = engine.record(state)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rec))
    assert cli.main(["replay", str(good), "--lang", "en"]) == 0
    assert "Game over." in capsys.readouterr().out
    rec["actions"][3]["action"] = "die:0"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    assert cli.main(["replay", str(bad)]) == 1
    assert "action 4" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="cannot read"):
        cli.main(["replay", str(tmp_path / "missing.json")])


def test_replay_of_a_portal_record_names_the_players_and_shows_undos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.rolltheages.helpers import new_game, roll

    state = new_game(2, start=1)
    roll(state, "W", "W", "W")
    state.apply_action("done")
    state.undo(0)
    rec = engine.record(state, id=1, players=["anna", "bruno"])
    path = tmp_path / "portal.json"
    path.write_text(json.dumps(rec))
    assert cli.main(["replay", str(path), "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "anna nimmt die letzte Aktion zurück." in out and "(zurückgenommen)" in out
    assert "Spieler 1" not in out


def test_serve_starts_the_portal_with_an_embedded_database(tmp_path: Path) -> None:
    """``make run`` path: ``ludothek serve`` with nothing configured answers on its port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUDOTHEK_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ludothek.cli", "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as resp:
                    body = resp.read().decode()
                break
            except OSError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    output = proc.stdout.read() if proc.stdout else ""
                    raise AssertionError(f"portal did not start: {output}") from exc
                time.sleep(0.2)
        assert "Ludothek" in body
        assert (tmp_path / "var" / "ludothek.sqlite3").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
