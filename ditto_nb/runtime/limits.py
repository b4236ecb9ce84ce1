"""Concurrency limits that hold across processes and machines, enforced through the shared Redis.

A batch runs many tasks at once on many workers; a local llama.cpp server serves one request at
a time well, and a web origin deserves politeness. :class:`ConcurrencyLimits` says how many model
calls may be in flight per model endpoint (its base URL) and how many page fetches per origin.

Each limit is a counting semaphore of ``N`` slots; a slot is a redis-py ``Lock``
(``SET key token NX PX lease``, released only by its owner's token:
https://redis.io/docs/latest/develop/use/patterns/distributed-locks/). A holder extends its
lease every ``lease_seconds / 3`` while it works, so a long call keeps its slot, and a worker
killed mid-call frees the slot at most ``lease_seconds`` later.

The limits apply to the code running inside :func:`limits_scope` (a ``contextvars`` scope, so
every asyncio task and ``to_thread`` call started inside inherits it). The Infer Worker wraps
each model call in ``limited("endpoint", base_url)`` and the fetcher each HTTP hop in
``limited("origin", origin)``; outside a scope both are no-ops.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import weakref
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Literal

import redis.asyncio as aioredis
from redis.exceptions import LockError, RedisError

from ditto_nb.errors import ContextUnavailable, InvalidRequest

LimitKind = Literal["endpoint", "origin"]


@dataclass(frozen=True)
class ConcurrencyLimits:
    """How many calls may be in flight at once, across every process sharing ``redis_url``.

    Attributes:
        redis_url: the shared Redis (e.g. the Context Redis).
        per_endpoint: model calls in flight per model endpoint (base URL); None = unlimited.
        per_origin: page fetches (HTTP hops) in flight per origin; None = unlimited.
        endpoint_overrides: base URL → its own limit (e.g. a vLLM server that takes 16).
        lease_seconds: a slot's lease (seconds), renewed every third of it while held; a dead
            holder's slot is free again after at most this long. Keep it well above the longest
            stall a holder's event loop may suffer (a starved process that misses its renewals
            loses the slot).
        poll_seconds: how often a waiter retries the slots (seconds).
        key_prefix: Redis key prefix of the slots.
    """

    redis_url: str
    per_endpoint: int | None = None
    per_origin: int | None = None
    endpoint_overrides: dict[str, int] = field(default_factory=dict)
    lease_seconds: float = 30.0
    poll_seconds: float = 0.02
    key_prefix: str = "ditto:limit"

    def __post_init__(self) -> None:
        for name, value in (("per_endpoint", self.per_endpoint), ("per_origin", self.per_origin),
                            *self.endpoint_overrides.items()):
            if value is not None and value < 1:
                raise InvalidRequest(f"concurrency limit {name} must be at least 1, not {value}")
        if self.lease_seconds <= 0 or self.poll_seconds <= 0:
            raise InvalidRequest("lease_seconds and poll_seconds must be positive")

    def limit_for(self, kind: LimitKind, name: str) -> int | None:
        """The number of slots for ``name`` (None = unlimited)."""
        if kind == "endpoint":
            return self.endpoint_overrides.get(name.rstrip("/"), self.per_endpoint)
        return self.per_origin


logger = logging.getLogger(__name__)

_ACTIVE: contextvars.ContextVar[ConcurrencyLimits | None] = contextvars.ContextVar("ditto_limits", default=None)
_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, aioredis.Redis]] = weakref.WeakKeyDictionary()
"""Event loop → Redis URL → client. Keyed by the loop object itself (held weakly), not ``id(loop)``:
a later loop may reuse a closed loop's id, and must not be handed a client bound to the dead loop."""


@contextlib.contextmanager
def limits_scope(limits: ConcurrencyLimits | None) -> Iterator[None]:
    """Apply ``limits`` to everything run inside the block (None: no limits)."""
    token = _ACTIVE.set(limits)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def _client(url: str) -> aioredis.Redis:
    """One Redis client per (event loop, URL): asyncio clients are bound to their loop."""
    clients = _CLIENTS.setdefault(asyncio.get_running_loop(), {})
    client = clients.get(url)
    if client is None:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=5)
        clients[url] = client
    return client


async def close_limit_clients() -> None:
    """Close the Redis clients of the running event loop (call before the loop ends)."""
    for client in _CLIENTS.pop(asyncio.get_running_loop(), {}).values():
        with contextlib.suppress(RedisError):
            await client.aclose()


async def _keep_alive(lock: aioredis.lock.Lock, lease: float, done: asyncio.Event) -> None:
    """Extend ``lock`` to ``lease`` seconds every third of it until ``done`` is set.

    A renewal that fails on a Redis error is retried at the next period (the lease still runs);
    a lock found no longer held (its lease ran out while this process stalled) is logged and
    renewal stops.
    """
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout=lease / 3)
        if done.is_set():
            return
        try:
            await lock.extend(lease, replace_ttl=True)
        except LockError as exc:
            logger.warning("concurrency slot %s lost before its holder finished: %s", lock.name, exc)
            return
        except RedisError as exc:
            logger.warning("renewing concurrency slot %s failed (retried): %s", lock.name, exc)


@contextlib.asynccontextmanager
async def limited(kind: LimitKind, name: str) -> AsyncIterator[None]:
    """Hold one of the slots of ``(kind, name)`` for the block; wait while all are taken.

    A no-op outside :func:`limits_scope` or when the kind is unlimited.

    Raises:
        ContextUnavailable: the shared Redis is unreachable.
    """
    limits = _ACTIVE.get()
    slots = None if limits is None else limits.limit_for(kind, name)
    if limits is None or slots is None:
        yield
        return
    client = _client(limits.redis_url)
    digest = hashlib.sha256(name.rstrip("/").encode("utf-8")).hexdigest()[:16]
    lock: aioredis.lock.Lock | None = None
    try:
        while lock is None:
            for slot in range(slots):
                candidate = client.lock(
                    f"{limits.key_prefix}:{kind}:{digest}:{slot}", timeout=limits.lease_seconds, blocking=False
                )
                if await candidate.acquire():
                    lock = candidate
                    break
            else:
                await asyncio.sleep(limits.poll_seconds)
    except RedisError as exc:
        raise ContextUnavailable(f"concurrency limit for {kind} {name}: Redis unreachable: {exc}") from exc
    done = asyncio.Event()
    keeper = asyncio.create_task(_keep_alive(lock, limits.lease_seconds, done))
    try:
        yield
    finally:
        done.set()  # the keeper returns at its next wake-up, at once
        try:
            await keeper
        finally:
            keeper.cancel()  # a no-op unless this wait was itself cancelled
            with contextlib.suppress(LockError, RedisError):  # an expired lease was already freed
                await lock.release()


__all__ = ["ConcurrencyLimits", "LimitKind", "close_limit_clients", "limited", "limits_scope"]
