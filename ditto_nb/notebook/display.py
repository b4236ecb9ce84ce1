"""Readable notebook views of the plain frames (pandas Styler): clickable links, lists as text,
columns that wrap to fit the panel, a used/limit bar for budgets, a sentence instead of an empty
table, one-row summaries, and the stand-in banner.

The frames themselves (:mod:`ditto_nb.notebook.frames`) stay plain DataFrames for code; these
functions only change how they look.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ditto_nb.notebook.export import STAND_IN_NOTICE
from ditto_nb.notebook.styles import STATUS_COLOURS

LINK_COLUMNS = frozenset({"url", "final_url", "links", "mirror_of"})
"""Columns whose values (or list items) are URLs rendered as links."""

TEXT_LIMIT = 240
"""Characters of long text shown in a cell (the rest: ``evidence_text`` / ``show_quote``)."""

_TABLE_CSS = [
    {"selector": "", "props": "table-layout: auto; max-width: 100%; border-collapse: collapse; font-size: 12px"},
    {"selector": "td", "props": "max-width: 30em; white-space: normal; overflow-wrap: anywhere; "
                                "text-align: left; vertical-align: top; padding: 2px 6px"},
    {"selector": "th", "props": "white-space: nowrap; text-align: left; vertical-align: bottom; padding: 2px 6px"},
]


class Notice:
    """A short HTML notice (an empty frame's sentence, a banner); plain text in a console."""

    def __init__(self, text: str, css: str = "color:#555;font-style:italic", cls: str = "ditto-notice") -> None:
        self.text, self.css, self.cls = text, css, cls

    def _repr_html_(self) -> str:
        return f"<div class='{self.cls}' style='{self.css}'>{self.text}</div>"

    def __repr__(self) -> str:
        return self.text


def _link(url: Any) -> str:
    u = html.escape(str(url))
    return f"<a href='{u}' target='_blank' rel='noopener'>{u}</a>"


def _cell(column: str, value: Any) -> str:
    """One cell as HTML: links for URL columns, lists joined, long text shortened, None blank."""
    if value is None or (not isinstance(value, (list, tuple, str)) and pd.isna(value)):
        return "not requested" if column == "cross_check" else ""
    if isinstance(value, (list, tuple)):
        if column in LINK_COLUMNS:
            return "<br>".join(_link(v) for v in value)
        if column == "quotes":
            return "<br>".join(f"“{html.escape(str(v))}”" for v in value)
        return html.escape("; ".join(map(str, value)))
    if column in LINK_COLUMNS:
        return _link(value)
    text = str(value)
    if len(text) > TEXT_LIMIT:
        text = text[:TEXT_LIMIT].rstrip() + " …"
    return html.escape(text)


def show(df: pd.DataFrame, empty: str = "nothing yet", hide_index: bool = True) -> Styler | Notice:
    """A readable view of a frame.

    Args:
        df: any frame of :mod:`ditto_nb.notebook.frames` (or another plain frame).
        empty: the sentence shown instead of bare headers when ``df`` has no rows.
        hide_index: hide the row index.

    Returns:
        A Styler (HTML table: links clickable, lists as text, text wrapped and shortened to
        :data:`TEXT_LIMIT` characters, status colours) or a :class:`Notice` when empty.
    """
    if df.empty:
        return Notice(html.escape(empty))
    styler = df.style.format({c: (lambda v, c=c: _cell(str(c), v)) for c in df.columns}, escape=None)
    if "status" in df.columns:
        styler = styler.map(lambda v: STATUS_COLOURS.get(str(v), ""), subset=["status"])
    for column in ("quotes_verified", "grounded", "cross_check", "correct", "selected"):
        if column in df.columns:  # a verdict False is red; a paragraph not selected is just not selected
            false_css = "" if column == "selected" else "background-color:#f8d7da"
            styler = styler.map(lambda v, f=false_css: {True: "background-color:#d4edda", False: f}
                                .get(v, "") if isinstance(v, bool) else "", subset=[column])
    styler = styler.set_table_styles(_TABLE_CSS)
    return styler.hide(axis="index") if hide_index else styler


def show_failures(df: pd.DataFrame) -> Styler | Notice:
    """:func:`show` for a failures frame: "no failures" when empty."""
    return show(df, empty="no failures")


def show_hits(df: pd.DataFrame) -> Styler | Notice:
    """Search hits grouped by query (the query is shown once per group, not on every row)."""
    if df.empty:
        return Notice("no search hits yet")
    return show(df.drop(columns=["discovery_only"]).set_index(["query", "rank"]), hide_index=False)


def show_budget(df: pd.DataFrame) -> Styler | Notice:
    """A budget frame with a used/limit bar per budget (full bar = limit reached)."""
    if df.empty:
        return Notice("no budgets")
    view = df.assign(share=[(u / lim) if lim else 0.0 for u, lim in zip(df["used"].fillna(0), df["limit"].fillna(0))])
    styler = (view.style.bar(subset=["share"], vmin=0.0, vmax=1.0, color="#90caf9")
              .format({"share": lambda v: f"{v:.0%} of limit"}).set_table_styles(_TABLE_CSS))
    return styler.hide(axis="index")


def summary_frame(values: Mapping[str, Any] | pd.Series) -> pd.DataFrame:
    """A summary (dict or Series) as a one-row frame, floats rounded to 3 places.

    Args:
        values: ``{name: value}``.

    Returns:
        A DataFrame with one row and one column per name (nested budgets as ``used/limit`` text,
        lists joined with ``; ``).
    """
    return pd.DataFrame([{str(k): _summary_value(v) for k, v in dict(values.items()).items()}])


def _summary_value(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, Mapping):  # e.g. budgets {name: {"used", "limit"}} → "name used/limit; ..."
        return "; ".join(f"{k} {v.get('used')}/{v.get('limit')}" if isinstance(v, Mapping) else f"{k} {v}"
                         for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(map(str, value)) or "none"
    return value


def stand_in_banner(provider: str, model: str = "") -> Notice:
    """The banner a notebook shows under its set-up cell.

    Args:
        provider: the model provider in use (``scripted`` for the stand-in).
        model: the model name.

    Returns:
        For ``scripted``: a visible amber banner saying answers are not research results; else a
        one-line note naming the model.
    """
    if provider == "scripted":
        text = STAND_IN_NOTICE.replace("**Stand-in model.**", "<b>Stand-in model.</b>").replace(
            "`ditto_nb.testing`", "<code>ditto_nb.testing</code>")
        return Notice(text, "background:#fff3cd;border:2px solid #f0ad4e;padding:8px 12px;font-weight:500",
                      "ditto-stand-in")
    return Notice(f"Model: {html.escape(provider)} {html.escape(model)}", "color:#1b5e20", "ditto-model")


def show_question(question: str, gold: str | None = None) -> Notice:
    """The question a cell asks (and the gold answer, for evaluation), shown above its results."""
    extra = f"<br><span style='color:#555'>gold answer: {html.escape(gold)}</span>" if gold is not None else ""
    return Notice(f"<b>Question:</b> {html.escape(question)}{extra}", "padding:4px 0", "ditto-question")


def show_list(title: str, items: Sequence[str]) -> Notice:
    """A titled bullet list (a plan's sub-questions, queries)."""
    bullets = "".join(f"<li>{html.escape(i)}</li>" for i in items) or "<li><i>none</i></li>"
    return Notice(f"<b>{html.escape(title)}</b><ul>{bullets}</ul>", "", "ditto-list")


__all__ = ["LINK_COLUMNS", "TEXT_LIMIT", "Notice", "show", "show_budget", "show_failures", "show_hits",
           "show_list", "show_question", "stand_in_banner", "summary_frame"]
