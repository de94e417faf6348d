"""Open data (issue 32): the page listing the monthly exports, their downloads, the JSON list, and the
opt-out (the account page's section ``_export_prefs.html`` and ``/api/v1/me/open-data``).

The files are written by the export job (`ludothek.workers.exports`) into ``LUDOTHEK_EXPORT_DIR``;
only months the database lists as published are served, under the name the database gives, so a
file still being written (or left behind by a writer that died) is never reachable from here.
"""

from __future__ import annotations

from typing import Annotated, Any

from babel.dates import format_date
from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek.services.opendata import ExportInfo
from ludothek.services.opendata.layout import MONTH_RE, month_start
from ludothek.storage import BadRequest, NotFound, UserInfo

from ..contract import Cursor, Limit, Page, paginate, refusals
from ..deps import CsrfField, MaybeUser, User, check_csrf, current_user, lang_of, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import redirect_with_notice, render

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["open data"])

MonthPath = Annotated[str, Path(pattern=MONTH_RE.pattern, description="the month, YYYY-MM")]


def month_title(month: str, lang: str) -> str:
    """``November 2026`` / ``November 2026`` in the reader's language."""
    return str(format_date(month_start(month).date(), "LLLL y", locale=lang))


def size_text(size: int, lang: str) -> str:
    """A file size as people read it: kB below a megabyte, else MB (one decimal)."""
    from babel.numbers import format_decimal

    if size < 1_000_000:
        return f"{format_decimal(max(1, round(size / 1000)), locale=lang)} kB"
    return f"{format_decimal(round(size / 1_000_000, 1), format='0.0', locale=lang)} MB"


def download_url(month: str) -> str:
    return f"/open-data/{month}.tar"


def _published(request: Request, month: str) -> ExportInfo:
    info = portal_of(request).site.opendata.export(month)
    if info is None:
        raise NotFound(f"there is no published export of {month}", code_key="no_export", month=month)
    return info


# ----------------------------------------------------------------------------- pages
@pages.get("/open-data", response_class=HTMLResponse)
def open_data_page(request: Request) -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    exports = [{"info": e, "title": month_title(e.month, lang), "size": size_text(e.bytes, lang),
                "url": download_url(e.month)} for e in portal_of(request).site.opendata.published()]
    return render(request, "open_data.html", user, exports=exports)


@pages.get("/open-data/{month}.tar")
def download(request: Request, month: MonthPath) -> Response:
    """A published month's archive (the SHA-256 the page shows is this file's)."""
    info = _published(request, month)
    path = portal_of(request).settings.export_dir / info.file
    if not path.is_file():
        raise NotFound(f"the export of {month} is listed but its file is missing", code_key="no_export", month=month)
    return FileResponse(path, media_type="application/x-tar", filename=info.download_name,
                        headers={"Cache-Control": "public, max-age=86400", "X-Checksum-SHA256": info.sha256})


@pages.post("/account/open-data")
def set_pref(request: Request, csrf: CsrfField, pseudonym: Annotated[str, Form()] = "") -> Response:
    """The account page's choice: my name in the exports, or my pseudonym."""
    check_csrf(request, csrf)
    user = need_user(request)
    if pseudonym not in ("", "1"):
        raise BadRequest("choose your user name or your pseudonym", code_key="bad_export_pref")
    on = pseudonym == "1"
    portal_of(request).site.opendata.set_pseudonymous(user.id, on)
    return redirect_with_notice(request, "/account#export-prefs", "export_pref_saved_pseudonym" if on
                                else "export_pref_saved_name")


def export_section(request: Request, user: UserInfo) -> dict[str, Any]:
    """What ``_export_prefs.html`` shows on the account page."""
    opendata = portal_of(request).site.opendata
    return {"export_pseudonymous": opendata.pseudonymous(user.id), "export_pseudonym": opendata.pseudonym_of(user.id)}


# ----------------------------------------------------------------------------- JSON API
class ExportOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    month: str = Field(description="the month whose finished, rated games it holds (YYYY-MM, UTC)")
    games: int = Field(description="how many games")
    bytes: int = Field(description="the archive's size")
    sha256: str = Field(description="the SHA-256 of the archive (hex)")
    file: str = Field(description="the archive's file name")
    url: str = Field(description="where to download it (a path on this site; no login needed)")
    published_at: str = Field(description="when it was written (ISO 8601)")


class ExportPrefOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pseudonym: bool = Field(description="true: the exports name me by my pseudonym instead of my name")
    shown_as: str = Field(description="the name the exports from now on give me")


class ExportPrefIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    pseudonym: bool = Field(description="true: a stable pseudonym instead of my name in future exports")


def export_json(info: ExportInfo) -> dict[str, Any]:
    return {**info.to_json(), "url": download_url(info.month)}


def _month_key(info: ExportInfo) -> tuple[int]:
    start = month_start(info.month)
    return (start.year * 12 + start.month,)


@api.get("/open-data", response_model=Page[ExportOut],
         summary="The published monthly exports of finished, rated games, newest first (docs/open_data.md)")
def list_exports(request: Request, user: MaybeUser, limit: Limit = 50, cursor: Cursor = None) -> dict[str, Any]:
    exports = portal_of(request).site.opendata.published()
    page = paginate(exports, _month_key, limit, cursor, descending=True)
    return {"items": [export_json(e) for e in page["items"]], "next_cursor": page["next_cursor"]}


@api.get("/open-data/{month}", response_model=ExportOut, responses=refusals(404),
         summary="One month's export: its size, number of games, checksum and download path")
def one_export(request: Request, month: MonthPath, user: MaybeUser) -> dict[str, Any]:
    return export_json(_published(request, month))


def _pref_json(request: Request, user: UserInfo) -> dict[str, Any]:
    opendata = portal_of(request).site.opendata
    on = opendata.pseudonymous(user.id)
    return {"pseudonym": on, "shown_as": opendata.pseudonym_of(user.id) if on else user.name}


@api.get("/me/open-data", response_model=ExportPrefOut, summary="Whether the exports name me or give my pseudonym")
def get_pref(request: Request, user: User) -> dict[str, Any]:
    return _pref_json(request, user)


@api.put("/me/open-data", response_model=ExportPrefOut,
         summary="Choose my name or a stable pseudonym in future exports")
def put_pref(request: Request, body: ExportPrefIn, user: User) -> dict[str, Any]:
    portal_of(request).site.opendata.set_pseudonymous(user.id, body.pseudonym)
    return _pref_json(request, user)
