"""A game's board on a page: its template and static files, its data files, and the helpers its partial uses."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import TemplateNotFound
from markupsafe import Markup, escape

from .gameweb import has_web_file

STATIC = resources.files("ludothek.portal") / "static"


@cache
def game_data(game_id: str, name: str) -> Any:
    """A JSON data file shipped in a game's package (component names, costs ...), for board partials."""
    if "/" in name or not name.endswith(".json"):
        raise ValueError(f"not a data file name: {name!r}")
    package = resources.files(f"ludothek.games.{game_id}")
    path = package / name if (package / name).is_file() else package / "data" / name
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def _has_static(path: str) -> bool:
    return (STATIC / path).is_file() or has_web_file(path)


def _board_template(templates: Jinja2Templates, game_id: str) -> str:
    name = f"boards/{game_id}.html"
    try:
        templates.env.get_template(name)
        return name
    except TemplateNotFound:
        return "boards/_generic.html"


def board_helpers(legal: list[str], describe: Any) -> dict[str, Any]:
    legal_set = set(legal)

    def act(action: str) -> Markup:
        if action in legal_set:
            return Markup('data-action="{}"').format(escape(action))
        return Markup("")

    return {
        "act": act,
        "is_legal": lambda a: a in legal_set,
        "legal_with": lambda prefix: [a for a in legal if a.startswith(prefix)],
        "describe": describe,
    }
