"""The scripted model's stand-in for the research ``coverage`` call (tests, demo, benchmarks).

It reads the call's prompt (``Questions:`` numbered from 0, the topic, then ``Findings:`` numbered
from 1) and names, for each question, the finding sharing the most words of four or more letters
with it (0 when none shares one): a lexical rule, so what it answers depends on what the
pipeline really published.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBERED = re.compile(r"^(\d+)\. (.*)$", re.M)
_WORD = re.compile(r"[a-z0-9]{4,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def coverage_reply(user: str) -> dict[str, Any]:
    """The ``coverage`` reply to a prompt's user message.

    Args:
        user: the user message of :func:`ditto_nb.patterns.deep_research.prompts.coverage_messages`.

    Returns:
        ``{"items": [{"q", "finding", "reason"}]}``, one item per question.
    """
    head, _, tail = user.partition("Findings:")
    questions = [(int(n), q) for n, q in _NUMBERED.findall(head)]
    findings = [(int(n), f) for n, f in _NUMBERED.findall(tail)]
    items = []
    for n, question in questions:
        scored = [(len(_words(question) & _words(f)), -m, m) for m, f in findings]
        best = max(scored, default=(0, 0, 0))
        items.append({"q": n, "finding": best[2] if best[0] else 0,
                      "reason": "shares its words" if best[0] else "no finding shares its words"})
    return {"items": items}


__all__ = ["coverage_reply"]
