"""Round starts of tournaments under two processes at once, and under kill -9 (issue 31).

- `race_round_starts`: several tournaments are due (to start, then to start their second round);
  two processes, each with its own engine and `Site`, run the round job (`Tournaments.run_due`) at
  the same moment, released by a barrier.  Whatever order the database picks, every tournament must
  then have each round exactly once: one ``tournament_rounds`` row per round, ``current_round`` equal
  to the rounds stored, and every entrant seated once (at a table or on a bye) per round.
- `kill_during_round_start`: a process starting a round is killed with SIGKILL inside the round's
  transaction (after the games were written, before the commit, through
  ``Tournaments.before_round_commit``).  Nothing of the round may be left, and the next run of the job
  (the "restart") must start the round exactly once.

Both use Machi Koro for two (a real game); a round's games are ended quickly by all their players
agreeing to abandon them (an abandoned game counts as ended for the round, `ENDED`).
Used by ``tests/portal/test_tournament_races.py``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from ludothek.services import Site
from ludothek.storage import UserInfo, make_engine, migrate
from ludothek.storage.models import (
    GameRow,
    TournamentBye,
    TournamentEntrant,
    TournamentRound,
    TournamentRow,
    TournamentTable,
    utcnow,
)

GAME = "machikoro"


def _site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine)


def _later() -> datetime:
    return utcnow() + timedelta(hours=2)


def setup_tournaments(site: Site, count: int, entrants: int, prefix: str) -> list[int]:
    """``count`` Swiss tournaments of two rounds (tables of two), each with ``entrants`` people entered,
    due to start an hour from now."""
    people: list[UserInfo] = []
    for i in range(entrants):
        name = f"{prefix}p{i}"
        people.append(site.accounts.register(name, "password-" + name))
    ids = []
    for k in range(count):
        tid = site.tournaments.create(people[0], {
            "name": f"{prefix} cup {k}", "game": GAME, "table_size": 2, "rounds": 2, "time_control": "move:3",
            "max_entrants": entrants, "starts_at": (utcnow() + timedelta(hours=1)).isoformat()})
        for who in people:
            site.tournaments.enter(tid, who)
        ids.append(tid)
    return ids


def end_round(site: Site, tid: int, round_no: int) -> None:
    """Every game of the round ends: its players agree to abandon it."""
    for rnd in site.tournaments.pairings(tid):
        if rnd["round"] != round_no:
            continue
        for table in rnd["tables"]:
            info = site.games.game(table["game_id"])
            if info.status != "running":
                continue
            creator = next(s for s in info.seats if s.user_id == info.creator_id)
            others = [s for s in info.seats if s.kind == "player" and s.user_id != info.creator_id]
            for seat in [creator, *others]:
                user = site.accounts.user(seat.user_id) if seat.user_id is not None else None
                if user is not None:
                    site.clocks.vote_abandon(info.id, user, True)


def problems(site: Site, tid: int, expected_rounds: int) -> list[str]:
    """What is wrong with tournament ``tid`` after the races: each round once, each entrant once a round."""
    out: list[str] = []
    with site.engine.begin() as conn:
        current = conn.execute(select(TournamentRow.current_round).where(TournamentRow.id == tid)).scalar_one()
        rounds = conn.execute(select(TournamentRound.id, TournamentRound.round_no)
                              .where(TournamentRound.tournament_id == tid)).all()
        entrants = conn.execute(select(func.count()).select_from(TournamentEntrant)
                                .where(TournamentEntrant.tournament_id == tid,
                                       TournamentEntrant.status == "entered")).scalar_one()
        if current != expected_rounds or len(rounds) != expected_rounds:
            out.append(f"tournament {tid}: current_round {current}, {len(rounds)} rounds stored, "
                       f"{expected_rounds} expected")
        for rid, no in rounds:
            seated: list[int] = []
            for (seats,) in conn.execute(select(TournamentTable.seats_json).where(TournamentTable.round_id == rid)):
                seated += json.loads(seats)
            seated += conn.execute(select(TournamentBye.entrant_id).where(TournamentBye.round_id == rid)).scalars().all()
            if sorted(seated) != sorted(set(seated)) or len(seated) != entrants:
                out.append(f"tournament {tid} round {no}: {len(seated)} seats for {entrants} entrants")
        linked = conn.execute(select(func.count()).select_from(TournamentTable)
                              .where(TournamentTable.tournament_id == tid)).scalar_one()
        games = conn.execute(select(func.count()).select_from(GameRow)
                             .where(GameRow.id.in_(select(TournamentTable.game_id)
                                                   .where(TournamentTable.tournament_id == tid)))).scalar_one()
        if linked != games:
            out.append(f"tournament {tid}: {linked} tables but {games} games")
    return out


# ----------------------------------------------------------------------------- two processes at once
def _racer(url: str, barrier: Any, when: str, answers: Any) -> None:
    site = _site(url)
    try:
        barrier.wait(timeout=120)
        answers.put(site.tournaments.run_due(datetime.fromisoformat(when), limit=100))
    except BaseException as exc:  # reported to the parent
        answers.put(repr(exc))
    finally:
        site.engine.dispose()


def _race(url: str, processes: int) -> list[Any]:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(processes)
    answers = ctx.Queue()
    when = _later().isoformat()
    procs = [ctx.Process(target=_racer, args=(url, barrier, when, answers)) for _ in range(processes)]
    for p in procs:
        p.start()
    out = [answers.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return out


@dataclass
class RaceReport:
    tournaments: int = 0
    started: list[Any] = field(default_factory=list)  # each process's count of changes, per phase
    problems: list[str] = field(default_factory=list)


def race_round_starts(url: str, count: int = 4, entrants: int = 5, processes: int = 2,
                      prefix: str = "race") -> RaceReport:
    """Two (or more) processes start the first and then the second rounds of ``count`` tournaments at once."""
    site = _site(url)
    report = RaceReport()
    try:
        ids = setup_tournaments(site, count, entrants, prefix)
        report.tournaments = len(ids)
        for phase in (1, 2):
            answers = _race(url, processes)
            report.started.append(answers)
            errors = [a for a in answers if not isinstance(a, int)]
            report.problems += [f"a racing process failed: {e}" for e in errors]
            if sum(a for a in answers if isinstance(a, int)) != len(ids):
                report.problems.append(f"phase {phase}: {answers} changes for {len(ids)} tournaments")
            for tid in ids:
                report.problems += problems(site, tid, phase)
                end_round(site, tid, phase)
    finally:
        site.engine.dispose()
    return report


# ----------------------------------------------------------------------------- kill -9 mid-start
def _child(url: str, tid: int, marker: str) -> None:
    """Start tournament ``tid``'s due round and stop, forever, just before its commit."""
    site = _site(url)

    def hold(tournament: int, round_no: int) -> None:
        Path(marker).write_text(f"{tournament} {round_no}", encoding="utf-8")
        while True:
            time.sleep(1)

    site.tournaments.before_round_commit = hold
    site.tournaments.advance(tid, _later())


