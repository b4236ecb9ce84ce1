"""Fetching under the network policy: :func:`fetch` (raw bytes) and :func:`read_page` (a Page).

Rules (SPEC §5): HTTPS only; the origin must be allowed; each host is resolved once, its
address checked and the connection pinned to it (:mod:`ditto_nb.web.transport`); redirects are
followed here one hop at a time and every hop is re-checked; the body is read by
:func:`ditto_nb.web.body.read_capped_body` (streaming, capped after content-encoding decoding);
the whole fetch runs under the policy's wall-clock ``deadline_seconds``; connect errors, 429 and
503 are retried with exponential backoff (tenacity), honouring ``Retry-After`` (RFC 9110
§10.2.3) up to ``max_retry_after_seconds``.
"""

from __future__ import annotations

import email.utils
import hashlib
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

import anyio
import httpx
from pydantic import BaseModel, ConfigDict, Field
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from ditto_nb.errors import FetchError, InvalidURL, PolicyViolation, RedirectLimit
from ditto_nb.web.body import ACCEPT_ENCODING, read_capped_body
from ditto_nb.web.decode import decode_html, media_type_of
from ditto_nb.web.extract import analyze_html
from ditto_nb.web.policy import NetworkPolicy, host_and_port, origin_of
from ditto_nb.web.transport import PinnedBackend, build_client, resolve_address

HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
HTML_TYPES = ("text/html", "application/xhtml+xml")
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
RETRY_STATUSES = frozenset({429, 503})
USER_AGENT = "ditto-nb/0.1 (+research notebook)"


class RawResponse(BaseModel):
    """One fetched response after redirects.

    Attributes:
        requested_url: the URL asked for.
        final_url: the URL of the last hop.
        status: HTTP status of the last hop.
        headers: response headers (lower-case names; repeated headers joined with ``", "``).
        body: the body after content-encoding decoding (at most ``max_body_bytes`` bytes).
        fetched_at: when the last response arrived (UTC).
        redirects: the redirect targets followed, in order.
    """

    model_config = ConfigDict(frozen=True)

    requested_url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes = Field(repr=False)
    fetched_at: datetime
    redirects: tuple[str, ...] = ()

    @property
    def content_type(self) -> str | None:
        """The ``Content-Type`` header, or None."""
        return self.headers.get("content-type")


class Page(BaseModel):
    """A page read under the policy; ``failure`` says why it has no paragraphs (or None).

    ``body`` (the raw body, after content-encoding decoding) is excluded from JSON dumps;
    ``sha256`` is its hex SHA-256.
    """

    model_config = ConfigDict(frozen=True)

    requested_url: str
    final_url: str
    status: int
    title: str | None = None
    fetched_at: str
    content_type: str | None = None
    charset: str | None = None
    sha256: str
    paragraphs: list[str] = Field(default_factory=list)
    failure: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    body: bytes = Field(default=b"", exclude=True, repr=False)


class _RetryStatus(Exception):
    """A 429/503 answer that may be retried; carries the Retry-After delay in seconds."""

    def __init__(self, response: RawResponse, retry_after: float | None) -> None:
        super().__init__(f"HTTP {response.status}")
        self.response = response
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (RFC 9110 §10.2.3).

    Args:
        value: delay-seconds (``"120"``) or an HTTP-date (``"Wed, 21 Oct 2015 07:28:00 GMT"``).
        now: the current time (UTC); defaults to now.

    Returns:
        Non-negative seconds, or None when absent or unparseable.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _wait_seconds(policy: NetworkPolicy) -> Any:
    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, _RetryStatus) and error.retry_after is not None:
            return min(error.retry_after, policy.max_retry_after_seconds)
        return float(policy.backoff_seconds * (2 ** (state.attempt_number - 1)))

    return wait


def _headers(response: httpx.Response) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in response.headers.multi_items():
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


