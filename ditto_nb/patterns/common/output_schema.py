"""Base of the compact output schemas of model calls (pydantic; the JSON schema is a local model's
grammar), and the short answer's cap they share.

Web QA's schemas (``web_qa/schemas.py``) and the ``compare`` call's
(:class:`~ditto_nb.patterns.common.compare.schema.SidesOutput`, used by both patterns) derive from
:class:`CompactSchema`: no docstring or titles in the JSON schema (they would cost prompt tokens).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.config import JsonDict

ANSWER_CHARS = 120
"""Most characters of the short answer (grammar-enforced)."""


def compact_schema(schema: JsonDict, model: type[Any]) -> None:
    """Drop the class docstring and property titles from a JSON schema (they only cost prompt tokens:
    the schema is appended to the system message and compiled to the output grammar)."""
    del model
    schema.pop("description", None)
    schema.pop("title", None)
    properties = schema.get("properties") or {}
    for prop in properties.values() if isinstance(properties, dict) else ():
        if isinstance(prop, dict):
            prop.pop("title", None)


class CompactSchema(BaseModel):
    """Base of the output schemas: compact JSON schema (no docstring, no property titles)."""

    model_config = ConfigDict(json_schema_extra=compact_schema)


__all__ = ["ANSWER_CHARS", "CompactSchema", "compact_schema"]
