"""Friends and blocks: the ``/friends`` page and the JSON API (issue 12, part 4).

The rules are the store's (`ludothek.services.community.social`): a one-way friend list
with each friend's last activity, and blocks that keep two people apart in the
lobby and in chat.  The page's forms and the API call the same store methods.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from ludothek.services.community.social import BlockInfo, FriendInfo
from ludothek.storage import StoreError, UserInfo
from ludothek.storage.models import utcnow
from ludothek.texts import t, tn

from ..contract import DEFAULT_LIMIT, Cursor, Limit, Page, paginate, refusals
from ..deps import CsrfField, User, check_csrf, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect, render

api = APIRouter(route_class=BoundedRoute, tags=["friends"])
pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)

Name = Annotated[str, Path(min_length=1, max_length=40, description="a user name (any case)")]


class FriendOut(BaseModel):
    name: str
    guest: bool = Field(description="a guest account (it lives 24 hours unless it becomes a real one)")
    since: datetime = Field(description="when I put them on my list")
    last_active: datetime | None = Field(
        description="when they last used the site while logged in, rounded down to 5 minutes; null: not yet")


class BlockOut(BaseModel):
    name: str
    since: datetime


def friend_json(f: FriendInfo) -> dict[str, Any]:
    return {"name": f.name, "guest": f.guest, "since": f.since, "last_active": f.last_active}


def block_json(b: BlockInfo) -> dict[str, Any]:
    return {"name": b.name, "since": b.since}



# ----------------------------------------------------------------------------- JSON API
def _newest_first(since: datetime, user_id: int) -> tuple[int, int]:
    """The page key of a list entry: when it was added (microseconds), then the user's id."""
    return (int(since.timestamp() * 1_000_000), user_id)


@api.get("/friends", response_model=Page[FriendOut],
         summary="My friend list (one-way), newest first, each with their last activity")
async def list_friends(request: Request, user: User, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                       ) -> dict[str, Any]:
    friends = sorted(portal_of(request).site.social.friends(user.id), key=lambda f: _newest_first(f.since, f.user_id),
                     reverse=True)
    page = paginate(friends, lambda f: _newest_first(f.since, f.user_id), limit, cursor, descending=True)
    return {"items": [friend_json(f) for f in page["items"]], "next_cursor": page["next_cursor"]}


@api.put("/friends/{name}", response_model=FriendOut, responses={**refusals(400, 409), 201: {"model": FriendOut, "description": "added"}},
         summary="Put a user on my friend list (200 if they were on it already)")
async def add_friend(name: Name, request: Request, response: Response, user: User) -> dict[str, Any]:
    entry, new = portal_of(request).site.social.befriend(user, name)
    response.status_code = 201 if new else 200
    return friend_json(entry)


@api.delete("/friends/{name}", status_code=204, summary="Take a user off my friend list")
async def remove_friend(name: Name, request: Request, user: User) -> Response:
    portal_of(request).site.social.unfriend(user, name)
    return Response(status_code=204)


@api.get("/blocks", response_model=Page[BlockOut], summary="The users I have blocked, newest first")
async def list_blocks(request: Request, user: User, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                      ) -> dict[str, Any]:
    blocks = sorted(portal_of(request).site.social.blocks(user.id), key=lambda b: _newest_first(b.since, b.user_id),
                    reverse=True)
    page = paginate(blocks, lambda b: _newest_first(b.since, b.user_id), limit, cursor, descending=True)
    return {"items": [block_json(b) for b in page["items"]], "next_cursor": page["next_cursor"]}


@api.put("/blocks/{name}", response_model=BlockOut, responses={**refusals(400, 409), 201: {"model": BlockOut, "description": "blocked"}},
         summary="Block a user: no invitations, no shared waiting games, no chat from them (200 if already)")
async def add_block(name: Name, request: Request, response: Response, user: User) -> dict[str, Any]:
    entry, new = portal_of(request).site.social.block(user, name)
    response.status_code = 201 if new else 200
    return block_json(entry)


@api.delete("/blocks/{name}", status_code=204, summary="Unblock a user")
async def remove_block(name: Name, request: Request, user: User) -> Response:
    portal_of(request).site.social.unblock(user, name)
    return Response(status_code=204)



# ----------------------------------------------------------------------------- the page
def activity_text(when: datetime | None, lang: str, now: datetime | None = None) -> str:
    """Last activity as people say it: "active now", "3 hours ago", "2 days ago", "not yet"."""
    if when is None:
        return t("active_never", lang)
    minutes = max(0, int(((now or utcnow()) - when).total_seconds() // 60))
    if minutes < 15:
        return t("active_now", lang)
    if minutes < 60:
        return tn("active_minutes", minutes - minutes % 5, lang)
    if minutes < 24 * 60:
        return tn("active_hours", minutes // 60, lang)
    return tn("active_days", minutes // (24 * 60), lang)


def friends_page(request: Request, user: UserInfo, status: int = 200, **ctx: Any) -> Response:
    site = portal_of(request).site
    lang = user.lang
    friends = [(f, activity_text(f.last_active, lang)) for f in site.social.friends(user.id)]
    return render(request, "friends.html", user, status=status, friends=friends, blocks=site.social.blocks(user.id), **ctx)


@pages.get("/friends", response_class=HTMLResponse)
def friends(request: Request) -> Response:
    return friends_page(request, need_user(request))


def profile_social(request: Request, user: UserInfo | None, other_id: int) -> dict[str, Any]:
    """What a profile page's friend and block buttons need: nothing for a visitor or one's own profile."""
    if user is None or user.id == other_id:
        return {"social": None}
    site = portal_of(request).site
    return {"social": {"friend": any(f.user_id == other_id for f in site.social.friends(user.id)),
                       "blocked": other_id in site.social.blocked_ids(user.id)}}


def _change(request: Request, csrf: str, name: str, action: str, back: str = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    site = portal_of(request).site
    name = name.strip()
    try:
        if action == "befriend":
            site.social.befriend(user, name)
        elif action == "unfriend":
            site.social.unfriend(user, name)
        elif action == "block":
            site.social.block(user, name)
        else:
            site.social.unblock(user, name)
    except StoreError as exc:
        return friends_page(request, user, status=exc.status, error=message_of(exc, user.lang), name=name)
    # From a profile page, back to it (only ever a path of this site: `redirect` sees to that).
    return redirect(request, back if back.startswith("/users/") else "/friends")


@pages.post("/friends")
def add_friend_form(request: Request, csrf: CsrfField, name: Annotated[str, Form(max_length=40)],
                    back: Annotated[str, Form(max_length=200)] = "") -> Response:
    return _change(request, csrf, name, "befriend", back)


@pages.post("/friends/remove")
def remove_friend_form(request: Request, csrf: CsrfField, name: Annotated[str, Form(max_length=40)],
                       back: Annotated[str, Form(max_length=200)] = "") -> Response:
    return _change(request, csrf, name, "unfriend", back)


@pages.post("/blocks")
def add_block_form(request: Request, csrf: CsrfField, name: Annotated[str, Form(max_length=40)],
                   back: Annotated[str, Form(max_length=200)] = "") -> Response:
    return _change(request, csrf, name, "block", back)


@pages.post("/blocks/remove")
def remove_block_form(request: Request, csrf: CsrfField, name: Annotated[str, Form(max_length=40)],
                      back: Annotated[str, Form(max_length=200)] = "") -> Response:
    return _change(request, csrf, name, "unblock", back)