async def _one_hop(
    client: httpx.AsyncClient,
    backend: PinnedBackend,
    requested_url: str,
    url: str,
    policy: NetworkPolicy,
    accept: str,
    content_types: tuple[str, ...] | None,
    extra_headers: dict[str, str],
) -> RawResponse:
    host, port = host_and_port(url)
    if host not in backend.pins:  # each name is resolved and checked once per fetch
        backend.pins[host] = await resolve_address(host, port, policy)
    try:
        headers = {"accept": accept, "accept-encoding": ACCEPT_ENCODING, "user-agent": USER_AGENT}
        if origin_of(url) == origin_of(requested_url):  # credentials never follow a redirect elsewhere
            headers.update(extra_headers)
        request = client.build_request("GET", url, headers=headers)
    except httpx.InvalidURL as exc:
        raise InvalidURL(f"malformed URL {url!r}: {exc}") from exc
    try:
        response = await client.send(request, stream=True)
    except httpx.RemoteProtocolError as exc:
        # httpx parses the Location of a 3xx even when not following it.
        if "location header" in str(exc).lower():
            raise InvalidURL(f"malformed Location header from {url}: {exc}") from exc
        raise
    try:
        headers = _headers(response)
        fetched_at = datetime.now(UTC)
        body = b""
        if response.status_code not in REDIRECT_STATUSES:
            if content_types is not None and response.status_code < 300:
                media = media_type_of(headers.get("content-type"))
                if media is not None and media not in content_types:
                    error = FetchError(f"{url}: content type {media}", failure="unsupported-content-type")
                    error.response = RawResponse(  # type: ignore[attr-defined]
                        requested_url=requested_url, final_url=url, status=response.status_code,
                        headers=headers, body=b"", fetched_at=fetched_at,
                    )
                    raise error
            body = await read_capped_body(response, policy.max_body_bytes)
        return RawResponse(
            requested_url=requested_url,
            final_url=url,
            status=response.status_code,
            headers=headers,
            body=body,
            fetched_at=fetched_at,
        )
    finally:
        await response.aclose()


async def _hop_with_retries(
    client: httpx.AsyncClient,
    backend: PinnedBackend,
    requested_url: str,
    url: str,
    policy: NetworkPolicy,
    accept: str,
    content_types: tuple[str, ...] | None,
    extra_headers: dict[str, str],
) -> RawResponse:
    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.retries + 1),
        wait=_wait_seconds(policy),
        retry=retry_if_exception_type((_RetryStatus, httpx.ConnectError, httpx.ConnectTimeout)),
        sleep=anyio.sleep,
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                result = await _one_hop(
                    client, backend, requested_url, url, policy, accept, content_types, extra_headers
                )
                if result.status in RETRY_STATUSES:
                    raise _RetryStatus(result, parse_retry_after(result.headers.get("retry-after")))
                return result
    except _RetryStatus as exhausted:
        return exhausted.response
    raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover


def _next_url(current: str, location: str | None) -> str:
    if location is None or not location.strip():
        raise InvalidURL(f"redirect from {current} without a Location header")
    try:
        target = urljoin(current, location.strip())
        origin_of(target)
        httpx.URL(target)
    except (InvalidURL, httpx.InvalidURL, ValueError) as exc:
        raise InvalidURL(f"malformed Location {location!r} (from {current})") from exc
    return target


async def fetch(
    url: str,
    policy: NetworkPolicy,
    *,
    accept: str = HTML_ACCEPT,
    content_types: tuple[str, ...] | None = None,
    headers: dict[str, str] | None = None,
) -> RawResponse:
    """GET ``url`` under ``policy``, following redirects ourselves, and return the last response.

    HTTP error statuses are *returned* (the caller decides); 429/503 are returned only after
    the retries are spent. The whole fetch (name checks, connect, TLS, headers, body, every
    redirect hop and retry) runs under ``policy.deadline_seconds`` of wall-clock time.

    Args:
        url: an absolute ``https`` URL.
        policy: the network policy (origins, addresses, size, timeouts, redirects, retries).
        accept: the ``Accept`` header sent.
        content_types: when given, a 2xx response whose media type is not listed raises
            ``FetchError(failure="unsupported-content-type")`` before its body is read.
        headers: extra request headers (e.g. an API key), sent only to ``url``'s own origin,
            never to a redirect target on another origin.

    Returns:
        The final :class:`RawResponse` (body capped at ``policy.max_body_bytes`` bytes).

    Raises:
        InvalidURL: ``url`` or a ``Location`` header is malformed.
        PolicyViolation: scheme, origin or resolved address refused (on any hop; an
            https→http redirect too), always before connecting to that address.
        RedirectLimit: more than ``policy.max_redirects`` redirects, or a redirect loop.
        FetchError: ``failure`` is ``timeout`` (a read/connect timeout, or the deadline passed),
            ``connect``, ``too-large``, ``protocol``, ``unsupported-content-type`` or
            ``unsupported-content-encoding``.
    """
    policy.check_url(url)
    try:
        with anyio.fail_after(policy.deadline_seconds):
            return await _fetch(url, policy, accept, content_types, dict(headers or {}))
    except TimeoutError as exc:
        raise FetchError(
            f"{url}: no complete reply within the {policy.deadline_seconds:g} s deadline",
            failure="timeout",
            retryable=True,
        ) from exc


