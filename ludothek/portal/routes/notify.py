"""Being told it is my turn: e-mail address and settings, mail links, password reset, the user's live channel.

Pages (account section, link pages) and the JSON API live side by side here;
both call the same store methods.  Links from mails work without logging in:
the signed token names the user and the purpose (`ludothek.workers.mail_links`).
A refused link (expired, tampered, used, no longer fitting) gets a clear page
and changes nothing.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Form, Request, WebSocket
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek.services import Site
from ludothek.services.accounts import MIN_PASSWORD
from ludothek.services.notices.kinds import CHANNELS
from ludothek.services.notices.prefs import MAIL_MAPPED
from ludothek.services.notify import LinkRefused
from ludothek.storage import StoreError, UserInfo
from ludothek.texts import t
from ludothek.workers.mail_links import MailLinks

from .. import apimodels as m
from ..apibodies import PasswordConfirm
from ..contract import WHOLE, refusals
from ..deps import (
    CsrfField,
    User,
    admit,
    check_csrf,
    current_user,
    lang_of,
    log_out,
    need_user,
    portal_of,
    release,
    session_of,
)
from ..gameview import game_summary
from ..jsonroute import BoundedRoute
from ..live.sockets import relay
from ..render import message_of, redirect, redirect_with_notice, render
from .accounts import account_page, confirm_password_braked

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["notifications"])


def links_of(request: Any) -> MailLinks:
    links = portal_of(request).links
    assert links is not None, "create_app sets the mail links"
    return links


def wake_sender(request: Any) -> None:
    """A mail the user waits for (verification, reset): the in-process sender looks at once."""
    mail = portal_of(request).mail
    if mail is not None:
        mail.wake()


# ----------------------------------------------------------------------------- account page forms
@pages.post("/account/email")
def set_email(request: Request, csrf: CsrfField, address: Annotated[str, Form()],
              password: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        confirm_password_braked(request, user, password)  # a stolen session alone cannot move the account
        address = portal_of(request).site.notify.request_verification(user.id, address)
    except StoreError as exc:
        response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
        if exc.status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 3600))
        return response
    wake_sender(request)
    return redirect_with_notice(request, "/account", "mail_verify_sent", address=address)


@pages.post("/account/email/remove")
def remove_email(request: Request, csrf: CsrfField, password: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        confirm_password_braked(request, user, password)
    except StoreError as exc:
        response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
        if exc.status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 1))
        return response
    portal_of(request).site.notify.remove_email(user.id)
    wake_sender(request)  # the notice to the removed address
    return redirect(request, "/account")


@pages.post("/account/notifications")
def set_notifications(
    request: Request, csrf: CsrfField, turns: Annotated[str, Form()], digest_hour: Annotated[str, Form()] = "18",
    timezone: Annotated[str, Form()] = "UTC", invites: Annotated[str, Form()] = "",
    ended: Annotated[str, Form()] = "",
) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        try:
            hour: Any = int(digest_hour)
        except ValueError:
            hour = digest_hour
        portal_of(request).site.notify.set_prefs(user.id, turns=turns, digest_hour=hour, timezone=timezone.strip(),
                                           invites=bool(invites), ended=bool(ended))
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect_with_notice(request, "/account", "mail_prefs_saved")


@pages.post("/account/channels")
async def set_channels(request: Request) -> Response:
    """The choices per channel and kind (`_notice_prefs.html`): a ticked box is wanted, an unticked one of
    a channel the form showed is not."""
    form = await request.form()
    csrf = form.get("csrf")
    check_csrf(request, csrf if isinstance(csrf, str) else None)
    user = need_user(request)
    portal = portal_of(request)
    changes: dict[str, dict[str, bool]] = {}
    for channel in form.getlist("shown"):
        info = CHANNELS.get(channel) if isinstance(channel, str) else None
        if info is None or not isinstance(channel, str):
            continue
        changes[channel] = {kind: form.get(f"{channel}.{kind}") == "1" for kind in info.kinds
                            if not (channel == "mail" and kind in MAIL_MAPPED)}
    try:
        await portal.offload(portal.site.notices.set, user.id, changes)
    except StoreError as exc:
        refused = functools.partial(account_page, request, user, status=exc.status, error=message_of(exc, user.lang))
        return await portal.offload(refused)
    return redirect(request, "/account#notices")



# ----------------------------------------------------------------------------- links from mails
def link_page(request: Request, title: str, status: int = 200, **ctx: Any) -> Response:
    return render(request, "mail_link.html", current_user(request), status=status, title=title, **ctx)


def refused_link(request: Request, exc: StoreError) -> Response:
    lang = lang_of(request, current_user(request))
    return link_page(request, t("link_title", lang), status=exc.status, error=message_of(exc, lang))


@pages.get("/mail/verify/{token}", response_class=HTMLResponse)
def verify_link(request: Request, token: str) -> Response:
    site = portal_of(request).site
    try:
        data = links_of(request).check(token, "verify")
        address = site.notify.verify_email(data["u"], str(data.get("a")), data["n"])
    except StoreError as exc:
        return refused_link(request, exc)
    lang = lang_of(request, site.accounts.user(data["u"]))
    return link_page(request, t("mail_title", lang), notice=t("verify_done", lang, address=address))


def _unsub_user(request: Request, token: str) -> UserInfo:
    data = links_of(request).check(token, "unsubscribe")
    user = portal_of(request).site.accounts.user(data["u"])
    if user is None:
        raise LinkRefused("this link is for an account that no longer exists", code_key="link_stale")
    return user


@pages.get("/mail/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe_page(request: Request, token: str) -> Response:
    """A page with one button: a link scanner's GET must not unsubscribe anybody."""
    try:
        user = _unsub_user(request, token)
    except StoreError as exc:
        return refused_link(request, exc)
    lang = lang_of(request, current_user(request) or user)
    return link_page(request, t("unsub_title", lang), question=t("unsub_question", lang, name=user.name),
                     form_action=f"/mail/unsubscribe/{token}", button=t("unsub_confirm", lang))


