"""Help at hand: a page per game kind (``/games/<kind>``) and its rules (``/games/<kind>/rules``).

The portal knows no game's rules.  Each game package brings its own box facts
(`Game.about`) and Markdown rules (`Game.rules_markdown`); this module only
renders them.  Game kinds are addressed by their string id; the ``kind`` path
converter matches only ids that start with a letter, so ``/games/123`` stays the
page of a played game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.convertors import Convertor, register_url_convertor
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.texts import LANGS, t, tn
from ludothek.texts import pick as pick_text

from ..deps import current_user, lang_of, portal_of
from ..gameview import game_summary
from ..jsonroute import BoundedRoute
from ..render import render

#: A line of its own that separates a section's short version from its long version.
SHORT_LONG_SEPARATOR = "+++"
RULE_MODES = ("short", "long", "both")
BGG_URL = "https://boardgamegeek.com/boardgame/{id}"


class GameKindConvertor(Convertor[str]):
    """A game kind such as ``machikoro``: lower-case, starting with a letter (never a numeric game id)."""

    regex = "[a-z][a-z0-9_]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("kind", GameKindConvertor())

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)


@dataclass(frozen=True)
class RulesSection:
    """One ``## `` section of a rules page: its title, and the short and long version as HTML."""

    anchor: str
    title: str
    short: Markup
    long: Markup


@dataclass(frozen=True)
class RulesPage:
    title: str
    intro: Markup
    sections: tuple[RulesSection, ...]

    def shown(self, mode: str) -> tuple[RulesSection, ...]:
        """The sections a mode shows: the short rules leave out the sections without a short version
        (unless no section has one: then the short rules are the whole text)."""
        if mode != "short" or not any(s.short for s in self.sections):
            return self.sections
        return tuple(s for s in self.sections if s.short)


@cache
def _markdown() -> MarkdownIt:
    # "commonmark" with tables; raw HTML stays off, so a rules file cannot inject markup.
    return MarkdownIt("commonmark", {"html": False, "typographer": True}).enable("table")


#: Tables with more columns than this are stacked on a phone: each row becomes a small card whose
#: cells carry their column's name (``data-label``), so nothing scrolls sideways.
STACK_ABOVE_COLUMNS = 2


def render_markdown(text: str) -> Markup:
    """HTML of a rules text.

    Tables with more than `STACK_ABOVE_COLUMNS` columns get the class ``rows-as-cards`` and every cell the
    name of its column (``data-label``): on a phone the stylesheet shows each row as a block of
    "column: value" lines instead of a table that would scroll sideways.  Pictures load lazily.
    """
    md = _markdown()
    tokens = md.parse(text)
    headers: list[str] = []
    column = 0
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            headers = []
            end = next(i for i in range(index, len(tokens)) if tokens[i].type == "thead_close")
            headers = [tokens[i + 1].content.replace("*", "") for i in range(index, end) if tokens[i].type == "th_open"]
            if len(headers) > STACK_ABOVE_COLUMNS:
                token.attrSet("class", "rows-as-cards")
        elif token.type == "tr_open":
            column = 0
        elif token.type == "td_open":
            if column < len(headers) and headers[column]:
                token.attrSet("data-label", headers[column])
            column += 1
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "image":
                    child.attrSet("loading", "lazy")
    return Markup(md.renderer.render(tokens, md.options, {}))  # safe: markdown-it escapes raw HTML (html=False)


def parse_rules(markdown: str) -> RulesPage:
    """Split a rules file into its ``# `` title, intro and ``## `` sections (short ``+++`` long).

    A section that starts with ``+++`` has no short version: the short rules leave it out (a newcomer
    needs the goal, a turn and the scoring, not every ruling)."""
    title, intro_lines = "", []
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("# ") and not title and not sections:
            title = line[2:].strip()
        elif not in_fence and line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            intro_lines.append(line)
    parsed = []
    for index, (heading, lines) in enumerate(sections, start=1):
        body = "\n".join(lines)
        short, sep, long = f"\n{body}".partition(f"\n{SHORT_LONG_SEPARATOR}\n")
        if not sep:
            short, long = "", body
        parsed.append(RulesSection(f"s{index}", heading, render_markdown(short.strip()),
                                   render_markdown(long.strip())))
    return RulesPage(title, render_markdown("\n".join(intro_lines).strip()), tuple(parsed))


