"""A bot that never stalls a game: failures and overlong thinking fall back to `medium`, then `random`.

The portal's bot worker wraps every bot in `SafeBot`.  The primary bot thinks
in a daemon thread; if it raises, returns an illegal action, or gives no
answer within ``5 × budget`` seconds, the next bot in the chain decides
instead and the failure is logged.  `random` always answers.
"""

from __future__ import annotations

import concurrent.futures
import logging
import random
from collections.abc import Sequence

from ludothek.engine import State

from . import Bot, RandomBot

log = logging.getLogger("ludothek.bots")

#: How many times its budget a bot may think before the next one in the chain decides.
OVERRUN = 5.0


def budget_of(bot: Bot, default: float = 0.2) -> float:
    """A bot's per-decision budget in seconds (its ``budget`` attribute, if any)."""
    value = getattr(bot, "budget", None)
    return float(value) if isinstance(value, (int, float)) else default


class SafeBot:
    """``chain[0]`` decides unless it fails; then ``chain[1]``, and so on; `random` is the last resort."""

    def __init__(self, chain: Sequence[Bot], budgets: Sequence[float] | None = None, nice: int = 0):
        self.chain = list(chain)
        #: How much lower the thinking threads' CPU priority is than the caller's (Linux: per thread).
        #: The bot worker thinks at a lower priority but reads and writes the database at its own, so a
        #: starved thinker never holds a lock that a server waits for.
        self.nice = nice
        if not any(isinstance(b, RandomBot) for b in self.chain):
            self.chain.append(RandomBot())
        self.budgets = list(budgets) if budgets is not None else [budget_of(b) for b in self.chain]
        self.name = self.chain[0].name
        #: The name of the bot that made the last decision (for logs and tests).
        self.decided_by = self.name

    def choose(self, state: State, rng: random.Random) -> str:
        legal = state.legal_actions()
        for bot, budget in zip(self.chain, self.budgets, strict=False):
            if isinstance(bot, RandomBot):
                break
            # Each bot thinks on its own copy with its own seeded generator, so an
            # abandoned thread can change neither the state nor the caller's dice.
            sub_rng = random.Random(rng.random())
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"bot-{bot.name}")
            try:
                future = pool.submit(self._think, bot, state.clone(), sub_rng)
                action = future.result(timeout=OVERRUN * budget)
            except concurrent.futures.TimeoutError:
                log.warning("bot %s gave no answer within %.1f s in %s; falling back", bot.name,
                            OVERRUN * budget, state.game.id)
                continue
            except Exception:
                log.exception("bot %s failed in %s; falling back", bot.name, state.game.id)
                continue
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
            if action in legal:
                self.decided_by = bot.name
                return action
            log.warning("bot %s chose the illegal action %r in %s; falling back", bot.name, action, state.game.id)
        self.decided_by = "random"
        return rng.choice(legal)

    def _think(self, bot: Bot, state: State, rng: random.Random) -> str:
        """``bot.choose`` in this (new) thread, first lowered by ``nice`` where the system allows it."""
        if self.nice:
            lower_thread_priority(self.nice)
        return bot.choose(state, rng)


def lower_thread_priority(nice: int) -> None:
    """Lower the calling thread's CPU priority by ``nice`` (Linux schedules threads one by one; elsewhere
    this lowers the whole process, so it is skipped there)."""
    import os
    import sys
    import threading

    if sys.platform != "linux":
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except OSError:
        log.debug("could not lower the thinking thread's priority")


def safe_bot(name: str, nice: int = 0) -> SafeBot:
    """The bot ``name`` behind the fallback chain ``name`` → ``medium`` → ``random``; thinking ``nice`` lower."""
    from . import make_bot

    chain = [make_bot(name)]
    if name not in ("medium", "random"):
        chain.append(make_bot("medium"))
    return SafeBot(chain, nice=nice)
