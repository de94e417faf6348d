"""Web Push: the browsers (devices) of each user that accept push messages, and the site's VAPID keys.

A browser that subscribes hands over three things (the Push API's ``PushSubscription``): the push
service's ``endpoint`` for it, and the P-256 public key and auth secret its messages are encrypted to.
They are checked here before anything is stored (an https address of sane length; keys that decode to
what the Web Push encryption needs), so a bad subscription is refused with a clear error and never
reaches a delivery.  The same endpoint subscribed again updates its row: it is the same browser.

The endpoint is a capability (whoever knows it can send to the browser, if they also hold the keys),
so it is never shown, not even to its owner (who sees a label such as "Firefox on Android"), and never
logged.  The channel that sends (`ludothek.workers.channels.push`) removes a device the push service
reports gone (404/410).

VAPID (RFC 8292) identifies this site to the push services: one P-256 key pair per site, made on the
first start and kept in ``vapid_keys`` (`VapidKeyRow`) unless the operator gives one
(``LUDOTHEK_VAPID_PRIVATE_KEY``).  Two processes starting at once both try to insert the one row; one
wins and both use the winner's pair, so a browser subscribed through either server keeps working.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, NotFound
from ludothek.storage.models import PushSubscriptionRow, VapidKeyRow, utcnow
from ludothek.storage.text import check_text

from .webhook_urls import refusal_of

#: Devices one user may have subscribed at once (a phone, a tablet, a few browsers).
MAX_DEVICES = 10
#: The longest endpoint accepted (real ones are 100-500 characters).
MAX_ENDPOINT = 2048
MAX_LABEL = 80
#: The one row of `VapidKeyRow`.
KEY_ROW = 1


@dataclass(frozen=True)
class Device:
    """One subscribed browser of a user."""

    id: int
    user_id: int
    endpoint: str
    p256dh: str
    auth: str
    label: str
    created_at: datetime
    last_success_at: datetime | None

    def subscription_info(self) -> dict[str, Any]:
        """What `pywebpush.webpush` takes."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


@dataclass(frozen=True)
class VapidKeys:
    """The site's VAPID key pair and the contact (``sub``) its signatures name."""

    private_pem: str
    #: The uncompressed public point, base64url without padding (the browsers' ``applicationServerKey``).
    public_key: str
    subject: str

    def signer(self) -> Vapid:
        return Vapid.from_pem(self.private_pem.encode())


# ----------------------------------------------------------------------------- checks
def b64url_bytes(value: str) -> bytes:
    """Base64url (padded or not) to bytes; `ValueError` for anything else."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value):
        raise ValueError("not base64url")
    raw = value.rstrip("=")
    try:
        return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def private_host(host: str) -> bool:
    """An address literal (or ``localhost``) that is not on the public internet."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False  # a name: judged by what it resolves to when a push is sent
    return refusal_of(name, allow_loopback=False) is not None


def check_endpoint(endpoint: Any, allow_loopback: bool = False) -> str:
    """The endpoint if it is an https address of a push service; `BadRequest` otherwise.

    ``allow_loopback`` (tests, ``LUDOTHEK_PUSH_ALLOW_LOOPBACK``) also admits ``http://`` to
    ``127.0.0.1``/``localhost``, where the tests' stand-in push service listens.
    """
    endpoint = check_text(endpoint, "the endpoint", MAX_ENDPOINT).strip()
    refused = BadRequest("the endpoint must be the https address of a push service", code_key="push_endpoint")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        raise refused from None
    host = parts.hostname or ""
    if not host or parts.username is not None or parts.password is not None or parts.fragment:
        raise refused
    if any(c.isspace() or ord(c) < 0x21 or ord(c) > 0x7E for c in endpoint):
        raise refused
    if allow_loopback and host in ("localhost", "127.0.0.1", "::1") and parts.scheme in ("http", "https"):
        return endpoint
    if parts.scheme != "https" or private_host(host) or port == 0:
        raise refused
    return endpoint


