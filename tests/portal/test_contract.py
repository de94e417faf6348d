"""The API's contract (`ludothek.portal.contract`): versions, the error model, declared refusals, pagination."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from ludothek.portal.contract import CURSOR_RE, all_codes, decode_cursor, encode_cursor, paginate
from tests.portal.conftest import api_user


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The API's operations (the operator's /healthz, /readyz and /metrics are outside the versioned API)."""
    return [(path, method, op) for path, ops in schema["paths"].items() for method, op in ops.items()
            if path.startswith("/api/")]


def test_v1_and_the_alias_are_the_same_operations(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    ops = operations(schema)
    v1 = {(p.removeprefix("/api/v1"), m) for p, m, _ in ops if p.startswith("/api/v1/")}
    alias = {(p.removeprefix("/api"), m) for p, m, op in ops if not p.startswith("/api/v1/")}
    assert v1 and v1 == alias
    for path, _method, op in ops:
        assert bool(op.get("deprecated")) == (not path.startswith("/api/v1/")), path
    h = api_user(client, "alice")
    assert client.get("/api/v1/me", headers=h).json() == client.get("/api/me", headers=h).json()


def test_every_refusal_is_declared_with_the_error_model(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert set(schema["components"]["schemas"]["ApiError"]["properties"]["code"]["enum"]) == set(all_codes())
    for path, method, op in operations(schema):
        for status, answer in op["responses"].items():
            if int(status) >= 400:
                ref = answer["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ValidationFailed" if status == "422" else "/ApiError"), (path, method, status)
        declared = set(op["responses"])
        if "{" in path:
            assert "404" in declared, (path, method)
        if "requestBody" in op:
            assert {"400", "413", "422"} <= declared, (path, method)
        if op.get("security") == [{"bearer": []}]:
            assert "401" in declared, (path, method)
            if method != "get":
                assert "403" in declared, (path, method)
        if "429" in declared:
            assert "Retry-After" in op["responses"]["429"]["headers"]


def test_every_answer_has_a_closed_model(client: TestClient) -> None:
    """Typed answers: every 2xx with a body names a model; the only open object is a game's ``view``."""
    schema = client.get("/openapi.json").json()
    for path, method, op in operations(schema):
        for status, answer in op["responses"].items():
            if status.startswith("2") and status != "204":
                body = answer.get("content", {}).get("application/json", {}).get("schema")
                assert body and body != {} and body.get("additionalProperties") is not True, (path, method, status)
    open_objects: set[str] = set()

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if node.get("additionalProperties") is True:
                open_objects.add(where)
            for key, value in node.items():
                walk(value, f"{where}.{key}" if key not in ("properties", "anyOf", "items") else where)
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    for name, model in schema["components"]["schemas"].items():
        walk(model, name)
    # A game's view is the game's own shape; a record sent in is checked by replaying it.
    assert open_objects == {"GameStateOut.view", "ReplayStepOut.view", "RecordIn.record"}, open_objects


def test_a_malformed_request_names_its_fields_and_never_echoes_them(client: TestClient) -> None:
    r = client.post("/api/v1/users", json={"name": "x" * 41, "password": 12345678})
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "malformed"
    assert {tuple(e["loc"]) for e in body["errors"]} == {("body", "name"), ("body", "password")}
    assert "12345678" not in r.text and "x" * 41 not in r.text
    r = client.post("/api/v1/users", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "malformed"


def test_a_wrong_method_names_the_allowed_ones(client: TestClient) -> None:
    r = client.request("PATCH", "/api/v1/me")
    assert r.status_code == 405
    assert r.headers["allow"] == "GET"
    assert r.json()["code"] == "http"


@pytest.mark.parametrize("prefix", ["/api/v1", "/api", ""])
def test_the_live_socket_under_every_prefix(client: TestClient, prefix: str) -> None:
    h = api_user(client, "alice")
    api_user(client, "bob")
    gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=h).json()["id"]
    token = h["Authorization"].split()[1]
    with client.websocket_connect(f"{prefix}/games/{gid}/live?token={token}") as ws:
        assert ws.receive_json()["type"] == "hello"
    me = f"{prefix}/me/live" if prefix else "/live/me"
    with client.websocket_connect(f"{me}?token={token}") as ws:
        assert ws.receive_json() == {"type": "hello"}


# ----------------------------------------------------------------------------- pagination
@given(st.lists(st.integers(0, 2**62), min_size=1, max_size=4))
def test_cursors_round_trip(key: list[int]) -> None:
    cursor = encode_cursor(key)
    assert CURSOR_RE.match(cursor)
    assert decode_cursor(cursor) == tuple(key)


@given(st.from_regex(CURSOR_RE, fullmatch=True))
def test_every_cursor_of_the_documented_form_is_a_position(cursor: str) -> None:
    assert paginate(range(10), lambda i: (i,), 3, cursor)["items"] == [i for i in range(10)
                                                                       if (i,) > decode_cursor(cursor)][:3]


def test_pages_do_not_shift_when_items_arrive() -> None:
    items = list(range(100, 0, -1))  # newest first
    first = paginate(items, lambda i: (i,), 10, None, descending=True)
    assert first["items"] == list(range(100, 90, -1))
    items = list(range(105, 0, -1))  # five new ones arrive
    second = paginate(items, lambda i: (i,), 10, first["next_cursor"], descending=True)
    assert second["items"] == list(range(90, 80, -1))
    seen = []
    cursor = None
    while True:
        page = paginate(items, lambda i: (i,), 7, cursor, descending=True)
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == items
    assert paginate([], lambda i: (i,), 5, None) == {"items": [], "next_cursor": None}
