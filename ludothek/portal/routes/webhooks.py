"""A player's webhooks: the account page's section and the JSON API (``/api/v1/me/webhooks``).

Both call `ludothek.services.webhooks.Webhooks`; a refused change (a bad or inside address, too
many hooks, a label too long) answers with the reason and changes nothing.  "Send a test" delivers
one test notice at once, through the webhook channel itself (`WebhookChannel.send_test`), so it
shows what a real notice would meet; it is limited to a few a minute per user (``webhook_test``).

Guests have no webhooks: a guest account lives a day, and each is one click away.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Path, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek.services.webhook_urls import MAX_URL
from ludothek.services.webhooks import MAX_LABEL, HookInfo
from ludothek.storage import Forbidden, StoreError, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.texts import t
from ludothek.workers.channels.base import Message, Sent
from ludothek.workers.channels.webhook import WebhookChannel

from ..contract import refusals
from ..deps import CsrfField, User, check_csrf, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect
from ..webhook_view import status_text
from .accounts import account_page

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["notifications"])

HookId = Annotated[int, Path(ge=1, le=MAX_ID, description="the webhook's id")]
SECTION = "/account#webhooks"


def no_guests(user: UserInfo) -> None:
    if user.is_guest:
        raise Forbidden("guest accounts have no webhooks; create an account first", code_key="webhook_guest")


def send_test(request: Request, user: UserInfo, hook_id: int) -> tuple[bool, HookInfo]:
    """Deliver a test notice to the user's hook now; whether it arrived, and the hook as it is after."""
    portal = portal_of(request)
    site = portal.site
    hook = site.webhooks.own(user.id, hook_id)
    portal.limits.hit("webhook_test", str(user.id))
    message = Message(lang=user.lang, title=t("webhook_test_title", user.lang),
                      body=t("webhook_test_body", user.lang, name=user.name), path="/account")
    channel = WebhookChannel(site.webhooks, portal.settings.base_url)
    outcome = channel.send_test(hook, message, "test-" + secrets.token_hex(8), datetime.now(UTC))
    return isinstance(outcome, Sent), site.webhooks.own(user.id, hook_id)


# ----------------------------------------------------------------------------- account page forms
def _refused(request: Request, user: UserInfo, exc: StoreError, **form: Any) -> Response:
    response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang),
                            webhook_error=True, **form)
    if exc.status == 429:
        response.headers["Retry-After"] = str(exc.params.get("seconds", 60))
    return response


