"""The network policy every fetch obeys (SPEC §5, ARCHITECTURE §Web).

A :class:`NetworkPolicy` says which origins may be fetched, how big a body may be, the
timeouts, the redirect and retry bounds, an extra CA bundle and the ``.test`` name overrides
used by the offline sandbox. The pure checks live here (URL parsing, origin and address
rules); name resolution and the pinned connection live in :mod:`ditto_nb.web.transport`.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ditto_nb.errors import InvalidRequest, InvalidURL, PolicyViolation

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Cloud instance-metadata addresses, always refused (AWS/GCP/Azure IPv4, AWS IPv6).
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)

DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024
DEFAULT_DEADLINE_SECONDS = 60.0

#: NAT64 well-known prefix (RFC 6052 §2.1): the last 32 bits are the IPv4 address.
NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated (RFC 4291 §2.5.5.1)
_HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?")


def _split(url: str) -> tuple[str, str, int]:
    """Return ``(scheme, host, port)`` of an absolute http(s) URL, lower-cased, port explicit.

    Raises:
        InvalidURL: the URL is not absolute, has no host, a bad port, or spaces/control chars.
    """
    if not isinstance(url, str) or not url or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise InvalidURL(f"malformed URL: {url!r}")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"malformed URL {url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if scheme not in ("http", "https") or not host:
        raise InvalidURL(f"malformed URL (need an absolute http(s) URL with a host): {url!r}")
    if port is None:
        port = 443 if scheme == "https" else 80
    return scheme, host, port


def origin_of(url: str) -> str:
    """Return the normalized origin ``scheme://host:port`` of ``url`` (port always explicit).

    Args:
        url: an absolute ``http``/``https`` URL.

    Returns:
        e.g. ``"https://example.org:443"`` for ``"https://Example.org/a"``; IPv6 hosts in brackets.

    Raises:
        InvalidURL: ``url`` is malformed.
    """
    scheme, host, port = _split(url)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def host_and_port(url: str) -> tuple[str, int]:
    """Return the lower-cased host name (no brackets) and explicit port of ``url``.

    Raises:
        InvalidURL: ``url`` is malformed.
    """
    _, host, port = _split(url)
    return host, port


def normalize_origin(value: object) -> str:
    """Parse one allowed origin: ``https://host[:port]`` with an optional trailing ``/``.

    Args:
        value: the origin as written by the analyst (API, CLI ``--allowed-origin``, config).

    Returns:
        The normalized origin ``https://host:port`` (lower-case host, port always explicit).

    Raises:
        InvalidRequest: ``value`` is not an https origin: a path, query, fragment, userinfo,
            wildcard, bad port, another scheme or a non-ASCII host (write IDNs in their
            ``xn--`` form). The message names the value.
    """
    shown = repr(value)
    expected = "an allowed origin is https://host[:port] (nothing after the host but an optional '/')"
    if not isinstance(value, str) or not value or any(ch.isspace() or ord(ch) < 32 for ch in value):
        raise InvalidRequest(f"not an origin: {shown}; {expected}")
    text = value[:-1] if value.endswith("/") else value
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidRequest(f"not an origin: {shown} ({exc}); {expected}") from None
    problem = None
    if parts.scheme.lower() != "https":
        problem = "only https origins may be allowed" if parts.scheme else "no scheme"
    elif any(ch in text for ch in "?#@\\") or parts.path:
        problem = "it has a path, query, fragment or userinfo"
    elif not text.isascii():
        problem = "the host is not ASCII (use its xn-- form)"
    else:
        host = (parts.hostname or "").lower()
        bracketed = parts.netloc.startswith("[")
        if bracketed:
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                problem = "the IPv6 host is malformed"
        elif not _HOST_NAME.fullmatch(host.rstrip(".")):
            problem = "the host is not a host name (no wildcards)"
        if port == 0:
            problem = "port 0"
    if problem is not None:
        raise InvalidRequest(f"not an origin: {shown} ({problem}); {expected}")
    return origin_of(text)


def normalize_origins(values: object) -> tuple[str, ...]:
    """Parse a list of allowed origins (:func:`normalize_origin` each), dropping duplicates.

    Args:
        values: a string or an iterable of strings.

    Returns:
        The normalized origins, first occurrence order.

    Raises:
        InvalidRequest: not a list of strings, or one item is not an https origin.
    """
    if isinstance(values, str):
        values = (values,)
    if not isinstance(values, (list, tuple, set, frozenset)):
        raise InvalidRequest(f"allowed_origins must be a list of https://host[:port] origins, not {values!r}")
    items: Iterable[object] = sorted(values, key=str) if isinstance(values, (set, frozenset)) else values
    return tuple(dict.fromkeys(normalize_origin(item) for item in items))


def is_test_name(host: str) -> bool:
    """True when ``host`` is a name under the reserved ``.test`` TLD (RFC 6761 §6.2)."""
    host = host.lower().rstrip(".")
    return host.endswith(".test") and len(host) > len(".test")


def embedded_ipv4(address: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, or ``[]``.

    Forms: IPv4-mapped ``::ffff:a.b.c.d`` (RFC 4291 §2.5.5.2), IPv4-compatible ``::a.b.c.d``
    (RFC 4291 §2.5.5.1; not ``::`` or ``::1``), 6to4 ``2002:AABB:CCDD::/16`` (RFC 3056),
    NAT64 ``64:ff9b::a.b.c.d`` (RFC 6052) and Teredo ``2001::/32`` (RFC 4380: server and
    de-obfuscated client address).
    """
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    found: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in NAT64_PREFIX:
        found.append(low32)
    if address in _IPV4_COMPATIBLE and int(address) > 1:
        found.append(low32)
    return found


