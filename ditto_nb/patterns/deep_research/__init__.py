"""Deep research: a bounded, multi-round investigation of a topic (SPEC §4).

One ``runtime.loop`` of :func:`run_research_loop` runs the whole task: planning (goal, at most
three sub-questions, initial queries, or clarification questions), rounds of search, reading
and assessment (coverage ``covered`` / ``gap`` / ``conflict``), then a report built only from
exact quotes of at most eight selected chunks, an independent review, at most one repair, and
publishing to ``output/report.md`` and ``output/report.json``.
"""

from ditto_nb.patterns.deep_research.app import (
    ModelChoice,
    ResearchInput,
    open_research,
    resume_research,
    run_research,
)
from ditto_nb.patterns.deep_research.plan import run_research_loop
from ditto_nb.patterns.deep_research.report import ResearchReport, render_markdown
from ditto_nb.patterns.deep_research.request import (
    RESEARCH_TYPES,
    STOP_REASONS,
    ResearchRequest,
    default_request,
    parse_request,
)

__all__ = [
    "RESEARCH_TYPES",
    "STOP_REASONS",
    "ModelChoice",
    "ResearchInput",
    "ResearchReport",
    "ResearchRequest",
    "default_request",
    "open_research",
    "parse_request",
    "render_markdown",
    "resume_research",
    "run_research",
    "run_research_loop",
]