async def _fetch(
    url: str,
    policy: NetworkPolicy,
    accept: str,
    content_types: tuple[str, ...] | None,
    extra_headers: dict[str, str],
) -> RawResponse:
    client, backend = build_client(policy)
    redirects: list[str] = []
    visits: dict[str, int] = {url: 1}
    current = url
    async with client:
        while True:
            try:
                result = await _hop_with_retries(
                    client, backend, url, current, policy, accept, content_types, extra_headers
                )
            except httpx.TimeoutException as exc:
                raise FetchError(f"{current}: timed out ({exc})", failure="timeout", retryable=True) from exc
            except (httpx.ConnectError, httpx.NetworkError) as exc:
                raise FetchError(f"{current}: connection failed ({exc})", failure="connect", retryable=True) from exc
            except httpx.HTTPError as exc:
                raise FetchError(f"{current}: HTTP protocol error ({exc})", failure="protocol") from exc
            if result.status not in REDIRECT_STATUSES:
                return result.model_copy(update={"redirects": tuple(redirects)})
            target = _next_url(current, result.headers.get("location"))
            if len(redirects) >= policy.max_redirects:
                raise RedirectLimit(f"{url}: more than {policy.max_redirects} redirects (last {target})")
            visits[target] = visits.get(target, 0) + 1
            if visits[target] > 2:
                raise RedirectLimit(f"{url}: redirect loop at {target}")
            if current.lower().startswith("https:") and target.lower().startswith("http:"):
                raise PolicyViolation(f"redirect from https to http refused: {current} -> {target}")
            policy.check_url(target)
            redirects.append(target)
            current = target


def _failed_page(url: str, failure: str, raw: RawResponse | None = None) -> Page:
    return Page(
        requested_url=url,
        final_url=raw.final_url if raw else url,
        status=raw.status if raw else 0,
        fetched_at=(raw.fetched_at if raw else datetime.now(UTC)).isoformat(),
        content_type=raw.content_type if raw else None,
        sha256=hashlib.sha256(raw.body if raw else b"").hexdigest(),
        failure=failure,
        headers=raw.headers if raw else {},
        body=raw.body if raw else b"",
    )


async def read_page(url: str, *, policy: NetworkPolicy) -> Page:
    """Fetch ``url`` under ``policy`` and extract its title and main-text paragraphs.

    Args:
        url: an absolute ``https`` URL.
        policy: the network policy.

    Returns:
        A :class:`Page`. Failures that belong to the page are recorded in ``failure``:
        ``http-<status>`` (the extractor never runs on them), ``too-large``, ``timeout``,
        ``connect``, ``protocol``, ``unsupported-content-type``, ``unsupported-content-encoding``,
        ``not-text`` (a binary body: no paragraphs), ``not-content:<kind>`` (redirect stub, bot
        wall, cookie wall: no paragraphs).

    Raises:
        InvalidURL: ``url`` or a ``Location`` header is malformed.
        PolicyViolation: the policy refused a URL or an address.
        RedirectLimit: too many redirects or a redirect loop.
    """
    try:
        raw = await fetch(url, policy, accept=HTML_ACCEPT, content_types=HTML_TYPES)
    except FetchError as exc:
        return _failed_page(url, exc.failure, getattr(exc, "response", None))
    if raw.status >= 400:
        return _failed_page(url, f"http-{raw.status}", raw)
    if not 200 <= raw.status < 300:
        return _failed_page(url, f"http-{raw.status}", raw)
    text, charset = decode_html(raw.body, raw.content_type)
    media = media_type_of(raw.content_type)
    if media is None and "<" not in text[:2048]:
        return _failed_page(url, "unsupported-content-type", raw)
    extraction = analyze_html(text)
    kind = extraction.kind
    return Page(
        requested_url=url,
        final_url=raw.final_url,
        status=raw.status,
        title=extraction.title,
        fetched_at=raw.fetched_at.isoformat(),
        content_type=raw.content_type,
        charset=charset,
        sha256=hashlib.sha256(raw.body).hexdigest(),
        paragraphs=extraction.paragraphs,
        failure=("not-text" if kind == "not-text" else f"not-content:{kind}") if kind else None,
        headers=raw.headers,
        body=raw.body,
    )


__all__ = ["HTML_ACCEPT", "Page", "RawResponse", "fetch", "parse_retry_after", "read_page"]
