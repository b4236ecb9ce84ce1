"""The Web QA request: trusted controller input, never granted by a model (SPEC §3).

Identity, origin normalization, reference checks and parsing come from
:class:`~ditto_nb.patterns.common.request.TaskRequest`.
"""

from __future__ import annotations

from ditto_nb.patterns.common.request import TaskRequest


class WebQaRequest(TaskRequest):
    """One question with its identity, network policy and budgets (fields: see
    :class:`~ditto_nb.patterns.common.request.TaskRequest`; ``max_pages`` counts every page
    the task reads, references included)."""

    NAMESPACE_PREFIX = "web_qa"
    SCOPE_PREFIX = "web"
    LABEL = "Web QA"

    @property
    def scope(self) -> str:
        """The Context scope ``web:{tenant}:{principal}:{id}``."""
        return self.context_scope


def default_request(
    allowed_origins: tuple[str, ...] = ("https://en.wikipedia.org",),
    question: str = "When did the Golden Gate Bridge open, and how long is its main span?",
) -> WebQaRequest:
    """An explicit public-data demonstration request (not an authenticated identity).

    Args:
        allowed_origins: origins the demo may read (default: English Wikipedia).
        question: the demo question.

    Returns:
        A :class:`WebQaRequest` with tenant ``demo`` and principal ``analyst``.
    """
    return WebQaRequest(
        id="demo-web-qa",
        tenant="demo",
        principal="analyst",
        question=question,
        allowed_origins=allowed_origins,
        max_queries=2,
        max_pages=4,
        cross_check=False,
        allow_partial=True,
    )


__all__ = ["WebQaRequest", "default_request"]