@pages.post("/mail/unsubscribe/{token}", response_class=HTMLResponse)
def unsubscribe(request: Request, token: str) -> Response:
    """The button, and RFC 8058 one-click (``List-Unsubscribe=One-Click``): no login, no CSRF field.

    The signed token is the authority; it can only ever switch off its own user's mails.
    """
    try:
        user = _unsub_user(request, token)
    except StoreError as exc:
        return refused_link(request, exc)
    portal_of(request).site.notify.unsubscribe(user.id)
    lang = lang_of(request, current_user(request) or user)
    return link_page(request, t("unsub_title", lang), notice=t("unsub_done", lang, name=user.name))


def _undo(request: Request, token: str) -> tuple[UserInfo | None, str]:
    """Undo the address change a notice's link names; the user (for the page's language) and the address."""
    data = links_of(request).check(token, "undo")
    change = data.get("c")
    if isinstance(change, bool) or not isinstance(change, int):
        raise LinkRefused("this link is not valid (it may have been cut off or changed)", code_key="link_bad")
    site = portal_of(request).site
    address = site.notify.undo_email_change(data["u"], change)
    return site.accounts.user(data["u"]), address


@pages.get("/mail/undo/{token}", response_class=HTMLResponse)
def undo_page(request: Request, token: str) -> Response:
    """A page with one button: a link scanner's GET must not undo anything."""
    try:
        data = links_of(request).check(token, "undo")
    except StoreError as exc:
        return refused_link(request, exc)
    lang = lang_of(request, portal_of(request).site.accounts.user(data["u"]))
    return link_page(request, t("undo_title", lang), question=t("undo_question", lang),
                     form_action=f"/mail/undo/{token}", button=t("undo_confirm", lang), button_id="undo")


@pages.post("/mail/undo/{token}", response_class=HTMLResponse)
def undo(request: Request, token: str) -> Response:
    """The button (no login, no CSRF field: the signed token is the authority, and it can only ever
    give its own account's address back and end that account's logins)."""
    try:
        user, address = _undo(request, token)
    except StoreError as exc:
        return refused_link(request, exc)
    wake_sender(request)  # the reset link to the restored address
    lang = lang_of(request, user)
    return link_page(request, t("undo_title", lang), notice=t("undo_done", lang, address=address))


@pages.get("/password-reset", response_class=HTMLResponse)
def reset_form(request: Request) -> Response:
    return render(request, "password_reset.html", current_user(request), mode="ask")