def check_p256dh(value: Any) -> str:
    """The browser's public key: an uncompressed P-256 point (65 bytes) in base64url."""
    value = check_text(value, "the key p256dh", 100).strip()
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_bytes(value))
    except ValueError:
        raise BadRequest("the key p256dh is not a P-256 public key in base64url", code_key="push_keys") from None
    return value.rstrip("=")


def check_auth(value: Any) -> str:
    """The browser's auth secret: 16 bytes in base64url."""
    value = check_text(value, "the key auth", 50).strip()
    try:
        raw = b64url_bytes(value)
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise BadRequest("the key auth is not a 16-byte secret in base64url", code_key="push_keys")
    return value.rstrip("=")


def check_label(value: Any) -> str:
    label = check_text(value if value is not None else "", "the device's name", MAX_LABEL).strip()
    return " ".join(label.split())


def check_subject(subject: str) -> str:
    """A VAPID ``sub``: a ``mailto:`` address or an ``https:`` address (RFC 8292, 2.1)."""
    subject = subject.strip()
    if re.fullmatch(r"mailto:[^@\s]+@[^@\s]+", subject) or re.fullmatch(r"https://[^\s/]+(/\S*)?", subject):
        return subject
    raise ValueError(f"the VAPID subject must be mailto:someone@example.org or an https:// address, not {subject!r}")


def load_private_key(text: str) -> Vapid:
    """A VAPID private key as the operator may give it: PEM, base64url DER, or the raw 32-byte scalar
    in base64url (what ``vapid --gen`` and most guides print).  `ValueError` with the reason otherwise."""
    text = text.strip()
    try:
        if "-----BEGIN" in text:
            key = serialization.load_pem_private_key(text.encode(), password=None)
            if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
                raise ValueError("not a P-256 key")
            return Vapid(key)
        vapid = Vapid.from_string(text)
        if not isinstance(vapid.private_key.curve, ec.SECP256R1):
            raise ValueError("not a P-256 key")
        return vapid
    except Exception as exc:  # the libraries raise many kinds; the operator needs one clear message
        raise ValueError(f"the VAPID private key is not a P-256 private key (PEM, DER or raw, base64url): {exc}") from None


def public_key_of(vapid: Vapid) -> str:
    point = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(point)


def pem_of(vapid: Vapid) -> str:
    return bytes(vapid.private_pem()).decode()


