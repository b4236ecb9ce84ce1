"""The Web QA request: trusted controller input, never granted by a model (SPEC §3).

Identity, origin normalization, reference checks and parsing come from
:class:`~ditto_nb.patterns.common.request.TaskRequest`.
"""

from __future__ import annotations

from pydantic import Field

from ditto_nb.patterns.common.request import TaskRequest

DEFAULT_MAX_QUERIES = 2
"""Search queries of a Web QA task unless set: one for the first hop, one kept for the second."""
DEFAULT_MAX_PAGES = 6
"""Pages a Web QA task reads unless set: four on the first hop (a question's entity often has a
mirror and decoys with the same name), two kept for the second hop's page."""


class WebQaRequest(TaskRequest):
    """One question with its identity, network policy and budgets (fields: see
    :class:`~ditto_nb.patterns.common.request.TaskRequest`; ``max_pages`` counts every page
    the task reads, references included).

    The budgets' defaults (:data:`DEFAULT_MAX_QUERIES` = 2 queries, :data:`DEFAULT_MAX_PAGES` = 6
    pages) fit a two-hop question: ``ditto-nb ask`` without ``--max-queries`` / ``--max-pages``
    and notebook 01's request form (:func:`ditto_nb.notebook.ask.request_defaults`) both use them.
    """

    NAMESPACE_PREFIX = "web_qa"
    SCOPE_PREFIX = "web"
    LABEL = "Web QA"

    max_queries: int = Field(default=DEFAULT_MAX_QUERIES, ge=1, le=3)
    max_pages: int = Field(default=DEFAULT_MAX_PAGES, ge=1, le=6)

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
        max_queries=DEFAULT_MAX_QUERIES,
        max_pages=DEFAULT_MAX_PAGES,
        cross_check=False,
        allow_partial=True,
    )


__all__ = ["DEFAULT_MAX_PAGES", "DEFAULT_MAX_QUERIES", "WebQaRequest", "default_request"]
