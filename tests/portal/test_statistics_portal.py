"""Statistics (issue 32): the nightly rebuild (once a day, by one worker), the page per game in both
languages (sortable, people's and bot games apart) and the JSON API."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.devtools.gamefill import add_users, fill
from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.texts import t
from ludothek.workers.statistics import StatisticsJob
from tests.portal.conftest import csrf_of, make_settings


@pytest.fixture
def stats_app(db_url: str) -> Any:
    app = create_app(make_settings(db_url))
    site = app.state.portal.site
    fill(site.engine, 60, add_users(site.engine, 10), datetime(2026, 10, 1, tzinfo=UTC),
         datetime(2026, 11, 1, tzinfo=UTC), seed=6, kinds=("machikoro",))
    return app


def test_the_rebuild_runs_once_a_night_by_one_worker(stats_app: Any, db_url: str) -> None:
    site = stats_app.state.portal.site
    one, two = StatisticsJob(site, owner="one"), StatisticsJob(Site(make_engine(db_url)), owner="two")
    assert one.run_once(datetime(2026, 11, 5, 2, 0, tzinfo=UTC)) == 0  # before 03:00
    assert site.statistics.table("machikoro") is None
    one._next_look = None
    assert one.run_once(datetime(2026, 11, 5, 3, 10, tzinfo=UTC)) == 1
    assert two.run_once(datetime(2026, 11, 5, 3, 11, tzinfo=UTC)) == 0  # the night's rebuild is done
    table = site.statistics.table("machikoro")
    assert table is not None and table.games == 60
    assert [f for f in table.figures if f["feature"] == "seat" and f["group"] == "people"]
    two._next_look = None
    assert two.run_once(datetime(2026, 11, 6, 3, 5, tzinfo=UTC)) == 1  # the next night, whoever comes first


def test_the_page_and_the_api(stats_app: Any) -> None:
    site = stats_app.state.portal.site
    with TestClient(stats_app) as client:
        empty = html.unescape(client.get("/games/machikoro/statistics").text)
        assert t("stats_none", "en") in empty
        assert client.get("/api/v1/games/machikoro/statistics").json()["items"] == []
        site.statistics.rebuild(datetime(2026, 11, 5, 3, tzinfo=UTC))
        page = html.unescape(client.get("/games/machikoro/statistics").text)
        assert "From 60 finished games" in page and t("stats_feature_seat", "en") in page
        assert t("stats_feature_opening", "en") in page and "class=\"item\"" in page
        # Items by the names the game gives them (its cards), never the ids.
        assert '<span class="item">Wheat Field</span>' in page
        assert '<span class="item">wheat_field</span>' not in page
        # One chart per table: a circle (raw) per row, a square (adjusted) per row that has an adjusted rate.
        charts = re.findall(r'<svg class="stats-chart".*?</svg>', page, re.S)
        tables = re.findall(r'<table class="stats".*?</table>', page, re.S)
        assert charts and len(charts) == len(tables) and 'id="stats-legend"' in page
        for chart, tab in zip(charts, tables, strict=True):
            rows = tab.count("<tr>") - 1
            assert 'role="img"' in chart and chart.count('<circle class="raw"') == rows
            assert chart.count('<rect class="adjusted"') == rows - tab.count("<td>–</td>")
        by_rate = client.get("/games/machikoro/statistics?sort=rate").text
        assert 'aria-sort="descending"' in by_rate
        bots = html.unescape(client.get("/games/machikoro/statistics?group=bots").text)
        assert 'aria-current="page">Games with bots' in bots
        assert client.get("/games/machikoro/statistics?sort=nonsense").status_code in (400, 422)
        assert client.get("/games/nosuchgame/statistics").status_code == 404
        api = client.get("/api/v1/games/machikoro/statistics?group=people&feature=seat").json()
        assert api["games"] == 60 and api["built_at"].startswith("2026-11-05")
        assert {i["value"] for i in api["items"]} <= {"1", "2", "3", "4"} and api["items"]
        for item in api["items"]:
            assert item["group"] == "people" and item["feature"] == "seat"
            assert 0 <= item["low"] <= item["rate"] <= item["high"] <= 1
            assert item["adjusted"] is not None and 0 <= item["adjusted"] <= 1  # people's games have ratings
        bought = client.get("/api/v1/games/machikoro/statistics?group=people&feature=bought").json()["items"]
        wheat = next(i for i in bought if i["value"] == "wheat_field")
        assert wheat["names"] == {"de": "Weizenfeld", "en": "Wheat Field"}
        assert all(i["names"] and set(i["names"]) == {"de", "en"} for i in bought)
        assert all(i["names"] is None for i in api["items"])  # seats have no item name
        missing = client.get("/api/v1/games/nosuchgame/statistics")
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        token = csrf_of(client)
        client.post("/lang", data={"csrf": token, "lang": "de", "next": "/"})
        de = html.unescape(client.get("/games/machikoro/statistics").text)
        assert "Aus 60 beendeten Partien" in de and t("stats_feature_seat", "de") in de
        assert "Diagramm " + t("stats_feature_seat", "de") in de
        assert '<span class="item">Weizenfeld</span>' in de and '<span class="item">Wheat Field</span>' not in de
        assert 'href="/games/machikoro/statistics"' in client.get("/games/machikoro/leaderboard").text


def test_the_rebuild_reads_the_same_purchases_as_the_whole_records(db_url: str) -> None:
    """The rebuild reads only purchases and undo entries (whole games where there is an undo): the same
    purchases as every entry read and replayed in order."""
    from sqlalchemy import select

    from ludothek.services.statistics import purchases
    from ludothek.storage.models import ActionRow, GameRow

    engine = make_engine(db_url)
    migrate(engine)
    site = Site(engine)
    fill(engine, 80, add_users(engine, 6), datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC),
         seed=12)
    facts = list(site.statistics.facts())
    with engine.begin() as conn:
        games = conn.execute(select(GameRow.id, GameRow.game, GameRow.num_players).order_by(GameRow.id)).all()
        rows = conn.execute(select(ActionRow.game_id, ActionRow.seat, ActionRow.action)
                            .order_by(ActionRow.game_id, ActionRow.seq)).all()
    with_undo = {r.game_id for r in rows if r.action == "undo"}
    assert with_undo and len(with_undo) < len(games)  # both kinds are checked
    assert len(facts) == len(games)
    for fact, game in zip(facts, games, strict=True):
        actions = [{"seat": "chance" if r.seat < 0 else r.seat, "action": r.action} for r in rows
                   if r.game_id == game.id]
        whole = purchases(game.game, actions, game.num_players)
        assert [set(b) for b in whole] == [set(s.bought) for s in fact.seats], game.id
        assert [b[0] if b else None for b in whole] == [s.opening for s in fact.seats], game.id
