"""Statistics per game and options (issue 32, "Statistics"): win rates by seat order, by what was bought and
by the first purchase, each with its count and a 95 % interval, raw and adjusted for the players' strength.

`compute` is the arithmetic on game records (the open-data record format): it needs no database, so the
same numbers come from the site's games and from a downloaded export.  Bot games are kept apart from
people's games.  (Not yet here: the nightly rebuild, the page and the API.)
"""

from __future__ import annotations

from .compute import Figure, GameFacts, SeatFacts, facts_of, figures, purchases, wilson

__all__ = ["Figure", "GameFacts", "SeatFacts", "facts_of", "figures", "purchases", "wilson"]