@cache
def rules_page(kind: str, lang: str) -> RulesPage | None:
    """The parsed rules of ``kind`` in ``lang`` (English if the game has none in ``lang``)."""
    game = eng.load(kind)
    text = game.rules_markdown(lang) or game.rules_markdown("en")
    return parse_rules(text) if text else None


def _game_or_none(kind: str) -> eng.Game | None:
    try:
        return eng.load(kind) if kind in eng.games() else None
    except KeyError:
        return None


def _page_lang(request: Request, lang: str | None) -> str:
    return lang if lang in LANGS else lang_of(request, current_user(request))


def _render(request: Request, template: str, lang: str, status: int = 200, **ctx: Any) -> Response:
    return render(request, template, current_user(request), status=status, lang=lang,
                  tr=lambda key, **kw: t(key, lang, **kw),
                  trn=lambda key, n, **kw: tn(key, n, lang, **kw), pick=lambda texts: pick_text(texts, lang), **ctx)


def _unknown(request: Request, kind: str, lang: str) -> Response:
    return _render(request, "error.html", lang, status=404, message=t("err_unknown_game", lang, game=kind))


LangParam = Annotated[Literal["de", "en"] | None, Query(alias="lang", description="page language")]



@pages.get("/games", response_class=HTMLResponse)
def game_index(request: Request, query_lang: LangParam = None) -> Response:
    """Every game kind with links to its page and rules."""
    lang = _page_lang(request, query_lang)
    games = [eng.load(g) for g in eng.games()]
    return _render(request, "games_index.html", lang, games=games)


@pages.get("/rules", response_class=HTMLResponse)
def rules_index(request: Request, query_lang: LangParam = None) -> Response:
    return game_index(request, query_lang)


@pages.get("/games/{kind:kind}", response_class=HTMLResponse)
def game_kind_page(request: Request, kind: str, query_lang: LangParam = None) -> Response:
    """Box facts, links (rules, BoardGameGeek), recent games and a "new game" button."""
    lang = _page_lang(request, query_lang)
    game = _game_or_none(kind)
    if game is None:
        return _unknown(request, kind, lang)
    about = game.about()
    user = current_user(request)
    site = portal_of(request).site
    recent = [game_summary(g, user, lang) for g in site.lobby.recent_games(kind, 10)]
    finished = [game_summary(g, user, lang) for g in site.profiles.finished_games_of_kind(kind, 10)]
    bgg = BGG_URL.format(id=about["bgg"]) if about.get("bgg") else None
    return _render(request, "game_kind.html", lang, game=game, about=about, recent=recent, finished=finished, bgg=bgg,
                   kind_tournaments=site.tournaments.listing(("open",), limit=10, game=kind),  # issue 31
                   has_rules=game.rules_markdown(lang) is not None or game.rules_markdown("en") is not None)


@pages.get("/games/{kind:kind}/rules", response_class=HTMLResponse)
def game_rules_page(request: Request, kind: str, query_lang: LangParam = None,
                    mode: Annotated[Literal["short", "long", "both"], Query()] = "both") -> Response:
    """The rules with Yucata's switch: the short version, the long version, or both side by side."""
    lang = _page_lang(request, query_lang)
    game = _game_or_none(kind)
    page = rules_page(kind, lang) if game is not None else None
    if game is None or page is None:
        return _unknown(request, kind, lang)
    return _render(request, "rules.html", lang, game=game, page=page, mode=mode, modes=RULE_MODES)
