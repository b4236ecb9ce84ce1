"""Progress shown in the running cell: stage, model calls n of m, elapsed seconds.

Use one :class:`CellProgress` per stage cell::

    async with CellProgress("plan", calls=lambda: len(app.infer.calls), limit=6) as progress:
        result = await run_web_qa(app.runtime, task_input, stop_after="plan", on_graph=progress)

On entry it displays a widget (an ipywidgets progress bar and a label, CSS class
``ditto-progress``) in the cell that is running; while the cell awaits, a timer refreshes the
elapsed seconds every ``tick`` seconds and each executed graph (the ``on_graph`` callback) updates
the label. On exit the label shows the total time, or the error type when the stage failed.
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import ipywidgets as widgets

from ditto_nb.runtime.loop import GraphRecord


class CellProgress:
    """A progress widget for the cell that runs one stage (an async context manager and an
    ``on_graph`` callback).

    Args:
        stage: what the cell runs (e.g. ``plan``, ``report``).
        calls: returns the number of model calls made so far (e.g. ``lambda: len(app.infer.calls)``);
            None hides the model-call count.
        limit: model calls allowed (the bar's maximum), or None.
        out: an ``ipywidgets.Output`` to show the widget in (a form's output area); None → the
            running cell.
        tick: seconds between refreshes of the elapsed time.

    Attributes:
        widget: the displayed widget (HBox of the bar and the label).
        records: graphs executed while the stage ran, in order.
        elapsed: seconds since entry (final after exit).
    """

    def __init__(self, stage: str, *, calls: Callable[[], int] | None = None, limit: int | None = None,
                 out: widgets.Output | None = None, tick: float = 0.25) -> None:
        self.stage, self._calls, self.limit, self._out, self._tick = stage, calls, limit, out, tick
        self._calls_before = calls() if calls is not None else 0
        self.records: list[GraphRecord] = []
        self.bar = widgets.IntProgress(value=0, min=0, max=max(1, limit or 1), bar_style="info",
                                       layout=widgets.Layout(width="180px"))
        self.label = widgets.HTML(value="")
        self.widget = widgets.HBox([self.bar, self.label])
        self.widget.add_class("ditto-progress")
        self._started = time.monotonic()
        self._ended: float | None = None
        self._timer: asyncio.Task[None] | None = None
        self._state = "running"

    @property
    def elapsed(self) -> float:
        """Seconds since the stage started (frozen once it ended)."""
        return (self._ended if self._ended is not None else time.monotonic()) - self._started

    @property
    def model_calls(self) -> int:
        """Model calls made since the stage started."""
        return (self._calls() - self._calls_before) if self._calls is not None else 0

    def text(self) -> str:
        """The label text: ``<stage> · <state> · model calls n of m · <graph> · 1.2 s``."""
        parts = [self.stage, self._state]
        if self._calls is not None:
            parts.append(f"model call {self.model_calls} of {self.limit}" if self.limit
                         else f"model calls {self.model_calls}")
        if self.records:
            parts.append(f"last step {self.records[-1].name}")
        parts.append(f"{self.elapsed:.1f} s")
        return " · ".join(parts)

    def refresh(self) -> None:
        """Redraw the bar and the label."""
        if self._calls is not None:
            self.bar.value = min(self.model_calls, self.bar.max)
        self.label.value = f"<span class='ditto-progress-label'>{html.escape(self.text())}</span>"

    def __call__(self, record: GraphRecord) -> None:
        """Record one executed graph (the ``on_graph`` callback) and redraw."""
        self.records.append(record)
        self.refresh()

    async def _run_timer(self) -> None:
        while True:
            self.refresh()
            await asyncio.sleep(self._tick)

    def _show(self) -> None:
        if self._out is not None:
            self._out.append_display_data(self.widget)
            return
        from IPython.display import display

        display(self.widget)  # type: ignore[no-untyped-call]

    async def __aenter__(self) -> CellProgress:
        self.refresh()
        self._show()
        self._timer = asyncio.get_running_loop().create_task(self._run_timer())
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._ended = time.monotonic()
        self._state = "done" if exc_type is None else f"failed ({exc_type.__name__})"
        self.bar.bar_style = "success" if exc_type is None else "danger"
        if exc_type is None and self._calls is None:
            self.bar.value = self.bar.max
        self.refresh()

    @classmethod
    def for_app(cls, app: Any, stage: str, limit: int | None, out: widgets.Output | None = None) -> CellProgress:
        """A progress for a task app (counts ``app.infer.calls``).

        Args:
            app: an opened :class:`~ditto_nb.patterns.common.TaskApp`.
            stage: the stage label.
            limit: model calls allowed.
            out: optional output widget.

        Returns:
            The progress (enter it with ``async with``).
        """
        return cls(stage, calls=lambda: len(app.infer.calls), limit=limit, out=out)


__all__ = ["CellProgress"]
