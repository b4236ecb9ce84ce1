"""Concurrency limits through the shared Redis (ditto_nb.runtime.limits), on the real test Redis."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

from ditto_nb.errors import ContextUnavailable, InvalidRequest
from ditto_nb.runtime.limits import ConcurrencyLimits, close_limit_clients, limited, limits_scope

REPO_ROOT = Path(__file__).resolve().parents[2]


async def test_no_scope_is_a_no_op() -> None:
    async with limited("endpoint", "http://127.0.0.1:1/v1"):
        pass


async def test_slots_bound_concurrency(redis_url: str) -> None:
    limits = ConcurrencyLimits(redis_url, per_endpoint=2, key_prefix=f"test:{uuid.uuid4().hex}")
    active = 0
    peak = 0

    async def call() -> None:
        nonlocal active, peak
        async with limited("endpoint", "http://127.0.0.1:9/v1"):
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.05)
            active -= 1

    with limits_scope(limits):
        await asyncio.gather(*(call() for _ in range(8)))
        await close_limit_clients()
    assert peak <= 2 and active == 0


_HOLDER = """
import asyncio, sys
from ditto_nb.runtime.limits import ConcurrencyLimits, limited, limits_scope
async def main():
    with limits_scope(ConcurrencyLimits(sys.argv[1], per_origin=1, lease_seconds=12.0, key_prefix=sys.argv[2])):
        async with limited("origin", "https://a.test"):
            print("holding", flush=True)
            await asyncio.sleep(120)
asyncio.run(main())
"""


def _slot_key(prefix: str, kind: str, name: str, slot: int = 0) -> str:
    return f"{prefix}:{kind}:{hashlib.sha256(name.encode()).hexdigest()[:16]}:{slot}"


def _ttl_ms(url: str, key: str) -> int:
    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        return int(client.pttl(key))
    finally:
        client.close()


async def test_a_killed_holder_frees_its_slot_after_the_lease(redis_url: str) -> None:
    prefix = f"test:{uuid.uuid4().hex}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, redis_url, prefix], stdout=subprocess.PIPE, env=env)
    # A 12 s lease renewed every 4 s: a holder stalled for a few seconds on a loaded CI machine
    # still keeps its slot through the 2 s check (with a 6 s lease this check once failed in CI).
    limits = ConcurrencyLimits(redis_url, per_origin=1, lease_seconds=12.0, key_prefix=prefix)
    try:
        slot = _slot_key(prefix, "origin", "https://a.test")
        assert child.stdout is not None and child.stdout.readline().strip() == b"holding"
        assert _ttl_ms(redis_url, slot) > 0

        async def take() -> None:
            async with limited("origin", "https://a.test"):
                pass

        with limits_scope(limits):
            try:
                await asyncio.wait_for(take(), timeout=2.0)
            except TimeoutError:
                pass  # held while the holder lives
            else:
                pytest.fail(f"slot taken while its holder lives (holder exit code {child.poll()}, "
                            f"slot TTL now {_ttl_ms(redis_url, slot)} ms)")
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
            await asyncio.wait_for(take(), timeout=30.0)  # the lease (12 s) ran out
            await close_limit_clients()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


async def test_a_holder_keeps_its_slot_past_the_lease_and_frees_it_at_once(redis_url: str) -> None:
    prefix = f"test:{uuid.uuid4().hex}"
    limits = ConcurrencyLimits(redis_url, per_origin=1, lease_seconds=0.9, key_prefix=prefix)
    slot = _slot_key(prefix, "origin", "https://b.test")
    holding = asyncio.Event()

    async def hold() -> None:
        async with limited("origin", "https://b.test"):
            holding.set()
            await asyncio.sleep(2.5)  # almost three leases: renewed every 0.3 s

    async def take() -> None:
        async with limited("origin", "https://b.test"):
            pass

    with limits_scope(limits):
        holder = asyncio.create_task(hold())
        await holding.wait()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(take(), timeout=1.8)
        assert _ttl_ms(redis_url, slot) > 0
        await holder
        assert _ttl_ms(redis_url, slot) == -2  # released on exit, not left to expire
        await asyncio.wait_for(take(), timeout=1.0)
        await close_limit_clients()


async def test_unreachable_redis_is_context_unavailable() -> None:
    with limits_scope(ConcurrencyLimits("redis://127.0.0.1:1/0", per_endpoint=1)):
        with pytest.raises(ContextUnavailable):
            async with limited("endpoint", "http://127.0.0.1:9/v1"):
                pass
        await close_limit_clients()


def test_limits_are_validated() -> None:
    with pytest.raises(InvalidRequest):
        ConcurrencyLimits("redis://127.0.0.1:6379/0", per_endpoint=0)
    limits = ConcurrencyLimits("redis://x", per_endpoint=1, endpoint_overrides={"http://vllm:8000/v1": 16})
    assert limits.limit_for("endpoint", "http://vllm:8000/v1/") == 16
    assert limits.limit_for("endpoint", "http://other/v1") == 1
    assert limits.limit_for("origin", "https://a.test") is None