@pages.post("/account/webhooks")
def add_hook(request: Request, csrf: CsrfField, url: Annotated[str, Form()] = "",
             fmt: Annotated[str, Form(alias="format")] = "generic", label: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        no_guests(user)
        portal_of(request).site.webhooks.add(user.id, url, fmt, label)
    except StoreError as exc:
        return _refused(request, user, exc, webhook_form={"url": url, "format": fmt, "label": label})
    return redirect(request, SECTION)


@pages.post("/account/webhooks/{hook_id}/test")
def test_hook(request: Request, hook_id: HookId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        send_test(request, user, hook_id)
    except StoreError as exc:
        return _refused(request, user, exc)
    return redirect(request, SECTION)  # the hook's line shows how the test went


@pages.post("/account/webhooks/{hook_id}/enable")
def enable_hook(request: Request, hook_id: HookId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.webhooks.change(user.id, hook_id, enabled=True)
    except StoreError as exc:
        return _refused(request, user, exc)
    return redirect(request, SECTION)


@pages.post("/account/webhooks/{hook_id}/secret")
def new_secret(request: Request, hook_id: HookId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.webhooks.new_secret(user.id, hook_id)
    except StoreError as exc:
        return _refused(request, user, exc)
    return redirect(request, SECTION)


@pages.post("/account/webhooks/{hook_id}/delete")
def delete_hook(request: Request, hook_id: HookId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.webhooks.remove(user.id, hook_id)
    except StoreError as exc:
        return _refused(request, user, exc)
    return redirect(request, SECTION)


# ----------------------------------------------------------------------------- JSON API
class WebhookIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    url: str = Field(max_length=MAX_URL, description="the address to POST to: https, a public host, no user name "
                                                     "or password")
    format: Literal["generic", "discord", "slack"] = Field(
        default="generic", description="'generic': Ludothek's JSON; 'discord' or 'slack': their incoming-webhook bodies")
    label: str = Field(default="", max_length=MAX_LABEL, description="my name for it")


class WebhookChange(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    label: str | None = Field(default=None, max_length=MAX_LABEL)
    enabled: bool | None = Field(default=None, description="false switches it off; true switches it on again "
                                                          "and forgets its failures")


class WebhookOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    url: str
    format: Literal["generic", "discord", "slack"]
    label: str
    secret: str = Field(description="signs every body (docs/notifications.md); only I see it")
    enabled: bool
    failures: int = Field(description="failed attempts in a row; at the site's limit the hook is switched off")
    disabled_at: str | None = Field(description="when it was switched off after failures (ISO 8601)")
    disabled_reason: str | None = Field(description="the last failure then: 'http 500', 'timeout', ...")
    last_delivery_at: str | None
    last_status: str | None = Field(description="'ok 204', 'http 404', 'timeout', 'redirect 302', "
                                                "'too_large', 'address private', ...")
    created_at: str


class WebhooksOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    webhooks: list[WebhookOut]
    limit: int = Field(description="how many webhooks one may have")


class WebhookTestOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    delivered: bool
    status: str = Field(description="how it went: 'ok 204', 'http 500', 'timeout' ...")
    detail: str = Field(description="the same in words, in my language")
    webhook: WebhookOut


@api.get("/me/webhooks", response_model=WebhooksOut, summary="My webhooks (with their secrets: only I see them)")
def list_hooks(request: Request, user: User) -> dict[str, Any]:
    webhooks = portal_of(request).site.webhooks
    return {"webhooks": [h.to_json() for h in webhooks.hooks(user.id)], "limit": webhooks.policy.max_per_user}


@api.post("/me/webhooks", status_code=201, response_model=WebhookOut, responses=refusals(409),
          summary="Add a webhook for my notifications (https, a public address; 409 past the site's limit)")
def post_hook(request: Request, body: WebhookIn, user: User) -> dict[str, Any]:
    no_guests(user)
    return portal_of(request).site.webhooks.add(user.id, body.url, body.format, body.label).to_json()


@api.patch("/me/webhooks/{hook_id}", response_model=WebhookOut,
           summary="Rename a webhook, switch it off, or on again (only the fields given)")
def patch_hook(request: Request, hook_id: HookId, body: WebhookChange, user: User) -> dict[str, Any]:
    return portal_of(request).site.webhooks.change(user.id, hook_id, label=body.label, enabled=body.enabled).to_json()


@api.post("/me/webhooks/{hook_id}/secret", response_model=WebhookOut,
          summary="Give a webhook a new secret (bodies are signed with it from now on)")
def post_secret(request: Request, hook_id: HookId, user: User) -> dict[str, Any]:
    return portal_of(request).site.webhooks.new_secret(user.id, hook_id).to_json()


@api.post("/me/webhooks/{hook_id}/test", response_model=WebhookTestOut, responses=refusals(429),
          summary="Send a test notice to a webhook now (at most 5 a minute)")
def post_test(request: Request, hook_id: HookId, user: User) -> dict[str, Any]:
    delivered, hook = send_test(request, user, hook_id)
    status = hook.last_status or ""
    return {"delivered": delivered, "status": status, "detail": status_text(status, user.lang),
            "webhook": hook.to_json()}


@api.delete("/me/webhooks/{hook_id}", status_code=204, summary="Delete a webhook")
def delete_hook_api(request: Request, hook_id: HookId, user: User) -> Response:
    portal_of(request).site.webhooks.remove(user.id, hook_id)
    return Response(status_code=204)
