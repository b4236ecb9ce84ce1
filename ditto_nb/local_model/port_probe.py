"""Is a model server on ``127.0.0.1:<port>``? TCP and ``GET /v1/models`` probes for
:class:`~ditto_nb.local_model.server.LocalModelServer` (which never starts a second server on a
held port)."""

from __future__ import annotations

import socket
import time
from typing import Final

import httpx

from ditto_nb.errors import ModelTransportError

HOST: Final = "127.0.0.1"
"""The only address the local server binds to."""


def port_held(port: int, timeout_seconds: float = 1.0) -> bool:
    """True when something accepts TCP connections on ``127.0.0.1:port``."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout_seconds):
            return True
    except OSError:
        return False


def probe_held_port(port: int, wait_seconds: float) -> list[str] | None:
    """Probe ``/v1/models`` on a held port for up to ``wait_seconds`` (seconds), patiently.

    Returns:
        The model ids once the server answers, or None when the port was released meanwhile
        (then a server may be started).

    Raises:
        ModelTransportError: the port stays held without ``/v1/models`` answering (retryable).
    """
    deadline = time.monotonic() + wait_seconds
    while True:
        left = deadline - time.monotonic()
        ids = probe_models(port, timeout_seconds=max(2.0, min(15.0, left)))
        if ids is not None:
            return ids
        if not port_held(port):
            return None
        if time.monotonic() >= deadline:
            raise ModelTransportError(
                f"port {port} on {HOST} accepts connections but GET /v1/models did not answer within "
                f"{wait_seconds:.0f} s; not starting a second server on a held port"
            )
        time.sleep(1.0)


def probe_models(port: int, timeout_seconds: float = 2.0) -> list[str] | None:
    """Return the model ids reported by ``GET /v1/models`` on the port, or None if nothing answers."""
    try:
        response = httpx.get(f"http://{HOST}:{port}/v1/models", timeout=timeout_seconds)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    try:
        payload = response.json()
    except ValueError:
        return None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return None
    return [str(item.get("id")) for item in data if isinstance(item, dict)]


__all__ = ["HOST", "port_held", "probe_held_port", "probe_models"]
