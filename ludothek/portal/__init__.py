"""``ludothek.portal``: the web portal (FastAPI + Jinja2 + htmx), its JSON API and live updates.

`create_app(settings)` builds the application (tests use it directly);
`serve(db_url, host, port)` runs it with uvicorn for ``ludothek serve``.
"""

from .app import create_app, serve
from .settings import DEFAULT_DB_URL, Settings

__all__ = ["DEFAULT_DB_URL", "Settings", "create_app", "serve"]