# ----------------------------------------------------------------------------- the service
class Push:
    """Subscribed devices per user, and the site's VAPID keys."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: Admit ``http://127.0.0.1`` endpoints (tests only; ``LUDOTHEK_PUSH_ALLOW_LOOPBACK``).
        self.allow_loopback = False
        #: Devices per user.
        self.max_devices = MAX_DEVICES

    @staticmethod
    def _device(row: Any) -> Device:
        return Device(row.id, row.user_id, row.endpoint, row.p256dh, row.auth, row.label, row.created_at,
                      row.last_success_at)

    # ------------------------------------------------------------------ devices
    def subscribe(self, user_id: int, endpoint: Any, p256dh: Any, auth: Any, label: Any = "",
                  now: datetime | None = None) -> Device:
        """Store a browser's subscription for ``user_id`` (the same endpoint again: update it).

        Every part is checked first; nothing is stored if one is wrong.  A user has at most
        `MAX_DEVICES` (409 past that: remove one first).  An endpoint another user subscribed moves to
        this user: it is the same browser, and the latest login on it is who it now tells.
        """
        endpoint = check_endpoint(endpoint, self.allow_loopback)
        p256dh, auth, label = check_p256dh(p256dh), check_auth(auth), check_label(label)
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            mine = conn.execute(select(PushSubscriptionRow.id).where(
                PushSubscriptionRow.endpoint == endpoint, PushSubscriptionRow.user_id == user_id)).first()
            if mine is None:
                count = conn.execute(select(func.count()).select_from(PushSubscriptionRow)
                                     .where(PushSubscriptionRow.user_id == user_id)).scalar_one()
                if count >= self.max_devices:
                    raise Conflict(f"at most {self.max_devices} devices can receive push messages; "
                                   "remove one first", code_key="push_too_many", n=self.max_devices)
            changes = {"user_id": user_id, "p256dh": p256dh, "auth": auth, "label": label}
            conn.execute(self.db.upsert(PushSubscriptionRow, [PushSubscriptionRow.endpoint],
                                        {"endpoint": endpoint, "created_at": now, **changes}, changes))
            row = conn.execute(select(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == endpoint)).one()
        return self._device(row)

    def devices(self, user_id: int) -> list[Device]:
        """The user's devices, oldest first."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(select(PushSubscriptionRow).where(PushSubscriptionRow.user_id == user_id)
                                .order_by(PushSubscriptionRow.id)).all()
        return [self._device(r) for r in rows]

    def device_ids(self, user_id: int) -> list[int]:
        """The ids of the user's devices (the push channel's targets): one small query."""
        with self.db.engine.begin() as conn:
            return list(conn.execute(select(PushSubscriptionRow.id).where(PushSubscriptionRow.user_id == user_id)
                                     .order_by(PushSubscriptionRow.id)).scalars())

    def device(self, device_id: int) -> Device | None:
        with self.db.engine.begin() as conn:
            row = conn.execute(select(PushSubscriptionRow).where(PushSubscriptionRow.id == device_id)).first()
        return None if row is None else self._device(row)

    def unsubscribe(self, user_id: int, device_id: int) -> None:
        """Remove one of the user's devices; 404 if it is not theirs (or gone already)."""
        with self.db.engine.begin() as conn:
            gone = conn.execute(delete(PushSubscriptionRow).where(
                PushSubscriptionRow.id == device_id, PushSubscriptionRow.user_id == user_id)).rowcount
        if gone != 1:
            raise NotFound("no such device of yours", code_key="push_no_device")

    def unsubscribe_endpoint(self, user_id: int, endpoint: Any) -> bool:
        """Remove the user's device with this endpoint (the browser unsubscribed itself); whether there was one."""
        endpoint = check_text(endpoint, "the endpoint", MAX_ENDPOINT).strip()
        with self.db.engine.begin() as conn:
            return bool(conn.execute(delete(PushSubscriptionRow).where(
                PushSubscriptionRow.endpoint == endpoint, PushSubscriptionRow.user_id == user_id)).rowcount)

    def remove_gone(self, device_id: int, endpoint: str) -> bool:
        """The push service says the subscription is gone (404/410): forget it.

        Only while it still has that endpoint: a browser that subscribed again meanwhile keeps its row.
        """
        with self.db.engine.begin() as conn:
            return bool(conn.execute(delete(PushSubscriptionRow).where(
                PushSubscriptionRow.id == device_id, PushSubscriptionRow.endpoint == endpoint)).rowcount)

    def mark_success(self, device_id: int, now: datetime | None = None) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(update(PushSubscriptionRow).where(PushSubscriptionRow.id == device_id)
                         .values(last_success_at=now or utcnow()))

    # ------------------------------------------------------------------ VAPID keys
    def vapid_keys(self, subject: str, private_key: str | None = None) -> VapidKeys:
        """The site's key pair: ``private_key`` if the operator gives one (`load_private_key`), else the
        pair in the database, made now if there is none yet (race-safe: one row wins)."""
        subject = check_subject(subject)
        if private_key:
            vapid = load_private_key(private_key)
            return VapidKeys(pem_of(vapid), public_key_of(vapid), subject)
        row = self._key_row()
        if row is None:
            vapid = Vapid()
            vapid.generate_keys()
            try:
                with self.db.engine.begin() as conn:
                    conn.execute(insert(VapidKeyRow).values(
                        id=KEY_ROW, private_key=pem_of(vapid), public_key=public_key_of(vapid), created_at=utcnow()))
            except IntegrityError:
                pass  # another process made the pair first: use theirs
            row = self._key_row()
            assert row is not None
        return VapidKeys(row.private_key, row.public_key, subject)

    def _key_row(self) -> Any:
        with self.db.engine.begin() as conn:
            return conn.execute(select(VapidKeyRow).where(VapidKeyRow.id == KEY_ROW)).first()
