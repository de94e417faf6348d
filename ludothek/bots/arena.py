"""The arena: bots play each other many times; win rates with confidence intervals, scores, speed.

Seats rotate so that no bot always moves first: game ``g`` gives seat ``s``
the bot ``(s + g) mod k`` of the ``k`` listed.  With fewer bots than players
the list repeats; the same name on several seats counts as one entry whose
figures cover all its seats.

Ties: a game's win is split between the seats that share rank 1 (two tied
winners get half a win each), like `State.returns`; the Wilson interval is
computed on those (possibly fractional) win counts.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ludothek.engine import CHANCE, load, sample_chance

from . import BOTS, Bot, make_bot
from .strategy import strategy_for


def known_bots(game_id: str) -> list[str]:
    """The names the arena accepts for ``game_id``: every bot, plus the game's scripted opponents."""
    return sorted(BOTS) + sorted(strategy_for(game_id).scripted)


def arena_bot(game_id: str, name: str) -> Bot:
    """A bot by name, or one of the game's scripted opponents (see `strategy.Strategy.scripted`)."""
    scripted = strategy_for(game_id).scripted
    if name not in BOTS and name in scripted:
        bot: Bot = scripted[name]()
        return bot
    return make_bot(name)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """The 95 % interval of a mean (normal approximation; the mean itself with fewer than two values).

    Points targets (Roll Through the Ages: 25 on average) need an interval on
    the mean score as much as win rates need Wilson's.
    """
    if not values:
        return (0.0, 0.0)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, mean)
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return (mean - half, mean + half)


@dataclass
class BotFigures:
    """What one bot name collected over the games."""

    name: str
    seats: int = 0
    wins: float = 0.0
    scores: list[float] = field(default_factory=list)
    placings: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    #: CPU seconds of the deciding thread per decision: what one core needs, whatever else the machine runs.
    cpu: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.seats)
        times = sorted(self.times)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
        cpu = sorted(self.cpu)
        cpu_p95 = cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))] if cpu else 0.0
        return {
            "bot": self.name,
            "seats": self.seats,
            "wins": self.wins,
            "win_rate": self.wins / self.seats if self.seats else 0.0,
            "win_rate_95": [low, high],
            "mean_score": statistics.fmean(self.scores) if self.scores else 0.0,
            "mean_score_95": list(mean_interval(self.scores)),
            "mean_placing": statistics.fmean(self.placings) if self.placings else 0.0,
            "decisions": len(times),
            "decision_ms": {
                "mean": 1000 * statistics.fmean(times) if times else 0.0,
                "p95": 1000 * p95,
                "max": 1000 * times[-1] if times else 0.0,
            },
            "decision_cpu_ms": {
                "mean": 1000 * statistics.fmean(cpu) if cpu else 0.0,
                "p95": 1000 * cpu_p95,
                "max": 1000 * cpu[-1] if cpu else 0.0,
            },
        }


def run_arena(game_id: str, bot_names: Sequence[str], players: int, games: int, seed: int = 0,
              options: Mapping[str, Any] | None = None, factory: Callable[[str], Bot] | None = None,
              progress: bool = False) -> dict[str, Any]:
    """Play ``games`` games and return the figures per bot name (see the module docstring)."""
    if not bot_names:
        raise ValueError("name at least one bot")
    game = load(game_id)
    game.validate_options(players, options)
    names = list(dict.fromkeys(bot_names))
    figures = {name: BotFigures(name) for name in names}
    bots = {name: factory(name) if factory is not None else arena_bot(game_id, name) for name in names}
    lengths: list[int] = []
    iterator: Any = range(games)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"{game_id} arena", unit="game")
    for g in iterator:
        rng = random.Random(f"{seed}:{g}")
        seat_bots = [bot_names[(s + g) % len(bot_names)] for s in range(players)]
        state = game.new_state(players, options)
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            name = seat_bots[player]
            start, cpu_start = time.perf_counter(), time.thread_time()
            action = bots[name].choose(state, rng)
            figures[name].cpu.append(time.thread_time() - cpu_start)
            figures[name].times.append(time.perf_counter() - start)
            state.apply_action(action)
        lengths.append(state.turns_taken())
        returns = state.returns()
        for r in state.result():
            f = figures[seat_bots[r.seat]]
            f.seats += 1
            f.wins += returns[r.seat]
            f.scores.append(r.score)
            f.placings.append(r.rank)
    return {
        "game": game_id,
        "players": players,
        "games": games,
        "seed": seed,
        "options": dict(options or {}),
        "mean_turns": statistics.fmean(lengths) if lengths else 0.0,
        "bots": [figures[n].to_json() for n in names],
    }


def format_table(report: Mapping[str, Any]) -> str:
    """The arena's figures as a plain text table."""
    lines = [
        f"{report['game']}, {report['players']} players, {report['games']} games, seed {report['seed']}; "
        f"mean game length {report['mean_turns']:.1f} turns",
        f"{'bot':<10} {'seats':>5} {'win rate':>9} {'95% CI':>15} {'score':>7} {'placing':>7} "
        f"{'ms mean':>8} {'ms p95':>8} {'ms max':>8} {'cpu mean':>8} {'cpu p95':>8} {'cpu max':>8}",
    ]
    for b in report["bots"]:
        low, high = b["win_rate_95"]
        score_low, score_high = b["mean_score_95"]
        ms, cpu = b["decision_ms"], b["decision_cpu_ms"]
        lines.append(
            f"{b['bot']:<10} {b['seats']:>5} {100 * b['win_rate']:>8.1f}% {f'{100 * low:.1f}–{100 * high:.1f}%':>15} "
            f"{b['mean_score']:>7.2f} {f'{score_low:.1f}–{score_high:.1f}':>13} {b['mean_placing']:>7.2f} {ms['mean']:>8.1f} {ms['p95']:>8.1f} {ms['max']:>8.1f}"
            f" {cpu['mean']:>8.1f} {cpu['p95']:>8.1f} {cpu['max']:>8.1f}"
        )
    return "\n".join(lines)
