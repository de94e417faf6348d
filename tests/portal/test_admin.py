"""Administration: ``ludothek admin`` commands, the admin page and the admin API."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.cli import main
from tests.portal.conftest import api_user, csrf_of, page_login


def _cli(capsys: pytest.CaptureFixture[str], db_url: str, *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args, "--db", db_url])
    out = capsys.readouterr()
    return code, out.out, out.err


def _running_game(client: TestClient, a: dict[str, str], b: dict[str, str]) -> dict[str, Any]:
    game = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=a).json()
    assert client.post(f"/api/games/{game['id']}/join", headers=b).status_code == 200
    return dict(client.get(f"/api/games/{game['id']}", headers=a).json())


def test_admin_commands(client: TestClient, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    anna = api_user(client, "anna")
    bert = api_user(client, "bert")
    assert client.get("/api/me", headers=bert).status_code == 200

    code, out, _ = _cli(capsys, db_url, "users")
    assert code == 0 and "anna" in out and "bert" in out and "2 users" in out

    # Blocking ends every session and token at once, and no new login works.
    code, out, _ = _cli(capsys, db_url, "block", "BERT")
    assert code == 0 and "bert is blocked" in out
    assert client.get("/api/me", headers=bert).status_code == 401
    refused = client.post("/api/tokens", json={"name": "bert", "password": "password-bert"})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert "blocked" in refused.json()["detail"]
    # A wrong password still gets the usual answer: nobody learns of the block without the password.
    wrong = client.post("/api/tokens", json={"name": "bert", "password": "not-his-password"})
    assert wrong.status_code == 401
    code, out, _ = _cli(capsys, db_url, "users", "--blocked")
    assert "bert" in out and "anna" not in out and "blocked" in out

    code, out, _ = _cli(capsys, db_url, "unblock", "bert")
    assert code == 0
    assert client.post("/api/tokens", json={"name": "bert", "password": "password-bert"}).status_code == 201

    code, _, err = _cli(capsys, db_url, "block", "nobody")
    assert code == 1 and "there is no user nobody" in err

    # Cancelling: a running game ends without a result, and no move is taken any more.
    bert = {"Authorization": "Bearer " + client.post(
        "/api/tokens", json={"name": "bert", "password": "password-bert"}).json()["token"]}
    game = _running_game(client, anna, bert)
    code, out, _ = _cli(capsys, db_url, "cancel-game", str(game["id"]))
    assert code == 0 and "abandoned" in out
    mover = anna if game["my_turn"] else bert
    r = client.post(f"/api/games/{game['id']}/actions", json={"action": "roll", "seq": game["seq"]}, headers=mover)
    assert r.status_code == 409 and r.json()["code"] in ("conflict", "game_over")
    assert client.get(f"/api/games/{game['id']}", headers=anna).json()["status"] == "abandoned"
    code, _, err = _cli(capsys, db_url, "cancel-game", str(game["id"]))
    assert code == 1 and "already over" in err
    waiting = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=anna).json()
    code, out, _ = _cli(capsys, db_url, "cancel-game", str(waiting["id"]))
    assert code == 0 and "cancelled" in out

    # Administrators: made on the command line only, and never blocked.
    code, out, _ = _cli(capsys, db_url, "make-admin", "anna")
    assert code == 0 and "now an administrator" in out
    code, _, err = _cli(capsys, db_url, "block", "anna")
    assert code == 1 and "administrator cannot be blocked" in err
    code, out, _ = _cli(capsys, db_url, "make-admin", "anna", "--revoke")
    assert "no longer" in out


def test_admin_page(client: TestClient, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    bert = api_user(client, "bert")
    page_login(client, "anna")
    assert client.get("/admin").status_code == 403  # not an administrator (yet)
    assert 'id="admin-link"' not in client.get("/").text
    assert main(["admin", "make-admin", "anna", "--db", db_url]) == 0
    capsys.readouterr()
    page = client.get("/admin")  # the role is checked in the database, at once
    assert page.status_code == 200 and 'data-user="bert"' in page.text
    client.app.state.portal.site.users.entries.clear()  # the menu link shows within the user cache's 30 s
    assert 'id="admin-link"' in client.get("/").text
    bert_id = client.get("/api/me", headers=bert).json()["id"]
    token = csrf_of(client)
    assert client.post("/admin/users/block", data={"user_id": str(bert_id)}).status_code in (403, 422)  # no CSRF
    r = client.post("/admin/users/block", data={"csrf": token, "user_id": str(bert_id)})
    assert r.status_code == 200 and "bert is blocked" in r.text
    assert client.get("/api/me", headers=bert).status_code == 401
    r = client.post("/admin/users/unblock", data={"csrf": token, "user_id": str(bert_id)})
    assert "bert may log in again" in r.text
    r = client.post("/admin/games/cancel", data={"csrf": token, "game_id": "abc"})
    assert r.status_code == 400 and "named by its number" in r.text
    r = client.post("/admin/games/cancel", data={"csrf": token, "game_id": "999999"})
    assert r.status_code == 404
    # bert's token ended with the block: he logs in again.
    bert = {"Authorization": "Bearer " + client.post(
        "/api/tokens", json={"name": "bert", "password": "password-bert"}).json()["token"]}
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=bert).json()["id"]
    r = client.post("/admin/games/cancel", data={"csrf": token, "game_id": f"#{gid}"})
    assert r.status_code == 200 and f"Game {gid} is cancelled" in r.text


def test_admin_api(client: TestClient, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    anna = api_user(client, "anna")
    bert = api_user(client, "bert")
    for n in range(3):
        api_user(client, f"carl{n}")
    assert client.get("/api/admin/users").status_code == 401
    r = client.get("/api/admin/users", headers=bert)
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert main(["admin", "make-admin", "anna", "--db", db_url]) == 0
    capsys.readouterr()
    page = client.get("/api/admin/users?limit=2", headers=anna).json()
    first = page["items"]
    assert [u["name"] for u in first] == ["anna", "bert"] and first[0]["admin"] is True
    rest = client.get(f"/api/admin/users?cursor={page['next_cursor']}", headers=anna).json()
    assert [u["name"] for u in rest["items"]] == ["carl0", "carl1", "carl2"] and rest["next_cursor"] is None
    found = client.get("/api/admin/users?search=CARL1", headers=anna).json()["items"]
    assert [u["name"] for u in found] == ["carl1"]
    bert_id = first[1]["id"]
    blocked = client.post(f"/api/admin/users/{bert_id}/block", headers=anna)
    assert blocked.status_code == 200 and blocked.json()["blocked_at"] is not None
    assert client.get("/api/me", headers=bert).status_code == 401
    assert client.post(f"/api/admin/users/{bert_id}/unblock", headers=anna).json()["blocked_at"] is None
    assert client.post("/api/admin/users/99999/block", headers=anna).status_code == 404
    assert client.post(f"/api/admin/users/{2**40}/block", headers=anna).status_code == 404
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=anna).json()["id"]
    assert client.post(f"/api/admin/games/{gid}/cancel", headers=anna).json() == {"game": gid, "status": "cancelled"}
    assert client.post(f"/api/admin/games/{gid}/cancel", headers=anna).status_code == 409


def test_reports_queue_on_the_admin_page(client: TestClient, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    site = client.app.state.portal.site
    bert = api_user(client, "bert")
    carl = api_user(client, "carl")
    game = _running_game(client, bert, carl)
    b, c = site.accounts.user_by_name("bert"), site.accounts.user_by_name("carl")
    assert b is not None and c is not None
    posted = site.chat.post_chat(game["id"], b, "<script>x()</script> you lose, loser")
    report = site.chat.report_chat(posted.line.id, c, "abuse")
    page_login(client, "anna")
    assert main(["admin", "make-admin", "anna", "--db", db_url]) == 0
    capsys.readouterr()
    page = client.get("/admin").text
    assert f'data-report="{report}"' in page
    assert "&lt;script&gt;x()&lt;/script&gt; you lose, loser" in page and "<script>x()" not in page
    assert "reported by carl (Abuse" in page or "reported by carl" in page
    token = csrf_of(client)
    r = client.post("/admin/users/block-by-name", data={"csrf": token, "name": "bert"})
    assert "bert is blocked" in r.text
    assert client.get("/api/me", headers=bert).status_code == 401
    r = client.post("/admin/reports/resolve", data={"csrf": token, "report_id": str(report)})
    assert r.status_code == 200 and f"Report {report} is resolved" in r.text
    assert 'id="admin-no-reports"' in r.text
    assert client.post("/admin/reports/resolve", data={"csrf": token, "report_id": "999"}).status_code == 404
