"""The process-wide registry of local model servers: start or reuse per provider, stop, diagnose.

:func:`ensure_local_provider` gives each provider with ``launch: {kind: llama-cpp, ...}`` one
:class:`~ditto_nb.local_model.server.LocalModelServer` per port in this process (started or
reused, probed). At interpreter exit (``atexit``) :func:`stop_all` releases them: the last process
using a server stops it (:mod:`~ditto_nb.local_model.ownership`).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Mapping
from pathlib import Path

from ditto_nb.errors import ConfigError, ModelServerCrashed
from ditto_nb.local_model.server import LocalModelServer
from ditto_nb.local_model.weights import get_profile
from ditto_nb.runtime.config import RuntimeConfig

_registry_lock = threading.Lock()
_servers: dict[int, LocalModelServer] = {}


def running_servers() -> Mapping[int, LocalModelServer]:
    """Servers started or reused through :func:`ensure_local_provider`, by port (a copy)."""
    with _registry_lock:
        return dict(_servers)


def stop_all(*, include_kept: bool = False) -> None:
    """Stop every server this process started (registered at ``atexit``).

    Args:
        include_kept: also stop servers started with ``keep_running=True``.
    """
    with _registry_lock:
        servers = list(_servers.items())
        for port, server in servers:
            if include_kept or not server.keep_running:
                del _servers[port]
    for _, server in servers:
        if include_kept or not server.keep_running:
            server.stop()


atexit.register(stop_all)


def stop_local_server(port: int) -> bool:
    """Stop the server registered on a port (if this process started it) and forget it.

    Args:
        port: the server's TCP port.

    Returns:
        True when a server was registered on that port.
    """
    with _registry_lock:
        server = _servers.pop(port, None)
    if server is None:
        return False
    server.stop()
    return True


def ensure_local_provider(
    config: RuntimeConfig,
    provider_name: str,
    *,
    keep_running: bool = False,
    cache_dir: str | Path | None = None,
    start_timeout_seconds: float = 180.0,
) -> str:
    """Return the base URL to use for a provider, starting its local server when it has one.

    For a provider whose ``launch.kind`` is ``llama-cpp``, the profile's weights are assembled
    (once) and a llama.cpp server is started on ``127.0.0.1:launch.port`` — or a compatible one
    already answering there is reused. The server reports the provider's ``model`` name. Any
    other provider's configured ``base_url`` is returned unchanged.

    Args:
        config: the runtime configuration.
        provider_name: a key of ``config.providers``.
        keep_running: leave a server we start running after the interpreter exits.
        cache_dir: model cache directory (default ``$DITTO_MODEL_DIR`` or ``~/.cache/ditto_nb/models``).
        start_timeout_seconds: how long to wait for the server to answer (seconds).

    Returns:
        The OpenAI-compatible base URL (e.g. ``http://127.0.0.1:8765/v1``).

    Raises:
        ConfigError: unknown provider, unknown profile, missing llama-cpp-python or weights,
            or the port is held by another model's server.
        ModelServerCrashed: the server crashed at start-up or in its probe, or crashed again
            after its one restart in this process.
        ModelTransportError: the server failed to start (see :meth:`LocalModelServer.start`).
    """
    provider = config.provider(provider_name)
    launch = provider.launch
    if launch is None or launch.kind != "llama-cpp":
        return provider.base_url
    profile = get_profile(launch.profile)
    alias = provider.model or profile.model_alias
    with _registry_lock:
        server = _servers.get(launch.port)
        if server is not None and (server.profile.name != profile.name or server.model_alias != alias):
            raise ConfigError(
                f"providers.{provider_name}.launch.port {launch.port} is already used by profile "
                f"{server.profile.name!r} ({server.model_alias}); give each local provider its own port"
            )
        if server is None:
            server = LocalModelServer(
                profile.name,
                port=launch.port,
                model_alias=alias,
                cache_dir=cache_dir,
                start_timeout_seconds=start_timeout_seconds,
                keep_running=keep_running,
            )
        server.keep_running = server.keep_running or keep_running
        _servers[launch.port] = server  # registered before starting: its crash count outlives a failed start
        server.start()
    return server.base_url


def diagnose_local_provider(port: int, wait_seconds: float = 2.0) -> ModelServerCrashed | None:
    """The crash report for the server registered on ``port`` when it has exited, else None.

    The Infer Worker calls this (through ``open_task_app``) when a model call to a local provider
    fails in transport, so a dead server is reported as :class:`ModelServerCrashed`, never as an
    unreachable endpoint with an API-key hint.

    Args:
        port: the provider's ``launch.port``.
        wait_seconds: how long to wait for a dying server to exit (seconds).

    Returns:
        The error to raise, or None (no server registered, or it still runs).
    """
    with _registry_lock:
        server = _servers.get(port)
    if server is None:
        return None
    return server.crash_check("during a model call", wait_seconds=wait_seconds)


__all__ = ["diagnose_local_provider", "ensure_local_provider", "running_servers", "stop_all", "stop_local_server"]
