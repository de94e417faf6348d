"""Issue 29: all-bot games end, and Machi Koro's bots build their last landmark when they can.

Seeded all-bot games of `easy` and of `medium`, 2 to 4 players, in every game
and variant.  `hard` plays two Machi Koro games of 3 and 4 players (the Yucata
ending, where it stalled) at a small seeded budget; more games, at its real
budget, are left to the probe (``python -m benchmarks.bench_bot_endings
--levels hard``): it is too slow for many games here.  Figures over 300 games
per row, before and after the fix, are in docs/bots.md ("Bots that finish").

The bounds, and why:

- `REFUSALS` (K = 5): the most decisions in which one Machi Koro seat may build its
  last landmark and does something else.  `medium` never does (0 in 1,200
  games of the probe); `easy` takes 12 % of its decisions at random, so it can
  skip the landmark by mistake, about one eligible decision in nine: four in
  one game happened once in 3,600 seat-games of the probe, six would be about
  (1/9)^6, once in half a million.  Before the fix, seats refused up to 189 times.
- `TURNS` (R): the most turns one seat may take before the game must have
  ended, per game: about 1.5 times the longest game of the probe (Machi Koro
  74, a "Komme, was wolle" game whose cities stayed at two cards and saved for
  landmarks at a coin a turn), and far below a stall (before the fix, 25 of
  60 `medium` Machi Koro games were still running after 200 rounds).  A turn is
  a run of one seat's decisions (see `ludothek.bots.endings`): a round in Machi
  Koro and Roll Through the Ages, a placement or action in Snowdonia and Carpe Diem.
"""

from __future__ import annotations

import random

import pytest

from ludothek.bots import make_bot
from ludothek.bots.endings import play_bounded
from ludothek.bots.ismcts import IsmctsBot
from ludothek.engine import load
from ludothek.games.machikoro.strategy import finishing_build

REFUSALS = 5
TURNS = {"machikoro": 120, "rolltheages": 20, "snowdonia": 100, "carpediem": 50}
#: Games per case: 2, 3 and 4 players in turn, seeded by their index.
GAMES = {"easy": 12, "medium": 6}

MACHI_KORO = [{}, {"ending": "kosmos"}, {"market": "komme_was_wolle"}, {"max_two": "on"}]
#: (game, options, player counts for `medium`): Snowdonia's `medium` takes one to two seconds a game, so
#: each map gets one game there, the three maps together covering 2, 3 and 4 players.
OTHERS = [
    ("rolltheages", {}, (2, 3, 4)),
    ("snowdonia", {"map": "mount_snowdon"}, (4,)),
    ("snowdonia", {"map": "daffodil_line"}, (3,)),
    ("snowdonia", {"map": "blaenau_ffestiniog"}, (2,)),
    ("carpediem", {}, (2, 3, 4)),
]


@pytest.mark.parametrize("level", ["easy", "medium"])
@pytest.mark.parametrize("options", MACHI_KORO, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_machi_koro_bots_build_their_last_landmark_and_games_end(level: str, options: dict[str, str]) -> None:
    games = 2 * GAMES[level]
    for g in range(games):
        n = 2 + g % 3
        state = load("machikoro").new_state(n, options)
        end = play_bounded(state, [make_bot(level) for _ in range(n)], random.Random(g), TURNS["machikoro"],
                           finishing_build)
        assert end.ended, f"game {g} ({n} players) still running after {end.turns} turns; refusals {end.refusals}"
        assert max(end.refusals) <= REFUSALS, f"game {g} ({n} players): last landmark refused {end.refusals}"


@pytest.mark.parametrize("players", [3, 4])
def test_machi_koro_hard_builds_its_last_landmark(players: int) -> None:
    """Before its search played for places, `hard` refused its last landmark 21 (3 players) and 14 times
    (4 players) in these two games (docs/games/machikoro.md, "Bots finish the game")."""
    state = load("machikoro").new_state(players, {})
    bots = [IsmctsBot(seconds=None, iterations=100) for _ in range(players)]
    end = play_bounded(state, bots, random.Random(players), TURNS["machikoro"], finishing_build)
    assert end.ended, f"still running after {end.turns} turns; refusals {end.refusals}"
    assert max(end.refusals) <= REFUSALS, f"last landmark refused {end.refusals}"


@pytest.mark.parametrize("level", ["easy", "medium"])
@pytest.mark.parametrize(("game_id", "options", "medium_players"), OTHERS,
                         ids=[f"{c[0]}-{c[1].get('map', 'default')}" for c in OTHERS])
def test_every_all_bot_game_ends(game_id: str, options: dict[str, str], medium_players: tuple[int, ...],
                                 level: str) -> None:
    players = medium_players if level == "medium" else (2, 3, 4) * 2
    for g, n in enumerate(players):
        state = load(game_id).new_state(n, options)
        end = play_bounded(state, [make_bot(level) for _ in range(n)], random.Random(g), TURNS[game_id])
        assert end.ended, f"{game_id} game {g} ({n} players) still running after {end.turns} turns"
