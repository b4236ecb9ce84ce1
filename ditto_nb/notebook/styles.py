"""Styled views of frames for notebooks (colours per status); code should use the plain frames."""

from __future__ import annotations

from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

STATUS_COLOURS = {
    "covered": "background-color: #d4edda",
    "gap": "background-color: #fff3cd",
    "conflict": "background-color: #f8d7da",
    "answered": "background-color: #d4edda",
    "insufficient-evidence": "background-color: #fff3cd",
    "conflicting-evidence": "background-color: #f8d7da",
    "needs-clarification": "background-color: #e2e3e5",
    "rejected": "background-color: #f8d7da; text-decoration: line-through",
}
"""CSS per coverage status (SPEC §4), answer status (SPEC §3) and ``rejected`` (a withheld claim)."""

_TRUE, _FALSE = "background-color: #d4edda", "background-color: #f8d7da"


def _status_css(value: Any) -> str:
    return STATUS_COLOURS.get(str(value), "")


def _bool_css(value: Any) -> str:
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return ""


def style_coverage(df: pd.DataFrame) -> Styler:
    """Colour a coverage frame's ``status`` column (covered green, gap amber, conflict red).

    Args:
        df: a :func:`~ditto_nb.notebook.research_frames.coverage_frame`.

    Returns:
        A pandas Styler (renders as HTML in a notebook).
    """
    return df.style.map(_status_css, subset=["status"])


def style_claims(df: pd.DataFrame) -> Styler:
    """Colour a claims frame: ``status`` per answer/coverage status, verdict columns green/red.

    Args:
        df: a :func:`~ditto_nb.notebook.frames.claims_frame`.

    Returns:
        A pandas Styler.
    """
    verdicts = [c for c in ("quotes_verified", "grounded", "cross_check") if c in df.columns]
    return df.style.map(_status_css, subset=["status"]).map(_bool_css, subset=verdicts)


__all__ = ["STATUS_COLOURS", "style_claims", "style_coverage"]
