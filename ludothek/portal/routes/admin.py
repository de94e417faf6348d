"""The admin page (``/admin``) and the admin API (``/api/admin/...``), for administrators only.

An account becomes an administrator through the command line only (``ludothek admin
make-admin NAME``, see ``docs/operations.md``).  Everything here is also a ``ludothek admin``
command: list users, block and unblock them, cancel a game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from ludothek.services.admin import UserRow
from ludothek.storage import BadRequest, Forbidden, StoreError, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.texts import t

from ..contract import DEFAULT_LIMIT, Cursor, Limit, Page, decode_cursor, encode_cursor, refusals
from ..deps import CsrfField, GameId, api_user, check_csrf, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import message_of, render

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["admin"])  # served under /api/v1 and /api (`ludothek.portal.contract.mount_api`)

UserId = Annotated[int, Form(ge=1, le=MAX_ID)]  # also a report's id


def _refuse_unless_admin(request: Request, user: UserInfo) -> UserInfo:
    """The user, if an administrator *now*: read from the database, not the 30-second user cache,
    so that taking the role away holds at once on every server process."""
    fresh = portal_of(request).site.admin.find_user(user.id)
    if not fresh.is_admin:
        raise Forbidden("only the site's administrators may do this", code_key="not_admin")
    return fresh


def admin_page(request: Request, user: UserInfo, status: int = 200, **ctx: Any) -> Response:
    site = portal_of(request).site
    search = str(request.query_params.get("q", ""))[:40]
    blocked_only = request.query_params.get("blocked") == "1"
    return render(request, "admin.html", user, status=status, users=site.admin.list_users(search, blocked_only=blocked_only),
                  counts=site.admin.admin_counts(), search=search, blocked_only=blocked_only,
                  reports=site.chat.chat_reports(), **ctx)


@pages.get("/admin", response_class=HTMLResponse)
def admin_home(request: Request) -> Response:
    return admin_page(request, _refuse_unless_admin(request, need_user(request)))


def _act(request: Request, csrf: str, act: Any) -> Response:
    check_csrf(request, csrf)
    user = _refuse_unless_admin(request, need_user(request))
    try:
        notice = act(portal_of(request).site, user)
    except StoreError as exc:
        return admin_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return admin_page(request, user, notice=notice)


@pages.post("/admin/users/block")
def block_user(request: Request, csrf: CsrfField, user_id: UserId) -> Response:
    def act(site: Any, admin: UserInfo) -> str:
        return t("admin_blocked_notice", admin.lang, name=site.admin.block_account(user_id).name)

    return _act(request, csrf, act)


@pages.post("/admin/users/unblock")
def unblock_user(request: Request, csrf: CsrfField, user_id: UserId) -> Response:
    def act(site: Any, admin: UserInfo) -> str:
        return t("admin_unblocked_notice", admin.lang, name=site.admin.unblock_account(user_id).name)

    return _act(request, csrf, act)


@pages.post("/admin/reports/resolve")
def resolve_report(request: Request, csrf: CsrfField, report_id: UserId) -> Response:
    """Mark a report of the queue (``ludothek admin reports``) as dealt with."""

    def act(site: Any, admin: UserInfo) -> str:
        site.chat.resolve_report(report_id)
        return t("admin_report_resolved", admin.lang, report=report_id)

    return _act(request, csrf, act)


@pages.post("/admin/users/block-by-name")
def block_by_name(request: Request, csrf: CsrfField, name: Annotated[str, Form(max_length=40)]) -> Response:
    """Block the author of a reported message (the queue names people, not ids)."""

    def act(site: Any, admin: UserInfo) -> str:
        return t("admin_blocked_notice", admin.lang, name=site.admin.block_account(name).name)

    return _act(request, csrf, act)


@pages.post("/admin/games/cancel")
def cancel_game(request: Request, csrf: CsrfField, game_id: Annotated[str, Form()]) -> Response:
    def act(site: Any, admin: UserInfo) -> str:
        try:
            gid = int(game_id.strip().lstrip("#"))
        except ValueError:
            raise BadRequest("a game is named by its number", code_key="bad_game_id") from None
        if not 1 <= gid <= MAX_ID:
            raise BadRequest("a game is named by its number", code_key="bad_game_id")
        status = site.admin.end_game(gid)
        return t("admin_cancelled_notice" if status == "cancelled" else "admin_abandoned_notice", admin.lang, game=gid)

    return _act(request, csrf, act)



# ----------------------------------------------------------------------------- the admin API
async def admin_user(request: Request, user: Annotated[UserInfo, Depends(api_user)]) -> UserInfo:
    return await portal_of(request).offload(_refuse_unless_admin, request, user)


Admin = Annotated[UserInfo, Depends(admin_user)]


class AdminUser(BaseModel):
    id: int
    name: str
    guest: bool
    admin: bool
    games: int = Field(description="games this user has played or plays")
    created_at: datetime | None
    blocked_at: datetime | None = Field(description="when the user was blocked; null: not blocked")


class GameEnded(BaseModel):
    game: int
    status: str = Field(description="cancelled (it was waiting for players) or abandoned (it was running)")


ERRORS = refusals(403)  # 401 is declared for every authenticated route (`contract.declare`)


def _user_out(r: UserRow) -> AdminUser:
    return AdminUser(id=r.id, name=r.name, guest=r.is_guest, admin=r.is_admin, games=r.games,
                     created_at=r.created_at, blocked_at=r.blocked_at)


@api.get("/admin/users", response_model=Page[AdminUser], responses=ERRORS, summary="Users, by id (administrators)")
def api_users(request: Request, _admin: Admin,
              search: Annotated[str, Query(max_length=40, description="names containing this")] = "",
              blocked: Annotated[bool, Query(description="only blocked users")] = False,
              limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> dict[str, Any]:
    after = min(decode_cursor(cursor)[0], MAX_ID) if cursor else 0
    rows = portal_of(request).site.admin.list_users(search, blocked_only=blocked, limit=limit + 1, after=after)
    more = len(rows) > limit
    rows = rows[:limit]
    return {"items": [_user_out(r) for r in rows],
            "next_cursor": encode_cursor([rows[-1].id]) if more and rows else None}


def _one(request: Request, user_id: int) -> AdminUser:
    rows = portal_of(request).site.admin.list_users(limit=1, after=user_id - 1)
    return _user_out(rows[0])


UserPath = Annotated[int, Path(ge=1, le=MAX_ID, description="the user's id")]


@api.post("/admin/users/{user_id}/block", response_model=AdminUser, summary="Block a user: no logins; sessions end",
          responses=refusals(403, 404, 409))
def api_block(request: Request, user_id: UserPath, _admin: Admin) -> AdminUser:
    portal_of(request).site.admin.block_account(user_id)
    return _one(request, user_id)


@api.post("/admin/users/{user_id}/unblock", response_model=AdminUser, summary="Let a blocked user log in again",
          responses=refusals(403, 404))
def api_unblock(request: Request, user_id: UserPath, _admin: Admin) -> AdminUser:
    portal_of(request).site.admin.unblock_account(user_id)
    return _one(request, user_id)


@api.post("/admin/games/{game_id}/cancel", response_model=GameEnded, summary="Cancel a waiting or running game",
          responses=refusals(403, 404, 409))
def api_cancel(request: Request, game_id: GameId, _admin: Admin) -> GameEnded:
    return GameEnded(game=game_id, status=portal_of(request).site.admin.end_game(game_id))

