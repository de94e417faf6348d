"""Web Push and the installable site: subscribing devices, the test push, the service worker, the manifest.

- The service worker ``/sw.js`` is served from the site's root, so its scope is the whole site: it
  shows push messages, and it keeps the shell (styles, scripts, icons, the offline page in both
  languages) so that a page opened without a network says "offline" instead of a browser error.
  Its cache is named after a hash of the shell's files, so every release replaces it.
- ``/manifest.webmanifest`` makes the site installable (name, colours, icons).
- Devices subscribe through the JSON API (the account page's script posts the browser's
  ``PushSubscription``); the account page lists them, removes one, and sends a test push.
"""

from __future__ import annotations

import functools
import hashlib
import json
from datetime import datetime
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek.services.push import MAX_ENDPOINT, MAX_LABEL, Device
from ludothek.storage import NotFound, StoreError, UserInfo
from ludothek.storage.models import MAX_ID, utcnow
from ludothek.texts import LANGS, choose_lang, t, tn
from ludothek.workers.channels.base import Failed, Outcome, Sent
from ludothek.workers.channels.push import PushChannel

from ..contract import refusals
from ..deps import CsrfField, User, check_csrf, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect
from .accounts import account_page

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["notifications"])

DeviceId = Annotated[int, Path(ge=1, le=MAX_ID, description="the device's id")]
#: What the service worker keeps for offline use (besides the offline pages, `OFFLINE_PAGES`).
SHELL = ("/static/ludothek.css", "/static/ludothek.js", "/static/htmx.min.js", "/static/pickers.js",
         "/static/notify.js", "/static/pwa.js", "/static/favicon.svg", "/static/icons/icon-192.png",
         "/manifest.webmanifest")
OFFLINE_PAGES = tuple(f"/offline?lang={lang}" for lang in LANGS)
THEME = "#3b2f2a"
BACKGROUND = "#f6f1e7"


def channel_of(request: Request) -> PushChannel:
    channel = portal_of(request).push
    if channel is None or not channel.enabled():
        raise NotFound("this site sends no push messages", code_key="push_off")
    return channel


# ----------------------------------------------------------------------------- the installable site
@functools.cache
def service_worker() -> tuple[str, str]:
    """The worker's source with its cache version (a hash of itself and every shell file) and shell list."""
    static = resources.files("ludothek.portal") / "static"
    digest = hashlib.sha256()
    source = (static / "sw.js").read_text(encoding="utf-8")
    digest.update(source.encode())
    for path in SHELL:
        if path.startswith("/static/"):
            digest.update((static / path.removeprefix("/static/")).read_bytes())
    digest.update(json.dumps(manifest("en")).encode())
    for lang in LANGS:
        digest.update(t("offline_title", lang).encode() + t("offline_text", lang).encode())
    version = digest.hexdigest()[:12]
    shell = json.dumps([*SHELL, *OFFLINE_PAGES])
    return source.replace('"__VERSION__"', json.dumps(version)).replace('["__SHELL__"]', shell), version


