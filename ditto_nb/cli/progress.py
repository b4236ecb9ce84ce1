"""Stage-by-stage progress on stderr for long CLI runs, fed by the Loop's ``on_graph`` trace.

A ``rich`` status line (spinner + elapsed seconds) shows which stage is running, and one line is
printed per finished stage Graph (name, outcome, seconds). Progress goes to stderr, so stdout
stays clean for the answer.
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.status import Status

from ditto_nb.local_model.providers import running_servers
from ditto_nb.runtime.loop import GraphRecord

_OUTCOME_MARK = {"ok": "[green]ok[/green]", "failed": "[red]failed[/red]", "cancelled": "[yellow]cancelled[/yellow]"}


class StageProgress:
    """Show stage progress of one Loop run on stderr.

    Use as a context manager and pass :meth:`on_graph` as the Loop's ``on_graph`` callback.

    Args:
        title: what is running (e.g. ``"web_qa demo-1"``).
        enabled: False prints nothing (``--quiet``).
        console: the rich console (default: stderr).

    Attributes:
        records: every :class:`~ditto_nb.runtime.loop.GraphRecord` received, in order.
    """

    def __init__(self, title: str, *, enabled: bool = True, console: Console | None = None) -> None:
        self.title = title
        self.enabled = enabled
        self.console = console or Console(stderr=True, highlight=False)
        self.records: list[GraphRecord] = []
        self._status: Status | None = None
        self._started = time.monotonic()

    def __enter__(self) -> StageProgress:
        self._started = time.monotonic()
        if self.enabled:
            self._status = self.console.status(f"{self.title}: starting", spinner="dots")
            self._status.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self.enabled:
            seconds = time.monotonic() - self._started
            state = "stopped" if exc_type is not None else "done"
            self.console.print(f"{self.title}: {state} after {len(self.records)} stage graphs in {seconds:.2f} s")
            for server in running_servers().values():
                if server.start_seconds is not None:
                    self.console.print(server.describe())

    def on_graph(self, record: GraphRecord) -> None:
        """Record one executed Graph and print its line (the Loop's ``on_graph`` callback).

        Args:
            record: the trace record of the Graph that just finished.
        """
        self.records.append(record)
        if not self.enabled:
            return
        mark = _OUTCOME_MARK.get(record.outcome, record.outcome)
        self.console.print(f"  stage {record.index + 1}: {record.name:<12} {mark}  {record.seconds:6.2f} s")
        if self._status is not None:
            self._status.update(f"{self.title}: {record.name} finished, next stage running")


__all__ = ["StageProgress"]
