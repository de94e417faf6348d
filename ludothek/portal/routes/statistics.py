"""Statistics per game (issue 32): a page per game kind and the same figures in the JSON API.

The figures are those of the last nightly rebuild (`ludothek.services.statistics`); the page shows the
people's games by default (``?group=bots`` the games with bots), one table per kind of figure (seat
order, first purchase, purchases), raw and adjusted for the players' strength side by side, sortable
by any column through ``?sort=`` (links, no script needed).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.storage import NotFound
from ludothek.texts import t

from ..contract import refusals
from ..deps import MaybeUser, current_user, lang_of, portal_of
from ..jsonroute import BoundedRoute
from ..render import render
from ..statcharts import chart_legend, stats_chart

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["community"])

GameKind = Annotated[str, Path(pattern="^[a-z][a-z0-9_]*$", max_length=40, description="a game id, e.g. machikoro")]
Group = Literal["people", "bots"]
Sort = Literal["value", "games", "rate", "adjusted"]
FEATURES = ("seat", "opening", "bought")


def _known(kind: str) -> None:
    if kind not in eng.games():
        raise NotFound(f"unknown game {kind!r}", code_key="unknown_game", game=kind)


def _names(kind: str, row: dict[str, Any]) -> dict[str, str] | None:
    """The item's name in each language, from the game itself (`Game.item_name`); None for a seat or an item
    the game does not name (then the page shows its id)."""
    if row["feature"] == "seat":
        return None
    game = eng.load(kind)
    options = json.loads(row["options"])
    names = {lang: game.item_name(row["value"], lang, options) for lang in ("de", "en")}
    return {lang: name for lang, name in names.items() if name} or None


def _options_text(kind: str, options: dict[str, str], lang: str) -> list[str]:
    """The options as the lobby words them ("Ending: Yucata: …"), by the game's own labels."""
    game = eng.load(kind)
    out = []
    for name, value in sorted(options.items()):
        try:
            out.append(f"{eng.pick(game.option(name).label, lang)}: {game.describe_option(name, str(value), lang)}")
        except KeyError:  # an option the game no longer has: shown as stored
            out.append(f"{name} = {value}")
    return out


def _sorted(rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
    if sort == "value":
        return sorted(rows, key=lambda r: (len(r["value"]) if r["feature"] == "seat" else 0, r["label"]))
    key = "adjusted" if sort == "adjusted" else sort
    return sorted(rows, key=lambda r: (r.get(key) is None, -(r.get(key) or 0), r["value"]))


@pages.get("/games/{kind:kind}/statistics", response_class=HTMLResponse)
def statistics_page(request: Request, kind: str, group: Annotated[Group, Query()] = "people",
                    sort: Annotated[Sort, Query()] = "games") -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    if kind not in eng.games():
        return render(request, "error.html", user, status=404, message=t("err_unknown_game", lang, game=kind))
    table = portal_of(request).site.statistics.table(kind)
    by_options: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in table.figures if table else []:
        if row["group"] == group:
            names = _names(kind, row)
            label = names.get(lang, row["value"]) if names else \
                t("seat", lang, n=row["value"]) if row["feature"] == "seat" else row["value"]
            by_options.setdefault(row["options"], {f: [] for f in FEATURES})[row["feature"]].append(
                {**row, "label": label})
    titles = {"seat": t("stats_feature_seat", lang), "opening": t("stats_feature_opening", lang),
              "bought": t("stats_feature_bought", lang)}
    sections = []
    for options, tables in sorted(by_options.items()):
        ordered = {f: _sorted(rows, sort) for f, rows in tables.items()}
        sections.append({"options": _options_text(kind, json.loads(options), lang), "tables": ordered,
                         "charts": {f: stats_chart(rows, titles[f], lang) for f, rows in ordered.items()}})
    groups = [("people", t("stats_group_people", lang)), ("bots", t("stats_group_bots", lang))]
    columns = [("value", t("stats_col_value", lang)), ("games", t("stats_col_games", lang)),
               ("rate", t("stats_col_rate", lang)), ("adjusted", t("stats_col_adjusted", lang))]
    return render(request, "statistics.html", user, game=eng.load(kind), table=table, sections=sections,
                  group=group, sort=sort, features=FEATURES, groups=groups, titles=titles, columns=columns,
                  legend=chart_legend(lang) if sections else None)


class FigureOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    options: str = Field(description="the games' options, as JSON")
    group: Group = Field(description="'people': games of people only; 'bots': games with a bot seat")
    feature: Literal["seat", "bought", "opening"] = Field(description="seat order, a purchase, or the first purchase")
    value: str = Field(description="the seat (1 = first) or the item bought (its id)")
    names: dict[str, str] | None = Field(
        default=None, description="the item's name by language ('de', 'en'), as the game names it; null for a seat")
    games: int = Field(description="how many seats had it")
    wins: int = Field(description="how many of them won (rank 1; ties count for each)")
    rate: float
    low: float = Field(description="the 95 % Wilson interval of the raw rate")
    high: float
    adjusted: float | None = Field(description="the win rate adjusted for the players' strength (null for bot games)")
    adjusted_low: float | None
    adjusted_high: float | None


class StatisticsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str
    built_at: str | None = Field(description="when the figures were rebuilt (nightly); null: not yet")
    games: int = Field(description="finished games counted")
    items: list[FigureOut]


@api.get("/games/{kind}/statistics", response_model=StatisticsOut, responses=refusals(404),
         summary="A game's win rates by seat order, purchase and first purchase, raw and strength-adjusted")
def statistics(kind: GameKind, request: Request, user: MaybeUser, group: Group | None = None,
               feature: Literal["seat", "bought", "opening"] | None = None) -> dict[str, Any]:
    _known(kind)
    table = portal_of(request).site.statistics.table(kind)
    if table is None:
        return {"game": kind, "built_at": None, "games": 0, "items": []}
    items = [{**{k: v for k, v in f.items() if k != "kind"}, "names": _names(kind, f)} for f in table.figures
             if (group is None or f["group"] == group) and (feature is None or f["feature"] == feature)]
    return {"game": kind, "built_at": table.built_at.isoformat(), "games": table.games, "items": items}
