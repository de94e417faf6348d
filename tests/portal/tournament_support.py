"""What the tournament tests share: a site on a database, people, a Swiss tournament, games played out."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from ludothek import engine
from ludothek.services import Site
from ludothek.storage import BadRequest, UserInfo, make_engine, migrate
from ludothek.storage.models import utcnow
from tests.engine.toygame import GAME as TOY
from tests.portal.conftest import FAST_HASHER

engine.register(TOY)


def new_site(url: str) -> Site:
    eng = make_engine(url)
    migrate(eng)
    return Site(eng, hasher=FAST_HASHER)


def people(site: Site, *names: str) -> list[UserInfo]:
    return [site.accounts.register(n, "password-" + n) for n in names]


def spec(**kw: Any) -> dict[str, Any]:
    """A two-round Swiss of short Pig games for 2-player tables, starting in an hour."""
    base: dict[str, Any] = {"name": "Autumn cup", "game": "toypig", "options": {"length": "short"}, "table_size": 2,
                            "rounds": 2, "time_control": "move:3", "max_entrants": 8, "start_rule": "time",
                            "starts_at": (utcnow() + timedelta(hours=1)).isoformat()}
    base.update(kw)
    return base


def later(hours: float = 2) -> datetime:
    return utcnow() + timedelta(hours=hours)


def play_to_end(site: Site, gid: int) -> None:
    """Pig moves through the one move path until the game is over."""
    for i in range(3000):
        info = site.games.game(gid)
        if info.status != "running":
            return
        if info.to_move < 0:
            site.play.hand_on_due(later(1), limit=100)
            continue
        try:
            site.play.submit(gid, "roll" if i % 3 else "hold", info.seq, seat=info.to_move)
        except BadRequest:
            site.play.submit(gid, "roll", info.seq, seat=info.to_move)
    raise AssertionError("the game did not end")


def count(site: Site, table: Any, *where: Any) -> int:
    with site.engine.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


def round_games(site: Site, tid: int, round_no: int) -> list[int]:
    rounds = site.tournaments.pairings(tid)
    return [t["game_id"] for r in rounds if r["round"] == round_no for t in r["tables"]]
