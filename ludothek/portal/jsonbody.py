"""JSON answers encoded by orjson: the game answers every move and refresh sends.

A move's answer and the other seat's refresh carry the seat's view and its described legal
actions, one to a few kilobytes.  Encoding them with the standard library's ``json`` took about
a tenth of a server process's CPU in the portal benchmark (``py-spy`` on one SQLite server at full
load, 27 Nov 2026); orjson does the same work in about a seventh of the time
(`docs/operations.md`, "JSON answers by orjson").

The bytes are the ones Starlette's `JSONResponse` writes for the same data (compact separators,
UTF-8 rather than ``\\u`` escapes, dictionary keys that are not strings written as strings), so
clients see no difference; `tests/portal/test_jsonbody.py` compares the two on every game's answers.

`loads` reads with `ludothek.engine.jsonread` (nesting bounded, never a `RecursionError`), as every
place that reads JSON from a client does (request bodies: `ludothek.portal.jsonroute`).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import JSONResponse

from ludothek.engine import jsonread

#: Keys such as a seat number (``{0: ...}``) become strings, as ``json.dumps`` writes them.
OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(content: Any) -> bytes:
    """``content`` as compact UTF-8 JSON.

    What orjson refuses (an integer beyond 64 bits, a type it does not know) goes to the
    standard library, which writes it or fails exactly as the answer did before.
    """
    try:
        return orjson.dumps(content, option=OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def loads(data: str | bytes) -> Any:
    """JSON read by orjson; what it refuses but the standard library reads (an escaped lone
    surrogate such as ``"\\ud800"``, ``NaN``) is read by the latter, so nothing readable is lost.
    Nested deeper than `jsonread.MAX_DEPTH`: `jsonread.TooDeep` (a `ValueError`)."""
    return jsonread.loads(data)


class JSONBody(JSONResponse):
    """`JSONResponse` with the body encoded by orjson."""

    def render(self, content: Any) -> bytes:
        return dumps(content)
