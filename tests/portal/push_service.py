"""A stand-in push service for the Web Push tests: an HTTP server on loopback that does what a real one
checks, and what a browser then does with the message.

For every message it receives it verifies the VAPID ``Authorization`` header (``vapid t=<JWT>,k=<key>``,
RFC 8292): the key must be the site's, the JWT's ES256 signature must verify against it, ``aud`` must be
this server's origin, ``exp`` in the future and at most a day ahead, ``sub`` a mailto:/https: contact.
It then decrypts the aes128gcm body (RFC 8291) with the subscribing browser's private key and auth secret,
as pywebpush's own tests do with ``http_ece``, and records the plaintext.  What it answers can be set per
subscription (404, 410, 429 with Retry-After ...).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64d(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Browser:
    """What a browser keeps of one subscription: its key pair and auth secret."""

    name: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64e(self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint))

    @property
    def auth_b64(self) -> str:
        return b64e(self.auth)


@dataclass
class Received:
    """One message as the stand-in took it apart."""

    browser: str
    #: Lower-cased names.
    headers: dict[str, str]
    claims: dict[str, Any]
    payload: dict[str, Any]


def verify_vapid(authorization: str, site_key: str, origin: str) -> dict[str, Any]:
    """The JWT's claims if the header is a valid VAPID authorization for ``origin`` by ``site_key``."""
    scheme, _, params = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization[:20]
    parts = dict(p.split("=", 1) for p in params.split(","))
    assert parts["k"] == site_key, "signed with another key than the site's public key"
    header_b64, claims_b64, signature_b64 = parts["t"].split(".")
    header = json.loads(b64d(header_b64))
    assert header == {"typ": "JWT", "alg": "ES256"}, header
    signature = b64d(signature_b64)
    assert len(signature) == 64, "ES256 signatures are r || s, 32 bytes each"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(site_key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID signature does not verify against the site's public key") from None
    claims = json.loads(b64d(claims_b64))
    assert claims["aud"] == origin, claims
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600, claims
    assert str(claims["sub"]).startswith(("mailto:", "https://")), claims
    return dict(claims)


class PushService:
    """The server: ``endpoint(browser)`` is a subscription's address; ``answer`` sets its replies."""

    def __init__(self, site_key: str = "") -> None:
        self.site_key = site_key
        self.browsers: dict[str, Browser] = {}
        self.received: list[Received] = []
        self.refused: list[str] = []
        #: Per browser name: (status, headers) to answer instead of 201.
        self.answers: dict[str, tuple[int, dict[str, str]]] = {}
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                name = self.path.rsplit("/", 1)[-1]
                status, extra = service.handle(name, {k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                for key, value in extra.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def browser(self, name: str) -> Browser:
        self.browsers[name] = Browser(name)
        return self.browsers[name]

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def subscription(self, name: str) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives for a new browser ``name``."""
        browser = self.browser(name)
        return {"endpoint": self.endpoint(name), "keys": {"p256dh": browser.p256dh, "auth": browser.auth_b64}}

    def answer(self, name: str, status: int, headers: dict[str, str] | None = None) -> None:
        self.answers[name] = (status, headers or {})

    def handle(self, name: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str]]:
        if name in self.answers:
            return self.answers[name]
        try:
            claims = verify_vapid(headers.get("authorization", ""), self.site_key, self.origin)
            assert headers.get("content-encoding") == "aes128gcm", headers
            assert int(headers["ttl"]) > 0, headers
            browser = self.browsers[name]
            plain = http_ece.decrypt(body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm")
            payload = json.loads(plain)
        except (AssertionError, KeyError, ValueError) as exc:
            with self._lock:
                self.refused.append(f"{name}: {exc}")
            return 400, {}
        with self._lock:
            self.received.append(Received(name, headers, claims, payload))
        return 201, {"Location": f"{self.origin}/message/{len(self.received)}"}


@contextmanager
def push_service(site_key: str = "") -> Iterator[PushService]:
    service = PushService(site_key)
    thread = threading.Thread(target=service.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.server.shutdown()
        service.server.server_close()
