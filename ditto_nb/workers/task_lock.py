"""One process per task directory: :class:`TaskLock` (``fcntl.flock`` on ``<directory>/.lock``).

The OS releases the lock when the holder dies, even by SIGKILL. The PostgreSQL counterpart is
:class:`ditto_nb.workers.lock_postgres.PostgresTaskLock`.
"""

from __future__ import annotations

import abc
import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import Generic, TypeVar

from typing_extensions import Self

from ditto_nb.errors import StorageError, TaskLocked

LOCK_FILE_NAME = ".lock"
"""File name of a task directory's :class:`TaskLock`."""

H = TypeVar("H")


class ExclusiveLock(abc.ABC, Generic[H]):
    """What both task locks share: ``held`` (a handle ``H`` is kept while held) and use as a
    context manager (``acquire`` on enter, ``release`` on exit). Subclasses implement
    ``acquire`` (take the lock without waiting; :class:`~ditto_nb.errors.TaskLocked` when another
    holder has it) and ``release`` (idempotent)."""

    _handle: H | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._handle is not None

    @abc.abstractmethod
    def acquire(self) -> None:
        """Take the lock without waiting. Raises TaskLocked when another holder has it."""

    @abc.abstractmethod
    def release(self) -> None:
        """Give the lock back (idempotent)."""

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class TaskLock(ExclusiveLock[int]):
    """Exclusive use of a task directory by one process: ``fcntl.flock`` on ``<directory>/.lock``.

    The lock is non-blocking: a second opener (another process, or another TaskLock in the same
    process) gets :class:`~ditto_nb.errors.TaskLocked` naming the holder's pid. The OS releases
    the lock when the holder's file descriptor closes, including when the holder is killed.
    Usable as a context manager.

    Args:
        directory: the task directory (created if missing).
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_FILE_NAME
        self._handle = None

    def acquire(self) -> None:
        """Take the ``flock`` without waiting.

        Raises:
            TaskLocked: another holder has it (the message names its pid when known).
            StorageError: the lock file cannot be created.
        """
        if self._handle is not None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open task lock {self.path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"pid {holder}" if holder is not None else "another process (pid unknown)"
            raise TaskLocked(f"task directory {self.directory} is locked by {who}") from None
        except OSError as exc:
            os.close(fd)
            raise StorageError(f"cannot lock {self.path}: {exc}") from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._handle = fd

    def release(self) -> None:
        """Release the lock (idempotent)."""
        fd, self._handle = self._handle, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


__all__ = ["LOCK_FILE_NAME", "ExclusiveLock", "TaskLock"]
