"""Command-line flags checked against the request model, so errors name the flag the analyst typed.

``--max-pages 9`` fails with ``--max-pages must be 1–6 (got 9)``, not with the request model's
field name (``max_pages: Input should be less than or equal to 6``). The ranges are read from the
pydantic model's own constraints (``Field(ge=..., le=...)``, ``Literal`` choices), so the CLI and
the API cannot disagree.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ditto_nb.errors import InvalidRequest


def _bounds(model: type[BaseModel], field: str) -> tuple[Any, Any]:
    low = high = None
    for meta in model.model_fields[field].metadata:  # annotated_types.Ge / Le from Field(ge=, le=)
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    return low, high


def check_flags(model: type[BaseModel], values: Mapping[str, Any], flags: Mapping[str, str]) -> None:
    """Check command-line values against the request model's ranges and choices.

    Args:
        model: the request model (``WebQaRequest``, ``ResearchRequest``).
        values: field name → value given on the command line (None: not given, skipped).
        flags: field name → the flag that sets it (``{"max_pages": "--max-pages"}``).

    Raises:
        InvalidRequest: ``<flag> must be <low>–<high> (got <value>)`` or ``<flag> must be one of
            ...``, naming the first bad flag.
    """
    for field, flag in flags.items():
        value = values.get(field)
        if value is None or field not in model.model_fields:
            continue
        choices = typing.get_args(model.model_fields[field].annotation)
        if typing.get_origin(model.model_fields[field].annotation) is typing.Literal and value not in choices:
            raise InvalidRequest(f"{flag} must be one of {', '.join(map(str, choices))} (got {value!r})",
                                 help=f"Pass a valid value to {flag}; see --help.")
        low, high = _bounds(model, field)
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidRequest(f"{flag} must be {low}–{high} (got {value})",
                                 help=f"Pass a value from {low} to {high} to {flag}; see --help.")


def check_origins(flag: str, values: Sequence[str]) -> None:
    """Raise ``InvalidRequest`` naming ``flag`` for the first value that is not an allowed-origin
    form (``https://host[:port]``, see :func:`ditto_nb.web.policy.normalize_origin`)."""
    from ditto_nb.web.policy import normalize_origin

    for value in values:
        try:
            normalize_origin(value)
        except InvalidRequest as exc:
            raise InvalidRequest(f"{flag} must be https://host[:port] (got {value!r})",
                                 help=f"Pass an https origin such as https://en.wikipedia.org to {flag}; "
                                      f"{exc}") from None


def check_choice(flag: str, value: str | None, choices: Sequence[str]) -> None:
    """Raise ``InvalidRequest`` naming ``flag`` when ``value`` is given and not one of ``choices``."""
    if value is not None and value not in choices:
        raise InvalidRequest(f"{flag} must be one of {', '.join(choices)} (got {value!r})",
                             help=f"Pass one of {', '.join(choices)} to {flag}.")


__all__ = ["check_choice", "check_flags", "check_origins"]
