"""The JSON API as a contract: versions, the error model, declared statuses, bounds and pagination.

Every JSON endpoint lives on an ``APIRouter`` without a prefix; `mount_api`
includes it twice, under ``/api/v1`` (the documented version) and under
``/api`` (an alias of the current version, marked deprecated in the schema):
one handler serves both.

`declare_contract` then walks every API route and declares the refusals it
can give, from what the route takes: a route that needs a user can answer 401
(and 403 for a cookie-authenticated write without its CSRF header), a route
with a path id 404, one with a body 400 (malformed JSON), 413 and 422, one
with query parameters 422.  What only the route knows (409, 429, a 403 or 404
of its own) it declares with ``responses=refusals(...)``.  Every refusal has
one shape, `ApiError`; a 422 adds the fields at fault (`ValidationFailed`).

Lists are paginated (`Page`, `paginate`): ``limit`` and an opaque ``cursor``
from the previous page's ``next_cursor``, in an order that does not change
between requests (keyset pagination: a new item never shifts a page).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Generic, Literal, TypeVar

from annotated_types import Interval
from fastapi import APIRouter, FastAPI, Path, Query
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ludothek.storage import StoreError
from ludothek.storage.models import MAX_ID

#: The versions this server speaks; the first is the one ``/api/...`` stands for.
VERSIONS = ("v1",)
PREFIX = "/api/" + VERSIONS[0]
ALIAS = "/api"

#: Codes the exception handlers give that belong to no `StoreError` (see ``app.py``).
HANDLER_CODES: dict[int, tuple[str, ...]] = {
    400: ("malformed",),  # the body is not JSON
    404: ("not_found",),  # an id out of range, or a path that is no endpoint (``http``)
    405: ("http",),
    413: ("too_large",),  # `ludothek.portal.bodylimit`
    422: ("malformed",),  # a field of the wrong type, size or value
}

DESCRIPTIONS = {
    400: "Refused: the body is not JSON, or the request cannot be carried out as asked",
    401: "Not logged in: send `Authorization: Bearer <token>` (the token is unknown, revoked or expired)",
    403: "Forbidden: not yours to do, or a cookie-authenticated write without its `X-CSRF-Token` header",
    404: "Not found: no such resource, or an id out of range (ids are 1 to 2^31-1)",
    409: "Conflict: the resource is not in a state that allows this (see `code`)",
    413: "The request body is larger than the server accepts (1 MiB by default)",
    422: "Malformed request: a parameter or body field of the wrong type, size or value (see `errors`)",
    429: "Too many requests: wait the seconds in `Retry-After`",
}


def _store_errors() -> Iterable[type[StoreError]]:
    todo = [StoreError]
    while todo:
        cls = todo.pop()
        yield cls
        todo.extend(cls.__subclasses__())


def codes_by_status() -> dict[int, list[str]]:
    """Every ``code`` an API refusal can carry, by HTTP status (from the `StoreError` classes and handlers)."""
    found: dict[int, set[str]] = {}
    for cls in _store_errors():
        found.setdefault(cls.status, set()).add(cls.code)
    for status, codes in HANDLER_CODES.items():
        found.setdefault(status, set()).update(codes)
    return {status: sorted(codes) for status, codes in sorted(found.items())}


def all_codes() -> list[str]:
    return sorted({code for codes in codes_by_status().values() for code in codes})


def _list_codes(schema: dict[str, Any]) -> None:
    schema["properties"]["code"]["enum"] = all_codes()


class ApiError(BaseModel):
    """Every refusal of the API: a sentence for people and a stable code for programs."""

    model_config = ConfigDict(json_schema_extra=_list_codes)

    detail: str = Field(description="what went wrong, in words meant for the player (English)")
    code: str = Field(description="a stable machine-readable code; the list is closed for this API version")


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where: 'path', 'query' or 'body', then the parameter or field path")
    msg: str = Field(description="what is wrong with it")
    type: str = Field(description="pydantic's error type, e.g. 'missing', 'string_too_long', 'int_parsing'")


class ValidationFailed(BaseModel):
    """A 422: which parameters or body fields were malformed."""

    detail: str
    code: Literal["malformed"]
    errors: list[FieldError]


RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before trying again",
                               "schema": {"type": "integer", "minimum": 1}, "required": True}}


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: these statuses, each with the error model (and ``Retry-After`` for 429)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"model": ValidationFailed if status == 422 else ApiError,
                                 "description": DESCRIPTIONS.get(status, "Refused")}
        if status == 429:
            entry["headers"] = RETRY_AFTER
        out[status] = entry
    return out


#: The refusals of a change to a game's seats or standing (leave, cancel, resign, abandon).
GAME_REFUSALS = refusals(403, 409)


# ----------------------------------------------------------------------------- bounds
def _whole_number(value: Any) -> Any:
    """JSON Schema counts ``426.0`` as an integer: take it as 426 (strict models refuse other floats)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


