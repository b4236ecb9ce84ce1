"""Pieces shared by the patterns (``web_qa``, ``deep_research``).

Stable public API:

- binding: :class:`TaskScope`, :func:`binding_for`, :func:`check_binding`, :func:`fingerprint`,
  :func:`canonical_json`
- ledger (graph-node builders; plans do no I/O): :func:`add_ledgered_call`,
  :func:`add_stage_commit` / :class:`StageCommit`, :class:`Ledger` (replay: reuse, key/name
  check, budgets), :func:`check_replay`, :data:`COUNTERS`, :func:`run_step`,
  :func:`unwrap_tool_error`, :func:`now_iso`
- resume: :func:`build_resume_graph`, :func:`read_resume`, :class:`ResumeState`, :func:`used_sources`
- tools: :func:`build_task_tools`, :func:`check_quotes`; publish: :func:`publish_report`
- search: :class:`SearchSetup`; app: :func:`open_task_app`, :class:`TaskApp`
- task file (``task.json``, :mod:`~ditto_nb.patterns.common.task_file`): :class:`TaskFile`,
  :class:`ModelChoice`, :class:`SandboxChoice`, :func:`read_task_file`, :func:`require_task_file`,
  :func:`write_task_file`, :func:`update_task_file`
"""

from ditto_nb.patterns.common.app import TaskApp, open_task_app
from ditto_nb.patterns.common.binding import (
    REQUEST_KEY,
    TaskScope,
    binding_for,
    canonical_json,
    check_binding,
    fingerprint,
)
from ditto_nb.patterns.common.ledger import (
    BUDGET_PREFIX,
    COUNTERS,
    LEDGER_PREFIX,
    STAGE_PREFIX,
    Ledger,
    StageCommit,
    add_ledgered_call,
    add_stage_commit,
    check_replay,
    now_iso,
    run_step,
    unwrap_tool_error,
)
from ditto_nb.patterns.common.publish import publish_report, report_json_text
from ditto_nb.patterns.common.request import TaskRequest
from ditto_nb.patterns.common.resume import ResumeState, build_resume_graph, read_resume, used_sources
from ditto_nb.patterns.common.search import SearchSetup
from ditto_nb.patterns.common.task_file import (
    ModelChoice,
    SandboxChoice,
    TaskFile,
    read_task_file,
    require_task_file,
    update_task_file,
    write_task_file,
)
from ditto_nb.patterns.common.view import TaskView, load_task
from ditto_nb.patterns.common.tools import build_task_tools, check_quotes

__all__ = [
    "BUDGET_PREFIX",
    "COUNTERS",
    "Ledger",
    "check_replay",
    "LEDGER_PREFIX",
    "REQUEST_KEY",
    "STAGE_PREFIX",
    "ModelChoice",
    "ResumeState",
    "SandboxChoice",
    "SearchSetup",
    "StageCommit",
    "TaskApp",
    "TaskFile",
    "TaskRequest",
    "TaskScope",
    "TaskView",
    "add_ledgered_call",
    "add_stage_commit",
    "binding_for",
    "build_resume_graph",
    "build_task_tools",
    "canonical_json",
    "check_binding",
    "check_quotes",
    "fingerprint",
    "load_task",
    "now_iso",
    "open_task_app",
    "publish_report",
    "read_resume",
    "read_task_file",
    "report_json_text",
    "require_task_file",
    "run_step",
    "unwrap_tool_error",
    "update_task_file",
    "used_sources",
    "write_task_file",
]
