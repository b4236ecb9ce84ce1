"""Who uses a local llama.cpp server, across processes: a record file and one lease per process.

A server the kit starts is shared: a notebook kernel, the CLI and a test may all use the one on
port P. The process that starts it writes ``<dir>/<P>.json`` (:class:`ServerRecord`: pid, port,
profile, log path, ...); every process using it (the starter included) holds a lease, the empty
file ``<dir>/<P>.users/<pid>``. A process that is done removes its lease, and the *last* live user
stops the server, whichever process started it; so a server started by process A and reused by
B survives A's exit while B works, and nothing is left running once every user is gone. A
``keep_running`` server is never stopped this way. Joining, leaving and starting are serialised by
an exclusive ``flock`` on ``<dir>/<P>.lock``. Leases of dead processes are ignored and pruned.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from ditto_nb.runtime.processes import pid_alive


@dataclass(frozen=True)
class ServerRecord:
    """A running server started by the kit (the content of ``<dir>/<port>.json``).

    Attributes:
        pid: the server's process id.
        port: its TCP port on 127.0.0.1.
        profile: the weight profile.
        model_alias: the model name it serves.
        log_path: its log file.
        started_by: pid of the process that started it.
        started_at: Unix time it was started (seconds).
        keep_running: never stopped by the last user leaving.
    """

    pid: int
    port: int
    profile: str
    model_alias: str
    log_path: str
    started_by: int
    started_at: float
    keep_running: bool = False


def is_llama_server(pid: int, port: int) -> bool:
    """True when ``pid`` runs ``llama_cpp.server`` on ``port`` (guards against a reused pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"llama_cpp.server" in argv and str(port).encode() in argv


class ServerLeases:
    """Record files and per-process leases of the local servers, in one directory.

    Args:
        directory: where ``<port>.json``, ``<port>.lock`` and ``<port>.users/`` live.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _users(self, port: int) -> Path:
        return self.directory / f"{port}.users"

    @contextmanager
    def locked(self, port: int) -> Iterator[None]:
        """Hold the port's exclusive lock (blocks while another process starts or stops it)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / f"{port}.lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def read(self, port: int) -> ServerRecord | None:
        """The port's record when its server is alive, else None (a stale record is removed)."""
        path = self.directory / f"{port}.json"
        try:
            record = ServerRecord(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None
        if pid_alive(record.pid) and is_llama_server(record.pid, port):
            return record
        path.unlink(missing_ok=True)
        return None

    def write(self, record: ServerRecord) -> None:
        """Write the port's record (atomically)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{record.port}.json"
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(record)), encoding="utf-8")
        tmp.replace(path)

    def forget(self, port: int) -> None:
        """Remove the port's record (its server is gone)."""
        (self.directory / f"{port}.json").unlink(missing_ok=True)

    def join(self, port: int, pid: int | None = None) -> None:
        """Take a lease on the port's server for process ``pid`` (default: this one)."""
        users = self._users(port)
        users.mkdir(parents=True, exist_ok=True)
        (users / str(pid or os.getpid())).touch()

    def live_users(self, port: int) -> list[int]:
        """Pids holding a lease that are still alive (dead ones are pruned)."""
        users = self._users(port)
        alive: list[int] = []
        for entry in users.glob("*") if users.is_dir() else []:
            if entry.name.isdigit() and pid_alive(int(entry.name)):
                alive.append(int(entry.name))
            else:
                entry.unlink(missing_ok=True)
        return sorted(alive)

    def leave(self, port: int, pid: int | None = None) -> list[int]:
        """Drop the lease of ``pid`` (default: this process).

        Returns:
            The pids still holding a live lease.
        """
        (self._users(port) / str(pid or os.getpid())).unlink(missing_ok=True)
        return self.live_users(port)


def terminate_pid(pid: int, port: int, timeout_seconds: float = 10.0) -> None:
    """Stop a server that is not our child: SIGTERM, then SIGKILL after ``timeout_seconds``.

    Only a process that still runs ``llama_cpp.server`` on ``port`` is signalled.
    """
    if not is_llama_server(pid, port):
        return
    for sig, wait in ((signal.SIGTERM, timeout_seconds), (signal.SIGKILL, timeout_seconds)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return
            time.sleep(0.1)


__all__ = ["ServerLeases", "ServerRecord", "is_llama_server", "pid_alive", "terminate_pid"]
