"""Browser-facing hardening: security headers on every response, and redirects only to our own pages.

The pages run no inline script (all JavaScript is in ``/static``), so the
Content-Security-Policy allows scripts from this origin only.  Styles may be
inline: boards position and colour their pieces with ``style`` attributes,
and htmx adds its indicator style; a style cannot run code.  Framing is
refused (clickjacking), MIME sniffing is off, and the Referer header never
leaves the site.  The OpenAPI pages ``/docs`` and ``/redoc`` are FastAPI's:
they load Swagger UI / ReDoc from their CDN with an inline start-up script,
so only they get a policy that allows that; they show no user data.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The policy of every page of ours.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'{ws}; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
#: FastAPI's API documentation pages (static HTML without user data).
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
HOST_RE = re.compile(r"^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$")


class SecurityHeaders:
    """Pure ASGI middleware (no per-request task or body copy): adds the headers to every HTTP response."""

    def __init__(self, app: ASGIApp, hsts: bool = False) -> None:
        self.app = app
        common = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]
        if hsts:  # only behind HTTPS (``LUDOTHEK_SECURE_COOKIES=1`` says so)
            common.append((b"strict-transport-security", b"max-age=31536000"))
        self.common = common
        self.docs = [(b"content-security-policy", DOCS_CSP.encode()), *common]
        self.plain = [(b"content-security-policy", CSP.format(ws="").encode()), *common]
        self._by_host: dict[str, list[tuple[bytes, bytes]]] = {}

    def _headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        path = scope.get("path", "")
        if path in DOCS_PATHS or path.startswith("/docs/"):
            return self.docs
        # 'self' covers WebSockets to this host in current browsers; naming them helps older ones.
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), "")
        cached = self._by_host.get(host)
        if cached is not None:
            return cached
        if not HOST_RE.match(host):
            return self.plain
        csp = CSP.format(ws=f" ws://{host} wss://{host}")
        headers = [(b"content-security-policy", csp.encode()), *self.common]
        if len(self._by_host) < 64:  # a deployment has a few names; a flood of made-up ones is not cached
            self._by_host[host] = headers
        return headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self._headers(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()), *(h for h in extra if h[0] not in names)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


SAFE_URL_CHARS = "/?&=%#:@!$'()*+,;~-._"


def local_path(target: Any, default: str = "/") -> str:
    """``target`` if it is a path on this site, percent-encoded; ``default`` otherwise.

    Refused: anything with a scheme or host (``https://evil``, ``//evil``), a
    backslash (browsers read ``/\\evil`` as ``//evil``), and control characters
    (browsers drop tabs and newlines, which turns ``/\\t/evil`` into ``//evil``).
    """
    if not isinstance(target, str) or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target or any(ord(ch) < 0x20 or ch == "\x7f" for ch in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    try:
        return quote(target, safe=SAFE_URL_CHARS)
    except UnicodeEncodeError:  # a lone surrogate
        return default
