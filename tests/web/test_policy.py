"""NetworkPolicy: origin normalization, override validation, address rules."""

from __future__ import annotations

import ipaddress

import pytest
from pydantic import ValidationError

from ditto_nb.errors import InvalidURL, PolicyViolation
from ditto_nb.web.policy import NetworkPolicy, origin_of, refused_reason


def test_origins_are_normalized_with_explicit_port() -> None:
    policy = NetworkPolicy(allowed_origins=("https://Example.ORG", "https://a.test:8443/", "https://example.org:443"))
    assert policy.allowed_origins == ("https://example.org:443", "https://a.test:8443")
    assert origin_of("https://[2001:db8::1]/x") == "https://[2001:db8::1]:443"
    assert origin_of("http://example.org/a?b") == "http://example.org:80"


def test_http_origins_cannot_be_allowed() -> None:
    with pytest.raises(ValidationError):
        NetworkPolicy(allowed_origins=("http://example.org",))


def test_defaults() -> None:
    policy = NetworkPolicy()
    assert policy.max_body_bytes == 5 * 1024 * 1024 and policy.max_redirects == 5
    assert policy.connect_timeout == 10.0 and policy.read_timeout == 30.0 and policy.retries == 2
    with pytest.raises(ValidationError):
        policy.model_copy(update={}).__class__(max_body_bytes=0)


def test_policy_is_frozen() -> None:
    policy = NetworkPolicy()
    with pytest.raises(ValidationError):
        policy.max_redirects = 9  # type: ignore[misc]


@pytest.mark.parametrize("url", ["", "not a url", "https:///path", "ftp://example.org/", "https://a.test:70000/", "//a.test/x"])
def test_malformed_urls(url: str) -> None:
    with pytest.raises(InvalidURL):
        origin_of(url)


def test_check_url_scheme_and_origin() -> None:
    policy = NetworkPolicy(allowed_origins=("https://example.org",))
    assert policy.check_url("https://example.org/a") == "https://example.org:443"
    with pytest.raises(PolicyViolation):
        policy.check_url("http://example.org/a")
    with pytest.raises(PolicyViolation):
        policy.check_url("https://example.org:8443/a")
    with pytest.raises(PolicyViolation):
        policy.check_url("https://evil.example.org/a")


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("10.0.0.1", "private"),
        ("192.168.1.1", "private"),
        ("172.16.0.5", "private"),
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "cloud-metadata"),
        ("fd00:ec2::254", "cloud-metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::ffff:10.0.0.1", "private"),
        ("100.64.0.1", "non-global"),
        ("93.184.216.34", None),
        ("2606:4700::1111", None),
    ],
)
def test_refused_reason(address: str, reason: str | None) -> None:
    assert refused_reason(ipaddress.ip_address(address)) == reason


def test_loopback_only_for_listed_test_names() -> None:
    policy = NetworkPolicy(resolve_overrides={"a.test": "127.0.0.1", "p.test": "10.0.0.1"})
    policy.check_address("a.test", "127.0.0.1")
    with pytest.raises(PolicyViolation):
        policy.check_address("b.test", "127.0.0.1")  # not listed
    with pytest.raises(PolicyViolation):
        policy.check_address("a.test", "127.0.0.2")  # not the override
    with pytest.raises(PolicyViolation):
        policy.check_address("p.test", "10.0.0.1")  # private, even when listed
    with pytest.raises(PolicyViolation):
        policy.check_address("localhost", "127.0.0.1")
    policy.check_address("example.org", "93.184.216.34")


def test_overrides_only_for_test_names() -> None:
    for name in ("example.com", "test", "a.test.com", "localhost"):
        with pytest.raises(ValidationError):
            NetworkPolicy(resolve_overrides={name: "127.0.0.1"})
