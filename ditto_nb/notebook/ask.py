"""Ask from the notebook: a request form that validates as you type and starts a *new* task.

:class:`AskForm` shows the analyst's fields (question, origins, budgets, cross-check) for a
pattern request model (``WebQaRequest``, ``ResearchRequest``). Every keystroke re-validates with
the model and shows the result under the form. :meth:`AskForm.request` returns a validated request
with a fresh task id (``<prefix>-<UTC yyyymmdd-HHMMSS>-<6 hex>``), so a changed question never
reuses (and silently reruns) an old task; its Run button does the same and starts the task in the
kernel's event loop with the given runner, in a persistent tasks folder next to the notebook
(:func:`tasks_folder`).
"""

from __future__ import annotations

import asyncio
import html
import os
import secrets
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel, ValidationError

from ditto_nb.errors import ConfigError, DittoError
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.notebook.widgets import validation_message

TASKS_ENV = "DITTO_NOTEBOOK_TASKS"
"""Environment variable overriding the notebooks' tasks folder."""

Runner = Callable[[BaseModel, Path, widgets.Output], Awaitable[str]]
"""Runs one task: ``(request, task_dir, output area) -> HTML summary of the outcome``."""


def tasks_folder(base: str | os.PathLike[str] | None = None) -> Path:
    """The persistent folder holding the notebooks' task directories (created if missing).

    Args:
        base: the folder; None → env ``DITTO_NOTEBOOK_TASKS``, else ``tasks/`` in the current
            directory (a notebook kernel's current directory is the notebook's folder).

    Returns:
        The absolute folder path.
    """
    folder = Path(base if base is not None else os.environ.get(TASKS_ENV) or Path.cwd() / "tasks").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def fresh_task_id(prefix: str) -> str:
    """A new task id: ``<prefix>-<UTC yyyymmdd-HHMMSS>-<6 random hex>``.

    Args:
        prefix: e.g. ``web-qa``.

    Returns:
        The id (valid for the request models' id pattern when ``prefix`` is).
    """
    return f"{prefix}-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def request_defaults(model: type[BaseModel], *names: str) -> dict[str, Any]:
    """The request model's own defaults for ``names``: what a form shows when nothing is typed.

    The notebook form and ``ditto-nb ask`` (whose flags default to the model's values) then start
    from the same budgets (:class:`~ditto_nb.patterns.web_qa.request.WebQaRequest`: 2 queries,
    6 pages, enough for a two-hop question's second hop).

    Args:
        model: the pydantic request class (``WebQaRequest``, ``ResearchRequest``).
        names: field names with a default (e.g. ``"max_queries", "max_pages", "cross_check"``).

    Returns:
        ``{name: default}`` in the order given.

    Raises:
        ConfigError: a name is not a field of ``model`` or has no default.
    """
    out: dict[str, Any] = {}
    for name in names:
        info = model.model_fields.get(name)
        if info is None or info.is_required():
            raise ConfigError(f"{model.__name__} has no default for {name!r}")
        out[name] = info.get_default(call_default_factory=True)
    return out


def _input(name: str, value: Any, description: str) -> widgets.ValueWidget:
    wide = widgets.Layout(width="95%")
    style = {"description_width": "9em"}
    if isinstance(value, bool):
        return widgets.Checkbox(value=value, description=name, tooltip=description, indent=False)
    if isinstance(value, int):
        return widgets.IntText(value=value, description=name, tooltip=description, style=style,
                               layout=widgets.Layout(width="16em"))
    if isinstance(value, (list, tuple)):
        return widgets.Textarea(value="\n".join(map(str, value)), description=name, tooltip=description,
                                style=style, layout=widgets.Layout(width="95%", height=f"{1.6 * max(2, len(value)) + 0.6}em"))
    return widgets.Textarea(value="" if value is None else str(value), description=name, tooltip=description,
                            style=style, layout=wide, rows=2)


