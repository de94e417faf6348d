"""What decided the order, and a move number that counts decisions (issue 29).

Machi Koro places players by when they finished, not by landmarks (4, 4, 4, 3): the result table shows
the finish instead of a "Score" column.  "Move N" on the game page and the log counts the players'
decisions, not chance steps (dice, draws) nor taken-back actions.
"""

from __future__ import annotations

import random
import re

from fastapi.testclient import TestClient

from ludothek import engine as eng
from ludothek.bots import make_bot
from ludothek.engine import CHANCE
from ludothek.portal.gameview import deciding_part
from ludothek.services import Site
from tests.machikoro.helpers import new, play
from tests.portal.conftest import page_login


def test_machi_koros_finish_decides_and_other_games_keep_the_score() -> None:
    state = new(2, coins={0: 30}, landmarks={0: ["train_station", "shopping_mall", "amusement_park"]},
                ending="kosmos")
    play(state, "roll:1", "dice:5")
    play(state, "build:radio_tower")
    decided = deciding_part(state.view(None)["breakdown"], "en")
    assert decided is not None and decided["label"] == "Finish"
    assert decided["cells"][0].startswith("finished 1st") and decided["cells"][1].startswith("did not finish")
    german = deciding_part(state.view(None)["breakdown"], "de")
    assert german is not None and german["label"] == "Zieleinlauf" and german["cells"][0].startswith("als 1. fertig")
    rtta = eng.load("rolltheages").new_state(2)
    assert deciding_part(rtta.view(None).get("breakdown"), "en") is None
    assert deciding_part([{"seat": 0, "parts": [{"part": "x", "label": {"en": "x", "de": "x"}, "points": 3,
                                                  "detail": None}]}], "en") is None


def test_decisions_count_neither_chance_nor_undone_actions() -> None:
    state = eng.load("machikoro").new_state(2)
    rng = random.Random(4)
    while state.move_number() < 40:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_outcome(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    by_players = sum(1 for e in state.history() if e.seat != CHANCE)
    assert 0 < state.decisions() == by_players < state.move_number()
    undone = 0
    for _ in range(200):  # take back every decision that may be: the count goes down with each
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_outcome(rng))
            continue
        seat = state.current_player()
        before = state.decisions()
        state.apply_action(rng.choice(state.legal_actions()))
        if state.can_undo(seat):
            state.undo(seat)
            assert state.decisions() == before and state.move_number() > before
            undone += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert undone > 0


def finished_machikoro(site: Site) -> int:
    """A 2-player Machi Koro game played to its end by `easy` choices for the person and the bot."""
    creator = site.accounts.register("finisher", "password-finisher")
    gid = site.lobby.create_game(creator, "machikoro", 2, {}, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    easy, rng = make_bot("easy"), random.Random(7)
    for _ in range(5000):
        info = site.games.game(gid)
        if info.status != "running":
            break
        with site.play.state(gid) as (_, tracked):
            assert tracked is not None
            action = easy.choose(tracked.state.clone(), rng)
        site.play.submit(gid, action, info.seq, seat=info.to_move)
    assert site.games.game(gid).status == "finished"
    return gid


def test_the_game_page_shows_the_finish_and_counts_decisions(client: TestClient) -> None:
    site: Site = client.app.state.portal.site  # type: ignore[attr-defined]
    client.app.state.portal.bots.stop()  # type: ignore[attr-defined]  # the test plays the bot's seat itself
    gid = finished_machikoro(site)
    page_login(client, "looker")
    html = client.get(f"/games/{gid}").text
    result = html[html.index('id="result"'):html.index("</table>", html.index('id="result"'))]
    assert "<th>Finish</th>" in result and "finished 1st" in result and "<th>Score</th>" not in result
    with site.play.state(gid) as (info, tracked):
        assert tracked is not None
        decisions, seq = tracked.state.decisions(), info.seq
    assert decisions < seq  # dice rolls are chance steps
    shown = re.search(r"Move (\d+)", html)
    assert shown is not None and int(shown.group(1)) == decisions
    log = client.get(f"/games/{gid}/log").text
    assert f"Move {decisions}<" in log or f"Move {decisions} " in log
    replay = client.get(f"/games/{gid}/replay?step={seq}").text
    assert "<th>Finish</th>" in replay and "finished 1st" in replay
