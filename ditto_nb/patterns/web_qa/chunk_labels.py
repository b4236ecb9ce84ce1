"""Chunk labels and evidence lines of the Web QA prompts: ``[C1] (title - host) text`` (pure).

The answer, select and repair prompts show chunks as numbered lines (:func:`render_chunks`); the
model cites a chunk by its label (:func:`resolve_label`), and scripted models and benchmarks read
the lines back (:func:`evidence_lines`). Re-exported by :mod:`ditto_nb.patterns.web_qa.prompts`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from urllib.parse import urlsplit

from ditto_nb.evidence.rank import focused_excerpt
from ditto_nb.patterns.common.records import ChunkRecord

MAX_CHUNK_CHARS = 360
"""Characters of one chunk shown to the model (a sentence-bounded excerpt, see
:func:`ditto_nb.evidence.excerpt`); quotes are verified against the full stored paragraph."""


def label(index: int) -> str:
    """The label of the ``index``-th (0-based) chunk shown to the model: ``C1``, ``C2``, ..."""
    return f"C{index + 1}"


def resolve_label(value: str, labels: Mapping[str, str]) -> str:
    """Map what the model wrote (``C2``, ``[c2]``, ``2`` or a full chunk id) to a chunk id.

    Args:
        value: the model's chunk reference.
        labels: ``{label: chunk_id}``.

    Returns:
        The chunk id, or ``value`` unchanged when it matches nothing (it will fail verification).
    """
    text = value.strip().strip("[]").strip()
    if text in labels.values():
        return text
    match = re.fullmatch(r"[Cc]?\s*(\d+)", text)
    if match and f"C{int(match.group(1))}" in labels:
        return labels[f"C{int(match.group(1))}"]
    return value


def render_chunks(chunks: Sequence[ChunkRecord], max_chars: int = MAX_CHUNK_CHARS, query: str = "") -> str:
    """Render chunks as numbered evidence lines with sentence-bounded excerpts.

    Args:
        chunks: chunk dicts (``text``, ``title``, ``origin``) in label order.
        max_chars: the most characters of each chunk's text shown (characters).
        query: the question; a long chunk shows its sentences that best match it
            (:func:`ditto_nb.evidence.rank.focused_excerpt`).

    Returns:
        One line per chunk: ``[C1] (title - host) text``, read back by :func:`evidence_lines`. The
        host stands for the origin without scheme and port: it tells sources apart (cross-check)
        in fewer tokens, and the port, which varied between runs of one question on a loopback
        wiki, no longer varies the prompt or gets copied into claims.
    """
    lines = []
    for index, chunk in enumerate(chunks):
        text = focused_excerpt(str(chunk["text"]), query, max_chars)
        lines.append(f"[{label(index)}] ({chunk.get('title') or 'untitled'} - {_host(str(chunk['origin']))}) {text}")
    return "\n".join(lines)


def _host(origin: str) -> str:
    return urlsplit(origin).hostname or origin


class EvidenceLine(NamedTuple):
    """One evidence line of a prompt (:func:`render_chunks`)."""

    label: str
    title: str
    host: str
    text: str


_EVIDENCE_LINE = re.compile(r"^\[(C\d+)\] \(((?:[^()]|\([^()]*\))*) - ([^()\s]+)\) (.*)$", re.M)


def evidence_lines(prompt: str) -> list[EvidenceLine]:
    """The evidence lines :func:`render_chunks` wrote into ``prompt``, in order (for scripted
    models and benchmarks that read prompts back)."""
    return [EvidenceLine(*m.groups()) for m in _EVIDENCE_LINE.finditer(prompt)]


__all__ = ["MAX_CHUNK_CHARS", "EvidenceLine", "evidence_lines", "label", "render_chunks", "resolve_label"]
