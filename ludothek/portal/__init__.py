"""``ludothek.portal``: the web portal (FastAPI + Jinja2 + htmx), its JSON API and live updates.

`create_app(settings)` builds the application (tests use it directly);
`serve(db_url, host, port)` runs it with uvicorn for ``ludothek serve``.

The names are loaded when first used: a process that needs only a part of the portal (a bot
worker: the settings and the live channel) does not import the whole web application.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app, serve
    from .settings import DEFAULT_DB_URL, Settings

__all__ = ["DEFAULT_DB_URL", "Settings", "create_app", "serve"]

_WHERE = {"create_app": ".app", "serve": ".app", "DEFAULT_DB_URL": ".settings", "Settings": ".settings"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ludothek.portal' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name], __name__), name)
