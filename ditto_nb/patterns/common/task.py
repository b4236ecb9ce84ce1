"""Binding a task directory to its request: the one ``create_task`` rule of both patterns.

The request binding (``request`` row: fingerprint + request JSON) is written in the task's
Memory (SQLite in the directory, or the configured backend) under the task lock; a directory bound to another
request raises :class:`~ditto_nb.errors.RequestChanged`.
"""

from __future__ import annotations

import os

from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.patterns.common.binding import REQUEST_KEY, binding_for, check_binding
from ditto_nb.patterns.common.request import TaskRequest
from ditto_nb.workers.task_memory import open_task_memory


async def bind_task(
    directory: str | os.PathLike[str], request: TaskRequest, memory: MemoryConfig | None = None
) -> None:
    """Bind ``directory`` to ``request`` (idempotent for the same request).

    Args:
        directory: the task directory (created if missing).
        request: the validated request.
        memory: the Memory backend (``config.memory``); None → SQLite in the directory.

    Raises:
        RequestChanged: the directory is bound to a different request.
        TaskLocked: another process holds the directory.
        StorageError: the Memory cannot be written.
    """
    lock, store = open_task_memory(directory, memory)
    lock.acquire()
    try:
        try:
            await store.setup()
            binding = binding_for(request.model_dump(mode="json"))
            if not await store.put_new(request.namespace, REQUEST_KEY, binding):
                check_binding(await store.get(request.namespace, REQUEST_KEY), binding)
        finally:
            await store.close()
    finally:
        lock.release()


__all__ = ["bind_task"]
