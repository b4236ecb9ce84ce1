"""Pinned connections: resolve a name once, check the address, connect only there.

:class:`PinnedBackend` is an ``httpcore.AsyncNetworkBackend`` wrapping httpcore's anyio
backend. ``connect_tcp(host, ...)`` never resolves ``host`` itself: it connects to the address
pinned for that host by :func:`resolve_and_pin` (which applies the policy's address rules) and
refuses any host that was not pinned. TLS still verifies the *host name* (httpcore passes the
origin host as ``server_hostname`` to ``start_tls``). :class:`PinnedTransport` plugs that
backend into an ``httpcore.AsyncConnectionPool`` behind the ``httpx.AsyncBaseTransport``
interface, translating httpcore errors into httpx errors at the boundary.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import functools
import os
import ssl
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import anyio
import certifi
import httpcore
import httpx

from ditto_nb.errors import PolicyViolation
from ditto_nb.web.policy import NetworkPolicy

# httpcore error → httpx error, most specific first (public classes of both libraries).
_ERROR_MAP: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextlib.contextmanager
def _mapped_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for source, target in _ERROR_MAP:
            if isinstance(exc, source):
                raise target(str(exc) or type(exc).__name__) from exc
        raise


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that connects each host only to its pinned address.

    Attributes:
        pins: ``{hostname: ip}`` filled by :func:`resolve_and_pin` before each request.
    """

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()
        self.pins: dict[str, str] = {}
        self.connects: list[tuple[str, str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect to the pinned address of ``host`` (never a fresh DNS lookup).

        Raises:
            PolicyViolation: ``host`` was not resolved and checked first.
        """
        address = self.pins.get(host.lower().strip("[]").rstrip("."))
        if address is None:
            raise PolicyViolation(f"refusing to connect to {host!r}: no checked address pinned")
        self.connects.append((host, address, port))
        return await self._inner.connect_tcp(
            address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Unix sockets are never used by the fetcher.

        Raises:
            PolicyViolation: always.
        """
        raise PolicyViolation("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` (delegated to anyio)."""
        await self._inner.sleep(seconds)


async def resolve_address(host: str, port: int, policy: NetworkPolicy) -> str:
    """Resolve ``host`` once (the ``.test`` override, an IP literal, or ``getaddrinfo``) and check it.

    Every address returned by ``getaddrinfo`` must pass :meth:`NetworkPolicy.check_address`;
    the first one is used.

    Args:
        host: host name or IP literal from the URL.
        port: TCP port.
        policy: the policy whose address rules apply.

    Returns:
        The IP address (string) the connection must go to.

    Raises:
        PolicyViolation: the address is refused (checked BEFORE any connection).
        httpx.ConnectError: the name does not resolve.
    """
    host = host.lower().strip("[]").rstrip(".")
    override = policy.override_for(host)
    if override is not None:
        policy.check_address(host, override)
        return override
    try:
        literal = str(ipaddress.ip_address(host))
    except ValueError:
        literal = ""
    if literal:
        policy.check_address(host, literal)
        return literal
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise httpx.ConnectError(f"cannot resolve {host!r}: {exc}") from exc
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise httpx.ConnectError(f"cannot resolve {host!r}: no address")
    for address in addresses:
        policy.check_address(host, address)
    return addresses[0]


def ssl_context_for(policy: NetworkPolicy) -> ssl.SSLContext:
    """A verifying TLS context: certifi's CAs plus the policy's ``ca_bundle`` (if any).

    Contexts are cached per CA bundle path and modification time (loading certifi's bundle costs
    ~0.1 s); a replaced bundle file gets a fresh context.
    """
    stamp = os.stat(policy.ca_bundle).st_mtime_ns if policy.ca_bundle and os.path.exists(policy.ca_bundle) else 0
    return _cached_context(policy.ca_bundle, stamp)


@functools.lru_cache(maxsize=32)
def _cached_context(ca_bundle: str | None, stamp: int) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=certifi.where())
    if ca_bundle:
        context.load_verify_locations(cafile=ca_bundle)
    return context


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped_errors():
            async for part in self._inner:
                yield part

    async def aclose(self) -> None:
        if hasattr(self._inner, "aclose"):
            await self._inner.aclose()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport over an ``httpcore.AsyncConnectionPool`` using :class:`PinnedBackend`."""

    def __init__(self, policy: NetworkPolicy, backend: PinnedBackend | None = None) -> None:
        self.backend = backend or PinnedBackend()
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context_for(policy),
            max_connections=4,
            http1=True,
            http2=False,
            retries=0,
            network_backend=self.backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the pinned pool (see ``httpx.AsyncHTTPTransport``)."""
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _mapped_errors():
            response = await self._pool.handle_async_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close every pooled connection."""
        await self._pool.aclose()


def build_client(policy: NetworkPolicy) -> tuple[httpx.AsyncClient, PinnedBackend]:
    """An ``httpx.AsyncClient`` for one fetch: pinned transport, no redirects, no env proxies.

    Returns:
        ``(client, backend)``; pin each hop's host in ``backend.pins`` before sending.
    """
    backend = PinnedBackend()
    timeout = httpx.Timeout(
        connect=policy.connect_timeout,
        read=policy.read_timeout,
        write=policy.read_timeout,
        pool=policy.connect_timeout,
    )
    client = httpx.AsyncClient(
        transport=PinnedTransport(policy, backend),
        follow_redirects=False,
        trust_env=False,
        timeout=timeout,
    )
    return client, backend


__all__ = ["PinnedBackend", "PinnedTransport", "build_client", "resolve_address", "ssl_context_for"]
