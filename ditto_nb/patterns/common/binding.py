"""Task identity: the Memory namespace, the Context scope and the request fingerprint.

A task is bound to its request the first time it runs: Memory key ``request`` holds
``{"fingerprint": sha256(canonical JSON), "request": {...}}``. A later run under the same task
directory with a different fingerprint raises :class:`~ditto_nb.errors.RequestChanged`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ditto_nb.errors import RequestChanged
from ditto_nb.patterns.common.records import Binding

REQUEST_KEY = "request"
"""Memory key of the request binding."""


def canonical_json(value: Any) -> str:
    """Serialize JSON deterministically (sorted keys, no spaces, UTF-8 kept).

    Args:
        value: a JSON-serializable value.

    Returns:
        The canonical JSON text.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(value: Any) -> str:
    """SHA-256 (hex) of :func:`canonical_json` of ``value``.

    Args:
        value: a JSON-serializable value (the request).

    Returns:
        64 hex characters.
    """
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TaskScope:
    """Where a task's state lives.

    Attributes:
        namespace: the Memory namespace, ``"<pattern>:<task id>"``.
        scope: the Context (Redis) key scope, e.g. ``"web:{tenant}:{principal}:{id}"``.
    """

    namespace: str
    scope: str


def binding_for(request: Mapping[str, object]) -> Binding:
    """The binding row stored under ``request``.

    Args:
        request: the request as a JSON dict.

    Returns:
        ``{"fingerprint": ..., "request": request}``.
    """
    return {"fingerprint": fingerprint(dict(request)), "request": dict(request)}


def check_binding(stored: Binding | None, expected: Binding) -> None:
    """Compare a stored binding with the expected one.

    Args:
        stored: the row read from Memory (None when the task is new).
        expected: :func:`binding_for` of the current request.

    Raises:
        RequestChanged: the fingerprints differ.
    """
    if stored is None:
        return
    if stored.get("fingerprint") != expected.get("fingerprint"):
        before = stored.get("request") or {}
        after = expected.get("request") or {}
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise RequestChanged(
            f"task {after.get('id', '?')!r} is bound to a different request "
            f"(changed: {', '.join(changed) or 'fingerprint'}); use a new task id"
        )


__all__ = ["REQUEST_KEY", "TaskScope", "binding_for", "canonical_json", "check_binding", "fingerprint"]
