"""The scripted stand-in for batches: :func:`batch_demo_responder`.

:class:`~ditto_nb.notebook.demo.DemoResponder` remembers the question of the last ``plan`` call,
which is wrong when many tasks share one scripted model at once. This responder makes a fresh
DemoResponder per call and gives it the question written in that call's prompt
(``Question: ...``), so concurrent tasks never see each other's question. Quick runs and tests
only: it is rule-based, not a language model.
"""

from __future__ import annotations

from typing import Any

from ditto_nb.notebook.demo import DemoResponder


def prompt_question(request: dict[str, Any]) -> str:
    """The first ``Question:`` line of a chat request, latest message first ("" when absent)."""
    for message in reversed(request.get("messages") or []):
        for line in str(message.get("content") or "").splitlines():
            if line.strip().startswith("Question:"):
                return line.strip().removeprefix("Question:").strip()
    return ""


def batch_demo_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one chat request like DemoResponder, with no state shared between calls."""
    responder = DemoResponder()
    responder.question = prompt_question(request)
    return responder(request)


__all__ = ["batch_demo_responder", "prompt_question"]
