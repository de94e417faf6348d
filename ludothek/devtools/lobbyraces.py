"""Conflicting lobby requests sent at the same moment to two server processes, and what must hold after.

In every race two requests that cannot both take effect as sent reach two server processes on one
database at once (released by a barrier, one thread each).  Whatever order the database picks, the
answers and the stored game must tell the same story: a game never runs with an empty seat, is never
cancelled after it started, never seats one person twice, and a request that lost is refused with 409
(never a server error).  After all rounds `lobby_problems` must find nothing.

Seven kinds (`KINDS`), each a function that sets up a game, races and checks, returning what was
inconsistent (or ``None``) and the outcome it saw:

- ``leave/join``: a leave against the join that fills the game;
- ``cancel/join``: the creator's cancel against the join that fills it;
- ``decline/accept``: a declined invitation against the accepted one that would complete the game;
- ``join/join``: two people race for the last open seat;
- ``double-join``: one person joins the same game twice, once on each process;
- ``cancel/leave``: the creator's cancel against another player's leave;
- ``cancel/accept``: the creator's cancel against the accepted invitation that completes the game.

Used by ``tests/portal/test_lobby_races.py`` and ``python -m benchmarks.probe_security`` (which
runs the issue's scale, 7 kinds x 40 rounds).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import Engine, func, select

from ludothek.storage import make_engine
from ludothek.storage.lobby_check import lobby_problems
from ludothek.storage.models import ActionRow, GameRow, SeatRow

NAMES = ("ann", "bob", "cid", "dan")
#: What a race returns: the inconsistency it found (or ``None``) and the outcome it saw.
Result = tuple[str | None, str]


@dataclass(frozen=True)
class Stored:
    """A game as the database holds it after a race."""

    status: str
    kinds: list[str]
    users: list[int | None]
    actions: int

    def players(self) -> list[int | None]:
        return [u for k, u in zip(self.kinds, self.users, strict=True) if k == "player"]


class Lobby:
    """Four registered people, two server processes, one database: what every race works with."""

    def __init__(self, bases: Sequence[str], engine: Engine) -> None:
        self.one, self.two = bases[0], bases[1]
        self.engine = engine
        self.client = httpx.Client(timeout=60)
        self.headers: dict[str, dict[str, str]] = {}
        self.ids: dict[str, int] = {}
        self.server_errors: list[str] = []

    def register(self, prefix: str = "") -> None:
        """Register the four people (``prefix`` lets several runs share one database)."""
        for name in NAMES:
            full = prefix + name
            r = self.client.post(self.one + "/api/users", json={"name": full, "password": "password-" + full})
            if r.status_code != 201:
                raise RuntimeError(f"registering {full}: {r.status_code} {r.text}")
            self.headers[name] = {"Authorization": f"Bearer {r.json()['token']}"}
            self.ids[name] = r.json()["user"]["id"]

    def post(self, base: str, path: str, who: str, body: Any = None) -> httpx.Response:
        r = self.client.post(base + path, json=body, headers=self.headers[who])
        if r.status_code >= 500:
            self.server_errors.append(f"POST {path} as {who}: {r.status_code} {r.text[:200]}")
        return r

    def setup(self, base: str, path: str, who: str, body: Any = None) -> httpx.Response:
        """A request that prepares a race and must succeed."""
        r = self.post(base, path, who, body)
        if r.status_code not in (200, 201):
            raise RuntimeError(f"setting up a race: POST {path} as {who}: {r.status_code} {r.text}")
        return r

    def create(self, players: int, seats: list[dict[str, str]] | None = None, base: str | None = None) -> int:
        body: dict[str, Any] = {"game": "machikoro", "players": players}
        if seats is not None:
            body["seats"] = seats
        gid: int = self.setup(base or self.one, "/api/games", "ann", body).json()["id"]
        return gid

    def at_once(self, *calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
        """Send the calls from separate threads released together."""
        barrier = threading.Barrier(len(calls))
        out: list[httpx.Response | BaseException | None] = [None] * len(calls)

        def run(i: int, call: Callable[[], httpx.Response]) -> None:
            barrier.wait()
            try:
                out[i] = call()
            except BaseException as exc:  # re-raised in the caller's thread
                out[i] = exc

        threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answers: list[httpx.Response] = []
        for r in out:
            if not isinstance(r, httpx.Response):
                raise RuntimeError(f"a racing request failed: {r!r}")
            answers.append(r)
        return answers

    def stored(self, gid: int) -> Stored:
        with self.engine.begin() as conn:
            status = conn.execute(select(GameRow.status).where(GameRow.id == gid)).scalar_one()
            seats = conn.execute(select(SeatRow.kind, SeatRow.user_id).where(SeatRow.game_id == gid)
                                 .order_by(SeatRow.seat)).all()
            actions = conn.execute(select(func.count()).select_from(ActionRow).where(ActionRow.game_id == gid)).scalar_one()
        return Stored(status, [s.kind for s in seats], [s.user_id for s in seats], int(actions))

    def close(self) -> None:
        self.client.close()


def _codes(*answers: httpx.Response) -> tuple[int, ...]:
    return tuple(r.status_code for r in answers)


def _seated_once(game: Stored, ids: Sequence[int]) -> bool:
    players = game.players()
    return len(players) == len(set(players)) and all(i in players for i in ids)


def _tidy(lobby: Lobby, gid: int) -> None:
    """Cancel a game a race left open, so the people's lists stay short."""
    lobby.setup(lobby.two, f"/api/games/{gid}/cancel", "ann")


