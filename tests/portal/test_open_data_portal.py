"""Open data on the site (issue 32): the page in both languages, the downloads, the JSON list, and the opt-out
on the account page and through the API."""

from __future__ import annotations

import hashlib
import html
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.devtools.gamefill import add_users, fill
from ludothek.portal import create_app
from ludothek.services.opendata.layout import PSEUDONYM_PREFIX
from ludothek.texts import t, tn
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login

AFTER = datetime(2026, 11, 2, 3, tzinfo=UTC)


@pytest.fixture
def exports_app(db_url: str, tmp_path: Path) -> Any:
    """A portal whose export folder is the test's, with October's and September's games published."""
    app = create_app(make_settings(db_url, export_dir=tmp_path / "exports", exports=False))
    site = app.state.portal.site
    users = add_users(site.engine, 8)
    fill(site.engine, 25, users, datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC), seed=3)
    fill(site.engine, 1, users, datetime(2026, 9, 20, tzinfo=UTC), datetime(2026, 9, 21, tzinfo=UTC), seed=4)
    for month in site.opendata.due_months(AFTER):
        assert site.opendata.run_month(month, tmp_path / "exports", "test", lambda: AFTER) is not None
    return app


def test_the_page_lists_each_month_with_size_count_and_checksum(exports_app: Any, tmp_path: Path) -> None:
    with TestClient(exports_app) as client:
        page = client.get("/open-data")
        assert page.status_code == 200
        text = html.unescape(page.text)
        october, september = exports_app.state.portal.site.opendata.published()
        assert october.month == "2026-10" and september.games == 1
        assert text.index("October 2026") < text.index("September 2026")  # newest first
        assert october.sha256 in text and tn("open_data_games", 25, "en") in text and "1 game" in text
        assert 'href="/open-data/2026-10.tar"' in text and "ludothek dump verify" in text
        assert f"{round(october.bytes / 1000)} kB" in text
        # The download is the very file the checksum names.
        r = client.get("/open-data/2026-10.tar")
        assert r.status_code == 200 and r.headers["content-type"] == "application/x-tar"
        assert hashlib.sha256(r.content).hexdigest() == october.sha256 == r.headers["x-checksum-sha256"]
        assert 'filename="ludothek-games-2026-10.tar"' in r.headers["content-disposition"]
        # In German.
        token = csrf_of(client)
        client.post("/lang", data={"csrf": token, "lang": "de", "next": "/open-data"})
        de = html.unescape(client.get("/open-data").text)
        assert t("open_data", "de") in de and "Oktober 2026" in de and tn("open_data_games", 25, "de") in de
        assert "Partien" in de and t("open_data_download", "de") in de


def test_nothing_unpublished_is_served(exports_app: Any, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    (folder / ".ludothek-games-2026-08.abc.partial").write_bytes(b"half")
    (folder / "ludothek-games-2026-08.000000000000.tar").write_bytes(b"not listed")
    with TestClient(exports_app) as client:
        for path in ("/open-data/2026-08.tar", "/open-data/2026-13.tar", "/open-data/latest.tar",
                     "/open-data/..%2F..%2Fetc%2Fpasswd.tar"):
            assert client.get(path).status_code == 404, path
        assert "2026-08" not in client.get("/open-data").text
        missing = client.get("/api/v1/open-data/2026-08")
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        assert "2026-08" in missing.json()["detail"]
        assert client.get("/api/v1/open-data/26-8").status_code in (404, 422)


def test_the_page_says_when_nothing_is_published_yet(client: TestClient) -> None:
    page = html.unescape(client.get("/open-data").text)
    assert t("open_data_none", "en") in page
    assert client.get("/api/v1/open-data").json() == {"items": [], "next_cursor": None}
    assert 'href="/open-data"' in client.get("/").text  # the footer links it


def test_the_api_lists_the_exports_page_by_page(exports_app: Any) -> None:
    with TestClient(exports_app) as client:
        first = client.get("/api/v1/open-data?limit=1").json()
        assert [e["month"] for e in first["items"]] == ["2026-10"] and first["next_cursor"]
        second = client.get(f"/api/v1/open-data?limit=1&cursor={first['next_cursor']}").json()
        assert [e["month"] for e in second["items"]] == ["2026-09"] and second["next_cursor"] is None
        item = first["items"][0]
        assert item["games"] == 25 and item["url"] == "/open-data/2026-10.tar"
        assert item["file"] == "ludothek-games-2026-10.tar" and len(item["sha256"]) == 64 and item["bytes"] > 0
        assert client.get("/api/v1/open-data/2026-10").json() == item
        assert hashlib.sha256(client.get(item["url"]).content).hexdigest() == item["sha256"]


def test_the_opt_out_on_the_account_page_and_through_the_api(client: TestClient) -> None:
    csrf = page_login(client, "hedda")
    page = client.get("/account").text
    assert 'id="export-prefs"' in page and "by my user name (hedda)" in page
    r = client.post("/account/open-data", data={"csrf": csrf, "pseudonym": "1"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account#export-prefs"
    page = html.unescape(client.get("/account").text)
    assert t("export_pref_saved_pseudonym", "en") in page
    assert 'name="pseudonym" value="1" checked' in page
    assert client.post("/account/open-data", data={"csrf": "forged", "pseudonym": ""}).status_code == 403
    bad = client.post("/account/open-data", data={"csrf": csrf, "pseudonym": "maybe"})
    assert bad.status_code == 400 and t("err_bad_export_pref", "en") in html.unescape(bad.text)
    assert 'name="pseudonym" value="1" checked' in client.get("/account").text  # unchanged
    auth = api_user(client, "ingo")
    assert client.get("/api/v1/me/open-data", headers=auth).json() == {"pseudonym": False, "shown_as": "ingo"}
    on = client.put("/api/v1/me/open-data", json={"pseudonym": True}, headers=auth).json()
    assert on["pseudonym"] is True and on["shown_as"].startswith(PSEUDONYM_PREFIX)
    again = client.put("/api/v1/me/open-data", json={"pseudonym": True}, headers=auth).json()
    assert again == on  # stable
    assert client.put("/api/v1/me/open-data", json={"pseudonym": "yes"}, headers=auth).status_code == 422
    assert client.get("/api/v1/me/open-data", headers=auth).json() == on  # the bad request changed nothing
    client.cookies.clear()  # hedda's session, which the API also accepts
    assert client.get("/api/v1/me/open-data").status_code == 401


def test_a_server_process_runs_the_export_job(db_url: str, tmp_path: Path) -> None:
    """With ``LUDOTHEK_EXPORTS`` on (the default outside tests), a server writes a due month by itself."""
    import time

    app = create_app(make_settings(db_url, export_dir=tmp_path / "auto", exports=True))
    site = app.state.portal.site
    fill(site.engine, 5, add_users(site.engine, 4), datetime(2025, 3, 1, tzinfo=UTC), datetime(2025, 3, 2, tzinfo=UTC))
    with TestClient(app) as client:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not client.get("/api/v1/open-data").json()["items"]:
            time.sleep(0.2)
        items = client.get("/api/v1/open-data").json()["items"]
        assert items and items[-1]["month"] == "2025-03" and items[-1]["games"] == 5
        assert client.get(items[-1]["url"]).status_code == 200
