"""The sandbox web: a reproducible offline HTTPS web on 127.0.0.1.

One uvicorn server (starlette app) runs in a background thread on one loopback port and serves
every ``.test`` host of a corpus; requests are told apart by their ``Host`` header (the TLS
client also sends the host as SNI, and the one server certificate, issued by a locally
generated ``trustme`` CA, names every host in its subjectAltName). The wiki host additionally
serves ``/wiki/<Title_with_underscores>`` for every title of the corpus (a 302 to the page's
own URL when the page lives elsewhere) and a MediaWiki-compatible search API at ``/w/api.php``
(see :mod:`ditto_nb.sandbox.api`).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import trustme
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox.api import handle_api
from ditto_nb.sandbox.corpus import DEFAULT_WIKI_HOST, SandboxPage
from ditto_nb.sandbox.index import SearchIndex
from ditto_nb.web.policy import NetworkPolicy

API_PATH = "/w/api.php"
_START_TIMEOUT_SECONDS = 15.0


class SandboxWeb:
    """Serve a corpus of :class:`SandboxPage` over HTTPS on 127.0.0.1 (one port, many hosts).

    Use as a context manager, or call :meth:`start` / :meth:`stop`.

    Args:
        pages: the corpus.
        workdir: directory for the CA file, the server certificate and the search index.
            Defaults to a fresh temporary directory.
        wiki_host: host of the wiki routes and the search API (added to the certificate even
            when no page lives there).
        ca: a ``trustme.CA`` to issue the server certificate from (e.g. one per test
            session); a new CA is generated when None.
        port: TCP port on 127.0.0.1; 0 picks a free one.
        search_mode: ``"and"`` (default: every query term must match, like MediaWiki and
            Wikipedia) or ``"or"`` (any term). A query ``a OR b`` matches either in both modes.
    """

    def __init__(
        self,
        pages: Iterable[SandboxPage],
        workdir: str | Path | None = None,
        wiki_host: str = DEFAULT_WIKI_HOST,
        *,
        ca: trustme.CA | None = None,
        port: int = 0,
        search_mode: str = "and",
    ) -> None:
        self.wiki_host = wiki_host.lower()
        if not self.wiki_host.endswith(".test"):
            raise ConfigError(f"wiki_host must be under .test, got {wiki_host!r}")
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="ditto-sandbox-")
            workdir = self._tmp.name
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._ca = ca or trustme.CA()
        self._requested_port = port
        self._lock = threading.Lock()
        self._pages: dict[tuple[str, str], SandboxPage] = {}
        self._by_title: dict[str, SandboxPage] = {}
        self._index = SearchIndex(self.workdir / "sandbox-index.sqlite3", mode=search_mode)
        self._requests: list[tuple[str, str]] = []
        self._request_headers: list[dict[str, str]] = []
        self._sni_names: list[str] = []
        self._hosts: set[str] = {self.wiki_host}
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self._port: int | None = None
        self._closed = False
        self.ca_path = self.workdir / "sandbox-ca.pem"
        self._cert_path = self.workdir / "sandbox-server.pem"
        self._ca.cert_pem.write_to_path(str(self.ca_path))
        for page in pages:
            self._store(page)
        self._issue_certificate()

    # ------------------------------------------------------------------ corpus
    def _store(self, page: SandboxPage) -> bool:
        """Add or replace a page; return True when its host is new."""
        with self._lock:
            self._pages[(page.host, _path_key(page.url))] = page
            if page.title and page.title not in self._by_title:
                self._by_title[page.title] = page
            new_host = page.host not in self._hosts
            self._hosts.add(page.host)
        self._index.add(page)
        return new_host

    def set_page(self, page: SandboxPage) -> None:
        """Add or replace a page at runtime (re-indexed; a new host gets a new certificate).

        Args:
            page: the page; it replaces any page with the same URL.
        """
        if self._store(page):
            self._issue_certificate()

    def _issue_certificate(self) -> None:
        with self._lock:
            hosts = sorted(self._hosts)
        self._ca.issue_cert(*hosts).private_key_and_cert_chain_pem.write_to_path(str(self._cert_path))
        server = self._server
        if server is not None and isinstance(server.config.ssl, ssl.SSLContext):
            server.config.ssl.load_cert_chain(str(self._cert_path))

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> SandboxWeb:
        """Start serving in a background thread; return self once the port accepts connections.

        Raises:
            ConfigError: already started, or the server did not come up within 15 seconds.
        """
        if self._server is not None:
            raise ConfigError("sandbox web already started")
        if self._closed:
            raise ConfigError("sandbox web was closed; create a new one")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self._requested_port))
        self._port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            self._build_app(),
            ssl_certfile=str(self._cert_path),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        config.load()
        if isinstance(config.ssl, ssl.SSLContext):
            config.ssl.sni_callback = self._record_sni
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="ditto-sandbox-web", daemon=True)
        self._server, self._thread, self._socket = server, thread, sock
        thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ConfigError("the sandbox web server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop the server and wait for its thread (idempotent)."""
        server, thread = self._server, self._thread
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def close(self) -> None:
        """Stop the server, close the index and remove a temporary workdir (idempotent).

        The context manager calls this on exit; after it the sandbox cannot be restarted.
        """
        self.stop()
        if not self._closed:
            self._index.close()
            self._closed = True
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> SandboxWeb:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ addresses
    @property
    def port(self) -> int:
        """The TCP port on 127.0.0.1 (known once started).

        Raises:
            ConfigError: not started.
        """
        if self._port is None:
            raise ConfigError("sandbox web not started")
        return self._port

    @property
    def hosts(self) -> list[str]:
        """Every served host (the corpus hosts and the wiki host), sorted."""
        with self._lock:
            return sorted(self._hosts)

    @property
    def resolve_overrides(self) -> dict[str, str]:
        """``{host: "127.0.0.1"}`` for every served host (for :class:`NetworkPolicy`)."""
        return {host: "127.0.0.1" for host in self.hosts}

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        """``https://host:port`` for every served host."""
        return tuple(f"https://{host}:{self.port}" for host in self.hosts)

    @property
    def api_url(self) -> str:
        """The MediaWiki-compatible search API URL ``https://<wiki_host>:<port>/w/api.php``."""
        return f"https://{self.wiki_host}:{self.port}{API_PATH}"

    def url_for(self, url: str) -> str:
        """Return the served URL of a corpus URL: a ``.test`` URL without port gets the sandbox port.

        Args:
            url: an absolute URL (others are returned unchanged).

        Returns:
            The URL to fetch.
        """
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host.endswith(".test") or parts.port is not None:
            return url
        return urlunsplit(("https", f"{host}:{self.port}", parts.path or "/", parts.query, parts.fragment))

    def policy(self, **overrides: Any) -> NetworkPolicy:
        """Return a :class:`NetworkPolicy` allowing every sandbox origin.

        Args:
            **overrides: any NetworkPolicy field (e.g. ``read_timeout=0.5``,
                ``allowed_origins=(...)``).

        Returns:
            The policy (CA bundle and ``.test`` resolve overrides of this sandbox).
        """
        fields: dict[str, Any] = {
            "allowed_origins": self.allowed_origins,
            "ca_bundle": str(self.ca_path),
            "resolve_overrides": self.resolve_overrides,
            "backoff_seconds": 0.05,
        }
        fields.update(overrides)
        return NetworkPolicy(**fields)

    def _record_sni(self, connection: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
        with self._lock:
            self._sni_names.append(name or "")

    # ------------------------------------------------------------------ accounting
    @property
    def sni_names(self) -> list[str]:
        """The TLS SNI server name of every handshake, oldest first (``""`` when none was sent)."""
        with self._lock:
            return list(self._sni_names)

    @property
    def request_count(self) -> int:
        """Total HTTP requests served since construction."""
        with self._lock:
            return len(self._requests)

    @property
    def requests(self) -> list[tuple[str, str]]:
        """Every request served, as ``(host, path)``, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The headers of every request served (lower-case names), parallel to :attr:`requests`."""
        with self._lock:
            return [dict(headers) for headers in self._request_headers]

    # ------------------------------------------------------------------ HTTP
    def _build_app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self._handle, methods=["GET", "HEAD", "POST"])])

    async def _handle(self, request: Request) -> Response:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].lower().strip("[]")
        path = str(request.scope.get("path") or "/")  # already percent-decoded by uvicorn
        with self._lock:
            self._requests.append((host, path))
            self._request_headers.append(dict(request.headers))
            page = None
            if request.url.query:
                page = self._pages.get((host, f"{path}?{request.url.query}"))
            page = page or self._pages.get((host, path))
        if page is not None:
            return await self._serve_page(page)
        if host == self.wiki_host and path == API_PATH:
            params = dict(request.query_params)
            if request.method == "POST":
                form = await request.form()
                params.update({key: str(value) for key, value in form.items()})
            return JSONResponse(handle_api(params, self._index, self.url_for))
        if host == self.wiki_host and path.startswith("/wiki/"):
            title = path[len("/wiki/"):].replace("_", " ")
            with self._lock:
                target = self._by_title.get(title)
            if target is not None:
                return Response(status_code=302, headers={"location": self.url_for(target.url)})
        return Response(b"<h1>404 Not Found</h1>", status_code=404, headers={"content-type": "text/html; charset=utf-8"})

    async def _serve_page(self, page: SandboxPage) -> Response:
        if page.delay_seconds:
            await asyncio.sleep(page.delay_seconds)
        status = page.status
        headers: dict[str, str] = {}
        if page.redirect is not None:
            status = status if 300 <= status < 400 else 302
            headers["location"] = self.url_for(page.redirect)
        body = page.body_bytes() if (page.html is not None or page.paragraphs is not None or page.raw_body_b64) else b""
        if body or page.content_type is not None:
            headers["content-type"] = page.content_type_header()
        if page.gzip:
            headers["content-encoding"] = "gzip"
        headers.update({key.lower(): value for key, value in page.headers.items()})
        if page.trickle_seconds and body:
            return StreamingResponse(_trickle(body, page.trickle_seconds), status_code=status, headers=headers)
        return Response(body, status_code=status, headers=headers)


async def _trickle(body: bytes, seconds: float) -> AsyncIterator[bytes]:
    for index in range(len(body)):
        yield body[index : index + 1]
        await asyncio.sleep(seconds)


def _path_key(url: str) -> str:
    parts = urlsplit(url)
    path = unquote(parts.path or "/")
    return f"{path}?{parts.query}" if parts.query else path


__all__ = ["API_PATH", "SandboxWeb"]