@pages.get("/sw.js")
def sw_js() -> Response:
    source, _ = service_worker()
    # Browsers look for a new worker at most once a day anyway; no-cache makes them ask every time.
    return Response(source, media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


def manifest(lang: str) -> dict[str, Any]:
    icons = "/static/icons/"
    return {
        "name": t("site", lang), "short_name": t("site", lang), "description": t("pwa_description", lang),
        "lang": lang, "id": "/", "start_url": "/", "scope": "/", "display": "standalone",
        "theme_color": THEME, "background_color": BACKGROUND,
        "icons": [
            {"src": icons + "icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": icons + "icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": icons + "icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
            {"src": "/static/favicon.svg", "sizes": "any", "type": "image/svg+xml"},
        ],
    }


@pages.get("/manifest.webmanifest")
def manifest_file(request: Request) -> Response:
    lang = request.query_params.get("lang") or choose_lang(request.headers.get("accept-language"))
    lang = lang if lang in LANGS else "en"
    return Response(json.dumps(manifest(lang), ensure_ascii=False), media_type="application/manifest+json",
                    headers={"Cache-Control": "public, max-age=3600"})


@pages.get("/offline", response_class=HTMLResponse)
def offline(request: Request) -> Response:
    """The page the service worker shows for a page it cannot load: the same for everyone (no user, no
    session), so it can be kept; ``?lang=`` picks the language."""
    lang = request.query_params.get("lang")
    lang = lang if lang in LANGS else choose_lang(request.headers.get("accept-language"))
    return portal_of(request).templates.TemplateResponse(
        request, "offline.html", {"lang": lang, "tr": lambda key, **kw: t(key, lang, **kw)},
        headers={"Cache-Control": "no-cache"})


# ----------------------------------------------------------------------------- the account page
def _tested(lang: str, results: list[tuple[Device, Outcome]]) -> str:
    sent = sum(isinstance(o, Sent) for _, o in results)
    gone = sum(isinstance(o, Failed) and o.gone for _, o in results)
    if not results:
        return t("push_test_none", lang)
    text = tn("push_test_sent", sent, lang, total=len(results))
    return text + (" " + tn("push_test_gone", gone, lang) if gone else "")


def test_push(request: Request, user: UserInfo) -> list[tuple[Device, Outcome]]:
    """Send the test push to every device of ``user`` (rate-limited: `push_test` in the limits)."""
    channel = channel_of(request)
    portal_of(request).limits.hit("push_test", str(user.id))
    return channel.test(user.id, user.lang, utcnow())


@pages.post("/account/push/test")
def page_test(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        results = test_push(request, user)
    except StoreError as exc:
        response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
        if exc.status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 60))
        return response
    return account_page(request, user, notice=_tested(user.lang, results))


@pages.post("/account/push/devices/{device_id}/remove")
def page_remove(request: Request, device_id: DeviceId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.push.unsubscribe(user.id, device_id)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect(request, "/account#push")


# ----------------------------------------------------------------------------- JSON API
class KeysIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    p256dh: str = Field(max_length=100, description="the browser's P-256 public key (base64url)")
    auth: str = Field(max_length=50, description="the browser's 16-byte auth secret (base64url)")


class SubscriptionIn(BaseModel):
    """A browser's ``PushSubscription.toJSON()``, with a name for the device."""

    model_config = ConfigDict(strict=True, extra="ignore")

    endpoint: str = Field(max_length=MAX_ENDPOINT, description="the push service's https address for this browser")
    keys: KeysIn
    label: str = Field(default="", max_length=MAX_LABEL, description="a name for the device, e.g. 'Firefox on Android'")


class EndpointIn(BaseModel):
    model_config = ConfigDict(strict=True)

    endpoint: str = Field(max_length=MAX_ENDPOINT)


class PublicKeyOut(BaseModel):
    public_key: str = Field(description="the VAPID public key: `applicationServerKey` for `pushManager.subscribe`")


class DeviceOut(BaseModel):
    id: int
    label: str
    created_at: datetime
    last_success_at: datetime | None = Field(description="the last message its push service accepted; null: none yet")


class DevicesOut(BaseModel):
    devices: list[DeviceOut]
    max_devices: int


class TestOut(BaseModel):
    sent: int = Field(description="devices whose push service accepted the test message")
    failed: int
    gone: int = Field(description="devices the push service reported gone (removed)")


def device_json(device: Device) -> dict[str, Any]:
    return {"id": device.id, "label": device.label, "created_at": device.created_at,
            "last_success_at": device.last_success_at}


@api.get("/push/public-key", response_model=PublicKeyOut, responses=refusals(404),
         summary="The site's VAPID public key, for subscribing a browser (404: this site sends no push messages)")
def api_public_key(request: Request) -> dict[str, Any]:
    return {"public_key": channel_of(request).public_key}


@api.get("/me/push/devices", response_model=DevicesOut, summary="My devices that receive push messages")
def api_devices(request: Request, user: User) -> dict[str, Any]:
    push = portal_of(request).site.push
    return {"devices": [device_json(d) for d in push.devices(user.id)], "max_devices": push.max_devices}


@api.post("/me/push/devices", status_code=201, response_model=DeviceOut, responses=refusals(404, 409),
          summary="Subscribe a browser (its PushSubscription as JSON); the same endpoint again updates it. "
                  "409 past the most devices a user may have")
def api_subscribe(request: Request, body: SubscriptionIn, user: User) -> dict[str, Any]:
    channel_of(request)
    device = portal_of(request).site.push.subscribe(user.id, body.endpoint, body.keys.p256dh, body.keys.auth,
                                                   body.label)
    return device_json(device)


@api.delete("/me/push/devices/{device_id}", status_code=204, summary="Stop push messages to one of my devices")
def api_unsubscribe(request: Request, device_id: DeviceId, user: User) -> Response:
    portal_of(request).site.push.unsubscribe(user.id, device_id)
    return Response(status_code=204)


@api.post("/me/push/unsubscribe", status_code=204, responses=refusals(404),
          summary="Stop push messages to the browser with this endpoint (what a browser that unsubscribed itself sends)")
def api_unsubscribe_endpoint(request: Request, body: EndpointIn, user: User) -> Response:
    if not portal_of(request).site.push.unsubscribe_endpoint(user.id, body.endpoint):
        raise NotFound("no device of yours has this endpoint", code_key="push_no_device")
    return Response(status_code=204)


@api.post("/me/push/test", response_model=TestOut, responses=refusals(404, 429),
          summary="Send a test push to each of my devices now (at most 5 times in 15 minutes)")
def api_test(request: Request, user: User) -> dict[str, Any]:
    results = test_push(request, user)
    return {"sent": sum(isinstance(o, Sent) for _, o in results),
            "failed": sum(not isinstance(o, Sent) for _, o in results),
            "gone": sum(isinstance(o, Failed) and o.gone for _, o in results)}
