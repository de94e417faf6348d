"""Which addresses a webhook may call (`ludothek.services.webhook_urls`): the guard against request forgery."""

from __future__ import annotations

import pytest

from ludothek.services.webhook_urls import MAX_URL, AddressRefused, check_target, refusal_of
from ludothek.storage import BadRequest


def public(host: str, port: int) -> list[str]:
    return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]


@pytest.mark.parametrize(("address", "reason"), [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("10.1.2.3", "private"), ("172.16.0.9", "private"), ("192.168.1.1", "private"), ("fc00::1", "private"),
    ("fd12:3456::1", "private"), ("100.64.0.1", "private"), ("192.0.2.1", "private"),
    ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
    ("240.0.0.1", "reserved"), ("0.0.0.0", "unspecified"), ("::", "unspecified"),
    # IPv4 inside IPv6: judged as the IPv4 address it carries
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"), ("::ffff:169.254.169.254", "link-local"),
    ("2002:0a00:0001::1", "private"),  # 6to4 of 10.0.0.1
    ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 of 169.254.169.254
    ("not-an-ip", "invalid"),
])
def test_inside_addresses_are_refused(address: str, reason: str) -> None:
    assert refusal_of(address, allow_loopback=False) == reason


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal_of(address, allow_loopback=False) is None


def test_the_operator_setting_allows_loopback_and_nothing_else_inside() -> None:
    assert refusal_of("127.0.0.1", allow_loopback=True) is None
    assert refusal_of("::1", allow_loopback=True) is None
    assert refusal_of("::ffff:127.0.0.1", allow_loopback=True) is None
    for inside in ("10.0.0.1", "169.254.169.254", "0.0.0.0", "fe80::1"):
        assert refusal_of(inside, allow_loopback=True) is not None, inside


@pytest.mark.parametrize(("url", "code_key"), [
    ("", "webhook_url_missing"),
    ("ftp://hooks.example.com/x", "webhook_url_scheme"),
    ("javascript:alert(1)", "webhook_url_scheme"),
    ("file:///etc/passwd", "webhook_url_scheme"),
    ("http://hooks.example.com/x", "webhook_url_scheme"),  # https only without the operator setting
    ("https://user:secret@hooks.example.com/x", "webhook_url_credentials"),
    ("https://user@hooks.example.com/x", "webhook_url_credentials"),
    ("https://hooks.example.com/a b", "webhook_url_bad"),
    ("https://hooks.example.com/x#frag", "webhook_url_bad"),
    ("https:///nohost", "webhook_url_bad"),
    ("https://hooks.example.com:99999/", "webhook_url_bad"),
    ("https://hooks.example.com/" + "a" * MAX_URL, "webhook_url_long"),
])
def test_bad_forms_are_refused_with_their_reason(url: str, code_key: str) -> None:
    with pytest.raises(BadRequest) as err:
        check_target(url, allow_loopback=False, resolve=public)
    assert err.value.params["code_key"] == code_key


def test_a_name_is_refused_when_any_of_its_addresses_is_inside() -> None:
    def mixed(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.5"]

    with pytest.raises(AddressRefused) as err:
        check_target("https://hooks.example.com/x", allow_loopback=False, resolve=mixed)
    assert err.value.reason == "private"
    assert err.value.params["code_key"] == "webhook_address_private"


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def nothing(host: str, port: int) -> list[str]:
        raise OSError("no such name")

    with pytest.raises(AddressRefused) as err:
        check_target("https://nowhere.invalid/x", allow_loopback=False, resolve=nothing)
    assert err.value.reason == "dns"


def test_literal_addresses_are_checked_without_a_resolver_trick() -> None:
    """An IP literal goes through the system resolver (which returns it as it is) and is judged."""
    for url, reason in (("https://127.0.0.1/x", "loopback"), ("https://[::1]/x", "loopback"),
                        ("https://[::ffff:10.0.0.1]/x", "private"), ("https://169.254.169.254/latest", "link-local"),
                        ("https://0.0.0.0/", "unspecified"), ("https://2130706433/", "loopback")):
        with pytest.raises(AddressRefused) as err:
            check_target(url, allow_loopback=False)
        assert err.value.reason == reason, url


def test_a_good_address_keeps_its_name_port_and_checked_addresses() -> None:
    target = check_target("https://Hooks.Example.com:8443/p?q=1", allow_loopback=False, resolve=public)
    assert (target.scheme, target.host, target.port) == ("https", "hooks.example.com", 8443)
    assert target.addresses == tuple(public("", 0))
    assert check_target("http://127.0.0.1:9/x", allow_loopback=True).addresses == ("127.0.0.1",)
