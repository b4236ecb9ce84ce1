"""Structured output of a model call: the schema instruction, ``response_format`` per provider
mode, and finding the one JSON object in a reply (used by :mod:`ditto_nb.workers.infer`).

==================== =====================================================================
mode                 ``response_format``
==================== =====================================================================
``json_schema``      ``{"type": "json_schema", "json_schema": {"name", "schema", "strict": False}}``
``json_object_schema`` ``{"type": "json_object", "schema": ...}`` (llama-cpp-python server)
``json_object``      ``{"type": "json_object"}`` (Ollama)
``none``             not sent
==================== =====================================================================
"""

from __future__ import annotations

import json
import re
from typing import Any

import json_repair
from pydantic import BaseModel, ValidationError

from ditto_nb.errors import ConfigError, ModelOutputInvalid

EXCERPT_CHARACTERS = 200
"""Length of the content excerpt quoted in ModelOutputInvalid messages (characters)."""

_MAX_DECODE_ATTEMPTS = 200


def excerpt(text: str) -> str:
    """The text on one line, cut to :data:`EXCERPT_CHARACTERS` (for error messages)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARACTERS else flat[:EXCERPT_CHARACTERS] + "…"


def _objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects in ``text``: the whole text when it is one, else each object that decodes
    from a ``{`` (``json.JSONDecoder.raw_decode``), in order (at most ``_MAX_DECODE_ATTEMPTS``)."""
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return [whole]
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    for attempt, match in enumerate(re.finditer(r"\{", text)):
        if attempt >= _MAX_DECODE_ATTEMPTS:
            break
        try:
            value, _end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def extract_json_object(content: str) -> dict[str, Any]:
    """Find the one JSON object in a model's content.

    Accepts a bare object, an object inside a Markdown code fence (string values may contain
    backticks), and leading/trailing prose: the first ``{`` from which a complete JSON object
    decodes (``json.JSONDecoder.raw_decode``) wins.

    Args:
        content: the assistant message content.

    Returns:
        The decoded object.

    Raises:
        ModelOutputInvalid: empty content or no decodable JSON object (message has an excerpt,
            ``content`` the whole reply).
    """
    text = content.strip()
    if not text:
        raise ModelOutputInvalid("model returned empty content", content=content)
    found = _objects(text)
    if not found:
        raise ModelOutputInvalid(f"model content is not a JSON object: {excerpt(text)!r}", content=content)
    return found[0]


def decode_output(content: str, output_schema: type[BaseModel], source: str = "model") -> dict[str, Any]:
    """The model's reply as ``output_schema`` (validated, dumped in JSON mode).

    Each JSON object the reply holds is tried in order (see :func:`extract_json_object`), then
    the reply as ``json_repair`` mends it (closing brackets an early stop left open, a missing
    comma; https://github.com/mangiucugna/json_repair); the first that validates wins. So a reply
    whose outer object does not decode but holds the schema's object, or whose object was cut
    short after its last complete item, is still read. A mended list may hold fewer items than
    the model meant: callers treat a missing item as absent (a claim without a verdict is not
    supported). A reply with no valid object raises with the first object's problems.

    Args:
        content: the assistant message content.
        output_schema: the expected pydantic model.
        source: ``provider/model`` for the error message.

    Returns:
        The validated object as a JSON-ready dict.

    Raises:
        ModelOutputInvalid: empty content, no JSON object, or none matches the schema (message
            with the first object's problems and an excerpt; ``content`` the whole reply).
    """
    text = content.strip()
    if not text:
        raise ModelOutputInvalid(f"{source} returned empty content", content=content)
    found = _objects(text)
    repaired = json_repair.loads(text)  # e.g. an outer object cut short, its inner ones whole
    if isinstance(repaired, dict) and repaired not in found:
        found.append(repaired)
    first_error: ValidationError | None = None
    for value in found:
        try:
            return output_schema.model_validate(value).model_dump(mode="json")
        except ValidationError as exc:
            first_error = first_error or exc
    if first_error is None:
        raise ModelOutputInvalid(f"{source} content is not a JSON object: {excerpt(text)!r}", content=content)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in first_error.errors()[:5]
    )
    raise ModelOutputInvalid(
        f"{source} output does not match {output_schema.__name__}: {problems}; content: {excerpt(text)!r}",
        content=content,
    )


def _schema_name(model: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "output"


def response_format_for(mode: str, output_schema: type[BaseModel]) -> dict[str, Any] | None:
    """Return the ``response_format`` body field for a structured-output mode.

    Args:
        mode: ``json_schema`` | ``json_object_schema`` | ``json_object`` | ``none``.
        output_schema: the expected pydantic model.

    Returns:
        The field's value, or None for ``none``.

    Raises:
        ConfigError: an unknown mode.
    """
    schema = output_schema.model_json_schema()
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": _schema_name(output_schema), "schema": schema, "strict": False}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "none":
        return None
    raise ConfigError(f"unknown structured_output mode {mode!r}")


def schema_instruction(output_schema: type[BaseModel]) -> str:
    """The text asking for one JSON object matching the schema (see :func:`with_schema`)."""
    schema = json.dumps(output_schema.model_json_schema(), ensure_ascii=False)
    return (
        "Reply with exactly one JSON object and nothing else. It must match this JSON schema:\n"
        f"{schema}"
    )


def with_schema(messages: list[dict[str, Any]], output_schema: type[BaseModel]) -> list[dict[str, Any]]:
    """A copy of ``messages`` with the schema instruction at the end of the prompt, unless a message
    already carries the schema's JSON text (``json.dumps(model_json_schema(), ensure_ascii=False)``).

    A prompt that carries its schemas itself (Web QA's one system message, which states every
    step's format so that llama.cpp's prefix cache reads it once per server) gets no second copy.
    Otherwise the instruction goes after the last message when that is a user message with text,
    else at the end of the system message (inserted if absent). At the end, calls that share a
    prompt prefix but expect different schemas keep sharing it, so llama.cpp's prefix cache skips
    re-reading the shared tokens (measured: with the schema in the system message only ~52 tokens
    matched and each ground call re-read ~700 prompt tokens, ~15 s on 2 cores).
    """
    result = [dict(message) for message in messages]
    schema_text = json.dumps(output_schema.model_json_schema(), ensure_ascii=False)
    if any(isinstance(m.get("content"), str) and schema_text in m["content"] for m in result):
        return result
    instruction = schema_instruction(output_schema)
    if result and result[-1].get("role") == "user" and isinstance(result[-1].get("content"), str):
        result[-1]["content"] = f"{result[-1]['content']}\n\n{instruction}"
    elif result and result[0].get("role") == "system" and isinstance(result[0].get("content"), str):
        result[0]["content"] = f"{result[0]['content']}\n\n{instruction}"
    else:
        result.insert(0, {"role": "system", "content": instruction})
    return result


__all__ = ["EXCERPT_CHARACTERS", "decode_output", "excerpt", "extract_json_object", "response_format_for", "schema_instruction", "with_schema"]