@pages.post("/password-reset", response_class=HTMLResponse)
def reset_ask(request: Request, csrf: CsrfField, who: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.notify.request_reset(who)
    wake_sender(request)
    # The same answer whether or not such an account exists.
    return render(request, "password_reset.html", current_user(request), mode="asked")


@pages.get("/password-reset/{token}", response_class=HTMLResponse)
def reset_link(request: Request, token: str) -> Response:
    """The form, only for a link that can still work: a used, stale or replaced one says so at once."""
    try:
        data = links_of(request).check(token, "reset")
        portal_of(request).site.notify.check_reset_link(data["u"], data["n"], data.get("g"), data.get("a"),
                                                        data.get("r"))
    except StoreError as exc:
        return refused_link(request, exc)
    return render(request, "password_reset.html", current_user(request), mode="set", token=token)


@pages.post("/password-reset/{token}", response_class=HTMLResponse)
def reset_set(request: Request, token: str, csrf: CsrfField, password: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    site = portal_of(request).site
    try:
        data = links_of(request).check(token, "reset")
    except StoreError as exc:
        return refused_link(request, exc)
    try:
        site.notify.reset_password(data["u"], data["n"], password, data.get("g"), data.get("a"), data.get("r"))
    except LinkRefused as exc:
        return refused_link(request, exc)
    except StoreError as exc:
        lang = lang_of(request, current_user(request))
        return render(request, "password_reset.html", current_user(request), status=exc.status, mode="set",
                      token=token, error=message_of(exc, lang))
    session = session_of(request)
    if session.sid is not None:
        log_out(request)
    return render(request, "password_reset.html", None, mode="done")



# ----------------------------------------------------------------------------- JSON API
class EmailIn(BaseModel):
    address: str = Field(max_length=254, description="the new address; a confirmation link goes to it")
    password: str = Field(default="", max_length=200, description="my current password (required)")


class PrefsIn(BaseModel):
    model_config = ConfigDict(strict=True)

    turns: Literal["each", "digest", "off"] | None = Field(
        default=None, description="'each': a mail when a game becomes my turn; 'digest': one a day; 'off'")
    digest_hour: Annotated[int, Field(ge=0, le=23), WHOLE] | None = Field(
        default=None, description="the digest's hour in `timezone`")
    timezone: str | None = Field(default=None, max_length=64, description="IANA name, e.g. Europe/Berlin")
    invites: bool | None = Field(default=None, description="mail when someone invites me")
    ended: bool | None = Field(default=None, description="mail with the result when a game of mine ends")
    channels: dict[str, dict[str, bool]] | None = Field(
        default=None, description='per channel, the kinds of notice I want there, e.g. {"push": {"turn": true, '
        '"ended": false}}; only the kinds given change (the channels and their kinds: GET)')


class ResetIn(BaseModel):
    who: str = Field(max_length=254, description="user name or verified e-mail address")


class TokenIn(BaseModel):
    token: str = Field(max_length=1000, description="the token from the mail's link (the last path part)")


class ResetConfirmIn(TokenIn):
    password: str = Field(min_length=MIN_PASSWORD, max_length=200)


def notifications_json(site: Site, user_id: int) -> dict[str, Any]:
    email = site.notify.email_of(user_id)
    return {"email": {"address": email.address, "pending": email.pending}, **site.notify.prefs(user_id).to_json(),
            "channels": site.notices.table(user_id)}


@api.get("/me/notifications", response_model=m.NotificationsOut, summary="My e-mail address (only I see it) and notification settings")
def get_notifications(request: Request, user: User) -> dict[str, Any]:
    return notifications_json(portal_of(request).site, user.id)


@api.put("/me/notifications", response_model=m.NotificationsOut, summary="Change notification settings (only the fields given)")
def put_notifications(request: Request, body: PrefsIn, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    fields = body.model_dump()
    channels = fields.pop("channels")
    checked = site.notices.check(channels) if channels is not None else []  # refused before anything changes
    site.notify.set_prefs(user.id, **fields)
    site.notices.apply(user.id, checked)
    return notifications_json(site, user.id)


@api.post("/me/email", status_code=202, response_model=m.NotificationsOut, responses=refusals(409, 429),
          summary="Set my e-mail address: it counts once the link in the confirmation mail is opened (48 h). "
                  "At most 5 verification or reset mails an hour (429 beyond).")
def post_email(request: Request, body: EmailIn, user: User) -> dict[str, Any]:
    """401 without the right current password (it counts as a failed login)."""
    confirm_password_braked(request, user, body.password)
    site = portal_of(request).site
    site.notify.request_verification(user.id, body.address)
    wake_sender(request)
    return notifications_json(site, user.id)


@api.delete("/me/email", status_code=204, responses=refusals(401, 429),
            summary="Remove my e-mail address (needs my current password; the address is told, with a "
                    "link that undoes the removal)")
def delete_email(request: Request, user: User, body: Annotated[PasswordConfirm | None, Body()] = None) -> Response:
    """401 without the right current password (it counts as a failed login)."""
    confirm_password_braked(request, user, body.password if body is not None else None)
    portal_of(request).site.notify.remove_email(user.id)
    wake_sender(request)
    return Response(status_code=204)


@api.post("/mail/verify", response_model=m.VerifiedOut, responses=refusals(409), summary="Confirm an address with the token from its mail (single use, 48 h)")
def api_verify(request: Request, body: TokenIn) -> dict[str, Any]:
    data = links_of(request).check(body.token, "verify")
    portal_of(request).site.notify.verify_email(data["u"], str(data.get("a")), data["n"])
    return {"verified": True}


@api.post("/mail/undo", response_model=m.UndoOut, responses=refusals(400),
          summary="Undo an address change with the token from the notice sent to the old address (single use): "
                  "the old address comes back, every session and token ends, and a reset link goes to it")
def api_undo(request: Request, body: TokenIn) -> dict[str, Any]:
    _, address = _undo(request, body.token)
    wake_sender(request)
    return {"address": address}


@api.post("/mail/unsubscribe", response_model=m.PrefsOut, summary="Unsubscribe from every notification with a mail's token (no login)")
def api_unsubscribe(request: Request, body: TokenIn) -> dict[str, Any]:
    data = links_of(request).check(body.token, "unsubscribe")
    site = portal_of(request).site
    site.notify.unsubscribe(data["u"])
    return site.notify.prefs(data["u"]).to_json()


@api.post("/password-reset", status_code=202, response_model=m.AcceptedOut, responses=refusals(429),
          summary="Ask for a password-reset mail; the answer never says whether the account exists")
def api_reset(request: Request, body: ResetIn) -> dict[str, Any]:
    portal_of(request).site.notify.request_reset(body.who)
    wake_sender(request)
    return {"detail": "if there is an account with a confirmed address for this, a link is on its way"}


@api.post("/password-reset/confirm", status_code=204, responses=refusals(409),
          summary="Set a new password with the token from a reset mail (single use, 1 h); ends every login")
def api_reset_confirm(request: Request, body: ResetConfirmIn) -> Response:
    data = links_of(request).check(body.token, "reset")
    portal_of(request).site.notify.reset_password(data["u"], data["n"], body.password, data.get("g"), data.get("a"),
                                                  data.get("r"))
    return Response(status_code=204)


@api.get("/me/waiting", response_model=m.WaitingOut, summary="The games waiting for my move (what the tab title counts)")
def me_waiting(request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    games = []
    for game_id, _seq in site.notify.waiting_games(user.id):
        with contextlib.suppress(StoreError):
            games.append(game_summary(site.games.game(game_id), user, user.lang))
    return {"count": len(games), "games": games}



# ----------------------------------------------------------------------------- the user's live channel
async def user_socket(websocket: WebSocket) -> None:
    """``{"type": "turn", "game": id, "seq": n}`` whenever one of my games becomes my turn, and the
    open-tab channel's notices ``{"type": "notice", "id", "kind", "game", "title", "body", "path"}``.

    Admitted like the game sockets (`ludothek.portal.deps.admit`) and counted with them:
    a tab on a game page holds two.
    """
    admitted = await admit(websocket)
    if admitted is None:
        return
    portal = portal_of(websocket)
    queue = portal.hub.watch_user(admitted[0].id)
    try:
        await relay(websocket, queue, {"type": "hello"})
    finally:
        portal.hub.unwatch_user(admitted[0].id, queue)
        release(websocket, admitted)

