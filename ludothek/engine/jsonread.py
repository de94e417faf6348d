"""Reading JSON that comes from outside: never nested deeper than `MAX_DEPTH`, never a `RecursionError`.

Python's ``json`` module reads nested arrays and objects by recursion, one call per level: a text of a
thousand ``[`` raises `RecursionError`, which no caller expects (issue 28, part 5: a move body or an
imported record nested 1,000 deep answered 500).  Nothing this site reads nests deeper than a few
levels (a record: object > ``actions`` > entry; a request body: object > ``seats`` > seat), so every
place that parses client input uses `loads`, which refuses deeper text with `TooDeep` (a `ValueError`,
like any malformed JSON, so existing ``except ValueError`` handlers keep working).

The check comes before the parse and runs in C: a text with at most `MAX_DEPTH` opening brackets cannot
nest deeper (one count, for every move's body); a text with more (a record: one pair per entry) is
reduced to its brackets outside strings, and the innermost pairs are struck out once per level allowed
(`nests_deeper`): what is left after that is nested deeper.  A 644 KB record of 20,000 entries takes
about as long as ``json.loads`` itself (8 ms against 10 ms on the 2-core development machine).  The
parse is guarded as well: orjson stops by itself past 1,024 levels, and the standard library, used for
what orjson refuses (an escaped lone surrogate, ``NaN``), is caught at its own recursion limit.
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
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if raw.count(b"[") + raw.count(b"{") > max_depth and nests_deeper(raw, max_depth):
        raise TooDeep(max_depth)
    return _parse(data, max_depth)


#: ``{}`` read as ``[]``; everything else but brackets struck out (`bytes.translate`).
_AS_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nests_deeper(raw: bytes, max_depth: int) -> bool:
    """Whether JSON text ``raw`` nests more than ``max_depth`` levels, from its brackets outside strings.

    Escaped backslashes and quotes are struck out first, so every remaining ``"`` opens or closes a
    string and the pieces between them alternate outside and inside.  Each round of striking out
    ``[]`` removes the innermost level everywhere.  A 1 MB body nested 500,000 deep is refused in about
    2 ms (a run of opening brackets); the slowest text, shaped to need every round, in about 0.1 s.  Exact for JSON; for text that is no JSON it may
    answer either way, and the parser refuses that text anyway.
    """
    outside = b"".join(raw.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')[::2])
    skeleton = outside.translate(_AS_SQUARE, _NOT_BRACKETS)
    run = b"[" * (max_depth + 1)  # that many opened in a row: deeper at once (the usual attack)
    for round_ in range(max_depth):
        if round_ < 2 and run in skeleton:
            return True
        shorter = skeleton.replace(b"[]", b"")
        if len(shorter) == len(skeleton):  # nothing left, or brackets that do not pair: not JSON
            return False
        skeleton = shorter
    return bool(skeleton)


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

    For values at hand (tests check what the site itself writes); text is checked by `nests_deeper`.
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
