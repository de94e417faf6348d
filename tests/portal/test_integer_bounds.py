"""Every integer a client sends is bounded, in the schema and in the code (issue 28, part 6).

``GET /api/games/{id}/chat?upto_seq=2**31`` answered 500 on PostgreSQL (``2**63`` on SQLite): the value
reached a comparison with an ``integer`` column.  The tests walk the OpenAPI schema: every integer
parameter and body field has a maximum, and the values just past the databases' integers (and -1)
are a 4xx on every one of them, on both databases.  The pages' forms are checked by hand (they are
not in the schema).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.storage.models import MAX_ID
from tests.portal.conftest import api_user, make_settings, page_login
from tests.portal.test_api import db_snapshot, start_game

#: Beyond int4 (PostgreSQL's integer), beyond int8 (SQLite's), beyond both, and below zero.
HUGE = (2**31, 2**63, 2**64, -1)


@pytest.fixture
def raw_client(any_db: str) -> Iterator[TestClient]:
    """A client that reports a server error as the 500 a browser would get."""
    with TestClient(create_app(make_settings(any_db)), raise_server_exceptions=False) as c:
        yield c


# ----------------------------------------------------------------------------- walking the schema
def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def integers(schema: dict[str, Any], components: dict[str, Any], where: tuple[Any, ...] = (),
             seen: frozenset[str] = frozenset()) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every integer schema inside ``schema``, with where it is: keys, ``[]`` for an item, ``{}`` for any key."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name in seen:
            return
        yield from integers(components[name], components, where, seen | {name})
        return
    if schema.get("type") == "integer":
        yield where, schema
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            yield from integers(sub, components, where, seen)
    for name, sub in schema.get("properties", {}).items():
        yield from integers(sub, components, (*where, name), seen)
    if isinstance(schema.get("items"), dict):
        yield from integers(schema["items"], components, (*where, "[]"), seen)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from integers(schema["additionalProperties"], components, (*where, "{}"), seen)


def example(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """A small value of ``schema``: its required properties with plain values (good enough to reach
    the bounds; the rest of the body may still be refused, which is fine: never a 5xx is the point)."""
    schema = _resolve(schema, components)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return example(next(s for s in schema[key] if s.get("type") != "null"), components)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: example(sub, components) for name, sub in schema.get("properties", {}).items()
                if name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    return "x" * max(1, schema.get("minLength", 1)) if kind == "string" else None


def place(body: Any, where: tuple[Any, ...], value: int) -> Any:
    """``body`` with ``value`` put at ``where`` (creating what is missing on the way)."""
    if not where:
        return value
    head, rest = where[0], where[1:]
    if head == "[]":
        return [place(None, rest, value)]
    container = dict(body) if isinstance(body, dict) else {}
    key = "x" if head == "{}" else head
    container[key] = place(container.get(key), rest, value)
    return container


def schema_integers(client: TestClient) -> list[tuple[str, str, str, tuple[Any, ...], dict[str, Any], Any]]:
    """(method, path, place, where, integer schema, example body) of every integer a client may send."""
    spec = client.app.openapi()  # type: ignore[attr-defined]
    components = spec["components"]["schemas"]
    out = []
    for path, operations in spec["paths"].items():
        if not path.startswith("/api/v1/"):
            continue  # the /api alias serves the very same handlers
        for method, op in operations.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            base = example(body["schema"], components) if body is not None else None
            for param in op.get("parameters", []):
                for where, schema in integers(param["schema"], components):
                    out.append((method.upper(), path, param["in"] + "." + param["name"], where, schema, base))
            if body is not None:
                for where, schema in integers(body["schema"], components):
                    out.append((method.upper(), path, "body", where, schema, base))
    return out


def test_every_integer_of_the_schema_is_bounded(client: TestClient) -> None:
    found = schema_integers(client)
    assert len(found) > 40
    names = {(m, p, w, *where) for m, p, w, where, _, _ in found}
    assert ("GET", "/api/v1/games/{game_id}/chat", "query.upto_seq") in names
    assert ("POST", "/api/v1/games/{game_id}/actions", "body", "seq") in names
    unbounded = [(m, p, w, where) for m, p, w, where, s, _ in found
                 if "maximum" not in s or "minimum" not in s or s["maximum"] > MAX_ID or s["minimum"] < -MAX_ID]
    assert not unbounded, unbounded


def test_integers_past_the_databases_are_refused_never_a_server_error(raw_client: TestClient) -> None:
    c = raw_client
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    before = db_snapshot(c)
    checked = 0
    for method, path, where_in, where, schema, base in schema_integers(c):
        for value in HUGE:
            name = where_in.split(".", 1)[-1]
            url = path.replace("{" + name + "}", str(value)) if where_in.startswith("path.") else path
            url = re.sub(r"\{[a-z_]+\}", "1", url.replace("{game_id}", str(gid)))
            params = {name: value} if where_in.startswith("query.") else {}
            body = place(base, where, value) if where_in == "body" else base
            r = c.request(method, url, params=params, json=body, headers=h1)
            assert r.status_code < 500, (method, url, where_in, where, value, r.status_code, r.text[:300])
            outside = not schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf)
            if outside:  # the schema refuses it (or the caller is refused before: an admin's route)
                expected = (404 if where_in.startswith("path.") else 422, 401, 403)
                assert r.status_code in expected, (method, url, where_in, where, value, r.status_code, r.text[:300])
            checked += 1
    assert checked > 160
    assert db_snapshot(c) == before  # nothing was stored


def test_chat_upto_seq_beyond_int4(raw_client: TestClient) -> None:
    """The finding itself, on both databases, through the API and the service."""
    c = raw_client
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    assert c.post(f"/api/games/{gid}/chat", json={"text": "hello"}, headers=h1).status_code == 201
    for value in HUGE:
        r = c.get(f"/api/games/{gid}/chat", params={"upto_seq": value}, headers=h1)
        assert r.status_code == 422 and r.json()["code"] == "malformed", (value, r.text)
    assert c.get(f"/api/games/{gid}/chat", params={"upto_seq": MAX_ID}, headers=h1).json()["messages"]
    site = c.app.state.portal.site  # type: ignore[attr-defined]
    alice = site.sessions.user_by_token(h1["Authorization"].split()[1])
    for value in (2**31, 2**63, 2**64):
        view = site.chat.chat(gid, alice, upto_seq=value, before=value, after=0)
        assert [m.text for m in view.messages] == ["hello"]
        assert site.chat.chat(gid, alice, after=value).messages == []


def test_the_pages_forms_refuse_huge_numbers(raw_client: TestClient) -> None:
    c = raw_client
    h = api_user(c, "alice")
    csrf = page_login(c, "bob")
    seats = [{"kind": "me"}, {"kind": "invite", "user": "bob"}]
    gid = c.post("/api/games", json={"game": "toypig", "players": 2, "seats": seats}, headers=h).json()["id"]
    assert c.post(f"/games/{gid}/join", data={"csrf": csrf}).status_code == 200
    before = db_snapshot(c)
    for value in (*HUGE, -(2**63) - 1):
        v = str(value)
        answers = {
            "act": c.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "hold", "seq": v}),
            "undo": c.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "undo", "seq": v}),
            "token": c.post("/account/tokens", data={"csrf": csrf, "label": "x", "expires_in_days": v}),
            "digest": c.post("/account/notifications", data={"csrf": csrf, "turns": "each", "digest_hour": v}),
            "players": c.post("/new", data={"csrf": csrf, "game": "toypig", "players": v}),
            "log": c.get(f"/games/{gid}/log", params={"before": v}),
            "replay step": c.get(f"/games/{gid}/replay", params={"step": v}),
            "replay go": c.get(f"/games/{gid}/replay", params={"go": v}),
            "replay seat": c.get(f"/games/{gid}/replay", params={"seat": v}),
            "leaderboard": c.get("/games/toypig/leaderboard", params={"page": v}),
            "report": c.post("/chat/1/report", data={"csrf": csrf, "game": v}),
            "import step": c.post("/replays/import", data={
                "csrf": csrf, "record": '{"game": "toypig", "players": 2, "actions": []}', "step": v}),
            "import seat": c.post("/replays/import", data={
                "csrf": csrf, "record": '{"game": "toypig", "players": 2, "actions": []}', "seat": v}),
            "import players": c.post("/replays/import", data={
                "csrf": csrf, "record": '{"game": "toypig", "players": ' + v + ', "actions": []}'}),
            "import seat of an action": c.post("/replays/import", data={
                "csrf": csrf, "record": '{"game": "toypig", "players": 2, "actions": [{"seat": ' + v + ', "action": "roll"}]}'}),
        }
        for what, r in answers.items():
            assert 400 <= r.status_code < 500, (what, value, r.status_code)
    assert db_snapshot(c) == before