#: Put last in ``Annotated[int, Field(ge=..., le=...), WHOLE]`` for an integer in a request body (a
#: JSON number without a fraction): the input models are strict (``"1"`` or ``true`` for a number is
#: 422), and this lets ``2.0`` through as JSON Schema allows.  (Last, so the bounds stay in the schema.)
WHOLE = BeforeValidator(_whole_number)
#: An id in a path: bounded like the database column (int4 on PostgreSQL), so an id beyond it is
#: "not found" (404, like any id nobody has) instead of a driver's overflow error.
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
#: A move number, message id or count a client sends (query, path or body; add ``Query(...)`` or
#: ``Field(...)`` for its description): bounded like the database's integers (int4 on PostgreSQL), so
#: a larger one is refused by the schema with 422 instead of overflowing a driver (issue 28, part 6:
#: ``upto_seq=2**31`` was a 500 on PostgreSQL, ``2**63`` on SQLite).  Every integer of the schema has
#: a maximum (`tests/portal/test_integer_bounds.py` walks the schema).
Whole = Annotated[int, Interval(ge=0, le=MAX_ID)]
Lang = Annotated[Literal["de", "en"] | None, Query(description="language of texts; default: the user's")]

# ----------------------------------------------------------------------------- pagination
T = TypeVar("T")

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
#: A cursor is one to four base-36 numbers joined by dots.  Clients must treat it as opaque
#: (its form may change); every string of this form is a valid position, so none is refused.
CURSOR_RE = re.compile(r"^[0-9a-z]{1,13}(\.[0-9a-z]{1,13}){0,3}$")
_KEY_MAX = 2**63 - 1

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"at most this many items (default {DEFAULT_LIMIT})")]
Cursor = Annotated[str | None, Query(
    pattern=CURSOR_RE.pattern, max_length=60,
    description="where to go on: the `next_cursor` of the previous page (opaque; omit for the first page)")]


class Page(BaseModel, Generic[T]):
    """One page of a list, in a fixed order; ``next_cursor`` is null on the last page."""

    items: list[T]
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null: this was the last")


def encode_cursor(key: Sequence[int]) -> str:
    return ".".join(_base36(k) for k in key)


def decode_cursor(cursor: str) -> tuple[int, ...]:
    """The position a cursor stands for (any cursor of the documented form is one; larger numbers are capped)."""
    return tuple(min(int(part, 36), _KEY_MAX) for part in cursor.split("."))


def _base36(n: int) -> str:
    if n < 0:
        raise ValueError("cursor keys are not negative")
    digits = ""
    while True:
        n, r = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if n == 0:
            return digits


def paginate(items: Iterable[T], key: Callable[[T], Sequence[int]], limit: int, cursor: str | None,
             descending: bool = False) -> dict[str, Any]:
    """The page after ``cursor`` of ``items``, which come sorted by ``key`` (ascending, or ``descending``).

    ``key`` gives each item a unique tuple of non-negative integers; the cursor
    is the key of the last item served, so items added or removed meanwhile
    never shift a page.  Returns ``{"items", "next_cursor"}`` (a `Page`).
    """
    after = decode_cursor(cursor) if cursor else None
    page: list[T] = []
    more = False
    for item in items:
        k = tuple(key(item))
        if after is not None and (k >= after if descending else k <= after):
            continue
        if len(page) == limit:
            more = True
            break
        page.append(item)
    return {"items": page, "next_cursor": encode_cursor(key(page[-1])) if more and page else None}


# ----------------------------------------------------------------------------- declarations
#: The dependencies that authenticate (set by ``deps.py``): required, or optional.
AUTH_REQUIRED: set[Callable[..., Any]] = set()
AUTH_OPTIONAL: set[Callable[..., Any]] = set()
BEARER = "bearer"


