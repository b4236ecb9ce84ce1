"""The sync facade: run a coroutine to completion from plain (non-async) code.

Works outside an event loop (``asyncio.run``) and inside one, e.g. a Jupyter cell or an async
test: there the coroutine runs on a private event loop in a worker thread while the caller
blocks. Objects bound to the caller's event loop (asyncio locks, async clients created on it)
must not be used by such a coroutine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run an awaitable to completion and return its result.

    Args:
        awaitable: usually a coroutine object (e.g. ``runtime.loop(plan, args)``).

    Returns:
        The awaitable's result.

    Raises:
        Exception: whatever the awaitable raised, unchanged.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ditto-run-sync") as pool:
        return pool.submit(asyncio.run, _await(awaitable)).result()


__all__ = ["run_sync"]