def leave_join(lobby: Lobby) -> Result:
    gid = lobby.create(3)
    lobby.setup(lobby.one, f"/api/games/{gid}/join", "bob")
    leave, join = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/leave", "bob"),
                                lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "cid"))
    game = lobby.stored(gid)
    codes = _codes(leave, join)
    if game.status == "running":
        ok = codes == (409, 200) and game.kinds.count("player") == 3 and _seated_once(game, [lobby.ids[n] for n in NAMES[:3]])
    else:
        ok = game.status == "open" and game.kinds.count("open") == 1 and codes == (200, 200)
        if ok:
            _tidy(lobby, gid)
    return None if ok else f"game {gid}: {game} after leave/join answered {codes}", game.status


def cancel_join(lobby: Lobby) -> Result:
    gid = lobby.create(2, base=lobby.two)
    cancel, join = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/cancel", "ann"),
                                 lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "bob"))
    game = lobby.stored(gid)
    seen = (game.status, *_codes(cancel, join))
    ok = seen in (("cancelled", 200, 409), ("running", 409, 200))
    ok = ok and (game.status != "cancelled" or game.actions == 0)
    return None if ok else f"game {gid}: {game} after cancel/join answered {seen[1:]}", game.status


def decline_accept(lobby: Lobby) -> Result:
    seats = [{"kind": "me"}, {"kind": "invite", "user": "cid"}, {"kind": "invite", "user": "dan"}]
    gid = lobby.create(3, seats)
    lobby.setup(lobby.two, f"/api/games/{gid}/join", "cid")
    decline, accept = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/leave", "cid"),
                                    lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "dan"))
    game = lobby.stored(gid)
    codes = _codes(decline, accept)
    if game.status == "running":
        ok = codes == (409, 200) and game.kinds.count("player") == 3
    else:
        ok = game.status == "open" and "open" in game.kinds and codes == (200, 200)
        if ok:
            _tidy(lobby, gid)
    return None if ok else f"game {gid}: {game} after decline/accept answered {codes}", game.status


def join_join(lobby: Lobby) -> Result:
    gid = lobby.create(2)
    first, second = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/join", "bob"),
                                  lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "cid"))
    game = lobby.stored(gid)
    codes = _codes(first, second)
    winner = "bob" if codes == (200, 409) else "cid" if codes == (409, 200) else None
    ok = (winner is not None and game.status == "running" and game.kinds == ["player", "player"]
          and _seated_once(game, [lobby.ids["ann"], lobby.ids[winner]]))
    return None if ok else f"game {gid}: {game} after join/join answered {codes}", winner or "?"


