"""Which webhook addresses Ludothek may call: the guard against server-side request forgery.

A webhook makes the server send a request to an address a player chose.  Left unchecked, a player
could make it call what only the server can reach: the database's admin page on a private network,
a cloud's metadata service at 169.254.169.254, a router.  So an address is refused unless

- its scheme is ``https`` (``http`` only where the operator allows loopback, for tests);
- it carries no user name or password, no fragment, and is at most `MAX_URL` characters long;
- every address its host resolves to is a public one (`refusal_of`): not private, loopback,
  link-local, multicast, reserved, shared or unspecified, for IPv4 and IPv6 alike, an IPv4 address
  inside IPv6 (``::ffff:10.0.0.1``, 6to4, Teredo, NAT64) judged as the IPv4 address it carries.

The check runs when a hook is added and again before every delivery (a name may resolve elsewhere
tomorrow); the delivery then connects to the very address it checked, so a second lookup cannot
send it elsewhere (DNS rebinding: `ludothek.workers.channels.webhook_http`).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from ludothek.storage.errors import BadRequest

#: The longest webhook address accepted (Discord's and Slack's are about 120 characters).
MAX_URL = 2000

#: ``getaddrinfo``'s shape: the addresses (as text) of a host and port.
Resolver = Callable[[str, int], Sequence[str]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class AddressRefused(BadRequest):
    """A webhook address Ludothek will not call; ``reason`` is a short code (``private``, ``dns`` ...)."""

    def __init__(self, message: str, reason: str, **params: object) -> None:
        super().__init__(message, code_key="webhook_address_" + reason.replace("-", "_"), **params)
        self.reason = reason


@dataclass(frozen=True)
class Target:
    """A checked address: what to connect to (``addresses``) and what to call it (``host``, for TLS)."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]


def system_resolver(host: str, port: int) -> list[str]:
    """Every address of ``host`` (IPv4 and IPv6), in the order the system prefers them."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0]).split("%", 1)[0]  # an IPv6 scope (fe80::1%eth0) is no part of the address
        if address not in seen:
            seen.append(address)
    return seen


def parse_url(url: object, allow_loopback: bool) -> SplitResult:
    """The parts of a webhook address whose form is acceptable; `BadRequest` with the reason otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise BadRequest("the webhook address is missing", code_key="webhook_url_missing")
    url = url.strip()
    if len(url) > MAX_URL:
        raise BadRequest(f"a webhook address has at most {MAX_URL} characters", code_key="webhook_url_long",
                         limit=MAX_URL)
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise BadRequest("a webhook address has no spaces or control characters", code_key="webhook_url_bad")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadRequest("this is not a web address", code_key="webhook_url_bad") from None
    schemes = ("https", "http") if allow_loopback else ("https",)
    if parts.scheme.lower() not in schemes:
        raise BadRequest("a webhook address starts with https://", code_key="webhook_url_scheme")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise BadRequest("a webhook address must not contain a user name or password",
                         code_key="webhook_url_credentials")
    if not parts.hostname:
        raise BadRequest("this is not a web address", code_key="webhook_url_bad")
    if parts.fragment:
        raise BadRequest("a webhook address has no #fragment", code_key="webhook_url_bad")
    if port == 0:
        raise BadRequest("this is not a web address", code_key="webhook_url_bad")
    try:
        parts.hostname.encode("idna")
    except UnicodeError:
        raise BadRequest("this is not a web address", code_key="webhook_url_bad") from None
    return parts


def unwrap(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, Teredo's client, NAT64), else itself."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def refusal_of(address: str, allow_loopback: bool) -> str | None:
    """Why Ludothek must not connect to ``address`` (a short code), or None for a public address."""
    try:
        ip = unwrap(ipaddress.ip_address(address))
    except ValueError:
        return "invalid"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return None if allow_loopback else "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private or not ip.is_global:  # RFC 1918, ULA, 100.64/10, documentation ranges ...
        return "private"
    return None


def check_target(url: str, allow_loopback: bool, resolve: Resolver = system_resolver) -> Target:
    """``url`` checked in form and in every address its host resolves to; `AddressRefused` if any is not
    public.  One bad address refuses the host: a name must not sometimes lead inside."""
    parts = parse_url(url, allow_loopback)
    host = parts.hostname or ""
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    try:
        addresses = tuple(resolve(host, port))
    except (OSError, UnicodeError):
        raise AddressRefused(f"the name {host} could not be resolved", "dns", host=host) from None
    if not addresses:
        raise AddressRefused(f"the name {host} could not be resolved", "dns", host=host)
    for address in addresses:
        reason = refusal_of(address, allow_loopback)
        if reason is not None:
            raise AddressRefused(f"{host} leads to a {reason} address, which webhooks may not call",
                                 reason, host=host)
    return Target(url=url.strip(), scheme=scheme, host=host, port=port, addresses=addresses)
