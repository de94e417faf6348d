"""The round job: tournaments that are due start, their next rounds start once the previous round's
games have all ended (or at the organiser's schedule), and finished ones end (issue 31).

Runs with the clock job in every server's job thread and in ``ludothek worker``; every change is
claimed in the database (`ludothek.services.tournaments.service`), so any number of processes may run
it at once, and a round starts once.
"""

from __future__ import annotations

from datetime import datetime

from ludothek.services import Site


class TournamentJob:
    name = "tournaments"

    def __init__(self, site: Site, batch: int = 20) -> None:
        self.site = site
        self.batch = batch

    def run_once(self, now: datetime) -> int:
        return self.site.tournaments.run_due(now, limit=self.batch)
