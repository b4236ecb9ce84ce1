"""The one reader of reply bodies: streaming, capped, decompression-aware.

Every reply body in the kit (pages, MediaWiki and Brave search replies) is read by
:func:`read_capped_body`. It reads the *raw* (still encoded) bytes from the connection and
decodes the ``Content-Encoding`` itself, with ``zlib``'s ``max_length`` bound: no single step
inflates more than the bytes still allowed, so a gzip bomb costs at most the cap plus one network
chunk of memory (httpx's own decoders inflate a whole chunk at once, ~1000x its size).

Encodings (RFC 9110 §8.4.1): ``identity``, ``gzip`` / ``x-gzip`` (RFC 1952), ``deflate`` (the
zlib container of RFC 1950; raw RFC 1951 deflate as sent by some servers is accepted too),
applied in the listed order and undone in reverse. Anything else (``br``, ``zstd``, ...) is never
asked for (:data:`ACCEPT_ENCODING`) and refused when sent.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx

from ditto_nb.errors import FetchError

ACCEPT_ENCODING = "gzip, deflate"
"""The ``Accept-Encoding`` header sent with every request: the encodings this reader decodes."""

_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS
_RAW_WBITS = -zlib.MAX_WBITS


class _Inflater:
    """Incremental, output-bounded inflation of one ``gzip`` or ``deflate`` layer."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._gzip = encoding in ("gzip", "x-gzip")
        self._object = zlib.decompressobj(_GZIP_WBITS if self._gzip else _ZLIB_WBITS)
        self._started = False

    def feed(self, data: bytes, room: int) -> tuple[bytes, bytes]:
        """Inflate at most ``room`` bytes of ``data``; return ``(output, unconsumed input)``."""
        if not self._started and data:
            self._started = True
            # "deflate" should be zlib-wrapped (RFC 1950 header: CM 8, check bits); some servers
            # send raw deflate instead.
            if not self._gzip and len(data) >= 2 and (data[0] & 0x0F != 8 or (data[0] << 8 | data[1]) % 31):
                self._object = zlib.decompressobj(_RAW_WBITS)
        try:
            if self._object.eof:  # trailing bytes after the end of the stream are ignored
                return b"", b""
            out = self._object.decompress(data, max(room, 1))
        except zlib.error as exc:
            raise FetchError(f"corrupt {self.encoding} body: {exc}", failure="protocol") from exc
        return out, self._object.unconsumed_tail

    def flush(self) -> bytes:
        """The bytes still buffered at the end of the stream."""
        try:
            return self._object.flush()
        except zlib.error as exc:
            raise FetchError(f"corrupt {self.encoding} body: {exc}", failure="protocol") from exc


def _layers(content_encoding: str | None, url: str) -> list[_Inflater]:
    names = [part.strip().lower() for part in (content_encoding or "").split(",") if part.strip()]
    layers: list[_Inflater] = []
    for name in reversed(names):  # the last encoding applied is undone first
        if name == "identity":
            continue
        if name not in ("gzip", "x-gzip", "deflate"):
            raise FetchError(f"{url}: unsupported Content-Encoding {name!r}", failure="unsupported-content-encoding")
        layers.append(_Inflater(name))
    return layers


class _Capped:
    def __init__(self, url: str, limit: int) -> None:
        self.url, self.limit = url, limit
        self.parts: list[bytes] = []
        self.size = 0

    @property
    def room(self) -> int:
        return self.limit - self.size + 1  # one byte more than allowed proves "too large"

    def add(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise FetchError(f"{self.url}: body over {self.limit} bytes (decoded)", failure="too-large")
        if data:
            self.parts.append(data)


def _push(layers: list[_Inflater], index: int, data: bytes, sink: _Capped) -> None:
    """Send ``data`` through ``layers[index:]`` into ``sink``, never inflating past its room."""
    if index == len(layers):
        sink.add(data)
        return
    layer = layers[index]
    while data:
        out, data = layer.feed(data, sink.room)
        _push(layers, index + 1, out, sink)


def _finish(layers: list[_Inflater], index: int, sink: _Capped) -> None:
    if index == len(layers):
        return
    _push(layers, index + 1, layers[index].flush(), sink)
    _finish(layers, index + 1, sink)


async def read_capped_body(response: httpx.Response, limit: int) -> bytes:
    """Read a streamed response's body, decoded, refusing more than ``limit`` bytes.

    Args:
        response: an ``httpx.Response`` opened with ``stream=True`` and not read yet.
        limit: the largest accepted body in bytes, counted after content-encoding decoding
            (the raw bytes on the wire are held to the same cap).

    Returns:
        The decoded body (at most ``limit`` bytes).

    Raises:
        FetchError: ``failure="too-large"`` (declared ``Content-Length`` of an unencoded body,
            or the raw or decoded bytes, over ``limit``), ``"unsupported-content-encoding"``
            (an encoding other than gzip/deflate/identity), ``"protocol"`` (corrupt
            compressed data).
        httpx.HTTPError: transport errors while reading (timeouts, resets).
    """
    url = str(response.url)
    encoding = response.headers.get("content-encoding")
    declared = response.headers.get("content-length", "").strip()
    layers = _layers(encoding, url)
    if declared.isdigit() and not layers and int(declared) > limit:
        raise FetchError(f"{url}: Content-Length {declared} > {limit} bytes", failure="too-large")
    sink = _Capped(url, limit)
    raw_size = 0
    stream: AsyncIterator[bytes] = response.aiter_raw()
    async for chunk in stream:
        raw_size += len(chunk)
        if raw_size > limit:
            raise FetchError(f"{url}: body over {limit} bytes (on the wire)", failure="too-large")
        _push(layers, 0, chunk, sink)
    _finish(layers, 0, sink)
    return b"".join(sink.parts)


__all__ = ["ACCEPT_ENCODING", "read_capped_body"]
