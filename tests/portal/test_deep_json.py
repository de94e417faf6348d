"""JSON nested too deep is a 400 that says so, everywhere JSON is read, and changes nothing (issue 28, part 5).

Nested 1,000 deep, a move's body answered 500 even without credentials (the hot path parsed it before
authenticating), and so did a record pasted into ``/replays/import``; FastAPI's own routes gave a bare
"There was an error parsing the body".  Now every reader goes through `ludothek.engine.jsonread`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from ludothek.engine import jsonread
from ludothek.portal import create_app
from ludothek.portal.jsonbody import loads as body_loads
from ludothek.services.community.history import BadRecord
from tests.portal.conftest import api_user, make_settings, page_login
from tests.portal.test_api import db_snapshot, mover, start_game

DEPTHS = (jsonread.MAX_DEPTH + 1, 1_000, 100_000)
#: What fits the pages' 256 KB form limit (a bracket is three bytes URL-encoded).
PAGE_DEPTHS = (jsonread.MAX_DEPTH + 1, 1_000, 20_000)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def raw_client(any_db: str) -> Iterator[TestClient]:
    """A client that reports a server error as the 500 a browser would get."""
    with TestClient(create_app(make_settings(any_db)), raise_server_exceptions=False) as c:
        yield c


def json_operations(client: TestClient) -> list[tuple[str, str, bool]]:
    """(method, path, needs a login) of every API operation that takes a JSON body."""
    out = []
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        for method, op in operations.items():
            if "application/json" in op.get("requestBody", {}).get("content", {}):
                login = {} not in op.get("security", [{}])
                out.append((method.upper(), path, login))
    return out


def concrete(path: str, gid: int) -> str:
    return re.sub(r"\{[a-z_]+\}", "1", path.replace("{game_id}", str(gid)))


def test_every_json_body_nested_too_deep_is_refused_with_400(raw_client: TestClient) -> None:
    c = raw_client
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    me, _ = mover(c, gid, h1, h2)
    operations = json_operations(c)
    assert len(operations) > 10 and ("POST", "/api/v1/records/replay", True) in operations
    assert ("POST", "/api/v1/games/{game_id}/actions", True) in operations
    before = db_snapshot(c)
    for method, path, login in operations:
        url = concrete(path, gid)
        for depth in DEPTHS:
            for body in (nested(depth), '{"action": ' + nested(depth) + ', "seq": 0, "record": ' + nested(depth) + "}"):
                r = c.request(method, url, content=body, headers={**me, "content-type": "application/json"})
                assert r.status_code == 400, (url, depth, r.status_code, r.text[:200])
                assert r.json()["code"] == "malformed" and "nested more than 32 levels" in r.json()["detail"], r.text
                # Without credentials, a route that needs them says so before it reads the body.
                r = c.request(method, url, content=body, headers={"content-type": "application/json"})
                assert r.status_code == (401 if login else 400), (url, depth, r.status_code, r.text[:200])
    assert db_snapshot(c) == before


@pytest.mark.parametrize("hot", [True, False])
def test_a_deep_move_answers_alike_through_the_hot_path_and_fastapi(raw_client: TestClient, hot: bool) -> None:
    c = raw_client
    c.app.state.portal.settings.hot_path = hot  # type: ignore[attr-defined]
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    me, g = mover(c, gid, h1, h2)
    before = db_snapshot(c)
    for prefix in ("/api", "/api/v1"):
        url = f"{prefix}/games/{gid}/actions"
        deep = '{"action": "hold", "seq": ' + str(g["seq"]) + ', "x": ' + nested(1_000) + "}"
        r = c.post(url, content=deep, headers={**me, "content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "malformed", r.text
        for headers in ({}, {"Authorization": "Bearer ldk_nope"}):
            r = c.post(url, content=deep, headers={**headers, "content-type": "application/json"})
            assert r.status_code == 401 and r.json()["code"] == "unauthorized", r.text
        # a body FastAPI has to judge, after the hot path checked the credentials: the same answers
        r = c.post(url, content=b"{not json", headers={**me, "content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "malformed", r.text
        r = c.post(url, json={"action": "hold"}, headers=me)
        assert r.status_code == 422, r.text
    assert db_snapshot(c) == before
    r = c.post(f"/api/games/{gid}/actions", json={"action": g["legal"][0]["action"], "seq": g["seq"]}, headers=me)
    assert r.status_code == 200, r.text  # a well-formed move still goes through


def test_a_deep_record_is_refused_on_the_import_page_and_the_api(raw_client: TestClient) -> None:
    c = raw_client
    csrf = page_login(c, "carol")
    before = db_snapshot(c)
    for depth in PAGE_DEPTHS:
        for where in ("meta", "actions"):
            record = '{"game": "toypig", "players": 2, "actions": [], "' + where + '": ' + nested(depth) + "}"
            record = record.replace('"actions": [], "actions"', '"actions"')
            r = c.post("/replays/import", data={"csrf": csrf, "record": record})
            assert r.status_code == 400 and "nested more than 32 levels" in r.text, (depth, where, r.status_code)
            r = c.post("/replays/import", data={"csrf": csrf}, files={"file": ("r.json", record.encode(), "application/json")})
            assert r.status_code == 400 and "nested more than 32 levels" in r.text, (depth, where, r.status_code)
            r = c.post("/api/records/replay", content='{"record": ' + record + "}",
                       headers={"content-type": "application/json", "X-CSRF-Token": csrf})
            assert r.status_code == 400 and "nested more than 32 levels" in r.json()["detail"], r.text
    assert db_snapshot(c) == before
    # in German for a German user
    c.post("/api/users", json={"name": "dora", "password": "password-dora", "lang": "de"})
    c.cookies.clear()
    csrf = page_login(c, "dora", register=False)
    r = c.post("/replays/import", data={"csrf": csrf, "record": nested(1_000)})
    assert r.status_code == 400 and "mehr als 32 Ebenen tief verschachtelt" in r.text, r.text


def test_the_record_readers_refuse_deep_text() -> None:
    deep = '{"game": "toypig", "players": 2, "actions": [], "meta": ' + nested(5_000) + "}"
    with pytest.raises(eng.ReplayError, match="nested more than 32 levels"):
        eng.replay(deep)
    with pytest.raises(eng.ReplayError, match="nested more than 32 levels"):
        eng.replay(deep.encode())


def test_the_history_service_refuses_a_deep_record(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as c:
        site = c.app.state.portal.site  # type: ignore[attr-defined]
        with pytest.raises(BadRecord) as refused:
            site.history.imported_book('{"game": "toypig", "players": 2, "actions": ' + nested(1_000) + "}")
        assert refused.value.params["code_key"] == "json_too_deep"


# ----------------------------------------------------------------------------- the reader itself
@pytest.mark.parametrize("text", [
    '{"game": 3, "seq": 7}', "[]", "0", '"x"', "null", '{"a": [1, 2.5, {"b": [true, false, null]}]}',
    '{"text": "a\\ud800b"}', "NaN", '{"big": 18446744073709551616}', '"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["',
    nested(jsonread.MAX_DEPTH), "[" + ",".join([nested(3)] * 500) + "]",
])
def test_reads_what_the_standard_library_reads(text: str) -> None:
    expected = json.loads(text)
    for data in (text, text.encode()):
        value = jsonread.loads(data)
        assert value == expected or (value != value and expected != expected)  # NaN
        assert body_loads(data) == value or value != value


@pytest.mark.parametrize("depth", [jsonread.MAX_DEPTH + 1, 900, 1_000, 1_025, 1_000_000])
def test_deeper_than_the_limit_is_too_deep_never_a_recursion_error(depth: int) -> None:
    for text in (nested(depth), "{\"a\": " * depth + "1" + "}" * depth, '["\\ud800", ' + nested(depth) + "]"):
        with pytest.raises(jsonread.TooDeep):
            jsonread.loads(text)
        with pytest.raises(ValueError):
            jsonread.loads(text.encode())


def test_malformed_text_is_still_a_decode_error() -> None:
    for text in ("{not json", "[" * 10, "[1,", ""):
        with pytest.raises(json.JSONDecodeError):
            jsonread.loads(text)
    with pytest.raises(ValueError):  # unbalanced and deep: refused either way
        jsonread.loads("[" * 5000)


def test_too_deep_counts_levels() -> None:
    assert not jsonread.too_deep(1, 0)
    assert jsonread.too_deep([], 0) and not jsonread.too_deep([], 1)
    assert not jsonread.too_deep({"a": [{"b": []}]}, 4) and jsonread.too_deep({"a": [{"b": []}]}, 3)
    assert jsonread.too_deep([[], [[[]]]], 3) and not jsonread.too_deep([[], [[[]]]], 4)


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth == 0 or kind < 0.3:
        return rng.choice([1, -2.5, None, True, "", "[[{", '"]]}\\', "\\\\\"[", "a\\u005b", "\u2028["])
    children = [_random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    if kind < 0.65:
        return children
    return {rng.choice(["k", "[", "}", '"', "\\"]) + str(i): child for i, child in enumerate(children)}


def test_the_text_check_agrees_with_the_value() -> None:
    """`nests_deeper` reads only brackets outside strings: exact on JSON, strings with brackets,
    quotes and backslashes included."""
    rng = random.Random(28)
    for _ in range(3_000):
        value = _random_value(rng, rng.randint(0, 9))
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        for limit in range(0, 10):
            assert jsonread.nests_deeper(text.encode(), limit) == jsonread.too_deep(value, limit), (text, limit)


def test_live_sockets_ignore_what_clients_send(raw_client: TestClient) -> None:
    """A live socket reads nothing a client sends (it only notices the client leaving): deep JSON,
    huge numbers and garbage change nothing, and updates keep coming."""
    c = raw_client
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    me, g = mover(c, gid, h1, h2)
    with c.websocket_connect(f"/api/games/{gid}/live?token={me['Authorization'].split()[1]}") as ws:
        assert ws.receive_json()["type"] == "hello"
        for text in (nested(20_000), '{"type": "move", "seq": ' + str(2**64) + "}", "\x00not json"):
            ws.send_text(text)
        ws.send_bytes(b"[" * 1_000)
        r = c.post(f"/api/games/{gid}/actions", json={"action": g["legal"][0]["action"], "seq": g["seq"]}, headers=me)
        assert r.status_code == 200, r.text
        assert ws.receive_json()["type"] == "update"