@dataclass
class KillReport:
    killed_in: list[str] = field(default_factory=list)  # "tournament round" the child held when killed
    left_after_kill: list[str] = field(default_factory=list)  # what the dead process left (must be nothing)
    after_restart: list[int] = field(default_factory=list)  # the job's changes after each kill (1 each)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (len(self.killed_in) == 2 and not self.left_after_kill and self.after_restart == [1, 1]
                and not self.problems)


def kill_during_round_start(url: str, workdir: Path, prefix: str = "kill") -> KillReport:
    """Kill -9 a process in the middle of starting round 1, then of round 2; after each, the job starts it once."""
    site = _site(url)
    report = KillReport()
    try:
        (tid,) = setup_tournaments(site, 1, 5, prefix)
        for round_no in (1, 2):
            with site.engine.begin() as conn:
                games_before = conn.execute(select(func.count()).select_from(GameRow)).scalar_one()
            marker = workdir / f"held-{round_no}"
            child = subprocess.Popen(
                [sys.executable, "-c", "import sys; from ludothek.devtools.tournamentraces import _child; "
                 "_child(sys.argv[1], int(sys.argv[2]), sys.argv[3])", url, str(tid), str(marker)],
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
            deadline = time.monotonic() + 120
            while not marker.exists() and time.monotonic() < deadline and child.poll() is None:
                time.sleep(0.05)
            if not marker.exists():
                child.kill()
                report.problems.append(f"round {round_no}: the child never reached the commit ({child.poll()})")
                return report
            report.killed_in.append(marker.read_text(encoding="utf-8"))
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=60)
            with site.engine.begin() as conn:
                games_after = conn.execute(select(func.count()).select_from(GameRow)).scalar_one()
                rounds = conn.execute(select(func.count()).select_from(TournamentRound)
                                      .where(TournamentRound.tournament_id == tid)).scalar_one()
            if games_after != games_before or rounds != round_no - 1:
                report.left_after_kill.append(f"round {round_no}: {games_after - games_before} games and "
                                              f"{rounds} rounds after the kill")
            # The restart: the job of any process finds the round due and starts it, once.
            report.after_restart.append(site.tournaments.run_due(_later()))
            if site.tournaments.run_due(_later()) != 0:
                report.problems.append(f"round {round_no}: a second run of the job changed something")
            report.problems += problems(site, tid, round_no)
            end_round(site, tid, round_no)
    finally:
        site.engine.dispose()
    return report
