"""The lobby's lists are read in a fixed number of queries, however many games they show (issue 12).

With 200 open games listed, reading each game on its own (two queries a game) took ~440 ms a page.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from tests.portal.conftest import FAST_HASHER


@contextmanager
def counted(site: Site) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(site.engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(site.engine, "before_cursor_execute", count)


def test_open_games_and_my_games_take_the_same_queries_for_5_or_60_games(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'lobby.sqlite3'}")
    migrate(engine)
    site = Site(engine, hasher=FAST_HASHER)
    site.lobby.lobby_per_creator = site.lobby.max_open_games = 100  # one creator's many games may all be listed here
    creators = [site.accounts.register(f"host{i}", "password-host") for i in range(12)]
    guest = site.accounts.register("visitor", "password-visitor")
    queries = []
    for total in (5, 60):
        while len(site.lobby.open_games(guest)) < total:
            creator = creators[len(site.lobby.open_games(guest)) % len(creators)]
            site.lobby.create_game(creator, "toypig", 2, {}, [{"kind": "me"}, {"kind": "open"}])
        with counted(site) as statements:
            listed = site.lobby.open_games(guest)
            mine = site.lobby.my_games(creators[0].id)
        assert len(listed) >= total and all(g.status == "open" and len(g.seats) == 2 for g in listed)
        assert mine["open"] and all(g.seat_of(creators[0].id) == 0 for g in mine["open"])
        queries.append(len(statements))
    assert queries[0] == queries[1], queries
