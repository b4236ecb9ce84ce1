"""Notebook widgets: a validating request form and stage progress driven by the Loop trace.

- :class:`RequestForm` (ipywidgets): one input per request field; :meth:`RequestForm.validate`
  checks the values with the pattern's pydantic request model (ranges such as ``max_queries``
  1–3) *before* a task is created, and shows the validation error under the form.
- :class:`StageProgress`: an ``on_graph`` callback (``runtime.loop(..., on_graph=...)``) that
  advances a ``tqdm.auto`` bar per stage graph; in a plain console tqdm prints a text bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel, ValidationError
from tqdm.auto import tqdm

from ditto_nb.runtime.loop import GraphRecord


def validation_message(exc: ValidationError) -> str:
    """One line per problem, ``field: message``.

    Args:
        exc: a pydantic validation error.

    Returns:
        The message text.
    """
    lines = []
    for e in exc.errors():
        loc = list(dict.fromkeys(map(str, e["loc"])))  # ("allowed_origins", "allowed_origins") → one name
        message = str(e["msg"]).removeprefix("Value error, ")
        lines.append(f"{'.'.join(loc) or 'request'}: {message}")
    return "\n".join(lines)


def _widget_for(name: str, value: Any, description: str) -> widgets.ValueWidget:
    style = {"description_width": "initial"}
    if isinstance(value, bool):
        return widgets.Checkbox(value=value, description=name, tooltip=description, style=style)
    if isinstance(value, int):
        # A plain IntText (not a bounded slider) so that an out-of-range value can be typed and is
        # then rejected by the request model with its message.
        return widgets.IntText(value=value, description=name, tooltip=description, style=style)
    if isinstance(value, (list, tuple)):
        return widgets.Textarea(value="\n".join(map(str, value)), description=name, tooltip=description, style=style)
    return widgets.Text(value="" if value is None else str(value), description=name, tooltip=description, style=style)


class RequestForm:
    """An ipywidgets form for a pattern request model (``WebQaRequest``, ``ResearchRequest``).

    Args:
        model: the pydantic request class.
        defaults: initial field values (every required field must be given here).

    Attributes:
        inputs: ``{field: widget}``; list fields are one value per line.
        error: the last validation message ("" when valid).
        widget: the form (inputs, a Validate button, the error area) to display.
    """

    def __init__(self, model: type[BaseModel], defaults: Mapping[str, Any]) -> None:
        self.model = model
        self._lists = {n for n, v in defaults.items() if isinstance(v, (list, tuple))}
        self.inputs: dict[str, widgets.ValueWidget] = {}
        for name, value in defaults.items():
            info = model.model_fields.get(name)
            self.inputs[name] = _widget_for(name, value, (info.description or "") if info else "")
        self.error = ""
        self.message = widgets.HTML(value="")
        button = widgets.Button(description="Validate", button_style="primary")
        button.on_click(lambda _b: self.validate())
        self.widget = widgets.VBox([*self.inputs.values(), button, self.message])

    def set(self, **values: Any) -> None:
        """Set input values (as a user would type them).

        Args:
            values: ``field=value``; list fields accept a list or newline-separated text.
        """
        for name, value in values.items():
            if name in self._lists and isinstance(value, (list, tuple)):
                value = "\n".join(map(str, value))
            self.inputs[name].value = value

    def values(self) -> dict[str, Any]:
        """The current input values as request fields (list fields split by line, blanks dropped).

        Returns:
            ``{field: value}``.
        """
        out: dict[str, Any] = {}
        for name, w in self.inputs.items():
            value = w.value
            if name in self._lists:
                value = [line.strip() for line in str(value).splitlines() if line.strip()]
            out[name] = value
        return out

    def validate(self) -> BaseModel | None:
        """Validate the inputs with the request model and show the result under the form.

        Returns:
            The validated request, or None when invalid (:attr:`error` holds the message).
        """
        try:
            request = self.model.model_validate(self.values())
        except ValidationError as exc:
            self.error = validation_message(exc)
            self.message.value = "<pre style='color:#b00020'>" + _escape(self.error) + "</pre>"
            return None
        except ValueError as exc:  # e.g. an invalid URL raised by a validator helper
            self.error = str(exc)
            self.message.value = "<pre style='color:#b00020'>" + _escape(self.error) + "</pre>"
            return None
        self.error = ""
        self.message.value = "<span style='color:#1b5e20'>valid request</span>"
        return request

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)  # type: ignore[no-untyped-call]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class StageProgress:
    """Stage progress from the Loop trace: pass the instance as ``on_graph``.

    Each executed graph is recorded; a graph whose name is one of ``stages`` (or starts with
    ``<stage>:``, like ``search:r1``) moves the bar to that stage. The bar's postfix shows the
    last graph, its outcome and seconds.

    Args:
        stages: the stage names in order (e.g. ``ditto_nb.patterns.web_qa.STAGES``).
        desc: the bar's label.
        file: where a console bar is written (default stderr).

    Attributes:
        records: every :class:`~ditto_nb.runtime.loop.GraphRecord` received, in order.
    """

    def __init__(self, stages: Sequence[str], desc: str = "stages", file: Any = None) -> None:
        self.stages = list(stages)
        self.records: list[GraphRecord] = []
        self.bar = tqdm(total=len(self.stages), desc=desc, unit="stage", file=file, leave=True)
        self._position = 0

    def __call__(self, record: GraphRecord) -> None:
        """Record one executed graph and advance the bar (the ``on_graph`` callback).

        Args:
            record: the trace record of the graph.
        """
        self.records.append(record)
        base = record.name.split(":", 1)[0]
        if base in self.stages:
            target = self.stages.index(base) + 1
            if target > self._position:
                self.bar.update(target - self._position)
                self._position = target
        self.bar.set_postfix_str(f"{record.name} {record.outcome} {record.seconds:.2f}s")

    @property
    def graph_names(self) -> list[str]:
        """Names of the executed graphs, in order."""
        return [r.name for r in self.records]

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()


__all__ = ["RequestForm", "StageProgress", "validation_message"]
