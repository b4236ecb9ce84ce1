"""Opening a task's application: lock, Memory, Context, Infer, Interaction → one Runtime.

:func:`open_task_app` is shared by ``web_qa`` and ``deep_research``; :func:`open_pattern_app` is
the part of their ``open_*`` functions they share (with the :class:`OpenOptions` they all take). The
caller closes the app (``await app.close()``), which closes the Runtime's workers, the MemoryStore
and the TaskLock.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from ditto_nb.errors import ModelError
from ditto_nb.patterns.common.failures import open_recorded
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.runtime import Runtime, create_ditto
from ditto_nb.workers import (
    MemoryStore,
    create_context_worker,
    create_infer_worker,
    create_interaction_worker,
    create_memory_worker,
)
from ditto_nb.workers.interaction import InteractionWorker, Tool
from ditto_nb.workers.task_memory import TaskLockLike, open_task_memory


@dataclass
class TaskApp:
    """An opened task: its Runtime and the resources to release.

    Attributes:
        directory: the task directory.
        runtime: the Runtime with the four Workers registered.
        store: the task's MemoryStore (SQLite or PostgreSQL, per ``config.memory``).
        interaction: the Interaction Worker (``dispatches`` counts tool calls).
        infer: the Infer Worker (``calls`` lists model calls).
        lock: the held TaskLock.
    """

    directory: Path
    runtime: Runtime
    store: MemoryStore
    interaction: InteractionWorker
    infer: Any
    lock: TaskLockLike
    extras: dict[str, object] = field(default_factory=dict)

    async def close(self) -> None:
        """Close the Runtime's workers, the MemoryStore, and release the lock (idempotent)."""
        try:
            await self.runtime.close()
        finally:
            try:
                await self.store.close()
            finally:
                self.lock.release()


def _model_base_urls(
    config: RuntimeConfig, providers: list[str] | None
) -> tuple[dict[str, str], dict[str, Callable[[], ModelError | None]]]:
    """Start local model servers for providers with ``launch`` (lazily imports local_model).

    Returns:
        ``(provider → base URL, provider → crash check)`` for the launched providers.
    """
    names = providers if providers is not None else ([config.model.provider] if config.model else [])
    urls: dict[str, str] = {}
    checks: dict[str, Callable[[], ModelError | None]] = {}
    for name in names:
        provider = config.providers.get(name)
        if provider is None or provider.launch is None:
            continue
        from ditto_nb.local_model import diagnose_local_provider, ensure_local_provider

        urls[name] = ensure_local_provider(config, name)
        checks[name] = functools.partial(diagnose_local_provider, provider.launch.port)
    return urls, checks


async def open_task_app(
    directory: str | os.PathLike[str],
    config: RuntimeConfig,
    tools: Mapping[str, Tool],
    *,
    env: Mapping[str, str] | None = None,
    providers: list[str] | None = None,
    base_urls: Mapping[str, str] | None = None,
) -> TaskApp:
    """Open a task directory and build its Runtime.

    Args:
        directory: the task directory (created if missing).
        config: the runtime configuration (``context.redis_url``: None → embedded Redis;
            ``memory``: the Memory backend and its task lock).
        tools: the Interaction Worker's tools.
        env: environment for API keys (default ``os.environ``).
        providers: model providers to prepare (default: ``config.model.provider``); those with
            ``launch`` get a local llama.cpp server via ``ditto_nb.local_model``.
        base_urls: explicit provider → base URL overrides (win over launched servers).

    Returns:
        The :class:`TaskApp`.

    Raises:
        TaskLocked: another process holds the directory.
        StorageError: the Memory database cannot be opened.
        ConfigError: a provider cannot be prepared.
        ModelServerCrashed, ModelTransportError: a local model server failed to start or failed
            its start-up probe.
    """
    environment = os.environ if env is None else env
    task_dir = Path(directory)
    lock, store = open_task_memory(task_dir, config.memory)
    lock.acquire()
    try:
        await store.setup()
        urls, checks = _model_base_urls(config, providers)
        urls.update(base_urls or {})
        interaction = create_interaction_worker(tools)
        infer = create_infer_worker(config, environment, urls or None, diagnose=checks)
        context = create_context_worker(config.context.redis_url, store, config.context.ttl_seconds)
        runtime = create_ditto([context, create_memory_worker(store), infer, interaction])
    except BaseException:
        await store.close()
        lock.release()
        raise
    return TaskApp(directory=task_dir, runtime=runtime, store=store, interaction=interaction, infer=infer, lock=lock)


class OpenOptions(TypedDict, total=False):
    """The keyword options every pattern's ``open_*`` function takes (all optional).

    Attributes:
        env: environment for API keys (default ``os.environ``).
        base_urls: provider → base URL overrides (e.g. a scripted model in tests).
        provider: an already-built search provider (default: the search setup builds one).
    """

    env: Mapping[str, str] | None
    base_urls: Mapping[str, str] | None
    provider: Any | None


async def open_pattern_app(
    directory: str | os.PathLike[str], namespace: str, config: RuntimeConfig,
    tools: Callable[[Any | None], Mapping[str, Tool]], options: OpenOptions,
) -> TaskApp:
    """Open a pattern's task app (:func:`open_task_app`); a start-up failure is recorded in the
    task's Memory (:func:`~ditto_nb.patterns.common.failures.open_recorded`).

    Args:
        directory: the task directory.
        namespace: the task's Memory namespace.
        config: runtime configuration (model providers, ``context.redis_url``, ``memory``).
        tools: builds the task's Interaction tools from ``options["provider"]`` (None: the
            search setup builds the provider).
        options: the ``open_*`` function's :class:`OpenOptions`.

    Returns:
        The opened :class:`TaskApp`.

    Raises:
        TypeError: ``options`` has a key :class:`OpenOptions` does not name.
    """
    unknown = sorted(set(options) - OpenOptions.__optional_keys__)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    opening = open_task_app(directory, config, tools(options.get("provider")), env=options.get("env"),
                            base_urls=options.get("base_urls"))
    return await open_recorded(directory, namespace, opening, config.memory)


__all__ = ["OpenOptions", "TaskApp", "open_pattern_app", "open_task_app"]
