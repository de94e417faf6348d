"""Request bodies: credentials first, then the JSON, read with bounded nesting (issue 28, part 5).

FastAPI reads a route's JSON body with the standard library before any dependency runs: a body nested
a thousand levels deep raised `RecursionError` there (its bare 400 "There was an error parsing the
body"; in the hot path, a 500), and anyone could make the server parse a megabyte without an account.
Every route is a `BoundedRoute` (the routers' ``route_class``):

- a route that needs a login (its dependencies include `deps.api_user`) checks the credentials (and
  the CSRF header of a cookie) before the body is parsed, so a caller without them gets its 401 or 403
  and nothing is parsed; the dependency then finds the user already looked up (no second store call);
- the body is read by `ludothek.engine.jsonread.loads`: JSON nested deeper than
  `jsonread.MAX_DEPTH` is a 400 ``malformed`` that says so (`TooDeepBody`), never a `RecursionError`.

The hot path (`ludothek.portal.hotpath`) keeps the same order, so both answer alike.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from ludothek.engine import jsonread
from ludothek.storage import BadRequest

from .deps import api_user


class TooDeepBody(BadRequest):
    """A body nested deeper than `jsonread.MAX_DEPTH`: 400 ``malformed``, like a body that is no JSON
    (the API's list of codes is closed for its version; the message says what is wrong)."""

    code = "malformed"


def too_deep(exc: jsonread.TooDeep) -> TooDeepBody:
    """The refusal of JSON nested too deep, the same everywhere (pages show it translated)."""
    return TooDeepBody(str(exc), code_key="json_too_deep", limit=exc.limit)


class _DeepBody(HTTPException):
    """FastAPI lets an `HTTPException` raised while it reads the body through unchanged (anything
    else becomes its bare 400); `BoundedRoute` turns it into the site's own refusal."""

    def __init__(self, exc: jsonread.TooDeep) -> None:
        super().__init__(400, str(exc))
        self.cause = exc


class BoundedRequest(Request):
    """A request whose JSON body is read by `jsonread.loads`: bounded nesting, no `RecursionError`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = jsonread.loads(await self.body())
            except jsonread.TooDeep as exc:
                raise _DeepBody(exc) from None
        return self._json


def needs_login(route: APIRoute) -> bool:
    """Whether ``route`` (or a dependency of it) asks for `deps.api_user`."""
    todo = list(route.dependant.dependencies)
    while todo:
        dep = todo.pop()
        if dep.call is api_user:
            return True
        todo.extend(dep.dependencies)
    return False


class BoundedRoute(APIRoute):
    """The route class of every router: credentials before the body, and the body read bounded."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        login_first = self.body_field is not None and needs_login(self)

        async def bounded(request: Request) -> Response:
            if login_first:
                await api_user(request)  # 401/403 before the body is parsed; remembered for the dependency
            try:
                return await handler(BoundedRequest(request.scope, request.receive, request._send))
            except _DeepBody as exc:
                raise too_deep(exc.cause) from None

        return bounded
