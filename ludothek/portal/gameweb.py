"""A game's own web parts, served by the portal through the registry (``games/<g>/web/``).

A game keeps its board template, JavaScript and CSS in the ``web/`` folder of
its package, each file named after the game: ``<id>.html`` (the board),
``<id>_help.html`` (optional help under the board), ``_<id>_<part>.html``
(partials it includes), ``<id>.js``, ``<id>.css``.  The portal knows such a
file by the name boards had when they lived in the portal: the template
``boards/<file>`` and the URL ``/static/boards/<file>``.  No list of games
here: the registry says which games exist and where their package is.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import BaseLoader, ChoiceLoader, Environment, TemplateNotFound

from ludothek.engine import registry

#: The template folder and URL folder (under ``/static/``) in which the portal shows the games' web files.
BOARDS = "boards/"
#: Web files that are templates: rendered into pages, never served as they are.
TEMPLATE_SUFFIX = ".html"


def web_file(filename: str) -> Path | None:
    """The file ``filename`` in the ``web/`` folder of the registered game it is named after, or None.

    Only a plain file name is looked up (no folder, no ``..``), so nothing outside a game's
    ``web/`` folder can be reached.
    """
    if not filename or os.path.basename(filename) != filename or filename.startswith("."):
        return None
    for game_id in registry.games():
        if not filename.startswith((f"{game_id}.", f"{game_id}_", f"_{game_id}_")):
            continue
        folder = registry.web_dir(game_id)
        if folder is not None and (folder / filename).is_file():
            return folder / filename
    return None


class GameWebLoader(BaseLoader):
    """Jinja loader of the templates ``boards/<file>`` kept in the games' ``web/`` folders."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        path = web_file(template[len(BOARDS):]) if template.startswith(BOARDS) else None
        if path is None:
            raise TemplateNotFound(template)
        mtime = path.stat().st_mtime

        def uptodate() -> bool:
            try:
                return path.stat().st_mtime == mtime
            except OSError:
                return False

        return path.read_text(encoding="utf-8"), str(path), uptodate


def add_game_templates(templates: Jinja2Templates) -> None:
    """Let ``templates`` find the games' board templates after the portal's own."""
    own = templates.env.loader
    templates.env.loader = GameWebLoader() if own is None else ChoiceLoader([own, GameWebLoader()])


class StaticWithGames(StaticFiles):
    """The portal's ``/static`` files, where ``boards/<file>`` comes from the game's ``web/`` folder.

    Templates (``.html``) are not served.  Everything else (headers, conditional requests,
    refusing paths outside the folder) is `StaticFiles`' own, so the URLs and answers are those of the files' old place.
    """

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        head, sep, filename = path.partition(os.sep)
        if sep and head + "/" == BOARDS and not filename.endswith(TEMPLATE_SUFFIX):
            found = web_file(filename)
            if found is not None:
                return str(found), os.stat(found)
        return super().lookup_path(path)


def has_web_file(path: str) -> bool:
    """Whether ``path`` (``boards/<file>``, relative to ``/static/``) is a game's web file served as it is."""
    return (path.startswith(BOARDS) and not path.endswith(TEMPLATE_SUFFIX)
            and web_file(path[len(BOARDS):]) is not None)
