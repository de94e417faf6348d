"""Reading JSON that comes from outside: never nested deeper than `MAX_DEPTH`, never a `RecursionError`.

Python's ``json`` module reads nested arrays and objects by recursion, one call per level: a text of a
thousand ``[`` raises `RecursionError`, which no caller expects (issue 28, part 5: a move body or an
imported record nested 1,000 deep answered 500).  Nothing this site reads nests deeper than a few
levels (a record: object > ``actions`` > entry; a request body: object > ``seats`` > seat), so every
place that parses client input uses `loads`, which refuses deeper text with `TooDeep` (a `ValueError`,
like any malformed JSON, so existing ``except ValueError`` handlers keep working).

The check is cheap where it matters: a text with at most `MAX_DEPTH` opening brackets cannot nest deeper
(one count in C, for every move's body), and only texts with more get their parsed value walked.
orjson stops by itself past 1,024 levels; the standard library, used for what orjson refuses (an
escaped lone surrogate, ``NaN``), is caught at its own recursion limit.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

#: The deepest nesting accepted.  The site's own records and bodies need 4 at most; 32 leaves room for
#: any client's extra ``meta``, and stays far from Python's recursion limit (1,000) in whatever walks
#: the value afterwards (Pydantic, ``json.dumps``, the engine).
MAX_DEPTH = 32


class TooDeep(ValueError):
    """JSON nested deeper than the limit: refused before anything reads the value."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the JSON is nested more than {limit} levels deep")
        self.limit = limit


def loads(data: str | bytes | bytearray, max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON text ``data``; `TooDeep` past ``max_depth`` levels, `ValueError`
    (`json.JSONDecodeError`) for text that is no JSON.

    Reads what the standard library reads (orjson first, for speed; the standard library for what
    orjson refuses), so a caller that switches to this loses nothing it accepted before.
    """
    opening = data.count("[") + data.count("{") if isinstance(data, str) else data.count(b"[") + data.count(b"{")
    value = _parse(data, max_depth)
    if opening > max_depth and too_deep(value, max_depth):
        raise TooDeep(max_depth)
    return value


def _parse(data: str | bytes | bytearray, max_depth: int) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc):
            raise TooDeep(max_depth) from None
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep(max_depth) from None


def too_deep(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (lists and dicts, as parsed JSON) nests more than ``max_depth`` levels.

    Walks without recursion and stops at the first container past the limit.  A scalar is level 0,
    ``[]`` and ``{}`` level 1.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > max_depth:
            return True
        stack.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return False
