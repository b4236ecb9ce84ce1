"""The scripted model's stand-in for the research ``coverage`` call (tests, demo, benchmarks).

It reads the call's prompt (numbered pairs ``n. Question: …`` / ``Finding: …``) and says a
finding ``answers`` its question when the two share a word of four or more letters: a lexical
rule, so what it answers depends on what the pipeline really published and picked.
"""

from __future__ import annotations

import re
from typing import Any

PAIR = re.compile(r"^(\d+)\. Question: (.*)\n\s+Finding: (.*)$", re.M)
"""One pair of the ``coverage`` prompt: number, question, finding statement."""

_WORD = re.compile(r"[a-z0-9]{4,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def coverage_reply(user: str) -> dict[str, Any]:
    """The ``coverage`` reply to a prompt's user message.

    Args:
        user: the user message of :func:`ditto_nb.patterns.deep_research.prompts.coverage_messages`.

    Returns:
        ``{"verdicts": [{"n", "verdict", "reason"}]}``, one verdict per pair.
    """
    verdicts = []
    for n, question, finding in PAIR.findall(user):
        shared = bool(_words(question) & _words(finding))
        verdicts.append({"n": int(n), "verdict": "answers" if shared else "does not answer",
                         "reason": "shares its words" if shared else "shares no word"})
    return {"verdicts": verdicts}


__all__ = ["PAIR", "coverage_reply"]