class AskForm:
    """A form for one pattern request that validates as you type and starts new tasks.

    Args:
        model: the pydantic request class.
        fields: the editable fields and their initial values (list fields: one value per line).
        fixed: fields not shown (e.g. ``tenant``, ``principal``).
        prefix: the task id prefix.
        tasks_dir: where task directories are created (default :func:`tasks_folder`).
        runner: runs a task when Run is pressed (see :data:`Runner`); None hides the button.

    Attributes:
        inputs: ``{field: widget}``.
        error: the current validation message ("" when valid).
        widget: the form to display (inputs, Run button, message, status, output area).
        started: ``(request, task_dir)`` of every task started with Run, in order.
        running: the asyncio task of the last Run, or None.
    """

    def __init__(self, model: type[BaseModel], fields: Mapping[str, Any], *, fixed: Mapping[str, Any],
                 prefix: str, tasks_dir: Path | None = None, runner: Runner | None = None) -> None:
        self.model, self.fixed, self.prefix = model, dict(fixed), prefix
        self.tasks_dir = tasks_dir if tasks_dir is not None else tasks_folder()
        self._lists = {n for n, v in fields.items() if isinstance(v, (list, tuple))}
        self.inputs: dict[str, widgets.ValueWidget] = {}
        for name, value in fields.items():
            info = model.model_fields.get(name)
            self.inputs[name] = _input(name, value, (info.description or "") if info else "")
            self.inputs[name].observe(lambda _change: self.validate(), names="value")
        self.error = ""
        self.message = widgets.HTML(value="")
        self.message.add_class("ditto-form-message")
        self.status = widgets.HTML(value="")
        self.status.add_class("ditto-form-status")
        self.output = widgets.Output()
        self.started: list[tuple[BaseModel, Path]] = []
        self.running: asyncio.Task[None] | None = None
        self._runner = runner
        texts = [w for n, w in self.inputs.items() if not isinstance(w, (widgets.IntText, widgets.Checkbox))]
        small = [w for n, w in self.inputs.items() if isinstance(w, (widgets.IntText, widgets.Checkbox))]
        self.button = widgets.Button(description="Run", button_style="primary", icon="play",
                                     tooltip="start a new task with these values")
        self.button.on_click(lambda _b: self.run())
        rows: list[widgets.Widget] = [*texts, widgets.HBox(small, layout=widgets.Layout(flex_flow="row wrap"))]
        if runner is not None:
            rows.append(self.button)
        self.widget = widgets.VBox([*rows, self.message, self.status, self.output],
                                   layout=widgets.Layout(width="100%"))
        self.widget.add_class("ditto-ask-form")
        self.validate()

    def set(self, **values: Any) -> None:
        """Set input values as a user would type them (list fields: a list or newline text)."""
        for name, value in values.items():
            if name in self._lists and isinstance(value, (list, tuple)):
                value = "\n".join(map(str, value))
            self.inputs[name].value = value

    def values(self) -> dict[str, Any]:
        """The editable fields' current values (list fields split by line, blanks dropped)."""
        out: dict[str, Any] = {}
        for name, w in self.inputs.items():
            value = w.value
            if name in self._lists:
                value = [line.strip() for line in str(value).splitlines() if line.strip()]
            elif isinstance(value, str):
                value = value.strip()
            out[name] = value
        return out

    def _validated(self, task_id: str) -> BaseModel | None:
        try:
            request = self.model.model_validate({**self.fixed, "id": task_id, **self.values()})
        except ValidationError as exc:
            self.error = validation_message(exc)
        except ValueError as exc:
            self.error = str(exc)
        else:
            self.error = ""
            self.message.value = "<span style='color:#1b5e20'>✓ valid request</span>"
            return request
        self.message.value = f"<pre style='color:#b00020;white-space:pre-wrap'>{html.escape(self.error)}</pre>"
        return None

    def validate(self) -> BaseModel | None:
        """Validate the current values (run on every change) and show the result under the form.

        Returns:
            The validated request (with a placeholder id), or None (:attr:`error` says why).
        """
        return self._validated(f"{self.prefix}-draft")

    def request(self) -> BaseModel:
        """A validated request with a fresh task id, from the current values.

        Returns:
            The request (each call gives a new id).

        Raises:
            ConfigError: the values are invalid (the message lists each field's problem).
        """
        request = self._validated(fresh_task_id(self.prefix))
        if request is None:
            raise ConfigError(f"the request form is invalid:\n{self.error}")
        return request

    def run(self) -> asyncio.Task[None] | None:
        """What the Run button does: validate, then start a new task in the kernel's event loop.

        Returns:
            The asyncio task running it, or None when the values are invalid or no runner is set.
        """
        if self._runner is None:
            return None
        try:
            request = self.request()
        except ConfigError:
            return None
        task_dir = self.tasks_dir / str(getattr(request, "id"))
        self.started.append((request, task_dir))
        question = html.escape(str(getattr(request, "question", "")))
        self.status.value = (f"<div class='ditto-started'>Started task <code>{html.escape(task_dir.name)}</code> "
                             f"in <code>{html.escape(str(self.tasks_dir))}</code>: <i>{question}</i></div>")
        self.running = asyncio.get_event_loop().create_task(self._run(request, task_dir))
        return self.running

    async def _run(self, request: BaseModel, task_dir: Path) -> None:
        assert self._runner is not None
        self.button.disabled = True
        try:
            outcome = await self._runner(request, task_dir, self.output)
            self.status.value += f"<div class='ditto-outcome'>{outcome}</div>"
        except DittoError as exc:
            self.status.value += (f"<div class='ditto-outcome' style='color:#b00020'>{type(exc).__name__}: "
                                  f"{html.escape(str(exc))}</div>")
        finally:
            self.button.disabled = False

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)  # type: ignore[no-untyped-call]


def web_qa_runner(env: Any, model_calls: int = 6) -> Runner:
    """A :data:`Runner` that runs a whole Web QA task with the notebook environment.

    Args:
        env: the :class:`~ditto_nb.notebook.demo.NotebookEnv`.
        model_calls: model calls allowed in one run (the progress bar's maximum).

    Returns:
        The runner; its summary is the answer status and text.
    """
    from ditto_nb.patterns.tasks import create_task
    from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa

    async def run(request: BaseModel, task_dir: Path, out: widgets.Output) -> str:
        parsed = await create_task(task_dir, WebQaRequest.parse(request.model_dump()), env.search,
                                   memory=env.config.memory)
        app = await open_web_qa(task_dir, parsed, env.config, env.search)
        try:
            async with CellProgress.for_app(app, "web qa", model_calls, out=out) as progress:
                report = await run_web_qa(app.runtime, {"request": parsed, "model": env.model}, on_graph=progress)
        finally:
            await app.close()
        if not isinstance(report, WebQaReport):
            return html.escape(f"stopped at {report}")
        return f"<b>{html.escape(report.answer.status)}</b>: {html.escape(report.answer.text)}"

    return run


__all__ = ["TASKS_ENV", "AskForm", "Runner", "fresh_task_id", "request_defaults", "tasks_folder", "web_qa_runner"]