def double_join(lobby: Lobby) -> Result:
    gid = lobby.create(3)
    first, second = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/join", "bob"),
                                  lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "bob"))
    game = lobby.stored(gid)
    codes = tuple(sorted(_codes(first, second)))
    ok = (codes == (200, 409) and game.status == "open" and game.kinds.count("open") == 1
          and game.players().count(lobby.ids["bob"]) == 1)
    if ok:
        _tidy(lobby, gid)
    return None if ok else f"game {gid}: {game} after a double join answered {codes}", game.status


def cancel_leave(lobby: Lobby) -> Result:
    gid = lobby.create(3)
    lobby.setup(lobby.two, f"/api/games/{gid}/join", "bob")
    cancel, leave = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/cancel", "ann"),
                                  lambda: lobby.post(lobby.two, f"/api/games/{gid}/leave", "bob"))
    game = lobby.stored(gid)
    codes = _codes(cancel, leave)
    ok = game.status == "cancelled" and game.actions == 0 and codes in ((200, 200), (200, 409))
    order = "leave first" if codes == (200, 200) else "cancel first"
    return None if ok else f"game {gid}: {game} after cancel/leave answered {codes}", order


def cancel_accept(lobby: Lobby) -> Result:
    gid = lobby.create(2, [{"kind": "me"}, {"kind": "invite", "user": "dan"}])
    cancel, accept = lobby.at_once(lambda: lobby.post(lobby.one, f"/api/games/{gid}/cancel", "ann"),
                                   lambda: lobby.post(lobby.two, f"/api/games/{gid}/join", "dan"))
    game = lobby.stored(gid)
    seen = (game.status, *_codes(cancel, accept))
    ok = seen in (("cancelled", 200, 409), ("running", 409, 200))
    ok = ok and (game.status != "cancelled" or game.actions == 0)
    return None if ok else f"game {gid}: {game} after cancel/accept answered {seen[1:]}", game.status


#: Every kind of race, by name.
KINDS: dict[str, Callable[[Lobby], Result]] = {
    "leave/join": leave_join,
    "cancel/join": cancel_join,
    "decline/accept": decline_accept,
    "join/join": join_join,
    "double-join": double_join,
    "cancel/leave": cancel_leave,
    "cancel/accept": cancel_accept,
}


@dataclass
class RaceReport:
    """What a run of races found: how many of each kind, their outcomes, and every inconsistency."""

    races: Counter[str] = field(default_factory=Counter)
    outcomes: dict[str, Counter[str]] = field(default_factory=dict)
    inconsistent: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    lobby_problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.races.values())

    @property
    def bad(self) -> int:
        """Inconsistent races plus damage `lobby_problems` found afterwards."""
        return len(self.inconsistent) + len(self.lobby_problems)


def run_races(bases: Sequence[str], db: str, rounds: int, kinds: Sequence[str] | None = None,
              prefix: str = "") -> RaceReport:
    """``rounds`` rounds of every kind in ``kinds`` (all by default) between the first two servers."""
    engine = make_engine(db)
    lobby = Lobby(bases, engine)
    report = RaceReport()
    try:
        lobby.register(prefix)
        chosen = list(kinds or KINDS)
        for _ in range(rounds):
            for name in chosen:
                problem, outcome = KINDS[name](lobby)
                report.races[name] += 1
                report.outcomes.setdefault(name, Counter())[outcome] += 1
                if problem is not None:
                    report.inconsistent.append(f"{name}: {problem}")
        report.lobby_problems = [p.detail for p in lobby_problems(engine)]
        report.server_errors = lobby.server_errors
    finally:
        lobby.close()
        engine.dispose()
    return report


__all__ = ["KINDS", "NAMES", "Lobby", "RaceReport", "Stored", "run_races"]
