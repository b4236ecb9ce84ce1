"""ditto_nb.patterns.web_qa: one question in, one grounded, published answer out (SPEC §3).

Public API: :class:`WebQaRequest`, :func:`default_request`, :class:`WebQaReport`,
:func:`open_web_qa`, :func:`run_web_qa`, :func:`run_web_qa_loop` (the plan for
``runtime.loop``), :data:`STAGES`, :func:`render_markdown`, and :class:`SearchSetup` (re-exported
from ``ditto_nb.patterns.common``). A task directory is made by
:func:`ditto_nb.patterns.tasks.create_task`, the one ``create_task`` of both patterns.
"""

from ditto_nb.patterns.common.search import SearchSetup
from ditto_nb.patterns.web_qa.app import Checkpoint, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.plan import STAGES, run_web_qa_loop
from ditto_nb.patterns.web_qa.report import WebQaReport, render_markdown
from ditto_nb.patterns.web_qa.request import WebQaRequest, default_request

__all__ = [
    "STAGES",
    "Checkpoint",
    "SearchSetup",
    "WebQaReport",
    "WebQaRequest",
    "default_request",
    "open_web_qa",
    "render_markdown",
    "run_web_qa",
    "run_web_qa_loop",
]
