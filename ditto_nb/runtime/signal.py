"""Cancellation signals for a Loop: abort on demand, or after a timeout.

Modelled on the DOM ``AbortSignal`` (``AbortSignal.timeout(ms)``): a :class:`Signal` is aborted
once, with an optional reason, and stays aborted. ``abort()`` is thread-safe, so a notebook
button or another thread may stop a Loop running on any event loop.
"""

from __future__ import annotations

import asyncio
import threading
import time

from ditto_nb.errors import LoopCancelled


class Signal:
    """An abort flag a running Loop watches.

    Attributes:
        deadline: ``time.monotonic()`` value (seconds) at which the signal times out, or None.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._aborted = False
        self._reason: object | None = None
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self.deadline: float | None = None
        self._timeout_seconds = 0.0

    @classmethod
    def timeout(cls, seconds: float) -> Signal:
        """Create a signal that aborts itself ``seconds`` after this call.

        Args:
            seconds: time until the signal aborts (seconds, > 0).

        Returns:
            A new :class:`Signal` whose reason, once timed out, is ``"timeout after {seconds} s"``.

        Raises:
            ValueError: ``seconds`` is not positive.
        """
        if not seconds > 0:
            raise ValueError(f"timeout seconds must be > 0, got {seconds!r}")
        signal = cls()
        signal.deadline = time.monotonic() + seconds
        signal._timeout_seconds = seconds
        return signal

    def abort(self, reason: object | None = None) -> None:
        """Abort the signal (idempotent; the first reason wins). Safe from any thread.

        Args:
            reason: why; shown in the ``LoopCancelled`` message. None → ``"aborted"``.
        """
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self._reason = "aborted" if reason is None else reason
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed; nobody is waiting any more
                pass

    def _check_deadline(self) -> None:
        if not self._aborted and self.deadline is not None and time.monotonic() >= self.deadline:
            self.abort(f"timeout after {self._timeout_seconds:g} s")

    @property
    def aborted(self) -> bool:
        """True once aborted or timed out."""
        self._check_deadline()
        return self._aborted

    @property
    def reason(self) -> object | None:
        """The abort reason (None while not aborted)."""
        self._check_deadline()
        return self._reason

    def raise_if_aborted(self) -> None:
        """Raise if the signal is aborted.

        Raises:
            LoopCancelled: the signal is aborted or timed out (message includes the reason).
        """
        if self.aborted:
            raise LoopCancelled(f"loop cancelled: {self._reason}")

    async def wait(self) -> None:
        """Return once the signal is aborted or its deadline passes (seconds, monotonic clock)."""
        if self.aborted:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._aborted:
                return
            self._waiters.append((loop, future))
        timer: asyncio.TimerHandle | None = None
        if self.deadline is not None:
            timer = loop.call_later(max(0.0, self.deadline - time.monotonic()), self._check_deadline)
        try:
            await future
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                if (loop, future) in self._waiters:
                    self._waiters.remove((loop, future))

    def __repr__(self) -> str:
        state = f"aborted reason={self._reason!r}" if self.aborted else "active"
        return f"<Signal {state}>"


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


__all__ = ["Signal"]