def refused_reason(address: IPAddress) -> str | None:
    """Why ``address`` may never be connected to, or None when it is a public address.

    Refused: private, loopback, link-local, multicast, reserved, unspecified, any other
    non-global range (``ipaddress`` ``is_global`` False) and cloud-metadata addresses. An IPv6
    address that embeds IPv4 addresses (:func:`embedded_ipv4`) is refused when any of them is;
    the reason then reads ``"<reason> (embedded IPv4 <address>)"``. IPv4-mapped addresses are
    judged as their IPv4 address only.
    """
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for inner in embedded_ipv4(address):
        reason = refused_reason(inner)
        if reason is not None:
            return f"{reason} (embedded IPv4 {inner})"
    if address in METADATA_ADDRESSES:
        return "cloud-metadata"
    for label, flag in (
        ("loopback", address.is_loopback),
        ("unspecified", address.is_unspecified),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if flag:
            return label
    if not address.is_global:
        return "non-global"
    return None


class NetworkPolicy(BaseModel):
    """What the fetcher may do. Frozen; every fetch and every redirect hop is checked against it.

    Attributes:
        allowed_origins: origins ``https://host:port`` that may be fetched (normalized on input;
            ``https://a.org`` becomes ``https://a.org:443``). Only ``https://host[:port]`` (an
            optional trailing ``/``) is accepted: a path, query, userinfo or wildcard is an error
            (:func:`normalize_origin`).
        max_body_bytes: largest accepted body in bytes, counted after content-encoding decoding.
        deadline_seconds: wall-clock seconds one page fetch or one search request may take in
            all (connect, TLS, headers, body, redirects and retries); then it fails as ``timeout``.
        connect_timeout: seconds to wait for a TCP+TLS connection.
        read_timeout: seconds to wait for each read (and write) on the connection.
        max_redirects: redirects followed per fetch before :class:`RedirectLimit`.
        retries: extra attempts after a connect error, a 429 or a 503.
        backoff_seconds: first exponential-backoff delay in seconds (doubles per attempt).
        max_retry_after_seconds: cap in seconds on an honoured ``Retry-After`` header.
        ca_bundle: path of an extra PEM CA bundle trusted in addition to the system store.
        resolve_overrides: ``{hostname: ip}`` for ``.test`` names only (the offline sandbox).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: Annotated[int, Field(gt=0)] = DEFAULT_MAX_BODY_BYTES
    deadline_seconds: Annotated[float, Field(gt=0)] = DEFAULT_DEADLINE_SECONDS
    connect_timeout: Annotated[float, Field(gt=0)] = 10.0
    read_timeout: Annotated[float, Field(gt=0)] = 30.0
    max_redirects: Annotated[int, Field(ge=0)] = 5
    retries: Annotated[int, Field(ge=0)] = 2
    backoff_seconds: Annotated[float, Field(ge=0)] = 0.5
    max_retry_after_seconds: Annotated[float, Field(ge=0)] = 30.0
    ca_bundle: str | None = None
    resolve_overrides: dict[str, str] = Field(default_factory=dict)

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _normalize_origins(cls, value: object) -> tuple[str, ...]:
        try:
            return normalize_origins(value)
        except InvalidRequest as exc:
            raise ValueError(str(exc)) from None

    @field_validator("resolve_overrides", mode="before")
    @classmethod
    def _check_overrides(cls, value: object) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("resolve_overrides must map hostnames to IP addresses")
        out: dict[str, str] = {}
        for name, ip in value.items():
            host = str(name).lower().rstrip(".")
            if not is_test_name(host):
                raise ValueError(f"resolve_overrides accepts only names under .test, not {name!r}")
            try:
                out[host] = str(ipaddress.ip_address(str(ip)))
            except ValueError as exc:
                raise ValueError(f"resolve_overrides[{name!r}] is not an IP address: {ip!r}") from exc
        return out

    def is_allowed(self, url: str) -> bool:
        """True when ``url`` is https and its origin is in ``allowed_origins``.

        Raises:
            InvalidURL: ``url`` is malformed.
        """
        return origin_of(url).startswith("https://") and origin_of(url) in self.allowed_origins

    def check_url(self, url: str) -> str:
        """Check scheme and origin of ``url``; return its normalized origin.

        Raises:
            InvalidURL: ``url`` is malformed.
            PolicyViolation: not https, or the origin is not allowed.
        """
        origin = origin_of(url)
        if not origin.startswith("https://"):
            raise PolicyViolation(f"only https is fetched, refused {url!r}")
        if origin not in self.allowed_origins:
            raise PolicyViolation(f"origin {origin} is not in allowed_origins (url {url!r})")
        return origin

    def override_for(self, host: str) -> str | None:
        """The pinned IP for a ``.test`` ``host`` listed in ``resolve_overrides``, else None."""
        return self.resolve_overrides.get(host.lower().rstrip("."))

    def check_address(self, host: str, address: str) -> None:
        """Refuse connecting to ``address`` for ``host`` unless it is a public address.

        Loopback is accepted only for a ``.test`` name listed in ``resolve_overrides`` whose
        override is that address; every other non-public address is refused.

        Args:
            host: the URL's host name.
            address: the IP address the connection would go to.

        Raises:
            PolicyViolation: the address is refused.
        """
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError as exc:
            raise PolicyViolation(f"{host}: not an IP address {address!r}") from exc
        reason = refused_reason(ip)
        if reason is None:
            return
        override = self.override_for(host)
        if reason == "loopback" and override is not None and ipaddress.ip_address(override) == ip:
            return
        raise PolicyViolation(f"{host} resolves to {ip} ({reason}); refused by the network policy")


__all__ = [
    "DEFAULT_DEADLINE_SECONDS",
    "DEFAULT_MAX_BODY_BYTES",
    "METADATA_ADDRESSES",
    "NAT64_PREFIX",
    "NetworkPolicy",
    "embedded_ipv4",
    "host_and_port",
    "is_test_name",
    "normalize_origin",
    "normalize_origins",
    "origin_of",
    "refused_reason",
]
