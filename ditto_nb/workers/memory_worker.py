"""The Memory Worker: ``MEMORY.GET`` / ``MEMORY.WRITE`` over any :class:`MemoryStore`.

Inputs (ARCHITECTURE.md §Memory):

- ``MEMORY.GET {"namespace", "key"}`` → the value or None;
  ``{"namespace", "prefix"}`` → ``[[key, value], ...]`` sorted by key.
- ``MEMORY.WRITE {"namespace", "key", "value"}`` → None; with ``"if_absent": True`` → bool
  (inserted); ``{"namespace", "key", "increment": n}`` → the new int;
  ``{"writes": [{"namespace", "key", "value"}, ...]}`` → None (one transaction).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ditto_nb.errors import InvalidRequest
from ditto_nb.runtime.capabilities import MEMORY_GET, MEMORY_WRITE

if TYPE_CHECKING:
    from ditto_nb.workers.memory import MemoryStore


def _text(payload: Mapping[str, Any], field: str) -> str:
    value = payload.get(field)
    if not isinstance(value, str):
        raise InvalidRequest(f"memory request field {field!r} must be a string, got {value!r}")
    return value


def _mapping(capability: str, payload: Any) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        raise InvalidRequest(f"{capability} input must be a mapping, got {type(payload).__name__}")
    return payload


class MemoryWorker:
    """Serves ``MEMORY.GET`` and ``MEMORY.WRITE`` from one :class:`MemoryStore`.

    The store belongs to the caller: :meth:`close` does not close it (the Context Worker
    usually shares it).

    Args:
        store: the task's MemoryStore.
    """

    capabilities: frozenset[str] = frozenset({MEMORY_GET, MEMORY_WRITE})

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def execute(self, capability: str, input: Any) -> Any:
        """Run one memory operation.

        Args:
            capability: ``MEMORY.GET`` or ``MEMORY.WRITE``.
            input: the request mapping (module docstring).

        Returns:
            See the module docstring.

        Raises:
            InvalidRequest: unknown capability or malformed input.
            StorageError: the store failed.
        """
        payload = _mapping(capability, input)
        if capability == MEMORY_GET:
            return await self._get(payload)
        if capability == MEMORY_WRITE:
            return await self._write(payload)
        raise InvalidRequest(f"the Memory Worker does not serve {capability!r}")

    async def _get(self, payload: Mapping[str, Any]) -> Any:
        namespace = _text(payload, "namespace")
        if "key" in payload:
            return await self.store.get(namespace, _text(payload, "key"))
        if "prefix" in payload:
            pairs = await self.store.items(namespace, _text(payload, "prefix"))
            return [[key, value] for key, value in pairs]
        raise InvalidRequest("MEMORY.GET needs 'key' or 'prefix'")

    async def _write(self, payload: Mapping[str, Any]) -> Any:
        if "writes" in payload:
            writes = payload["writes"]
            if not isinstance(writes, list):
                raise InvalidRequest("MEMORY.WRITE 'writes' must be a list of {namespace, key, value}")
            items: list[tuple[str, str, Any]] = []
            for write in writes:
                entry = _mapping("MEMORY.WRITE writes[]", write)
                if "value" not in entry:
                    raise InvalidRequest("MEMORY.WRITE writes[] entries need 'value'")
                items.append((_text(entry, "namespace"), _text(entry, "key"), entry["value"]))
            await self.store.put_many(items)
            return None
        namespace, key = _text(payload, "namespace"), _text(payload, "key")
        if "increment" in payload:
            amount = payload["increment"]
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise InvalidRequest(f"MEMORY.WRITE 'increment' must be an int, got {amount!r}")
            return await self.store.incr(namespace, key, amount)
        if "value" not in payload:
            raise InvalidRequest("MEMORY.WRITE needs 'value', 'increment' or 'writes'")
        if payload.get("if_absent", False):
            return await self.store.put_new(namespace, key, payload["value"])
        await self.store.put(namespace, key, payload["value"])
        return None

    async def close(self) -> None:
        """Nothing to release: the store belongs to the caller."""


def create_memory_worker(store: MemoryStore) -> MemoryWorker:
    """Create the Memory Worker over a store.

    Args:
        store: any :class:`MemoryStore` (e.g. :func:`ditto_nb.workers.memory.open_task_store`).

    Returns:
        A Worker serving ``MEMORY.GET`` and ``MEMORY.WRITE``.
    """
    return MemoryWorker(store)


__all__ = ["MemoryWorker", "create_memory_worker"]
