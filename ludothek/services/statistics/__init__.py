"""Statistics per game and options (issue 32, "Statistics"): win rates by seat order, by what was bought and
by the first purchase, each with its count and a 95 % interval, raw and adjusted for the players' strength.

`compute` is the arithmetic on game records (the open-data record format): it needs no database, so the
same numbers come from the site's games and from a downloaded export.  Bot games are kept apart from
people's games.  `rebuild.Statistics` rebuilds them from the stored games (nightly, in the workers) and keeps them per game.
"""

from __future__ import annotations

from .compute import Figure, GameFacts, SeatFacts, facts_of, figures, purchases, wilson
from .rebuild import GameTable, Statistics

__all__ = ["Figure", "GameFacts", "GameTable", "SeatFacts", "Statistics", "facts_of", "figures", "purchases",
           "wilson"]