def _dependency_calls(route: APIRoute) -> set[Callable[..., Any]]:
    calls: set[Callable[..., Any]] = set()
    todo = list(route.dependant.dependencies)
    while todo:
        dep = todo.pop()
        if dep.call is not None:
            calls.add(dep.call)
        todo.extend(dep.dependencies)
    return calls


def _params(route: APIRoute) -> tuple[bool, bool]:
    """Whether the route takes path parameters, and query parameters (its own or its dependencies')."""
    todo = [route.dependant]
    path = query = False
    while todo:
        dep = todo.pop()
        path = path or bool(dep.path_params)
        query = query or bool(dep.query_params)
        todo.extend(dep.dependencies)
    return path, query


def declare(router: APIRouter) -> None:
    """Declare on every route of ``router`` the refusals it can give, and who may call it (see the module's doc)."""
    for route in router.routes:
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        calls = _dependency_calls(route)
        path, query = _params(route)
        unsafe = bool((route.methods or set()) - {"GET", "HEAD", "OPTIONS"})
        auto: list[int] = []
        if calls & AUTH_REQUIRED:
            auto += [401, 403] if unsafe else [401]
        if path:
            auto.append(404)
        if route.body_field is not None:
            auto += [400, 413, 422]
        if query:
            auto.append(422)
        declared = {str(s) for s in route.responses}
        for status, entry in refusals(*auto).items():
            if str(status) not in declared:
                route.responses[status] = entry
        security: list[dict[str, list[str]]] | None = None
        if calls & AUTH_REQUIRED:
            security = [{BEARER: []}]
        elif calls & AUTH_OPTIONAL:
            security = [{BEARER: []}, {}]
        if security is not None:
            route.openapi_extra = {**(route.openapi_extra or {}), "security": security}


# ----------------------------------------------------------------------------- versions
def mount_api(app: FastAPI, *routers: APIRouter, hot: Sequence[str] = ()) -> None:
    """Serve each router under ``/api/v1`` and, the same handlers, under the ``/api`` alias.

    Each router's routes are declared first (`declare`).  Routes are matched in
    order, so the paths in ``hot`` (the requests every move makes) go to the
    front, before every router's other routes.
    """
    for router in routers:
        declare(router)

    def part(routes: Iterable[Any]) -> APIRouter:
        # A new router per call: the routers themselves stay as declared (every app is mounted alike).
        out = APIRouter()
        out.routes.extend(routes)
        return out

    def is_hot(route: Any) -> bool:
        return getattr(route, "path", None) in hot

    parts = [part(r for router in routers for r in router.routes if is_hot(r)),
             *(part(r for r in router.routes if not is_hot(r)) for router in routers)]
    for router in parts:
        app.include_router(router, prefix=PREFIX)
    for router in parts:
        app.include_router(router, prefix=ALIAS, deprecated=True)
    _contract_openapi(app)


def api_paths(path: str) -> tuple[str, ...]:
    """A path of the current version (``/games/{game_id}``) under every prefix it is served at."""
    return (PREFIX + path, ALIAS + path)


def _contract_openapi(app: FastAPI) -> None:
    """The schema as FastAPI makes it, plus the bearer scheme, minus FastAPI's validation-error models."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            components = schema.setdefault("components", {})
            components.setdefault("securitySchemes", {})[BEARER] = {
                "type": "http", "scheme": "bearer",
                "description": "an API token: POST /api/v1/tokens, or the account page (a session cookie works too; "
                               "its writes need the X-CSRF-Token header)",
            }
            # FastAPI's own validation-error models are never sent: every 422 is a `ValidationFailed`,
            # and a route whose only parameters are in its path answers a malformed one with 404.
            fastapi_422 = "#/components/schemas/HTTPValidationError"
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    answer = operation.get("responses", {}).get("422", {})
                    if answer.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref") == fastapi_422:
                        del operation["responses"]["422"]
            # Each refusal says which codes it carries.
            codes = codes_by_status()
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    for status, answer in operation.get("responses", {}).items():
                        if status.isdigit() and int(status) >= 400 and int(status) in codes:
                            answer["description"] += " (code: " + ", ".join(f"`{c}`" for c in codes[int(status)]) + ")"
            schemas = components.get("schemas", {})
            for unused in ("HTTPValidationError", "ValidationError"):
                schemas.pop(unused, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
